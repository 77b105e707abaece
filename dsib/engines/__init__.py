"""Every database and engine the suite measures, one module per family, collected in one registry.

An engine is registered like a format (``dsib.registry``): its needs, its declared losses and
the variants it holds are data, and so are its two timed calls:

- ``ingest(session, frame, table)``: the frame into a new table (or, for an engine that stores
  its tables as files, a new file), committed;
- ``query(session, table, datetimes=(), categoricals=(), texts=())``: the whole table into a
  frame, the reader told what a file reader is told, as a user would tell it.

``connect(directory)`` opens a session on a new, empty database kept in ``directory``; ``drop``
makes room for the next ingest and ``close`` ends the session. None of the three is timed.
Libraries are imported inside the adapters, so that this package imports in every environment.
"""

from ..registry import Registered, Registry, UnknownFormatError
from . import duckdb, postgres, questdb, spark, sqlite

FAMILIES = (sqlite, duckdb, postgres, questdb, spark)


class UnknownEngineError(UnknownFormatError):
    pass


ENGINES = Registry(
    (engine for family in FAMILIES for engine in family.ENGINES), kind="engine", unknown=UnknownEngineError
)

# The table every case ingests into and queries: one table a session.
TABLE = "dsib"


def get_engine(name):
    return ENGINES[name]


__all__ = ["ENGINES", "TABLE", "UnknownEngineError", "get_engine", "Registered"]
