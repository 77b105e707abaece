"""Does a frame read back equal the frame that was written?

pandas' ``assert_frame_equal`` changed its tolerance arguments across the
releases this suite covers (``check_less_precise`` → ``rtol``), so the check
is spelled out here once, with the same meaning in every environment:
exact values, dtypes, categories, NaN positions and time zones. A format may
declare known, documented losses (``ALLOWED_LOSSES``); anything else is a
mismatch.
"""

import numpy as np

ALLOWED_LOSSES = {
    "datetime_unit": "datetime64 resolution may differ (e.g. [us] for [ns]) if every instant is identical",
    "timezone": "a time zone may be dropped (tz-aware came back naive UTC) or added (naive came back UTC), "
    "every instant identical",
    "float_ulp": "floats may differ in the last bits (relative 1e-15) or beyond the 16th decimal place "
    "(absolute 1e-16) from a fast text parser, as pandas < 3.1's read_csv",
    "float_digits": "floats may be rounded to 15 decimal places by a text writer (error up to 1e-15 x max(1, |x|))",
    "category_order": "an unordered categorical may list its categories in another order",
    "column_order": "the columns may come back in another order (pandas < 0.25 sorts JSON records' keys)",
    "boolean": "booleans may come back as the integers 0 and 1 (a database with no boolean type: SQLite), "
    "every value the same",
    "nullable_float": "pandas' nullable integers and booleans (Int64, boolean) may come back as float64, NaN for "
    "a null (a format that cannot hold them: HDFStore), every value the same",
    "decimal_float": "decimals may come back as float64, each the float nearest to the decimal, NaN for a null "
    "(a format with no decimal type: NumPy .npy, HDFStore)",
    "integer_float": "integers beyond 2**53 may come back rounded to what float64 holds, at their own dtype "
    "(a reader that parses them as floats first: read_csv(engine='pyarrow'))",
    "row_order": "the rows may come back in another order, the same rows (a SQL table has no order: "
    "PostgreSQL's heap puts a row where it fits)",
}
# How far a float may be off under each allowed loss: (relative, absolute below 1).
_FLOAT_TOLERANCE = (("float_ulp", 1e-15, 1e-16), ("float_digits", 1e-15, 1e-15))


class FrameMismatch(AssertionError):
    pass


def _is_categorical(series):
    return getattr(series.dtype, "name", "") == "category"


def is_nullable(dtype):
    """Whether ``dtype`` (or its name) is one of pandas' nullable integers and booleans (``Int64``,
    ``UInt8``, ``boolean``...)."""
    name = str(dtype)
    return name == "boolean" or name.startswith(("Int", "UInt"))


def _decimals(values):
    """Whether an object array holds ``decimal.Decimal`` values (its first that is not None)."""
    from decimal import Decimal

    return values.dtype.kind == "O" and isinstance(next((v for v in values if v is not None), None), Decimal)


def _values(series):
    """A numpy array of the series' values; tz-aware datetimes as naive UTC (the dtype check
    has already compared the zones). ``np.asarray`` spells this the same from pandas 0.23 on."""
    if getattr(series.dtype, "tz", None) is not None:
        series = series.dt.tz_convert(None)
    return np.asarray(series)


def _nulls(values):
    import pandas as pd

    return np.asarray(pd.isnull(values))


def _compare_column(name, expected, actual, allowed):
    """Problems and accepted losses for one column, as two lists of strings."""
    losses = []
    align = _categories if _is_categorical(expected) or _is_categorical(actual) else _dtypes
    problems, values = align(name, expected, actual, allowed, losses)
    if values is None:
        return problems, losses
    return problems + _differences(name, values[0], values[1], allowed, losses), losses


def _categories(name, expected, actual, allowed, losses):
    """Two categoricals' order and categories compared: (problems, their values as objects, or None
    where the values cannot be compared)."""
    if not (_is_categorical(expected) and _is_categorical(actual)):
        return ["%s: dtype %s became %s" % (name, expected.dtype, actual.dtype)], None
    problems = []
    e_cat, a_cat = expected.cat, actual.cat
    if bool(e_cat.ordered) != bool(a_cat.ordered):
        problems.append("%s: ordered=%s became ordered=%s" % (name, e_cat.ordered, a_cat.ordered))
    e_list, a_list = list(e_cat.categories), list(a_cat.categories)
    if str(e_cat.categories.dtype) != str(a_cat.categories.dtype):
        problems.append("%s: categories of dtype %s became %s" % (name, e_cat.categories.dtype, a_cat.categories.dtype))
    if e_list != a_list:
        if sorted(e_list) == sorted(a_list) and not e_cat.ordered and "category_order" in allowed:
            losses.append("%s: category order" % name)
        else:
            problems.append("%s: categories differ (%d expected, %d read)" % (name, len(e_list), len(a_list)))
            return problems, None
    return problems, (np.asarray(expected.astype(object)), np.asarray(actual.astype(object)))


def _dtypes(name, expected, actual, allowed, losses):
    """Two columns' values in comparable form where their dtypes differ by an allowed loss:
    (problems, the values, or None where the change is not allowed)."""
    e_dtype, a_dtype = str(expected.dtype), str(actual.dtype)
    e_values, a_values = _values(expected), _values(actual)
    if e_dtype == a_dtype:
        return [], (e_values, a_values)
    if is_nullable(e_dtype) and a_values.dtype.kind == "f" and "nullable_float" in allowed:
        losses.append("%s: %s read as %s" % (name, e_dtype, a_dtype))
        # Compared as floats, exactly: an integer that float64 cannot hold is a difference.
        e_values = np.asarray(expected.astype("float64"))
        if e_dtype != "boolean":
            exact = np.asarray(expected.astype(object))
            kept = ~_nulls(exact)
            if not np.array_equal(e_values[kept].astype(object), exact[kept]):
                e_values = exact  # compared as they are: the rounded ones differ
        return [], (e_values, a_values)
    if _decimals(e_values) and a_values.dtype.kind == "f" and "decimal_float" in allowed:
        losses.append("%s: decimal read as %s" % (name, a_dtype))
        return [], (np.array([np.nan if v is None else float(v) for v in e_values]), a_values)
    if e_values.dtype.kind == "b" and a_values.dtype.kind in "iu" and "boolean" in allowed:
        losses.append("%s: %s read as %s" % (name, e_dtype, a_dtype))
        return [], (e_values.astype(a_values.dtype), a_values)
    if not (e_values.dtype.kind == "M" and a_values.dtype.kind == "M"):
        return ["%s: dtype %s became %s" % (name, e_dtype, a_dtype)], None
    e_tz, a_tz = str(getattr(expected.dtype, "tz", None)), str(getattr(actual.dtype, "tz", None))
    unit_changed = np.datetime_data(e_values.dtype)[0] != np.datetime_data(a_values.dtype)[0]
    for changed, loss, what in ((e_tz != a_tz, "timezone", "time zone"), (unit_changed, "datetime_unit", "resolution")):
        if changed and loss not in allowed:
            return ["%s: %s changed, dtype %s became %s" % (name, what, e_dtype, a_dtype)], None
    losses.append("%s: %s read as %s" % (name, e_dtype, a_dtype))
    return [], (e_values.astype("M8[ns]"), a_values.astype("M8[ns]"))


def _differences(name, e_values, a_values, allowed, losses):
    """Where two columns' comparable values differ: missing values at other rows, or values beyond
    what an allowed rounding explains."""
    e_null, a_null = _nulls(e_values), _nulls(a_values)
    if not np.array_equal(e_null, a_null):
        return [
            "%s: missing values at different rows (%d expected, %d read)" % (name, int(e_null.sum()), int(a_null.sum()))
        ]
    e_values, a_values = e_values[~e_null], a_values[~a_null]
    if e_values.dtype.kind == "f" and a_values.dtype.kind == "f":
        equal = e_values == a_values
        for loss, relative, absolute in _FLOAT_TOLERANCE:
            if not equal.all() and loss in allowed:
                close = np.abs(e_values - a_values) <= np.maximum(relative * np.abs(e_values), absolute)
                if close.all():
                    losses.append("%s: %d floats rounded (%s)" % (name, int((~equal).sum()), loss))
                    equal = close
    else:
        equal = np.asarray(e_values == a_values, dtype=bool)
        if not equal.all() and e_values.dtype.kind in "iu" and "integer_float" in allowed:
            close = e_values.astype("float64") == a_values.astype("float64")
            if close.all():
                losses.append("%s: %d integers rounded to float64 (integer_float)" % (name, int((~equal).sum())))
                equal = close
    if equal.all():
        return []
    row = int(np.flatnonzero(~equal)[0])
    return [
        "%s: %d values differ, first at non-null row %d: %r became %r"
        % (name, int((~equal).sum()), row, e_values[row], a_values[row])
    ]


def _in_value_order(frame):
    """The rows sorted by every column's values (categoricals by their text, zoned datetimes as UTC),
    the index renumbered."""
    keys = frame.copy()
    for name in keys.columns:
        if _is_categorical(keys[name]):
            keys[name] = keys[name].astype(object)
        elif getattr(keys[name].dtype, "tz", None) is not None:
            keys[name] = keys[name].dt.tz_convert(None)
    order = keys.sort_values(by=list(keys.columns), kind="mergesort", na_position="last").index
    return frame.loc[order].reset_index(drop=True)


def compare_frames(expected, actual, allowed=()):
    """``(problems, losses)``: what makes ``actual`` differ from ``expected``, and the allowed losses seen."""
    unknown = set(allowed) - set(ALLOWED_LOSSES)
    if unknown:
        raise ValueError("unknown allowed losses %s; known: %s" % (sorted(unknown), sorted(ALLOWED_LOSSES)))
    if "row_order" in allowed:
        rest = tuple(a for a in allowed if a != "row_order")
        problems, losses = compare_frames(expected, actual, rest)
        if not problems or len(expected) != len(actual) or list(expected.columns) != list(actual.columns):
            return problems, losses
        # The same rows in another order: compared again, both in the order of their values.
        problems, losses = compare_frames(_in_value_order(expected), _in_value_order(actual), rest)
        return problems, losses + ([] if problems else ["row_order: the rows came back in another order"])
    problems, losses = [], []
    if list(expected.columns) != list(actual.columns):
        if "column_order" not in allowed or sorted(expected.columns) != sorted(actual.columns):
            return ["columns %s became %s" % (list(expected.columns), list(actual.columns))], []
        actual = actual[list(expected.columns)]
        losses.append("column_order")
    if len(expected) != len(actual):
        return ["%d rows became %d" % (len(expected), len(actual))], []
    if not np.array_equal(np.asarray(expected.index), np.asarray(actual.index)):
        problems.append("the index differs")
    for name in expected.columns:
        found, lost = _compare_column(name, expected[name], actual[name], allowed)
        problems.extend(found)
        losses.extend(lost)
    return problems, losses


def assert_same_frame(expected, actual, allowed=(), context=""):
    """Raise ``FrameMismatch`` listing every difference beyond ``allowed``; return the losses."""
    problems, losses = compare_frames(expected, actual, allowed)
    if problems:
        raise FrameMismatch(
            "%sread back a different frame:\n  %s" % (context + ": " if context else "", "\n  ".join(problems))
        )
    return losses
