"""A table a user brings goes into the engines too: every engine's ingest and query cells on a
brought table (every kind of column but a nullable boolean, which QuestDB refuses), each set up and
called as asv calls it in a process of its own (the table checked once against the frame, the
timed call made), with the run's servers held as `make bench DATASET=NAME` holds them."""

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from data_prep.own_ingest import add_table
from data_prep.own_table import OWN_PROFILE
from dsib.engines import ENGINES

from .conftest import ROOT
from .own_tables import every_kind, make_file

# One engine's cells of one class on the brought table, as asv calls them in a case's process
# (setup, the timed call, teardown): their outcomes on the last line, as JSON.
ENGINE_RUN = """
import json, sys
from benchmarks import engines
cls_name, name, engine = sys.argv[1:4]
cls, outcomes = getattr(engines, cls_name), []
method = "time_ingest" if cls is engines.IngestIntoEngine else "time_query"
params = (name, engine, "plain")
case = cls()
try:
    case.setup(*params)
    getattr(case, method)(*params)
    outcome = "ok"
except NotImplementedError as exc:
    outcome = "skipped: %s" % exc
except Exception as exc:
    outcome = "failed: %s: %s" % (type(exc).__name__, exc)
finally:
    if hasattr(case, "teardown"):
        case.teardown(*params)
print(json.dumps([cls_name, list(params), outcome]))
"""


def _run_cell(env, cwd, cls_name, engine):
    proc = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", ENGINE_RUN, cls_name, "mine", engine],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.server
@pytest.mark.slow
def test_every_engine_ingests_and_queries_a_brought_table_checked(tmp_path, run_servers):
    from dsib import environment

    held = run_servers[1]
    data_dir = str(tmp_path / "data")
    table = make_file(tmp_path, "parquet", every_kind(3000).drop(columns="maybe"))
    add_table("mine", table, data_dir, partition_rows=1000, progress=False)
    env = dict(
        os.environ,
        DSIB_PROFILE=OWN_PROFILE,
        DSIB_DATASET="mine",
        DSIB_DATA_DIR=data_dir,
        DSIB_CACHE_DIR=str(tmp_path / "cache"),
        PYTHONPATH=ROOT,
    )
    env[environment.HELD_SERVERS] = held
    cells = [(c, e) for c in ("IngestIntoEngine", "QueryFromEngine") for e in ENGINES.names()]
    with ThreadPoolExecutor(2) as pool:
        outcomes = list(pool.map(lambda cell: _run_cell(env, str(tmp_path), *cell), cells))
    failed = [o for o in outcomes if o[2].startswith("failed")]
    assert not failed, "\n".join("%s%s: %s" % (c, tuple(p), o) for c, p, o in failed)
    # A cell that does not run says why: the engine cannot give this table back (the check's
    # difference or the engine's error), or its query is another engine's. An engine measured on
    # some built-in sources only (QuestDB, Spark) still measures a table you brought.
    for cls, params, outcome in outcomes:
        if outcome != "ok":
            assert "cannot give back this table: " in outcome or outcome.endswith("it is timed there"), outcome
    ran = dict((e, set(c for c, p, o in outcomes if p[1] == e and o == "ok")) for e in ENGINES.names())
    both = set(["IngestIntoEngine", "QueryFromEngine"])
    for engine in (
        "sqlite-adbc",
        "duckdb",
        "duckdb-arrow",
        "duckdb-adbc",
        "duckdb-parquet",
        "postgres-sqlalchemy",
        "postgres-copy",
        "postgres-adbc",
        "spark",
        "spark-arrow",
    ):
        assert ran[engine] == both, (engine, [o for o in outcomes if o[1][1] == engine])
