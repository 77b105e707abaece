"""Bringing a user's table in (``python -m data_prep add NAME --from-file PATH``): CSV, Parquet,
Feather / Arrow IPC or JSON Lines, read in batches with bounded memory, checked (its name, its
columns' types, ``strict``) and stored in the canonical store under the profile ``brought``.

Ingesting runs in the tools' environment: it needs pyarrow.
"""

import os
import re
from collections import OrderedDict

import numpy as np

from .own_table import OWN_PROFILE, OwnColumn, OwnTable, TableError, open_manifest

PARTITION_ROWS = 1000000
# CSV and JSON Lines: column types are inferred from the file's first SAMPLE_BYTES, then the file
# is read BLOCK_BYTES at a time (pyarrow's streaming readers held ~40 % of a 700 MB CSV at once
# with 16 MiB blocks, 118 MB in all with 1 MiB ones).
SAMPLE_BYTES = 1 << 24
BLOCK_BYTES = 1 << 20
INPUT_FORMATS = OrderedDict(
    [
        ("csv", (".csv", ".csv.gz", ".tsv")),
        ("parquet", (".parquet", ".parq", ".pq")),
        ("feather", (".feather", ".arrow", ".ipc", ".arrows")),
        ("jsonl", (".jsonl", ".ndjson", ".json")),
    ]
)
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,62}$")
_NAT = np.iinfo(np.int64).min


def check_name(name, reserved=()):
    if not _NAME.match(name or ""):
        raise TableError(
            "a table's name is lower-case letters, digits and _, starting with a letter "
            "(at most 63 characters): %r is not" % (name,)
        )
    if name in reserved:
        raise TableError("%r is a built-in dataset's name; give your table another" % name)
    return name


def input_format(path, given=None):
    """The input format of ``path``: ``given``, else its extension's."""
    if given:
        if given not in INPUT_FORMATS:
            raise TableError("unknown input format %r; dsib reads %s" % (given, ", ".join(INPUT_FORMATS)))
        return given
    lower = path.lower()
    for name, extensions in INPUT_FORMATS.items():
        if lower.endswith(extensions):
            return name
    raise TableError(
        "cannot tell the format of %s from its name; say it with --format (%s)" % (path, ", ".join(INPUT_FORMATS))
    )


def _batches(path, fmt, batch_rows):
    """The file's record batches, a bounded number of rows at a time."""
    import pyarrow as pa

    if fmt == "csv":
        from pyarrow import csv

        parse = csv.ParseOptions(delimiter="\t") if path.lower().endswith(".tsv") else csv.ParseOptions()
        # An empty field is a null, as pandas reads one; a quoted empty string ("") stays text.
        convert = dict(strings_can_be_null=True, quoted_strings_can_be_null=False)
        sample = csv.read_csv(
            pa.BufferReader(_sample(path)), parse_options=parse, convert_options=csv.ConvertOptions(**convert)
        )
        reader = csv.open_csv(
            path,
            read_options=csv.ReadOptions(block_size=BLOCK_BYTES),
            parse_options=parse,
            convert_options=csv.ConvertOptions(column_types=_typed(sample.schema), **convert),
        )
        for batch in reader:
            yield batch
    elif fmt == "parquet":
        import pyarrow.parquet as pq

        for batch in pq.ParquetFile(path).iter_batches(batch_size=batch_rows):
            yield batch
    elif fmt == "feather":
        source = pa.memory_map(path)
        try:
            reader = pa.ipc.open_file(source)
            batches = (reader.get_batch(i) for i in range(reader.num_record_batches))
        except pa.ArrowInvalid:
            source.seek(0)
            batches = pa.ipc.open_stream(source)
        for batch in batches:
            for offset in range(0, batch.num_rows, batch_rows):
                yield batch.slice(offset, batch_rows)
    else:
        from pyarrow import json

        sample = json.read_json(pa.BufferReader(_sample(path)))
        parse = json.ParseOptions(explicit_schema=_typed(sample.schema), unexpected_field_behavior="error")
        for batch in json.open_json(path, read_options=json.ReadOptions(block_size=BLOCK_BYTES), parse_options=parse):
            yield batch


def _checked(batches, path, fmt):
    """``batches``, a file pyarrow cannot read as ``fmt`` (at any point) a TableError."""
    import pyarrow as pa

    try:
        for batch in batches:
            yield batch
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise TableError("pyarrow cannot read %s as %s: %s" % (path, fmt, exc))


def _sample(path):
    """The file's first SAMPLE_BYTES (decompressed), up to the end of its last whole line."""
    import pyarrow as pa

    with pa.input_stream(path) as f:
        head = f.read(SAMPLE_BYTES)
    if len(head) == SAMPLE_BYTES and b"\n" in head:
        head = head[: head.rindex(b"\n") + 1]
    return head


def _typed(schema):
    """The sample's schema, a column with no value in the sample taken as text."""
    import pyarrow as pa

    return pa.schema([pa.field(f.name, pa.string()) if pa.types.is_null(f.type) else f for f in schema])


def kind_of(arrow_type):
    """The kind a column of ``arrow_type`` is stored as, or None where dsib does not take it."""
    import pyarrow.types as t

    if t.is_integer(arrow_type):
        return "integer"
    if t.is_floating(arrow_type):
        return "float"
    if t.is_boolean(arrow_type):
        return "boolean"
    if t.is_timestamp(arrow_type) or t.is_date(arrow_type):
        return "datetime"
    if t.is_string(arrow_type) or t.is_large_string(arrow_type):
        return "text"
    if t.is_decimal(arrow_type):
        return "decimal"
    if t.is_dictionary(arrow_type) and (t.is_string(arrow_type.value_type) or t.is_large_string(arrow_type.value_type)):
        return "categorical"
    return None


def plan_columns(schema, strict=False):
    """(the columns stored, the columns left out as (name, type)) of an Arrow schema."""
    import pyarrow as pa

    kept, left_out = [], []
    names = list(schema.names)
    if len(set(names)) != len(names):
        raise TableError(
            "the table has two columns of one name: %s" % sorted(set(n for n in names if names.count(n) > 1))
        )
    for i, field in enumerate(schema):
        kind = kind_of(field.type)
        if kind is None:
            left_out.append((field.name, str(field.type)))
            continue
        tz = field.type.tz if pa.types.is_timestamp(field.type) else None
        if kind in ("integer", "float"):
            dtype = np.dtype(field.type.to_pandas_dtype()).str
        elif kind == "decimal":
            dtype = str(field.type)  # "decimal128(12, 2)": what its readers are told
        else:
            dtype = {"boolean": "|b1", "datetime": "<M8[ns]"}.get(kind, "text")
        kept.append(OwnColumn(str(field.name), "c%d" % i, kind, dtype, tz, False))
    if left_out and strict:
        raise TableError(
            "dsib cannot store %s (strict: nothing stored)" % "; ".join("column %r of type %s" % c for c in left_out)
        )
    if not kept:
        raise TableError(
            "no column of the table is one dsib can store (left out: %s)" % "; ".join("%r: %s" % c for c in left_out)
        )
    return kept, left_out


def _column_files(column, chunked):
    """The store's arrays of one column of one partition: {file key: array}."""
    import pyarrow as pa
    import pyarrow.compute as pc

    array = chunked.combine_chunks() if isinstance(chunked, pa.ChunkedArray) else chunked
    files = {}
    nulls = array.null_count > 0
    if nulls and column.kind not in ("float", "datetime"):  # those hold theirs: NaN, NaT
        files[column.key + ".valid"] = array.is_valid().to_numpy(zero_copy_only=False)
    if column.kind in ("integer", "boolean"):
        filled = array.fill_null(False if column.kind == "boolean" else 0) if nulls else array
        files[column.key] = filled.to_numpy(zero_copy_only=False).astype(column.dtype, copy=False)
    elif column.kind == "float":
        files[column.key] = array.to_numpy(zero_copy_only=False).astype(column.dtype, copy=False)
    elif column.kind == "datetime":
        if pa.types.is_date(array.type):
            array = array.cast(pa.timestamp("s"))
        try:
            nanos = array.cast(pa.timestamp("ns", getattr(array.type, "tz", None)))
        except pa.ArrowInvalid as exc:
            raise TableError("column %r has a datetime pandas cannot hold at nanoseconds: %s" % (column.name, exc))
        ints = nanos.cast(pa.int64())
        ints = ints.fill_null(_NAT) if nulls else ints
        files[column.key] = ints.to_numpy(zero_copy_only=False).view("M8[ns]")
    else:
        if column.kind == "categorical":
            array = array.dictionary_decode()
        elif column.kind == "decimal":  # its exact text ("12.30"), which the frame makes Decimals of
            array = array.cast(pa.string())
        text = array.cast(pa.large_string()).fill_null("") if nulls else array.cast(pa.large_string())
        # Where each value ends, in characters (not bytes): numpy alone slices the decoded whole
        # back into values.
        ends = np.cumsum(pc.utf8_length(text).to_numpy(zero_copy_only=False).astype(np.int64))
        byte_offsets = np.frombuffer(text.buffers()[1], dtype=np.int64)[text.offset : text.offset + len(text) + 1]
        buffer = text.buffers()[2]
        data = (
            np.frombuffer(buffer, dtype=np.uint8)[byte_offsets[0] : byte_offsets[-1]]
            if buffer
            else np.zeros(0, np.uint8)
        )
        files[column.key] = ends
        files[column.key + ".text"] = np.array(data)
    return files


def _regrouped(batches, schema, partition_rows, path):
    """``batches`` (all of ``schema``) as lists of batches of ``partition_rows`` rows each, the last
    with what is left; one empty list where there are no rows."""
    pending, pending_rows, count = [], 0, 0
    for batch in batches:
        if not batch.schema.equals(schema, check_metadata=False):
            raise TableError("%s changes its columns' types part-way (%s, then %s)" % (path, schema, batch.schema))
        while batch.num_rows:
            take = batch.slice(0, partition_rows - pending_rows)
            batch = batch.slice(take.num_rows)
            pending.append(take)
            pending_rows += take.num_rows
            if pending_rows == partition_rows:
                yield pending
                count += 1
                pending, pending_rows = [], 0
    if pending_rows or count == 0:
        yield pending


def _metadata(name, path, fmt, strict):
    """What the store's manifest says of a brought table: its source file and how to bring it again."""
    from .store import file_sha256

    return {
        "source": {"kind": "file", "format": fmt, "name": os.path.basename(path), "sha256": file_sha256(path)},
        "rebuild": "python -m data_prep add %s --from-file %s --format %s%s"
        % (name, os.path.abspath(path), fmt, " --strict" if strict else ""),
        "numpy": np.__version__,
        "description": "a table brought from %s" % os.path.basename(path),
    }


def add_table(
    name, path, data_dir=None, fmt=None, strict=False, partition_rows=PARTITION_ROWS, progress=True, reserved=()
):
    """Bring the table at ``path`` into the store as dataset ``name`` at profile ``brought``. Returns a
    summary: the store's path, rows, partitions, columns kept and left out, and variants."""
    import itertools

    import pyarrow as pa

    from .progress import progress_bar
    from .store import default_data_dir, write_dataset

    check_name(name, reserved)
    if not os.path.isfile(path):
        raise TableError("no such file: %s" % path)
    fmt = input_format(path, fmt)
    data_dir = data_dir or default_data_dir()
    batches = _checked(_batches(path, fmt, min(partition_rows, 1 << 16)), path, fmt)
    first = next(batches, None)
    if first is None:
        raise TableError("%s holds no rows" % path)
    schema = first.schema
    columns, left_out = plan_columns(schema, strict)  # before anything is written
    nulls, rows = set(), [0]
    bar = progress_bar(None, "add %s" % name, progress)

    def partitions():
        for number, pending in enumerate(_regrouped(itertools.chain([first], batches), schema, partition_rows, path)):
            table = pa.Table.from_batches(pending, schema=schema)
            files = {}
            for column in columns:
                made = _column_files(column, table.column(column.name))
                if column.key + ".valid" in made:
                    nulls.add(column.key)
                files.update(made)
            rows[0] += table.num_rows
            if bar is not None:
                bar.update(table.num_rows)
            yield "part-%05d" % number, files

    def finish(manifest):
        described = [c._replace(nulls=c.key in nulls) for c in columns]
        manifest["table"] = {
            "columns": [c._asdict() for c in described],
            "left_out": [{"name": n, "type": t} for n, t in left_out],
            "strict": bool(strict),
        }

    try:
        written = write_dataset(
            data_dir, name, OWN_PROFILE, partitions(), _metadata(name, path, fmt, strict), finish=finish
        )
    finally:
        if bar is not None:
            bar.close()
    spec = OwnTable(name, open_manifest(written))
    return {
        "path": written,
        "rows": rows[0],
        "columns": [c.name for c in spec.table_columns],
        "left_out": left_out,
        "variants": spec.variants,
        "partitions": len(spec.partitions),
    }
