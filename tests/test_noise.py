"""The A/A clone that `make noise` compares: its head differs from its base by one comment."""

import glob
import os
import subprocess
import sys

import pytest

from dsib_tools import compare, compare_gate, noise, noise_record, noise_tables

from .conftest import ROOT, documentation


def test_the_aa_commit_changes_only_a_comment(tmp_path):
    repo = noise.aa_clone(ROOT, str(tmp_path))
    files = subprocess.run(
        ["git", "diff", "--name-only", "HEAD~1", "HEAD"],
        cwd=repo,
        check=True,
        stdout=subprocess.PIPE,
        universal_newlines=True,
    ).stdout.split()
    assert files == [noise.COMMENT_FILE]
    diff = subprocess.run(
        ["git", "diff", "-U0", "HEAD~1", "HEAD"], cwd=repo, check=True, stdout=subprocess.PIPE, universal_newlines=True
    ).stdout.splitlines()
    added = [line[1:] for line in diff if line.startswith("+") and not line.startswith("+++")]
    removed = [line for line in diff if line.startswith("-") and not line.startswith("---")]
    assert removed == [] and added and all(not line.strip() or line.startswith("#") for line in added)
    head = subprocess.run(
        ["git", "rev-parse", "HEAD~1"], cwd=repo, check=True, stdout=subprocess.PIPE, universal_newlines=True
    ).stdout.strip()
    assert (
        head
        == subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ROOT, check=True, stdout=subprocess.PIPE, universal_newlines=True
        ).stdout.strip()
    ), "the base is this repository's HEAD"


def _cells(samples_by_name):
    """Cells as compare.load_cells returns them, with asv's own statistics of the samples."""
    from asv_runner.statistics import compute_stats

    cells = {}
    for name, samples in samples_by_name.items():
        value, stats = compute_stats(samples, 1)
        cells[name] = (value, (stats, samples), "v1")
    return cells


def test_replayed_slowdowns_are_flagged_where_the_noise_allows_and_not_elsewhere():
    steady = [0.0100, 0.0101, 0.0099, 0.0100, 0.0102, 0.0098, 0.0100, 0.0101]
    # one process in three 60 % slower, as an Arrow case's on the reference VM
    bimodal = [0.0100, 0.0160, 0.0101, 0.0100, 0.0161, 0.0099, 0.0100, 0.0162]
    before = _cells({"steady": steady, "bimodal": bimodal})
    after = _cells({"steady": list(reversed(steady)), "bimodal": list(reversed(bimodal))})
    assert noise_record.detects(before, after) == {"steady": 2}
    assert noise_record.detects(before, after, slowdown=1.02) == {}


def test_the_readme_shows_each_current_noise_record_whose_figures_follow_from_its_raw_samples():
    """records/noise/ holds the records of the gate as it is, with raw samples; records/noise/earlier/, those of
    earlier gates (derived figures only, no longer shown). Each current record is of this gate,
    names a commit of this history, and its raw samples give, by the rule the record's gate
    applied, the very flags it raised; test_readme checks that the README's block is its table."""
    current = sorted(glob.glob(os.path.join(ROOT, "records", "noise", "*.json")))
    assert current, "make noise's record of the gate as it is is committed"
    readme = documentation()
    for path in current:
        assert "<!-- generated: table noise %s -->" % os.path.relpath(path, ROOT) in readme, path
        record = noise_record.load(path)
        assert len(record["runs"]) >= 3
        assert record["cells"] == compare_gate.committed_cells(ROOT, "HEAD"), (
            "%s is of another gate: move it to records/noise/earlier/" % path
        )
        assert record["sampling"] == dict(compare.SAMPLING) and record["unsampled"] == dict(compare.UNSAMPLED)
        assert record["thresholds"] == {"memory": compare.MEMORY_FACTOR, "size": compare.SIZE_FACTOR}
        assert (
            subprocess.run(["git", "merge-base", "--is-ancestor", record["commit"], "HEAD"], cwd=ROOT).returncode == 0
        ), "the record's base commit is in this history"
        replayed = noise_tables.replays(record, noise_record.rule_of(record))
        for run, (before, after, verdict) in zip(record["runs"], replayed):
            for side, cells in (("base", before), ("head", after)):
                assert sorted(cells) == sorted(record["cells"]), "every cell of the gate, measured, failed or skipped"
                assert set(run[side]["number"].values()) == {1}, "one call a sample"
                assert all(len(s) == record["sampling"]["rounds"] for s in run[side]["samples"].values())
            for key in ("worse", "better", "failed", "dropped"):
                assert verdict[key] == run[key], "%s run's %s, replayed from its samples" % (path, key)


def test_a_records_figures_are_asvs_statistics_of_its_samples():
    from asv_runner.statistics import compute_stats

    samples = [0.0100, 0.0104, 0.0098, 0.0101, 0.0150]
    cells = {
        "reads.ReadFromPageCache.time_read('nyc_taxi', 'csv', 'plain')": compute_stats(samples, 1)[:1]
        + ((compute_stats(samples, 1)[1], samples), "v"),
        "sizes.Sizes.track_file_size('nyc_taxi', 'csv', 'plain')": (1234.0, (None, None), "v"),
        "reads.ReadFromPageCache.time_read('nyc_taxi', 'npy', 'str')": (float("nan"), (None, None), "v"),
        "reads.ReadFromPageCache.time_read('nyc_taxi', 'orc', 'plain')": (None, (None, None), "v"),
    }
    raw = noise_record.raw_of(
        dict(cells, **{"reads.ReadFromPageCache.time_read('nyc_taxi', 'csv', 'str')": (None, (None, None), "v")}),
        gate=set(cells),
    )
    again = noise_record.cells_of(raw)
    assert sorted(again) == sorted(cells)
    for name, (value, (stats, kept), _) in cells.items():
        if value is None:
            assert again[name][0] is None
        elif value != value:
            assert again[name][0] != again[name][0]
        else:
            assert again[name][0] == value and again[name][1] == (stats, kept)


def test_a_slowdown_commit_wraps_exactly_the_named_adapters_and_keeps_their_results():
    import copy

    import pandas as pd

    from dsib.formats import FORMATS

    slowdown = {("csv", "write"): 1.25, ("parquet", "read"): 1.3}
    formats = dict((name, copy.copy(fmt)) for name, fmt in FORMATS.items())
    exec(noise.slowdown_source(slowdown), {"FORMATS": formats})
    changed = sorted(
        (name, side)
        for name in formats
        for side in ("read", "write")
        if getattr(formats[name], side) is not getattr(FORMATS[name], side)
    )
    assert changed == sorted(slowdown)
    # a format's twin as its libraries' defaults make it (the months' continuous read) is slowed too
    twins = sorted(
        (name, side)
        for name in formats
        if FORMATS[name].defaults is not None
        for i, side in ((0, "write"), (1, "read"))
        if formats[name].defaults[i] is not FORMATS[name].defaults[i]
    )
    assert twins == sorted(k for k in slowdown if FORMATS[k[0]].defaults is not None)
    assert FORMATS["parquet"].defaults is not None and ("parquet", "read") in twins
    frame = pd.DataFrame({"a": [1, 2, 3], "b": [0.5, 1.5, None]})
    assert formats["csv"].write(frame) == FORMATS["csv"].write(frame)
    payload = FORMATS["parquet"].write(frame)
    pd.testing.assert_frame_equal(formats["parquet"].read(payload), FORMATS["parquet"].read(payload))


def test_touches_names_the_cells_that_call_a_slowed_adapter():
    slowdown = {("csv", "write"): 1.25, ("parquet", "read"): 1.3}
    assert noise_record.touches("writes.WriteToBytes.time_write('nyc_taxi', 'csv', 'str')", slowdown)
    assert noise_record.touches("reads.ReadFromPageCache.time_read('nyc_taxi', 'parquet', 'cat')", slowdown)
    assert noise_record.touches("reads.ContinuousReadMonths.time_read('nyc_taxi_month', 'parquet')", slowdown)
    assert not noise_record.touches("reads.ReadFromPageCache.time_read('nyc_taxi', 'csv', 'str')", slowdown)
    assert not noise_record.touches("writes.WriteToBytes.time_write('nyc_taxi', 'parquet', 'str')", slowdown)
    assert not noise_record.touches("reads.ReadFromPageCache.time_read('nyc_taxi', 'parquet-zstd', 'cat')", slowdown)


def test_a_slowdown_is_named_format_side_and_factor():
    assert noise.parse_slowdown(["csv.write=1.25", "parquet-zstd.read=2"]) == {
        ("csv", "write"): 1.25,
        ("parquet-zstd", "read"): 2.0,
    }
    for bad in ("csv=1.25", "csv.append=1.25", "csv.write=0.9", "csv.write"):
        with pytest.raises(ValueError):
            noise.parse_slowdown([bad])


def test_the_audit_says_whether_asvs_median_lies_within_each_columns_spread():
    from dsib_tools import audit

    case = {
        "asv": [[0.101, 0.100], [0.102]],
        "gc_on": [[[0.120, 0.125], [0.130]]],
        "gc_off": [[[0.095, 0.099, 0.103]], [[0.107, 0.111]]],
        "forked": [[[0.101, 0.1011]]],
    }
    assert audit.pooled(case, "asv") == [0.101, 0.100, 0.102]
    assert audit.first_calls(case) == [0.120, 0.130]
    assert audit.agrees(case, "gc_off") and not audit.agrees(case, "gc_on") and not audit.agrees(case, "forked")
    assert audit.row_cells(dict(case, case="1a READ", format="parquet"))[-2:] == ["125ms (122ms–128ms), 2", "1.24"], (
        "the first calls' column: each fresh interpreter's first call"
    )
    assert audit.quartiles([1.0, 2.0, 3.0, 4.0, 5.0]) == (2.0, 3.0, 4.0)


# A suite module whose interpreter aborts in its teardown, after its work is done, as pyarrow's
# thread pools can ("terminate called without an active exception").
ABORTS_AT_EXIT = """
import atexit, os, time

atexit.register(os.abort)


class AbortsAtExit(object):
    def setup(self, n):
        pass

    def time_sleep(self, n):
        time.sleep(n)
"""


@pytest.mark.parametrize("column", ["forked", "gc_off", "gc_on"])
def test_the_audits_processes_are_judged_by_their_samples_not_by_their_teardown(tmp_path, column):
    from dsib_tools import audit

    os.makedirs(str(tmp_path / "benchmarks"))
    (tmp_path / "benchmarks" / "__init__.py").write_text("")
    (tmp_path / "benchmarks" / "aborts_at_exit.py").write_text(ABORTS_AT_EXIT)
    aborts = subprocess.run(
        [sys.executable, "-c", "import benchmarks.aborts_at_exit"], cwd=str(tmp_path), stderr=subprocess.DEVNULL
    )
    assert aborts.returncode != 0, "the module's teardown aborts a plain interpreter"
    cls = type("AbortsAtExit", (object,), {"__module__": "benchmarks.aborts_at_exit"})
    cell = ("1a READ", "parquet", "aborts_at_exit.AbortsAtExit.time_sleep(0.001)", cls, "time_sleep", [0.001])
    root = str(tmp_path)
    processes = audit.outside_samples(sys.executable, root, cell, root, "tiny", (2, 3, 5.0), 2, column)
    assert len(processes) == 2 and all(len(p) in (2, 3) and all(t >= 0.001 for t in p) for p in processes), processes


def test_the_audit_samples_as_asv_runner_does():
    from dsib_tools import audit

    class Default(object):
        pass

    class OneRound(object):
        rounds, repeat = 1, 0

    class Fixed(object):
        rounds, repeat, timeout = 3, 1, 99

    class Ranged(object):
        rounds, repeat = 2, (1, 5, 10.0)

    assert audit.sampling_of(Default) == (2, (1, 5, 10.0))
    assert audit.sampling_of(OneRound) == (1, (1, 10, 20.0))
    assert audit.sampling_of(Fixed) == (3, (1, 1, 99.0))
    assert audit.sampling_of(Ranged) == (2, (1, 5, 10.0))
    assert [audit.order(r) for r in range(5)] == [
        ["asv", "forked", "gc_off", "gc_on"],
        ["forked", "gc_off", "gc_on", "asv"],
        ["gc_off", "gc_on", "asv", "forked"],
        ["gc_on", "asv", "forked", "gc_off"],
        ["asv", "forked", "gc_off", "gc_on"],
    ]


def test_the_busy_processes_spin_until_stopped():
    """make noise BUSY=N: N processes that keep a core busy each while the comparisons run."""
    import time

    import psutil

    (process,) = noise.spinning(1)
    try:
        spinner = psutil.Process(process.pid)
        deadline = time.monotonic() + 30
        while spinner.cpu_times().user < 0.2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert spinner.cpu_times().user >= 0.2, "it spins"
        assert process.poll() is None, "until stopped"
    finally:
        process.kill()
        process.wait()
    assert not psutil.pid_exists(process.pid) or psutil.Process(process.pid).status() == psutil.STATUS_ZOMBIE
