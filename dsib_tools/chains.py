"""The release matrix as chains: environments in an order in which each one changes one library.

A config's ``include`` entries are read in their order. Two neighbours differ either in the
version of one library (a *step*: pyarrow 14.0.2 → 17.0.0 with pandas, numpy and Python the
same), or in what ``LINKS`` names as changing together (a *link*: a Python release with the
numpy and tables built for it, the numpy a pandas release requires); numpy and Python change
only on a link. A step's change is the library's;
a link's belongs to the link, never to a library. ``steps`` reads a config's environments as
such, and refuses any pair of neighbours that is neither.
"""

from collections import namedtuple

from packaging.version import Version

# An environment's pins as one mapping: its packages' versions and "python".
PYTHON = "python"
# What every format stands on: these change only on a link, never as a library's step.
ONLY_ON_LINKS = (PYTHON, "numpy")

Link = namedtuple("Link", ["name", "changes"])
Link.__doc__ = """Neighbours that change several things at once, and why: ``changes`` maps each
pin that changes (a package or "python") to its (before, after) versions, None where the package
is absent."""

# The engines' clients and the readers beyond pyarrow and pandas (DuckDB, Polars, Lance,
# fastparquet, s3fs): installed together with numpy 2, where the newest pandas releases are
# measured; no format of the older environments needs them.
_JOINING = {
    "adbc_driver_manager": "1.13.0",
    "adbc_driver_postgresql": "1.13.0",
    "adbc_driver_sqlite": "1.13.0",
    "duckdb": "2.0.0",
    "fastparquet": "2026.9.0",
    "polars": "2.1.0",
    "psycopg": "3.3.9",
    "psycopg-binary": "3.3.9",
    "pylance": "14.0.2",
    "pyspark": "4.3.0",
    "questdb": "6.0.0",
    "s3fs": "2026.9.0",
    "sqlalchemy": "2.1.9",
}

LINKS = (
    Link("numpy 1.19.5: pandas 1.3 requires 1.17.3 or later", {"numpy": ("1.16.6", "1.19.5")}),
    Link(
        "Python 3.10, with the numpy and PyTables that have wheels for it",
        {PYTHON: ("3.7", "3.10"), "numpy": ("1.19.5", "1.23.5"), "tables": ("3.5.2", "3.8.0")},
    ),
    Link("Python 3.11", {PYTHON: ("3.10", "3.11")}),
    Link(
        "numpy 2, which pyarrow 26 requires, with the PyTables built for it; the engines' clients and the "
        "other readers join",
        dict(
            {"numpy": ("1.23.5", "2.4.6"), "tables": ("3.8.0", "3.11.1")},
            **dict((name, (None, version)) for name, version in _JOINING.items()),
        ),
    ),
)

# The release matrix's processes keep the memory they free, as the gate's do (dsib_tools.compare).
# With glibc's defaults a freed block above the mmap threshold goes back to the OS, and the
# threshold rises only when a process frees such a block, so whether a case's calls fault their
# memory back in depended on what its process had freed before the first sample: that differed by
# interpreter (a msgpack write 3.4 ms on Python 3.7, 16 ms on 3.8 with the same packages) and by
# process (a pickle read 15.0 or 3.7 ms in one environment), steps no library made
# (records/allocator). Every include entry of the matrix's configs sets these in its env_nobuild,
# so its environment's name says so and such runs never share a series with glibc's defaults.
# `make bench`'s newest environment measures a user's process, with glibc's defaults: there, what
# one call adds to a process's memory means what it says (dsib_tools.config).
FREED_MEMORY_KEPT = {
    "MALLOC_MMAP_THRESHOLD_": str(2**30),
    "MALLOC_TRIM_THRESHOLD_": str(2**32),
    "MALLOC_TOP_PAD_": str(2**28),
}

Step = namedtuple("Step", ["before", "after", "library", "link", "pins"])
Step.__doc__ = """Two neighbouring environments (indices into the config's entries): a step of
``library`` (``link`` None), or ``link`` (``library`` None). ``pins``: what they share."""


class ChainError(ValueError):
    """Neighbours that differ in more than one library and that no link names."""


def pins(entry):
    """An include entry's pins as one mapping: its packages' versions, and its "python"."""
    return dict(entry.get("req", {}), **{PYTHON: entry["python"]})


def ran_in(entry, params, env_vars=None):
    """Whether a run whose environment has ``params`` (asv's: pins and "python") is ``entry``'s;
    given the run's ``env_vars``, its allocator setting must be the entry's too."""
    if env_vars is not None and keeps_freed_memory(env_vars) != keeps_freed_memory(entry.get("env_nobuild")):
        return False
    return all(params.get(k) == v for k, v in pins(entry).items())


def keeps_freed_memory(env_vars):
    """Whether environment variables (a run's, an entry's ``env_nobuild``) set ``FREED_MEMORY_KEPT``."""
    return all((env_vars or {}).get(k) == v for k, v in FREED_MEMORY_KEPT.items())


def without_allocator(env_vars):
    """``env_vars`` without ``FREED_MEMORY_KEPT``'s settings: glibc's defaults."""
    return dict((k, v) for k, v in (env_vars or {}).items() if k not in FREED_MEMORY_KEPT)


def of_release_setting(env_vars_of_runs):
    """For each of one machine's runs (their ``env_vars``), whether it is of the machine's release
    view's allocator setting: freed memory kept once any of them kept it (the matrix has run so
    since), else glibc's defaults (a machine measured before). A view never mixes the two."""
    env_vars_of_runs = list(env_vars_of_runs)
    kept = any(keeps_freed_memory(v) for v in env_vars_of_runs)
    return [keeps_freed_memory(v) == kept for v in env_vars_of_runs]


def changes(before, after):
    """{pin: (before, after)} of what differs between two entries (None: absent)."""
    a, b = pins(before), pins(after)
    return dict((k, (a.get(k), b.get(k))) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k))


def step(entries, i, links=LINKS):
    """The Step from entries[i - 1] to entries[i]."""
    changed = changes(entries[i - 1], entries[i])
    shared = dict((k, v) for k, v in pins(entries[i]).items() if k not in changed)
    if len(changed) == 1:
        ((library, (old, new)),) = changed.items()
        if old is not None and new is not None and library not in ONLY_ON_LINKS:
            return Step(i - 1, i, library, None, shared)
    for link in links:
        if link.changes == changed:
            return Step(i - 1, i, None, link.name, shared)
    raise ChainError(
        "neighbours %d and %d change %s: a step changes one library's version, and no link names these"
        % (i - 1, i, ", ".join("%s %s → %s" % (k, a or "absent", b or "absent") for k, (a, b) in changed.items()))
    )


def steps(entries, links=LINKS):
    """Every pair of neighbours of a config's ``include`` entries, in order, as Steps."""
    return [step(entries, i, links) for i in range(1, len(entries))]


def describe(found, entries):
    """ "pyarrow 14.0.2 → 17.0.0 at pandas 2.2.3, Python 3.11" for a step; the link's name
    ("link: Python 3.11, at pyarrow 10.0.1, pandas 1.5.3") for a link."""
    before, after = pins(entries[found.before]), pins(entries[found.after])
    at = ", ".join(
        "%s %s" % ("Python" if k == PYTHON else k, found.pins[k])
        for k in ("pyarrow", "pandas", PYTHON)
        if k in found.pins and k != found.library
    )
    if found.library:
        return "%s %s → %s at %s" % (found.library, before[found.library], after[found.library], at)
    return "link: %s, at %s" % (found.link, at)


def markdown(entries, links=LINKS):
    """A table of a config's environments in chain order: each one's Python, pyarrow, pandas,
    numpy and other pins (the engines' clients and readers counted), and the step or link that
    reaches it from the one before."""
    from .markdown import table

    headline = (PYTHON, "pyarrow", "pandas", "numpy")
    rows = []
    for i, entry in enumerate(entries):
        given = pins(entry)
        if i == 0:
            reached = "the first"
        else:
            found = step(entries, i, links)
            reached = found.link and "link: " + found.link or "%s step" % found.library
        others = ["%s %s" % (k, v) for k, v in sorted(given.items()) if k not in headline and k not in _JOINING]
        joined = [k for k in _JOINING if k in given]
        others = ", ".join(others + (["the engines' clients and readers (%d pins)" % len(joined)] if joined else []))
        rows.append([i + 1] + [given.get(k, "-") for k in headline] + [others, reached])
    return table(["#", "Python", "pyarrow", "pandas", "numpy", "also", "reached by"], rows, "rllllll")


# The str and cat frames are built from Python str objects (data_prep.frames); pandas 3 stores
# such text as its Arrow-backed "str" dtype where pyarrow is installed, earlier pandas as objects.
# A str or cat figure across that line compares two different frames, and says so.
TEXT_VARIANTS = ("str", "cat")


def text_kind(params):
    """What the text of the str and cat frames is in an environment of these pins."""
    pandas = params.get("pandas")
    if not pandas or Version(pandas) < Version("3"):
        return "Python objects"
    return "Arrow-backed str" if params.get("pyarrow") else "Python-backed str"


def text_change(before, after):
    """ "text: Python objects → Arrow-backed str" where the text variants' frames differ in kind
    between two environments' pins; None where they are alike."""
    kinds = text_kind(before), text_kind(after)
    return None if kinds[0] == kinds[1] else "text: %s → %s" % kinds
