"""Hardware and software event counts of one call, over every thread of the process.

A count is a figure of work that does not depend on how busy the machine is: the instructions
the process retired in user space (and in the kernel, where that is permitted), the page faults
it took and the times its threads were switched out. Linux gives them through
``perf_event_open(2)``; Python has no wrapper for it, so it is called through ``ctypes`` on libc,
and the counters are then driven with ``ioctl`` and read with ``os.read``.

Every thread counts. A counter opened on the calling thread alone (``pid=0``) sees the work of
the threads it starts later (``inherit``), but not that of threads that existed before it: the
thread pools of Arrow, of BLAS, of a database driver, which do most of a library's work. So
:class:`Count` opens one counter of each event for every thread in ``/proc/self/task`` when the
count starts (``pid=tid, cpu=-1``), each with ``inherit`` so that the threads those start during
the call are counted too, and sums them at the end:

* The counters are opened disabled and enabled by ``ioctl`` just before the call, the calling
  thread's last; they are disabled just after it, the calling thread's first. Opening and
  reading them costs the call nothing.
* A thread started while the counters were being opened could be counted twice (by its own
  counter and through its parent's) or not at all: the counters are opened again until
  ``/proc/self/task`` holds exactly the threads that have one.
* A thread that ends during the call keeps its count in its counter (and a thread started and
  ended during the call adds its count to its parent's), so it is read at the end like any
  other. A counter that cannot be read is said in :attr:`Counts.notes`, never dropped silently.
* Each counter reports how long it was enabled and how long it really counted. When the PMU
  had more events than counters, the kernel multiplexes them: the count is then scaled by the
  ratio, as ``perf stat`` does, and the note says by how much.

Which events, and what happens when one is refused:

* ``instructions_user``: instructions retired in user space (``instructions:u``). Without it
  there is no count: :func:`available` returns the one-line reason and :class:`Count` raises
  :class:`CountersUnavailable` (a ``NotImplementedError``, which asv reports as a skip).
* ``instructions_kernel``: instructions retired in the kernel on the process's behalf
  (``instructions:k``). ``perf_event_paranoid`` >= 2 refuses it to a process without
  ``CAP_PERFMON``: it is then ``None``, with the reason in :attr:`Counts.reasons`.
* ``page_faults`` and ``context_switches``: software events, counted by the kernel itself (no
  PMU needed), in user space and in the kernel alike; refused like kernel instructions, then
  ``None`` with the reason.

``DSIB_COUNTERS=off`` in the environment switches the counters off (every count skips with
that reason), for a machine where they disturb something else, and to see the skip.
``python -m dsib.counters`` prints whether counters work here, or the reason they do not.

Linux only. Stdlib only, importable on Python 3.7.
"""

import ctypes
import ctypes.util
import errno
import fcntl
import os
import platform
import struct
import sys

from . import environment

# perf_event_open(2)'s constants, from <linux/perf_event.h>.
_TYPE_HARDWARE, _TYPE_SOFTWARE = 0, 1
_HW_INSTRUCTIONS = 1
_SW_PAGE_FAULTS, _SW_CONTEXT_SWITCHES = 2, 3
_FORMAT_TOTAL_TIME_ENABLED, _FORMAT_TOTAL_TIME_RUNNING = 1, 2
_FLAG_DISABLED, _FLAG_INHERIT = 1 << 0, 1 << 1
_FLAG_EXCLUDE_USER, _FLAG_EXCLUDE_KERNEL, _FLAG_EXCLUDE_HV = 1 << 4, 1 << 5, 1 << 6
_PERF_FLAG_FD_CLOEXEC = 1 << 3
_IOC_ENABLE, _IOC_DISABLE = 0x2400, 0x2401  # _IO('$', 0) and _IO('$', 1)
_READ = struct.Struct("=QQQ")  # value, time enabled, time running

# The system call's number, by machine (there is no libc wrapper to find it for us).
_SYSCALL_NUMBERS = {
    "x86_64": 298,
    "amd64": 298,
    "i386": 336,
    "i686": 336,
    "aarch64": 241,
    "arm64": 241,
    "riscv64": 241,
    "loongarch64": 241,
    "armv7l": 364,
    "armv6l": 364,
    "ppc64le": 319,
    "ppc64": 319,
    "s390x": 331,
}

_PARANOID = "/proc/sys/kernel/perf_event_paranoid"

# The events, in the order they are opened: (name, type, config, flags, perf's name of it).
EVENTS = (
    ("instructions_user", _TYPE_HARDWARE, _HW_INSTRUCTIONS, _FLAG_EXCLUDE_KERNEL | _FLAG_EXCLUDE_HV, "instructions:u"),
    ("instructions_kernel", _TYPE_HARDWARE, _HW_INSTRUCTIONS, _FLAG_EXCLUDE_USER | _FLAG_EXCLUDE_HV, "instructions:k"),
    ("page_faults", _TYPE_SOFTWARE, _SW_PAGE_FAULTS, _FLAG_EXCLUDE_HV, "page-faults"),
    ("context_switches", _TYPE_SOFTWARE, _SW_CONTEXT_SWITCHES, _FLAG_EXCLUDE_HV, "context-switches"),
)
NAMES = tuple(event[0] for event in EVENTS)
_BY_NAME = dict((event[0], event) for event in EVENTS)


class CountersUnavailable(NotImplementedError):
    """No count here: the one-line reason. asv reports a ``NotImplementedError`` as a skip."""


class _Attr(ctypes.Structure):
    """``struct perf_event_attr`` up to ``config1`` (``PERF_ATTR_SIZE_VER0``, 64 bytes): the
    kernel takes the older size and zeroes the fields after it."""

    _fields_ = [
        ("type", ctypes.c_uint32),
        ("size", ctypes.c_uint32),
        ("config", ctypes.c_uint64),
        ("sample_period", ctypes.c_uint64),
        ("sample_type", ctypes.c_uint64),
        ("read_format", ctypes.c_uint64),
        ("flags", ctypes.c_uint64),
        ("wakeup_events", ctypes.c_uint32),
        ("bp_type", ctypes.c_uint32),
        ("config1", ctypes.c_uint64),
    ]


class _OpenFailed(Exception):
    def __init__(self, label, code):
        Exception.__init__(self, label, code)
        self.code = code
        self.reason = "perf_event_open(%s) failed: %s" % (label, _explain(code))


def _paranoid():
    try:
        with open(_PARANOID) as f:
            return f.read().strip()
    except OSError:
        return "absent"


def _explain(code):
    """The errno of a refused ``perf_event_open`` in a few words: its name and what it means here."""
    name = errno.errorcode.get(code, str(code))
    if code == errno.EACCES:
        return "%s (not permitted to this process; perf_event_paranoid=%s)" % (name, _paranoid())
    if code == errno.EPERM:
        return "%s (a seccomp policy, or perf_event_paranoid=%s)" % (name, _paranoid())
    if code == errno.ENOSYS:
        return "%s (the kernel has no perf events, or a seccomp policy refuses the call)" % name
    if code in (errno.ENOENT, errno.EOPNOTSUPP, errno.ENODEV):
        return "%s (the CPU or the VM exposes no PMU for this event)" % name
    return "%s (%s)" % (name, os.strerror(code))


_syscall_handle = None


def _syscall():
    """libc's ``syscall`` and perf_event_open's number; CountersUnavailable where there is none."""
    global _syscall_handle
    if _syscall_handle is not None:
        return _syscall_handle
    if not sys.platform.startswith("linux"):
        raise CountersUnavailable("counters unavailable: perf_event_open is Linux-only (this is %s)" % sys.platform)
    machine = platform.machine().lower()
    if machine not in _SYSCALL_NUMBERS:
        raise CountersUnavailable("counters unavailable: perf_event_open's number on %s is not known" % machine)
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        call = libc.syscall
    except (OSError, AttributeError) as exc:
        raise CountersUnavailable("counters unavailable: cannot call syscall(2) through libc: %s" % exc)
    call.restype = ctypes.c_long
    _syscall_handle = (call, _SYSCALL_NUMBERS[machine])
    return _syscall_handle


def _open(event, tid):
    """One counter of ``event`` on thread ``tid`` (any CPU), disabled, inherited by the threads
    it starts; its fd, or _OpenFailed with the errno."""
    name, kind, config, flags, label = event
    call, number = _syscall()
    attr = _Attr(type=kind, size=ctypes.sizeof(_Attr), config=config)
    attr.read_format = _FORMAT_TOTAL_TIME_ENABLED | _FORMAT_TOTAL_TIME_RUNNING
    attr.flags = _FLAG_DISABLED | _FLAG_INHERIT | flags
    fd = call(
        ctypes.c_long(number),
        ctypes.byref(attr),
        ctypes.c_long(tid),
        ctypes.c_long(-1),
        ctypes.c_long(-1),
        ctypes.c_ulong(_PERF_FLAG_FD_CLOEXEC),
    )
    if fd < 0:
        raise _OpenFailed(label, ctypes.get_errno())
    return fd


def _switched_off():
    if environment.counters_off():
        return "counters switched off by %s=off" % environment.COUNTERS
    return None


_probed = {}


def available(event=NAMES[0]):
    """None where ``event`` (user-space instructions unless named) can be counted here; else the
    one-line reason that every count of it skips with.

    The probe opens (and closes) a counter on the calling thread, once a process for each event;
    ``DSIB_COUNTERS=off`` is read at every call."""
    off = _switched_off()
    if off:
        return off
    if event not in _probed:
        _probed[event] = _probe(_BY_NAME[event])
    return _probed[event]


def _probe(event):
    try:
        os.close(_open(event, 0))
    except CountersUnavailable as exc:
        return str(exc)
    except _OpenFailed as exc:
        return _unavailable(event, exc)
    return None


def _unavailable(event, failure):
    kind = "hardware counters" if event[1] == _TYPE_HARDWARE else "software counters"
    return "%s unavailable: %s" % (kind, failure.reason)


def _threads():
    """The ids of this process's threads alive now."""
    return set(int(tid) for tid in os.listdir("/proc/self/task"))


class Counts(object):
    """The totals of one count, each an int summed over every thread, or None when refused.

    ``reasons``: the one-line reason of each event that is None (refused, not asked for, or a
    thread's counter lost). ``notes``: what else a reader of the figures must know (counts
    scaled for multiplexing, threads started while the counters opened), one line each.
    ``threads``: how many threads had counters of their own (those started during the call are
    counted through them)."""

    def __init__(self, totals, reasons, notes, threads):
        for name in NAMES:
            setattr(self, name, totals.get(name))
        self.reasons = reasons
        self.notes = notes
        self.threads = threads

    def as_dict(self):
        return dict((name, getattr(self, name)) for name in NAMES)

    def __repr__(self):
        return "Counts(%s)" % ", ".join("%s=%r" % item for item in sorted(self.as_dict().items()))


class Count(object):
    """``with Count() as c: call()``; then ``c.counts``, a :class:`Counts`.

    ``events``: which of :data:`NAMES` to count, all unless said. The first of them is required:
    where it cannot be counted, entering raises :class:`CountersUnavailable` with the one-line
    reason; any other that is refused is None, with its reason. Every counter is closed on every
    path out."""

    _ATTEMPTS = 5

    def __init__(self, events=NAMES):
        self.events = [_BY_NAME[name] for name in events]
        self.counts = None
        self._fds = {}  # tid -> {event name: fd}
        self._reasons = {}
        self._notes = []

    def __enter__(self):
        reason = available(self.events[0][0])
        if reason:
            raise CountersUnavailable(reason)
        try:
            self._open_all()
            self._switch(_IOC_ENABLE, last=_calling_thread())
        except BaseException:
            self._close()
            raise
        return self

    def __exit__(self, *exc):
        try:
            self._switch(_IOC_DISABLE, first=_calling_thread())
            self.counts = self._read_all()
        finally:
            self._close()
        return False

    def _open_all(self):
        """A counter of each event on every thread, opened until no thread was started meanwhile."""
        for _ in range(self._ATTEMPTS):
            self._open_threads(sorted(_threads()))
            if _threads() <= set(self._fds):
                return
            self._close()
        self._open_threads(sorted(_threads()))
        self._notes.append(
            "threads were started while the counters opened, %d times: some may count twice or not at all"
            % self._ATTEMPTS
        )

    def _open_threads(self, tids):
        for tid in tids:
            fds = self._fds.setdefault(tid, {})
            for event in self.events:
                if event[0] in self._reasons:
                    continue
                fd = self._open_event(event, tid)
                if fd is not None:
                    fds[event[0]] = fd
            if not fds:
                del self._fds[tid]

    def _open_event(self, event, tid):
        try:
            return _open(event, tid)
        except _OpenFailed as exc:
            if exc.code == errno.ESRCH:
                return None  # the thread ended before the count began: none of its work is in it
            if event is self.events[0]:
                raise CountersUnavailable(_unavailable(event, exc))
            self._reasons[event[0]] = _unavailable(event, exc)
            for fds in self._fds.values():  # an event is counted on every thread or on none
                _close_fd(fds.pop(event[0], None))
            return None

    def _switch(self, request, first=None, last=None):
        """``ioctl`` every counter: the thread ``first`` before the others, ``last`` after them."""
        order = sorted(self._fds, key=lambda tid: (tid != first, tid == last))
        for tid in order:
            for fd in self._fds[tid].values():
                fcntl.ioctl(fd, request, 0)

    def _read_all(self):
        totals = dict((event[0], 0) for event in self.events if event[0] not in self._reasons)
        running = dict((name, [0, 0]) for name in totals)
        for tid, fds in sorted(self._fds.items()):
            for name, fd in fds.items():
                value = self._read(tid, name, fd, running[name])
                if value is None:
                    totals[name] = None
                elif totals[name] is not None:
                    totals[name] += value
        for name, (enabled, ran) in sorted(running.items()):
            if ran < enabled and totals[name] is not None:
                self._notes.append(
                    "%s multiplexed: counted during %.1f %% of the time, scaled" % (name, 100.0 * ran / enabled)
                )
        for name in NAMES:
            if name not in totals:
                self._reasons.setdefault(name, "not counted: not among the events asked for")
        return Counts(totals, dict(self._reasons), list(self._notes), len(self._fds))

    def _read(self, tid, name, fd, running):
        """One counter's value, scaled where it was multiplexed; None (with its reason) where lost."""
        try:
            raw = os.read(fd, _READ.size)
        except OSError as exc:
            raw = exc
        if not isinstance(raw, bytes) or len(raw) != _READ.size:
            self._reasons[name] = "the counter of thread %d could not be read (%r): the total is lost" % (tid, raw)
            return None
        value, enabled, ran = _READ.unpack(raw)
        running[0] += enabled
        running[1] += ran
        if ran == enabled:
            return value
        if ran == 0:
            self._reasons[name] = "the counter of thread %d never got onto the PMU: the total is lost" % tid
            return None
        return int(round(value * float(enabled) / ran))

    def _close(self):
        for fds in self._fds.values():
            for fd in fds.values():
                _close_fd(fd)
        self._fds = {}


def _calling_thread():
    """The calling thread's kernel id (``threading.get_native_id`` exists from Python 3.8 only)."""
    return int(os.readlink("/proc/thread-self").rsplit("/", 1)[1])


def _close_fd(fd):
    if fd is not None:
        os.close(fd)


def count(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` counted, every event: its :class:`Counts`. Its result is dropped
    after the counters stop, so freeing it is not counted."""
    with Count() as counting:
        result = fn(*args, **kwargs)
    del result
    return counting.counts


def main():
    reason = available()
    if reason:
        print(reason)
        return 1
    counts = count(sum, range(100000))
    print("counters available: %r" % counts)
    for line in sorted(counts.reasons.values()) + counts.notes:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
