"""The one reader of asv's results: the committed history as a tidy table, a row per cell and run,
each row what asv's own API gives for that cell."""

import itertools
import math

import pytest

from dsib_tools import asv_results
from dsib_tools.publish import REFERENCE_MACHINE

from .conftest import committed

MACHINE = REFERENCE_MACHINE


@pytest.fixture(scope="module")
def history():
    return committed("results")


def test_the_table_has_a_row_per_cell_of_every_run_as_asv_reads_it(history):
    from asv.results import iter_results_for_machine

    table = asv_results.table(history, MACHINE)
    assert list(table.columns) == list(asv_results.COLUMNS)
    expected = 0
    for res in iter_results_for_machine(history, MACHINE):
        rows = table[(table.commit == res.commit_hash) & (table.env_name == res.env_name)]
        for key in res.get_all_result_keys():
            params = res.get_result_params(key)
            values = res.get_result_value(key, params)
            expected += len(values)
            cells = rows[rows.benchmark == key]
            assert list(cells.params) == list(itertools.product(*params)), key
            for value, got in zip(values, cells.value):
                assert (value is None and got is None) or value == got or (math.isnan(value) and math.isnan(got))
        assert all(pins == res.params for pins in rows.pins)
    assert len(table) == expected > 1000
    assert set(table.machine) == {MACHINE}


def test_the_runs_are_chosen_by_commit_prefix_and_environment(history):
    table = asv_results.table(history)
    assert set(table.machine) == set(asv_results.machines(history)) >= {MACHINE}
    commit = table[table.machine == MACHINE].commit.iloc[0]
    runs = asv_results.runs(history, MACHINE, commit[:8], env="pyarrow0.11.1")
    assert runs and all(r.commit_hash == commit and "pyarrow0.11.1" in r.env_name for r in runs)
    assert asv_results.runs(history, MACHINE, commit, env="no-such-environment") == []


def test_a_cell_keeps_its_statistics_and_samples(history):
    table = asv_results.table(history, MACHINE)
    sampled = table[table.samples.map(bool)]
    assert len(sampled) > 0
    row = sampled.iloc[0]
    assert row.stats["repeat"] == len(row.samples) and row.stats["q_25"] <= row.value <= row.stats["q_75"]


def test_no_results_directory_is_a_clear_error(tmp_path):
    with pytest.raises(asv_results.NoResults, match="no results directory .*make bench"):
        asv_results.table(str(tmp_path / "missing"))
