"""Model files: one zip holding a JSON header and numpy arrays (``.npy``, no pickle).

Loading reads JSON and plain arrays with ``allow_pickle=False``, so a model
file can never run code. The header carries a magic string and a format
version; anything missing, truncated or from an incompatible version raises
:class:`~maltpy.errors.ModelFileError` with a message that says so.
"""
from __future__ import annotations

import io
import json
import os
import zipfile

import numpy as np

from maltpy.errors import MaltpyError, ModelFileError
from maltpy.output import open_output

MAGIC = "maltpy-model"
FORMAT_VERSION = 1
HEADER = "maltpy.json"


def save_model(path: str, header: dict, arrays: dict) -> None:
    """Write header and arrays to ``path`` atomically."""
    header = dict(header, magic=MAGIC, format_version=FORMAT_VERSION, arrays=sorted(arrays))
    make_parent_directory(path)
    with open_output(path, binary=True) as f:
        with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as z:
            z.writestr(HEADER, json.dumps(header, ensure_ascii=False))
            for name, arr in arrays.items():
                buf = io.BytesIO()
                np.lib.format.write_array(buf, np.ascontiguousarray(arr), allow_pickle=False)
                z.writestr(f"arrays/{name}.npy", buf.getvalue())


def make_parent_directory(path: str) -> None:
    """Create the directory a model file goes into, as MaltParser does for its configurations."""
    directory = os.path.dirname(os.path.abspath(str(path)))
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as e:
        raise MaltpyError(f"{path}: cannot create directory {directory} ({e.strerror or e})") from None


def load_model(path: str):
    """Return ``(header, arrays)``; raise ModelFileError for anything but a valid model file."""
    if not os.path.exists(path):
        raise ModelFileError(f"{path}: model file not found (train one with -m learn)")
    try:
        with zipfile.ZipFile(path) as z:
            try:
                header = json.loads(z.read(HEADER).decode("utf-8"))
            except KeyError:
                raise ModelFileError(f"{path}: not a maltpy model (no {HEADER} inside)") from None
            if not isinstance(header, dict) or header.get("magic") != MAGIC:
                raise ModelFileError(f"{path}: not a maltpy model")
            version = header.get("format_version")
            if version != FORMAT_VERSION:
                raise ModelFileError(
                    f"{path}: model format version {version} is not supported by this maltpy "
                    f"(it reads version {FORMAT_VERSION}); retrain the model or use the maltpy "
                    f"version {header.get('maltpy_version', '?')} that wrote it")
            arrays = {}
            for name in header.get("arrays", []):
                with z.open(f"arrays/{name}.npy") as f:
                    arrays[name] = np.lib.format.read_array(io.BytesIO(f.read()), allow_pickle=False)
    except ModelFileError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, KeyError, ValueError,
            UnicodeDecodeError, json.JSONDecodeError, OSError) as e:
        raise ModelFileError(f"{path}: corrupt or truncated model file ({type(e).__name__}: {e})") from None
    return header, arrays
