"""The format registry: each format is declared once, with its writer, reader and capabilities.

Benchmarks, round-trip tests, the fidelity table and the report all
parametrize over ``FORMATS``, so adding a format here adds it everywhere.

- ``write(frame) -> bytes``: the timed serialisation, into memory.
- ``read(source, datetimes=(), categoricals=(), texts=()) -> frame``: the
  timed deserialisation. ``source`` is ``bytes`` (reads from memory, as the
  2019 post timed them) or a file path (continuous and cold reads). A reader
  is told, as a user would tell it, which columns hold datetimes, which to
  return as categoricals, and which hold text that looks numeric (TSBS' rack
  "85"): text formats would otherwise parse those as integers. Where a format
  cannot store categoricals, it converts after reading, and that conversion
  is part of its time.

Libraries are imported inside the functions, so that this module imports in
every environment of the release matrix; ``Format.warm_up`` imports them in
``setup``, outside any timing.
"""
import io
import pickle
from collections import OrderedDict

from data_prep.datasets import VARIANTS

from . import compat


class UnknownFormatError(KeyError):
    def __str__(self):
        return self.args[0]


class Format(object):
    """A storage format as the suite sees it.

    ``requires``: modules to import; without them the cases skip.
    ``available``: an optional check of the running versions, raising
    ``NotImplementedError`` with the reason (an API a release lacks).
    ``losses()``: the ``dsib.fidelity.ALLOWED_LOSSES`` this format has in the
    running environment. ``variants``: the string variants it can hold.
    ``times_write``: False where the writer is another format's (its write
    cases would repeat that format's numbers). ``check_read``: how the
    round-trip check gets a frame, where ``read`` returns something else
    (a memory-mapped Arrow table that was summed).
    """

    def __init__(self, name, label, suffix, write, read, requires=(), losses=lambda: (),
                 variants=VARIANTS, description="", available=None, times_write=True, check_read=None,
                 family=None):
        self.name = name
        self.label = label
        self.suffix = suffix
        self.write = write
        self.read = read
        self.requires = tuple(requires)
        self.losses = losses
        self.variants = tuple(variants)
        self.description = description
        self._available = available
        self.times_write = times_write
        self.check_read = check_read or read
        self.family = family or name

    def check_available(self):
        for module in self.requires:
            compat.require(module, "the %s format" % self.label)
        if self._available is not None:
            self._available()

    def check_variant(self, variant):
        if variant not in self.variants:
            raise NotImplementedError("%s cannot hold the %r variant (it holds %s)"
                                      % (self.label, variant, ", ".join(self.variants)))

    def warm_up(self):
        """Import the libraries and do one tiny round trip, so that no import or lazy
        initialisation (pyarrow's pandas shim, thread pools) lands in a timing."""
        self.check_available()
        import pandas as pd

        tiny = pd.DataFrame({"i": [1, 2], "t": pd.to_datetime(["2016-01-01", "2016-01-02"])})
        if "cat" in self.variants:
            tiny["s"] = pd.Categorical(["a", "b"])
        self.read(self.write(tiny), datetimes=("t",), categoricals=("s",) if "s" in tiny else ())

    def __repr__(self):
        return "Format(%r)" % self.name


# --- helpers shared by adapters ---------------------------------------------------

def _buffer(source):
    """A binary file object over bytes or a path."""
    return io.BytesIO(source) if isinstance(source, bytes) else open(source, "rb")


def _payload(source):
    if isinstance(source, bytes):
        return source
    with open(source, "rb") as f:
        return f.read()


def _arrow_source(source):
    import pyarrow as pa

    return pa.BufferReader(source) if isinstance(source, bytes) else source


def _to_text(frame):
    """Categoricals as plain text, for writers whose format has no categorical type."""
    categoricals = [c for c in frame.columns if getattr(frame[c].dtype, "name", "") == "category"]
    if not categoricals:
        return frame
    return frame.astype(dict((c, object) for c in categoricals))


def _categorize(frame, categoricals):
    """After a reader that cannot return categoricals (or, like pandas < 0.24's read_json, ignores
    a "category" dtype): convert what is not categorical yet, as a user would."""
    todo = [c for c in categoricals if getattr(frame[c].dtype, "name", "") != "category"]
    if not todo:
        return frame
    return frame.astype(dict((c, "category") for c in todo))


def _text_dtypes(categoricals, texts):
    """``dtype=`` for pandas' text readers: categoricals as such, numeric-looking text as str.
    A categorical of numeric-looking text is read as str and converted afterwards (see
    ``_categorize``), because pandas infers numbers for the categories of ``"category"``."""
    dtypes = dict((name, str) for name in texts)
    dtypes.update((name, "category") for name in categoricals if name not in texts)
    return dtypes


def _arrow_table(frame):
    import pyarrow as pa

    return pa.Table.from_pandas(frame, preserve_index=False)


def _plain_strings(table):
    """Dictionary columns cast to strings, for Arrow writers that take no dictionaries."""
    import pyarrow as pa

    fields = [pa.field(f.name, f.type.value_type) if pa.types.is_dictionary(f.type) else f for f in table.schema]
    return table.cast(pa.schema(fields, metadata=table.schema.metadata))


def _to_pandas(table, categoricals):
    # Dictionary columns become categoricals anyway; pyarrow < 0.12 refuses to be asked again.
    dictionaries = set(f.name for f in table.schema if str(f.type).startswith("dictionary"))
    return table.to_pandas(categories=[c for c in categoricals if c not in dictionaries] or None)


# --- Parquet -----------------------------------------------------------------------

def _parquet_writer(**options):
    def write(frame):
        buf = io.BytesIO()
        frame.to_parquet(buf, engine="pyarrow", **options)
        return buf.getvalue()
    return write


def _parquet_read(source, datetimes=(), categoricals=(), texts=()):
    import pyarrow.parquet as pq

    return _to_pandas(pq.read_table(_arrow_source(source)), categoricals)


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


def _needs_fastparquet_into_memory():
    if compat.library_version("fastparquet") < (2023, 10):
        raise NotImplementedError("fastparquet %s writes to file paths only, not into memory (checked: "
                                  "0.8.x cannot, 2023.10.1 and later can)" % compat.require("fastparquet").__version__)


def _fastparquet_read(source, datetimes=(), categoricals=(), texts=()):
    import fastparquet

    with _buffer(source) as f:
        # pandas_nulls=False: plain numpy dtypes, as pandas' engine="fastparquet" asked for.
        return _categorize(fastparquet.ParquetFile(f, pandas_nulls=False).to_pandas(), categoricals)


# --- Feather v2 and Arrow IPC --------------------------------------------------------

def _needs_feather_v2():
    if compat.library_version("pyarrow") < (0, 17):
        raise NotImplementedError("Feather v2 arrived in pyarrow 0.17")
    if compat.pandas_version() < (0, 24):
        raise NotImplementedError("pandas %s writes Feather through the feather-format package, not pyarrow"
                                  % ".".join(map(str, compat.pandas_version())))


def _feather_write(frame):
    buf = io.BytesIO()
    frame.to_feather(buf)
    return buf.getvalue()


def _feather_read(source, datetimes=(), categoricals=(), texts=()):
    import pyarrow.feather as feather

    return _to_pandas(feather.read_table(_arrow_source(source)), categoricals)


def _ipc_writer(kind):
    def write(frame):
        import pyarrow as pa

        table = _arrow_table(frame)
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

    return _to_pandas(pa.ipc.open_file(_arrow_source(source)).read_all(), categoricals)


def _ipc_stream_read(source, datetimes=(), categoricals=(), texts=()):
    import pyarrow as pa

    return _to_pandas(pa.ipc.open_stream(_arrow_source(source)).read_all(), categoricals)


def _mapped_table(source):
    import pyarrow as pa

    mapped = pa.BufferReader(source) if isinstance(source, bytes) else pa.memory_map(source, "r")
    return pa.ipc.open_file(mapped).read_all()


def _touch_every_value(table):
    """The ParaText "sum" task: a lazy, memory-mapped read must fault in every value."""
    import pyarrow as pa
    import pyarrow.compute as pc

    total = 0
    for column in table.columns:
        for chunk in column.chunks:
            if pa.types.is_dictionary(chunk.type):
                total += pc.sum(chunk.indices).as_py() or 0
                chunk = chunk.dictionary
            if any(test(chunk.type) for test in (pa.types.is_string, pa.types.is_large_string,
                                                 pa.types.is_binary, pa.types.is_large_binary)):
                total += pc.sum(pc.binary_length(chunk)).as_py() or 0
            elif pa.types.is_timestamp(chunk.type):
                total += pc.sum(chunk.cast(pa.int64())).as_py() or 0
            elif pa.types.is_boolean(chunk.type):
                total += pc.sum(chunk.cast(pa.int8())).as_py() or 0
            else:
                total += pc.sum(chunk).as_py() or 0
    return total


def _ipc_mmap_read(source, datetimes=(), categoricals=(), texts=()):
    return _touch_every_value(_mapped_table(source))


def _ipc_mmap_check(source, datetimes=(), categoricals=(), texts=()):
    return _to_pandas(_mapped_table(source), categoricals)


def _needs_pyarrow_compute():
    if compat.library_version("pyarrow") < (1, 0):
        raise NotImplementedError("the memory-mapped sum needs pyarrow.compute (pyarrow >= 1.0)")


# --- CSV -----------------------------------------------------------------------------

def _csv_write(frame):
    return frame.to_csv(index=False).encode("utf-8")


def _csv_read(source, datetimes=(), categoricals=(), texts=()):
    import pandas as pd

    kwargs = compat.read_csv_datetime_kwargs()
    if categoricals or texts:
        # CSV has no categorical type: ask for one on read, as a user would.
        kwargs["dtype"] = _text_dtypes(categoricals, texts)
    with _buffer(source) as f:
        frame = pd.read_csv(f, parse_dates=list(datetimes), index_col=False, **kwargs)
    return _categorize(frame, categoricals)


def _csv_losses():
    losses = []
    if compat.csv_datetime_unit_changes():
        losses.append("datetime_unit")
    if compat.pandas_version() < (0, 24):
        losses.append("timezone")  # read_csv parses "+00:00" to naive UTC before pandas 0.24
    if not compat.csv_float_parse_is_exact():
        losses.append("float_ulp")
    return tuple(losses)


def _csv_pandas_pyarrow_read(source, datetimes=(), categoricals=(), texts=()):
    import pandas as pd

    kwargs = {"dtype": _text_dtypes(categoricals, texts)} if categoricals or texts else {}
    with _buffer(source) as f:
        frame = pd.read_csv(f, engine="pyarrow", parse_dates=list(datetimes), **kwargs)
    return _categorize(frame, [c for c in categoricals if c in texts])


def _needs_pandas_pyarrow_engine():
    if compat.pandas_version() < (1, 4):
        raise NotImplementedError("read_csv(engine='pyarrow') arrived in pandas 1.4")
    if compat.pandas_version() < (2, 0):
        raise NotImplementedError("read_csv(engine='pyarrow') of pandas 1.4 and 1.5 fails on these files "
                                  "(OverflowError converting the parsed datetimes); it reads them from 2.0")


def _csv_pyarrow_write(frame):
    import pyarrow as pa
    import pyarrow.csv as pcsv

    sink = pa.BufferOutputStream()
    pcsv.write_csv(_plain_strings(_arrow_table(frame)), sink)
    return sink.getvalue().to_pybytes()


def _csv_pyarrow_read(source, datetimes=(), categoricals=(), texts=()):
    import pyarrow as pa
    import pyarrow.csv as pcsv

    types = dict((name, pa.string()) for name in texts)
    types.update((name, pa.dictionary(pa.int32(), pa.string())) for name in categoricals)
    table = pcsv.read_csv(_arrow_source(source), convert_options=pcsv.ConvertOptions(column_types=types))
    return table.to_pandas()


def _needs_pyarrow_csv_writer():
    if compat.library_version("pyarrow") < (4, 0):
        raise NotImplementedError("pyarrow.csv.write_csv arrived in pyarrow 4.0")
    if compat.library_version("pyarrow") < (7, 0):
        raise NotImplementedError("pyarrow.csv.write_csv writes timestamps from pyarrow 7.0 (6.0.1 cannot cast "
                                  "a zoned timestamp to text)")


# --- HDF5 through PyTables ---------------------------------------------------------------

def _hdf_writer(layout):
    def write(frame):
        import pandas as pd

        if layout == "fixed":
            frame = _to_text(frame)  # "fixed" stores no categoricals
        # An in-memory HDF5 file (the CORE driver without a backing store), so no disk is timed.
        with pd.HDFStore("dsib-write.h5", mode="w", driver="H5FD_CORE", driver_core_backing_store=0) as store:
            store.put("frame", frame, format=layout, **compat.hdf_put_kwargs())
            return store._handle.get_file_image()
    return write


def _hdf_read(source, datetimes=(), categoricals=(), texts=()):
    import pandas as pd

    if isinstance(source, bytes):
        store = pd.HDFStore("dsib-read.h5", mode="r", driver="H5FD_CORE", driver_core_image=source,
                            driver_core_backing_store=0)
    else:
        store = pd.HDFStore(source, mode="r")
    with store:
        frame = store["frame"]
    return _categorize(frame, [c for c in categoricals if getattr(frame[c].dtype, "name", "") != "category"])


# --- pickle ------------------------------------------------------------------------------

def _pickle_writer(protocol):
    def write(frame):
        return pickle.dumps(frame, protocol=protocol)
    return write


def _pickle_read(source, datetimes=(), categoricals=(), texts=()):
    return pickle.loads(_payload(source))


# --- JSON --------------------------------------------------------------------------------

def _json_writer(orient, index=True):
    def write(frame):
        kwargs = {} if index else {"index": False}
        # ISO dates keep time zones; 15 digits is the most to_json writes.
        return frame.to_json(orient=orient, date_format="iso", date_unit="ns", double_precision=15,
                             **kwargs).encode("utf-8")
    return write


def _json_reader(orient):
    def read(source, datetimes=(), categoricals=(), texts=()):
        import pandas as pd

        dtype = _text_dtypes(categoricals, texts) if categoricals or texts else True
        named_dates = {"convert_dates": list(datetimes)} if compat.read_json_parses_named_dates() else {}
        with _buffer(source) as f:
            frame = pd.read_json(f, orient=orient, precise_float=True, dtype=dtype, **named_dates)
        if not named_dates:
            # What pandas >= 3.1 asks for instead: the date columns parsed after reading (those
            # its default date detection has not parsed already, such as TSBS' "timestamp").
            frame = frame.assign(**dict((c, pd.to_datetime(frame[c])) for c in datetimes
                                        if frame[c].dtype.kind != "M"))
        return _categorize(frame, categoricals)
    return read


def _json_losses(orient):
    def losses():
        found = ["float_digits"]
        if compat.pandas_version() >= (3, 0):
            found.append("datetime_unit")
        if compat.pandas_version() < (1, 5):
            found.append("timezone")  # read_json drops UTC (< 0.24) or adds it to naive times (< 1.5)
        if orient == "records" and compat.pandas_version() < (0, 25):
            found.append("column_order")  # DataFrame(list of dicts) sorted the keys before 0.25
        return tuple(found)
    return losses


def _parquet_losses():
    # Before pyarrow 0.15, Parquet kept no Arrow dictionary type: categories come back in order of appearance.
    return ("category_order",) if compat.library_version("pyarrow") < (0, 15) else ()


def _needs_json_no_index():
    if compat.pandas_version() < (0, 23):
        raise NotImplementedError("to_json(index=False) arrived in pandas 0.23")


# --- msgpack ---------------------------------------------------------------------------------

def _msgpack_write(frame):
    """Column-wise: fixed-width columns as raw buffers with their dtype, text as lists."""
    import msgpack
    import numpy as np

    columns = []
    for name in frame.columns:
        series = frame[name]
        dtype = series.dtype
        if getattr(dtype, "name", "") == "category":
            codes = np.asarray(series.cat.codes)
            columns.append([name, "category", codes.dtype.str, codes.tobytes(),
                            [str(v) for v in series.cat.categories], bool(series.cat.ordered)])
        elif getattr(dtype, "tz", None) is not None:
            values = np.asarray(series.dt.tz_convert(None)).astype("M8[ns]")
            columns.append([name, "datetimetz", str(dtype.tz), values.view("i8").tobytes()])
        elif isinstance(dtype, np.dtype) and dtype.kind in "biufM":
            values = np.ascontiguousarray(np.asarray(series))
            columns.append([name, "array", values.dtype.str, values.tobytes()])
        else:
            columns.append([name, "list", str(dtype), [None if v != v else v for v in series.tolist()]])
    return msgpack.packb({"columns": columns, "rows": len(frame)}, use_bin_type=True)


def _msgpack_read(source, datetimes=(), categoricals=(), texts=()):
    import msgpack
    import numpy as np
    import pandas as pd

    packed = msgpack.unpackb(_payload(source), raw=False)
    data, names = {}, []
    for column in packed["columns"]:
        name, kind = column[0], column[1]
        names.append(name)
        if kind == "category":
            codes = np.frombuffer(column[3], dtype=column[2])
            data[name] = pd.Categorical.from_codes(codes, column[4], ordered=column[5])
        elif kind == "datetimetz":
            data[name] = pd.DatetimeIndex(np.frombuffer(column[3], dtype="M8[ns]")).tz_localize("UTC") \
                .tz_convert(column[2])
        elif kind == "array":
            data[name] = np.frombuffer(column[3], dtype=column[2])
        else:
            data[name] = pd.Series(column[3], dtype=object if column[2] == "object" else None)
    return pd.DataFrame(data, columns=names)


def _pandas_msgpack_write(frame):
    return frame.to_msgpack()


def _pandas_msgpack_read(source, datetimes=(), categoricals=(), texts=()):
    import pandas as pd

    return pd.read_msgpack(_payload(source))


def _needs_pandas_msgpack():
    import pandas as pd

    if not hasattr(pd.DataFrame, "to_msgpack"):
        raise NotImplementedError("pandas %s has no to_msgpack (removed in 1.0)" % pd.__version__)


# --- ORC -------------------------------------------------------------------------------------

def _orc_write(frame):
    import pyarrow as pa
    import pyarrow.orc as orc

    sink = pa.BufferOutputStream()
    orc.write_table(_plain_strings(_arrow_table(frame)), sink)
    return sink.getvalue().to_pybytes()


def _orc_read(source, datetimes=(), categoricals=(), texts=()):
    import pyarrow.orc as orc

    # ORCFile is there from pyarrow 0.13; orc.read_table only from 6.0.
    return _to_pandas(orc.ORCFile(_arrow_source(source)).read(), categoricals)


def _needs_orc_writer():
    if compat.library_version("pyarrow") < (4, 0):
        raise NotImplementedError("pyarrow.orc.write_table arrived in pyarrow 4.0")


def _orc_losses():
    # ORC stores no dictionary type: categories come back in order of appearance.
    return ("timezone", "category_order")


# --- NumPy .npy --------------------------------------------------------------------------------

def _npy_write(frame):
    import numpy as np

    zoned = [c for c in frame.columns if getattr(frame[c].dtype, "tz", None) is not None]
    if zoned:  # a structured array holds naive datetimes only: UTC instants
        frame = frame.assign(**dict((c, frame[c].dt.tz_convert(None)) for c in zoned))
    buf = io.BytesIO()
    np.save(buf, frame.to_records(index=False), allow_pickle=False)
    return buf.getvalue()


def _npy_read(source, datetimes=(), categoricals=(), texts=()):
    import numpy as np
    import pandas as pd

    with _buffer(source) as f:
        return pd.DataFrame(np.load(f, allow_pickle=False))


FORMATS = OrderedDict((f.name, f) for f in [
    # name: kept stable, it is the benchmark parameter and so the asv series.
    Format("parquet", "Parquet", ".parquet", _parquet_writer(), _parquet_read,
           requires=("pandas", "pyarrow", "pyarrow.parquet"), losses=_parquet_losses, family="parquet",
           description="pyarrow, default options (snappy)"),
    Format("parquet-none", "Parquet (uncompressed)", ".parquet", _parquet_writer(compression=None), _parquet_read,
           requires=("pandas", "pyarrow", "pyarrow.parquet"), losses=_parquet_losses, family="parquet",
           description="pyarrow, compression=None"),
    Format("parquet-zstd", "Parquet (zstd)", ".parquet", _parquet_writer(compression="zstd"), _parquet_read,
           requires=("pandas", "pyarrow", "pyarrow.parquet"), losses=_parquet_losses, family="parquet",
           description="pyarrow, compression='zstd'"),
    Format("fastparquet", "Parquet (fastparquet)", ".parquet", _fastparquet_write, _fastparquet_read,
           requires=("pandas", "fastparquet"), available=_needs_fastparquet_into_memory, family="parquet",
           description="fastparquet.write (snappy) / ParquetFile.to_pandas, as pandas' engine='fastparquet'"),
    Format("feather", "Feather v2", ".feather", _feather_write, _feather_read,
           requires=("pandas", "pyarrow", "pyarrow.feather"), available=_needs_feather_v2, family="arrow",
           description="DataFrame.to_feather (lz4) / pyarrow.feather.read_table"),
    Format("arrow-file", "Arrow IPC file", ".arrow", _ipc_writer("file"), _ipc_file_read,
           requires=("pandas", "pyarrow"), family="arrow", description="uncompressed, read fully into pandas"),
    Format("arrow-stream", "Arrow IPC stream", ".arrows", _ipc_writer("stream"), _ipc_stream_read,
           requires=("pandas", "pyarrow"), family="arrow", description="uncompressed, read fully into pandas"),
    Format("arrow-file-mmap", "Arrow IPC file, memory-mapped + sum", ".arrow", _ipc_writer("file"), _ipc_mmap_read,
           requires=("pandas", "pyarrow", "pyarrow.compute"), available=_needs_pyarrow_compute,
           times_write=False, check_read=_ipc_mmap_check, family="arrow",
           description="memory-mapped, then every value touched (a sum per column); no pandas frame"),
    Format("csv", "CSV", ".csv", _csv_write, _csv_read, requires=("pandas",), losses=_csv_losses, family="csv",
           description="pandas to_csv / read_csv with the C parser"),
    Format("csv-pandas-pyarrow", "CSV (read_csv engine=pyarrow)", ".csv", _csv_write, _csv_pandas_pyarrow_read,
           requires=("pandas", "pyarrow"), available=_needs_pandas_pyarrow_engine, times_write=False,
           losses=lambda: ("datetime_unit",), family="csv",
           description="written by to_csv, read by pandas.read_csv(engine='pyarrow')"),
    Format("csv-pyarrow", "CSV (pyarrow.csv)", ".csv", _csv_pyarrow_write, _csv_pyarrow_read,
           requires=("pandas", "pyarrow", "pyarrow.csv"), available=_needs_pyarrow_csv_writer,
           losses=lambda: ("datetime_unit", "category_order"), family="csv",
           description="pyarrow.csv.write_csv / read_csv, then to_pandas"),
    Format("hdf-fixed", "HDF5 fixed", ".h5", _hdf_writer("fixed"), _hdf_read, requires=("pandas", "tables"),
           family="hdf5", description="pandas HDFStore, format='fixed' (categoricals stored as text)"),
    Format("hdf-table", "HDF5 table", ".h5", _hdf_writer("table"), _hdf_read, requires=("pandas", "tables"),
           family="hdf5", description="pandas HDFStore, format='table'"),
    Format("pickle-2", "pickle protocol 2", ".pkl", _pickle_writer(2), _pickle_read, requires=("pandas",),
           family="pickle"),
    Format("pickle-highest", "pickle highest protocol", ".pkl", _pickle_writer(pickle.HIGHEST_PROTOCOL),
           _pickle_read, requires=("pandas",), family="pickle",
           description="protocol %d on this Python" % pickle.HIGHEST_PROTOCOL),
    Format("json-split", "JSON split", ".json", _json_writer("split"), _json_reader("split"), requires=("pandas",),
           losses=_json_losses("split"), family="json"),
    Format("json-records", "JSON records", ".json", _json_writer("records"), _json_reader("records"),
           requires=("pandas",), losses=_json_losses("records"), family="json"),
    Format("json-split-noindex", "JSON split, no index", ".json", _json_writer("split", index=False),
           _json_reader("split"), requires=("pandas",), losses=_json_losses("split"), available=_needs_json_no_index,
           family="json", description="Rocklin's json-no-index: values only"),
    Format("msgpack", "msgpack (columns)", ".msgpack", _msgpack_write, _msgpack_read, requires=("pandas", "msgpack"),
           family="msgpack", description="numeric columns as raw buffers, text as lists"),
    Format("pandas-msgpack", "pandas to_msgpack", ".msgpack", _pandas_msgpack_write, _pandas_msgpack_read,
           requires=("pandas",), available=_needs_pandas_msgpack, family="msgpack",
           description="pandas' own msgpack, removed in pandas 1.0"),
    Format("orc", "ORC", ".orc", _orc_write, _orc_read, requires=("pandas", "pyarrow", "pyarrow.orc"),
           available=_needs_orc_writer, losses=_orc_losses, family="orc", description="pyarrow.orc"),
    Format("npy", "NumPy .npy", ".npy", _npy_write, _npy_read, requires=("pandas", "numpy"),
           variants=("plain",), losses=lambda: ("timezone",), family="numpy",
           description="one structured array: fixed-width columns only"),
])


# The formats of the 2019 post, whose seven cases keep the post's scale (benchmarks/file_formats.py).
POST_2019_FORMATS = ("parquet", "csv")


def get_format(name):
    try:
        return FORMATS[name]
    except KeyError:
        raise UnknownFormatError("unknown format %r; registered formats are: %s"
                                 % (name, ", ".join(FORMATS)))


def cases(variants=VARIANTS):
    """(format, variant) pairs that make sense: the asv parameter grid, filtered."""
    return [(f.name, v) for f in FORMATS.values() for v in variants if v in f.variants]
