"""Every timed case makes one untimed full call in its own process before its first sample, and a
case's process ends with status 0 whatever its case did: each run as asv runs it, by asv's own
launcher (``python -m asv.benchmark``), on the `tiny` store, its setup traced (``DSIB_TRACE``)."""

import itertools
import os
import subprocess
import sys

import pytest

from dsib import catalog
from dsib.engines import ENGINES
from dsib.formats import FORMATS
from dsib.registry import installed_versions
from dsib_tools import suite

from benchmarks import UNTIMED_CALLS

from .conftest import ROOT
from .test_first_call import run_as_asv, traced

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the launcher's cases run on Linux")

# One cell of each timed class outside the engines (tests/test_engine_cases.py has theirs, which
# need the servers; QuestDB's serialisation needs none, and calls as a write does), the object
# store's reads (tests/test_servers_held_run.py: they need the run's store) and the warm and cold
# reads (tests/test_first_call.py), whichever of its timed methods it runs.
CELLS = {
    "reads.ReadFromBytes.time_read": ("nyc_taxi_month", "parquet", "str"),
    "reads.ContinuousRead.time_read": ("nyc_taxi", "arrow-stream"),
    "reads.ContinuousReadMonths.time_read": ("nyc_taxi_month", "csv"),
    "writes.WriteToBytes.time_write": ("tsbs_cpu", "feather", "plain"),
    "writes.WriteMonthToBytes.time_write": ("nyc_taxi_month", "parquet", "cat"),
    "writes.WriteDurable.time_write": ("rocklin", "pickle-highest", "str"),
    "writes.CategorizeThenWrite.time_write": ("tsbs_cpu", "parquet"),
    "batches.ReadColumns.time_read": ("nyc_taxi", "csv", "cat"),
    "batches.IterateBatches.time_copy": ("nyc_taxi", "arrow-file", "str"),
    "batches.ContinuousReadInBatches.time_read": ("nyc_taxi_month", "parquet"),
    "batches.RandomAccess.time_take": ("nyc_taxi", "feather", "cat"),
    "prepare.Prepare.time_string_columns": (1000000,),
    "engines.SerializeForQuestDB.time_serialize": ("tsbs_cpu", "dataframe", "cat"),
}
IN_TEST_FIRST_CALL = ("ReadFromPageCache", "ReadCold")


def timed_classes():
    return [cls for cls in suite.classes() if any(m.startswith("time_") for m in suite.methods(cls))]


def test_every_timed_class_outside_the_engines_has_a_cell_here():
    named = set(suite.owner(b) for b in CELLS)
    missing = [
        cls.__name__
        for cls in timed_classes()
        if cls not in named
        and cls.__name__ not in IN_TEST_FIRST_CALL
        and not cls.__module__.endswith((".engines", ".objectstore"))
    ]
    assert not missing, "a timed class with no cell in CELLS: %s" % missing


@pytest.mark.slow  # asv's launcher twice a cell: seconds each, the generator's month ten
@pytest.mark.parametrize("benchmark", sorted(CELLS))
def test_a_timed_case_makes_its_untimed_full_calls_in_its_own_process_first(benchmark, tiny_data_dir, disk_dir):
    trace, cache, workdir = str(disk_dir / "trace.jsonl"), str(disk_dir / "cache"), str(disk_dir / "run")
    result, output = run_as_asv(benchmark, CELLS[benchmark], tiny_data_dir, cache, workdir, trace)
    assert result["samples"] and all(t > 0 for t in result["samples"]), output
    calls = [e for e in traced(trace) if e["event"] == "first call"]
    expected = 2 if benchmark.startswith("prepare.") else 1  # the generator warms both its steps up
    assert len(calls) == expected, calls
    assert all(e["calls"] == UNTIMED_CALLS == 2 for e in calls), "two calls: the allocators settle (benchmarks)"
    assert len(set(e["pid"] for e in calls)) == 1 and calls[0]["pid"] != os.getpid(), "in the case's own process"
    assert calls[0]["cell"] == list(CELLS[benchmark])
    assert calls[0].get("rows", 1) > 0 and calls[0].get("bytes", 1) > 0, calls[0]


def skipping_cell(cls, versions):
    """A cell of ``cls`` that skips, and the profile at which it does: one the catalog skips at
    `tiny` where the class has one (its process has warmed its format up first, where the skip
    comes later), else its first cell at `brought`, where every built-in source is left out."""
    if hasattr(cls, "operation"):
        for given in itertools.product(*cls.params):
            cell = dict(zip(cls.param_names, given))
            if catalog.BUILT_IN.cell_skip_reason(cls.operation, cell, "tiny", versions):
                return given, "tiny"
    if "source" in cls.param_names:
        return next(itertools.product(*cls.params)), "brought"
    if "format" in cls.param_names:  # ProcessBaseline: a format this environment's pandas lacks
        return next((f,) for f in FORMATS.names() if FORMATS[f].unavailable(versions)), "tiny"
    return (), "tiny"  # one cell, the machine's (DeviceThroughput): it skips where its cache is tmpfs


def cache_for(cls, tmp_path, request):
    """The cell cache of the case: on tmpfs for a case of no cell, which skips only there."""
    return str(tmp_path / "cache") if cls.params else request.getfixturevalue("tmpfs_dir")


RUNS = 3
# The generator's case runs wherever numpy >= 1.17: no cell of it skips here.
NEVER_SKIPS = ("Prepare",)


@pytest.mark.slow
def test_a_skipping_case_of_every_class_exits_with_status_0_every_time(tiny_data_dir, tmp_path, request):
    """The launcher's process ends as a case's does in asv's spawned runs: it has imported every
    format's libraries, its case skipped, and it must exit with 0, every time."""
    versions = installed_versions(FORMATS.packages() + ENGINES.packages())
    for cls in suite.classes():
        if cls.__name__ in NEVER_SKIPS:
            continue
        given, profile = skipping_cell(cls, versions)
        benchmark, cache = suite.name(cls, suite.methods(cls)[0]), cache_for(cls, tmp_path, request)
        for attempt in range(RUNS):
            workdir = str(tmp_path / ("%s-%d" % (benchmark, attempt)))
            # run_as_asv asserts the launcher's exit status: 0.
            result, output = run_as_asv(benchmark, given, tiny_data_dir, cache, workdir, os.devnull, profile)
            assert result != result, "skipped: asv's NaN (%s)" % output  # NaN is not equal to itself


def test_the_launchers_status_survives_a_case_that_fails(tmp_path):
    """The clean end keeps the interpreter's status: a case whose setup raises (no data where it
    looks) ends its process with 1."""
    empty = tmp_path / "no-data"
    empty.mkdir()
    bench_id = "writes.WriteToBytes.time_write-0"
    launcher = [sys.executable, "-m", "asv.benchmark", "run", os.path.join(ROOT, "benchmarks"), bench_id, "{}"]
    done = subprocess.run(
        launcher + ["None", str(tmp_path / "result.json")],
        cwd=str(tmp_path),
        env=dict(os.environ, ASV_PYTHONPATH=ROOT, DSIB_PROFILE="tiny", DSIB_DATA_DIR=str(empty)),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
    )
    assert done.returncode == 1, done.stdout
    assert "Traceback" in done.stdout and not os.path.exists(str(tmp_path / "result.json")), done.stdout
