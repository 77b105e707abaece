"""Differences between pandas / pyarrow releases, absorbed in one place.

Benchmarks call these helpers instead of testing versions themselves. A
missing library or API raises ``NotImplementedError``, which asv reports as a
skipped benchmark rather than a failure.
"""

import functools
import importlib
import inspect
import re


def version_tuple(version):
    """``"2.0.0rc1"`` -> ``(2, 0, 0)``: the leading numeric release components."""
    parts = []
    for piece in version.split("."):
        match = re.match(r"\d+", piece)
        if not match:
            break
        parts.append(int(match.group()))
        if match.end() != len(piece):
            break
    return tuple(parts)


def require(module, why=None):
    """Import ``module`` or raise ``NotImplementedError`` naming what is missing."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise NotImplementedError(
            "%s is not installed in this environment%s (%s)" % (module, " (needed for %s)" % why if why else "", exc)
        )


def library_version(module):
    return version_tuple(require(module).__version__)


def pandas_version():
    return library_version("pandas")


@functools.lru_cache(maxsize=None)
def takes(function, option):
    """Whether the Python function ``function`` has a parameter ``option`` in this release. An
    adapter passes an option only where the release takes it, and says beside it why a release
    without it does the same work (it knew only that behaviour)."""
    return option in inspect.signature(function).parameters


def taken(function, **options):
    """``options`` less those ``function`` does not take (``takes``)."""
    return dict((name, value) for name, value in options.items() if takes(function, name))


@functools.lru_cache(maxsize=None)
def arrow_to_pandas_kwargs():
    """``Table.to_pandas`` as every release makes it: ``use_threads=True`` (Arrow's pool), and
    nanosecond datetimes, which pyarrow >= 13 keeps in the file's unit unless asked
    (``coerce_temporal_nanoseconds``) and earlier releases always made."""
    kwargs = {"use_threads": True}
    if library_version("pyarrow") >= (13,):
        kwargs["coerce_temporal_nanoseconds"] = True
    return kwargs


def one_parser_thread():
    """A context in which ``read_csv``'s C parser runs on one thread, as in every release before
    pandas 3.1 (whose ``mode.max_threads`` lets it use a pool); a no-op where pandas has no pool."""
    import contextlib

    import pandas as pd

    try:
        pd.get_option("mode.max_threads")
    except KeyError:  # pandas' OptionError is one
        return contextlib.nullcontext()
    return pd.option_context("mode.max_threads", 1)


def read_csv_datetime_kwargs():
    """The post's ``infer_datetime_format=True``, where pandas still has it (removed in 3.0,
    a no-op with a warning since 2.0)."""
    return {"infer_datetime_format": True} if pandas_version() < (2, 0) else {}


@functools.lru_cache(maxsize=None)
def hdf_put_kwargs():
    """``track_times=True``, the default of every pandas release so far, said explicitly where
    ``HDFStore.put`` takes it: pandas 3.1 warns that the default will become False."""
    import pandas as pd

    return {"track_times": True} if "track_times" in inspect.signature(pd.HDFStore.put).parameters else {}


def read_json_parses_named_dates():
    """``read_json(convert_dates=[...])``: deprecated from pandas 3.1, which asks that date
    columns be parsed with ``pd.to_datetime`` after reading."""
    return pandas_version() < (3, 1)
