"""Each cell's file, built when a case first needs it, checked once, and kept by content.

A read case needs a file written by its environment's own writer and read back against the frame
that was written. It is built in the ``setup`` of the first case that needs it, so running one
format's cases builds that format's files only, and it is kept in a cache directory under a key
of everything it depends on:

- the installed ``dsib`` and ``data_prep`` (asv installs each commit's: a changed adapter or
  generator builds anew), the interpreter and every installed distribution (the writer's
  library versions);
- the stored data (the sha256 of its manifest, which holds every file's checksum), the rows,
  the partition, the format and the variant.

The same key always names the same bytes, so every case and every round of a run, and every later
run of the same code, reuse one build; a comparison of two commits keeps both commits' builds
(``KEEP`` per cell). A build is made in a temporary directory and renamed into place with its
outcome written last: an interrupted build is never used. The frames the writes start from are
kept the same way, pickled.

The cache lives in ``$DSIB_CACHE_DIR``, by default ``.cache`` inside the data directory.
"""

import fcntl
import functools
import hashlib
import json
import os
import pickle
import shutil
import sys
import sysconfig
import uuid

from data_prep import frame_nbytes, load_frame, open_dataset
from data_prep.store import data_bytes

from . import environment
from .catalog import Catalog, BatchSize, batch_size, projection, take_positions
from .engines import TABLE
from .fidelity import FrameMismatch
from .roundtrip import (
    check_batches,
    check_columns,
    check_take,
    hints_for,
    ingest_and_check,
    raise_for_outcome,
    write_and_check,
    write_atomic,
)

KEEP = 2  # builds kept per cell: the two commits of a comparison
OUTCOME = "outcome.json"


@functools.lru_cache(maxsize=None)
def code_fingerprint():
    """What a build depends on besides its data: the installed dsib and data_prep sources, the
    interpreter, and every installed distribution (name and version, from their dist-info)."""
    import data_prep

    digest = hashlib.sha256(sys.version.encode("utf-8"))
    here = os.path.dirname(os.path.abspath(__file__))
    for root in (here, os.path.dirname(os.path.abspath(data_prep.__file__))):
        for directory, dirs, files in sorted(os.walk(root)):
            dirs.sort()
            for filename in sorted(f for f in files if f.endswith(".py")):
                with open(os.path.join(directory, filename), "rb") as f:
                    digest.update(os.path.relpath(os.path.join(directory, filename), root).encode("utf-8"))
                    digest.update(f.read())
    for libdir in sorted(set(sysconfig.get_paths()[key] for key in ("purelib", "platlib"))):
        if os.path.isdir(libdir):
            digest.update(repr(sorted(n for n in os.listdir(libdir) if n.endswith(".dist-info"))).encode("utf-8"))
    return digest.hexdigest()


def _key(*parts):
    return hashlib.sha256(json.dumps([code_fingerprint()] + list(parts)).encode("utf-8")).hexdigest()[:24]


def _evict_older(cell_dir, keep):
    """Keep the ``keep`` most recently used builds of a cell."""
    builds = [os.path.join(cell_dir, n) for n in os.listdir(cell_dir) if not n.startswith(".")]
    builds.sort(key=lambda p: os.path.getmtime(p), reverse=True)
    for stale in builds[keep:]:
        shutil.rmtree(stale, ignore_errors=True)


def _built(cell_dir, key, build):
    """The directory of ``key`` under ``cell_dir``, made by ``build(tmpdir)`` unless it exists.

    Builders of one cell take turns (an exclusive ``flock`` on ``cell_dir/.lock``): two runs
    sharing the cache, such as two environments' runs side by side, never remove each other's
    build in progress, and the second finds the first's build done."""
    final = os.path.join(cell_dir, key)
    if os.path.exists(os.path.join(final, OUTCOME)):
        os.utime(final, None)  # recently used
        return final
    os.makedirs(cell_dir, exist_ok=True)
    with open(os.path.join(cell_dir, ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if os.path.exists(os.path.join(final, OUTCOME)):  # built while this process waited
                os.utime(final, None)
                return final
            for name in os.listdir(cell_dir):
                if name.startswith(".tmp-"):  # an interrupted build: its builder held the lock
                    shutil.rmtree(os.path.join(cell_dir, name), ignore_errors=True)
            if os.path.isdir(final):
                shutil.rmtree(final)  # no outcome: never finished
            tmp = os.path.join(cell_dir, ".tmp-%d-%s" % (os.getpid(), uuid.uuid4().hex[:8]))
            os.makedirs(tmp)
            try:
                outcome = build(tmp)
                with open(os.path.join(tmp, OUTCOME + ".partial"), "w") as f:
                    json.dump(outcome, f)
                os.rename(os.path.join(tmp, OUTCOME + ".partial"), os.path.join(tmp, OUTCOME))
                os.rename(tmp, final)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
            _evict_older(cell_dir, KEEP)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return final


def _outcome(built):
    """A build's outcome, its ``path`` (relative, as the build wrote it) joined to where it is."""
    with open(os.path.join(built, OUTCOME)) as f:
        outcome = json.load(f)
    if outcome["path"]:
        outcome["path"] = os.path.join(built, outcome["path"])
    return outcome


def _culprits(fmt, frame, hints, tmp, error, refused=()):
    """``error`` of a format on a whole table, said column by column where each column alone
    shows it: which columns the format cannot write or give back, and how."""
    import numpy as np
    import pandas as pd

    found = []
    for name in frame.columns:
        alone = hints_for(hints, (name,))
        # Beside a column that is never null: a text format's row of one null is an empty line.
        probe = (
            pd.DataFrame({"row": np.arange(len(frame)), name: frame[name]}, columns=["row", name])
            if name != "row"
            else frame[[name]]
        )
        outcome = write_and_check(
            fmt, probe, alone, os.path.join(tmp, "column" + fmt.suffix), from_bytes=False, refused=refused
        )
        if outcome["error"]:
            found.append("column %r (%s): %s" % (name, frame[name].dtype, outcome["error"].replace("\n", " ")))
    return "; ".join(found) if found else error


class Cells(object):
    """The cell files and frames of one profile and data directory, of the sources of ``catalog``
    (None: the built-in sources in ``data_dir``)."""

    def __init__(self, profile, data_dir, cache_dir=None, catalog=None):
        self.profile = profile
        self.data_dir = data_dir
        self.cache_dir = cache_dir or environment.cache_dir(data_dir)
        self.catalog = catalog or Catalog(data_dir=data_dir)
        self._stores = {}

    def store(self, source):
        stored = self.catalog.sources[source].stored
        if stored not in self._stores:
            self._stores[stored] = open_dataset(stored, self.profile, self.data_dir, verify="on_load")
        return self._stores[stored]

    def partitions(self, source):
        return self.store(source).partitions

    def _where(self, source, *parts):
        return os.path.join(self.cache_dir, self.profile, source, *parts)

    def frame(self, source, variant, partition=None):
        """The frame of a cell, as the store makes it (verified on load). The first partition's,
        which every write case starts from, is kept pickled: loading it takes a case's setup tens
        of milliseconds instead of deriving the variant again."""
        src, store = self.catalog.sources[source], self.store(source)
        partition = partition or store.partitions[0]
        rows = src.rows(self.profile)
        if partition != store.partitions[0]:
            return load_frame(None, variant, partition, store=store, dataset=src.stored, rows=rows)
        key = _key("frame", store.digest, partition, rows, variant)

        def build(tmp):
            frame = load_frame(None, variant, partition, store=store, dataset=src.stored, rows=rows)
            with open(os.path.join(tmp, "frame.pickle"), "wb") as f:
                pickle.dump(frame, f, pickle.HIGHEST_PROTOCOL)
            return {"frame_bytes": frame_nbytes(frame), "rows": len(frame)}

        built = _built(self._where(source, "_frames", variant, partition), key, build)
        with open(os.path.join(built, "frame.pickle"), "rb") as f:
            return pickle.load(f)

    def file(self, source, fmt, variant, partition=None):
        """The outcome of a cell's file (``path``, ``bytes``, ``losses``, ``frame_bytes``; ``skip``
        or ``error`` where it could not be made or did not read back the same frame)."""
        src, store = self.catalog.sources[source], self.store(source)
        partition = partition or store.partitions[0]
        key = _key("file", store.digest, partition, src.rows(self.profile), variant, fmt.name)
        hints = src.dataset.read_hints(variant)

        def build(tmp):
            frame = self.frame(source, variant, partition)
            refused = getattr(src.dataset, "refused_losses", ())  # a table brought with --strict
            outcome = write_and_check(
                fmt,
                frame,
                hints,
                os.path.join(tmp, "file" + fmt.suffix),
                from_bytes=self.catalog.read_from_bytes(source),
                refused=refused,
            )
            if src.own and outcome["error"]:  # the user's data, not the suite's: say what it cannot hold
                outcome["skip"] = "%s cannot hold this table: %s" % (
                    fmt.label,
                    _culprits(fmt, frame, hints, tmp, outcome["error"], refused),
                )
                outcome["error"] = None
            outcome["path"] = "file" + fmt.suffix if outcome["bytes"] is not None else None
            outcome["frame_bytes"] = frame_nbytes(frame)
            return outcome

        built = _built(self._where(source, fmt.name, variant, partition), key, build)
        outcome = _outcome(built)
        if outcome["path"] and os.path.getsize(outcome["path"]) != outcome["bytes"]:
            raise OSError(
                "%s is not the %d bytes it was built with: remove %s" % (outcome["path"], outcome["bytes"], built)
            )
        return outcome

    def checked_file(self, source, fmt, variant, partition=None):
        """``file``'s outcome, raised as asv's skip or failure where it has one."""
        outcome = self.file(source, fmt, variant, partition)
        raise_for_outcome(outcome)
        return outcome

    def checked_reader(self, source, fmt, variant, reader, partition=None):
        """The cell's file (or the file the reader reads, ``Reader.writes``) read by ``fmt``'s
        ``reader`` (``columns``: its ``projection``; ``batches``: a tenth of the file at a time, put
        together; ``take``: the rows at ``take_positions``) and compared with the frame, once per
        cell and kept as files are, so that no case's process (its peak memory) holds the frame.
        Returns what a case asks: ``path``, ``columns``, ``size`` (a ``BatchSize``), ``rows``;
        raised as asv's skip or failure where the check has one."""
        src, store = self.catalog.sources[source], self.store(source)
        partition = partition or store.partitions[0]
        path = self.checked_file(source, fmt, variant, partition)["path"]
        key = _key(reader, store.digest, partition, src.rows(self.profile), variant, fmt.name)
        writes = getattr(fmt, reader).writes

        def build(tmp):
            frame = self.frame(source, variant, partition)
            hints = src.dataset.read_hints(variant)
            outcome = {
                "path": None,
                "skip": None,
                "error": None,
                "losses": [],
                "columns": projection(frame.columns),
                "size": batch_size(len(frame), os.path.getsize(path)),
                "rows": len(frame),
            }
            read_from = path
            try:
                if writes is not None:  # a file written for this reader (row groups, record batches of a batch)
                    outcome["path"] = reader + fmt.suffix
                    read_from = os.path.join(tmp, outcome["path"])
                    write_atomic(read_from, writes(frame, outcome["size"]))
                if reader == "columns":
                    outcome["losses"] = check_columns(fmt, frame, hints, read_from, outcome["columns"])
                elif reader == "take":
                    outcome["losses"] = check_take(fmt, frame, hints, read_from, take_positions(len(frame)))
                else:
                    outcome["losses"] = check_batches(fmt, frame, hints, read_from, outcome["size"])
            except FrameMismatch as exc:
                outcome["error"] = str(exc)
            except Exception as exc:  # one cell fails, not the whole run
                outcome["error"] = "%s's %s reader failed on its file: %s: %s" % (
                    fmt.name,
                    reader,
                    type(exc).__name__,
                    exc,
                )
            if src.own and outcome["error"]:  # the user's data: say what this reader cannot do with it
                outcome["skip"] = "%s's %s reader cannot give back this table: %s" % (
                    fmt.label,
                    reader,
                    outcome["error"],
                )
                outcome["error"] = None
            return outcome

        outcome = _outcome(_built(self._where(source, "%s.%s" % (fmt.name, reader), variant, partition), key, build))
        raise_for_outcome(outcome)
        outcome["path"] = outcome["path"] or path
        outcome["size"] = BatchSize(*outcome["size"])  # a list, as JSON keeps it
        return outcome

    def table(self, source, engine, variant):
        """The outcome of an engine's cell: a database (``path``, its directory) holding the cell's
        frame in ``dsib.engines.TABLE``, ingested by the engine and queried back against the frame
        once (``losses``; ``skip`` or ``error`` where it could not be made or came back another; a
        table you brought that an engine cannot give back skips, saying what differs)."""
        src, store = self.catalog.sources[source], self.store(source)
        partition = store.partitions[0]
        key = _key("table", store.digest, partition, src.rows(self.profile), variant, engine.name, engine.identity())
        hints = src.dataset.read_hints(variant)

        def build(tmp):
            outcome = ingest_and_check(engine, self.frame(source, variant), hints, os.path.join(tmp, "db"), TABLE)
            if src.own and outcome["error"]:  # the user's data: say what this engine cannot do with it
                outcome["skip"] = "%s cannot give back this table: %s" % (engine.label, outcome["error"])
                outcome["error"] = None
            outcome["path"] = "db" if not (outcome["skip"] or outcome["error"]) else None
            return outcome

        return _outcome(_built(self._where(source, "engine-" + engine.name, variant), key, build))

    def checked_table(self, source, engine, variant):
        """``table``'s outcome, raised as asv's skip or failure where it has one."""
        outcome = self.table(source, engine, variant)
        raise_for_outcome(outcome)
        return outcome

    def checked_once(self, source, variant, what, check):
        """``check(frame)`` of the cell's frame (None, or what differs), made once and kept as files
        are, so that no case's process (its peak memory) holds what the check made; raised as asv's
        failure where it found a difference. ``what`` names the check in the cache."""
        src, store = self.catalog.sources[source], self.store(source)
        partition = store.partitions[0]
        key = _key("check", what, store.digest, partition, src.rows(self.profile), variant)

        def build(tmp):
            return {"path": None, "skip": None, "error": check(self.frame(source, variant))}

        raise_for_outcome(_outcome(_built(self._where(source, "check-" + what, variant), key, build)))

    def data_bytes(self, source, variant):
        """``data_prep.store.data_bytes`` of the cell's frame: the same for every format of a source
        and variant, so counted once (a month's text takes a second to count) and kept as files are."""
        src, store = self.catalog.sources[source], self.store(source)
        partition, rows = store.partitions[0], src.rows(self.profile)
        key = _key("data-bytes", store.digest, partition, rows, variant)

        def build(tmp):
            counted = data_bytes(store, src.dataset, partition, variant, rows)
            return {"path": None, "skip": None, "error": None, "bytes": counted}

        return _outcome(_built(self._where(source, "_data_bytes", variant), key, build))["bytes"]

    def scratch(self, prefix):
        """A new directory of its own for a case's database, in the cache's file system, named
        after this process. Those of processes that have ended are removed first: asv ends a
        case's process with ``os._exit``, so a case that keeps its database to the end leaves it
        behind."""
        import tempfile

        where = os.path.join(self.cache_dir, self.profile, "_scratch")
        os.makedirs(where, exist_ok=True)
        for name in os.listdir(where):
            pid = name.rsplit("-", 2)[-2] if name.count("-") >= 2 else ""
            if pid.isdigit() and not _alive(int(pid)):
                shutil.rmtree(os.path.join(where, name), ignore_errors=True)
        scratch = tempfile.mkdtemp(prefix="%s%d-" % (prefix, os.getpid()), dir=where)
        os.chmod(scratch, 0o711)  # enterable (not listable) by a server's own user (dsib.servers)
        return scratch


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
