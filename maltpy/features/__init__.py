"""Feature models: MaltParser's feature notation, YAML files, compilation to C tables."""
import os

from maltpy.features.spec import (
    FeatureModel, FeatureSpecError, convert_maltparser_xml, load_feature_model, parse_feature,
)

#: Directory of the feature models that ship with maltpy.
MODELS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          "feature_models")

__all__ = ["FeatureModel", "FeatureSpecError", "convert_maltparser_xml", "load_feature_model",
           "parse_feature", "MODELS_DIR"]
