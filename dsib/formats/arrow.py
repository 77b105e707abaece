"""Arrow: Feather v2, the IPC file and stream formats, and the IPC file memory-mapped."""

import io

from .. import compat
from ..registry import Format, Needs, Reader
from . import _io

PANDAS = Needs("pandas")
PYARROW = Needs("pyarrow")


# Feather v2 as to_feather writes it in every release that has it (pyarrow >= 0.17), stated:
# lz4, record batches of 64Ki rows, no index.
FEATHER_CHUNK_ROWS = 64 * 1024
# Every IPC reader of a path reads the file (pyarrow <= 8 maps a path it is given, and later ones
# do not); the memory-mapped read is a format of its own, ``arrow-file-mmap``.
READ = (("memory map", "no: read"), ("threads", "Arrow's pool"))


def _feather_write(frame, chunksize=FEATHER_CHUNK_ROWS):
    import pyarrow.feather as feather

    buf = io.BytesIO()
    feather.write_feather(_io.arrow_table(frame), buf, compression="lz4", chunksize=chunksize, version=2)
    return buf.getvalue()


def _feather_table(source, **options):
    import pyarrow.feather as feather

    with _io.arrow_input(source) as f:
        return feather.read_table(f, **dict(options, **compat.taken(feather.read_table, use_threads=True)))


def _feather_read(source, datetimes=(), categoricals=(), texts=(), dtypes=()):
    return _io.arrow_to_pandas(_feather_table(source), categoricals)


def _feather_columns(path, names, datetimes=(), categoricals=(), texts=(), dtypes=()):
    return _io.arrow_to_pandas(_feather_table(path, columns=list(names)), categoricals)


def _ipc_writer(kind):
    def write(frame):
        import pyarrow as pa

        table = _io.arrow_table(frame)
        sink = pa.BufferOutputStream()
        # pa.ipc.new_file/new_stream arrived in pyarrow 0.12; the writer classes are older.
        opener = pa.RecordBatchFileWriter if kind == "file" else pa.RecordBatchStreamWriter
        writer = opener(sink, table.schema)
        writer.write_table(table)
        writer.close()
        return sink.getvalue().to_pybytes()

    return write


def _ipc_batch_writer(kind):
    """The writer's file in record batches of a batch: the suite's IPC writer writes one."""

    def write(frame, size):
        import pyarrow as pa

        table = _io.arrow_table(frame)
        sink = pa.BufferOutputStream()
        opener = pa.RecordBatchFileWriter if kind == "file" else pa.RecordBatchStreamWriter
        writer = opener(sink, table.schema)
        for batch in table.to_batches(size.rows):  # max_chunksize, named chunksize before pyarrow 0.15
            writer.write_batch(batch)
        writer.close()
        return sink.getvalue().to_pybytes()

    return write


def _feather_batch_write(frame, size):
    """Feather v2 in record batches of a batch (to_feather's are 64Ki rows)."""
    return _feather_write(frame, chunksize=size.rows)


def _ipc_file_batches(path, size, datetimes=(), categoricals=(), texts=(), dtypes=()):
    """An IPC file's record batches, one at a time, read from the file (not mapped: a map's
    pages would stay in the process's memory)."""
    import pyarrow as pa

    def batches():
        with pa.OSFile(path, "r") as f:
            reader = pa.ipc.open_file(f)
            for i in range(reader.num_record_batches):
                yield reader.get_batch(i)

    return _io.arrow_batches(batches(), categoricals)


def _ipc_stream_batches(path, size, datetimes=(), categoricals=(), texts=(), dtypes=()):
    import pyarrow as pa

    def batches():
        with pa.OSFile(path) as f:
            reader = pa.ipc.open_stream(f)
            while True:
                try:
                    yield reader.read_next_batch()
                except StopIteration:
                    return

    return _io.arrow_batches(batches(), categoricals)


def _ipc_reader(kind):
    """The IPC file or stream read whole from the file (``_io.arrow_input``): given a path,
    pyarrow's readers map it (the file's reader up to pyarrow 8, the stream's in every release),
    and a frame of Arrow-backed text then holds pages of the map, read only when used."""

    def read(source, datetimes=(), categoricals=(), texts=(), dtypes=()):
        import pyarrow as pa

        opener = pa.ipc.open_file if kind == "file" else pa.ipc.open_stream
        with _io.arrow_input(source) as f:
            table = opener(f).read_all()
        return _io.arrow_to_pandas(table, categoricals)

    return read


def _buffers(array):
    """Every buffer of an Arrow array: validity, offsets, values, a dictionary's, children's."""
    import pyarrow as pa

    found = [b for b in array.buffers() if b is not None]
    if pa.types.is_dictionary(array.type):
        found += _buffers(array.dictionary)
    return found


def touch_every_byte(table):
    """The ParaText "sum" task, made to read everything: every byte of every buffer of every
    column (text data, offsets, validity bitmaps and dictionaries included) is summed, so a lazy,
    memory-mapped read faults in every page of the file. Returns the table, for the check."""
    import numpy as np

    total = 0
    for column in table.columns:
        # pyarrow < 0.15 wraps each column's ChunkedArray in a Column
        for chunk in column.chunks if hasattr(column, "chunks") else column.data.chunks:
            for buf in _buffers(chunk):
                total += int(np.frombuffer(buf, dtype=np.uint8).sum(dtype=np.uint64))
    return table


def _mmap_read(source, datetimes=(), categoricals=(), texts=(), dtypes=()):
    import pyarrow as pa

    return touch_every_byte(pa.ipc.open_file(pa.memory_map(source, "r")).read_all())


def _mmap_frame(table, datetimes=(), categoricals=(), texts=(), dtypes=()):
    return _io.arrow_to_pandas(table, categoricals)


def _mmap_take(path, positions, datetimes=(), categoricals=(), texts=(), dtypes=()):
    """The rows at ``positions`` of the file through a memory map: an uncompressed file's buffers
    are mapped, and only the pages of the rows taken are read; a compressed one (Feather's lz4)
    is decompressed whole first."""
    import pyarrow as pa

    table = pa.ipc.open_file(pa.memory_map(path, "r")).read_all()
    return _io.arrow_to_pandas(table.take(pa.array(positions)), categoricals)


_TAKE = (Needs("pyarrow", "1.0", why="Table.take arrived in pyarrow 1.0"),)


def _needs_feather_v2():
    return (
        Needs("pyarrow", "0.17", why="Feather v2 arrived in pyarrow 0.17", modules=("pyarrow.feather",)),
        Needs("pandas", "0.24", why="pandas {have} writes Feather through the feather-format package, not pyarrow"),
    )


FORMATS = [
    Format(
        "feather",
        "Feather v2",
        ".feather",
        _feather_write,
        _feather_read,
        "arrow",
        needs=_needs_feather_v2(),
        description="pyarrow.feather.write_feather (lz4, as to_feather) / read_table",
        settings=(("compression", "lz4"), ("record batch", "64Ki rows"), ("index", "none")) + READ,
        columns=_feather_columns,
        batches=Reader(_ipc_file_batches, writes=_feather_batch_write),
        take=Reader(_mmap_take, needs=_TAKE),
    ),
    Format(
        "arrow-file",
        "Arrow IPC file",
        ".arrow",
        _ipc_writer("file"),
        _ipc_reader("file"),
        "arrow",
        needs=(PANDAS, PYARROW),
        description="uncompressed, read fully into pandas",
        settings=(("compression", "none"), ("index", "none")) + READ,
        batches=Reader(_ipc_file_batches, writes=_ipc_batch_writer("file")),
        take=Reader(_mmap_take, needs=_TAKE),
    ),
    Format(
        "arrow-stream",
        "Arrow IPC stream",
        ".arrows",
        _ipc_writer("stream"),
        _ipc_reader("stream"),
        "arrow",
        needs=(PANDAS, PYARROW),
        description="uncompressed, read fully into pandas",
        settings=(("compression", "none"), ("index", "none")) + READ,
        batches=Reader(_ipc_stream_batches, writes=_ipc_batch_writer("stream")),
    ),
    Format(
        "arrow-file-mmap",
        "Arrow IPC file, memory-mapped + byte sum",
        ".arrow",
        _ipc_writer("file"),
        _mmap_read,
        "arrow",
        needs=(PANDAS, PYARROW),
        writes=False,
        reads_bytes=False,
        to_frame=_mmap_frame,
        description="a memory map of the file, then every byte of every buffer summed; no pandas frame",
        settings=(("memory map", "yes: every byte summed"),),
    ),
]
