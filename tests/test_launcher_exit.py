"""A process of asv's launcher that imported the suite ends with the status of its work, not with
that of a native library's teardown: pyarrow's CPU pool can abort an interpreter's exit after a
threaded read ("terminate called without an active exception", apache/arrow#34314), and asv then
calls every cell of the ``setup_cache`` failed. Here the abort is certain: a C exit handler
(``__cxa_atexit``, as a C++ static's destructor is registered) calls ``abort`` once Python has
finished. asv runs its launcher as a script, ``asv/benchmark.py``, and so does each test here."""

import os
import pickle
import signal
import subprocess
import sys

import asv.runner

from .conftest import ROOT

SUITE = """
import ctypes
{imports}


def abort_once_python_has_exited():
    libc = ctypes.CDLL(None)
    libc.__cxa_atexit(ctypes.cast(libc.abort, ctypes.c_void_p), None, None)


class Built(object):
    def setup_cache(self):
        abort_once_python_has_exited()
        return "built"

    def time_nothing(self, built):
        pass


class Fails(object):
    def setup_cache(self):
        abort_once_python_has_exited()
        raise ValueError("no cells today")

    def time_nothing(self, built):
        pass


class WrongArity(object):
    params = [1, 2]

    def time_nothing(self):
        pass
"""


def launch(tmp_path, imports, *command):
    """asv's launcher run as asv runs it, with ``command`` (its mode, the suite, and the rest), on a
    suite whose module starts with ``imports``: (the process, its working directory)."""
    suite = tmp_path / "exitsuite"
    suite.mkdir(exist_ok=True)
    (suite / "__init__.py").write_text("")
    (suite / "cases.py").write_text(SUITE.format(imports=imports))
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    mode, rest = command[0], command[1:]
    process = subprocess.run(
        [sys.executable, asv.runner.BENCHMARK_RUN_SCRIPT, mode, str(suite)] + list(rest),
        cwd=str(work),
        env=dict(os.environ, ASV_PYTHONPATH=ROOT),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
    )
    return process, work


def test_without_the_suite_the_native_abort_fails_the_setup_cache(tmp_path):
    process, work = launch(tmp_path, "", "setup_cache", "cases.Built.time_nothing", "{}")
    assert process.returncode == -signal.SIGABRT, process.stdout
    assert (work / "cache.pickle").exists()  # its work was done: the abort came after


def test_a_setup_cache_of_the_suite_ends_with_its_work_done(tmp_path):
    process, work = launch(tmp_path, "import benchmarks", "setup_cache", "cases.Built.time_nothing", "{}")
    assert process.returncode == 0, process.stdout
    with open(str(work / "cache.pickle"), "rb") as f:
        assert pickle.load(f) == "built"


def test_a_setup_cache_of_the_suite_that_raises_still_fails(tmp_path):
    process, work = launch(tmp_path, "import benchmarks", "setup_cache", "cases.Fails.time_nothing", "{}")
    assert process.returncode == 1, process.stdout
    assert "ValueError: no cells today" in process.stdout


def test_a_check_of_the_suite_says_its_verdict_by_its_status(tmp_path):
    """``check`` says its verdict by its exit status alone (``WrongArity``'s case takes no
    parameter), so the suite leaves that exit to the interpreter."""
    process, work = launch(tmp_path, "import benchmarks", "check")
    assert process.returncode == 1, process.stdout
    assert "WrongArity" in process.stdout
