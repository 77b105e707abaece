"""Helpers the format families share: sources as file objects, Arrow tables, categoricals."""
import io


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


def to_text(frame):
    """Categoricals as plain text, for writers whose format has no categorical type."""
    categoricals = [c for c in frame.columns if getattr(frame[c].dtype, "name", "") == "category"]
    if not categoricals:
        return frame
    return frame.astype(dict((c, object) for c in categoricals))


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


def arrow_table(frame):
    import pyarrow as pa

    return pa.Table.from_pandas(frame, preserve_index=False)


def plain_strings(table):
    """Dictionary columns cast to strings, for Arrow writers that take no dictionaries."""
    import pyarrow as pa

    fields = [pa.field(f.name, f.type.value_type) if pa.types.is_dictionary(f.type) else f for f in table.schema]
    return table.cast(pa.schema(fields, metadata=table.schema.metadata))


def arrow_to_pandas(table, categoricals):
    # Dictionary columns become categoricals anyway; pyarrow < 0.12 refuses to be asked again.
    dictionaries = set(f.name for f in table.schema if str(f.type).startswith("dictionary"))
    return table.to_pandas(categories=[c for c in categoricals if c not in dictionaries] or None)


def arrow_batches(batches, categoricals):
    """Frames of Arrow record batches, one at a time."""
    import pyarrow as pa

    for batch in batches:
        yield arrow_to_pandas(pa.Table.from_batches([batch]), categoricals)
