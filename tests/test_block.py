"""A block of the release matrix: `make run-matrix BLOCK=i/N` measures a run of neighbouring
environments forward, then backward adding to the first pass's samples, so that a sitting's drift
moves neighbours alike. Here the cut, the config and asv's two commands; asv's running of the
environments in the order of `-E` and its appending of samples were checked by hand
(records/machine-speed/README.md)."""

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
        assert "--skip-existing-successful" not in command and command[command.index("-b") + 1] == "reads"
        assert command[command.index("--attribute") + 1] == "rounds=1"
    assert "--append-samples" not in forward and "--append-samples" in backward
    assert [forward[i + 1] for i, part in enumerate(forward) if part == "-E"] == names
    assert [backward[i + 1] for i, part in enumerate(backward) if part == "-E"] == names[::-1]


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
