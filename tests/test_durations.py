"""The durations tables: where a run's asv time went, and the samples' floor (three samples of a sub-second cell)."""

import json
import os
import subprocess
import sys

from dsib_tools.durations import durations_markdown, floor_markdown

from .conftest import ROOT, table_rows

COLUMNS = ["result", "params", "version", "started_at", "duration", "samples", "stats_number"]


def results_file(tmp_path, results, setup_cache):
    """An asv results file (format 2) of one run holding ``results`` and the setup_caches' durations."""
    path = tmp_path / "results.json"
    run = {"version": 2, "commit_hash": "0" * 40, "env_name": "test", "date": 0, "python": "3.11"}
    run.update(params={"machine": "test", "python": "3.11"})
    run.update(requirements={}, env_vars={}, result_columns=COLUMNS, results=results, durations=setup_cache)
    path.write_text(json.dumps(run))
    return str(path)


def row(markdown, label):
    """The cells of the table row whose first cell is ``label``."""
    [cells] = [cells for cells in table_rows(markdown) if cells[0] == label]
    return cells


def test_the_floor_takes_three_samples_under_a_second_and_one_over(tmp_path):
    path = results_file(
        tmp_path,
        {
            # Two cells: a fast one (median 0.2 s, five samples) and a slow one (median 4 s, three).
            "reads.Read.time_read": [
                [0.2, 4.0],
                [["'a'", "'b'"]],
                "1",
                0,
                60.0,
                [[0.1, 0.2, 0.2, 0.3, 0.2], [3.0, 4.0, 5.0]],
                [1, 1],
            ],
            # A peak-memory case keeps no samples: all its time is the rest.
            "reads.Read.peakmem_read": [[1e8, 1e8], [["'a'", "'b'"]], "1", 0, 6.0],
            # number 2: a sample is two calls; asv keeps a call's time, so a sample takes twice it.
            "writes.Write.time_write": [[0.8], [["'a'"]], "1", 0, 10.0, [[0.3, 0.4, 0.5]], [2]],
            "writes.Write.time_skipped": [[None], [["'a'"]], "1", 0, 1.5, [None], [None]],
        },
        {"<setup_cache reads:10>": 30.0, "<setup_cache writes:5>": 12.0},
    )
    table = floor_markdown(path)
    # reads.Read: 66 s of cases; samples 1.0 + 12.0 s; floor 3 x 0.2 + 1 x 4.0 = 4.6 s.
    assert row(table, "`reads.Read`") == ["`reads.Read`", "2", "1.10 min", "13.0 s", "53.0 s", "4.6 s"]
    # writes.Write: samples 2 x (0.3 + 0.4 + 0.5) = 2.4 s; median sample 0.8 s, under a second: 3 x 0.8.
    assert row(table, "`writes.Write`") == ["`writes.Write`", "1", "11.5 s", "2.4 s", "9.1 s", "2.4 s"]
    assert row(table, "`setup_cache` (every cell's files built and checked)")[2:5] == ["42.0 s", "", "42.0 s"]
    assert row(table, "total") == ["total", "3", "1.99 min", "15.4 s", "1.73 min", "7.0 s"]
    # Longest class first.
    assert table.index("`reads.Read`") < table.index("`writes.Write`")


def test_the_floor_of_a_cell_with_an_even_number_of_samples_is_the_mean_of_its_middle_two(tmp_path):
    # Ten samples a cell at `default`: asv's median is the mean of the two middle ones (0.3 s
    # here), not the upper one (0.4 s), so the floor is 3 x 0.3 s, not 3 x 0.4 s.
    samples = [0.1, 0.2, 0.4, 0.9]
    path = results_file(tmp_path, {"reads.Even.time_read": [[0.3], [["'a'"]], "1", 0, 5.0, [samples], [1]]}, {})
    assert row(floor_markdown(path), "`reads.Even`") == ["`reads.Even`", "1", "5.0 s", "1.6 s", "3.4 s", "0.9 s"]


def test_a_tracked_cases_samples_in_its_own_unit_are_no_seconds_of_the_floor(tmp_path):
    # A throughput kept with its samples (MB/s, as asv records a track_ that returns them): its
    # 2 s of asv's time are all "the rest"; its 900 MB/s samples are no seconds.
    path = results_file(
        tmp_path,
        {
            "reads.Device.track_direct_read": [[900.0], [], "1", 0, 2.0, [[880.0, 900.0, 910.0]], [1]],
            "reads.Device.time_read": [[0.5], [], "1", 0, 3.0, [[0.5, 0.5, 0.5]], [1]],
        },
        {},
    )
    assert row(floor_markdown(path), "`reads.Device`") == ["`reads.Device`", "1", "5.0 s", "1.5 s", "3.5 s", "1.5 s"]


def test_the_cli_prints_the_floor_of_the_committed_tiny_run():
    record = "records/budget/floor/fe31ade5-env-84d9fbba986b8a98543d997b91c91abf.json"
    printed = subprocess.run(
        [sys.executable, "-m", "dsib_tools", "table", "durations", "--floor", record],
        cwd=ROOT,
        check=True,
        stdout=subprocess.PIPE,
        universal_newlines=True,
    ).stdout
    assert printed.strip() == floor_markdown(os.path.join(str(ROOT), record))
    assert row(printed, "`engines.QueryFromEngine`")[0] == "`engines.QueryFromEngine`"
    # Without --floor, the plain durations table.
    plain = subprocess.run(
        [sys.executable, "-m", "dsib_tools", "table", "durations", record, "--prefix", "engines."],
        cwd=ROOT,
        check=True,
        stdout=subprocess.PIPE,
        universal_newlines=True,
    ).stdout
    assert plain.strip() == durations_markdown(os.path.join(str(ROOT), record), "engines.")


def test_first_samples_counts_the_cells_whose_first_sample_is_the_slowest_against_chance(tmp_path):
    from dsib_tools.durations import first_samples, first_samples_markdown

    path = results_file(
        tmp_path,
        {
            # Three cells of one class: the first sample slowest in one; one sub-second cell has two samples.
            "writes.Write.time_write": [
                [0.2, 0.2, 0.4],
                [["'a'", "'b'", "'c'"]],
                "1",
                0,
                9.0,
                [[0.3, 0.2, 0.1], [0.1, 0.2, 0.3], [0.5, 0.4]],
                [1, 1, 1],
            ],
            # Not timed: never counted.
            "writes.Write.peakmem_write": [[1.0], [["'a'"]], "1", 0, 1.0, None, None],
            # A cell that failed has no samples.
            "reads.Read.time_read": [[None], [["'a'"]], "1", 0, 1.0, [None], [None]],
        },
        {},
    )
    found = first_samples(path)
    cells, first, chance, few = found["writes.Write"]
    assert (cells, first, few) == (3, 2, 1) and abs(chance - (1 / 3.0 + 1 / 3.0 + 1 / 2.0)) < 1e-9
    assert found["reads.Read"] == [0, 0, 0.0, 0]
    table = first_samples_markdown(path)
    assert row(table, "`writes.Write`") == ["`writes.Write`", "3", "2 (67 %)", "39 %", "1"]
    assert "Highest share: `writes.Write`, 67 % of its cells." in table
