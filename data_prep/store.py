"""The canonical store: one ``.npy`` per column and partition, plus a manifest.

The store is independent of pandas and pyarrow versions, so every environment
of the release matrix loads identical input; ``.npy`` without pickles is
readable back to numpy 1.16. The manifest records the schema, row counts and a
sha256 per file. It is written last, inside a temporary directory that is
renamed into place, so a dataset is either complete and verified or absent.
"""

import hashlib
import json
import os
import shutil
import uuid

import numpy as np

STORE_FORMAT = "dsib-store/1"
MANIFEST = "manifest.json"
_CHUNK = 1 << 20


class DatasetError(Exception):
    """A dataset that is missing, partial or corrupt. The message says how to rebuild it."""


def default_data_dir():
    return os.environ.get("DSIB_DATA_DIR") or os.path.abspath("data")


def rebuild_command(dataset, profile):
    if profile == "brought":  # data_prep.own_table.OWN_PROFILE: a table a user brought
        return "python -m data_prep add %s --from-file PATH" % dataset
    return "python -m data_prep prepare --dataset %s --profile %s" % (dataset, profile)


def dataset_path(data_dir, dataset, profile):
    return os.path.join(data_dir, profile, dataset)


def file_sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(_CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def _fsync_dir(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _save_array(path, array):
    # No fsync per column: a file torn by a power loss fails its checksum on load,
    # and only the manifest (fsynced) makes a dataset visible.
    with open(path, "wb") as f:
        np.save(f, np.ascontiguousarray(array), allow_pickle=False)
    return {
        "sha256": file_sha256(path),
        "bytes": os.path.getsize(path),
        "dtype": array.dtype.str,
        "rows": int(array.shape[0]),
    }


def write_dataset(data_dir, dataset, profile, partitions, metadata, progress=None, finish=None):
    """Write ``partitions`` (an iterable of ``(name, {column: array})``) atomically; ``finish``,
    where given, completes the manifest once every partition is written.

    Nothing is visible under the final path until every file is written and the
    manifest fsynced (the files are not: a file torn by a power loss fails its
    checksum on load); an interruption leaves only a ``.tmp-*`` directory, which
    the next write of the same dataset removes.
    """
    final = dataset_path(data_dir, dataset, profile)
    parent = os.path.dirname(final)
    if not os.path.isdir(parent):
        os.makedirs(parent)
    for leftover in os.listdir(parent):
        if leftover.startswith(".tmp-%s-" % dataset) or leftover.startswith(".old-%s-" % dataset):
            shutil.rmtree(os.path.join(parent, leftover), ignore_errors=True)
    token = uuid.uuid4().hex[:8]
    tmp = os.path.join(parent, ".tmp-%s-%s" % (dataset, token))
    os.makedirs(tmp)
    manifest = dict(metadata)
    manifest.update({"format": STORE_FORMAT, "dataset": dataset, "profile": profile, "partitions": []})
    for name, columns in partitions:
        os.makedirs(os.path.join(tmp, name))
        # A key with a "." names a column's other file (a text column's bytes), not rows.
        lengths = set(len(a) for key, a in columns.items() if "." not in key)
        if len(lengths) != 1:
            raise ValueError("partition %s has columns of different lengths %s" % (name, sorted(lengths)))
        files = {}
        for column, array in columns.items():
            files[column] = _save_array(os.path.join(tmp, name, column + ".npy"), array)
        manifest["partitions"].append({"name": name, "rows": lengths.pop(), "files": files})
        _fsync_dir(os.path.join(tmp, name))
        if progress is not None:
            progress(name)
    if finish is not None:
        finish(manifest)
    with open(os.path.join(tmp, MANIFEST), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.flush()
        os.fsync(f.fileno())
    _fsync_dir(tmp)
    old = None
    if os.path.exists(final):
        old = os.path.join(parent, ".old-%s-%s" % (dataset, token))
        os.rename(final, old)
    os.rename(tmp, final)
    _fsync_dir(parent)
    if old is not None:
        shutil.rmtree(old)
    return final


class Dataset(object):
    """A verified dataset on disk. With ``verify_on_load``, each file's sha256 is checked when
    it is first loaded (once per process and file state), instead of every file's up front."""

    def __init__(self, path, manifest, verify_on_load=False, rebuild=None):
        self.path = path
        self.manifest = manifest
        self.verify_on_load = verify_on_load
        self.rebuild = rebuild

    @property
    def digest(self):
        """sha256 of the manifest, which holds every file's sha256: the data's identity."""
        return hashlib.sha256(json.dumps(self.manifest, sort_keys=True).encode("utf-8")).hexdigest()

    @property
    def partitions(self):
        return [p["name"] for p in self.manifest["partitions"]]

    def rows(self, partition):
        return self._partition(partition)["rows"]

    def _partition(self, name):
        for p in self.manifest["partitions"]:
            if p["name"] == name:
                return p
        raise DatasetError("dataset %s has no partition %r; it has %s" % (self.path, name, ", ".join(self.partitions)))

    def has(self, partition, column):
        return column in self._partition(partition)["files"]

    def load(self, partition, column, rows=None):
        """One column; with ``rows``, only its first rows are read (the file is memory-mapped)."""
        meta = self._partition(partition)["files"].get(column)
        if meta is None:
            raise DatasetError("dataset %s has no column %r" % (self.path, column))
        path = os.path.join(self.path, partition, column + ".npy")
        if self.verify_on_load:
            _verify_file(self.path, partition, column, meta, self.rebuild)
        if rows is None:
            return np.load(path, allow_pickle=False)
        return np.array(np.load(path, mmap_mode="r", allow_pickle=False)[:rows])


# Verifying hashes every file; a process does it once per dataset and file state.
_verified = {}


def _state(path, manifest):
    state = []
    for p in manifest["partitions"]:
        for column in sorted(p["files"]):
            st = os.stat(os.path.join(path, p["name"], column + ".npy"))
            state.append((p["name"], column, st.st_size, st.st_mtime))
    return tuple(state)


def _verify_file(path, partition, column, meta, rebuild):
    file_path = os.path.join(path, partition, column + ".npy")
    st = os.stat(file_path)
    key = (file_path, st.st_size, st.st_mtime)
    if key in _verified:
        return
    if file_sha256(file_path) != meta["sha256"]:
        raise DatasetError(
            "dataset %s is corrupt: %s/%s.npy does not match its sha256 checksum. Rebuild it with: %s"
            % (path, partition, column, rebuild)
        )
    _verified[key] = True


def open_dataset(dataset, profile, data_dir=None, verify=True):
    """The dataset at ``profile``, checked against its manifest.

    ``verify=True`` hashes every file (once per process and file state);
    ``verify="on_load"`` checks now that every file is there at its recorded size, and hashes
    each file when it is loaded (what the suite does: it loads a few columns of a few partitions);
    ``verify="sizes"`` checks only the sizes.
    """
    data_dir = data_dir or default_data_dir()
    path = dataset_path(data_dir, dataset, profile)
    manifest_path = os.path.join(path, MANIFEST)
    rebuild = rebuild_command(dataset, profile)
    if not os.path.exists(manifest_path):
        parent = os.path.dirname(path)
        partial = os.path.isdir(parent) and any(n.startswith(".tmp-%s-" % dataset) for n in os.listdir(parent))
        what = "an interrupted preparation left only a partial copy" if partial else "it is missing"
        raise DatasetError(
            "dataset %r for profile %r is not usable at %s: %s. Rebuild it with: %s"
            % (dataset, profile, path, what, rebuild)
        )
    try:
        with open(manifest_path) as f:
            manifest = json.load(f)
    except ValueError as exc:
        raise DatasetError("dataset %s has an unreadable manifest (%s). Rebuild it with: %s" % (path, exc, rebuild))
    rebuild = manifest.get("rebuild", rebuild)
    if manifest.get("format") != STORE_FORMAT:
        raise DatasetError(
            "dataset %s has store format %r, this code reads %r. Rebuild it with: %s"
            % (path, manifest.get("format"), STORE_FORMAT, rebuild)
        )
    if verify:
        try:
            key = (path, _state(path, manifest))
        except OSError as exc:
            raise DatasetError("dataset %s is incomplete: %s. Rebuild it with: %s" % (path, exc, rebuild))
        sizes = dict(((p["name"], c), m["bytes"]) for p in manifest["partitions"] for c, m in p["files"].items())
        wrong = [(p, c) for p, c, size, _ in key[1] if sizes[(p, c)] != size]
        if wrong:
            raise DatasetError(
                "dataset %s is corrupt: %s/%s.npy does not have its recorded size. Rebuild it with: %s"
                % ((path,) + wrong[0] + (rebuild,))
            )
        if verify is True and key not in _verified:
            for p in manifest["partitions"]:
                for column, meta in sorted(p["files"].items()):
                    file_path = os.path.join(path, p["name"], column + ".npy")
                    if file_sha256(file_path) != meta["sha256"]:
                        raise DatasetError(
                            "dataset %s is corrupt: %s/%s.npy does not match its sha256 checksum. "
                            "Rebuild it with: %s" % (path, p["name"], column, rebuild)
                        )
            _verified[key] = True
    return Dataset(path, manifest, verify_on_load=verify == "on_load", rebuild=rebuild)


# The throughput's numerator: the data's logical bytes -------------------------------------------
#
# MiB/s once divided each environment's own ``memory_usage(deep=True)``, which counts what pandas
# makes of the data: Python-object text (pandas < 3) made Rocklin's ``str`` frame 64.7 MiB,
# Arrow-backed text 18.0 MiB, so an unchanged speed read 3-3.6x faster or slower across releases.
# The numerator is now what the data holds, counted from the store the same way everywhere:
# a number, a boolean or a timestamp at its width (8 bytes a timestamp; a null counts its width,
# its validity nothing); text as its UTF-8 bytes (a null: none); a categorical as its codes at the
# width pandas gives them (int8 below 128 categories, int16, int32, int64) plus its categories'
# UTF-8 bytes. No index: a RangeIndex holds no data.


def utf8_bytes(values):
    """The UTF-8 bytes of each value of a text array (``S``: ASCII bytes as stored; ``U``; object
    of str, None for a null)."""
    values = np.asarray(values)
    if values.dtype.kind == "S":
        return np.char.str_len(values).astype(np.int64) if len(values) else np.zeros(0, np.int64)
    return np.array(
        [0 if v is None else len(v.encode("utf-8")) for v in values.astype(object).tolist()], dtype=np.int64
    )


def codes_width(categories):
    """The bytes of a categorical's code with ``categories`` categories, as pandas sizes them."""
    for dtype in (np.int8, np.int16, np.int32):
        if categories < np.iinfo(dtype).max:
            return np.dtype(dtype).itemsize
    return 8


def text_data_bytes(values, categorical=False):
    """The logical bytes of a text column (its values: str, or ``S`` bytes; None for a null)."""
    values = np.asarray(values)
    if not categorical:
        return int(utf8_bytes(values).sum())
    present = (
        values if values.dtype.kind == "S" else np.array([v for v in values.tolist() if v is not None], dtype=object)
    )
    categories = np.unique(present) if present.dtype.kind == "S" else sorted(set(present.tolist()))
    return len(values) * codes_width(len(categories)) + int(utf8_bytes(np.asarray(categories)).sum())


def data_bytes(store, spec, partition, variant, rows=None):
    """The logical bytes of the frame of ``variant`` of ``partition`` (its first ``rows``): the
    throughput's numerator, the same in every environment. ``spec``: the dataset (``datasets``'
    ``DatasetSpec``, or a brought table, which counts its own: ``OwnTable.data_bytes``)."""
    if hasattr(spec, "data_bytes"):
        return spec.data_bytes(store, partition, variant, rows)
    total = 0
    files = store.manifest["partitions"][store.partitions.index(partition)]["files"]
    for column in spec.columns(variant):
        if column.kind in ("text", "category"):
            total += text_data_bytes(store.load(partition, column.stored, rows), column.kind == "category")
        else:
            meta = files[column.stored]
            count = meta["rows"] if rows is None else min(rows, meta["rows"])
            total += count * np.dtype(meta["dtype"]).itemsize
    return int(total)


def frame_data_bytes(frame):
    """``data_bytes`` counted from a frame instead of the store, by the same rules, whatever pandas
    made of its text (Python objects, Arrow-backed strings): the check of that definition."""
    total = 0
    for name in frame.columns:
        column = frame[name]
        dtype = column.dtype
        if getattr(dtype, "name", "") == "category":
            categories = np.asarray(column.cat.categories.astype(object))
            total += len(column) * column.cat.codes.dtype.itemsize + int(utf8_bytes(categories).sum())
        elif dtype.kind in "OU" or str(dtype) in ("str", "string") or str(dtype).startswith("string"):
            values = column.astype(object)
            total += int(
                utf8_bytes(np.array([v if isinstance(v, str) else None for v in values.tolist()], dtype=object)).sum()
            )
        elif getattr(dtype, "tz", None) is not None or dtype.kind == "M":
            total += len(column) * 8
        else:
            total += len(column) * np.dtype(getattr(dtype, "numpy_dtype", dtype)).itemsize
    return int(total)
