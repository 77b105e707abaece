"""`make compare`, proven on an unmistakable regression, on a busy machine as on a quiet one.

A throwaway copy of this repository gets a second commit that makes two adapters slower: CSV's
writer four times, Parquet's reader ten times (each spins after its call for the rest of that
time, as a slower codec would). The real ``python -m dsib_tools compare commits`` (asv continuous at
the `tiny` profile, narrowed to those adapters' cases and some of their neighbours') must flag every
case that calls them, fail with a non-zero status, and, read the other way (the slow commit as
the base), report the same cases as improvements.

This proves the plumbing: that asv builds and measures each commit's own code, that the verdict
reaches the exit status and the summary. How small a change the comparison catches is a measured
figure, not a test: `make noise` records it per case (README, "Noise floor, measured"). A test
that asserted it would fail on a busy machine, where a 25 % change is not always flagged.
"""

import os
import re
import subprocess
import sys

import pytest

from dsib_tools import compare, noise, noise_record, suite

from .conftest import ENV_DIR, GIT, ROOT, run_with_progress, snapshot_working_tree

MACHINE = "dsib-test"
# The session's data: the plumbing is proven on an unmistakable change at any scale; what the gate
# catches at its own profile (`pr`) is the noise record's figure.
PROFILE = "tiny"
# Each slowed call takes that many times its own time (noise.slowdown_source spins after it). The
# spin is proportional to the call's measured time, so contention inflates both sides alike; but a
# process pinned to a core that two others share runs up to 3x slower for a while, and asv's test
# needs the two sides' samples almost apart. At 2.5x, beside a second benchmark suite on both
# cores (load 2.5), samples spread +-40 % and a slowed Parquet read at 2.31x went unflagged. At
# 4x, a CI run (other processes 1.2 cores) left the Parquet read of the str frame unflagged at
# 2.92x: its timed call frees 600,000 strings after the reader returns, which the spin does not
# multiply, and its base reads (about 20 ms) are the ones a shared core slows most. Parquet's
# reads are cheap to slow (under a second a sample at 10x); CSV's writes, a second a call, flagged at
# 3.3-3.8x every time, stay at 4x.
SLOWDOWN = {("csv", "write"): 4.0, ("parquet", "read"): 10.0}
# The slowed adapters' cases, and cases of other adapters beside them as the control.
BENCH = (
    "^" + re.escape(suite.name(suite.reads.ReadFromPageCache, "time_read")) + r"\('nyc_taxi', '(parquet|feather|csv)'",
    "^"
    + re.escape(suite.name(suite.writes.WriteToBytes, "time_write"))
    + r"\('nyc_taxi', '(csv|parquet|pickle-highest)'",
    "^" + re.escape(suite.name(suite.reads.ContinuousReadMonths, "time_read")) + r"\('nyc_taxi_month', ",
    # measured once a commit, in the gate's second pass; the slowdown changes neither
    "^" + re.escape(suite.name(suite.sizes.Sizes, "track_file_size")) + r"\('nyc_taxi', '(parquet|csv)'",
    "^" + re.escape(suite.name(suite.reads.ReadFromPageCache, "peakmem_read")) + r"\('nyc_taxi', 'feather'",
)
# The slow commit also makes this control format unavailable, so that its measured cells skip: the
# gate must fail naming them, as it would for a pull request that turned a slow format into a skip.
SKIPPED = "pickle-highest"
SKIP_SOURCE = "\nFORMATS[%r].unavailable = lambda versions: 'made unavailable by test_compare'\n" % SKIPPED
# An affected cell's median moves at least this far.
UNMISTAKABLE = 1.6
# A control whose median is this much slower was touched by the change: the slowdown leaked (half
# the smaller injected factor, 4x, in ratio). Less than that, either way, a machine as busy as a user's laptop
# does: a CI run beside two other test jobs moved a control CSV read to 0.594.
LEAKED = 2.0


def _affected(cells):
    return sorted(c for c in cells if noise_record.touches(c, SLOWDOWN))


def _timed(cells):
    return sorted(c for c in cells if compare.sampled(c))


@pytest.fixture(scope="module")
def slowed(tiny_data_dir, tmp_path_factory, request):
    work = str(tmp_path_factory.mktemp("compare"))
    repo = os.path.join(work, "repo")
    snapshot_working_tree(repo)
    with open(os.path.join(repo, noise.COMMENT_FILE), "a") as f:
        f.write(noise.slowdown_source(SLOWDOWN) + SKIP_SOURCE)
    subprocess.run(
        GIT + ["commit", "-q", "-am", "CSV writes 4x and Parquet reads 10x slower, pickle unavailable"],
        cwd=repo,
        check=True,
    )
    env = dict(os.environ, DSIB_DATA_DIR=tiny_data_dir)
    subprocess.run(
        [sys.executable, "-m", "dsib_tools", "setup", "machine", MACHINE],
        cwd=ROOT,
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
    )
    results, summary = os.path.join(work, "results"), os.path.join(work, "summary.md")
    command = [
        sys.executable,
        "-m",
        "dsib_tools",
        "compare",
        "commits",
        "HEAD~1",
        "HEAD",
        "--machine",
        MACHINE,
        "--results-dir",
        results,
        "--env-dir",
        ENV_DIR,
        "--summary",
        summary,
        "--profile",
        PROFILE,
    ]
    for pattern in BENCH:
        command += ["--bench", pattern]
    proc = run_with_progress(command, repo, env, request, "make compare, slowed adapters")
    assert os.path.exists(summary), "the comparison wrote no summary:\n" + proc.stdout[-4000:]
    with open(summary) as f:
        summary_text = f.read()
    base, head = compare.resolve(repo, "HEAD~1"), compare.resolve(repo, "HEAD")
    return {
        "proc": proc,
        "results": results,
        "summary": summary_text,
        "base": base,
        "head": head,
        "ratios": compare.ratios(results, MACHINE, base, head),
    }


def _report(slowed, verdict):
    ratios = slowed["ratios"]
    return "flagged %s\nratios %s\n%s" % (
        verdict["worse"] + verdict["better"],
        ["%s %.3f" % (c, r) for c, r in sorted(ratios.items())],
        slowed["proc"].stdout[-3000:],
    )


@pytest.mark.asv
def test_every_case_of_the_slowed_adapters_is_flagged_slower(slowed):
    verdict = compare.changes(slowed["results"], MACHINE, slowed["base"], slowed["head"])
    affected = _affected(_timed(verdict["compared"]))
    assert len(affected) == 7, "CSV writes and Parquet reads of every variant, and the continuous read: %s" % affected
    assert len(_timed(verdict["compared"])) == 17, "the others are the control: %s" % verdict["compared"]
    assert verdict["failed"] == []
    missed = [c for c in affected if c not in verdict["worse"]]
    assert not missed, "not flagged: %s\n%s" % (missed, _report(slowed, verdict))
    assert all(slowed["ratios"][c] > UNMISTAKABLE for c in affected), _report(slowed, verdict)


@pytest.mark.asv
def test_the_slowdown_stays_in_its_adapters(slowed):
    """A busy machine moves a control's median, even by half; the injected slowdown would make it
    at least 4x slower."""
    controls = sorted(set(_timed(slowed["ratios"])) - set(_affected(slowed["ratios"])))
    assert len(controls) == 10, controls
    leaked = ["%s %.3f" % (c, slowed["ratios"][c]) for c in controls if slowed["ratios"][c] >= LEAKED]
    assert not leaked, leaked


@pytest.mark.asv
def test_compare_fails_the_run_and_says_which_cases_got_slower(slowed):
    proc = slowed["proc"]
    assert proc.returncode == 1, proc.stdout[-3000:]
    assert "PERFORMANCE DECREASED" in proc.stdout
    verdict = compare.changes(slowed["results"], MACHINE, slowed["base"], slowed["head"])
    # asv compare's rows, by asv's own rule: "| + | before | after | ratio | benchmark |".
    marked = [
        line.rstrip(" |")
        for line in slowed["summary"].splitlines()
        if line.startswith("|") and line.split("|")[1].strip() == "+"
    ]
    assert all(any(m.endswith(c) for m in marked) for c in _affected(verdict["compared"])), (
        "asv compare's own table marks the slowed cases too:\n%s" % slowed["summary"]
    )
    assert "%d slower" % len(verdict["worse"]) in slowed["summary"]
    lines = [line for line in proc.stdout.splitlines() if line.startswith("  time ")]
    timed = [c for c in verdict["compared"] if compare.sampled(c)]
    assert len(lines) == len(timed) and all(sum(line.endswith(c) for line in lines) == 1 for c in timed), (
        "both verdicts of every timed cell are printed:\n%s" % proc.stdout[-3000:]
    )
    for cell in _affected(verdict["compared"]):
        assert "- `%s`" % cell in slowed["summary"]


@pytest.mark.asv
def test_the_same_change_the_other_way_is_an_improvement(slowed):
    verdict = compare.changes(slowed["results"], MACHINE, slowed["head"], slowed["base"])
    affected = _affected(verdict["compared"])
    assert [c for c in affected if c not in verdict["better"]] == [], _report(slowed, verdict)
    assert not set(affected) & set(verdict["worse"]) and verdict["failed"] == []


@pytest.mark.asv
def test_each_sample_is_one_call(slowed):
    """The pinned asv_runner (0.3) calls a benchmark that has a setup once per sample: the gate's
    number=0 resolves to 1 for every cell, as the README says."""
    from asv.results import iter_results_for_machine

    numbers = set()
    for res in iter_results_for_machine(slowed["results"], MACHINE):
        for key in res.get_all_result_keys():
            numbers.update(s.get("number") for s in res.get_result_stats(key, res.get_result_params(key)) or [] if s)
    assert numbers == {1}, numbers


@pytest.mark.asv
def test_a_head_that_skips_a_measured_cell_fails_the_gate_naming_it(slowed):
    verdict = compare.changes(slowed["results"], MACHINE, slowed["base"], slowed["head"])
    dropped = [c for c in verdict["dropped"] if "'%s'" % SKIPPED in c]
    assert len(dropped) == 3 and dropped == verdict["dropped"], verdict["dropped"]
    assert slowed["proc"].returncode == 1
    assert (
        "3 cells measured at %s and skipped or absent at %s" % (slowed["base"][:8], slowed["head"][:8])
        in slowed["proc"].stdout
    )
    for cell in dropped:
        assert "  %s\n" % cell in slowed["proc"].stdout and "- `%s`" % cell in slowed["summary"]


@pytest.mark.asv
def test_peak_memory_and_file_sizes_are_measured_once_a_commit_and_compared(slowed):
    """The second pass: one value a commit (no samples), compared at their own thresholds. Every
    cell's file is the same bytes at both commits: the slowdown changes no writer's output."""
    verdict = compare.changes(slowed["results"], MACHINE, slowed["base"], slowed["head"])
    once = sorted(c for c in verdict["compared"] if not compare.sampled(c))
    assert len(once) == 9, once
    sizes = [c for c in once if ".track_file_size(" in c]
    assert len(sizes) == 6 and all(slowed["ratios"][c] == 1.0 for c in sizes), [(c, slowed["ratios"][c]) for c in sizes]
    assert not set(sizes) & set(verdict["worse"] + verdict["better"])
    cells = compare.load_cells(slowed["results"], MACHINE, slowed["base"])
    assert all(cells[c][1] == (None, None) for c in once), "no samples: asv keeps one value"


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
        proc = subprocess.run(
            [sys.executable, "-m", "dsib_tools", "compare", "commits"] + args + ["--machine", MACHINE],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            universal_newlines=True,
        )
        assert proc.returncode == 2 and message in proc.stdout, proc.stdout
