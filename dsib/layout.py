"""What a format's file holds besides its data, read from the file itself: its codec, its index,
its timestamp unit, its format version.

A series measures the same work in every release only if every release writes the same file.
``describe(fmt, path)`` says what a file is, so that a test can show the files of the oldest and
the newest releases alike, and the post's cases (written with each release's defaults) can show
where a default changed the file. Every field is read from the file's bytes or its metadata,
never from the options the writer was given.
"""

import json
import re

# ORC's postscript names its codec by number (orc_proto.proto, CompressionKind).
ORC_CODECS = ("none", "zlib", "snappy", "lzo", "lz4", "zstd")


def _units(schema):
    """The timestamp units of an Arrow schema's fields, sorted ("us", "ns", ...)."""
    found = set()
    for field in schema:
        match = re.match(r"timestamp\[(\w+)", str(field.type))
        if match:
            found.add(match.group(1))
    return sorted(found)


def _pandas_index(metadata):
    """The index the pandas metadata of an Arrow schema names: "none", "range (metadata)", or the
    stored columns' names."""
    pandas = (metadata or {}).get(b"pandas")
    if not pandas:
        return "none"
    stored = json.loads(pandas.decode("utf-8"))["index_columns"]
    if not stored:
        return "none"
    return ", ".join("range (metadata)" if isinstance(c, dict) else "column %s" % c for c in stored)


def _parquet(path):
    import pyarrow.parquet as pq

    found = pq.ParquetFile(path)
    meta = found.metadata
    codecs = set()
    for group in range(meta.num_row_groups):
        for column in range(meta.num_columns):
            codecs.add(str(meta.row_group(group).column(column).compression).lower())
    schema = found.schema.to_arrow_schema()
    return {
        "codec": ", ".join(sorted(codecs)),
        "index": _pandas_index(schema.metadata),
        "timestamp unit": ", ".join(_units(schema)),
        "format version": str(meta.format_version),
        "columns": meta.num_columns,
    }


def _arrow_ipc(path):
    """An IPC file or stream: its schema, and whether its buffers are compressed. pyarrow tells no
    codec, so the table is written again uncompressed, in the same batches, by the same release:
    a compressed file (each buffer prefixed by its length, compressed or not) has another size."""
    import os

    import pyarrow as pa

    with pa.OSFile(path, "r") as f:
        try:
            table, writer = pa.ipc.open_file(f).read_all(), pa.RecordBatchFileWriter
        except pa.ArrowInvalid:  # a stream
            f.seek(0)
            table, writer = pa.ipc.open_stream(f).read_all(), pa.RecordBatchStreamWriter
    sink = pa.BufferOutputStream()
    plain = writer(sink, table.schema)
    plain.write_table(table)
    plain.close()
    return {
        "codec": "none" if os.path.getsize(path) == len(sink.getvalue()) else "compressed",
        "index": _pandas_index(table.schema.metadata),
        "timestamp unit": ", ".join(_units(table.schema)),
        "columns": table.num_columns,
    }


def _varint(data, at):
    value, shift = 0, 0
    while True:
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at, shift = at + 1, shift + 7
        if not byte & 0x80:
            return value, at


def _orc(path):
    """ORC's codec from its postscript (the file's last byte is the postscript's length; field 2
    of the postscript is the codec), the same in every pyarrow release."""
    with open(path, "rb") as f:
        f.seek(-256, 2)
        tail = f.read()
    postscript = tail[-1 - tail[-1] : -1]
    at, codec = 0, 0
    while at < len(postscript):
        key, at = _varint(postscript, at)
        if key & 7 == 2:  # length-delimited (the magic "ORC", the version list): skipped
            length, at = _varint(postscript, at)
            at += length
            continue
        value, at = _varint(postscript, at)
        if key >> 3 == 2:
            codec = value
    return {"codec": ORC_CODECS[codec] if codec < len(ORC_CODECS) else str(codec)}


def _hdf5(path):
    import tables

    with tables.open_file(path, mode="r") as h5:
        levels = sorted(set(str(node.filters.complevel) for node in h5.walk_nodes("/", "Leaf")))
    return {"codec": "none" if levels == ["0"] else "complevel " + ", ".join(levels)}


def _pickle(path):
    with open(path, "rb") as f:
        head = f.read(2)
    return {"protocol": head[1] if head[:1] == b"\x80" else "< 2"}


def _npy(path):
    with open(path, "rb") as f:
        head = f.read(8)
    return {"npy version": "%d.%d" % (head[6], head[7])}


DESCRIBE = {"parquet": _parquet, "arrow": _arrow_ipc, "orc": _orc, "hdf5": _hdf5, "pickle": _pickle, "numpy": _npy}


def describe(fmt, path):
    """{field: value} of what ``fmt``'s file at ``path`` holds besides its data; {} for a family
    whose file says nothing more (CSV, JSON, msgpack)."""
    reader = DESCRIBE.get(fmt.family)
    return reader(path) if reader else {}


# The numbers a benchmark can record of a layout (asv's track_ values are numbers): a timestamp unit
# as the digits of a second it keeps, a codec by its place here.
UNIT_DIGITS = {"s": 0, "ms": 3, "us": 6, "ns": 9}
CODECS = ("none", "uncompressed", "snappy", "gzip", "brotli", "lz4", "lz4_raw", "zstd", "zlib", "compressed")


def as_numbers(described):
    """{field: number} of ``describe``'s fields that asv can record: the timestamp unit's digits,
    the index columns stored as data, the format version, the codec's place in ``CODECS``."""
    found = {}
    units = [u for u in described.get("timestamp unit", "").split(", ") if u]
    if len(units) == 1:
        found["timestamp digits"] = UNIT_DIGITS[units[0]]
    if "index" in described:
        found["index columns"] = described["index"].count("column ")
    if "format version" in described:
        found["format version"] = float(described["format version"])
    if described.get("codec") in CODECS:
        found["codec"] = CODECS.index(described["codec"])
    return found


def read_by_system_calls(read, path):
    """The bytes this process read by system calls during ``read()`` (``rchar`` of
    ``/proc/self/io``, every thread's) over the size of the file at ``path``: about 1 where the
    reader read the file, about 0 where it mapped it. None where the kernel keeps no such count."""
    import os

    def rchar():
        with open("/proc/self/io") as f:
            return int(dict(line.split(": ") for line in f.read().splitlines())["rchar"])

    try:
        before = rchar()
    except (IOError, OSError, KeyError):
        return None
    read()
    return float(rchar() - before) / os.path.getsize(path)


def off_thread(call):
    """The fraction of ``call()``'s CPU time spent by threads other than the calling one (of this
    process, those that ended during the call included: ``getrusage``'s process total less the
    calling thread's): about 0 where a reader parses on the caller's thread, up to 1 where a
    pool does the work. None where the system keeps no per-thread count."""
    import resource

    if not hasattr(resource, "RUSAGE_THREAD"):
        return None

    def cpu(who):
        used = resource.getrusage(who)
        return used.ru_utime + used.ru_stime

    process, thread = cpu(resource.RUSAGE_SELF), cpu(resource.RUSAGE_THREAD)
    call()
    process, thread = cpu(resource.RUSAGE_SELF) - process, cpu(resource.RUSAGE_THREAD) - thread
    return max(0.0, process - thread) / process if process > 0 else 0.0
