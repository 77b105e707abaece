"""dsib's asv suite: one class for each thing it times, parametrized over the registries.

- ``reads``: ``ReadFromBytes`` (the 2019 post's read: bytes in memory), ``ReadFromPageCache`` and
  ``ReadCold`` (the same reader on the same file, warm and evicted), ``ContinuousRead`` (every
  partition in turn), ``ProcessBaseline`` (what every ``peakmem_`` includes besides its case);
- ``writes``: ``WriteToBytes`` and ``WriteMonthToBytes`` (into memory, at two scales that need
  two samplings), ``WriteDurable`` (a file, fsynced), ``CategorizeThenWrite`` (Rocklin);
- ``sizes``: ``Sizes`` (bytes on disk, bytes of the frame);
- ``prepare``: ``Prepare`` (data_prep's generator);
- ``engines``: ``IngestIntoEngine`` and ``QueryFromEngine`` (databases and engines, ``dsib.engines``).

A cell is (source, format, variant): ``dsib.catalog`` says which make sense and why the others
skip, ``dsib.cells`` builds each cell's file the first time a case needs it, checked against
the frame that was written. Only the operation is timed.

``DSIB_PROFILE`` comes from the asv matrix (``env_nobuild``), so the scale is part of every
environment name and results at two scales never share a series. ``DSIB_DATA_DIR`` defaults to
``data/`` beside this directory, where ``python -m data_prep prepare`` writes.

Each class's ``version`` is ``series(N)``: N changes only by a decision, recorded in
``benchmarks/series.lock`` (a test fails when the code a class measures changes and the lock
does not say whether its series continues).
"""

import atexit
import functools
import gc
import hashlib
import itertools
import json
import os
import re
import sys

from data_prep import PROFILES, DatasetError
from dsib import catalog
from dsib.cells import Cells
from dsib.formats import FORMATS, NOT_FORK_SAFE
from dsib.registry import distribution_versions, installed_versions


def _let_finders_be_called_without_target():
    """pyarrow 0.11 calls ``find_spec(name, path)`` on every ``sys.meta_path`` finder, and
    asv_runner's SpecificImporter, which imported this package, requires ``target``."""
    for finder in sys.meta_path:
        cls = type(finder)
        if cls.__name__ == "SpecificImporter" and not getattr(cls, "_dsib_target_default", False):
            original = cls.find_spec

            def find_spec(self, fullname, path=None, target=None, _original=original):
                return _original(self, fullname, path, target)

            cls.find_spec, cls._dsib_target_default = find_spec, True


_let_finders_be_called_without_target()


# The modes of asv's launcher whose outcome is in a file (or raised) before the interpreter exits:
# discovery, ``setup_cache`` (its pickle) and a case's run (its result). ``check`` says its
# verdict by the exit status alone, so it keeps the interpreter's own exit.
_LAUNCHER_MODES = ("discover", "setup_cache", "run")


def _run_by_asv_launcher():
    """Whether this process is asv's launcher, ``asv/benchmark.py``, in one of ``_LAUNCHER_MODES``:
    run as a script, as asv runs it (``setup_cache``, and every case where ``launch_method`` is
    ``spawn``), or as ``python -m asv.benchmark``."""
    path = os.path.normpath(getattr(sys.modules.get("__main__"), "__file__", None) or "")
    return path.endswith(os.sep + os.path.join("asv", "benchmark.py")) and sys.argv[1:2] in [
        [mode] for mode in _LAUNCHER_MODES
    ]


def _end_without_native_teardown():
    """At the end of a process of asv's launcher (``_run_by_asv_launcher``): out with ``os._exit``
    once every Python ``atexit`` handler has run (this one, registered before the libraries are
    imported, runs last), so that no native library's thread is torn down while the interpreter
    exits: a joinable C++ thread destroyed then aborts the process ("terminate called without an
    active exception", pyarrow's CPU pool after a threaded read, apache/arrow#34314), after its
    cells were built or its case had skipped or run, and asv would call it failed. asv's forkserver
    ends its processes with ``os._exit`` already. The status is the interpreter's: 1 after an
    uncaught exception (``sys.last_value``), else 0, as the launcher's ``sys.exit(0)`` says."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(1 if getattr(sys, "last_value", None) is not None else 0)


if _run_by_asv_launcher():
    atexit.register(_end_without_native_teardown)


def _preload():
    """asv's forkserver imports this package once and forks a process per case: every library a
    format needs is imported here, so that no case's process pays for an import (PyTables and
    fastparquet take 0.1-0.2 s each), but those that are not fork-safe. Missing ones are the
    formats' business."""
    for module in ["pandas", "pyarrow.compute"] + [
        m for f in FORMATS.values() for n in f.needs for m in (n.package,) + n.modules if n.package not in NOT_FORK_SAFE
    ]:
        try:
            __import__(module)
        except ImportError:
            pass


_preload()

# The run, as asv's matrix (env_nobuild) and dsib_tools give it to every case's process: the
# suite's only reads of the environment.
# - DSIB_PROFILE: the data's scale; DSIB_DATA_DIR: where it is (the checkout's data/ by default,
#   since asv installs dsib elsewhere and runs each case in a scratch directory);
# - DSIB_DATASET: a table a user brought, measured besides the built-in sources (make bench
#   DATASET=NAME); DSIB_TABLE: what it held when the run was configured (dsib_tools.config: it is in
#   the environment's name, so a table brought again with other rows is another series);
# - DSIB_SELECT: the cells a run selects (asv's -b, which dsib_tools passes on; all where unset);
# - DSIB_TRACE: a file that the untimed steps of each case's setup are traced to (the tests).
PROFILE = os.environ.get("DSIB_PROFILE", "default")
DATA_DIR = os.environ.get("DSIB_DATA_DIR") or os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data"
)
DATASET = os.environ.get("DSIB_DATASET") or None
TABLE = os.environ.get("DSIB_TABLE") or None
SELECTED = os.environ.get("DSIB_SELECT") or None
TRACE = os.environ.get("DSIB_TRACE") or None
CATALOG = catalog.Catalog(own=(DATASET,) if DATASET else (), data_dir=DATA_DIR)
# The formats' libraries, imported; the object store's clients, found without importing them.
VERSIONS = dict(installed_versions(FORMATS.packages()), **distribution_versions(catalog.CLIENT_PACKAGES))
CELLS = Cells(PROFILE, DATA_DIR, catalog=CATALOG)

# What a case's numbers depend on without its module importing it, for the series lock
# (dsib_tools.lock finds the imported modules itself): the data's generator, which wrote the store.
DATA = ("data_prep",)

# Three samples a case, wherever a sample can take under a second (no median of such a
# call rests on fewer), so that its median is a sample's (of two, asv's median averages a first and
# a second call). asv's repeat cannot give three to fast samples alone (its time limit counts the
# setup between samples), so slower ones of the same class get three too.
SAMPLES = 3

# Long enough for the `full` profile (10.9 M rows a month) on 2 cores.
FULL_SCALE_TIMEOUT = 3600
PARAM_NAMES = ["source", "format", "variant"]


def _scale_of_versioned_profiles():
    return repr(
        sorted(
            (p.name, sorted(p.rows.items()), p.seed, sorted(p.grid_rows.items()))
            for p in PROFILES.values()
            if p.versioned
        )
    )


SCALE = hashlib.sha256(_scale_of_versioned_profiles().encode("utf-8")).hexdigest()[:12]


def series(number):
    """A class's asv version: its series ``number``, which changes only by a decision (the lock),
    and the scale of every versioned profile, so that results at two scales never share a
    series (all of them, so that runs at different profiles agree on one benchmarks.json;
    ``pr``'s results are never kept, so its scale stays out)."""
    return "%d.%s" % (number, SCALE)


def ready(operation, source, format, variant="plain"):
    """In ``setup``: the format of a cell that runs, imported and warmed up by one tiny round
    trip, so that no import or lazy initialisation lands in a timing; asv's skip
    (``NotImplementedError``) with the reason for a cell that cannot."""
    reason = CATALOG.skip_reason(operation, source, format, variant, PROFILE, VERSIONS)
    if reason:
        raise NotImplementedError(reason)
    fmt = CATALOG.format_for(source, format)
    if CATALOG.sources[source].own:  # a table a user brought: a format that cannot hold it skips, saying why
        holds = CELLS.store(source).digest[:12]
        if TABLE and holds != TABLE:
            raise DatasetError(
                "the table %s holds other rows (%s) than this run was configured for (%s): it was "
                "brought again since; run make bench DATASET=%s again" % (source, holds, TABLE, source)
            )
        CELLS.checked_file(source, fmt, variant)
    fmt.warm_up()
    return fmt


def trace(case, event, cell, **fields):
    """Where ``DSIB_TRACE`` names a file (the tests), one JSON line of an untimed step of a case's
    setup, with the process's id, appended to it."""
    if TRACE:
        fields.update(case=type(case).__name__, event=event, cell=list(cell), pid=os.getpid())
        with open(TRACE, "a") as f:
            f.write(json.dumps(fields, sort_keys=True) + "\n")


# Untimed full calls before a case's first sample. One is not enough: glibc raises its mmap
# threshold when the first call frees a large block, so the second call's blocks of that size come
# from the heap, which grows (page faults) and then keeps them; from the third call on, they are
# reused (records/warm-up/README.md).
UNTIMED_CALLS = 2


def untimed_call(case, cell, call, **fields):
    """In ``setup``: ``UNTIMED_CALLS`` full calls of what the case times, untimed, their results
    dropped, so that the samples pay none of a process's first-call costs (the allocators' pools
    and thresholds settling, pages of the libraries faulted in, per-schema set-up, a JVM's
    compilation). Traced once, as the "first call", with the number of calls.

    A full collection comes between the calls, so that nothing of the first holds pages of a file
    (a memory map) or the pool, and never after the last: it walks every object the process holds
    (0.1 s after the forkserver's imports) and leaves the CPU's caches cold, so the first sample
    would pay for refilling them (a millisecond of a 1 ms Arrow read) and the later ones not."""
    for i in range(UNTIMED_CALLS):
        if i:
            gc.collect()
        result = call()
        if hasattr(result, "columns"):  # a frame, or an Arrow table
            fields["rows"] = len(result)
        elif isinstance(result, bytes):
            fields["bytes"] = len(result)
        del result
    trace(case, "first call", cell, calls=UNTIMED_CALLS, **fields)


def first_call(case, fmt, source, hints, cell):
    """``untimed_call`` of a read: one full read of ``source``; a warm and a cold case of a cell
    make the same one."""
    untimed_call(
        case,
        cell,
        lambda: fmt.read(source, **hints),
        format=fmt.name,
        hints=dict((k, list(v)) for k, v in hints.items()),
        source=source if not isinstance(source, bytes) else "%d bytes" % len(source),
    )


def hints(source, variant):
    """What a reader is told, as a user would tell it: datetimes, categoricals, numeric-looking text."""
    return CATALOG.sources[source].dataset.read_hints(variant)


def warm(path):
    """Read ``path`` once, so that its pages are in the page cache."""
    with open(path, "rb") as f:
        while f.read(1 << 22):
            pass


def loads_once(setup):
    """asv runs ``setup`` again before every sample (asv_runner >= 0.3), so that a case that
    changes its state starts afresh each time. These cases change nothing they set up, so a
    cell's inputs are loaded once per process, not once per sample."""

    @functools.wraps(setup)
    def setup_once(self, *params):
        if getattr(self, "_loaded_for", None) != params:
            setup(self, *params)
            self._loaded_for = params

    return setup_once


def selected(cls, given):
    """Whether asv's ``-b`` of this run selects the cell ``given`` (parameter values) of ``cls``."""
    return SELECTED is None or selects(SELECTED, cls, given)


def selects(regex, cls, given):
    """Whether asv's ``-b`` ``regex`` selects a benchmark of ``cls`` at the cell ``given``: asv
    searches it in "module.Class.method(param, ...)", each parameter as its repr."""
    prefix = "%s.%s." % (cls.__module__.rsplit(".", 1)[-1], cls.__name__)
    params = "(%s)" % ", ".join(repr(p) for p in given)
    return any(
        re.search(regex, prefix + method + params)
        for method in dir(cls)
        if method.startswith(("time_", "peakmem_", "track_"))
    )


def build_every_cell(cls, build):
    """In ``setup_cache``, which asv runs in a process of its own before a class's cases:
    ``build(*given)`` for each of the class's cells this run selects, so that no case builds its
    cell in its own process, where its peak memory would hold the build (a month's
    ``peakmem_first_partition`` read 828 MiB where its case built the files, 465 MiB where this
    had). A cell that cannot be built is left for its case's ``setup`` to skip or fail, saying why."""
    for given in itertools.product(*cls.params):
        if selected(cls, given):
            try:
                build(*given)
            except Exception:  # NotImplementedError (a skip), FrameMismatch: raised again in setup
                pass


def build_files(operation, partitioned=False):
    """``build_every_cell``'s ``build`` of a file case: the cell's checked file (each partition's),
    and where the operation times another reader (``Operation.reader``), that reader checked."""
    reader = CATALOG.get_operation(operation).reader

    def build(source, format, variant="plain"):
        if CATALOG.skip_reason(operation, source, format, variant, PROFILE, VERSIONS) is None:
            for partition in CELLS.partitions(source) if partitioned else [None]:
                if reader:
                    CELLS.checked_reader(source, CATALOG.format_for(source, format), variant, reader, partition)
                else:
                    CELLS.checked_file(source, CATALOG.format_for(source, format), variant, partition)

    return build


class Case(object):
    """What every case shares: one call per sample, no warm-up calls (setup's tiny round trip
    has warmed the format up), and time enough for the `full` profile."""

    number = 1
    warmup_time = 0
    timeout = FULL_SCALE_TIMEOUT
    measures = DATA

    @classmethod
    def held_kinds(cls, given):
        """The kinds of the run's held servers (``dsib.servers.HELD_KINDS``) that the cell ``given``
        works in: none, for a case whose work stays in its own process."""
        return ()
