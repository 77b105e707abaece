"""A table a user brings (``python -m data_prep add NAME --from-file PATH``): CSV, Parquet,
Feather / Arrow IPC or JSON Lines, read in batches with bounded memory and stored in the canonical
store (checksummed ``.npy`` files, written atomically) under the profile ``own``.

What a column becomes is its *kind*, recorded in the manifest with the column's name, so that every
environment of the release matrix builds the same frame from the same files:

- ``integer``, ``float``, ``boolean``: numbers as stored (nulls: a validity file; pandas' nullable
  ``Int64`` / ``boolean`` where a column has any, NaN for floats);
- ``datetime``: datetime64[ns], NaT for nulls, with its time zone if it has one (dates become
  midnight). Text formats carry types as pyarrow infers them: a CSV's "Z" or offset times come in
  zoned UTC, JSON Lines' naive (UTC clock);
- ``text`` and ``categorical``: UTF-8 text, ``None`` for nulls, categorical where the input said so.

Columns of any other type (nested lists, structs, maps, binary, decimals, durations) are left
out, each named with its type, unless the user asks for ``strict`` (then nothing is stored).

Reading the store needs numpy only (the benchmark environments' oldest); ingesting needs pyarrow.
"""

import os
import re
from collections import OrderedDict, namedtuple

import numpy as np

OWN_PROFILE = "own"
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
KINDS = ("integer", "float", "boolean", "datetime", "text", "categorical")
TEXT_KINDS = ("text", "categorical")
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,62}$")
_NAT = np.iinfo(np.int64).min
# What --strict refuses besides left-out columns: a format that holds the table only by turning a
# kind into another (dsib.fidelity.ALLOWED_LOSSES; HDF5 writes nullable integers as floats).
STRICT_REFUSES = ("nullable_float",)


class TableError(ValueError):
    """A table that cannot be brought in as asked; the message names the file or the column."""


# name: the column's name in the frame; key: its files' stem in the store; tz: a datetime's zone.
OwnColumn = namedtuple("OwnColumn", ["name", "key", "kind", "dtype", "tz", "nulls"])


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


# Ingest (the tools' environment: pyarrow) --------------------------------------------------------


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


def add_table(
    name, path, data_dir=None, fmt=None, strict=False, partition_rows=PARTITION_ROWS, progress=True, reserved=()
):
    """Bring the table at ``path`` into the store as dataset ``name`` at profile ``own``. Returns a
    summary: the store's path, rows, partitions, columns kept and left out, and variants."""
    import itertools

    import pyarrow as pa

    from .progress import progress_bar
    from .store import default_data_dir, file_sha256, write_dataset

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

    def partition(pending, number):
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
        return "part-%05d" % number, files

    def partitions():
        pending, pending_rows, number = [], 0, 0
        for batch in itertools.chain([first], batches):
            if not batch.schema.equals(schema, check_metadata=False):
                raise TableError("%s changes its columns' types part-way (%s, then %s)" % (path, schema, batch.schema))
            while batch.num_rows:
                take = batch.slice(0, partition_rows - pending_rows)
                batch = batch.slice(take.num_rows)
                pending.append(take)
                pending_rows += take.num_rows
                if pending_rows == partition_rows:
                    yield partition(pending, number)
                    number += 1
                    pending, pending_rows = [], 0
        if pending_rows or number == 0:
            yield partition(pending, number)

    def finish(manifest):
        described = [c._replace(nulls=c.key in nulls) for c in columns]
        manifest["table"] = {
            "columns": [c._asdict() for c in described],
            "left_out": [{"name": n, "type": t} for n, t in left_out],
            "strict": bool(strict),
        }

    source = {"kind": "file", "format": fmt, "name": os.path.basename(path), "sha256": file_sha256(path)}
    rebuild = "python -m data_prep add %s --from-file %s --format %s%s" % (
        name,
        os.path.abspath(path),
        fmt,
        " --strict" if strict else "",
    )
    metadata = {
        "source": source,
        "rebuild": rebuild,
        "numpy": np.__version__,
        "description": "a table brought from %s" % os.path.basename(path),
    }
    bar = progress_bar(None, "add %s" % name, progress)
    try:
        written = write_dataset(data_dir, name, OWN_PROFILE, partitions(), metadata, finish=finish)
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


# Read (every environment: numpy, then pandas) ----------------------------------------------------


def open_table(name, data_dir=None, verify="on_load"):
    """(the table's spec, its verified store) of the table brought as ``name``."""
    from .store import open_dataset

    store = open_dataset(name, OWN_PROFILE, data_dir, verify=verify)
    if "table" not in store.manifest:
        raise TableError("%s holds no brought table's description" % store.path)
    return OwnTable(name, store.manifest), store


def open_manifest(path):
    import json

    from .store import MANIFEST

    with open(os.path.join(path, MANIFEST)) as f:
        return json.load(f)


def decode_text(ends, data, valid=None):
    """An object array of str from where each value ends in the text (in characters) and the
    text's UTF-8 bytes (None where not ``valid``)."""
    whole = data.tobytes().decode("utf-8")
    ends = ends.tolist()
    values = np.empty(len(ends), dtype=object)
    values[:] = [whole[a:b] for a, b in zip([0] + ends[:-1], ends)]
    if valid is not None:
        values[~valid] = None
    return values


class OwnTable(object):
    """What the suite needs of a brought table (as ``datasets.DatasetSpec`` gives of a built-in one),
    read from its manifest: its partitions, variants, read hints, and the frame of a partition."""

    profile = OWN_PROFILE

    def __init__(self, name, manifest):
        self.name = name
        self.manifest = manifest
        self.table_columns = [OwnColumn(**c) for c in manifest["table"]["columns"]]
        self.left_out = [(c["name"], c["type"]) for c in manifest["table"]["left_out"]]
        self.partitions = tuple(p["name"] for p in manifest["partitions"])
        self.description = manifest.get("description", "")
        self.datetimes = tuple(c.name for c in self.table_columns if c.kind == "datetime")
        self.numeric_text = ()
        # Brought with --strict: a format that holds the table only with one of these declared
        # losses (dsib.fidelity) skips instead of running with it.
        self.refused_losses = STRICT_REFUSES if manifest["table"].get("strict") else ()

    @property
    def text_columns(self):
        return tuple(c.name for c in self.table_columns if c.kind in TEXT_KINDS)

    @property
    def variants(self):
        """``plain`` (no text), ``str`` (text, categoricals too, as str), ``cat`` (text as
        categoricals); ``plain`` alone for a table without text."""
        return ("plain", "str", "cat") if self.text_columns else ("plain",)

    def zoned(self, variant):
        """Whether the variant's frame holds a zoned (tz-aware) timestamp column."""
        self._check_variant(variant)
        return any(c.kind == "datetime" and c.tz for c in self.table_columns)

    def _check_variant(self, variant):
        if variant not in self.variants:
            why = " (it has no text column)" if not self.text_columns else ""
            raise ValueError(
                "table %s has no variant %r%s; it has %s" % (self.name, variant, why, ", ".join(self.variants))
            )

    def columns_of(self, variant):
        """(column, kind in the frame) of ``variant``."""
        self._check_variant(variant)
        out = []
        for c in self.table_columns:
            if c.kind in TEXT_KINDS:
                if variant == "plain":
                    continue
                out.append((c, "categorical" if variant == "cat" else "text"))
            else:
                out.append((c, c.kind))
        return out

    def categorizable(self):
        """Text columns that ``cat`` holds as categoricals of ``str``'s values: all of them."""
        return self.text_columns

    def read_hints(self, variant):
        """What a reader is told, as its user would tell it: datetimes and categoricals as for a
        built-in dataset, and ``dtypes`` (which only a brought table has): (column, dtype) pairs of
        pandas' nullable integers and booleans (``Int32``, ``boolean``...) where a column has
        nulls, and ``text`` for each text column (a reader that infers types would make numbers of
        text that looks numeric, or floats of a column of nulls)."""
        columns = self.columns_of(variant)
        dtypes = []
        for c, kind in columns:
            if c.kind in TEXT_KINDS:
                dtypes.append((c.name, "text"))
            elif c.nulls and c.kind in ("integer", "boolean"):
                dtypes.append((c.name, nullable_dtype(c)))
        return {
            "datetimes": tuple(c.name for c, _ in columns if c.kind == "datetime"),
            "categoricals": tuple(c.name for c, kind in columns if kind == "categorical"),
            "texts": (),
            "dtypes": tuple(dtypes),
        }

    def data_bytes(self, store, partition, variant, rows=None):
        """The logical bytes of the frame of ``variant`` (``store.data_bytes``): numbers at their
        width, a timestamp 8 bytes, text its UTF-8 bytes, a categorical its codes and categories."""
        from .store import text_data_bytes

        total = 0
        for column, kind in self.columns_of(variant):
            if column.kind not in TEXT_KINDS:
                count = store.rows(partition) if rows is None else min(rows, store.rows(partition))
                total += count * np.dtype(column.dtype).itemsize
            elif kind == "categorical":
                valid = (
                    store.load(partition, column.key + ".valid", rows)
                    if store.has(partition, column.key + ".valid")
                    else None
                )
                values = decode_text(
                    store.load(partition, column.key, rows), store.load(partition, column.key + ".text"), valid
                )
                total += text_data_bytes(values, categorical=True)
            else:
                ends = store.load(partition, column.key, rows)
                data = store.load(partition, column.key + ".text")
                # The values' characters end at ends[-1]: their UTF-8 bytes are the text up to there.
                whole = data.tobytes().decode("utf-8")
                total += len(whole[: int(ends[-1])].encode("utf-8")) if len(ends) else 0
        return int(total)

    def frame(self, store, partition, variant, rows=None):
        import pandas as pd

        data = OrderedDict()
        for column, kind in self.columns_of(variant):
            data[column.name] = _series(store, partition, column, kind, rows)
        return pd.DataFrame(data, columns=list(data))


def _series(store, partition, column, kind, rows):
    import pandas as pd

    valid = store.load(partition, column.key + ".valid", rows) if store.has(partition, column.key + ".valid") else None
    if column.kind in TEXT_KINDS:
        values = decode_text(
            store.load(partition, column.key, rows), store.load(partition, column.key + ".text"), valid
        )
        return pd.Categorical(values) if kind == "categorical" else values
    values = store.load(partition, column.key, rows)
    if column.kind == "datetime":
        index = pd.DatetimeIndex(values)
        return index.tz_localize("UTC").tz_convert(column.tz) if column.tz else index
    if not column.nulls or column.kind == "float":
        return values
    # A table-wide dtype: a partition without nulls is nullable too when another has some.
    mask = np.zeros(len(values), dtype=bool) if valid is None else ~valid
    return nullable_array(column, values, mask)


def nullable_dtype(column):
    """The name of pandas' nullable dtype of an integer or boolean column with nulls (``Int32``,
    ``UInt8``, ``boolean``): what ``nullable_array`` makes."""
    if column.kind == "boolean":
        return "boolean"
    dtype = np.dtype(column.dtype)
    return "%sInt%d" % ("U" if dtype.kind == "u" else "", dtype.itemsize * 8)


def nullable_array(column, values, mask):
    """pandas' nullable array of an integer or boolean column with nulls (``mask``: True where null)."""
    import pandas as pd

    arrays = getattr(pd, "arrays", None)
    kind = "BooleanArray" if column.kind == "boolean" else "IntegerArray"
    if arrays is None or not hasattr(arrays, kind):
        raise NotImplementedError(
            "column %r: %s with nulls need pandas' %s (pandas >= %s), and this is pandas %s"
            % (
                column.name,
                "booleans" if column.kind == "boolean" else "integers",
                kind,
                "1.0" if column.kind == "boolean" else "0.24",
                pd.__version__,
            )
        )
    return getattr(arrays, kind)(values, mask)
