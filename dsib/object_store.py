"""An S3-compatible object store on 127.0.0.1: s3proxy, its jar pinned from Maven Central, storing
objects in a directory (jclouds' filesystem backend), with a counting proxy in front of it for each
latency the cases measure (``dsib.s3_proxy``).

s3proxy is one jar, runs on the Java the QuestDB server needs, and speaks the S3 protocol that
pyarrow's and fsspec's clients speak (signed requests, ranged GETs, multipart uploads and the new
checksum headers). ``moto``'s server, the alternative on PyPI, is a Python process whose own time
would sit on the same two cores as the read it serves, and would need a Python beside every
benchmark environment's. Facts behind the choice: records/prototypes/object-store-2026-11-28.md.
"""

import os
import shutil
import signal
import sys

from .questdb_server import downloads_dir, jar_unavailable
from .server_process import LOOPBACK, START_TIMEOUT, Server, free_port

S3PROXY_VERSION = "4.1.0"
S3PROXY_SHA1 = "0a0b89e982bc1b1b5757d45b61109e05a840dd87"
S3PROXY_URL = "https://repo1.maven.org/maven2/org/gaul/s3proxy/{v}/s3proxy-{v}-jar-with-dependencies.jar".format(
    v=S3PROXY_VERSION
)
# The run's own store: fixed credentials, every request signed as a cloud store's are.
IDENTITY, CREDENTIAL, REGION = "dsib", "dsib-secret", "us-east-1"
BUCKET = "dsib"
# The latencies a read is measured at, in milliseconds a request: none (the store on this machine)
# and a round trip to a store in the same region.
DELAYS_MS = (0, 20)


def s3proxy_jar():
    return os.path.join(downloads_dir(), "s3proxy-%s-jar-with-dependencies.jar" % S3PROXY_VERSION)


def object_store_unavailable():
    """Why no object store can be started here, or None."""
    return jar_unavailable("s3proxy %s" % S3PROXY_VERSION, s3proxy_jar(), S3PROXY_SHA1)


def _answers(port):
    """Whether an HTTP server answers on ``port`` (an unsigned request gets 403: an answer)."""
    from urllib.error import HTTPError
    from urllib.request import urlopen

    try:
        urlopen("http://%s:%d/" % (LOOPBACK, port), timeout=5).close()
    except HTTPError:
        pass
    return True


class ObjectStore(Server):
    """s3proxy on a free port of 127.0.0.1, its objects under ``directory/objects``."""

    def __init__(self, directory):
        reason = object_store_unavailable()
        if reason:
            raise NotImplementedError(reason)
        objects = os.path.join(directory, "objects")
        os.makedirs(objects, exist_ok=True)
        port = free_port()
        properties = os.path.join(directory, "s3proxy.properties")
        with open(properties, "w") as f:
            f.write(
                "\n".join(
                    [
                        "s3proxy.endpoint=http://%s:%d" % (LOOPBACK, port),
                        "s3proxy.authorization=aws-v2-or-v4",
                        "s3proxy.identity=%s" % IDENTITY,
                        "s3proxy.credential=%s" % CREDENTIAL,
                        "jclouds.provider=filesystem",
                        "jclouds.filesystem.basedir=%s" % objects,
                        "jclouds.identity=%s" % IDENTITY,
                        "jclouds.credential=%s" % CREDENTIAL,
                    ]
                )
                + "\n"
            )
        # SIGTERM: Jetty shuts down (exit code 143).
        argv = [shutil.which("java"), "-jar", s3proxy_jar(), "--properties", properties]
        super(ObjectStore, self).__init__("s3proxy", argv, directory, port, stop_signal=signal.SIGTERM)

    def start(self, timeout=START_TIMEOUT):
        return super(ObjectStore, self).start(lambda: _answers(self.port), timeout)


class CountingProxy(Server):
    """``dsib.s3_proxy`` in front of the store on ``upstream_port``, ``delay_ms`` a request."""

    def __init__(self, directory, upstream_port, delay_ms):
        os.makedirs(directory, exist_ok=True)
        port = free_port()
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        argv = [sys.executable, "-m", "dsib.s3_proxy", str(port), str(upstream_port), str(delay_ms)]
        env = dict(os.environ, PYTHONPATH=root)
        super(CountingProxy, self).__init__("dsib.s3_proxy", argv, directory, port, env=env)
        self.delay_ms = delay_ms

    def start(self, timeout=START_TIMEOUT):
        from .s3_proxy import counts

        return super(CountingProxy, self).start(lambda: counts(self.port, timeout=5) is not None, timeout)


def start(directory):
    """The store with the run's bucket and a proxy for each of ``DELAYS_MS``, started in
    ``directory``: (the servers, in the order to stop them, and what a client needs of them)."""
    store = ObjectStore(os.path.join(directory, "store")).start()
    started = [store]
    try:
        ObjectStoreAddress({"pid": store.pid, "port": store.port, "proxies": {}}).create_bucket()
        for delay in DELAYS_MS:
            started.insert(0, CountingProxy(os.path.join(directory, "proxy-%d" % delay), store.port, delay).start())
    except BaseException:
        for server in started:
            server.stop()
        raise
    described = {
        "pid": store.pid,
        "port": store.port,
        "proxies": dict((str(p.delay_ms), p.port) for p in started if isinstance(p, CountingProxy)),
        "version": "s3proxy %s" % S3PROXY_VERSION,
    }
    return started, described


class ObjectStoreAddress(object):
    """What a client needs of the store: its port, each latency's proxy, the credentials."""

    def __init__(self, described):
        self.pid, self.port = described["pid"], described["port"]
        self.proxies = dict((int(delay), port) for delay, port in described["proxies"].items())

    def endpoint(self, delay_ms=None):
        """``host:port`` of the store itself (None) or of the proxy adding ``delay_ms``."""
        return "%s:%d" % (LOOPBACK, self.port if delay_ms is None else self.proxies[delay_ms])

    def pyarrow_filesystem(self, delay_ms=None, **options):
        """pyarrow's S3 client of this store (pyarrow 2.0 and later), path-style on 127.0.0.1, with
        pyarrow's other ``options``."""
        from pyarrow.fs import S3FileSystem

        return S3FileSystem(
            access_key=IDENTITY,
            secret_key=CREDENTIAL,
            region=REGION,
            scheme="http",
            endpoint_override=self.endpoint(delay_ms),
            **options,
        )

    def create_bucket(self):
        self.pyarrow_filesystem(allow_bucket_creation=True).create_dir(BUCKET)

    def storage_options(self, delay_ms=None):
        """What pandas' ``storage_options`` (fsspec's s3fs) needs to reach this store."""
        return {
            "key": IDENTITY,
            "secret": CREDENTIAL,
            "client_kwargs": {"endpoint_url": "http://%s" % self.endpoint(delay_ms), "region_name": REGION},
        }
