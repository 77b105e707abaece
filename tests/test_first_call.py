"""Cold minus warm is the I/O, and a durable write reaches a device: each case run as asv runs it,
by asv's own launcher (``python -m asv.benchmark setup_cache`` then ``run``), in a process of its
own, on real files (the `tiny` store), the steps of its setup traced (``DSIB_TRACE``)."""

import itertools
import json
import math
import os
import re
import subprocess
import sys

import pytest


from .conftest import ROOT

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="cold reads and durable writes are checked on Linux"
)


def run_as_asv(benchmark, cell, data_dir, cache_dir, workdir, trace, profile="tiny"):
    """asv's setup_cache and then one run of ``benchmark`` (``module.Class.method``) for ``cell``,
    each in a new process as asv makes them, at ``profile``: (result, the run's output)."""
    from dsib_tools import suite

    cls = suite.owner(benchmark)
    method = getattr(cls, benchmark.rsplit(".", 1)[1])
    params = getattr(method, "params", getattr(cls, "params", None))  # its own, or its class's
    env = dict(
        os.environ,
        ASV_PYTHONPATH=ROOT,
        DSIB_PROFILE=profile,
        DSIB_DATA_DIR=data_dir,
        DSIB_CACHE_DIR=cache_dir,
        DSIB_TRACE=trace,
        DSIB_SELECT=re.escape("%s(%s)" % (benchmark, ", ".join(repr(p) for p in cell))),
    )
    launcher = [sys.executable, "-m", "asv.benchmark"]
    bench_dir = os.path.join(ROOT, "benchmarks")
    bench_id = "%s-%d" % (benchmark, list(itertools.product(*params)).index(tuple(cell))) if params else benchmark
    os.makedirs(workdir)
    if getattr(cls, "setup_cache", None) is not None:
        cache = subprocess.run(
            launcher + ["setup_cache", bench_dir, bench_id, "{}"],
            cwd=workdir,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            universal_newlines=True,
        )
        assert cache.returncode == 0, cache.stdout
    result = os.path.join(workdir, "result.json")
    run = subprocess.run(
        launcher + ["run", bench_dir, bench_id, "{}", "None", result],
        cwd=workdir,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
    )
    assert run.returncode == 0, run.stdout
    with open(result) as f:
        return json.load(f), run.stdout


def traced(trace):
    with open(trace) as f:
        return [json.loads(line) for line in f]


@pytest.mark.slow  # asv's launcher twice a cell, in processes of its own: seconds each
# arrow-file-mmap: its first call maps the file, and the eviction that follows must still prove it cold.
@pytest.mark.parametrize(
    "cell",
    [("rocklin", "parquet", "cat"), ("nyc_taxi", "csv", "plain"), ("tsbs_cpu", "arrow-file-mmap", "plain")],
    ids="-".join,
)
def test_a_warm_and_a_cold_case_make_the_same_untimed_full_read_in_their_own_process_first(
    cell, tiny_data_dir, disk_dir
):
    from benchmarks import reads

    cache, trace = str(disk_dir / "cache"), str(disk_dir / "trace.jsonl")
    cases = {}
    for name in ("ReadFromPageCache", "ReadCold"):
        before = len(traced(trace)) if os.path.exists(trace) else 0
        result, output = run_as_asv(
            "reads.%s.time_read" % name, cell, tiny_data_dir, cache, str(disk_dir / name), trace
        )
        assert result["samples"] and all(t > 0 for t in result["samples"]), output
        cases[name] = traced(trace)[before:]

    warm, cold = cases["ReadFromPageCache"], cases["ReadCold"]
    # Each loads its cell once however many samples it takes; the cold one evicts before each.
    assert [e["event"] for e in warm] == ["first call"], warm
    assert [e["event"] for e in cold] == ["first call"] + ["evicted"] * len(result["samples"]), cold
    assert len(result["samples"]) == reads.ReadCold.repeat >= 3, "three samples in its one process"
    first_warm, first_cold = warm[0], cold[0]
    assert first_warm["pid"] != first_cold["pid"] and os.getpid() not in (first_warm["pid"], first_cold["pid"])
    assert all(e["pid"] == first_cold["pid"] and e["resident"] == 0.0 for e in cold[1:]), "evicted before each"
    same = ("cell", "format", "source", "hints", "rows")
    assert dict((k, first_warm[k]) for k in same) == dict((k, first_cold[k]) for k in same)
    assert first_warm["cell"] == list(cell) and first_warm["format"] == cell[1]
    assert first_warm["source"].startswith(cache) and first_warm["rows"] > 0, first_warm


def test_a_durable_write_on_tmpfs_skips_saying_fsync_reaches_no_device(tiny_data_dir, disk_dir, tmpfs_dir):
    result, output = run_as_asv(
        "writes.WriteDurable.time_write",
        ("rocklin", "parquet", "plain"),
        tiny_data_dir,
        tmpfs_dir,
        str(disk_dir / "run"),
        str(disk_dir / "trace.jsonl"),
    )
    assert isinstance(result, float) and math.isnan(result), "skipped (asv's NaN), not timed: %s" % output
    assert re.search(
        r"asv: skipped: NotImplementedError\('no durable write here: %s/tiny/_scratch/durable-\d+-\w+ "
        r"is on tmpfs, which keeps files only in memory, so fsync reaches no device" % re.escape(tmpfs_dir),
        output,
    ), output
    scratch = os.path.join(tmpfs_dir, "tiny", "_scratch")
    assert not any(os.listdir(os.path.join(scratch, d)) for d in os.listdir(scratch)), "nothing written"


def test_a_durable_write_goes_into_the_cell_cache(tiny_data_dir, disk_dir):
    """On a disk it runs, and writes where the filesystem was checked: the cell cache, not asv's
    working directory (under $TMPDIR)."""
    cache, trace = str(disk_dir / "cache"), str(disk_dir / "trace.jsonl")
    workdir = str(disk_dir / "run")
    result, output = run_as_asv(
        "writes.WriteDurable.time_write", ("rocklin", "parquet", "plain"), tiny_data_dir, cache, workdir, trace
    )
    assert result["samples"] and all(t > 0 for t in result["samples"]), output
    assert os.listdir(workdir) == ["result.json"], "nothing written in asv's directory but its result"
    scratch = os.path.join(cache, "tiny", "_scratch")
    assert [d for d in os.listdir(scratch) if d.startswith("durable-")], "its own directory in the cell cache"


# Each engine class's timed method, on an engine in the case's process, a held server and Spark's
# held JVM: (benchmark, cell, what the run must hold).
ENGINE_CASES = [
    ("engines.IngestIntoEngine.time_ingest", ("tsbs_cpu", "duckdb", "str"), None),
    ("engines.QueryFromEngine.time_query", ("tsbs_cpu", "duckdb", "str"), None),
    ("engines.IngestIntoEngine.time_ingest", ("tsbs_cpu", "postgres-adbc", "plain"), "PostgreSQL"),
    ("engines.QueryFromEngine.time_query", ("tsbs_cpu", "postgres-adbc", "plain"), "PostgreSQL"),
    ("engines.IngestIntoEngine.time_ingest", ("tsbs_cpu", "questdb-dataframe", "cat"), "QuestDB"),
    ("engines.QueryFromEngine.time_query", ("tsbs_cpu", "questdb-dataframe", "cat"), "QuestDB"),
    ("engines.IngestIntoEngine.time_ingest", ("tsbs_cpu", "spark-arrow", "plain"), "Spark"),
    ("engines.QueryFromEngine.time_query", ("tsbs_cpu", "spark", "plain"), "Spark"),
]


@pytest.mark.slow
@pytest.mark.server
@pytest.mark.parametrize(
    "benchmark,cell,needs", ENGINE_CASES, ids=["%s-%s" % (b.split(".")[1], c[1]) for b, c, _ in ENGINE_CASES]
)
def test_every_engine_class_makes_one_untimed_full_call_in_the_cases_own_process_first(
    benchmark, cell, needs, tiny_data_dir, run_servers, disk_dir, monkeypatch
):
    """As the reads do: before its first sample, a case's process makes the call it times once,
    whole (every row of the cell), untimed; an ingest's into a table of its own, dropped after."""
    from dsib import environment

    started, value, missing = run_servers
    if needs and needs not in started:
        pytest.skip("no %s here: %s" % (needs, missing))
    monkeypatch.setenv(environment.HELD_SERVERS, value)
    trace = str(disk_dir / "trace.jsonl")
    result, output = run_as_asv(benchmark, cell, tiny_data_dir, str(disk_dir / "cache"), str(disk_dir / "run"), trace)
    assert result["samples"] and len(result["samples"]) == 3 and all(t > 0 for t in result["samples"]), output
    (first,) = [e for e in traced(trace) if e["pid"] != os.getpid()]
    from data_prep import load_frame

    frame = load_frame("tiny", cell[2], data_dir=tiny_data_dir, dataset=cell[0])
    assert first["event"] == "first call" and first["cell"] == list(cell), first
    assert first["case"] == benchmark.split(".")[1] and first["rows"] == len(frame) > 0, first
    if "Ingest" in benchmark:
        assert first["table"] == "dsib_first", "not a table a sample ingests into"
