"""Parquet: through pyarrow (snappy, uncompressed, zstd) and through fastparquet."""

import io

from .. import compat
from ..registry import Format, LibraryDefaults, Loss, Needs, Reader
from . import _io

PYARROW = Needs("pyarrow", modules=("pyarrow.parquet",))
PANDAS = Needs("pandas")
# Before pyarrow 0.15, Parquet kept no Arrow dictionary type: categories come back in order of appearance.
CATEGORY_ORDER = Loss("category_order", below=("pyarrow", "0.15"))


# What every pyarrow Parquet writer of the grid states, so that every release writes the same
# file: no index column (pyarrow 0.11 with pandas 0.23 stores the RangeIndex as one), format 1.0
# and microsecond timestamps (the newest pair every release can write: the defaults moved from
# 1.0/ms to 2.6/ns), dictionary encoding and statistics, one row group up to 1Mi rows.
WRITE = (
    ("index", "none"),
    ("format version", "1.0"),
    ("data page version", "1.0"),
    ("timestamp unit", "us"),
    ("dictionary", "on"),
    ("row group", "up to 1Mi rows"),
)
# How every pyarrow Parquet reader of the grid reads: the file read, not memory-mapped (old
# releases map a path), nothing read ahead (pre_buffer, from pyarrow 5.0), Arrow's thread pool,
# nanosecond datetimes in the frame.
READ = (("memory map", "no: read"), ("pre-buffer", "off"), ("threads", "Arrow's pool"), ("datetimes", "ns"))
ROW_GROUP_ROWS = 1 << 20


def _writer(compression, row_group_size=ROW_GROUP_ROWS):
    def write(frame):
        import pyarrow as pa
        import pyarrow.parquet as pq

        sink = pa.BufferOutputStream()
        options = dict(
            version="1.0",
            coerce_timestamps="us",
            use_dictionary=True,
            row_group_size=row_group_size,
            compression=compression,
        )
        # Releases without these options write statistics and data pages of version 1.0 only.
        options.update(compat.taken(pq.write_table, write_statistics=True, data_page_version="1.0"))
        pq.write_table(_io.arrow_table(frame), sink, **options)
        return sink.getvalue().to_pybytes()

    return write


def _batch_writer(compression):
    """The writer's file in row groups of a batch."""

    def write(frame, size):
        return _writer(compression, row_group_size=size.rows)(frame)

    return write


def _read_table(source, pre_buffer=False, **options):
    import pyarrow.parquet as pq

    # pyarrow < 5.0 reads nothing ahead; pre_buffer=False asks the same of later releases.
    options.update(compat.taken(pq.read_table, pre_buffer=pre_buffer))
    with _io.arrow_input(source) as f:
        return pq.read_table(f, use_threads=True, **options)


def _read(source, datetimes=(), categoricals=(), texts=(), dtypes=()):
    return _io.arrow_to_pandas(_read_table(source), categoricals)


def _default_write(frame):
    buf = io.BytesIO()
    frame.to_parquet(buf, engine="pyarrow")
    return buf.getvalue()


def _default_read(source, datetimes=(), categoricals=(), texts=(), dtypes=()):
    import pyarrow.parquet as pq

    return _io.arrow_to_pandas(pq.read_table(_io.arrow_source(source)), categoricals, stated=False)


# The 2019 post's Parquet: DataFrame.to_parquet(buf) and pyarrow.parquet.read_table(source), as
# each release's defaults make them (codec, format version, timestamp unit, index, memory map).
DEFAULTS = LibraryDefaults(
    _default_write, _default_read, "DataFrame.to_parquet(buf) / pyarrow.parquet.read_table: each release's defaults"
)


def _columns(source, names, datetimes=(), categoricals=(), texts=(), dtypes=()):
    return _io.arrow_to_pandas(_read_table(source, columns=list(names)), categoricals)


def _batches(path, size, datetimes=(), categoricals=(), texts=(), dtypes=()):
    import pyarrow.parquet as pq

    # pre_buffer (from pyarrow 5.0; off by default in 5-16, on in 26) reads ahead the bytes of
    # every row group to come: with it, a 2M-row file of 100k-row groups peaked 50 MB above a
    # 1M-row one; without it, both the same (measured here, pyarrow 26). A row group is the bound
    # either way: the file is written in row groups of a batch (_batch_writer). Releases before
    # pyarrow 5.0 read nothing ahead; before 3.0 (no iter_batches) the reader is not measured.
    found = pq.ParquetFile(path, **compat.taken(pq.ParquetFile.__init__, memory_map=False, pre_buffer=False))
    return _io.arrow_batches(found.iter_batches(batch_size=size.rows), categoricals)


def _read_ahead(source, names=None, datetimes=(), categoricals=(), texts=(), dtypes=()):
    """The read with pre_buffer on: the byte ranges of the column chunks it needs fetched ahead,
    coalesced and concurrently, as a store that costs a round trip a request asks for."""
    options = {} if names is None else {"columns": list(names)}
    return _io.arrow_to_pandas(_read_table(source, pre_buffer=True, **options), categoricals)


def _take(path, positions, datetimes=(), categoricals=(), texts=(), dtypes=()):
    """The row groups that hold the positions, found from the footer's row counts, read alone
    (no row group without a row asked), and the rows taken from them. The file is in row groups
    of a tenth of its rows (``_batch_writer``): rows spread at random touch most of them."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    found = pq.ParquetFile(path, **compat.taken(pq.ParquetFile.__init__, memory_map=False, pre_buffer=False))
    sizes = np.array([found.metadata.row_group(i).num_rows for i in range(found.num_row_groups)])
    starts = np.cumsum(sizes) - sizes
    group = np.searchsorted(starts, positions, side="right") - 1
    wanted = np.unique(group)
    read_at = np.zeros(len(sizes), dtype=np.int64)  # where each group read starts in the table read
    read_at[wanted] = np.cumsum(sizes[wanted]) - sizes[wanted]
    table = found.read_row_groups(list(wanted), use_threads=True)
    return _io.arrow_to_pandas(table.take(pa.array(positions - starts[group] + read_at[group])), categoricals)


_TAKE = (Needs("pyarrow", "1.0", why="Table.take arrived in pyarrow 1.0"),)
_PRE_BUFFER = (Needs("pyarrow", "5.0", why="read_table's pre_buffer arrived in pyarrow 5.0"),)
_ITER_BATCHES = (Needs("pyarrow", "3.0", why="ParquetFile.iter_batches arrived in pyarrow 3.0"),)


def _pyarrow_format(name, label, compression, description, defaults=None):
    return Format(
        name,
        label,
        ".parquet",
        _writer(compression),
        _read,
        "parquet",
        needs=(PANDAS, PYARROW),
        losses=(CATEGORY_ORDER,),
        description=description,
        columns=_columns,
        batches=Reader(_batches, needs=_ITER_BATCHES, writes=_batch_writer(compression)),
        read_ahead=Reader(_read_ahead, needs=_PRE_BUFFER),
        take=Reader(_take, needs=_TAKE, writes=_batch_writer(compression)),
        settings=(("compression", compression or "none"),) + WRITE + READ,
        defaults=defaults,
    )


class _KeptOpen(io.BytesIO):
    """fastparquet 2023.x closes the file object it was given, and its bytes with it."""

    def close(self):
        pass


def _fastparquet_write(frame):
    import fastparquet

    buf = _KeptOpen()
    # fastparquet's own API, as pandas' engine="fastparquet" called it (snappy is pandas' default
    # compression): pandas 3 deprecates that engine.
    fastparquet.write(buf, frame, compression="snappy", write_index=False, times="int64", stats="auto")
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


# DuckDB reads Parquet with its own reader (not Arrow's) into pandas: one more library a user may
# ask to read the suite's file for them. Its text comes back as text, as DuckDB has no categorical.
DUCKDB = Needs("duckdb", "0.8", why="DuckDB {have} predates the relation API read here (read_parquet, project)")


def _duckdb_read(source, datetimes=(), categoricals=(), texts=(), dtypes=(), names=None):
    """DuckDB's frame, made what a user makes of it: its categoricals, and a brought table's types
    (``_io.as_told``: DuckDB gives zoned timestamps in its session's zone, UTC)."""
    return _io.categorize(_io.duckdb_frame(_io.duckdb_connection().read_parquet(source), names, dtypes), categoricals)


def _duckdb_columns(path, names, datetimes=(), categoricals=(), texts=(), dtypes=()):
    return _duckdb_read(path, datetimes, categoricals, texts, dtypes, names=names)


# Polars reads Parquet with its own reader (not Arrow's) into a Polars frame, then into pandas
# through Arrow (``to_pandas``): one more library a user may ask to read the suite's file for them.
POLARS = Needs("polars", "1.0", why="polars {have} predates its 1.0 API (read_parquet's columns, to_pandas)")


def _polars_read(source, datetimes=(), categoricals=(), texts=(), dtypes=(), names=None):
    """Polars' frame, made what a user makes of it: its categoricals, and a brought table's types
    (``_io.told_frame``)."""
    frame = _io.polars().read_parquet(source, columns=None if names is None else list(names)).to_pandas()
    return _io.categorize(_io.told_frame(frame, dtypes), categoricals)


def _polars_columns(path, names, datetimes=(), categoricals=(), texts=(), dtypes=()):
    return _polars_read(path, datetimes, categoricals, texts, dtypes, names=names)


def _polars_write(frame):
    """The frame into Polars (``from_pandas``), then written by Polars' own writer, its options
    stated where its defaults differ from the pyarrow writer's (zstd, row groups of 512Ki rows)."""
    buf = io.BytesIO()
    _io.polars().from_pandas(frame).write_parquet(
        buf, compression="snappy", statistics=True, row_group_size=ROW_GROUP_ROWS, use_pyarrow=False
    )
    return buf.getvalue()


FORMATS = [
    _pyarrow_format("parquet", "Parquet", "snappy", "pyarrow.parquet, snappy", DEFAULTS),
    _pyarrow_format("parquet-none", "Parquet (uncompressed)", None, "pyarrow.parquet, uncompressed"),
    _pyarrow_format("parquet-zstd", "Parquet (zstd)", "zstd", "pyarrow.parquet, zstd"),
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
        settings=(("compression", "snappy"), ("index", "none"), ("timestamp unit", "ns (int64)")),
    ),
    Format(
        "parquet-duckdb",
        "Parquet (read by DuckDB)",
        ".parquet",
        _writer("snappy"),
        _duckdb_read,
        "parquet",
        needs=(PANDAS, PYARROW, DUCKDB),
        writes=False,
        reads_bytes=False,
        # DuckDB gives its timestamps (microseconds) as datetime64[us] from pandas 2, and its
        # decimals as float64
        losses=(Loss("datetime_unit", since=("pandas", "2.0")), Loss("decimal_float")),
        description="written by pyarrow.parquet (snappy), read by DuckDB's read_parquet(path).df()",
        columns=_duckdb_columns,
        settings=(("compression", "snappy"), ("threads", "one a CPU (SET threads)")) + WRITE,
    ),
    Format(
        "parquet-polars",
        "Parquet (read by Polars)",
        ".parquet",
        _writer("snappy"),
        _polars_read,
        "parquet",
        needs=(PANDAS, PYARROW, POLARS),
        writes=False,
        # Polars keeps the file's microseconds (datetime64[us] from pandas 2) and gives a
        # categorical's categories in the order they first appear
        losses=(Loss("datetime_unit", since=("pandas", "2.0")), Loss("category_order")),
        description="written by pyarrow.parquet (snappy), read by Polars' read_parquet(path).to_pandas()",
        columns=_polars_columns,
        settings=(("compression", "snappy"), ("threads", "Polars' pool: one a CPU")) + WRITE,
    ),
    Format(
        "parquet-by-polars",
        "Parquet (Polars)",
        ".parquet",
        _polars_write,
        _polars_read,
        "parquet",
        needs=(PANDAS, PYARROW, POLARS),
        losses=(Loss("datetime_unit", since=("pandas", "2.0")), Loss("category_order")),
        description="pl.from_pandas(frame).write_parquet (snappy) / pl.read_parquet(path).to_pandas()",
        columns=_polars_columns,
        settings=(
            ("compression", "snappy"),
            ("statistics", "on"),
            ("row group", "up to 1Mi rows"),
            ("index", "none"),
            ("threads", "Polars' pool: one a CPU"),
        ),
    ),
]
