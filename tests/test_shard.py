"""A sweep spread over runners: `make bench-matrix SHARD=i/N` runs shard i of N of the matrix's
environments, and `make merge-results` joins the shards' results trees; here without an asv run
(the real runs, merged and resumed, are test_shard_sweep.py's)."""

import glob
import json
import os
import random
import shutil
import subprocess
import sys


import pytest

from dsib_tools import chains, matrix
from dsib_tools.config import derive_config
from dsib_tools.publish import REFERENCE_MACHINE
from dsib_tools.merge import MergeError, merge

from .conftest import ROOT, committed

# The cheapest environments that run the suite: three wheels each (both built in 75 s here, with pip's cache).
TEST_ENTRIES = [
    {
        "python": "3.11",
        "req": {"numpy": "2.4.6", "pandas": "3.1.1", "pyarrow": pyarrow},
        "env_nobuild": dict(chains.FREED_MEMORY_KEPT, DSIB_PROFILE="default"),
    }
    for pyarrow in ("26.0.1", "25.0.1")
]


def _key(entry):
    return json.dumps(entry, sort_keys=True)


@pytest.mark.parametrize("config", [matrix.CURATED_CONFIG, matrix.SWEEPS_CONFIG])
def test_the_shards_partition_the_environments_the_same_way_whatever_their_order(config):
    entries = matrix.entries(os.path.join(ROOT, config))
    shuffled = list(entries)
    random.Random(20).shuffle(shuffled)
    environments = set(_key(e) for e in entries)
    for count in (1, 2, 3, 4, len(environments)):
        shards = [matrix.shard(entries, index, count) for index in range(1, count + 1)]
        assert [matrix.shard(shuffled, index, count) for index in range(1, count + 1)] == shards
        drawn = [_key(e) for shard in shards for e in shard]
        assert sorted(drawn) == sorted(environments), "every environment in exactly one shard"
        sizes = [len(shard) for shard in shards]
        assert max(sizes) - min(sizes) <= 1, sizes


@pytest.mark.parametrize("text", ["0/2", "3/2", "x", "1/0", "", "-1/2", "1/2/3", "1 of 2"])
def test_a_shard_that_is_not_i_of_n_is_refused(text):
    with pytest.raises(ValueError, match="a shard is i/N with 1 <= i <= N"):
        matrix.parse_shard(text)


def test_an_entry_listed_twice_is_one_environment_in_one_shard():
    """asv.sweeps.conf.json lists pandas 2.2.3 with pyarrow 25.0.1 in two sweeps: two shards would
    both run it, and their results files would clash in the merge."""
    listed_twice = TEST_ENTRIES + [json.loads(json.dumps(TEST_ENTRIES[0]))]
    assert [matrix.shard(listed_twice, index, 2) for index in (1, 2)] == [[e] for e in matrix.shard(TEST_ENTRIES, 1, 1)]
    with pytest.raises(ValueError, match="shard 3/3 is empty"):
        matrix.shard(listed_twice, 3, 3)


def test_a_shard_beyond_the_environments_is_refused_rather_than_run_empty():
    with pytest.raises(ValueError, match="shard 3/3 is empty: the matrix has 2 environments"):
        matrix.shard(TEST_ENTRIES, 3, 3)


def test_config_writes_only_the_shards_environments_and_asv_lists_those(tmp_path):
    from asv import environment
    from asv.config import Config

    with open(os.path.join(ROOT, matrix.SWEEPS_CONFIG)) as f:
        base = json.load(f)
    names = []
    for index in (1, 2, 3):
        path = os.path.join(ROOT, ".asv-test-shard-%d.conf.json" % index)
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "dsib_tools",
                "setup",
                "config",
                "--base",
                matrix.SWEEPS_CONFIG,
                "--profile",
                "tiny",
                "--shard",
                "%d/3" % index,
                "-o",
                path,
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            universal_newlines=True,
        )
        assert done.returncode == 0, done.stdout
        try:
            with open(path) as f:
                assert json.load(f) == derive_config(base, profile="tiny", shard=(index, 3))
            names.append([e.name for e in environment.get_environments(Config.load(path), None)])
        finally:
            os.remove(path)
    every = [n for shard in names for n in shard]
    assert len(every) == len(set(every)) == len(set(json.dumps(e, sort_keys=True) for e in base["include"]))
    refused = subprocess.run(
        [sys.executable, "-m", "dsib_tools", "setup", "config", "--shard", "3/2"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
    )
    assert refused.returncode == 2 and "a shard is i/N with 1 <= i <= N" in refused.stdout, refused.stdout


@pytest.mark.parametrize("text", ["0/2", "3/2", "x"])
def test_a_bad_shard_stops_the_run_before_asv_runs(text):
    config = ".asv-matrix-curated-tiny-shard%s.conf.json" % text.replace("/", "of")
    done = subprocess.run(
        [sys.executable, "-m", "dsib_tools", "run", "--matrix", "curated", "--shard", text, "--profile", "tiny"]
        + ["--machine", "dsib-test"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
    )
    assert done.returncode == 2 and "(shard 1/4 is the first of four), not '%s'" % text in done.stdout, done.stdout
    assert not os.path.exists(os.path.join(ROOT, config))


# --- merge-results, on copies of the committed history's real results files ---

COMMITTED_MACHINE = REFERENCE_MACHINE


def _shard_tree(path, result_files):
    """A results tree like a shard's: benchmarks.json, the machine's machine.json and some of its results."""
    source = committed("results")
    os.makedirs(os.path.join(path, COMMITTED_MACHINE))
    for name in ["benchmarks.json", os.path.join(COMMITTED_MACHINE, "machine.json")] + [
        os.path.join(COMMITTED_MACHINE, f) for f in result_files
    ]:
        shutil.copy2(os.path.join(source, name), os.path.join(path, name))
    return path


def _committed_result_files():
    return sorted(
        f for f in os.listdir(committed("results/" + COMMITTED_MACHINE)) if f.endswith(".json") and f != "machine.json"
    )


def _edit_json(path, change):
    with open(path) as f:
        doc = json.load(f)
    change(doc)
    with open(path, "w") as f:
        json.dump(doc, f)


def _listing(tree):
    return sorted(
        os.path.relpath(p, tree) for p in glob.glob(os.path.join(tree, "**", "*"), recursive=True) if os.path.isfile(p)
    )


def test_merge_joins_the_shards_files_and_keeps_a_file_they_share(tmp_path):
    files = _committed_result_files()
    assert len(files) >= 4
    one = _shard_tree(str(tmp_path / "one"), files[:2])
    two = _shard_tree(str(tmp_path / "two"), files[1:4])  # files[1] in both, as seeded from one history
    into = str(tmp_path / "into")
    merge([one, two], into, COMMITTED_MACHINE)
    assert _listing(into) == sorted(
        ["benchmarks.json", os.path.join(COMMITTED_MACHINE, "machine.json")]
        + [os.path.join(COMMITTED_MACHINE, f) for f in files[:4]]
    )
    with open(os.path.join(into, "benchmarks.json")) as f, open(committed("results/benchmarks.json")) as g:
        assert f.read() == g.read()


def _other_cpu(trees):
    _edit_json(os.path.join(trees[1], COMMITTED_MACHINE, "machine.json"), lambda m: m.update(cpu="Another CPU"))


def _same_file_other_contents(trees):
    name = os.path.join(COMMITTED_MACHINE, _committed_result_files()[0])
    shutil.copy2(os.path.join(trees[0], name), os.path.join(trees[1], name))
    _edit_json(os.path.join(trees[1], name), lambda r: r.update(date=r["date"] + 1))


def _other_suite(trees):
    _edit_json(os.path.join(trees[1], "benchmarks.json"), lambda b: b.pop(sorted(k for k in b if k != "version")[0]))


def _other_machine_name(trees):
    os.rename(os.path.join(trees[1], COMMITTED_MACHINE), os.path.join(trees[1], "elsewhere"))


def _into_holds_other_hardware(trees):
    os.makedirs(os.path.join(trees[2], COMMITTED_MACHINE))
    shutil.copy2(os.path.join(trees[0], COMMITTED_MACHINE, "machine.json"), os.path.join(trees[2], COMMITTED_MACHINE))
    _edit_json(os.path.join(trees[2], COMMITTED_MACHINE, "machine.json"), lambda m: m.update(num_cpu="64"))


@pytest.mark.parametrize(
    "damage, message",
    [
        (_other_cpu, "must run on one hardware class"),
        (_same_file_other_contents, "two shards ran the same environment at the same commit"),
        (_other_suite, "the shards ran different benchmarks"),
        (_other_machine_name, "holds no results of machine '%s'" % REFERENCE_MACHINE),
        (_into_holds_other_hardware, "merge them under another machine name"),
    ],
)
def test_merge_refuses_shards_that_are_not_one_machines_run_and_copies_nothing(tmp_path, damage, message):
    files = _committed_result_files()
    trees = [
        _shard_tree(str(tmp_path / "one"), files[:2]),
        _shard_tree(str(tmp_path / "two"), files[2:4]),
        str(tmp_path / "into"),
    ]
    damage(trees)
    before = _listing(trees[2])
    with pytest.raises(MergeError, match=message):
        merge(trees[:2], trees[2], COMMITTED_MACHINE)
    assert _listing(trees[2]) == before
    cli = subprocess.run(
        [sys.executable, "-m", "dsib_tools", "results", "merge", "--machine", COMMITTED_MACHINE, "--into", trees[2]]
        + trees[:2],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
    )
    assert cli.returncode == 1 and "error: " in cli.stdout and message in cli.stdout, cli.stdout
