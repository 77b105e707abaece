"""`make bench FORMAT=... SOURCE=...`: asv's -b regex picks exactly those cells."""

import itertools
import re
import subprocess
import sys

import pytest

from dsib_tools import suite
from dsib_tools.selection import select_regex

from .conftest import ROOT


def _cells():
    for cls in suite.classes():
        for method in suite.methods(cls):
            for params in itertools.product(*cls.params):
                yield (
                    suite.name(cls, method),
                    dict(zip(cls.param_names, [str(p) for p in params])),
                    "%s(%s)" % (suite.name(cls, method), ", ".join(repr(p) for p in params)),
                )


@pytest.mark.parametrize(
    "fmt,source", [("parquet", None), (None, "nyc_taxi"), ("csv", "nyc_taxi_month"), ("parquet-zstd", None)]
)
def test_the_regex_picks_the_cells_of_that_format_and_source(fmt, source):
    regex = re.compile(select_regex(fmt, source))
    picked = wanted = 0
    for _, given, label in _cells():
        want = (fmt is None or given.get("format") == fmt) and (source is None or given.get("source") == source)
        if source is None and "format" in given and "source" not in given:
            want = given["format"] == fmt  # the process baseline, per format
        if "format" not in given and "source" not in given:
            want = False  # the generator belongs to no format
        got = bool(regex.search(label))
        assert got == want, (label, regex.pattern)
        picked, wanted = picked + got, wanted + want
    assert picked == wanted > 0


@pytest.mark.parametrize(
    "engine,source",
    [
        ("duckdb", None),
        ("all", None),
        ("sqlite-adbc", "tsbs_cpu"),
        ("questdb-rows", None),
        ("questdb-dataframe", "nyc_taxi"),
    ],
)
def test_the_regex_picks_the_cells_of_an_engine_or_of_every_engine(engine, source):
    from dsib.engines import ENGINES

    regex = re.compile(select_regex(source=source, engine=engine))
    picked = wanted = 0
    for name, given, label in _cells():
        want = "engine" in given and engine in ("all", given["engine"]) and source in (None, given["source"])
        if "SerializeForQuestDB" in name:  # QuestDB's serialisation alone goes with its engines
            want = (engine == "all" or ENGINES[engine].family == "questdb") and source in (None, given["source"])
        got = bool(regex.search(label))
        assert got == want, (label, regex.pattern)
        picked, wanted = picked + got, wanted + want
    assert picked == wanted > 0


def test_an_unknown_name_is_a_clear_error():
    proc = subprocess.run(
        [sys.executable, "-m", "dsib_tools", "setup", "select", "--format", "parket"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
    )
    assert proc.returncode == 2 and "unknown format 'parket'; registered formats are: parquet" in proc.stdout
    proc = subprocess.run(
        [sys.executable, "-m", "dsib_tools", "setup", "select", "--source", "taxi"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
    )
    assert proc.returncode == 2 and "unknown source 'taxi'" in proc.stdout


@pytest.mark.parametrize(
    "fmt,source,engine",
    [
        (None, None, None),
        ("parquet", None, None),
        ("csv", "nyc_taxi_month", None),
        (None, "rocklin", None),
        ("pickle-2", None, None),
    ],
)
def test_the_release_matrix_regex_picks_the_selections_cells_within_format_and_source(fmt, source, engine):
    """make bench-matrix's -b: the release-tracking selection, within FORMAT, SOURCE and ENGINE."""
    from dsib_tools import matrix

    args = [sys.executable, "-m", "dsib_tools", "setup", "select", "--release"]
    for flag, value in (("--format", fmt), ("--source", source), ("--engine", engine)):
        args += [flag, value or ""]
    proc = subprocess.run(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    assert proc.returncode == 0, proc.stdout
    regex = re.compile(proc.stdout.strip())
    release = re.compile(matrix.release_regex())
    within = re.compile(select_regex(fmt, source)) if fmt or source else None
    picked = 0
    for _, _, label in _cells():
        want = bool(release.search(label)) and (within is None or bool(within.search(label)))
        assert bool(regex.search(label)) == want, (label, regex.pattern)
        picked += want
    assert picked > 0


def test_the_release_selection_within_the_engines_is_empty_and_select_needs_a_question():
    from dsib_tools import matrix

    regex = re.compile(matrix.release_regex(within=select_regex(engine="all")))
    assert not any(regex.search(label) for _, _, label in _cells())
    proc = subprocess.run(
        [sys.executable, "-m", "dsib_tools", "setup", "select"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
    )
    assert proc.returncode == 2 and "select what?" in proc.stdout


def test_bench_picks_the_benchmarks_it_names_within_format_and_source():
    """make run BENCH=...: only the benchmarks whose names match, and within FORMAT and SOURCE."""
    from dsib_tools.run import selection

    alone = re.compile(selection(bench="objectstore"))
    within = re.compile(selection("parquet", "nyc_taxi", bench=r"batches\.RandomAccess"))
    picked = {"alone": set(), "within": set()}
    for name, given, label in _cells():
        if alone.search(label):
            picked["alone"].add(name.split(".")[0])
        if within.search(label):
            assert name.startswith("batches.RandomAccess.") and given["format"] == "parquet", label
            assert given["source"] == "nyc_taxi", label
            picked["within"].add(name)
    assert picked["alone"] == {"objectstore"}
    assert picked["within"] == {"batches.RandomAccess.time_take", "batches.RandomAccess.peakmem_take"}
