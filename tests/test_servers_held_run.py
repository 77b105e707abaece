"""A whole asv run at tiny, its servers held by the holder (dsib_tools servers hold): one PostgreSQL,
one QuestDB and one object store (with its counting proxies) for the whole run, and none, nor a
bound port, after it."""

import itertools
import os
import re
import signal
import subprocess
import sys
import time

import psutil
import pytest

from .conftest import ROOT, table_rows
from .test_first_call import traced
from .test_servers_held import HOLD, _all_gone, _held_pids, needs_held

pytestmark = [pytest.mark.asv, pytest.mark.server]

# A whole asv run at tiny, its servers held by the holder: the engines' cases of one PostgreSQL and
# one QuestDB engine (every method: time, peakmem, what a call added to the client's and the server's
# memory, QuestDB's wait).
# And two cells read from the object store: the whole CSV 20 ms a request away through pyarrow's
# client, three columns of Parquet fetched ahead through s3fs (every method: time, requests, bytes
# the store sent).
SELECTION = (
    r"engines\.(IngestIntoEngine|QueryFromEngine)\.\w+\('tsbs_cpu', '(postgres-adbc|questdb-dataframe)', 'plain'\)"
    r"|objectstore\.ReadFromObjectStore\.\w+\('nyc_taxi', "
    r"('csv', 'str', 'pyarrow', 'all', 'off', 20|'parquet', 'cat', 's3fs', 'three', 'on', 0)\)"
)
STORE_CELLS = {
    ("'csv'", "'str'", "'pyarrow'", "'all'", "'off'", "20"): "csv",
    ("'parquet'", "'cat'", "'s3fs'", "'three'", "'on'", "0"): "parquet",
}
MACHINE = "dsib-test"


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory):
    from .conftest import snapshot_working_tree

    repo = str(tmp_path_factory.mktemp("held-run") / "repo")
    snapshot_working_tree(repo)
    return repo


def _start_run(repo, data_dir, build, log, trace):
    """The holder around ``asv run`` of SELECTION, as ``make run ENGINE=...`` runs it, in a session
    of its own (a terminal's Ctrl-C reaches its whole group)."""
    import glob

    from .conftest import ENV_DIR

    pyenv = glob.glob(os.path.join(os.path.expanduser("~"), ".pyenv", "versions", "*", "bin"))
    env = dict(
        os.environ,
        DSIB_DATA_DIR=data_dir,
        DSIB_SELECT=SELECTION,
        DSIB_TRACE=trace,
        PATH=os.pathsep.join([os.path.dirname(sys.executable)] + pyenv + [os.environ["PATH"]]),
    )
    config, results = ".asv-tiny.conf.json", os.path.join(build, "results")
    for tool in (
        [
            "setup",
            "config",
            "--profile",
            "tiny",
            "--envs",
            "newest",
            "--results-dir",
            results,
            "--html-dir",
            os.path.join(build, "html"),
            "--env-dir",
            ENV_DIR,
            "-o",
            config,
        ],
        ["setup", "machine", MACHINE, "--results-dir", results],
    ):
        subprocess.run(
            [sys.executable, "-m", "dsib_tools"] + tool, cwd=repo, env=env, check=True, stdout=subprocess.DEVNULL
        )
    return subprocess.Popen(
        HOLD
        + [
            sys.executable,
            "-m",
            "asv",
            "run",
            "--config",
            config,
            "--machine",
            MACHINE,
            "--show-stderr",
            "--record-samples",
            "-b",
            SELECTION,
            "HEAD^!",
        ],
        cwd=repo,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    ), results


def _read(path):
    with open(path, errors="replace") as f:
        return f.read()


def _watch(data_dir, run, seen):
    """Every server process seen under ``data_dir`` while ``run`` runs, into ``seen`` {pid: (kind, port)}."""
    while run.poll() is None:
        seen.update(_held_pids(data_dir))
        time.sleep(0.1)


@needs_held
@pytest.mark.parametrize("interrupted", [False, True], ids=["whole", "ctrl-c"])
def test_a_tiny_run_holds_one_postgres_and_one_questdb_and_leaves_no_server_and_no_port(
    snapshot, tiny_data_dir, tmp_path, interrupted
):
    """One PostgreSQL and one QuestDB for the whole run, whatever its cases; none, and no bound
    port, after it, whether it ended by itself or by a Ctrl-C (SIGINT to its whole process group)
    while its engine cases ran."""
    import glob
    import math
    import threading

    from asv.results import iter_results_for_machine

    build = str(tmp_path / "build")
    log_path = str(tmp_path / "run.log")
    with open(log_path, "w") as log:
        run, results = _start_run(snapshot, tiny_data_dir, build, log, str(tmp_path / "trace.jsonl"))
    seen = {}
    watcher = threading.Thread(target=_watch, args=(tiny_data_dir, run, seen), daemon=True)
    watcher.start()
    try:
        if interrupted:
            deadline = time.monotonic() + 900
            while run.poll() is None and time.monotonic() < deadline and "IngestIntoEngine" not in _read(log_path):
                time.sleep(0.2)
            time.sleep(3)  # inside the engine cases
            assert run.poll() is None, _read(log_path)[-3000:]
            os.killpg(run.pid, signal.SIGINT)
        status = run.wait(1800)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
    watcher.join()
    output = _read(log_path)
    kinds = sorted(kind for kind, port in seen.values())
    assert kinds == ["postgres", "questdb", "s3", "s3-proxy", "s3-proxy"], "one of each for the whole run: %s\n%s" % (
        seen,
        output[-3000:],
    )
    ports = [port for kind, port in seen.values() if port] + [
        int(p) for p in re.findall(r"on 127\.0\.0\.1:(\d+)", output)
    ]
    assert _all_gone(list(seen), ports), "left: %s" % _held_pids(tiny_data_dir)
    assert not [p for p in psutil.process_iter(["cmdline"]) if snapshot in " ".join(p.info["cmdline"] or [])], (
        "the run itself ended"
    )
    assert os.listdir(os.path.join(tiny_data_dir, ".cache", "_servers")) == [], "its servers' directory went too"
    if interrupted:
        assert status != 0
        return
    assert status == 0, output[-6000:]
    (res,) = list(iter_results_for_machine(results, MACHINE))
    measured, stored = {}, {}
    for key in res.get_all_result_keys():
        params = res.get_result_params(key)
        if key.startswith("objectstore."):
            for combo, value in zip(itertools.product(*params), res.get_result_value(key, params)):
                if tuple(combo[1:]) in STORE_CELLS:
                    stored[key.rsplit(".", 1)[1], STORE_CELLS[tuple(combo[1:])]] = value
            continue
        if not key.startswith("engines."):
            continue
        for combo, value in zip(itertools.product(*params), res.get_result_value(key, params)):
            if (
                combo[0] == "'tsbs_cpu'"
                and combo[2] == "'plain'"
                and combo[1] in ("'postgres-adbc'", "'questdb-dataframe'")
            ):
                measured[(key.split(".", 1)[1], combo[1].strip("'"))] = value
    # Time, peak memory, what a call added to the client and to the server; QuestDB's wait apart.
    assert len(measured) == 17, sorted(measured)
    assert all(value is not None and not math.isnan(value) for value in measured.values()), measured
    assert all(value > 0 for (method, _), value in measured.items() if "_added_" not in method), measured
    assert measured["IngestIntoEngine.track_server_added_ingest", "postgres-adbc"] > 0, "the table's pages"
    # Read from the object store: timed, and each read's requests and bytes counted at the proxy. The
    # whole CSV came from the store: at least its file's bytes, in a HEAD and one GET or more.
    assert len(stored) == 6 and all(value is not None and value > 0 for value in stored.values()), stored
    csv_files = glob.glob(os.path.join(tiny_data_dir, ".cache", "tiny", "nyc_taxi", "csv", "str", "*", "*", "file.csv"))
    assert stored["track_bytes_from_server", "csv"] >= min(os.path.getsize(p) for p in csv_files), stored
    assert stored["track_requests", "csv"] >= 2 and stored["track_requests", "parquet"] >= 2, stored
    # Each of their processes made its two untimed full reads from the store before it measured.
    firsts = [e for e in traced(str(tmp_path / "trace.jsonl")) if e["case"] == "ReadFromObjectStore"]
    firsts = [e for e in firsts if e["event"] == "first call"]
    assert len(firsts) == 6 and len(set(e["pid"] for e in firsts)) == 6, firsts
    assert all(e["calls"] == 2 and e["rows"] > 0 and e["key"].startswith("dsib/tiny/nyc_taxi/") for e in firsts), firsts
    # The report's engine tables: the client's peak, the server's, and the two together.
    report = subprocess.run(
        [
            sys.executable,
            "-m",
            "dsib_tools",
            "report",
            "--engines",
            "--results-dir",
            results,
            "--machine",
            MACHINE,
            "--source",
            "tsbs_cpu",
            "--variant",
            "plain",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
    )
    assert report.returncode == 0, report.stdout
    for label, engine in (
        ("PostgreSQL (ADBC)", "postgres-adbc"),
        ("QuestDB (ILP/HTTP, dataframe)", "questdb-dataframe"),
    ):
        (row,) = [row for row in table_rows(report.stdout) if row[0] == label]
        memory = row[3:5]
        for cell, operation, cls in zip(memory, ("ingest", "query"), ("IngestIntoEngine", "QueryFromEngine")):
            mib = [
                measured["%s.track_%s_added_%s" % (cls, kind, operation), engine] / 2**20
                for kind in ("client", "server")
            ]
            peak = measured["%s.peakmem_%s" % (cls, operation), engine] / 2**20
            assert cell == "%.0f + %.0f = %.0f (peak %.0f)" % (mib[0], mib[1], sum(mib), peak), (row, mib)
