"""The same work in every release: every format's cells of the `tiny` store written and read in the
oldest and the newest environment of the curated matrix (their format libraries, from PyPI), by
``tests/probe_formats.py``. The grid's files are alike (codec, index, timestamp unit, format
version), every reader reads its file rather than mapping it, and no frame a read returns still
holds a buffer of a memory map of the file or of the input's bytes; the post's cases, written with
each release's defaults, show those defaults changing."""

import hashlib
import json
import os
import shutil
import subprocess

import pytest

from dsib.formats import FORMATS
from dsib_tools import matrix

from .conftest import ROOT

pytestmark = [pytest.mark.asv, pytest.mark.slow]

CURATED = os.path.join(ROOT, matrix.CURATED_CONFIG)
# What the probe needs of an environment: the formats' libraries and numpy, at the entry's pins.
FORMAT_PACKAGES = set(FORMATS.packages()) | {"numpy"}
ENVS = os.path.join(ROOT, ".asv", "format-envs")
# A memory-mapped read, on purpose: it maps the file and touches every byte.
MAPS_ON_PURPOSE = "arrow-file-mmap"


def format_env(entry):
    """A virtualenv of the entry's Python with its format libraries at its pins (one pip call),
    kept under .asv/ between local runs; its python."""
    pins = dict((k, v) for k, v in matrix.pins(entry).items() if k in FORMAT_PACKAGES)
    key = hashlib.sha256(json.dumps([entry["python"], pins], sort_keys=True).encode("utf-8")).hexdigest()[:16]
    where = os.path.join(ENVS, key)
    ready = os.path.join(where, ".ready")
    if not os.path.exists(ready):
        shutil.rmtree(where, ignore_errors=True)  # an interrupted build
        python = matrix.resolver(entry["python"], where)
        subprocess.run(
            [python, "-m", "pip", "--disable-pip-version-check", "-q"] + matrix.install_args(pins), check=True
        )
        with open(ready, "w") as f:
            f.write(python)
    with open(ready) as f:
        return f.read()


def probe(python, data_dir, cache_dir, *extra):
    done = subprocess.run(
        [python, os.path.join(ROOT, "tests", "probe_formats.py"), data_dir, cache_dir] + list(extra),
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=ROOT),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def envs():
    include = matrix.entries(CURATED)
    return {"oldest": format_env(include[0]), "newest": format_env(matrix.newest(include))}


@pytest.fixture(scope="module")
def probed(envs, tiny_data_dir, tmp_path_factory):
    return dict(
        (name, probe(python, tiny_data_dir, str(tmp_path_factory.mktemp("cache-" + name))))
        for name, python in envs.items()
    )


def test_the_environments_are_the_oldest_and_newest_releases(probed):
    assert probed["oldest"]["versions"]["pyarrow"] == "0.11.1" and probed["oldest"]["versions"]["pandas"] == "0.23.4"
    include = matrix.entries(CURATED)
    assert probed["newest"]["versions"]["pyarrow"] == matrix.pins(matrix.newest(include))["pyarrow"]


def test_every_grid_file_is_written_alike_or_skips_saying_why(probed):
    old, new = probed["oldest"]["cells"], probed["newest"]["cells"]
    assert set(old) == set(new)
    compared = 0
    for cell in sorted(old):
        if cell.startswith("nyc_taxi_month "):
            continue  # the post's cases: each release's defaults (below)
        a, b = old[cell], new[cell]
        assert not a.get("error") and not b.get("error"), (cell, a.get("error"), b.get("error"))
        if a.get("skip") or b.get("skip"):
            assert all(len(c["skip"]) > 20 for c in (a, b) if c.get("skip")), (cell, a, b)  # a reason, not a word
            continue
        assert a["layout"] == b["layout"], (cell, a["layout"], b["layout"])
        compared += 1
    # Both environments write Parquet, Arrow IPC, CSV, HDF5, JSON, msgpack, pickle 2 and .npy.
    assert compared >= 60, compared


def test_every_reader_reads_its_file_and_returns_a_frame_of_its_own(probed):
    """The grid's readers read the file by system calls; the post's readers (each release's
    defaults, which may map the file) and the grid's return frames of their own all the same."""
    for name, found in probed.items():
        for cell, outcome in sorted(found["cells"].items()):
            if "read by system calls" not in outcome:
                continue
            if cell.split()[1] == MAPS_ON_PURPOSE:
                assert outcome["read by system calls"] < 0.1, (name, cell, outcome)
                continue
            if not cell.startswith("nyc_taxi_month "):
                assert outcome["read by system calls"] >= 0.9, (name, cell, outcome)
            assert outcome["backed by a map of the file"] == [], (name, cell, outcome)
            assert outcome.get("backed by the input", []) == [], (name, cell, outcome)


def test_a_reader_that_maps_its_file_is_caught(envs, tiny_data_dir, tmp_path):
    """pyarrow's ``open_stream(path)`` maps the file, and pandas 3's Arrow-backed text keeps the
    map's pages: the check sees both."""
    found = probe(envs["newest"], tiny_data_dir, str(tmp_path / "cache"), "mapped-stream")["cells"]
    text = found["nyc_taxi arrow-stream str"]
    assert text["read by system calls"] < 0.1 and text["backed by a map of the file"] == ["str"], text


def test_the_posts_parquet_shows_each_releases_defaults(probed):
    """Written by ``to_parquet(buf)``: pyarrow 0.11 with pandas 0.23 stores the index as a column,
    milliseconds, format 1.0, and its ``read_table(path)`` maps the file; today's writes no index
    column, nanoseconds, format 2.6, and reads the file."""
    old_cell = probed["oldest"]["cells"]["nyc_taxi_month parquet plain"]
    new_cell = probed["newest"]["cells"]["nyc_taxi_month parquet plain"]
    assert old_cell["read by system calls"] < 0.1 and new_cell["read by system calls"] >= 0.9
    old, new = old_cell["layout"], new_cell["layout"]
    assert old["index"] == "column __index_level_0__" and new["index"] == "range (metadata)"
    assert (old["timestamp unit"], new["timestamp unit"]) == ("ms", "ns")
    assert (old["format version"], new["format version"]) == ("1.0", "2.6")
    assert old["columns"] == new["columns"] + 1
    grid = probed["newest"]["cells"]["nyc_taxi parquet plain"]["layout"]
    assert (grid["timestamp unit"], grid["index"], grid["format version"]) == ("us", "none", "1.0")
