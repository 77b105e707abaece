"""Which pandas types survive which format: the fidelity table, from real round trips.

Each type is round-tripped alone through each format (so one type a format
cannot hold does not hide the others), with the reader told what a user would
tell it (datetime columns, which column is categorical), and compared with
``dsib.fidelity.compare_frames``.
"""

import warnings
from decimal import Decimal

import numpy as np

TYPES = (
    "int",
    "float with NaN",
    "bool",
    "datetime64",
    "tz-aware datetime",
    "categorical",
    "string",
    "nullable",
    "nullable bool",
    "uint64",
    "int8",
    "decimal",
)
# What a reader that takes dtypes is told of these types, as a table a user brought tells it
# (data_prep.own_table.told: the ``dtypes`` hint).
TOLD = {
    "nullable": "Int64",
    "nullable bool": "boolean",
    "uint64": "uint64",
    "int8": "int8",
    "decimal": "decimal128(12, 2)",
}


def probe_columns():
    import pandas as pd

    instants = np.array(
        ["2016-01-01T00:00:01", "2016-06-30T23:59:59", "2016-02-29T12:00:00", "2016-03-01T00:00:00"],
        dtype="datetime64[ns]",
    )
    columns = {
        "int": pd.Series([1, -2, 3, 2**40], dtype="int64"),
        "float with NaN": pd.Series([0.1, np.nan, -73.98174285888672, 2.5e-8]),
        "bool": pd.Series([True, False, True, True]),
        "datetime64": pd.Series(instants),
        "tz-aware datetime": pd.Series(pd.DatetimeIndex(instants).tz_localize("America/New_York")),
        "categorical": pd.Series(pd.Categorical(["a-b-c", "f-0-1", "a-b-c", "9-9-9"])),
        "string": pd.Series(["host_0", None, "ünïcødé", ""], dtype=object),
        "uint64": pd.Series([2**63 + 5, 0, 1, 2**64 - 1], dtype="uint64"),
        "int8": pd.Series([-128, 0, 1, 127], dtype="int8"),
        "decimal": pd.Series([Decimal("12.30"), None, Decimal("-0.05"), Decimal("9999999999.99")], dtype=object),
    }
    try:
        columns["nullable"] = pd.Series([1, None, 3, 4], dtype="Int64")
    except TypeError:  # pandas < 0.24 has no nullable integers
        pass
    try:
        columns["nullable bool"] = pd.Series([True, None, False, True], dtype="boolean")
    except TypeError:  # pandas < 1.0 has no nullable booleans
        pass
    return columns


def short(text, limit=48):
    """A message's first sentence, cut to fit a column of the Markdown table."""
    text = str(text).split(". ")[0].split("\n")[0]
    return text if len(text) <= limit else text[: limit - 1] + "…"


def whole(text):
    """A message in full, on one line (the site's table wraps it)."""
    return " ".join(str(text).split())


def round_trip(fmt, name, series, shorten=short):
    """'preserved', '≈ loss' (a declared loss), '→ dtype' (a changed type), 'values differ: …'
    or 'not stored: …' for one type through one format; ``shorten`` gives the message's text."""
    import pandas as pd

    from dsib.fidelity import compare_frames

    frame = pd.DataFrame({"c": series})
    hints = {"datetimes": ("c",) if "datetime" in name else (), "categoricals": ("c",) if name == "categorical" else ()}
    if name in TOLD:
        hints["dtypes"] = (("c", TOLD[name]),)
    try:
        with warnings.catch_warnings():
            # PyTables warns that object columns are pickled: about speed, which this table is not.
            warnings.simplefilter("ignore")
            back = fmt.read_back(fmt.write(frame), hints)
    except Exception as exc:  # what a format cannot hold is the table's subject
        return "not stored: %s" % shorten(exc)
    if "c" not in back:
        return "not stored: column missing"
    problems, losses = compare_frames(frame, back[["c"]], fmt.losses())
    if not problems:
        return "≈ %s" % shorten(losses[0].split(": ", 1)[-1]) if losses else "preserved"
    if str(back["c"].dtype) != str(series.dtype):
        return "→ %s" % back["c"].dtype
    return "values differ: %s" % shorten(problems[0].split(": ", 1)[-1])


def fidelity_rows(formats, shorten=short):
    """(label, cells) per format available in this environment; the others are left out."""
    columns = probe_columns()
    rows = []
    for fmt in formats:
        try:
            fmt.check_available()
        except NotImplementedError:
            continue
        rows.append((fmt.label, [round_trip(fmt, t, columns[t], shorten) if t in columns else "n/a" for t in TYPES]))
    return rows


def markdown(formats, shorten=short):
    from .markdown import table

    return table(["format"] + list(TYPES), [[label] + list(cells) for label, cells in fidelity_rows(formats, shorten)])


def versions():
    """The releases the round trips ran with, as the fidelity table's caption names them."""
    import numpy
    import pandas
    import pyarrow

    return "pandas %s, pyarrow %s, numpy %s" % (pandas.__version__, pyarrow.__version__, numpy.__version__)
