"""The peak resident memory of processes other than the case's own: a server, a JVM.

asv's ``peakmem_`` is the peak RSS of the case's process alone, so a server or JVM doing the
case's work is left out. Linux keeps each process's peak RSS as ``VmHWM`` in
``/proc/PID/status``; writing ``5`` to ``/proc/PID/clear_refs`` resets it to the process's
current RSS (allowed to the process's owner and to root).

The peak of a process tree is the sum of its processes' peaks: an upper bound where they share
pages (PostgreSQL's backends all map its shared buffers), and their peaks need not coincide.
"""

import os


class PeakMemoryError(RuntimeError):
    pass


def _children(pid):
    """The PIDs whose parent is ``pid``, from every thread's ``children`` list."""
    found = set()
    try:
        tasks = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return found
    for task in tasks:
        try:
            with open("/proc/%d/task/%s/children" % (pid, task)) as f:
                found.update(int(p) for p in f.read().split())
        except OSError:
            pass
    return found


def tree(pid):
    """``pid`` and every process descended from it that is alive now, parents first."""
    order, todo = [], [pid]
    while todo:
        current = todo.pop(0)
        if current in order or not os.path.exists("/proc/%d" % current):
            continue
        order.append(current)
        todo.extend(sorted(_children(current)))
    return order


def _status_kib(pid, field):
    state = None
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
            if line.startswith("State:"):
                state = line.split()[1]
    if state in ("Z", "X"):  # ended, not yet reaped (a JVM's short-lived helpers): it holds no memory
        return 0
    raise PeakMemoryError("/proc/%d/status has no %s (a kernel thread, or not Linux)" % (pid, field))


def reset_peaks(pids):
    """Each process's peak RSS reset to its current RSS; PeakMemoryError where that is refused."""
    for pid in pids:
        try:
            with open("/proc/%d/clear_refs" % pid, "w") as f:
                f.write("5")
        except FileNotFoundError:
            continue  # it has ended since: it holds no memory now
        except OSError as e:
            raise PeakMemoryError("cannot reset the peak RSS of process %d (%s): run as its owner or root" % (pid, e))


def peak_bytes(pids):
    """The sum of the processes' peak RSS (``VmHWM``) in bytes, over those still alive."""
    total = 0
    for pid in pids:
        try:
            total += _status_kib(pid, "VmHWM") * 1024
        except FileNotFoundError:
            continue
    return total


def rss_bytes(pids):
    """The sum of the processes' current RSS in bytes, over those still alive."""
    total = 0
    for pid in pids:
        try:
            total += _status_kib(pid, "VmRSS") * 1024
        except FileNotFoundError:
            continue
    return total


class PeakDuring(object):
    """``with PeakDuring(pid) as peak: ...``; then ``peak.bytes``: the peak RSS of ``pid``'s
    process tree while the block ran (the processes alive when it started, and those it started
    and still alive at its end, whose peak is their whole life)."""

    def __init__(self, pid):
        self.pid = pid
        self.bytes = None

    def __enter__(self):
        reset_peaks(tree(self.pid))
        return self

    def __exit__(self, *exc):
        self.bytes = peak_bytes(tree(self.pid))
        return False
