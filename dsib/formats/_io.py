"""Helpers the format families share: sources as file objects, Arrow tables, categoricals."""

import io

from .. import compat
from ..fidelity import is_nullable


def buffer(source):
    """A binary file object over bytes or a path."""
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
    would be timed without its I/O (pyarrow <= 8 maps a path it is given). Close it after use."""
    import pyarrow as pa

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
# (``data_prep.own``): pandas' nullable integers ("Int32", "UInt8", ...) and booleans
# ("boolean") where a column has nulls, and "text" for every text column, null or not.
TEXT = "text"


def nullable_dtypes(dtypes):
    """{column: pandas' nullable dtype} of a ``dtypes`` hint (its text aside)."""
    return dict((name, dtype) for name, dtype in dtypes if dtype != TEXT)


def text_columns(texts, dtypes):
    """The columns a reader is told are text: the numeric-looking ``texts`` and the hint's text."""
    return tuple(texts) + tuple(name for name, dtype in dtypes if dtype == TEXT and name not in texts)


def pandas_dtypes(categoricals, texts, dtypes, text=str):
    """``dtype=`` for pandas' readers that take one per column: ``text_dtypes``, the nullable
    integers and booleans, and the hint's text as ``text``."""
    dtypes = tuple(dtypes)
    found = text_dtypes(categoricals, texts)
    found.update((name, text) for name, dtype in dtypes if dtype == TEXT and name not in texts)
    found.update(nullable_dtypes(dtypes))
    return found


def arrow_type(dtype):
    """The Arrow type of a ``dtypes`` hint's dtype ("Int32": int32, "boolean": bool, "text": string)."""
    import pyarrow as pa

    if dtype == TEXT:
        return pa.string()
    if dtype == "boolean":
        return pa.bool_()
    return getattr(pa, dtype.lower())()


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


def arrow_to_pandas(table, categoricals, dtypes=()):
    # Dictionary columns become categoricals anyway; pyarrow < 0.12 refuses to be asked again.
    dictionaries = set(f.name for f in table.schema if str(f.type).startswith("dictionary"))
    frame = table.to_pandas(
        categories=[c for c in categoricals if c not in dictionaries] or None, **compat.arrow_to_pandas_kwargs()
    )
    return as_nullable(frame, table, dtypes) if dtypes else frame


def arrow_batches(batches, categoricals):
    """Frames of Arrow record batches, one at a time."""
    import pyarrow as pa

    for batch in batches:
        yield arrow_to_pandas(pa.Table.from_batches([batch]), categoricals)
