"""Arrow: Feather v2, the IPC file and stream formats, and the IPC file memory-mapped."""
import io

from ..registry import Format, Needs
from . import _io

PANDAS = Needs("pandas")
PYARROW = Needs("pyarrow")


def _feather_write(frame):
    buf = io.BytesIO()
    frame.to_feather(buf)
    return buf.getvalue()


def _feather_read(source, datetimes=(), categoricals=(), texts=()):
    import pyarrow.feather as feather

    return _io.arrow_to_pandas(feather.read_table(_io.arrow_source(source)), categoricals)


def _feather_columns(path, names, datetimes=(), categoricals=(), texts=()):
    import pyarrow.feather as feather

    return _io.arrow_to_pandas(feather.read_table(path, columns=list(names)), categoricals)


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


def _ipc_file_read(source, datetimes=(), categoricals=(), texts=()):
    import pyarrow as pa

    return _io.arrow_to_pandas(pa.ipc.open_file(_io.arrow_source(source)).read_all(), categoricals)


def _ipc_stream_read(source, datetimes=(), categoricals=(), texts=()):
    import pyarrow as pa

    return _io.arrow_to_pandas(pa.ipc.open_stream(_io.arrow_source(source)).read_all(), categoricals)


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
        for chunk in (column.chunks if hasattr(column, "chunks") else column.data.chunks):
            for buf in _buffers(chunk):
                total += int(np.frombuffer(buf, dtype=np.uint8).sum(dtype=np.uint64))
    return table


def _mmap_read(source, datetimes=(), categoricals=(), texts=()):
    import pyarrow as pa

    return touch_every_byte(pa.ipc.open_file(pa.memory_map(source, "r")).read_all())


def _mmap_frame(table, datetimes=(), categoricals=(), texts=()):
    return _io.arrow_to_pandas(table, categoricals)


def _needs_feather_v2():
    return (Needs("pyarrow", "0.17", why="Feather v2 arrived in pyarrow 0.17", modules=("pyarrow.feather",)),
            Needs("pandas", "0.24", why="pandas {have} writes Feather through the feather-format package, not "
                                         "pyarrow"))


FORMATS = [
    Format("feather", "Feather v2", ".feather", _feather_write, _feather_read, "arrow", needs=_needs_feather_v2(),
           description="DataFrame.to_feather (lz4) / pyarrow.feather.read_table", columns=_feather_columns),
    Format("arrow-file", "Arrow IPC file", ".arrow", _ipc_writer("file"), _ipc_file_read, "arrow",
           needs=(PANDAS, PYARROW), description="uncompressed, read fully into pandas"),
    Format("arrow-stream", "Arrow IPC stream", ".arrows", _ipc_writer("stream"), _ipc_stream_read, "arrow",
           needs=(PANDAS, PYARROW), description="uncompressed, read fully into pandas"),
    Format("arrow-file-mmap", "Arrow IPC file, memory-mapped + byte sum", ".arrow", _ipc_writer("file"), _mmap_read,
           "arrow", needs=(PANDAS, PYARROW), writes=False, reads_bytes=False, to_frame=_mmap_frame,
           description="a memory map of the file, then every byte of every buffer summed; no pandas frame"),
]
