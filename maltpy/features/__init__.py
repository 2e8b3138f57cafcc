"""Feature models: MaltParser's feature notation, YAML files, compilation to C tables."""
import os

from maltpy.features.spec import (
    FeatureModel, FeatureSpecError, convert_maltparser_xml, load_feature_model, parse_feature,
)

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: Directory of the feature models that ship with maltpy: inside an installed package,
#: or the repository's top-level feature_models/ in a source checkout.
MODELS_DIR = next((d for d in (os.path.join(_PACKAGE, "feature_models"),
                               os.path.join(os.path.dirname(_PACKAGE), "feature_models"))
                   if os.path.isdir(d)), os.path.join(_PACKAGE, "feature_models"))


def shipped_names(directory: str) -> list:
    """The names of the YAML files shipped in ``directory`` (under MODELS_DIR), sorted."""
    return sorted(os.path.splitext(f)[0] for f in os.listdir(directory) if f.endswith(".yaml")) \
        if os.path.isdir(directory) else []


def shipped_path(stem: str, directory: str):
    """``directory``/``stem``.yaml when maltpy ships it, else None (``-F NivreEager``,
    ``--tagger-templates english``: a setting that names a file or a shipped one)."""
    candidate = os.path.join(directory, stem + ".yaml")
    return candidate if os.path.exists(candidate) else None


__all__ = ["FeatureModel", "FeatureSpecError", "convert_maltparser_xml", "load_feature_model",
           "parse_feature", "MODELS_DIR", "shipped_names", "shipped_path"]
