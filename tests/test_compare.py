"""`make compare`, proven on a real regression.

A throwaway copy of this repository gets a second commit that makes one adapter (CSV's write, as
a slower codec would) a quarter slower: it spins for a quarter of the write's own time after each
write. The real
``python -m dsib compare`` (asv continuous at the pr profile, the cases narrowed to every
format's taxi reads and writes) must flag exactly the cases that call that writer and no other,
fail with a non-zero status, and, read the other way (the slow commit as the base), report the
same cases as improvements and nothing as worse.
"""
import os
import subprocess
import sys

import pytest

from dsib import compare

from .conftest import ENV_DIR, GIT, ROOT, prepared_data, snapshot_working_tree

MACHINE = "dsib-test"
SLOWED = "csv"
SLOWDOWN = '''

# Injected by tests/test_compare.py: every CSV write takes a quarter longer.
import time as _time


def _a_quarter_slower(write):
    def write_slowly(*args, **kwargs):
        start = _time.perf_counter()
        result = write(*args, **kwargs)
        # Busy, as a slower codec would be: a sleep's wake-up latency adds more than the quarter.
        until = _time.perf_counter() + 0.25 * (_time.perf_counter() - start)
        while _time.perf_counter() < until:
            pass
        return result
    return write_slowly


FORMATS[%r].write = _a_quarter_slower(FORMATS[%r].write)
''' % (SLOWED, SLOWED)
# make compare's reads and writes of the taxi frame: the slowed writer's cases and ~77 it must leave alone.
BENCH = [pattern for pattern in compare.BENCHMARKS if pattern.startswith(r"^grid\.")]


@pytest.fixture(scope="module")
def pr_data_dir(tmp_path_factory):
    return prepared_data(tmp_path_factory, "pr")


@pytest.fixture(scope="module")
def slowed(pr_data_dir, tmp_path_factory):
    work = str(tmp_path_factory.mktemp("compare"))
    repo = os.path.join(work, "repo")
    snapshot_working_tree(repo)
    with open(os.path.join(repo, "dsib", "formats.py"), "a") as f:
        f.write(SLOWDOWN)
    subprocess.run(GIT + ["commit", "-q", "-am", "CSV writes a quarter slower"], cwd=repo, check=True)
    env = dict(os.environ, DSIB_DATA_DIR=pr_data_dir)
    subprocess.run([sys.executable, "-m", "dsib", "machine", MACHINE], cwd=ROOT, check=True, env=env)
    results, summary = os.path.join(work, "results"), os.path.join(work, "summary.md")
    command = [sys.executable, "-m", "dsib", "compare", "HEAD~1", "HEAD", "--machine", MACHINE,
               "--results-dir", results, "--env-dir", ENV_DIR, "--summary", summary]
    for pattern in BENCH:
        command += ["--bench", pattern]
    proc = subprocess.run(command, cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    with open(summary) as f:
        summary_text = f.read()
    return {"proc": proc, "results": results, "summary": summary_text,
            "base": compare.resolve(repo, "HEAD~1"), "head": compare.resolve(repo, "HEAD")}


def _affected(cells):
    return sorted(c for c in cells if c.startswith("grid.Write.time_write(") and "'%s'" % SLOWED in c)


def _report(slowed, verdict):
    ratios = compare.ratios(slowed["results"], MACHINE, slowed["base"], slowed["head"])
    flagged = verdict["worse"] + verdict["better"]
    return "flagged %s\nratios of the slowed cases %s\n%s" % (
        ["%s %.3f" % (c, ratios.get(c, 0)) for c in flagged],
        ["%s %.3f" % (c, ratios.get(c, 0)) for c in _affected(ratios)], slowed["proc"].stdout[-3000:])


def test_the_slowed_adapter_is_flagged_in_every_case_it_touches_and_nowhere_else(slowed):
    verdict = compare.changes(slowed["results"], MACHINE, slowed["base"], slowed["head"])
    affected = _affected(verdict["compared"])
    assert len(affected) == 3, "CSV holds every variant of the taxi frame: %s" % affected
    assert len(verdict["compared"]) >= 80, "the others are the control: %d cases" % len(verdict["compared"])
    assert verdict["failed"] == []
    assert verdict["worse"] == affected, _report(slowed, verdict)
    assert verdict["better"] == [], _report(slowed, verdict)


def test_compare_fails_the_run_and_says_which_cases_got_slower(slowed):
    proc = slowed["proc"]
    assert proc.returncode == 1, proc.stdout[-3000:]
    assert "PERFORMANCE DECREASED" in proc.stdout
    # asv compare's rows: "| + | before | after | ratio | benchmark |".
    marked = [line.rstrip(" |") for line in slowed["summary"].splitlines()
              if line.startswith("|") and line.split("|")[1].strip() == "+"]
    affected = _affected(compare.changes(slowed["results"], MACHINE, slowed["base"], slowed["head"])["compared"])
    assert len(marked) == len(affected) and all(any(m.endswith(c) for m in marked) for c in affected), \
        "asv compare's own table marks the same cases:\n%s" % slowed["summary"]
    assert "3 slower, 0 faster, 0 newly failing" in slowed["summary"]


def test_the_same_change_the_other_way_is_an_improvement(slowed):
    verdict = compare.changes(slowed["results"], MACHINE, slowed["head"], slowed["base"])
    assert verdict["better"] == _affected(verdict["compared"]), _report(slowed, verdict)
    assert verdict["worse"] == [] and verdict["failed"] == []


def test_the_formats_left_out_of_the_comparison_share_a_compared_formats_code():
    from dsib.formats import FORMATS

    assert len(BENCH) == 2 and SLOWED in compare.COMPARED_FORMATS
    for name, twin in compare.SAME_ADAPTER_AS.items():
        assert twin in compare.COMPARED_FORMATS, name
        for side in ("write", "read"):
            code, twin_code = (getattr(FORMATS[n], side).__code__ for n in (name, twin))
            assert code is twin_code, "%s's %s is not %s's: it must be compared" % (name, side, twin)
    assert set(compare.COMPARED_FORMATS) | set(compare.SAME_ADAPTER_AS) == set(FORMATS)


def test_the_sampling_lets_asvs_test_flag_a_change_that_one_unlucky_process_overlaps():
    """asv's test (p < 0.002) on one sample per process: six a side can never pass it, so an
    A/A run at six rounds flags nothing whatever the noise. The rounds must let it pass even
    when one unlucky base process is slower than every head one (about one process in five of
    an Arrow case is 30-100 % slower on the reference VM)."""
    from asv._stats import mann_whitney_u

    sampling = dict(compare.SAMPLING)
    rounds = sampling["rounds"]
    assert sampling["repeat"] == 1, "samples of one process are not independent"
    assert mann_whitney_u(list(range(6)), list(range(6, 12)))[1] > 0.002
    base, head = list(range(rounds)), list(range(rounds, 2 * rounds))
    base[-1] = head[-1] + 1  # one unlucky base process, slower than every head one
    assert mann_whitney_u(base, head)[1] < 0.002, rounds


def test_unknown_revisions_and_a_commit_against_itself_are_clear_errors():
    for args, message in ((["no-such-rev"], "is not a commit"), (["HEAD", "HEAD"], "the same commit")):
        proc = subprocess.run([sys.executable, "-m", "dsib", "compare"] + args + ["--machine", MACHINE], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        assert proc.returncode == 2 and message in proc.stdout, proc.stdout
