"""CSV: pandas' writer and C parser, pandas' pyarrow engine on the same file, and pyarrow.csv."""

from .. import compat
from ..registry import Format, LibraryDefaults, Loss, Needs, Reader
from . import _io

PANDAS = Needs("pandas")


def _write(frame):
    return frame.to_csv(index=False).encode("utf-8")


def _read_csv_kwargs(datetimes, categoricals, texts, dtypes=()):
    kwargs = compat.read_csv_datetime_kwargs()
    if dtypes:  # a table a user brought: every column's type, its zoned timestamps parsed after
        kwargs["dtype"] = _io.pandas_dtypes(categoricals, texts, dtypes)
        datetimes = _io.unzoned(datetimes, dtypes)
    elif categoricals or texts:
        # CSV has no categorical type: ask for one on read, as a user would.
        kwargs["dtype"] = _io.text_dtypes(categoricals, texts)
    return dict(kwargs, parse_dates=list(datetimes), index_col=False)


def _told(frame, categoricals, dtypes):
    """What a user makes of a frame read_csv read: its categoricals, and a brought table's
    decimals and zones (``_io.as_told``)."""
    return _io.categorize(_io.as_told(frame, dtypes) if dtypes else frame, categoricals)


def _default_read(source, datetimes=(), categoricals=(), texts=(), dtypes=()):
    """read_csv as each release makes it: pandas 3.1's C parser may use a pool of threads."""
    import pandas as pd

    with _io.buffer(source) as f:
        frame = pd.read_csv(f, **_read_csv_kwargs(datetimes, categoricals, texts, dtypes))
    return _told(frame, categoricals, dtypes)


def _read(source, datetimes=(), categoricals=(), texts=(), dtypes=()):
    with compat.one_parser_thread():
        return _default_read(source, datetimes, categoricals, texts, dtypes)


def _columns(path, names, datetimes=(), categoricals=(), texts=(), dtypes=()):
    """Every line is still read and split; only ``names`` are converted and kept."""
    import pandas as pd

    with compat.one_parser_thread():
        frame = pd.read_csv(path, usecols=list(names), **_read_csv_kwargs(datetimes, categoricals, texts, dtypes))
    return _told(frame, categoricals, dtypes)


def _batches(path, size, datetimes=(), categoricals=(), texts=(), dtypes=()):
    import pandas as pd

    with compat.one_parser_thread():
        reader = pd.read_csv(path, chunksize=size.rows, **_read_csv_kwargs(datetimes, categoricals, texts, dtypes))
        try:
            for frame in reader:
                yield _told(frame, categoricals, dtypes)
        finally:
            reader.close()


# The 2019 post's CSV: to_csv(index=False) and read_csv as each release's defaults make them.
DEFAULTS = LibraryDefaults(_write, _default_read, "pandas to_csv / read_csv: each release's defaults")


def _pandas_pyarrow_read(source, datetimes=(), categoricals=(), texts=(), usecols=None, dtypes=()):
    import pandas as pd

    if dtypes:
        kwargs = {"dtype": _io.pandas_dtypes(categoricals, texts, dtypes)}
    else:
        kwargs = {"dtype": _io.text_dtypes(categoricals, texts)} if categoricals or texts else {}
    if usecols is not None:
        kwargs["usecols"] = list(usecols)
    with _io.buffer(source) as f:
        frame = pd.read_csv(f, engine="pyarrow", parse_dates=list(datetimes), **kwargs)
    texts = _io.text_columns(texts, dtypes)
    return _io.categorize(_io.as_told(frame, dtypes), [c for c in categoricals if c in texts])


def _pandas_pyarrow_columns(path, names, datetimes=(), categoricals=(), texts=(), dtypes=()):
    return _pandas_pyarrow_read(path, datetimes, categoricals, texts, usecols=names, dtypes=dtypes)


def _pyarrow_write(frame):
    import pyarrow as pa
    import pyarrow.csv as pcsv

    sink = pa.BufferOutputStream()
    pcsv.write_csv(_io.plain_strings(_io.arrow_table(frame)), sink)
    return sink.getvalue().to_pybytes()


def _pyarrow_convert(categoricals, texts, names=None, dtypes=()):
    import pyarrow as pa
    import pyarrow.csv as pcsv

    types = dict((name, pa.string()) for name in texts)
    # A table a user brought: each column at its type, as a user of pyarrow.csv says it (a zoned
    # timestamp as pyarrow reads it, in UTC, and converted after).
    types.update((name, _io.arrow_type(dtype)) for name, dtype in dtypes if _io.arrow_type(dtype) is not None)
    types.update((name, pa.dictionary(pa.int32(), pa.string())) for name in categoricals)
    # Its text may have nulls, which pyarrow.csv writes as empty fields (and "" quoted).
    options = dict(strings_can_be_null=True, quoted_strings_can_be_null=False) if dtypes else {}
    if names is None:
        return pcsv.ConvertOptions(column_types=types, **options)
    return pcsv.ConvertOptions(column_types=types, include_columns=list(names), **options)


def _pyarrow_read(source, datetimes=(), categoricals=(), texts=(), dtypes=()):
    import pyarrow.csv as pcsv

    table = pcsv.read_csv(
        _io.arrow_source(source),
        read_options=pcsv.ReadOptions(use_threads=True),
        convert_options=_pyarrow_convert(categoricals, texts, dtypes=dtypes),
    )
    return _io.arrow_to_pandas(table, (), dtypes) if dtypes else table.to_pandas()


def _pyarrow_columns(path, names, datetimes=(), categoricals=(), texts=(), dtypes=()):
    import pyarrow.csv as pcsv

    if dtypes:
        dtypes = tuple((name, dtype) for name, dtype in dtypes if name in names)
        table = pcsv.read_csv(path, convert_options=_pyarrow_convert(categoricals, texts, names, dtypes))
        return _io.arrow_to_pandas(table, (), dtypes)
    return pcsv.read_csv(path, convert_options=_pyarrow_convert(categoricals, texts, names)).to_pandas()


def _pyarrow_batches(path, size, datetimes=(), categoricals=(), texts=(), dtypes=()):
    import pyarrow as pa
    import pyarrow.csv as pcsv

    # The streaming reader counts bytes, not rows; it takes the column types from its first block.
    reader = pcsv.open_csv(
        path,
        read_options=pcsv.ReadOptions(block_size=size.bytes),
        convert_options=_pyarrow_convert(categoricals, texts, dtypes=dtypes),
    )
    for batch in reader:
        table = pa.Table.from_batches([batch])
        yield _io.arrow_to_pandas(table, (), dtypes) if dtypes else table.to_pandas()


def _duckdb_read(source, datetimes=(), categoricals=(), texts=(), dtypes=(), names=None):
    """DuckDB's CSV reader: its own sniffer of the header and types, told, as a user tells it, that
    the text (numeric-looking or to be categorical) is text."""
    types = dict((name, "VARCHAR") for name in tuple(texts) + tuple(categoricals))
    relation = _io.duckdb_connection().read_csv(source, header=True, **({"dtype": types} if types else {}))
    return _io.categorize(_io.duckdb_frame(relation, names, dtypes), categoricals)


def _duckdb_columns(path, names, datetimes=(), categoricals=(), texts=(), dtypes=()):
    return _duckdb_read(path, datetimes, categoricals, texts, dtypes, names=names)


# Polars' CSV reader into pandas (through Arrow): its own parser and type inference, told, as a
# user tells it, that the text is text and which columns hold datetimes.
POLARS = Needs("polars", "1.0", why="polars {have} predates its 1.0 API (read_csv's schema_overrides)")


def _polars_type(dtype):
    """The Polars type of a told number's dtype ("uint64", "Int32", "boolean", "float32")."""
    lower = dtype.lower()
    for prefix, name in (("uint", "UInt"), ("int", "Int"), ("float", "Float")):
        if lower.startswith(prefix):
            return name + lower[len(prefix) :]
    return "Boolean"


def _polars_read(source, datetimes=(), categoricals=(), texts=(), dtypes=(), names=None):
    """Polars' sniffer of the header and types, told the text (numeric-looking or to be
    categorical), and asked to parse dates (it keeps a zone's offset, where ``schema_overrides``
    drops it); the datetimes then at nanoseconds, as the frame holds them."""
    pl = _io.polars()
    told = dict((name, pl.String) for name in _io.text_columns(tuple(texts) + tuple(categoricals), dtypes))
    told.update((name, pl.String) for name in _io.told(dtypes, "decimal"))  # a Decimal from its text
    told.update(
        (name, getattr(pl, _polars_type(dtype))) for name, dtype in _io.told(dtypes, "number", "nullable").items()
    )
    if names is not None:
        told = dict((name, kind) for name, kind in told.items() if name in names)
    frame = pl.read_csv(
        source,
        schema_overrides=told or None,
        columns=None if names is None else list(names),
        try_parse_dates=bool(datetimes),
    )
    at_ns = [  # a date (a brought table's) too: a frame's datetimes are timestamps
        pl.col(name).cast(pl.Datetime("ns", getattr(frame.schema[name], "time_zone", None)))
        for name in datetimes
        if name in frame.columns and isinstance(frame.schema[name], (pl.Datetime, pl.Date))
    ]
    frame = frame.with_columns(at_ns) if at_ns else frame
    return _io.categorize(_io.told_frame(frame.to_pandas(), dtypes), categoricals)


def _polars_columns(path, names, datetimes=(), categoricals=(), texts=(), dtypes=()):
    return _polars_read(path, datetimes, categoricals, texts, dtypes, names=names)


FORMATS = [
    Format(
        "csv",
        "CSV",
        ".csv",
        _write,
        _read,
        "csv",
        needs=(PANDAS,),
        losses=(
            Loss("datetime_unit", since=("pandas", "3.0")),
            # read_csv parses "+00:00" to naive UTC before pandas 0.24
            Loss("timezone", below=("pandas", "0.24")),
            # pandas < 3.1's default float parsers can miss the last bit of what to_csv wrote
            Loss("float_ulp", below=("pandas", "3.1")),
        ),
        description="pandas to_csv / read_csv with the C parser, one thread",
        columns=_columns,
        batches=_batches,
        settings=(("index", "none"), ("parser threads", "1")),
        defaults=DEFAULTS,
    ),
    Format(
        "csv-pandas-pyarrow",
        "CSV (read_csv engine=pyarrow)",
        ".csv",
        _write,
        _pandas_pyarrow_read,
        "csv",
        needs=(
            Needs(
                "pandas",
                "2.0",
                why="read_csv(engine='pyarrow') arrived in pandas 1.4, and 1.4 and 1.5 fail "
                "on these files (OverflowError converting the parsed datetimes); it reads them from 2.0",
            ),
            Needs("pyarrow"),
        ),
        writes=False,
        # it parses with pyarrow's inference, then casts: an integer beyond 2**53 a float first
        losses=(Loss("datetime_unit"), Loss("integer_float")),
        description="written by to_csv, read by pandas.read_csv(engine='pyarrow')",
        columns=_pandas_pyarrow_columns,
    ),
    Format(
        "csv-pyarrow",
        "CSV (pyarrow.csv)",
        ".csv",
        _pyarrow_write,
        _pyarrow_read,
        "csv",
        needs=(
            PANDAS,
            Needs(
                "pyarrow",
                "7.0",
                why="pyarrow.csv.write_csv arrived in pyarrow 4.0 and writes zoned timestamps from 7.0",
                modules=("pyarrow.csv",),
            ),
        ),
        losses=(Loss("datetime_unit"), Loss("category_order")),
        description="pyarrow.csv.write_csv / read_csv, then to_pandas",
        settings=(("threads", "Arrow's pool"),),
        columns=_pyarrow_columns,
        batches=Reader(
            _pyarrow_batches, needs=(Needs("pyarrow", "2.0", why="pyarrow.csv.open_csv arrived in pyarrow 2.0"),)
        ),
    ),
    Format(
        "csv-duckdb",
        "CSV (read by DuckDB)",
        ".csv",
        _write,
        _duckdb_read,
        "csv",
        needs=(
            PANDAS,
            Needs("duckdb", "0.8", why="DuckDB {have} predates the relation API read here (read_csv, project)"),
        ),
        writes=False,
        reads_bytes=False,
        # DuckDB gives its timestamps (microseconds) as datetime64[us] from pandas 2, its decimals
        # as float64, and its sniffer reads an integer beyond 2**63 as a double
        losses=(Loss("datetime_unit", since=("pandas", "2.0")), Loss("decimal_float"), Loss("integer_float")),
        description="written by to_csv, read by DuckDB's read_csv(path).df()",
        columns=_duckdb_columns,
        settings=(("index", "none"), ("threads", "one a CPU (SET threads)")),
    ),
    Format(
        "csv-polars",
        "CSV (read by Polars)",
        ".csv",
        _write,
        _polars_read,
        "csv",
        needs=(PANDAS, POLARS),
        writes=False,
        description="written by to_csv, read by Polars' read_csv(path).to_pandas()",
        columns=_polars_columns,
        settings=(("index", "none"), ("threads", "Polars' pool: one a CPU")),
    ),
]
