"""The format registry: each format is declared once, with its writer, reader and capabilities.

Benchmarks, round-trip tests and the report all parametrize over ``FORMATS``,
so adding a format here adds it everywhere. Readers take either ``bytes``
(in-memory reads, as the 2019 post timed them) or a file path.
"""
import io
from collections import OrderedDict

from data_prep.nyc_taxi import VARIANTS

from . import compat


class UnknownFormatError(KeyError):
    def __str__(self):
        return self.args[0]


class Format(object):
    """A storage format as the suite sees it.

    ``write(frame) -> bytes`` and ``read(source, datetimes, categoricals) -> frame``
    are the timed operations; a reader is told which columns hold datetimes and
    which to return as categoricals, as a user would tell it. ``requires`` names the modules the format needs; without
    them ``check_available`` raises ``NotImplementedError`` (an asv skip).
    ``losses()`` names the ``dsib.fidelity.ALLOWED_LOSSES`` this format has in
    the running environment.
    """

    def __init__(self, name, label, suffix, write, read, requires=(), losses=lambda: (),
                 variants=VARIANTS, description=""):
        self.name = name
        self.label = label
        self.suffix = suffix
        self.write = write
        self.read = read
        self.requires = tuple(requires)
        self.losses = losses
        self.variants = tuple(variants)
        self.description = description

    def check_available(self):
        for module in self.requires:
            compat.require(module, "the %s format" % self.label)

    def warm_up(self):
        """Import the libraries and do one tiny round trip, so that no import or lazy
        initialisation (pyarrow's pandas shim, thread pools) lands in a timing."""
        self.check_available()
        import pandas as pd

        tiny = pd.DataFrame({"i": [1, 2], "t": pd.to_datetime(["2016-01-01", "2016-01-02"]),
                             "s": pd.Categorical(["a", "b"])})
        self.read(self.write(tiny), datetimes=("t",), categoricals=("s",))

    def __repr__(self):
        return "Format(%r)" % self.name


# --- Parquet through pyarrow, default options (snappy, one file) ---------------------

def _parquet_write(frame):
    buf = io.BytesIO()
    frame.to_parquet(buf, engine="pyarrow")
    return buf.getvalue()


def _parquet_read(source, datetimes=(), categoricals=()):
    import pyarrow as pa
    import pyarrow.parquet as pq

    if isinstance(source, bytes):
        source = pa.BufferReader(source)
    return pq.read_table(source).to_pandas(categories=list(categoricals) or None)


# --- CSV through pandas' C parser --------------------------------------------------

def _csv_write(frame):
    return frame.to_csv(index=False).encode("utf-8")


def _csv_read(source, datetimes=(), categoricals=()):
    import pandas as pd

    if isinstance(source, bytes):
        source = io.BytesIO(source)
    kwargs = compat.read_csv_datetime_kwargs()
    if categoricals:
        # CSV has no categorical type: ask for one on read, as a user would.
        kwargs["dtype"] = dict((name, "category") for name in categoricals)
    return pd.read_csv(source, parse_dates=list(datetimes), index_col=False, **kwargs)


def _csv_losses():
    losses = []
    if compat.csv_datetime_unit_changes():
        losses.append("datetime_unit")
    if not compat.csv_float_parse_is_exact():
        losses.append("float_ulp")
    return tuple(losses)


FORMATS = OrderedDict((f.name, f) for f in [
    Format("parquet", "Parquet", ".parquet", _parquet_write, _parquet_read,
           requires=("pandas", "pyarrow", "pyarrow.parquet"),
           description="pyarrow engine, default options: snappy, dictionary encoding"),
    Format("csv", "CSV", ".csv", _csv_write, _csv_read, requires=("pandas",), losses=_csv_losses,
           description="pandas to_csv / read_csv with the C parser"),
])


def get_format(name):
    try:
        return FORMATS[name]
    except KeyError:
        raise UnknownFormatError("unknown format %r; registered formats are: %s"
                                 % (name, ", ".join(FORMATS)))


def cases(variants=VARIANTS):
    """(format, variant) pairs that make sense: the asv parameter grid, filtered."""
    return [(f.name, v) for f in FORMATS.values() for v in variants if v in f.variants]
