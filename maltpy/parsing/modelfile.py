"""Model files: one zip holding a JSON header and numpy arrays (``.npy``, no pickle).

Loading reads JSON and plain arrays with ``allow_pickle=False``, so a model
file can never run code. The header carries a magic string and a format
version; anything missing, truncated or from an incompatible version raises
:class:`~maltpy.errors.ModelFileError` with a message that says so.
"""
from __future__ import annotations

import io
import json
import math
import os
import warnings
import zipfile
import zlib

import numpy as np

from maltpy.errors import MaltpyError, ModelFileError
from maltpy.output import open_output

MAGIC = "maltpy-model"
#: version 2 writes integer arrays narrowed (see :func:`narrowed`); version 1 files read as before
FORMAT_VERSION = 2
READS_VERSIONS = (1, 2)
HEADER = "maltpy.json"
#: the header's record of the arrays written narrower than they are: name -> [dtype, "values" or
#: "deltas"]
NARROWED = "narrowed"
#: the integer types an array may be restored to
_INTEGER_TYPES = {np.dtype(t).name: np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64,
                                                           np.uint8, np.uint16, np.uint32, np.uint64)}


def save_model(path: str, header: dict, arrays: dict) -> None:
    """Write header and arrays to ``path`` atomically."""
    make_parent_directory(path)
    with open_output(path, binary=True) as f:
        write_model(f, header, arrays)


def model_bytes(header: dict, arrays: dict) -> bytes:
    """A model file's bytes, made in memory (a model inside a model, ``to_bytes``)."""
    buf = io.BytesIO()
    write_model(buf, header, arrays)
    return buf.getvalue()


def write_model(f, header: dict, arrays: dict) -> None:
    """Header and arrays as a model file into the binary stream ``f``."""
    stored, narrow = {}, {}
    for name, arr in arrays.items():
        stored[name], how = narrowed(np.ascontiguousarray(arr))
        if how is not None:
            narrow[name] = [np.asarray(arr).dtype.name, how]
    header = dict(header, magic=MAGIC, format_version=FORMAT_VERSION, arrays=sorted(arrays))
    if narrow:
        header[NARROWED] = narrow
    # deflate's fastest level: saving is four times faster for a few per cent more bytes
    # (docs/benchmarks.md, "Figures behind choices in the code")
    with zipfile.ZipFile(f, "w") as z:
        z.writestr(_member(HEADER), json.dumps(header, ensure_ascii=False), zipfile.ZIP_DEFLATED, 1)
        for name, arr in stored.items():
            buf = io.BytesIO()
            np.lib.format.write_array(buf, arr, allow_pickle=False)
            data = buf.getvalue()
            z.writestr(_member(f"arrays/{name}.npy"), data,
                       zipfile.ZIP_DEFLATED if _deflate_pays(data) else zipfile.ZIP_STORED, 1)


def _narrowest(lo: int, hi: int) -> np.dtype:
    """The smallest integer type that holds every value from ``lo`` to ``hi``."""
    return np.promote_types(np.min_scalar_type(lo), np.min_scalar_type(hi))


def narrowed(arr: np.ndarray):
    """``(array as written, how)``: an integer array in the narrowest type that holds its values
    (``how`` "values"), or, where it never falls (row pointers, offsets), its first value and the
    steps after it, narrower still ("deltas"); anything else as it is (``how`` None). Inflating
    is most of a model's loading, and it goes by the bytes inflated: a parser's row pointers are
    8 bytes a row as int64 and mostly 1 as steps (docs/benchmarks.md)."""
    if arr.dtype.kind not in "iu" or arr.size == 0 or arr.dtype.name not in _INTEGER_TYPES:
        return arr, None
    lo, hi = int(arr.min()), int(arr.max())
    best, how = _narrowest(lo, hi), "values"
    # (a byte an entry to rule out the classes of a rich model, tens of millions of them; the
    # steps of a non-decreasing array of values from 0 fit its own type)
    if arr.ndim == 1 and len(arr) > 1 and 0 <= lo and hi < 2 ** 63 and bool(np.all(arr[1:] >= arr[:-1])):
        steps = np.diff(arr)
        by_steps = _narrowest(0, max(int(steps.max()), lo))
        if by_steps.itemsize < best.itemsize:
            out = np.empty(len(arr), dtype=by_steps)
            out[0] = lo
            out[1:] = steps
            return out, "deltas"
    if best.itemsize >= arr.dtype.itemsize:
        return arr, None
    return arr.astype(best), how


def _narrow_records(narrow, names) -> dict:
    """The header's record of narrowed arrays, checked: each one of ``names``, as [an integer
    type's name, "values" or "deltas"]."""
    if not isinstance(narrow, dict) or not all(
            name in names and isinstance(r, list) and len(r) == 2 and isinstance(r[0], str)
            and r[0] in _INTEGER_TYPES and r[1] in ("values", "deltas") for name, r in narrow.items()):
        raise ValueError("the header's record of narrowed arrays is damaged")
    return narrow


def widened(arr: np.ndarray, record, name: str) -> np.ndarray:
    """An array as :func:`narrowed` wrote it, back in its own type (``record``: the header's
    ``[dtype, how]`` for it, checked by :func:`_narrow_records`)."""
    target = _INTEGER_TYPES[record[0]]
    if arr.dtype.kind not in "iu" or arr.dtype.itemsize > target.itemsize:
        raise ValueError(f"array {name} is {arr.dtype}, which does not widen to {target}")
    if record[1] == "values":
        if arr.size and (int(arr.min()) < np.iinfo(target).min or int(arr.max()) > np.iinfo(target).max):
            raise ValueError(f"array {name} holds values that do not fit {target}")
        return arr.astype(target)
    return _steps_summed(arr, arr.dtype, target, name).astype(target, copy=False)


def _steps_summed(steps: np.ndarray, stored: np.dtype, target: np.dtype, name: str) -> np.ndarray:
    """The column that ``steps`` (written as ``stored``, unsigned) are the first value and the
    steps of, as int64, checked to fit ``target``."""
    if steps.ndim != 1 or (steps.size and (stored.kind != "u" or stored.itemsize > 4)):
        raise ValueError(f"array {name} is not the steps of a column")
    # at most 2**32 a step: the sum of fewer than 2**31 of them fits an int64, and is checked
    # against the type it widens to
    if len(steps) >= 2 ** 31:
        raise ValueError(f"array {name} is too long")
    # widened first and summed in place: numpy's cumsum with a dtype casts in small buffers, 1.5
    # times as slow on a parser's row pointers
    total = steps.astype(np.int64)
    np.cumsum(total, out=total)
    if total.size and int(total[-1]) > np.iinfo(target).max:
        raise ValueError(f"array {name} holds values that do not fit {target}")
    return total


def _member(name: str) -> zipfile.ZipInfo:
    """A member of a model file, dated at the zip format's epoch rather than now: the same model
    makes the same bytes whenever it is written (zip keeps times to two seconds, so a model
    written twice used to differ now and then)."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.external_attr = 0o600 << 16        # what writestr gives a member named by a string
    return info


#: an array is deflated when that keeps at most this share of its bytes, else stored as it is
DEFLATE_WHEN = 0.4


def _deflate_pays(data: bytes) -> bool:
    """Whether an array's bytes are worth deflating: inflating is several times slower than reading
    stored bytes, so deflate is kept for what it shrinks a lot (row pointers, classes, the header);
    feature keys and weights, mostly noise to it, are stored as they are (the figures:
    docs/benchmarks.md, "Figures behind choices in the code")."""
    if len(data) < 4096:
        return True
    return len(zlib.compress(data, 1)) <= DEFLATE_WHEN * len(data)


def make_parent_directory(path: str) -> None:
    """Create the directory a model file goes into, as MaltParser does for its configurations."""
    directory = os.path.dirname(os.path.abspath(str(path)))
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as e:
        raise MaltpyError(f"{path}: cannot create directory {directory} ({e.strerror or e})") from None


def _refuse_constant(name):
    raise ValueError(f"{name} is not a JSON number")


def member_names(path) -> list:
    """The names of a model file's members, from the zip's directory alone (nothing inflated, not
    even the header, whose symbol tables are most of a parser's start-up); [] for a file that is
    not a readable zip (:func:`load_model` then says what is wrong)."""
    try:
        with zipfile.ZipFile(path) as z:
            return z.namelist()
    except Exception:  # noqa: BLE001 - any damage: load_model gives the one-line error
        return []


#: the member only a model file of several components has (maltpy.components: the first one's bytes)
FIRST_COMPONENT = "arrays/component0.npy"


def holds_components(source) -> bool:
    """Whether a model file (a path or a binary stream) holds a pipeline of components rather than
    a parser alone, from its zip directory (cheap: callers decide before importing the pipeline)."""
    return FIRST_COMPONENT in member_names(source)


def load_model(path, records=None, data=None, wanted=None, as_bytes=None):
    """Return ``(header, arrays)``; raise ModelFileError for anything but a readable model file.
    ``data``: the file's bytes, read from memory (``path`` then only names them in messages).
    ``wanted``: a function of the header that names the arrays to read (the others are left
    unread; all by default).

    This reads the container only; :class:`HeaderReader` and :func:`check_array` check
    what the values mean. ``records``: a function of the header's array names that names arrays
    to read as the fields of one record array instead, ``{record name: (dtype, {field: array
    name})}``: each such array is inflated piece by piece into its field of the record array,
    which ``arrays`` then holds in their stead (its fields checked to be one-dimensional, equally
    long, finite where floats, and integers that fit the field). ``as_bytes``: a function of an
    array's name, true for the one-dimensional uint8 arrays to give as ``bytes`` (read once,
    where an array would be copied to bytes after: a pipeline's component model files)."""
    if data is None and not os.path.exists(path):
        raise ModelFileError(f"{path}: model file not found (train one with -m learn)")
    if data is None and os.path.isdir(path):
        raise ModelFileError(f"{path}: is a directory, expected a model file")
    try:
        with zipfile.ZipFile(path if data is None else io.BytesIO(data)) as z:
            try:
                raw = z.read(HEADER)
            except KeyError:
                raise ModelFileError(f"{path}: not a maltpy model (no {HEADER} inside)") from None
            header = json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant)
            if not isinstance(header, dict) or header.get("magic") != MAGIC:
                raise ModelFileError(f"{path}: not a maltpy model")
            version = header.get("format_version")
            if version not in READS_VERSIONS or isinstance(version, bool):
                raise ModelFileError(
                    f"{path}: model format version {version} is not supported by this maltpy "
                    f"(it reads versions {', '.join(map(str, READS_VERSIONS))}); retrain the model or use the maltpy "
                    f"version {header.get('maltpy_version', '?')} that wrote it")
            names = header.get("arrays")
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                raise ModelFileError(f"{path}: the header's array list is damaged")
            narrow = _narrow_records(header.get(NARROWED, {}), set(names))
            if wanted is not None:
                chosen = wanted(header)
                names = [n for n in names if n in chosen]
            arrays = {}
            plan = records(names) if records is not None else {}
            in_records = {name for _, fields in plan.values() for name in fields.values()}
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # numpy warns on some damaged .npy headers
                for name in names:
                    if name not in in_records:
                        member = z.getinfo(f"arrays/{name}.npy")
                        with z.open(member) as f:
                            arrays[name] = _read_npy_bytes(f, member.file_size) \
                                if as_bytes is not None and as_bytes(name) else _read_npy(f, member.file_size)
                        if name in narrow:
                            arrays[name] = widened(arrays[name], narrow[name], name)
                for record, (dtype, fields) in plan.items():
                    arrays[record] = _read_fields(z, dtype, fields, narrow)
    except ModelFileError:
        raise
    except PermissionError:
        raise ModelFileError(f"{path}: permission denied") from None
    except Exception as e:  # noqa: BLE001
        # zipfile, zlib, json and numpy's .npy reader each fail in their own ways on damaged
        # bytes (BadZipFile, zlib.error, NotImplementedError, tokenize errors, struct.error, ...);
        # every one of them means the same thing here
        # on one line: numpy's messages about damaged .npy headers run over several
        what = " ".join(f"{type(e).__name__}: {e}".split())
        raise ModelFileError(f"{path}: corrupt or truncated model file ({what})") from None
    return header, arrays


#: bytes inflated at a time when a model's arrays are read
READ_PIECE = 64 << 10


def _read_npy(f, size: int) -> np.ndarray:
    """One ``.npy`` member of a model file, inflated straight into its array (no whole-member
    copies on the way: a rich model's weights are tens of megabytes); what numpy's own reader
    refuses is refused (no pickled objects), and so is data shorter or longer than the header says."""
    shape, fortran, dtype = _npy_header(f, size)
    count = math.prod(shape)
    arr = np.empty(shape, dtype=dtype, order="F" if fortran else "C")
    out = memoryview(arr.reshape(-1, order="A").view(np.uint8)) if count else memoryview(b"")
    pos = 0
    while pos < len(out):
        # small pieces: each is a new bytes object, and below malloc's mmap threshold the same
        # memory serves the next one (a megabyte each was a fresh mapping, page-faulted anew)
        chunk = f.read(min(len(out) - pos, READ_PIECE))
        if not chunk:
            raise ValueError("array data shorter than its header says")
        out[pos:pos + len(chunk)] = chunk
        pos += len(chunk)
    if f.read(1):
        raise ValueError("array data longer than its header says")
    return arr


def _read_npy_bytes(f, size: int) -> bytes:
    """A one-dimensional uint8 ``.npy`` member of a model file as its bytes (checked as
    :func:`_read_npy` checks an array)."""
    shape, _, dtype = _npy_header(f, size)
    if dtype != np.uint8 or len(shape) != 1:
        raise ValueError("an array of bytes is of another kind")
    data = f.read(shape[0])
    if len(data) != shape[0]:
        raise ValueError("array data shorter than its header says")
    if f.read(1):
        raise ValueError("array data longer than its header says")
    return data


def _npy_header(f, size: int):
    """Shape and dtype of the ``.npy`` member ``f`` (``size`` bytes), read up to its data."""
    version = np.lib.format.read_magic(f)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
    elif version == (2, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
    else:
        raise ValueError(f"unsupported .npy version {version}")
    if dtype.hasobject:
        raise ValueError("the array holds Python objects")
    if math.prod(shape) * dtype.itemsize > size:  # a damaged header must not allocate what is not there
        raise ValueError("array data shorter than its header says")
    return shape, fortran, dtype


def _read_fields(z, dtype, fields: dict, narrow=None) -> np.ndarray:
    """One-dimensional arrays of the zip ``z`` (``fields``: record field -> array name) read into
    the fields of one record array of ``dtype``, without a whole copy of any of them: each is
    inflated and converted a piece at a time (``narrow``: the header's record of the arrays
    written narrower, :func:`narrowed`; values in a narrower type need nothing more, steps are
    summed when the field is full)."""
    narrow = narrow or {}
    members = {field: z.getinfo(f"arrays/{name}.npy") for field, name in fields.items()}
    opened = {field: z.open(member) for field, member in members.items()}
    try:
        shapes = {}
        for field, f in opened.items():
            shape, _, stored = _npy_header(f, members[field].file_size)
            target = dtype[field]
            if len(shape) != 1 or stored.kind not in ("iu" if target.kind in "iu" else "f"):
                raise ValueError(f"array {fields[field]} is {stored}{list(shape)}, not a column of {target}")
            shapes[field] = (shape[0], stored)
        lengths = {n for n, _ in shapes.values()}
        if len(lengths) != 1:
            raise ValueError(f"arrays {', '.join(fields.values())} differ in length")
        n = lengths.pop()
        out = np.empty(n, dtype=dtype)
        for field, f in opened.items():
            stored = shapes[field][1]
            column = out[field]
            info = np.iinfo(dtype[field]) if dtype[field].kind in "iu" else None
            pos = 0
            step = READ_PIECE // stored.itemsize
            while pos < n:
                want = min(n - pos, step) * stored.itemsize
                chunk = f.read(want)
                if len(chunk) != want:
                    raise ValueError("array data shorter than its header says")
                piece = np.frombuffer(chunk, dtype=stored)
                if info is not None:
                    if piece.size and (piece.min() < info.min or piece.max() > info.max):
                        raise ValueError(f"array {fields[field]} holds values that do not fit {dtype[field]}")
                else:
                    with np.errstate(over="ignore"):
                        piece = piece.astype(dtype[field], copy=False)
                    if not np.isfinite(piece).all():
                        raise ValueError(f"array {fields[field]} holds values that are not finite as {dtype[field]}")
                column[pos:pos + len(piece)] = piece
                pos += len(piece)
            if f.read(1):
                raise ValueError("array data longer than its header says")
            if narrow.get(fields[field], (None, None))[1] == "deltas":
                if info is None:
                    raise ValueError(f"array {fields[field]} is not the steps of a column")
                column[:] = _steps_summed(column, stored, dtype[field], fields[field])
        return out
    finally:
        for f in opened.values():
            f.close()


class HeaderReader:
    """Typed access to a model header: each getter checks the value or raises ModelFileError."""

    def __init__(self, header: dict, path: str):
        self.header, self.path = header, path

    def fail(self, what: str):
        raise ModelFileError(f"{self.path}: inconsistent model file ({what})")

    def get(self, key: str, optional: bool = False):
        if key not in self.header:
            if optional:
                return None
            self.fail(f"{key} is missing")
        return self.header[key]

    def integer(self, key: str, low: int, high: int) -> int:
        """An int in [low, high] (JSON true/false are not numbers here)."""
        v = self.get(key)
        if not isinstance(v, int) or isinstance(v, bool) or not low <= v <= high:
            self.fail(f"{key} must be an integer from {low} to {high}, not {v!r}"[:200])
        return v

    def text(self, key: str) -> str:
        v = self.get(key)
        if not isinstance(v, str):
            self.fail(f"{key} must be text")
        return v

    def mapping(self, key: str, optional: bool = False) -> dict:
        v = self.get(key, optional)
        if v is None and optional:
            return {}
        if not isinstance(v, dict):
            self.fail(f"{key} must be a mapping")
        return v

    def figures(self, key: str) -> dict:
        """An optional mapping of names to numbers (figures kept for people, such as the training
        data's size): entries that are not a finite number are left out, never trusted."""
        return {k: v for k, v in self.mapping(key, optional=True).items()
                if isinstance(k, str) and isinstance(v, (int, float)) and not isinstance(v, bool)
                and math.isfinite(v)}

    def strings(self, key: str) -> list:
        """A list of distinct strings that CoNLL can hold in a column (no tab, newline or empty)."""
        v = self.get(key)
        if not isinstance(v, list) or not all(isinstance(x, str) and x and not _BAD_CHARS.intersection(x)
                                              for x in v):
            self.fail(f"{key} must be a list of non-empty strings without tabs or line breaks")
        if len(set(v)) != len(v):
            self.fail(f"{key} has repeated entries")
        return v

    def tables(self, key: str, count: int) -> list:
        v = self.get(key)
        if not isinstance(v, list) or len(v) != count:
            self.fail(f"{key} must be a list of {count} symbol tables")
        for t in v:
            # null: the root row's symbol, which training enters first; the types checked as a
            # set of them (tens of thousands of symbols: a loop in Python took milliseconds)
            if not isinstance(t, list) or not set(map(type, t)) <= _SYMBOL_TYPES or len(set(t)) != len(t):
                self.fail(f"{key} must hold lists of distinct strings")
        return v


_BAD_CHARS = frozenset("\t\n\r")
_SYMBOL_TYPES = frozenset((str, type(None)))


def check_array(arrays: dict, name: str, path: str, kinds: str, ndim: int = 1, length=None,
                low=None, high=None) -> np.ndarray:
    """``arrays[name]`` if it has a dtype of ``kinds`` (numpy kind letters), ``ndim`` dimensions,
    ``length`` rows and values in [low, high] (finite for floats); else ModelFileError."""
    a = arrays.get(name)
    if a is None:
        raise ModelFileError(f"{path}: inconsistent model file (array {name} is missing)")
    bad = (a.dtype.kind not in kinds or a.ndim != ndim or (length is not None and len(a) != length))
    if not bad and a.size:
        if a.dtype.kind == "f":
            bad = not np.isfinite(a).all()
        if low is not None:
            bad = bad or a.min() < low
        if high is not None:
            bad = bad or a.max() > high
    if bad:
        raise ModelFileError(f"{path}: inconsistent model file (array {name}: {a.dtype}{list(a.shape)} "
                             f"does not fit the model)")
    return a
