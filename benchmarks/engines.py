"""Databases and engines (``dsib.engines``): a frame into a new table, and a whole table into a frame.

Every engine's cell is built once, as a file is (``dsib.cells``): the engine ingests the cell's
frame into a new database and queries it back against that frame, before any case times it. A
case whose check failed fails; an engine missing from the environment skips.
"""
import os
import shutil

from dsib import cases
from dsib.engines import ENGINES, TABLE
from dsib.registry import installed_versions

from . import CELLS, PROFILE, Cell, hints, loads_once, series

ENGINE_PARAM_NAMES = ["source", "engine", "variant"]
MEASURES = Cell.measures + ("dsib.engines",)


def engine_ready(operation, source, engine, variant):
    """In ``setup``: the engine of a cell that runs, its round trip checked and its libraries warmed
    up; asv's skip (``NotImplementedError``) with the reason for a cell that cannot. The engine's
    libraries are imported here, in the case's process, not by the suite's import in asv's
    forkserver: every other case's peak memory stays without them."""
    found = ENGINES[engine]
    reason = cases.engine_skip_reason(operation, source, engine, variant, PROFILE, installed_versions(found.packages))
    if reason:
        raise NotImplementedError(reason)
    checked = CELLS.checked_table(source, found, variant)
    scratch = CELLS.scratch("warm-up-")
    try:
        found.warm_up(scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return found, checked


class IngestIntoEngine(Cell):
    """The frame into a new table of a new database, committed: the engine's own path in
    (``to_sql``, ``executemany``, ``adbc_ingest``, a registered frame copied into a table, a
    Parquet file written by the engine). Each sample starts from an empty database."""

    version = series(1)
    measures = MEASURES
    operation = "ingest"
    params, param_names = cases.engine_params(operation), ENGINE_PARAM_NAMES
    rounds = 1
    repeat = (1, 3, 1.0)

    @loads_once
    def _load(self, source, engine, variant):
        self.engine, _ = engine_ready(self.operation, source, engine, variant)
        self.frame = CELLS.frame(source, variant)

    def setup(self, source, engine, variant):
        self._load(source, engine, variant)
        self.directory = CELLS.scratch("ingest-")
        self.session = self.engine.connect(self.directory)

    def teardown(self, source, engine, variant):
        # asv runs teardown after every sample: each sample's database goes with it.
        if getattr(self, "directory", None):
            self.engine.close(self.session)
            shutil.rmtree(self.directory, ignore_errors=True)
            self.directory = None

    def time_ingest(self, source, engine, variant):
        self.engine.ingest(self.session, self.frame, TABLE)

    def peakmem_ingest(self, source, engine, variant):
        self.engine.ingest(self.session, self.frame, TABLE)


class QueryFromEngine(Cell):
    """The whole table into a frame: the engine's own path out (``read_sql``, the driver's
    cursor, ``fetch_arrow_table().to_pandas()``, ``.df()``, a Parquet file read by the engine),
    the reader told the datetimes and categoricals as a file reader is."""

    version = series(1)
    measures = MEASURES
    operation = "query"
    params, param_names = cases.engine_params(operation), ENGINE_PARAM_NAMES
    rounds = 1
    repeat = (1, 3, 1.0)

    @loads_once
    def setup(self, source, engine, variant):
        self.engine, checked = engine_ready(self.operation, source, engine, variant)
        self.hints = hints(source, variant)
        # The case's own copy: the cached database stays as it was built and checked, and a
        # server started on it (PostgreSQL's) never shares its directory with another run's.
        copy = os.path.join(CELLS.scratch("query-"), "db")
        shutil.copytree(checked["path"], copy, symlinks=True)
        self.session = self.engine.connect(copy)

    def time_query(self, source, engine, variant):
        self.engine.query(self.session, TABLE, **self.hints)

    def peakmem_query(self, source, engine, variant):
        self.engine.query(self.session, TABLE, **self.hints)
