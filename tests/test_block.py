"""A block of the release matrix: `make run-matrix BLOCK=i/N` measures a run of neighbouring
environments forward, then backward adding to the first pass's samples, so that a sitting's drift
moves neighbours alike. Here the cut, the config, asv's two commands, and a real block of two
environments at `tiny` run through make."""

import itertools
import os
import sys

import pytest

from dsib_tools import matrix, run

from .conftest import ROOT


@pytest.mark.parametrize("config", [matrix.CURATED_CONFIG, matrix.SWEEPS_CONFIG])
def test_the_blocks_cut_the_matrix_into_runs_of_neighbours_in_its_own_order(config):
    entries = matrix.entries(os.path.join(ROOT, config))
    for count in range(1, len(entries) + 1):
        blocks = [matrix.block(entries + entries[:2], index, count) for index in range(1, count + 1)]
        assert [entry for block in blocks for entry in block] == entries  # in order, each once
        assert max(map(len, blocks)) - min(map(len, blocks)) <= 1
    with pytest.raises(ValueError, match="block 1/%d is empty" % (len(entries) + 1)):
        matrix.block(entries, 1, len(entries) + 1)


def test_a_block_runs_its_neighbours_forward_then_backward_appending_samples(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    config = run.matrix_config("curated", "default", str(tmp_path / "r"), str(tmp_path / "h"), ".asv/env", block=(1, 9))
    try:
        names = run.environment_names(config)
    finally:
        os.remove(config)
    assert [name.split("-pyarrow")[1].split("-")[0] for name in names] == ["0.11.1", "0.15.1", "0.17.1"]
    forward, backward = run.block_commands(config, "m", "HEAD", "reads", names)
    for command in (forward, backward):
        assert command[:4] == [sys.executable, "-m", "asv", "run"] and command[-1] == "HEAD^!"
        assert "--skip-existing-successful" not in command
        assert command[command.index("--attribute") + 1] == "rounds=1"
    assert forward[forward.index("-b") + 1] == "reads" and backward[backward.index("-b") + 1] == run.timed_only("reads")
    assert "--append-samples" not in forward and "--append-samples" in backward
    assert [forward[i + 1] for i, part in enumerate(forward) if part == "-E"] == names
    assert [backward[i + 1] for i, part in enumerate(backward) if part == "-E"] == names[::-1]


@pytest.mark.parametrize("selected", [None, matrix.release_regex(), "reads"])
def test_a_blocks_second_pass_takes_the_timed_cells_of_the_first(selected):
    """The backward pass measures again what has samples (``time_``), and no peak memory or tracked
    figure, of which asv would keep one value anyway."""
    import re

    from dsib_tools import suite

    labels = [
        matrix.cell_label(suite.name(cls, method), params)
        for cls in suite.classes()
        for method in suite.methods(cls)
        for params in itertools.product(*cls.params)
    ]
    first = [label for label in labels if selected is None or re.search(selected, label)]
    second = [label for label in labels if re.search(run.timed_only(selected), label)]
    assert second == [label for label in first if label.split("(")[0].rsplit(".", 1)[1].startswith("time_")]
    assert second and len(second) < len(first)


def test_a_block_stops_after_a_stopped_pass_and_goes_on_after_failed_cells(monkeypatch):
    ran = []
    statuses = iter([2, 130])
    monkeypatch.setattr(run, "run", lambda command, *args: ran.append(command) or next(statuses))
    assert run.run_passes([["a"], ["b"], ["c"]], "build/results", "m") == 130
    assert ran == [["a"], ["b"]]


def test_block_takes_a_matrix_and_no_shard(capsys):
    from dsib_tools.__main__ import main

    for extra in (["--matrix", "curated", "--shard", "1/2"], []):
        assert main(["run", "--profile", "tiny", "--machine", "m", "--block", "1/2"] + extra) == 2
        assert "error: --block takes --matrix, and not --shard" in capsys.readouterr().err


def test_a_failed_runs_message_leads_with_what_asv_said_failed():
    from .conftest import asv_failures

    output = "\n".join(
        [
            "[ 0.00%] ·· Benchmarking virtualenv-py3.11",
            "[16.67%] ··· Setting up reads:52                                  failed",
            "[16.67%] ···· Traceback (most recent call last):",
            '                 File "reads.py", line 53, in setup_cache',
            "               OSError: [Errno 28] No space left on device",
            "[33.33%] ··· reads.ReadFromBytes.time_read                        ok",
            "[33.33%] ··· ======== =======",
            "[50.00%] ··· writes.WriteMonthToBytes.time_write                  ok",
        ]
    )
    said = asv_failures(output)
    assert "Setting up reads:52" in said and "No space left on device" in said, said
    assert "time_read" not in said and "time_write" not in said, said
    assert asv_failures(output.split("\n[16.67%]")[0]) == "(asv printed no failure)"


# --- a real block: two environments of the sweeps at `tiny`, through make ---


@pytest.fixture(scope="module")
def block_run(tiny_data_dir, tmp_path_factory, request):
    """`make run-matrix MATRIX=sweeps BLOCK=1/1` at `tiny` over the two environments of
    TEST_ENTRIES, Parquet's cells of one source, in a fresh repository holding this working tree:
    its output and its results directory."""
    from .conftest import asv_failures, run_with_progress
    from .test_shard_sweep import _make, sweeps_repo

    repo, env = sweeps_repo(tmp_path_factory, "block", tiny_data_dir)
    done = run_with_progress(
        _make() + ["run-matrix", "BLOCK=1/1", "BUILD=build-block"], repo, env, request, "make run-matrix BLOCK=1/1"
    )
    assert done.returncode == 0, asv_failures(done.stdout) + "\n[...]\n" + done.stdout[-3000:]
    return done.stdout, os.path.join(repo, "build-block", "results")


@pytest.mark.asv
@pytest.mark.server
def test_a_real_block_measures_forward_then_backward_and_the_timed_cells_twice(block_run):
    import math
    import re

    from asv.results import iter_results_for_machine

    from dsib_tools import suite

    from .test_shard_sweep import MACHINE

    output, results_dir = block_run
    passes = output.split("dsib: servers held for this run")[1:]
    assert len(passes) == 2, output[-3000:]
    orders = [re.findall(r"Benchmarking (\S+)", part) for part in passes]
    assert len(orders[0]) == 2 and orders[1] == orders[0][::-1], orders
    second = re.findall(r"^\[ *[\d.]+%\] \S+ ([a-z_]+\.\w+\.(\w+))", passes[1], re.M)
    assert second and all(method.startswith("time_") for _, method in second), sorted(set(second))
    repeats = dict(
        (suite.name(cls, m), getattr(cls, "repeat", 0)) for cls in suite.classes() for m in suite.methods(cls)
    )
    kinds = {}
    for res in iter_results_for_machine(results_dir, MACHINE):
        for key in res.get_all_result_keys():
            method = key.rsplit(".", 1)[1]
            values = res.get_result_value(key, res.get_result_params(key))
            samples = res.get_result_samples(key, res.get_result_params(key))
            for value, taken in zip(values, samples):
                if value is None or (isinstance(value, float) and math.isnan(value)):
                    continue
                kinds.setdefault(method.split("_")[0], []).append(key)
                if method.startswith("time_"):  # at `tiny` each process takes its most samples
                    most = repeats[key] if isinstance(repeats[key], int) else repeats[key][1]
                    assert len(taken) == 2 * most, (res.env_name, key, taken)  # a process of each pass
    assert len(kinds.get("time", [])) >= 2 and kinds.get("peakmem") and kinds.get("track"), sorted(kinds)


@pytest.mark.parametrize("text", ["0/3", "4/3", "x"])
def test_a_block_that_is_not_i_of_n_is_refused_naming_the_block(text, capsys):
    from dsib_tools.__main__ import main

    with pytest.raises(SystemExit) as stopped:
        main(["run", "--profile", "tiny", "--machine", "m", "--matrix", "curated", "--block", text])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "a block is i/N with 1 <= i <= N (block 1/4 is the first of four), not %r" % text in err
    assert "a shard is" not in err
