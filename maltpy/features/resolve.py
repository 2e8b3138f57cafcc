"""The ``-F`` setting: a feature model file, a shipped model by name, or the system's default."""
from __future__ import annotations

import os
from typing import Optional

from maltpy.errors import MaltpyError
from maltpy.features import MODELS_DIR, shipped_names, shipped_path
from maltpy.features.spec import FeatureSpecError, convert_maltparser_xml, load_feature_model
from maltpy.systems import FEATURE_MODEL_NAMES, system_class


def resolve_feature_model(features: Optional[str], algorithm: str, learner: str, fmt: str, **options):
    """``-F`` value -> (FeatureModel, YAML text). ``None`` = the default of the system with these
    ``options`` (MaltParser's model; see ``TransitionSystem.default_feature_model``)."""
    if not features:
        features = system_class(algorithm).default_feature_model(FEATURE_MODEL_NAMES.get(algorithm, algorithm),
                                                                  **options)
    # learners without models of their own use LIBLINEAR's (MaltParser ships liblinear and libsvm ones)
    learner = learner if learner in ("liblinear", "libsvm") else "liblinear"
    path = features
    if not os.path.exists(path):
        # a shipped model by name: NivreEager, NivreEager.xml, nivreeager ...
        stem = os.path.splitext(os.path.basename(features))[0]
        stem = FEATURE_MODEL_NAMES.get(stem.lower(), stem)
        directory = os.path.join(MODELS_DIR, learner, fmt)
        path = shipped_path(stem, directory)
        if path is None:
            raise MaltpyError(f"feature model {features!r} is neither a file nor a shipped model; "
                              f"shipped models for {learner}/{fmt}: {', '.join(shipped_names(directory))}")
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise MaltpyError(f"{path}: cannot read the feature model ({e.strerror or e})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise FeatureSpecError(f"{path}:{line}: invalid UTF-8 (byte 0x{data[e.start]:02x}); "
                               "the feature model must be UTF-8 encoded") from None
    if path.endswith(".xml"):
        model = convert_maltparser_xml(text, path)[0]
        text = model.to_yaml(f"converted from {os.path.basename(path)}")
        return model, text
    return load_feature_model(text, path), text
