"""`results record`: a result file goes into the history without the results that asv would hide
(a benchmark version other than the recorded benchmarks.json's) and without the benchmarks a
decision leaves out; the rest of it as it was taken."""

import json
import os
import shutil
import subprocess
import sys

from dsib_tools import asv_results, workspace

from .conftest import ROOT
from .results_copy import MACHINE, RESULTS, current_keys, reference_file


def _trees(tmp_path, moved=None):
    """A local tree holding one of the reference machine's result files, its benchmarks.json moved
    on for the benchmark ``moved`` (its version no longer the file's), and an empty history.
    Returns (local, history, the file's name, its benchmarks, those it holds of an earlier version)."""
    local, history = tmp_path / "build", tmp_path / "results"
    source = reference_file()
    os.makedirs(local / MACHINE)
    os.makedirs(history)
    shutil.copy(source, local / MACHINE)
    shutil.copy(os.path.join(RESULTS, MACHINE, "machine.json"), local / MACHINE)
    with open(os.path.join(RESULTS, "benchmarks.json")) as f:
        benchmarks = json.load(f)
    if moved:
        benchmarks[moved] = dict(benchmarks[moved], version="0" * 64)
    with open(local / "benchmarks.json", "w") as f:
        json.dump(benchmarks, f)
    with open(source) as f:
        current = current_keys(json.load(f), dict((k, v) for k, v in benchmarks.items() if isinstance(v, dict)))
    keys = sorted(asv_results.load(source).get_all_result_keys())
    return str(local), str(history), os.path.basename(source), keys, sorted(set(keys) - set(current))


def _record(local, history, *options):
    return subprocess.run(
        [sys.executable, "-m", "dsib_tools", "results", "record", "--machine", MACHINE, "--allow-load"]
        + ["--local", local, "--committed", history]
        + list(options),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
    )


def test_a_result_of_a_version_the_recorded_suite_does_not_hold_is_left_out_and_named(tmp_path):
    moved = "reads.ReadFromPageCache.time_read"
    local, history, name, keys, stale = _trees(tmp_path, moved)
    assert moved in stale and len(keys) - len(stale) > 10
    pairs, left_out = workspace.record(local, history, MACHINE, allow_load=True)
    target = os.path.join(history, MACHINE, name)
    assert left_out == {target: stale}
    with open(os.path.join(history, "benchmarks.json")) as f, open(os.path.join(local, "benchmarks.json")) as g:
        assert json.load(f) == json.load(g), "the run's suite is the history's"
    assert sorted(asv_results.load(target).get_all_result_keys()) == [k for k in keys if k not in stale]
    assert sorted(os.listdir(os.path.join(history, MACHINE))) == sorted([name, "machine.json"]), "no temporary left"


def test_leave_out_is_a_decision_that_names_what_it_left(tmp_path):
    local, history, name, keys, stale = _trees(tmp_path)
    out = _record(local, history, "--leave-out", r"^reads\.ReadCold\.")
    assert out.returncode == 0, out.stdout
    dropped = sorted(set(stale) | set(k for k in keys if k.startswith("reads.ReadCold.")))
    assert "reads.ReadCold.time_read" in dropped
    assert "without %d benchmarks" % len(dropped) in out.stdout and "reads.ReadCold.time_read" in out.stdout
    kept = asv_results.load(os.path.join(history, MACHINE, name)).get_all_result_keys()
    assert sorted(kept) == [k for k in keys if k not in dropped]


def test_a_result_file_with_nothing_to_leave_out_is_copied_as_it_was(tmp_path):
    local, history, name, keys, stale = _trees(tmp_path)
    assert stale == [], "a committed history holds no result of an earlier series"
    out = _record(local, history)
    assert out.returncode == 0 and "without" not in out.stdout, out.stdout
    with open(os.path.join(local, MACHINE, name), "rb") as f, open(os.path.join(history, MACHINE, name), "rb") as g:
        assert f.read() == g.read()


def test_a_leave_out_that_is_no_regular_expression_is_a_one_line_error_and_records_nothing(tmp_path):
    local, history, _, _, _ = _trees(tmp_path)
    out = _record(local, history, "--leave-out", "track_(")
    assert out.returncode == 1 and out.stdout.startswith("error: --leave-out 'track_(' is not a regular expression")
    assert len(out.stdout.strip().splitlines()) == 1, out.stdout
    assert os.listdir(history) == [], "nothing recorded"


def test_recording_the_same_run_again_with_its_omissions_writes_nothing(tmp_path):
    local, history, name, keys, _ = _trees(tmp_path)
    first = _record(local, history, "--leave-out", r"^reads\.ReadCold\.")
    target = os.path.join(history, MACHINE, name)
    assert first.returncode == 0 and "recorded %s" % target in first.stdout, first.stdout
    written = os.stat(target).st_mtime_ns
    again = _record(local, history, "--leave-out", r"^reads\.ReadCold\.")
    assert again.returncode == 0 and again.stdout.startswith("nothing to record"), again.stdout
    assert os.stat(target).st_mtime_ns == written
    # Another decision is another file.
    other = _record(local, history, "--leave-out", r"^reads\.ReadFromPageCache\.")
    assert "recorded %s" % target in other.stdout and "reads.ReadCold.time_read" not in other.stdout, other.stdout
    kept = asv_results.load(target).get_all_result_keys()
    assert "reads.ReadCold.time_read" in kept and not any(k.startswith("reads.ReadFromPageCache.") for k in kept)
