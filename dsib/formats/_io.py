"""Helpers the format families share: sources as file objects, Arrow tables, categoricals."""

import io

from .. import compat
from ..fidelity import is_nullable


def opened(source):
    """Whether ``source`` is a file object its caller opened (an object in an object store): a
    reader reads it as it is and closes it."""
    return hasattr(source, "read")


def buffer(source):
    """A binary file object over bytes or a path, or the file object given."""
    if opened(source):
        return source
    return io.BytesIO(source) if isinstance(source, bytes) else open(source, "rb")


def payload(source):
    if isinstance(source, bytes):
        return source
    with open(source, "rb") as f:
        return f.read()


def arrow_source(source):
    import pyarrow as pa

    return pa.BufferReader(source) if isinstance(source, bytes) else source


def arrow_input(source):
    """An Arrow input over bytes (``BufferReader``) or over a path, opened to be read (``OSFile``),
    never memory-mapped: a reader given a map reads nothing until its frame is used, so its read
    would be timed without its I/O (pyarrow <= 8 maps a path it is given); or the file object
    given. Close it after use."""
    import pyarrow as pa

    if opened(source):
        return source
    return pa.BufferReader(source) if isinstance(source, bytes) else pa.OSFile(source, "r")


def to_text(frame):
    """Categoricals as plain text, for writers whose format has no categorical type."""
    categoricals = [c for c in frame.columns if getattr(frame[c].dtype, "name", "") == "category"]
    if not categoricals:
        return frame
    return frame.astype(dict((c, object) for c in categoricals))


def nullables_as_float(frame):
    """pandas' nullable integers and booleans as float64, NaN for a null: what a writer whose
    format cannot hold them (HDFStore: "Cannot store a column with dtype Int64") is given, as a
    user would give it (the declared loss ``nullable_float``). Any other frame as it is."""
    nullable = [c for c in frame.columns if is_nullable(frame[c].dtype)]
    if not nullable:
        return frame
    return frame.astype(dict((c, "float64") for c in nullable))


def decimals_as_float(frame):
    """Columns of ``decimal.Decimal`` as float64, NaN for a null: what a writer whose format has no
    decimal type (NumPy .npy, HDFStore's table) is given, as a user would give it (the declared
    loss ``decimal_float``). Any other frame as it is."""
    decimals = [c for c in frame.columns if _holds_decimals(frame[c])]
    if not decimals:
        return frame
    return frame.assign(**dict((c, frame[c].astype("float64")) for c in decimals))


def _holds_decimals(series):
    from decimal import Decimal

    if series.dtype != object:
        return False
    return isinstance(next((v for v in series.values if v is not None and v == v), None), Decimal)


def signed(frame):
    """Unsigned integers as signed integers of the same width, bit for bit (``astype`` wraps), for a
    format without unsigned types (ORC); a reader told their dtype (``as_told``) turns them back."""
    import numpy as np

    unsigned = [c for c in frame.columns if isinstance(frame[c].dtype, np.dtype) and frame[c].dtype.kind == "u"]
    if not unsigned:
        return frame
    return frame.assign(**dict((c, frame[c].astype(frame[c].dtype.str.replace("u", "i"))) for c in unsigned))


def categorize(frame, categoricals):
    """After a reader that cannot return categoricals (or, like pandas < 0.24's read_json, ignores
    a "category" dtype): convert what is not categorical yet, as a user would."""
    todo = [c for c in categoricals if getattr(frame[c].dtype, "name", "") != "category"]
    if not todo:
        return frame
    return frame.astype(dict((c, "category") for c in todo))


def text_dtypes(categoricals, texts):
    """``dtype=`` for pandas' text readers: categoricals as such, numeric-looking text as str.
    A categorical of numeric-looking text is read as str and converted afterwards (see
    ``categorize``), because pandas infers numbers for the categories of ``"category"``."""
    dtypes = dict((name, str) for name in texts)
    dtypes.update((name, "category") for name in categoricals if name not in texts)
    return dtypes


# A reader's ``dtypes`` hint: (column, dtype) pairs of what a reader that takes dtypes is told beyond
# datetimes and categoricals, as its user would tell it. Only a table a user brought has them
# (``data_prep.own_table.told``): "text" for every text column; integers and floats at their width
# ("int8", "uint64", "float32"); pandas' nullable integers ("Int32", "UInt8", ...) and booleans
# ("boolean") where a column has nulls; decimals ("decimal128(12, 2)"); zoned timestamps
# ("datetime64[ns, Europe/Berlin]").
TEXT = "text"


def told_kind(dtype):
    """What a hint's dtype is: "text", "decimal", "zoned", "nullable" or "number"."""
    if dtype == TEXT:
        return "text"
    if dtype.startswith("decimal"):
        return "decimal"
    if dtype.startswith("datetime64["):
        return "zoned"
    return "nullable" if is_nullable(dtype) else "number"


def told(dtypes, *kinds):
    """{column: dtype} of the hint's columns of ``kinds``."""
    return dict((name, dtype) for name, dtype in dtypes if told_kind(dtype) in kinds)


def nullable_dtypes(dtypes):
    """{column: pandas' nullable dtype} of a ``dtypes`` hint."""
    return told(dtypes, "nullable")


def text_columns(texts, dtypes):
    """The columns a reader is told are text: the numeric-looking ``texts`` and the hint's text."""
    return tuple(texts) + tuple(name for name, dtype in dtypes if dtype == TEXT and name not in texts)


def unzoned(datetimes, dtypes):
    """``datetimes`` but the hint's zoned ones, which a text reader reads as text with offsets and
    ``as_told`` converts to their zone."""
    zoned = told(dtypes, "zoned")
    return [name for name in datetimes if name not in zoned]


def pandas_dtypes(categoricals, texts, dtypes, text=str):
    """``dtype=`` for pandas' readers that take one per column: ``text_dtypes``, the numbers at
    their width, the nullable integers and booleans, and the hint's text and decimals as ``text``
    (a decimal is read as its text, made a ``Decimal`` by ``as_told``)."""
    dtypes = tuple(dtypes)
    found = text_dtypes(categoricals, texts)
    found.update((name, text) for name in told(dtypes, "text", "decimal") if name not in texts)
    found.update(told(dtypes, "number", "nullable"))
    return found


def arrow_type(dtype):
    """The Arrow type of a ``dtypes`` hint's dtype ("Int32", "int32": int32; "boolean": bool; "text":
    string; "decimal128(12, 2)": itself), or None (a zoned timestamp: read as Arrow infers it)."""
    import re

    import pyarrow as pa

    kind = told_kind(dtype)
    if kind == "text":
        return pa.string()
    if kind == "zoned":
        return None
    if kind == "decimal":
        width, precision, scale = re.match(r"decimal(\d+)\((\d+), *(\d+)\)", dtype).groups()
        return getattr(pa, "decimal" + width)(int(precision), int(scale))
    if dtype in ("boolean", "bool"):
        return pa.bool_()
    return getattr(pa, dtype.lower())()


def as_told(frame, dtypes):
    """``frame`` as a reader's user makes it after reading, told the table's ``dtypes``: numbers at
    their width and signedness, decimals from their text, zoned timestamps in their zone. Columns
    that already are as told stay as they are."""
    for name, dtype in dtypes:
        if name in frame:
            frame[name] = _AS_TOLD.get(told_kind(dtype), _as_it_is)(frame[name], dtype)
    return frame


def _as_it_is(series, dtype):
    return series


def _as_number(series, dtype):
    """At the told width: a format without unsigned integers (ORC) holds them as signed of the same
    width, which ``astype`` turns back, bit for bit."""
    return series if str(series.dtype) == dtype else series.astype(dtype)


def _as_decimal(series, dtype):
    """``Decimal`` objects of a column read as text; a float stays one (it is not the exact text:
    the format's declared loss ``decimal_float``)."""
    from decimal import Decimal

    import numpy as np

    if series.dtype.kind == "f" or _holds_decimals(series):
        return series
    nulls = np.asarray(series.isna())
    values = np.empty(len(series), dtype=object)
    values[:] = [None if null else Decimal(v) if isinstance(v, str) else v for v, null in zip(series, nulls)]
    return values


def _as_zoned(series, dtype):
    """In the told zone: instants read as UTC (naive or not) or as text with offsets."""
    import pandas as pd

    zone = dtype[dtype.index(",") + 1 : -1].strip()
    if str(getattr(series.dtype, "tz", None)) == zone:
        return series
    if getattr(series.dtype, "tz", None) is None:
        series = pd.to_datetime(series, utc=True)
    return series.dt.tz_convert(zone)


_AS_TOLD = {"number": _as_number, "decimal": _as_decimal, "zoned": _as_zoned}


def as_nullable(frame, table, dtypes):
    """``frame`` (``table.to_pandas()``) with the hint's nullable columns converted from ``table`` by
    pyarrow's ``types_mapper``, as pandas' nullable arrays (NaN-holding floats otherwise)."""
    nullable = nullable_dtypes(dtypes)
    if not nullable:
        return frame
    import pandas as pd
    import pyarrow as pa

    for name, dtype in nullable.items():
        wanted = pd.api.types.pandas_dtype(dtype)
        column = pa.Table.from_arrays([table.column(name)], [name])
        frame[name] = column.to_pandas(types_mapper=lambda t, wanted=wanted: wanted)[name]
    return frame


def arrow_table(frame):
    import pyarrow as pa

    return pa.Table.from_pandas(frame, preserve_index=False)


def plain_strings(table):
    """Dictionary columns cast to strings, for Arrow writers that take no dictionaries."""
    import pyarrow as pa

    fields = [pa.field(f.name, f.type.value_type) if pa.types.is_dictionary(f.type) else f for f in table.schema]
    return table.cast(pa.schema(fields, metadata=table.schema.metadata))


def arrow_to_pandas(table, categoricals, dtypes=(), stated=True):
    """The frame of an Arrow table, categoricals as asked. ``stated``: with the options every
    release applies alike (``compat.arrow_to_pandas_kwargs``); else as the release's defaults
    convert (the post's cases)."""
    # Dictionary columns become categoricals anyway; pyarrow < 0.12 refuses to be asked again.
    dictionaries = set(f.name for f in table.schema if str(f.type).startswith("dictionary"))
    options = compat.arrow_to_pandas_kwargs() if stated else {}
    frame = table.to_pandas(categories=[c for c in categoricals if c not in dictionaries] or None, **options)
    return as_told(as_nullable(frame, table, dtypes), dtypes) if dtypes else frame


def arrow_batches(batches, categoricals):
    """Frames of Arrow record batches, one at a time."""
    import pyarrow as pa

    for batch in batches:
        yield arrow_to_pandas(pa.Table.from_batches([batch]), categoricals)


def polars():
    """The polars module, its pool stated before its first import: one thread a CPU, as its default
    makes it today (``POLARS_MAX_THREADS``), so that every release reads with the same pool."""
    import os
    import sys

    if "polars" not in sys.modules:
        os.environ["POLARS_MAX_THREADS"] = str(os.cpu_count() or 1)
    import polars

    return polars


_DUCKDB = []


def duckdb_connection():
    """The process's one DuckDB connection (in memory), its threads stated: one a CPU, as DuckDB's
    default makes them today, so that every release reads with the same pool; and its time zone,
    UTC, in which it gives zoned timestamps to pandas (its default is the machine's)."""
    if not _DUCKDB:
        import os

        import duckdb

        connection = duckdb.connect(":memory:")
        connection.execute("SET threads TO %d" % (os.cpu_count() or 1))
        connection.execute("SET TimeZone = 'UTC'")
        _DUCKDB.append(connection)
    return _DUCKDB[0]


def duckdb_frame(relation, names=None, dtypes=()):
    """A DuckDB relation (of ``names`` alone, where given) as a pandas frame, made what a user told
    a brought table's ``dtypes`` makes of it (``as_told``; nullable columns, which DuckDB gives as
    floats with NaN or as objects, at their nullable dtype)."""
    if names is not None:
        relation = relation.project(", ".join('"%s"' % name.replace('"', '""') for name in names))
    return told_frame(relation.df(), dtypes)


def told_frame(frame, dtypes):
    """A frame a reader that takes no ``dtypes`` gave, made what a user told a brought table's
    ``dtypes`` makes of it: ``as_told``, and the nullable columns (floats with NaN, objects with
    None) at their nullable dtype."""
    if not dtypes:
        return frame
    frame = as_told(frame, dtypes)
    for name, dtype in nullable_dtypes(dtypes).items():
        if name in frame and str(frame[name].dtype) != str(dtype):
            frame[name] = frame[name].astype(dtype)
    return frame
