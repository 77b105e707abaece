"""The budget records: a command run from a fresh clone under the load watcher, and their table."""

import json
import os
import subprocess
import sys

from dsib_tools import budget

from .conftest import GIT, ROOT, table_rows

MACHINE = "budget-test-machine"


def _repository(tmp_path):
    """A git repository whose Makefile has a target that works a second and one that fails."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "Makefile").write_text("work:\n\t@sleep 1\n\t@echo worked\nbroken:\n\t@echo about to fail; exit 3\n")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(GIT + ["-C", str(repo), "add", "Makefile"], check=True)
    subprocess.run(GIT + ["-C", str(repo), "commit", "-q", "-m", "a Makefile"], check=True)
    head = subprocess.check_output(["git", "-C", str(repo), "rev-parse", "HEAD"], universal_newlines=True).strip()
    return repo, head


def _budget(repo, tmp_path, name, command):
    out = tmp_path / "records" / (name + ".json")
    status = subprocess.call(
        [sys.executable, "-m", "dsib_tools", "study", "budget", "-o", str(out), "--machine", MACHINE]
        + ["--workdir", str(tmp_path / name), "--"]
        + command,
        cwd=str(repo),
        env=dict(
            # make's own variables, when make test runs this, would make the inner make say its directory
            [(k, v) for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")],
            PYTHONPATH=ROOT,
        ),
    )
    with open(str(out)) as f:
        return status, json.load(f), out


def test_a_run_from_a_fresh_clone_is_recorded_with_its_time_commit_cpu_and_load(tmp_path):
    repo, head = _repository(tmp_path)
    status, record, _ = _budget(repo, tmp_path, "work", ["make", "work"])
    assert status == 0 and record["status"] == 0
    assert record["kind"] == budget.KIND and record["machine"] == MACHINE
    assert record["commit"] == head
    assert os.path.exists(str(tmp_path / "work" / "Makefile"))  # it ran in the clone
    assert record["wall_seconds"] >= 1.0  # the command sleeps a second: a shorter record did not time it
    assert record["load"]["seconds"] > 0 and record["load"]["other_cores"] >= 0
    assert record["cpu"]  # asv's detected model, with family and model where the kernel says them
    assert record["asv"] is None  # no asv run under watch-load in this command
    assert record["target_minutes"] is None
    assert record["output_tail"][-1] == "worked"


def test_a_failed_command_is_recorded_as_failed_and_never_as_met(tmp_path):
    repo, _ = _repository(tmp_path)
    status, record, out = _budget(repo, tmp_path, "broken", ["make", "broken"])
    assert status == 2 and record["status"] == 2  # make's own status for a failed recipe
    assert "about to fail" in record["output_tail"]
    # The table judges a record by its target: give this one make bench's, as if it had run it.
    record.update(command="make bench MACHINE=x", target_minutes=budget.target_of(["make", "bench", "MACHINE=x"]))
    out.write_text(json.dumps(record))
    row = table_rows(budget.table_markdown([str(out)]))[-1]
    assert row[0] == "`make bench MACHINE=x`" and row[1].startswith("%s (" % MACHINE)
    assert row[-1] == "no: exited 2"


def test_a_run_workdir_that_exists_is_refused(tmp_path):
    repo, _ = _repository(tmp_path)
    (tmp_path / "taken").mkdir()
    try:
        budget.run(["make", "work"], MACHINE, str(tmp_path / "r.json"), str(tmp_path / "taken"), str(repo))
    except ValueError as exc:
        assert "fresh clone" in str(exc)
    else:
        raise AssertionError("an existing workdir was reused")


def _record(tmp_path, name, command, wall, other_cores, asv_seconds=None, status=0):
    data = {
        "kind": budget.KIND,
        "command": command,
        "machine": "m",
        "cpu": "AMD EPYC (family 25, model 17, stepping 1)",
        "commit": "0123456789abcdef",
        "wall_seconds": wall,
        "status": status,
        "load": {"other_cores": other_cores, "steal": 0.0, "seconds": wall},
        "asv": None if asv_seconds is None else {"seconds": asv_seconds, "runs": 1, "load": None},
        "target_minutes": budget.target_of(command.split()),
    }
    path = tmp_path / (name + ".json")
    path.write_text(json.dumps(data))
    return str(path)


def test_the_table_says_met_only_for_a_quiet_successful_run_within_every_target(tmp_path):
    paths = [
        _record(tmp_path, "a", "make bench MACHINE=m", 14 * 60, 0.05, asv_seconds=9 * 60),
        _record(tmp_path, "b", "make bench MACHINE=m", 14 * 60, 0.05, asv_seconds=11 * 60),
        _record(tmp_path, "c", "make test", 19 * 60, 1.2),
        _record(tmp_path, "d", "make test", 21 * 60, 0.1),
        _record(tmp_path, "e", "make lint", 30, 0.0),
    ]
    rows = table_rows(budget.table_markdown(paths))[1:]
    verdicts = [row[-1] for row in rows]
    assert verdicts == ["yes", "no", "not known: taken under load", "no", "no target"]
    assert rows[0][3:6] == ["14 min 00 s", "9 min 00 s", "asv ≤ 10 min, wall ≤ 15 min"]
    assert rows[2][6] == "1.20 cores / 0.0 % steal (under load)"


def test_the_matrix_s_target_is_ten_minutes_an_environment_of_the_curated_chains():
    import os

    from dsib_tools import budget, matrix

    from .conftest import ROOT

    assert budget.CURATED_ENVIRONMENTS == len(matrix.entries(os.path.join(ROOT, matrix.CURATED_CONFIG)))
    assert budget.TARGETS["make bench-matrix"] == {"wall": 10 * budget.CURATED_ENVIRONMENTS}
