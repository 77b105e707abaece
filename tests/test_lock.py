"""The series lock: a change to what a benchmark measures fails until someone decides whether its
series continues or a new one starts. What it measures is found (the modules its module imports,
transitively, and the servers' versions and flags named in them), not listed."""

import functools
import os
import subprocess
import sys

import pytest

from benchmarks import batches, engines, prepare, reads, writes
from dsib import postgres_server, questdb_server
from dsib_tools import lock

from .conftest import snapshot_working_tree

ENGINE_CLASSES = ("engines.IngestIntoEngine", "engines.QueryFromEngine")
# The checks of an edited copy run `python -m dsib_tools lock` as a contributor does, a few seconds
# each (the suite's imports): 40 s of make test-fast's two minutes, so they are make test's.
SUBPROCESS_CHECKS = pytest.mark.slow


def _check(repo):
    return subprocess.run(
        [sys.executable, "-m", "dsib_tools", "lock", "--check"],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
    )


def _record(repo):
    return subprocess.run(
        [sys.executable, "-m", "dsib_tools", "lock"],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
    )


def _changed(name, n=None):
    n = _series_now()[name] if n is None else n
    return "%s: the code it measures changed and its series is still %d" % (name, n)


@functools.lru_cache(maxsize=None)
def _series_now():
    return dict((name, entry["series"]) for name, entry in lock.current().items())


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """A copy of the working tree, whose lock is green as it comes (the lock is the same on every
    copy: paths in the checkout, bytes as they are)."""
    path = str(tmp_path_factory.mktemp("lock") / "repo")
    snapshot_working_tree(path)
    proc = _check(path)
    assert proc.returncode == 0, proc.stdout
    return path


class Edit(object):
    """``old`` replaced by ``new`` in the copy's ``path`` for a ``with`` block, put back after."""

    def __init__(self, repo, path, old, new):
        self.path, self.old, self.new = os.path.join(repo, path), old, new

    def __enter__(self):
        with open(self.path) as f:
            self.original = f.read()
        assert self.original.count(self.old) == 1, "%r is not once in %s" % (self.old, self.path)
        with open(self.path, "w") as f:
            f.write(self.original.replace(self.old, self.new))
        return self

    def __exit__(self, *exc):
        with open(self.path, "w") as f:
            f.write(self.original)


def test_the_lock_records_the_suite_as_it_is():
    assert lock.problems() == [], "run python -m dsib_tools lock, after deciding each series"


@SUBPROCESS_CHECKS
def test_a_changed_batch_size_fails(repo):
    with Edit(repo, "dsib/catalog.py", "BATCHES_A_FILE = 10\n", "BATCHES_A_FILE = 20\n"):
        proc = _check(repo)
    assert proc.returncode == 1, proc.stdout
    for name in ("batches.IterateBatches", "batches.ContinuousReadInBatches"):
        assert _changed(name) in proc.stdout, proc.stdout
    assert _check(repo).returncode == 0


@SUBPROCESS_CHECKS
@pytest.mark.parametrize(
    "path, old, new",
    [
        ("dsib/postgres_server.py", '"timezone=UTC",', '"timezone=UTC", "-c", "fsync=off",'),
        (
            "dsib/questdb_server.py",
            '"telemetry.enabled=false",',
            '"telemetry.enabled=false", "cairo.max.uncommitted.rows=1000",',
        ),
        ("dsib/questdb_server.py", 'QUESTDB_VERSION = "9.3.4"', 'QUESTDB_VERSION = "9.3.5"'),
        ("dsib/postgres_server.py", "POSTGRES_MAJOR = 15\n", "POSTGRES_MAJOR = 16\n"),
        ("dsib/questdb_server.py", "JAVA_MAJOR = 17\n", "JAVA_MAJOR = 21\n"),
        ("dsib/spark_server.py", '"spark.sql.shuffle.partitions": "2"', '"spark.sql.shuffle.partitions": "4"'),
    ],
    ids=["postgres-flag", "questdb-server.conf", "questdb-jar", "postgres-major", "java-major", "spark-conf"],
)
def test_a_changed_server_flag_version_or_config_fails(repo, path, old, new):
    with Edit(repo, path, old, new):
        proc = _check(repo)
    assert proc.returncode == 1, proc.stdout
    for name in ENGINE_CLASSES:
        assert _changed(name) in proc.stdout, proc.stdout


@SUBPROCESS_CHECKS
def test_a_change_to_a_tool_module_or_a_test_is_quiet(repo):
    with Edit(repo, "dsib_tools/report_cells.py", "\nimport math\n", "\nimport math\n\nTOOL_CHANGE = 1\n"), Edit(
        repo, "tests/test_lock.py", "import os\n", "import os\nimport json\n"
    ):
        proc = _check(repo)
    assert proc.returncode == 0, proc.stdout


@SUBPROCESS_CHECKS
def test_a_comment_is_a_change_and_a_decision_clears_it(tmp_path):
    repo = str(tmp_path / "repo")
    snapshot_working_tree(repo)
    with open(os.path.join(repo, "dsib", "formats", "npy.py"), "a") as f:
        f.write("\n# a comment in the npy adapter\n")
    proc = _check(repo)
    assert proc.returncode == 1, proc.stdout
    n = lock.series_of(reads.ReadFromBytes)
    assert _changed("reads.ReadFromBytes", n) in proc.stdout
    # Deciding that the series continues, recorded:
    record = _record(repo)
    assert "reads.ReadFromBytes: code changed, series %d continues" % n in record.stdout, record.stdout
    assert _check(repo).returncode == 0


@SUBPROCESS_CHECKS
def test_a_new_series_is_a_recorded_decision_too(tmp_path):
    repo = str(tmp_path / "repo")
    snapshot_working_tree(repo)
    path = os.path.join(repo, "benchmarks", "reads.py")
    with open(path) as f:
        text = f.read()
    start, n = text.index("class ReadCold("), lock.series_of(reads.ReadCold)
    with open(path, "w") as f:
        f.write(text[:start] + text[start:].replace("version = series(%d)" % n, "version = series(%d)" % (n + 1), 1))
    proc = _check(repo)
    assert proc.returncode == 1 and "reads.ReadCold is now series %d (the lock has %d)" % (n + 1, n) in proc.stdout, (
        proc.stdout
    )
    record = _record(repo)
    assert "reads.ReadCold: series %d -> %d, a new series" % (n, n + 1) in record.stdout


@SUBPROCESS_CHECKS
def test_a_benchmark_of_its_own_series_is_recorded_and_its_new_series_is_a_decision(tmp_path):
    """The server's added memory of an engine's case is a series apart from the class's: the lock
    holds it under the class's ``methods``, and a new one fails until it is recorded."""
    name, method = "engines.IngestIntoEngine", "track_server_added_ingest"
    n, own = lock.series_of(engines.IngestIntoEngine), lock.method_series(engines.IngestIntoEngine)
    assert set(own) == {method} and own[method] != n, own
    assert lock.load()[name]["methods"] == own and "methods" not in lock.load()["reads.ReadCold"]
    repo = str(tmp_path / "repo")
    snapshot_working_tree(repo)
    with Edit(
        repo,
        "benchmarks/engines.py",
        "IngestIntoEngine.ingest, server_series=%d)" % own[method],
        "IngestIntoEngine.ingest, server_series=%d)" % (own[method] + 1),
    ):
        proc = _check(repo)
        assert proc.returncode == 1, proc.stdout
        said = "%s.%s is now series %d (the lock has %d)" % (name, method, own[method] + 1, own[method])
        assert said in proc.stdout and "QueryFromEngine.track_server_added_query" not in proc.stdout, proc.stdout
        record = _record(repo)
        assert "%s.%s: series %d -> %d, a new series" % (name, method, own[method], own[method] + 1) in record.stdout
        assert _check(repo).returncode == 0


def test_what_a_class_measures_is_found_in_its_imports():
    """Without a hand-listed module: the cold read's page-cache control, the batch sizes, the
    servers; the class's own module whole (its helpers beside it); never a tool."""
    found = dict(
        (cls, set(lock.measured_modules(cls)))
        for cls in (reads.ReadCold, batches.IterateBatches, engines.IngestIntoEngine, prepare.Prepare)
    )
    assert {"dsib.pagecache", "dsib.cells", "dsib.roundtrip", "dsib.fidelity"} <= found[reads.ReadCold]
    assert {"benchmarks.batches", "dsib.catalog"} <= found[batches.IterateBatches]
    assert {"dsib.servers", "dsib.engines.postgres", "dsib.engines.questdb"} <= found[engines.IngestIntoEngine]
    assert "dsib.pagecache" not in found[batches.IterateBatches]
    # data_prep's CLI, which writes the store every case reads, imported by none: the one addition.
    assert all("data_prep.build" in modules for modules in found.values())
    assert not any(name.startswith(("dsib_tools", "tests")) for modules in found.values() for name in modules)
    names = [name for name, _ in lock.measured_code(writes.WriteDurable)]
    assert "dsib/pagecache.py" in names and "benchmarks/writes.py" in names and "benchmarks/__init__.py" in names
    assert not any(os.path.isabs(name) for name in names), "the lock names files as a clone does"


def test_imports_are_found_in_functions_relative_and_through_packages(tmp_path):
    """The static analysis on a small tree of its own: ``from . import x``, ``from ..y import z``,
    an import inside a function, a package's ``__init__`` on the way, a name that is no module, and
    a module nothing imports left out."""
    files = {
        "benchmarks/__init__.py": "",
        "benchmarks/suite.py": "from dsib.sub import thing\n\ndef setup():\n    from data_prep import late\n",
        "dsib/__init__.py": "",
        "dsib/sub/__init__.py": "from . import thing\nfrom ..helpers import CONSTANT\n",
        "dsib/sub/thing.py": "import os\nimport numpy as np\n",
        "dsib/helpers.py": "CONSTANT = 1\n",
        "dsib/unused.py": "",
        "data_prep/__init__.py": "",
        "data_prep/late.py": "from .deeper import x\n",
        "data_prep/deeper.py": "x = 1\n",
    }
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    found = lock.closure(["benchmarks.suite"], root=str(tmp_path))
    assert sorted(found) == [
        "benchmarks",
        "benchmarks.suite",
        "data_prep",
        "data_prep.deeper",
        "data_prep.late",
        "dsib",
        "dsib.helpers",
        "dsib.sub",
        "dsib.sub.thing",
    ]


@pytest.mark.skipif(
    postgres_server.postgres_unavailable() is not None, reason=str(postgres_server.postgres_unavailable())
)
def test_an_engine_case_skips_on_a_server_major_that_is_not_its_series(repo):
    """The machine's PostgreSQL (15 here, the series', or this test skips) against a series of
    another major: the case skips, saying which and what to do; the same for Java (QuestDB's and
    Spark's). Run in the copy, as a machine with another major would."""
    machine = postgres_server.postgres_major()
    # What Engine.check_available asks of its server before a case runs.
    probe = (
        "from dsib.engines import get_engine\n"
        "for name in ('postgres-adbc', 'questdb-rows', 'spark-arrow'):\n"
        "    print(get_engine(name).server.unavailable())\n"
    )
    with Edit(
        repo, "dsib/postgres_server.py", "POSTGRES_MAJOR = %d\n" % machine, "POSTGRES_MAJOR = %d\n" % (machine + 1)
    ), Edit(repo, "dsib/questdb_server.py", "JAVA_MAJOR = %d\n" % questdb_server.JAVA_MAJOR, "JAVA_MAJOR = 1\n"):
        out = subprocess.run(
            [sys.executable, "-c", probe],
            cwd=repo,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            universal_newlines=True,
        ).stdout
    assert (
        "this machine's PostgreSQL is %d, and the engines' series are of PostgreSQL %d "
        "(dsib.postgres_server.POSTGRES_MAJOR)" % (machine, machine + 1)
    ) in out, out
    java = questdb_server.java_version()
    if java and java >= questdb_server.JAVA_MINIMUM:
        assert "this machine's Java is %d, and the engines' series are of Java 1" % java in out, out
        assert out.count("Java is %d" % java) == 2, "QuestDB's and Spark's: %s" % out
