"""The object store (dsib.object_store): a real s3proxy on 127.0.0.1 with its counting proxies,
reached by pyarrow's S3 client, and stopped by PID."""

import ipaddress
import itertools
import os
import time

import pandas as pd
import psutil
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dsib import object_store, server_process
from dsib.s3_proxy import counts

needs_store = pytest.mark.skipif(
    object_store.object_store_unavailable() is not None, reason=str(object_store.object_store_unavailable())
)

FRAME = pd.DataFrame(
    {"id": range(50_000), "fare": [i / 4 for i in range(50_000)], "hash": ["%064x" % i for i in range(50_000)]}
)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    started, described = object_store.start(str(tmp_path_factory.mktemp("object-store")))
    yield started, object_store.ObjectStoreAddress(described)
    for server in started:
        server.stop()


def _listening(pid):
    """The addresses ``pid`` listens on, IPv4 (a JVM's IPv6 socket bound to 127.0.0.1 says ::ffff:127.0.0.1)."""
    found = [c.laddr for c in psutil.Process(pid).net_connections(kind="inet") if c.status == psutil.CONN_LISTEN]
    return [(str(ipaddress.ip_address(a.ip).ipv4_mapped or a.ip) if ":" in a.ip else a.ip, a.port) for a in found]


@pytest.mark.server
@needs_store
def test_the_store_and_its_proxies_listen_on_loopback_alone(store):
    started, address = store
    assert sorted(address.proxies) == sorted(object_store.DELAYS_MS)
    for server in started:
        listening = _listening(server.pid)
        assert listening and all(ip == server_process.LOOPBACK for ip, _ in listening), (server, listening)


@pytest.mark.server
@needs_store
@pytest.mark.parametrize("delay", object_store.DELAYS_MS)
def test_a_parquet_read_through_a_proxy_is_the_frame_written_and_is_counted(store, delay):
    _, address = store
    key = "%s/counted-%d.parquet" % (object_store.BUCKET, delay)
    upload = address.pyarrow_filesystem(delay)
    counts(address.proxies[delay])
    pq.write_table(pa.Table.from_pandas(FRAME, preserve_index=False), key, filesystem=upload)
    written = counts(address.proxies[delay])
    size = address.pyarrow_filesystem().get_file_info(key).size
    assert written["requests"] >= 1 and written["bytes_from_client"] >= size, written
    read = pq.read_table(key, filesystem=address.pyarrow_filesystem(delay), pre_buffer=False).to_pandas()
    pd.testing.assert_frame_equal(read, FRAME)
    got = counts(address.proxies[delay])
    assert got["methods"].get("GET", 0) >= 1 and got["bytes_from_server"] >= size, got
    assert got["requests"] == sum(got["methods"].values())
    again = counts(address.proxies[delay])
    assert again["requests"] == 0 and again["bytes_from_server"] == 0, (
        "the counts' own request is neither counted nor kept"
    )


@pytest.mark.server
@needs_store
def test_a_projection_reads_fewer_bytes_than_the_whole_file(store):
    _, address = store
    key = "%s/projected.parquet" % object_store.BUCKET
    pq.write_table(pa.Table.from_pandas(FRAME, preserve_index=False), key, filesystem=address.pyarrow_filesystem())
    proxy = address.proxies[0]
    sent = {}
    for columns in (None, ["id"]):
        counts(proxy)
        pq.read_table(key, filesystem=address.pyarrow_filesystem(0), columns=columns, pre_buffer=True)
        sent[str(columns)] = counts(proxy)["bytes_from_server"]
    assert sent["['id']"] < sent["None"] / 2, sent


def test_a_jar_that_is_not_the_pinned_one_is_refused_with_its_reason(tmp_path, monkeypatch):
    monkeypatch.setenv("DSIB_SERVERS_DIR", str(tmp_path))
    reason = object_store.object_store_unavailable()
    assert reason.startswith("the s3proxy %s jar is not at " % object_store.S3PROXY_VERSION), reason
    with open(object_store.s3proxy_jar(), "wb") as f:
        f.write(b"not a jar")
    reason = object_store.object_store_unavailable()
    assert "is not s3proxy %s's jar" % object_store.S3PROXY_VERSION in reason and "make servers" in reason, reason


@pytest.mark.server
@needs_store
def test_stopping_ends_every_process_and_frees_every_port(tmp_path):
    started, described = object_store.start(str(tmp_path))
    pids = [(server.pid, server.port) for server in started]
    codes = [server.stop() for server in started]
    assert codes[-1] == 143, "s3proxy's JVM shuts down on SIGTERM"
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(server_process.port_open(port) for _, port in pids):
        time.sleep(0.1)
    assert not any(psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE for pid, _ in pids)
    assert not any(server_process.port_open(port) for _, port in pids)
    assert os.path.isdir(os.path.join(str(tmp_path), "store", "objects", object_store.BUCKET))


@pytest.mark.server
@needs_store
@pytest.mark.parametrize("format", ["parquet", "feather", "csv"])
def test_every_reader_of_the_object_store_case_gives_back_the_frame_written(store, format):
    """The case's readers (whole, three columns, fetched ahead where the format can) on the object
    opened through each client (pyarrow's S3 client, s3fs), as the case opens it, against the frame
    written; those a format has not say why."""
    from benchmarks import VERSIONS
    from benchmarks.objectstore import CLIENTS, COLUMNS, PRE_BUFFER, opener, reader_of

    from dsib import catalog
    from dsib.fidelity import assert_same_frame
    from dsib.formats import FORMATS
    from dsib.roundtrip import hints_for

    _, address = store
    fmt = FORMATS[format]
    frame = FRAME.assign(
        pickup=pd.date_range("2016-01-01", periods=len(FRAME), freq="s").astype("datetime64[ns]"),
        vendor=pd.Categorical(["v%d" % (i % 7) for i in range(len(FRAME))]),
    )
    hints = {"datetimes": ("pickup",), "categoricals": ("vendor",), "texts": ()}
    key = "%s/readers/frame%s" % (object_store.BUCKET, fmt.suffix)
    with address.pyarrow_filesystem().open_output_stream(key) as sink:
        sink.write(fmt.write(frame))
    read_some = 0
    for client, columns, pre_buffer in itertools.product(CLIENTS, COLUMNS, PRE_BUFFER):
        given = dict(source="nyc_taxi", format=format, variant="cat", client=client, columns=columns)
        given["pre_buffer"] = pre_buffer
        reason = catalog.BUILT_IN.cell_skip_reason("read_from_object_store", given, "tiny", VERSIONS)
        if reason:
            assert pre_buffer == "on" and format != "parquet" and "pre_buffer is Parquet's" in reason, reason
            continue
        read = reader_of(fmt, columns, pre_buffer)
        names = ["id", "fare", "vendor"] if columns == "three" else None
        told = hints if names is None else hints_for(hints, names)
        proxy = address.proxies[0]
        counts(proxy)
        got = read(opener(address, client, 0)(key), names, **told)
        assert counts(proxy)["requests"] > 0, "the client went through the counting proxy"
        expected = frame if names is None else frame[names]
        assert_same_frame(expected, got, fmt.losses(), context="%s %s %s %s" % (format, client, columns, pre_buffer))
        read_some += 1
    assert read_some == len(CLIENTS) * (4 if format == "parquet" else 2)


def test_the_s3fs_client_skips_saying_why_where_it_is_not_installed():
    from dsib import catalog

    given = dict(source="nyc_taxi", format="parquet", variant="plain", client="s3fs", columns="all")
    given["pre_buffer"] = "off"
    without = {"pandas": "2.2.3", "pyarrow": "17.0.0", "numpy": "1.26.4"}
    reason = catalog.BUILT_IN.cell_skip_reason("read_from_object_store", given, "tiny", without)
    assert reason == "the s3fs client: s3fs is not installed in this environment"
    assert (
        catalog.BUILT_IN.cell_skip_reason("read_from_object_store", given, "tiny", dict(without, s3fs="2026.9.0"))
        is None
    )
    pyarrow_client = dict(given, client="pyarrow")
    assert catalog.BUILT_IN.cell_skip_reason("read_from_object_store", pyarrow_client, "tiny", without) is None


@pytest.mark.server
@needs_store
def test_pre_buffer_changes_the_number_of_requests_a_parquet_read_makes(store):
    """Three adjacent of ten columns in four row groups, counted at the proxy: read as they come,
    each column chunk is a request of its own; fetched ahead (pre_buffer), a row group's adjacent
    chunks are coalesced into one request. The frame is the same either way."""
    _, address = store
    wide = pd.DataFrame(dict(("c%d" % i, [float(j * i) for j in range(40_000)]) for i in range(10)))
    key = "%s/wide.parquet" % object_store.BUCKET
    pq.write_table(
        pa.Table.from_pandas(wide, preserve_index=False),
        key,
        filesystem=address.pyarrow_filesystem(),
        row_group_size=10_000,
    )
    proxy, counted = address.proxies[0], {}
    for pre_buffer in (False, True):
        filesystem = address.pyarrow_filesystem(0)
        counts(proxy)
        got = pq.read_table(key, filesystem=filesystem, columns=["c1", "c2", "c3"], pre_buffer=pre_buffer).to_pandas()
        counted[pre_buffer] = counts(proxy)
        pd.testing.assert_frame_equal(got, wide[["c1", "c2", "c3"]])
    assert counted[True]["requests"] < counted[False]["requests"], counted
    assert counted[True]["methods"].get("GET", 0) < counted[False]["methods"].get("GET", 0), counted
