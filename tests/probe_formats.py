"""Run by another environment's Python (a release of the curated matrix), with the checkout on
``PYTHONPATH``: every format's cells of the `tiny` store written by that environment's writers and
read back as the suite does (``dsib.cells``), then for each cell what its file holds
(``dsib.layout``), how its reader got the bytes, and whether the frame it returned still holds a
buffer backed by a memory map of the file or by the input's bytes. Prints one JSON document.

    python tests/probe_formats.py DATA_DIR CACHE_DIR [mapped-stream]

``mapped-stream``: the IPC stream read by ``pa.ipc.open_stream(path)``, which maps the file, in
place of the suite's reader: what the check must catch.
"""

import gc
import json
import os
import sys

from dsib import catalog, layout
from dsib.cells import Cells
from dsib.formats import FORMATS
from dsib.registry import installed_versions

PROFILE = "tiny"
SOURCES = ("nyc_taxi_month",) + catalog.BUILT_IN_GRID


def _mapped(path):
    """The address ranges of this process's memory maps of ``path``."""
    real, found = os.path.realpath(path), []
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split(None, 5)
            if len(parts) == 6 and parts[5].strip() == real:
                low, high = parts[0].split("-")
                found.append((int(low, 16), int(high, 16)))
    return found


def _numpy_buffer(array):
    import numpy as np

    array = np.asarray(array)
    return [(array.__array_interface__["data"][0], array.nbytes)] if array.dtype != object else []


def _arrow_buffers(chunked):
    if type(chunked).__name__ == "Column":  # pyarrow < 0.15: a Column around the ChunkedArray
        chunked = chunked.data
    chunks = chunked.chunks if hasattr(chunked, "chunks") else [chunked]
    return [(b.address, b.size) for chunk in chunks for b in chunk.buffers() if b is not None]


def _buffers(values):
    """(address, size) of every buffer an array of a frame's column holds: Arrow-backed text's
    Arrow buffers, a categorical's codes and categories, a datetime array's integers."""
    import pandas as pd

    for attribute in ("_pa_array", "_data"):  # pandas' Arrow-backed arrays (2.x-3.x, 1.x)
        inner = getattr(values, attribute, None)
        if inner is not None and hasattr(inner, "num_chunks"):
            return _arrow_buffers(inner)
    if isinstance(values, pd.Categorical):
        return _numpy_buffer(values.codes) + _buffers(values.categories.values)
    inner = getattr(values, "_ndarray", None)  # datetimes, zoned or not
    return _numpy_buffer(inner if inner is not None else values)


def _column_arrays(result):
    """The arrays of what a read returned: a frame's columns, or an Arrow table's."""
    if hasattr(result, "iloc"):
        return [("frame", name, _buffers(result[name].values)) for name in result.columns]
    return [("table", name, _arrow_buffers(result.column(name))) for name in result.schema.names]


def _backed_by(result, ranges):
    """The columns of ``result`` with a buffer inside one of ``ranges`` (address, end)."""
    found = []
    for _, name, buffers in _column_arrays(result):
        if any(low <= address < high for address, _ in buffers for low, high in ranges if address):
            found.append(str(name))
    return found


def _bytes_range(payload):
    import numpy as np

    start = np.frombuffer(payload, dtype=np.uint8).__array_interface__["data"][0]
    return [(start, start + len(payload))]


def probe_cell(cells, source, fmt, variant):
    outcome = cells.file(source, fmt, variant)
    found = {"skip": outcome.get("skip"), "error": outcome.get("error")}
    if not outcome["path"] or found["error"]:
        return found
    path, hints = outcome["path"], cells.catalog.sources[source].dataset.read_hints(variant)
    fmt.read(path, **hints)  # the first call, as every case makes it: pools and pages settle
    gc.collect()
    read = []
    fraction = layout.read_by_system_calls(lambda: read.append(fmt.read(path, **hints)), path)
    found["read by system calls"] = round(fraction, 2)
    result = read.pop()
    found["backed by a map of the file"] = _backed_by(result, _mapped(path))
    del result
    gc.collect()
    if cells.catalog.read_from_bytes(source) and fmt.reads_bytes:
        with open(path, "rb") as f:
            payload = f.read()
        result = fmt.read(payload, **hints)
        found["backed by the input"] = _backed_by(result, _bytes_range(payload))
        del result
    found["layout"] = layout.describe(fmt, path)
    return found


def _mapped_stream_read(source, datetimes=(), categoricals=(), texts=(), dtypes=()):
    import pyarrow as pa

    from dsib.formats import _io

    return _io.arrow_to_pandas(pa.ipc.open_stream(source).read_all(), categoricals)


def main(data_dir, cache_dir, reader=None):
    if reader == "mapped-stream":
        FORMATS["arrow-stream"].read = _mapped_stream_read
    cells, versions = Cells(PROFILE, data_dir, cache_dir), installed_versions(FORMATS.packages())
    probed = {}
    for source in SOURCES:
        for name in FORMATS.names():
            for variant in cells.catalog.sources[source].dataset.variants:
                key = "%s %s %s" % (source, name, variant)
                reason = cells.catalog.skip_reason("read_from_page_cache", source, name, variant, PROFILE, versions)
                if source == "nyc_taxi_month":  # the post's cases: read from bytes and the page cache
                    reason = cells.catalog.skip_reason("read_from_bytes", source, name, variant, PROFILE, versions)
                if reason:
                    probed[key] = {"skip": reason}
                    continue
                fmt = cells.catalog.format_for(source, name)
                try:
                    probed[key] = probe_cell(cells, source, fmt, variant)
                except NotImplementedError as exc:
                    probed[key] = {"skip": str(exc)}
    json.dump({"versions": versions, "cells": probed}, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(*sys.argv[1:4])
