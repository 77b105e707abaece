"""Parquet: through pyarrow (snappy, uncompressed, zstd) and through fastparquet."""
import io

from ..registry import Format, Loss, Needs
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


def _read(source, datetimes=(), categoricals=(), texts=()):
    import pyarrow.parquet as pq

    return _io.arrow_to_pandas(pq.read_table(_io.arrow_source(source)), categoricals)


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


def _fastparquet_read(source, datetimes=(), categoricals=(), texts=()):
    import fastparquet

    with _io.buffer(source) as f:
        # pandas_nulls=False: plain numpy dtypes, as pandas' engine="fastparquet" asked for.
        return _io.categorize(fastparquet.ParquetFile(f, pandas_nulls=False).to_pandas(), categoricals)


FORMATS = [
    Format("parquet", "Parquet", ".parquet", _writer(), _read, "parquet", needs=(PANDAS, PYARROW),
           losses=(CATEGORY_ORDER,), description="pyarrow, default options (snappy)"),
    Format("parquet-none", "Parquet (uncompressed)", ".parquet", _writer(compression=None), _read, "parquet",
           needs=(PANDAS, PYARROW), losses=(CATEGORY_ORDER,), description="pyarrow, compression=None"),
    Format("parquet-zstd", "Parquet (zstd)", ".parquet", _writer(compression="zstd"), _read, "parquet",
           needs=(PANDAS, PYARROW), losses=(CATEGORY_ORDER,), description="pyarrow, compression='zstd'"),
    Format("fastparquet", "Parquet (fastparquet)", ".parquet", _fastparquet_write, _fastparquet_read, "parquet",
           needs=(PANDAS, Needs("fastparquet", "2023.10", why="fastparquet {have} writes to file paths only, not "
                                "into memory (checked: 0.8.x cannot, 2023.10.1 and later can)")),
           description="fastparquet.write (snappy) / ParquetFile.to_pandas, as pandas' engine='fastparquet'"),
]
