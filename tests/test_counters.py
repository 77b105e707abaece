"""dsib.counters on real threads and real refusals: every thread's work is in the count, a call
that does twice the work counts twice as much, Arrow's thread pool changes nothing, and where
the kernel refuses, the reason is one line and every count skips with it.

The instruction counts need a PMU (hardware performance counters): where there is none (a VM
that does not expose it), those tests skip with the module's own reason. Page faults are
counted by the kernel itself, so the tests of how threads are counted run everywhere on Linux.
"""

import errno
import glob
import mmap
import os
import platform
import shutil
import subprocess
import sys
import threading

import pytest

from dsib import counters, environment

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="perf_event_open is Linux-only")

needs_instructions = pytest.mark.skipif(counters.available() is not None, reason=str(counters.available()))
needs_page_faults = pytest.mark.skipif(
    counters.available("page_faults") is not None, reason=str(counters.available("page_faults"))
)

PAGES = 2048


def touch(pages):
    """Fault ``pages`` fresh pages in, one each: an anonymous mapping without huge pages."""
    mapping = mmap.mmap(-1, pages * mmap.PAGESIZE)
    if hasattr(mmap, "MADV_NOHUGEPAGE"):
        mapping.madvise(mmap.MADV_NOHUGEPAGE)
    for offset in range(0, pages * mmap.PAGESIZE, mmap.PAGESIZE):
        mapping[offset] = 1
    mapping.close()


def child_env(**extra):
    """This environment for a child process that imports dsib from this checkout, counters on."""
    env = dict(os.environ)
    env.pop(environment.COUNTERS, None)
    env.update(PYTHONPATH=ROOT, **extra)
    return env


def run_python(*args, python=sys.executable, env=None, returncode=0):
    """What Python printed, run with ``args`` in a child process from this checkout."""
    done = subprocess.run(
        [python] + [str(a) for a in args],
        cwd=ROOT,
        env=env or child_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )
    assert done.returncode == returncode, done.stdout + done.stderr
    return done.stdout


def count_faults(pages):
    with counters.Count(["page_faults"]) as counting:
        touch(pages)
    return counting.counts.page_faults


def open_fds():
    return sorted(os.listdir("/proc/self/fd"))


class Worker(object):
    """A thread started before the count, that does its work when told and then ends."""

    def __init__(self, work):
        self.go = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(work,))
        self.thread.start()

    def _run(self, work):
        self.go.wait()
        work()

    def call(self):
        self.go.set()
        self.thread.join()


# Threads.


@needs_page_faults
def test_a_thread_that_existed_before_the_count_and_ends_during_it_is_counted():
    worker = Worker(lambda: touch(PAGES))
    with counters.Count(["page_faults"]) as counting:
        worker.call()
    assert counting.counts.threads >= 2
    assert PAGES <= counting.counts.page_faults < PAGES + 200


@needs_page_faults
def test_a_thread_that_outlives_the_call_is_counted():
    done, leave = threading.Event(), threading.Event()

    def work():
        touch(PAGES)
        done.set()
        leave.wait()

    worker = Worker(work)
    with counters.Count(["page_faults"]) as counting:
        worker.go.set()
        done.wait()
    leave.set()
    worker.thread.join()
    assert PAGES <= counting.counts.page_faults < PAGES + 200


@needs_page_faults
def test_a_thread_started_during_the_call_by_another_thread_is_counted_through_inherit():
    def start_another():
        inner = threading.Thread(target=touch, args=(PAGES,))
        inner.start()
        inner.join()

    worker = Worker(start_another)
    with counters.Count(["page_faults"]) as counting:
        worker.call()
    assert PAGES <= counting.counts.page_faults < PAGES + 200


@needs_page_faults
def test_twice_the_pages_count_twice_the_faults():
    touch(PAGES)  # warm-up: the interpreter's own first-call faults
    one, two = count_faults(PAGES), count_faults(2 * PAGES)
    assert abs(two / one - 2.0) < 0.02, (one, two)


@needs_page_faults
def test_work_outside_the_call_is_not_counted():
    with counters.Count(["page_faults"]) as counting:
        pass
    touch(PAGES)
    assert counting.counts.page_faults < 50


# What a count says, and what it leaves behind.


@needs_page_faults
def test_every_counter_is_closed_after_a_count_and_after_a_call_that_raises():
    before = open_fds()
    count_faults(4)
    assert open_fds() == before
    with pytest.raises(ZeroDivisionError):
        with counters.Count(["page_faults", "context_switches"]):
            1 / 0
    assert open_fds() == before


@needs_page_faults
def test_an_event_refused_or_not_asked_for_is_none_with_its_reason():
    with counters.Count(["page_faults", "instructions_user", "instructions_kernel"]) as counting:
        touch(8)
    counts = counting.counts
    assert counts.page_faults >= 8
    assert counts.reasons["context_switches"] == "not counted: not among the events asked for"
    for name in ("instructions_user", "instructions_kernel"):
        value, reason = getattr(counts, name), counts.reasons.get(name)
        if counters.available(name) is None:
            assert value > 0 and reason is None
        else:
            assert value is None and reason == counters.available(name)
    for reason in counts.reasons.values():
        assert "\n" not in reason


def test_switched_off_every_count_skips_with_that_reason(monkeypatch):
    monkeypatch.setenv("DSIB_COUNTERS", "off")
    reason = "counters switched off by DSIB_COUNTERS=off"
    assert counters.available() == reason
    assert counters.available("page_faults") == reason
    with pytest.raises(counters.CountersUnavailable, match="^%s$" % reason) as raised:
        counters.count(touch, 1)
    assert isinstance(raised.value, NotImplementedError)  # what asv reports as a skip
    out = run_python("-m", "dsib.counters", env=child_env(DSIB_COUNTERS="off"), returncode=1)
    assert out == reason + "\n"


# Refusals by the kernel: a seccomp filter, and a process without CAP_PERFMON.

_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}

# A child that installs a seccomp filter making perf_event_open fail with errno argv[1], then
# runs argv[2:] as Python's arguments: the filter holds across exec. The filter is classic BPF:
# load the architecture and the system call's number, refuse that one call, allow the rest.
_SECCOMP = r"""
import ctypes, os, struct, sys
code, arch, number = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
LD, JEQ, RET = 0x20, 0x15, 0x06
program = [
    (LD, 0, 0, 4), (JEQ, 0, 3, arch),
    (LD, 0, 0, 0), (JEQ, 0, 1, number),
    (RET, 0, 0, 0x00050000 | code),
    (RET, 0, 0, 0x7FFF0000),
]
filters = b"".join(struct.pack("HBBI", *f) for f in program)
buffer = ctypes.create_string_buffer(filters)

class Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

libc = ctypes.CDLL(None, use_errno=True)
prog = Program(len(program), ctypes.addressof(buffer))
if libc.prctl(38, 1, 0, 0, 0) or libc.prctl(22, 2, ctypes.byref(prog), 0, 0):  # NO_NEW_PRIVS, SECCOMP
    sys.exit("seccomp refused: " + os.strerror(ctypes.get_errno()))
os.execv(sys.executable, [sys.executable] + sys.argv[4:])
"""


def under_seccomp(code, *args, returncode=0):
    machine = platform.machine()
    if machine not in _AUDIT_ARCH:
        pytest.skip("this test's seccomp filter knows x86_64 and aarch64, not %s" % machine)
    number = counters._SYSCALL_NUMBERS[machine]
    return run_python("-c", _SECCOMP, code, _AUDIT_ARCH[machine], number, *args, returncode=returncode)


@pytest.mark.parametrize(
    "code, meaning",
    [
        (errno.ENOSYS, "ENOSYS (the kernel has no perf events, or a seccomp policy refuses the call)"),
        (errno.EPERM, "EPERM (a seccomp policy, or perf_event_paranoid="),
    ],
)
def test_a_seccomp_policy_that_refuses_perf_event_open_gives_one_line(code, meaning):
    out = under_seccomp(code, "-m", "dsib.counters", returncode=1)
    assert out.startswith("hardware counters unavailable: perf_event_open(instructions:u) failed: " + meaning)
    assert out.count("\n") == 1 and out.endswith(")\n"), out


def test_under_seccomp_every_count_skips_with_the_reason_and_the_tests_say_it():
    script = (
        "from dsib import counters\n"
        "try:\n"
        "    counters.count(sum, [1])\n"
        "except NotImplementedError as exc:\n"
        "    print(exc)\n"
    )
    reason = under_seccomp(errno.ENOSYS, "-c", script).strip()
    assert reason.startswith("hardware counters unavailable: perf_event_open(instructions:u) failed: ENOSYS")
    test = "tests/test_counters.py::test_twice_the_work_counts_twice_the_instructions"
    out = under_seccomp(errno.ENOSYS, "-m", "pytest", test, "-rs", "-p", "no:cacheprovider")
    assert "1 skipped" in out, out
    assert "SKIPPED [1] tests/test_counters.py" in out and reason in out, out


def _without_capabilities():
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        return "needs root and setpriv, to drop every capability from a child"
    with open(counters._PARANOID) as f:
        if int(f.read()) < 2:
            return "perf_event_paranoid < 2 permits kernel counts to every process"
    return None


@pytest.mark.skipif(_without_capabilities() is not None, reason=str(_without_capabilities()))
def test_a_process_without_cap_perfmon_is_refused_kernel_counts_with_the_reason():
    script = (
        "from dsib import counters\n"
        "try:\n"
        "    c = counters.count(sum, range(1000))\n"
        "    print(c.instructions_user, c.instructions_kernel, c.page_faults)\n"
        "    print(c.reasons['instructions_kernel'])\n"
        "except NotImplementedError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run(
        ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--", sys.executable, "-c", script],
        cwd=ROOT,
        env=child_env(),
        stdout=subprocess.PIPE,
        universal_newlines=True,
        check=True,
    )
    lines = done.stdout.splitlines()
    if counters.available() is None:  # a PMU: user-space instructions count, kernel ones do not
        user, kernel, faults = lines[0].split()
        assert int(user) > 0 and kernel == "None" and faults == "None"
        assert lines[1].endswith("failed: EACCES (not permitted to this process; perf_event_paranoid=2)")
    else:  # no PMU: the count skips with the reason for user-space instructions
        assert lines == [counters.available()]


# Instructions: twice the work counts twice, and Arrow's thread pool counts as one thread does.

_TWICE = r"""
import sys
from dsib import counters, environment

def work(n):
    total = 0
    for i in range(n):
        total += i * i
    return total

n = int(sys.argv[1])
work(n)  # warm-up
one = counters.count(work, n)
two = counters.count(work, 2 * n)
print(one.instructions_user, two.instructions_user, " ".join(one.notes + two.notes))
"""


@needs_instructions
def test_twice_the_work_counts_twice_the_instructions():
    ratios = []
    for _ in range(3):
        one, two = run_python("-c", _TWICE, 300000).split()[:2]
        ratios.append(int(two) / int(one))
    assert all(abs(r - 2.0) < 0.02 for r in ratios), ratios


_READ = r"""
import sys
import pyarrow.parquet as pq
from dsib import counters, environment

path, use_threads = sys.argv[1], sys.argv[2] == "threads"
pq.read_table(path, use_threads=use_threads)  # warm-up: Arrow's pool is started here
counts = counters.count(pq.read_table, path, use_threads=use_threads)
print(counts.instructions_user, counts.threads, " ".join(counts.notes))
"""


@pytest.fixture(scope="module")
def parquet_file(tmp_path_factory):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    rows = 300000
    table = pa.table(
        {
            "id": pa.array(range(rows), pa.int64()),
            "fare": pa.array([i * 0.25 for i in range(rows)], pa.float64()),
            "zone": pa.array(["zone-%d" % (i % 263) for i in range(rows)]),
        }
    )
    path = str(tmp_path_factory.mktemp("counters") / "rows.parquet")
    pq.write_table(table, path, row_group_size=50000)
    assert pq.ParquetFile(path).num_row_groups == 6
    return path


@needs_instructions
def test_a_read_on_arrows_thread_pool_counts_as_the_same_read_without_it(parquet_file):
    counted = {}
    for mode in ("threads", "no-threads", "threads", "no-threads"):
        instructions, threads = run_python("-c", _READ, parquet_file, mode).split()[:2]
        counted.setdefault(mode, []).append(int(instructions))
        if mode == "threads":
            assert int(threads) > 1  # the pool's threads had counters of their own
    pooled, alone = [sum(v) / len(v) for v in (counted["threads"], counted["no-threads"])]
    assert abs(pooled / alone - 1.0) < 0.01, counted


# Every Python of the matrix.


def _pythons():
    found = glob.glob(os.path.expanduser("~/.pyenv/versions/3.*/bin/python3.*[0-9]"))
    return sorted(p for p in found if tuple(map(int, p.rsplit("python", 1)[1].split("."))) >= (3, 7))


_ANY_PYTHON = r"""
import mmap, sys, threading
from dsib import counters, environment

go = threading.Event()
def work():
    go.wait()
    buffer = mmap.mmap(-1, 512 * mmap.PAGESIZE)
    for offset in range(0, len(buffer), mmap.PAGESIZE):
        buffer[offset] = 1
worker = threading.Thread(target=work)
worker.start()
with counters.Count(["page_faults", "context_switches"]) as counting:
    go.set()
    worker.join()
print(counting.counts.page_faults, counting.counts.threads, counters.available())
"""


@needs_page_faults
@pytest.mark.parametrize("python", _pythons() or [None], ids=lambda p: os.path.basename(p or "none"))
def test_every_python_of_the_matrix_counts_an_earlier_thread(python):
    if python is None:
        pytest.skip("no Python 3.7+ under pyenv")
    faults, threads = run_python("-c", _ANY_PYTHON, python=python).split()[:2]
    assert int(faults) >= 512 and int(threads) >= 2


def test_the_probe_leaves_no_counter_open():
    before = open_fds()
    counters._probed.clear()
    counters.available()
    counters.available("page_faults")
    assert open_fds() == before
