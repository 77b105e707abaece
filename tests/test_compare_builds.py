"""`make compare-builds`: two builds of one library, everything else pinned alike, the gate's cells
in both, judged as the gate judges two commits.

The real comparison builds an environment of the matrix's newest entry with pyarrow as a wheel
file downloaded from PyPI (an older release than the matrix pins), beside the environment that
pins the newest release, runs a few of the gate's cells in both, rounds interleaved, and prints a
verdict for every cell; run twice, it measures both again. Where the machine counts
instructions, the two runs' instruction ratios agree within 1 %.
"""

import os
import re
import subprocess
import sys

import pytest

from dsib import counters
from dsib_tools import compare, compare_builds, compare_gate, matrix, suite
from dsib_tools.compare_gate import CompareError

from .conftest import ENV_DIR, ROOT, prepared_data, run_with_progress, snapshot_working_tree

MACHINE = "dsib-test"
NEWEST = matrix.newest(matrix.entries(os.path.join(ROOT, "asv.conf.json")))
OLDER = "25.0.1"  # a pyarrow release of the curated matrix older than the newest entry's
CELLS = (
    "^" + re.escape(suite.name(suite.reads.ReadFromPageCache, "time_read")) + r"\('nyc_taxi', 'parquet', 'plain'\)",
    "^" + re.escape(suite.name(suite.writes.WriteToBytes, "time_write")) + r"\('nyc_taxi', 'parquet', 'plain'\)",
    "^" + re.escape(suite.name(suite.sizes.Sizes, "track_file_size")) + r"\('nyc_taxi', 'parquet', 'plain'\)",
)


def test_a_build_is_a_release_or_a_file_or_directory_pip_can_install(tmp_path):
    wheel = tmp_path / "pyarrow-25.0.1-cp311-cp311-manylinux_2_28_x86_64.whl"
    wheel.write_bytes(b"")
    assert compare_builds.requirement_of("25.0.1") == compare_builds.requirement_of("==25.0.1") == "25.0.1"
    assert compare_builds.requirement_of(str(wheel)) == " @ file://" + str(wheel)
    assert compare_builds.requirement_of(str(tmp_path)) == " @ file://" + str(tmp_path)
    for bad in ("pyarrow>=25", "/no/such/wheel.whl", "latest"):
        with pytest.raises(CompareError, match="neither a release"):
            compare_builds.requirement_of(bad)


def test_the_two_builds_differ_in_the_library_alone(tmp_path):
    config = compare_builds.write_config(ROOT, "pyarrow", ("25.0.1", "26.0.1"), str(tmp_path / "results"))
    import json

    with open(config) as f:
        base, head = json.load(f)["include"]
    assert (base["req"]["pyarrow"], head["req"]["pyarrow"]) == ("25.0.1", "26.0.1")
    assert dict(base["req"], pyarrow=None) == dict(head["req"], pyarrow=None) == dict(NEWEST["req"], pyarrow=None)
    assert base["env_nobuild"]["DSIB_PROFILE"] == compare_gate.PROFILE
    with pytest.raises(CompareError, match="nothing to compare"):
        compare_builds.write_config(ROOT, "pyarrow", ("26.0.1", "==26.0.1"), str(tmp_path / "results"))
    with pytest.raises(CompareError, match="dask is not pinned"):
        compare_builds.write_config(ROOT, "dask", ("1.0", "1.1"), str(tmp_path / "results"))


@pytest.fixture(scope="module")
def wheel():
    """pyarrow's older release as a wheel file from PyPI, for the newest entry's Python.

    It is kept beside the worker's environments: asv names an environment by its requirements,
    this file's path among them, so a path of its own each run would build (and leave) a new
    1.7 GB environment each run.
    """
    where = ENV_DIR + "-wheels"
    os.makedirs(where, exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary", ":all:"]
        + ["--python-version", NEWEST["python"], "-d", where, "pyarrow==%s" % OLDER],
        check=True,
    )
    (found,) = os.listdir(where)
    return os.path.join(where, found)


@pytest.fixture(scope="module")
def compared(wheel, tmp_path_factory, request):
    data_dir = prepared_data(tmp_path_factory, "pr")
    repo = os.path.join(str(tmp_path_factory.mktemp("builds")), "repo")
    snapshot_working_tree(repo)
    env = dict(os.environ, DSIB_DATA_DIR=data_dir)
    subprocess.run(
        [sys.executable, "-m", "dsib_tools", "setup", "machine", MACHINE],
        cwd=ROOT,
        check=True,
        env=env,
        stdout=subprocess.PIPE,
    )
    runs = []
    for turn in (1, 2):
        results = os.path.join(repo, "..", "results-%d" % turn)
        command = [sys.executable, "-m", "dsib_tools", "compare", "builds", "pyarrow", NEWEST["req"]["pyarrow"], wheel]
        command += ["--machine", MACHINE, "--results-dir", results, "--env-dir", ENV_DIR]
        for pattern in CELLS:
            command += ["--bench", pattern]
        runs.append((run_with_progress(command, repo, env, request, "make compare-builds, run %d" % turn), results))
    return runs


def _verdicts(output):
    """{cell: ratio} of compare-builds' verdict lines ("slower   1.234  cell")."""
    found = {}
    for line in output.splitlines():
        match = re.match(r"^(same|slower|faster|failed)\s+([\d.]+)\s+(\S.*)$", line)
        if match:
            found[match.group(3)] = float(match.group(2))
    return found


@pytest.mark.asv
def test_compare_builds_prints_a_verdict_for_every_cell_in_both_runs(compared, wheel):
    for proc, _ in compared:
        assert proc.returncode in (0, 1), proc.stdout[-4000:]
        names = [cell.split("(")[0] for cell in _verdicts(proc.stdout)]
        expected = [
            suite.name(suite.reads.ReadFromPageCache, "time_read"),
            suite.name(suite.writes.WriteToBytes, "time_write"),
        ]
        assert all(n in names for n in expected), proc.stdout[-4000:]
        assert suite.name(suite.sizes.Sizes, "track_file_size") in names, "sizes are compared too"
        said = "judged by %s" % compare.counting()
        assert said in proc.stdout, proc.stdout[-2000:]


@pytest.mark.asv
@pytest.mark.skipif(counters.available() is not None, reason=str(counters.available()))
def test_two_runs_agree_on_the_instruction_ratios_within_one_per_cent(compared, wheel):
    ratios = [
        dict((cell, ratio) for cell, ratio in _verdicts(proc.stdout).items() if compare.counts_instructions(cell))
        for proc, _ in compared
    ]
    assert ratios[0] and set(ratios[0]) == set(ratios[1])
    for name in ratios[0]:
        assert abs(ratios[0][name] / ratios[1][name] - 1) < 0.01, (name, ratios)
