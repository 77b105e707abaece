"""The series lock: a change to the code a benchmark measures fails until someone decides whether
its series continues or a new one starts."""
import os
import subprocess
import sys

from benchmarks import reads
from dsib_tools import lock

from .conftest import snapshot_working_tree


def _check(repo):
    return subprocess.run([sys.executable, "-m", "dsib_tools", "lock", "--check"], cwd=repo,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)


def test_the_lock_records_the_suite_as_it_is():
    assert lock.problems() == [], "run python -m dsib_tools lock, after deciding each series"


def test_an_unrecorded_change_to_an_adapter_fails_and_a_decision_clears_it(tmp_path):
    repo = str(tmp_path / "repo")
    snapshot_working_tree(repo)
    assert _check(repo).returncode == 0
    with open(os.path.join(repo, "dsib", "formats", "csv.py"), "a") as f:
        f.write("\n# a change to the CSV adapter\n")
    proc = _check(repo)
    assert proc.returncode == 1, proc.stdout
    n = lock.series_of(reads.ReadFromBytes)
    assert "reads.ReadFromBytes: the code it measures changed and its series is still %d" % n in proc.stdout
    assert "prepare.Prepare" not in proc.stdout, "the generator's benchmark calls no adapter"
    # Deciding that the series continues, recorded:
    record = subprocess.run([sys.executable, "-m", "dsib_tools", "lock"], cwd=repo, stdout=subprocess.PIPE,
                            universal_newlines=True)
    assert "reads.ReadFromBytes: code changed, series %d continues" % n in record.stdout
    assert _check(repo).returncode == 0


def test_a_new_series_is_a_recorded_decision_too(tmp_path):
    repo = str(tmp_path / "repo")
    snapshot_working_tree(repo)
    path = os.path.join(repo, "benchmarks", "reads.py")
    with open(path) as f:
        text = f.read()
    start, n = text.index("class ReadCold("), lock.series_of(reads.ReadCold)
    with open(path, "w") as f:
        f.write(text[:start] + text[start:].replace("version = series(%d)" % n, "version = series(%d)" % (n + 1), 1))
    proc = _check(repo)
    assert proc.returncode == 1 and "reads.ReadCold is now series %d (the lock has %d)" % (n + 1, n) in proc.stdout, \
        proc.stdout
    record = subprocess.run([sys.executable, "-m", "dsib_tools", "lock"], cwd=repo, stdout=subprocess.PIPE,
                            universal_newlines=True)
    assert "reads.ReadCold: series %d -> %d, a new series" % (n, n + 1) in record.stdout
