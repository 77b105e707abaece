"""Reads from an object store: the taxi frame's files where most data scientists' Parquet lives.

The store is the run's own (``dsib.object_store``: s3proxy on 127.0.0.1, its objects in a
directory, held for the whole run by ``make run``), reached through a counting proxy that adds a
fixed delay to every request (0 ms: the store on this machine; 20 ms: a round trip to a store in
the same region). The delay is the model of a network; the requests and the bytes the store sent,
counted by the proxy, are the facts a network cannot blur.
"""

import os

from dsib import catalog
from dsib.fidelity import FrameMismatch, assert_same_frame
from dsib.object_store import BUCKET, DELAYS_MS
from dsib.roundtrip import hints_for
from dsib.s3_proxy import counts
from dsib.servers import held, not_held

from . import (
    CATALOG,
    CELLS,
    PARAM_NAMES,
    PROFILE,
    SAMPLES,
    VERSIONS,
    Case,
    build_every_cell,
    hints,
    loads_once,
    ready,
    series,
    untimed_call,
)

# The client that fetches the object: pyarrow's S3 client, or s3fs (fsspec's, as pandas'
# storage_options path opens it), each reading into the same format's reader.
CLIENTS = tuple(catalog.CLIENTS)
# s3fs's file fetches ahead in blocks: its defaults (fsspec's "readahead" cache, 50 MiB blocks),
# stated, so that a release that changes them changes nothing here.
S3FS_FILE = {"block_size": 50 * 2**20, "cache_type": "readahead"}
# What a read asks of its file: every column, or three (``catalog.projection``).
COLUMNS = ("all", "three")
# Whether the reader fetches the byte ranges it needs ahead, coalesced (Parquet's pre_buffer).
PRE_BUFFER = ("off", "on")


def object_key(path):
    """The key a cell's file is stored under: its place in the cells' cache, which names the
    profile, source, format, variant and the build (so a rebuilt file is another object)."""
    return "%s/%s" % (BUCKET, os.path.relpath(path, CELLS.cache_dir).replace(os.sep, "/"))


def upload(store, path):
    """``path`` into the store (through no proxy), where its object is not there yet: its key."""
    import shutil

    from pyarrow.fs import FileType

    key = object_key(path)
    filesystem = store.pyarrow_filesystem()
    if filesystem.get_file_info(key).type != FileType.File:
        with open(path, "rb") as source, filesystem.open_output_stream(key) as sink:
            shutil.copyfileobj(source, sink, 1 << 22)
    return key


def opener(store, client, delay_ms=None):
    """``open(key)``: the object as a readable file, through ``client`` (one a process, its
    connections kept alive as a user's are), at the proxy adding ``delay_ms`` (None: the store)."""
    if client == "pyarrow":
        return store.pyarrow_filesystem(delay_ms).open_input_file
    import s3fs

    filesystem = s3fs.S3FileSystem(skip_instance_cache=True, **store.storage_options(delay_ms))
    return lambda key: filesystem.open(key, "rb", **S3FS_FILE)


def reader_of(fmt, columns, pre_buffer):
    """The format's reader a cell times (``catalog.store_reader``), as ``call(source, names, **hints)``."""
    name = catalog.store_reader(columns, pre_buffer)
    if name == "read":
        return lambda source, names, **told: fmt.read(source, **told)
    return lambda source, names, **told: getattr(fmt, name)(source, names, **told)


class ReadFromObjectStore(Case):
    """A cell's file read into pandas from the run's object store through a client, pyarrow's
    (``pyarrow.fs.S3FileSystem``) or s3fs (fsspec's, the path of pandas' ``storage_options``), one
    a process, its connections kept alive as a user's are: the object opened and read by the
    format's own reader, whole or three of its columns, Parquet with pre_buffer off and on, at each
    delay a request (0 and 20 ms). The
    file is the one every read case of the cell reads, uploaded once by ``setup_cache``; what the
    store gives back is checked once against the frame written. ``track_requests`` and
    ``track_bytes_from_server`` count one read's requests and the bytes the store sent, at the
    proxy."""

    version = series(2)
    operation = "read_from_object_store"
    measures = Case.measures + ("dsib.s3_proxy",)
    params = CATALOG.params(operation) + [list(CLIENTS), list(COLUMNS), list(PRE_BUFFER), list(DELAYS_MS)]
    param_names = PARAM_NAMES + ["client", "columns", "pre_buffer", "delay_ms"]
    rounds = 1
    repeat = SAMPLES

    @classmethod
    def held_kinds(cls, given):
        return ("s3",)  # every cell reads through the run's object store

    def setup_cache(self):
        store = held("s3")
        if store is None:
            return  # each case skips, saying why

        def build(*given):
            if CATALOG.cell_skip_reason(self.operation, dict(zip(self.param_names, given)), PROFILE, VERSIONS) is None:
                upload(store, CELLS.checked_file(given[0], CATALOG.format_for(given[0], given[1]), given[2])["path"])

        build_every_cell(type(self), build)

    @loads_once
    def setup(self, source, format, variant, client, columns, pre_buffer, delay_ms):
        given = (source, format, variant, client, columns, pre_buffer, delay_ms)
        reason = CATALOG.cell_skip_reason(self.operation, dict(zip(self.param_names, given)), PROFILE, VERSIONS)
        store = held("s3")
        if reason or store is None:
            raise NotImplementedError(reason or not_held("s3"))
        self.fmt = ready(self.operation, source, format, variant)
        read = reader_of(self.fmt, columns, pre_buffer)
        path = CELLS.checked_file(source, self.fmt, variant)["path"]
        key = upload(store, path)
        names = CELLS.checked_reader(source, self.fmt, variant, "columns")["columns"] if columns == "three" else None
        told = hints(source, variant) if names is None else hints_for(hints(source, variant), names)
        self.port = store.proxies[delay_ms]
        open_object = opener(store, client, delay_ms)
        self.call = lambda: read(open_object(key), names, **told)

        def check(frame):
            """What the store gives back through this client and reader against the frame written:
            None, or what differs."""
            got = self.fmt.frame_of(read(opener(store, client)(key), names, **told), told)
            try:
                assert_same_frame(frame if names is None else frame[list(names)], got, self.fmt.losses())
            except FrameMismatch as exc:
                return "%s read from the object store (%s): %s" % (self.fmt.name, key, exc)
            return None

        CELLS.checked_once(source, variant, "object-store-%s-%s-%s-%s" % (format, client, columns, pre_buffer), check)
        untimed_call(self, given, self.call, key=key)

    def time_read(self, source, format, variant, client, columns, pre_buffer, delay_ms):
        self.call()

    def _counted(self, what):
        counts(self.port)  # the counts since the last ask, dropped
        self.call()
        return counts(self.port)[what]

    def track_requests(self, source, format, variant, client, columns, pre_buffer, delay_ms):
        return self._counted("requests")

    track_requests.unit = "requests"

    def track_bytes_from_server(self, source, format, variant, client, columns, pre_buffer, delay_ms):
        return self._counted("bytes_from_server")

    track_bytes_from_server.unit = "bytes"
