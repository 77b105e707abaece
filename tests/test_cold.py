"""Cold and warm told as they are: cold minus warm measured in pairs in one process, and the
device behind the cell cache measured past the page cache (O_DIRECT), each run by asv's own
launcher on real files, and once by ``asv run`` itself, whose results keep their spread."""

import glob
import itertools
import json
import os
import re
import subprocess
import sys

import pytest

from dsib import pagecache

from .conftest import ROOT, table_rows
from .test_first_call import run_as_asv, traced

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="cold reads are checked on Linux")


@pytest.mark.slow  # asv's launcher twice a cell, in processes of their own
# arrow-file-mmap: each cold read maps the file, and the next eviction must still prove it out.
@pytest.mark.parametrize(
    "cell", [("rocklin", "parquet", "cat"), ("tsbs_cpu", "arrow-file-mmap", "plain")], ids="-".join
)
def test_cold_minus_warm_alternates_an_evicted_and_a_resident_read_in_one_process(cell, tiny_data_dir, disk_dir):
    from benchmarks import reads

    trace = str(disk_dir / "trace.jsonl")
    result, output = run_as_asv(
        "reads.ColdMinusWarm.track_cold_minus_warm",
        cell,
        tiny_data_dir,
        str(disk_dir / "cache"),
        str(disk_dir / "run"),
        trace,
    )
    low, high, _ = reads.ColdMinusWarm.pairs
    # asv's sampled result, as a time's: every pair's difference a sample, one call each.
    assert set(result) == {"samples", "number"} and result["number"] == 1, output
    pairs = len(result["samples"])
    assert low <= pairs <= high, result
    steps = traced(trace)
    assert [e["event"] for e in steps] == ["first call"] + ["evicted", "warmed"] * pairs, steps
    assert len(set(e["pid"] for e in steps)) == 1 and steps[0]["pid"] != os.getpid(), "one process of its own"
    assert steps[0]["cell"] == list(cell) and steps[0]["rows"] > 0
    for evicted, warmed in zip(steps[1::2], steps[2::2]):
        assert evicted["resident"] == 0.0, "each cold read starts with no page of the file resident"
        assert warmed["resident"] == 1.0, "each warm read starts with every page resident"


@pytest.mark.slow  # 256 MiB written and read three times each
@pytest.mark.parametrize("method", ["track_direct_read", "track_direct_write"])
def test_the_device_is_measured_past_the_page_cache_in_the_cell_cache(method, tiny_data_dir, disk_dir):
    cache = str(disk_dir / "cache")
    result, output = run_as_asv(
        "reads.DeviceThroughput." + method, (), tiny_data_dir, cache, str(disk_dir / "run"), str(disk_dir / "t")
    )
    assert set(result) == {"samples", "number"} and len(result["samples"]) == 3, output
    assert all(mb > 0 for mb in result["samples"]), result
    scratch = os.path.join(cache, "tiny", "_scratch")
    (mine,) = [d for d in os.listdir(scratch) if d.startswith("direct-")]
    assert os.listdir(os.path.join(scratch, mine)) == [], "its file removed in teardown"


def test_direct_io_skips_where_the_cache_keeps_files_only_in_memory(tiny_data_dir, disk_dir, tmpfs_dir):
    result, output = run_as_asv(
        "reads.DeviceThroughput.track_direct_read",
        (),
        tiny_data_dir,
        tmpfs_dir,
        str(disk_dir / "run"),
        str(disk_dir / "t"),
    )
    assert result != result, "skipped (asv's NaN), not measured: %s" % output
    assert "no device to measure: %s/tiny/_scratch/direct-" % tmpfs_dir in output, output
    assert "is on tmpfs, which keeps files only in memory" in output, output


def test_direct_io_moves_a_file_past_the_page_cache(disk_dir):
    path = str(disk_dir / "device")
    chunk = 1 << 20
    assert pagecache.require_direct_io(str(disk_dir)) not in pagecache.MEMORY_FILESYSTEMS
    assert pagecache.direct_write(path, size=4 * chunk, chunk=chunk) > 0
    assert os.path.getsize(path) == 4 * chunk
    assert pagecache.resident_fraction(path) == 0.0, "a direct write leaves nothing in the page cache"
    assert pagecache.direct_read(path, chunk=chunk) > 0
    assert pagecache.resident_fraction(path) == 0.0, "nor does a direct read"
    with pytest.raises(ValueError):
        pagecache.direct_write(str(disk_dir / "odd"), size=chunk + 512, chunk=chunk)


@pytest.mark.slow  # one asv run, of one cell and of the device
def test_asv_keeps_the_differences_and_the_device_as_samples_with_their_spread(tiny_data_dir, disk_dir):
    """asv's runner reads a benchmark's ``{"samples", "number"}`` as a sampled result, whatever its
    kind: ``asv run`` keeps the median, the quartiles and every sample of each track."""
    from asv.results import Results
    from asv_runner.statistics import compute_stats

    from benchmarks import reads

    home, work = disk_dir / "home", disk_dir / "asv"
    home.mkdir()
    work.mkdir()
    conf = work / "asv.conf.json"
    conf.write_text(
        json.dumps(
            {
                "version": 1,
                "project": "dsib",
                "repo": ROOT,
                "dvcs": "git",
                "branches": ["HEAD"],  # whatever is checked out: the commit is given (--set-commit-hash)
                "environment_type": "existing",
                "benchmark_dir": os.path.join(ROOT, "benchmarks"),
                "env_dir": str(work / "env"),
                "results_dir": str(work / "results"),
                "html_dir": str(work / "html"),
                "launch_method": "forkserver",
            }
        )
    )
    cell = r"reads\.ColdMinusWarm\.track_cold_minus_warm\('rocklin', 'parquet', 'plain'\)"
    env = dict(
        os.environ,
        HOME=str(home),
        ASV_PYTHONPATH=ROOT,
        DSIB_PROFILE="tiny",
        DSIB_DATA_DIR=tiny_data_dir,
        DSIB_CACHE_DIR=str(disk_dir / "cache"),
        DSIB_SELECT=cell,
    )
    asv = [sys.executable, "-m", "asv"]
    subprocess.run(
        asv + ["machine", "--yes", "--machine", "cold-test", "--config", str(conf)],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    commit = subprocess.check_output(["git", "-C", ROOT, "rev-parse", "HEAD"], universal_newlines=True).strip()
    run = subprocess.run(
        asv
        + ["run", "--config", str(conf), "-E", "existing:" + sys.executable, "--set-commit-hash", commit]
        + ["--machine", "cold-test", "--record-samples", "--show-stderr", "--attribute", "rounds=1"]
        + ["-b", cell, "-b", r"reads\.DeviceThroughput\.track_direct_read"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
    )
    assert run.returncode == 0, run.stdout[-3000:]
    (path,) = [p for p in glob.glob(str(work / "results" / "cold-test" / "*.json")) if not p.endswith("machine.json")]
    res = Results.load(path)
    for name, given, low in [
        (
            "reads.ColdMinusWarm.track_cold_minus_warm",
            ("'rocklin'", "'parquet'", "'plain'"),
            reads.ColdMinusWarm.pairs[0],
        ),
        ("reads.DeviceThroughput.track_direct_read", (), reads.DeviceThroughput.passes),
    ]:
        params = res.get_result_params(name)
        index = [tuple(p) for p in itertools.product(*params)].index(given) if params else 0
        value = res.get_result_value(name, params)[index]
        stats = res.get_result_stats(name, params)[index]
        samples = res.get_result_samples(name, params)[index]
        assert samples and len(samples) == stats["repeat"] >= low, (name, samples, stats)
        assert stats["q_25"] <= value <= stats["q_75"], (name, value, stats)
        assert compute_stats(samples, 1)[0] == value, "the median of the samples, as of a time's"
    # The report shows the difference with its spread, and the device beside the cold rows.
    report = subprocess.run(
        [
            sys.executable,
            "-m",
            "dsib_tools",
            "report",
            "--results-dir",
            str(work / "results"),
            "--machine",
            "cold-test",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
    )
    assert report.returncode == 0, report.stdout[-3000:]
    (table,) = [t for t in report.stdout.split("\n\n") if t.startswith("| rocklin / plain ")]
    header = table_rows(table)[0]
    (row,) = [row for row in table_rows(table) if row[0] == "read, cold minus warm"]
    cell = row[header.index("parquet")]
    assert re.match(r"^[+-]\S+ \(IQR [+-]\S+\.\.[+-]\S+, n=\d+\)", cell), cell
    assert re.search(r"past the page cache \(O_DIRECT.*\): read \d+ MB/s \(IQR \d+-\d+, n=3\)", report.stdout)
