"""The other make targets on the checkout of the README's `make bench` at `tiny` (the session's
``asv_tiny`` run): `make run` interrupted, `make record` into the committed history, `make audit`,
and `make bench` on TLC files and on a table you brought."""

import itertools
import json
import math
import os
import re
import shutil
import subprocess
import sys

import pytest

from .conftest import ENV_DIR, table_rows
from .tiny_bench import MACHINE, capture, git_status, tiny_results

# The session's `make bench` (asv_tiny) holds a PostgreSQL and a QuestDB for its run.
pytestmark = [pytest.mark.asv, pytest.mark.server]


def _servers_of(data_dir):
    """{pid: port} of the PostgreSQL servers whose cluster is under ``data_dir``."""
    import psutil

    found = {}
    for process in psutil.process_iter(["name", "cmdline"]):
        cmdline = process.info["cmdline"] or []
        if process.info["name"] == "postgres" and "-p" in cmdline and any(data_dir in part for part in cmdline):
            found[process.pid] = int(cmdline[cmdline.index("-p") + 1])
    return found


def test_a_run_interrupted_during_the_engine_cases_leaves_no_server_and_no_port(asv_tiny):
    """Ctrl-C as a terminal sends it (SIGINT to the run's whole process group) while a PostgreSQL
    case of a real `make run` has its server up. Its own build directory: the run is cut short."""
    import signal
    import time

    import psutil

    from dsib import postgres_server, server_process

    if postgres_server.postgres_unavailable():
        pytest.skip(postgres_server.postgres_unavailable())
    data_dir = asv_tiny["env"]["DSIB_DATA_DIR"]
    assert not _servers_of(data_dir), "no server of this data directory runs before"
    log = os.path.join(asv_tiny["work"], "interrupted.log")
    with open(log, "w") as out:
        run = subprocess.Popen(
            [
                "make",
                "run",
                "PROFILE=tiny",
                "ENGINE=postgres-sqlalchemy",
                "MACHINE=" + MACHINE,
                "ASV_ENV_DIR=" + ENV_DIR,
                "BUILD=" + os.path.join(asv_tiny["work"], "interrupted"),
            ],
            cwd=asv_tiny["repo"],
            env=asv_tiny["env"],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline, seen = time.monotonic() + 600, {}
        while not seen and run.poll() is None and time.monotonic() < deadline:
            seen = dict((pid, port) for pid, port in _servers_of(data_dir).items() if server_process.port_open(port))
            time.sleep(0.05)
        assert seen, "no server came up: %s" % open(log).read()[-3000:]
        os.killpg(run.pid, signal.SIGINT)
        run.wait(300)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (
        _servers_of(data_dir) or any(server_process.port_open(p) for p in seen.values())
    ):
        time.sleep(0.2)
    left = _servers_of(data_dir)
    assert not left, "servers left by the interrupted run: %s" % left
    assert not [port for port in seen.values() if server_process.port_open(port)], "a port is still bound"
    assert not [
        p
        for p in psutil.process_iter(["cmdline"])
        if "asv" in " ".join(p.info["cmdline"] or []) and asv_tiny["repo"] in " ".join(p.info["cmdline"] or [])
    ], "the run itself ended"


def test_make_record_is_the_deliberate_way_into_the_committed_history(asv_tiny):
    """Runs last: it changes the repository on purpose. The run's results join results/, under
    its machine, and html/ is republished from results/ (asv's graphs at the published scale); nothing
    committed is deleted from results/."""
    from dsib_tools import machine_load as load

    (res,) = tiny_results(asv_tiny)
    logs = os.path.join(asv_tiny["results"], MACHINE, load.DIRECTORY)
    aside = os.path.join(asv_tiny["work"], "load-aside")
    shutil.move(logs, aside)
    try:
        unknown = capture(["make", "record", "MACHINE=" + MACHINE, "PROFILE=tiny"], asv_tiny["repo"], asv_tiny["env"])
        assert unknown.returncode != 0 and "its machine load was not recorded" in unknown.stdout, unknown.stdout[-3000:]
        assert git_status(asv_tiny["repo"]) == "", "a refused record changes nothing"
    finally:
        shutil.move(aside, logs)
    # A reference is taken on a quiet machine: a run under load is refused, and recorded only when asked.
    busy = load.Machine(asv_tiny["results"], MACHINE).busy_keys(res)
    record = capture(["make", "record", "MACHINE=" + MACHINE, "PROFILE=tiny"], asv_tiny["repo"], asv_tiny["env"])
    if busy:
        assert record.returncode != 0 and "ran under load" in record.stdout, record.stdout[-3000:]
        assert git_status(asv_tiny["repo"]) == ""
        record = capture(
            ["make", "record", "MACHINE=" + MACHINE, "PROFILE=tiny", "ALLOW_LOAD=1"], asv_tiny["repo"], asv_tiny["env"]
        )
    assert record.returncode == 0, record.stdout[-3000:]
    changes = [(line[:2], line[3:]) for line in git_status(asv_tiny["repo"]).splitlines()]
    (log,) = os.listdir(logs)
    assert ("??", "results/%s/%s/%s" % (MACHINE, load.DIRECTORY, log)) in changes, "the load log goes with them"
    from asv.results import get_filename

    # asv names the file after the environment, or its hash where the name is 128 characters or more
    added = "results/" + get_filename(MACHINE, res.commit_hash, res.env_name)
    assert ("??", added) in changes and ("??", "results/%s/machine.json" % MACHINE) in changes, changes
    with open(os.path.join(asv_tiny["results"], "benchmarks.json")) as f, open(
        os.path.join(asv_tiny["repo"], "results", "benchmarks.json")
    ) as g:
        assert json.load(f) == json.load(g), "benchmarks.json goes with them: the versions they were taken at"
    assert not [path for status, path in changes if path.startswith("results/") and "D" in status], changes
    assert any(path.startswith("html/") for _, path in changes), "html/ was republished from results/"
    with open(os.path.join(asv_tiny["repo"], "html", "index.json")) as f:
        params = json.load(f)["params"]
    assert params["env-DSIB_PROFILE"] == ["default"] and MACHINE not in params["machine"], (
        "a run at tiny is in results/, and out of asv's graphs: they hold the published scale only"
    )
    again = capture(["make", "record", "MACHINE=" + MACHINE, "PROFILE=tiny"], asv_tiny["repo"], asv_tiny["env"])
    assert again.returncode == 0 and "nothing to record" in again.stdout, again.stdout[-2000:]


def test_the_audit_times_the_posts_cases_by_asv_and_outside_it_in_turn(asv_tiny, tmp_path):
    """`make audit`: each of the post's cells run by asv alone and in fresh processes of asv's
    environment (collector on, then off), in turn, each column sampled as asv samples."""
    from dsib_tools import audit, compare

    record_path = str(tmp_path / "audit.json")
    cells_before = compare.load_cells(asv_tiny["results"], MACHINE, compare.resolve(asv_tiny["repo"], "HEAD"))
    run = capture(
        [
            "make",
            "audit",
            "PROFILE=tiny",
            "MACHINE=" + MACHINE,
            "ASV_ENV_DIR=" + ENV_DIR,
            "AUDIT_ROUNDS=1",
            "AUDIT_ONLY=parquet",
            "AUDIT_RECORD=" + record_path,
        ],
        asv_tiny["repo"],
        asv_tiny["env"],
    )
    assert run.returncode == 0, run.stdout[-3000:]
    record = audit.load_record(record_path)
    head = compare.resolve(asv_tiny["repo"], "HEAD")
    assert record["commit"] == head and record["env_name"].endswith("DSIB_PROFILEtiny")
    assert [case["format"] for case in record["cases"]] == ["parquet"] * 7, "the post's seven cases, as asked"
    for case in record["cases"]:
        low, high, _ = case["repeat"]
        processes = case["processes"]
        assert case["order"] == [["asv", "forked", "gc_off", "gc_on"]] and case["number"] == 1
        (asv_run,) = case["asv"]
        assert processes * max(low, 2) <= len(asv_run) <= processes * high, (case["cell"], asv_run)
        for column in ("forked", "gc_off", "gc_on"):
            (step,) = case[column]
            assert len(step) == processes and all(max(low, 2) <= len(p) <= high for p in step), (column, step)
            assert all(0 < t < 60 for p in step for t in p)
    # The audit's own asv runs keep to their directory (each run replaces the one before): the
    # run's results are not touched.
    audit_results = compare.load_cells(os.path.join(asv_tiny["repo"], "build", "audit-results"), MACHINE, head)
    assert record["cases"][-1]["cell"] in audit_results
    assert compare.load_cells(asv_tiny["results"], MACHINE, head) == cells_before
    rows = table_rows(audit.markdown(record))
    assert len(rows) == 8 and all(row.count("yes") + row.count("no") == 3 for row in rows[1:]), rows
    assert (
        subprocess.run(
            ["git", "status", "--porcelain", "--", "records"],
            cwd=asv_tiny["repo"],
            check=True,
            stdout=subprocess.PIPE,
            universal_newlines=True,
        ).stdout
        == ""
    ), "AUDIT_RECORD, not the committed record"


def test_the_audit_refuses_code_other_than_the_runs(asv_tiny, tmp_path):
    with open(os.path.join(asv_tiny["repo"], "dsib", "__init__.py"), "a") as f:
        f.write("\n# changed after the run\n")
    try:
        run = capture(
            [
                sys.executable,
                "-m",
                "dsib_tools",
                "study",
                "audit",
                "--config",
                ".asv-tiny.conf.json",
                "--results-dir",
                asv_tiny["results"],
                "--machine",
                MACHINE,
                "--profile",
                "tiny",
                "-o",
                str(tmp_path / "a.json"),
            ],
            asv_tiny["repo"],
            asv_tiny["env"],
        )
    finally:
        subprocess.run(["git", "checkout", "--", "dsib/__init__.py"], cwd=asv_tiny["repo"], check=True)
    assert run.returncode == 2 and "differ from" in run.stdout, run.stdout[-2000:]
    assert not os.path.exists(str(tmp_path / "a.json"))


def test_make_bench_runs_real_tlc_files_and_a_table_you_brought(asv_tiny, tmp_path):
    """Your own data through the README's make bench, Parquet's cells only (to keep it short):
    TLC-layout CSV files ingested with --from-csv and run at PROFILE=tlc, and a table brought with
    `data_prep add` run with DATASET=. Each in its own build directory; the data where a user's
    is, in the checkout's data/ (no DSIB_DATA_DIR: asv installs dsib elsewhere, and a fresh
    clone's make bench once looked for the data there)."""
    import pyarrow.parquet as pq
    from asv.results import iter_results_for_machine

    from data_prep import load_frame, nyc_taxi

    from .test_own_table import arrow_table, every_kind

    repo, python = asv_tiny["repo"], os.path.join(asv_tiny["repo"], ".venv", "bin", "python")
    env = dict(asv_tiny["env"])
    env.pop("DSIB_DATA_DIR")
    paths = []
    for month in ("2016-01", "2016-02"):
        paths.append(str(tmp_path / ("yellow_tripdata_%s.csv" % month)))
        nyc_taxi.to_tlc_csv(load_frame("tiny", "plain", month, asv_tiny["env"]["DSIB_DATA_DIR"]), paths[-1])
    ingest = capture(
        [python, "-m", "data_prep", "prepare", "--profile", "tlc", "--quiet", "--from-csv"] + paths, repo, env
    )
    assert ingest.returncode == 0, ingest.stdout
    table = str(tmp_path / "mine.parquet")
    pq.write_table(arrow_table(every_kind(5000)), table)
    add = capture(
        [python, "-m", "data_prep", "add", "mine", "--from-file", table, "--partition-rows", "2000", "--quiet"],
        repo,
        env,
    )
    assert add.returncode == 0 and "left out: column 'tags'" in add.stdout, add.stdout

    for how, profile, source in ((["PROFILE=tlc"], "tlc", "nyc_taxi"), (["DATASET=mine"], "brought", "mine")):
        build = str(tmp_path / ("build-" + profile))
        run = capture(
            ["make", "bench", "FORMAT=parquet", "MACHINE=" + MACHINE, "ASV_ENV_DIR=" + ENV_DIR, "BUILD=" + build] + how,
            repo,
            env,
        )
        assert run.returncode == 0, run.stdout[-6000:]
        (res,) = [
            r
            for r in iter_results_for_machine(os.path.join(build, "results"), MACHINE)
            if "DSIB_PROFILE" + profile in r.env_name.split("-")
        ]
        if profile == "brought":  # the table's name and what it holds: a series of its own
            from dsib_tools.config import table_digest

            assert "DSIB_DATASETmine" in res.env_name.split("-"), res.env_name
            assert "DSIB_TABLE" + table_digest("mine", os.path.join(repo, "data")) in res.env_name.split("-")
            assert "| mine / str " in run.stdout, "make bench DATASET= prints the table's block"
            with open(os.path.join(build, "html", "dsib", "index.html")) as f:
                assert "mine / str" in f.read(), "and its site shows it"
        measured, failed = [], []
        for key in res.get_all_result_keys():
            params = res.get_result_params(key)
            values = res.get_result_value(key, params)
            for combo, value in zip(
                itertools.product(*params) if params else [()], values if isinstance(values, list) else [values]
            ):
                cell = (key,) + tuple(c.strip("'") for c in combo)
                if value is None:
                    failed.append(cell)
                elif not (isinstance(value, float) and math.isnan(value)) and source in cell and "parquet" in cell:
                    measured.append(cell)
        assert not failed, "%s: %s" % (how, failed)
        names = set(cell[0] for cell in measured)
        for name in (
            "reads.ReadFromPageCache.time_read",
            "writes.WriteToBytes.time_write",
            "reads.ContinuousRead.time_read",
        ):
            assert name in names, (how, name, sorted(names))
    report = capture(
        [
            python,
            "-m",
            "dsib_tools",
            "report",
            "--results-dir",
            os.path.join(str(tmp_path), "build-brought", "results"),
            "--machine",
            MACHINE,
            "--env",
            "DSIB_PROFILEbrought",
            "--dataset",
            "mine",
        ],
        repo,
        env,
    )
    assert report.returncode == 0, report.stdout
    (block,) = [
        t for t in report.stdout.split("\n\n") if t.startswith("| mine / str ") and "parquet" in table_rows(t)[0]
    ]
    header = table_rows(block)[0]
    (read,) = [row for row in table_rows(block) if row[0] == "read, page cache"]
    assert re.match(r"\d[\d.]*\s?(µs|ms|s) \(", read[header.index("parquet")]), read  # a time
