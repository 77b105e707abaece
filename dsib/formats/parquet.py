"""Parquet: through pyarrow (snappy, uncompressed, zstd) and through fastparquet."""

import io

from ..registry import Format, Loss, Needs, Reader
from . import _io

PYARROW = Needs("pyarrow", modules=("pyarrow.parquet",))
PANDAS = Needs("pandas")
# Before pyarrow 0.15, Parquet kept no Arrow dictionary type: categories come back in order of appearance.
CATEGORY_ORDER = Loss("category_order", below=("pyarrow", "0.15"))


def _writer(**options):
    def write(frame):
        buf = io.BytesIO()
        frame.to_parquet(buf, engine="pyarrow", **options)
        return buf.getvalue()

    return write


def _batch_writer(**options):
    """The writer's file in row groups of a batch: to_parquet's own are up to 1Mi rows."""

    def write(frame, size):
        return _writer(row_group_size=size.rows, **options)(frame)

    return write


def _read(source, datetimes=(), categoricals=(), texts=(), dtypes=()):
    import pyarrow.parquet as pq

    return _io.arrow_to_pandas(pq.read_table(_io.arrow_source(source)), categoricals)


def _columns(source, names, datetimes=(), categoricals=(), texts=(), dtypes=()):
    import pyarrow.parquet as pq

    return _io.arrow_to_pandas(pq.read_table(source, columns=list(names)), categoricals)


def _batches(path, size, datetimes=(), categoricals=(), texts=(), dtypes=()):
    import pyarrow.parquet as pq

    # pre_buffer (from pyarrow 5.0; off by default in 5-16, on in 26) reads ahead the bytes of
    # every row group to come: with it, a 2M-row file of 100k-row groups peaked 50 MB above a
    # 1M-row one; without it, both the same (measured here, pyarrow 26). A row group is the bound
    # either way: the file is written in row groups of a batch (_batch_writer).
    try:
        found = pq.ParquetFile(path, pre_buffer=False)
    except TypeError:  # before pyarrow 5.0: nothing read ahead
        found = pq.ParquetFile(path)
    return _io.arrow_batches(found.iter_batches(batch_size=size.rows), categoricals)


_ITER_BATCHES = (Needs("pyarrow", "3.0", why="ParquetFile.iter_batches arrived in pyarrow 3.0"),)


def _pyarrow_readers(**options):
    return dict(columns=_columns, batches=Reader(_batches, needs=_ITER_BATCHES, writes=_batch_writer(**options)))


class _KeptOpen(io.BytesIO):
    """fastparquet 2023.x closes the file object it was given, and its bytes with it."""

    def close(self):
        pass


def _fastparquet_write(frame):
    import fastparquet

    buf = _KeptOpen()
    # fastparquet's own API, as pandas' engine="fastparquet" called it (snappy is pandas' default
    # compression): pandas 3 deprecates that engine.
    fastparquet.write(buf, frame, compression="snappy")
    return buf.getvalue()


def _fastparquet_read(source, datetimes=(), categoricals=(), texts=(), dtypes=()):
    import fastparquet

    with _io.buffer(source) as f:
        # pandas_nulls=False: plain numpy dtypes, as pandas' engine="fastparquet" asked for.
        return _io.categorize(fastparquet.ParquetFile(f, pandas_nulls=False).to_pandas(), categoricals)


def _fastparquet_columns(path, names, datetimes=(), categoricals=(), texts=(), dtypes=()):
    import fastparquet

    with open(path, "rb") as f:
        frame = fastparquet.ParquetFile(f, pandas_nulls=False).to_pandas(columns=list(names))
    return _io.categorize(frame, categoricals)


FORMATS = [
    Format(
        "parquet",
        "Parquet",
        ".parquet",
        _writer(),
        _read,
        "parquet",
        needs=(PANDAS, PYARROW),
        losses=(CATEGORY_ORDER,),
        description="pyarrow, default options (snappy)",
        **_pyarrow_readers(),
    ),
    Format(
        "parquet-none",
        "Parquet (uncompressed)",
        ".parquet",
        _writer(compression=None),
        _read,
        "parquet",
        needs=(PANDAS, PYARROW),
        losses=(CATEGORY_ORDER,),
        description="pyarrow, compression=None",
        **_pyarrow_readers(compression=None),
    ),
    Format(
        "parquet-zstd",
        "Parquet (zstd)",
        ".parquet",
        _writer(compression="zstd"),
        _read,
        "parquet",
        needs=(PANDAS, PYARROW),
        losses=(CATEGORY_ORDER,),
        description="pyarrow, compression='zstd'",
        **_pyarrow_readers(compression="zstd"),
    ),
    Format(
        "fastparquet",
        "Parquet (fastparquet)",
        ".parquet",
        _fastparquet_write,
        _fastparquet_read,
        "parquet",
        needs=(
            PANDAS,
            Needs(
                "fastparquet",
                "2023.10",
                why="fastparquet {have} writes to file paths only, not "
                "into memory (checked: 0.8.x cannot, 2023.10.1 and later can)",
            ),
        ),
        # it reads a decimal column back as float64
        losses=(Loss("decimal_float"),),
        description="fastparquet.write (snappy) / ParquetFile.to_pandas, as pandas' engine='fastparquet'",
        columns=_fastparquet_columns,
    ),
]
