"""The memory of a case's process, and of the processes other than its own that do its work (a
server, a JVM): their peaks, and what a call adds to them.

asv's ``peakmem_`` is the peak RSS of the case's process alone, so a server or JVM doing the
case's work is left out. Linux keeps each process's peak RSS as ``VmHWM`` in
``/proc/PID/status``; writing ``5`` to ``/proc/PID/clear_refs`` resets it to the process's
current RSS (allowed to the process's owner and to root).

The peak of a process tree is the sum of its processes' peaks: an upper bound where they share
pages (PostgreSQL's backends all map its shared buffers), and their peaks need not coincide.

What a call adds (``Added``) counts shared memory once: from a process tree's proportional set
size (PSS, ``/proc/PID/smaps``: each page divided among the processes that map it) and its
private memory, sampled while the call runs, the most it held over its level just before the
call, a process that ended meanwhile left out. Only the tree's memory counts (its anonymous
mappings and its shared memory), not the pages of the files it maps (its binary, its libraries, a
file mapped to write): those are the page cache's, and their PSS moves whenever any other process
maps the same file, as another PostgreSQL server maps the same binary and halves this one's share.
``ClientAdded`` is the case's own process's peak RSS during a call less its RSS just before it.
Both read ``/proc`` alone (no psutil: the benchmark environments do not have it).
"""

import os
import select
import subprocess
import sys


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


# The mappings of memory rather than of a file: no path, a name in brackets ([heap], [stack],
# [anon:...]), or shared memory, which has a path (a shared anonymous mapping is "/dev/zero
# (deleted)", as PostgreSQL's shared buffers are; System V segments, memfd, POSIX shared memory).
SHARED_MEMORY = ("[", "/dev/zero", "/SYSV", "/memfd:", "/dev/shm/")


def _memory_kib(pid):
    """The PSS and private size in KiB of the process's memory (``SHARED_MEMORY`` and anonymous
    mappings, ``/proc/PID/smaps``), not of the files it maps; 0 and 0 for a process that has ended
    (its ``smaps`` is empty)."""
    pss = private = 0
    counted = False
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            key, _, rest = line.partition(" ")
            if not key.endswith(":"):  # a mapping's header: address perms offset dev inode [path]
                path = rest.split(None, 4)[4:]
                counted = not path or path[0].startswith(SHARED_MEMORY)
            elif counted and key == "Pss:":
                pss += int(rest.split()[0])
            elif counted and key in ("Private_Clean:", "Private_Dirty:"):
                private += int(rest.split()[0])
    return pss, private


def memory(pids):
    """{pid: (PSS, private size)} in bytes of the memory of each process still alive (``_memory_kib``)."""
    found = {}
    for pid in pids:
        try:
            pss, private = _memory_kib(pid)
        except (FileNotFoundError, ProcessLookupError):
            continue
        found[pid] = (pss * 1024, private * 1024)
    return found


def pss_bytes(pids):
    """The sum of the PSS of the processes' memory (``memory``) in bytes, over those still alive."""
    return sum(pss for pss, _ in memory(pids).values())


def added_since(before, now):
    """What a process tree holds ``now`` over ``before`` (each ``memory``): its processes' private
    memory over what those of them that were there before held, plus the change of its shared
    memory counted once (PSS less private, summed over the tree). A process that ended in between
    is in neither sum of private memory, so its end does not show as memory the call gave back;
    its share of the pages it shared moves to the other mappers' PSS and leaves the shared sum."""
    private = sum(p for _, p in now.values()) - sum(before[pid][1] for pid in now if pid in before)
    shared = sum(s - p for s, p in now.values()) - sum(s - p for s, p in before.values())
    return private + shared


class Added(object):
    """``with Added(pid) as added: ...``; then ``added.bytes``: the most that ``pid``'s process tree
    held over its memory just before the block (``added_since``), sampled every ``interval``
    seconds while the block ran and once at its end (negative where the block freed more than it
    took); ``added.before``: the tree's PSS just before it. A process of the tree that ended
    meanwhile (a backend of an earlier connection) takes nothing from the figure. A peak between
    two samples is missed: ``interval`` bounds how short a peak is seen.

    The sampler is a process of its own (this file run as a script: ``PID INTERVAL``): a thread of
    the caller's would wait for the GIL as long as the block holds it (a conversion of Python
    objects in C, a driver's call that keeps it), and miss the peak of a block that does."""

    def __init__(self, pid, interval=0.01):
        self.pid, self.interval = pid, interval
        self.bytes = self.before = None
        self._sampler = None

    def __enter__(self):
        self._sampler = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), str(self.pid), repr(self.interval)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            universal_newlines=True,
        )
        try:
            self.before = self._reading()  # taken by the sampler before the block starts
        except BaseException:
            self._stop()
            raise
        return self

    def __exit__(self, *exc):
        try:
            self._sampler.stdin.close()  # the sampler samples once more and says the most added
            self.bytes = self._reading()
        finally:
            self._stop()
        return False

    def _reading(self):
        line = self._sampler.stdout.readline()
        if not line.strip():
            raise PeakMemoryError("the PSS sampler of process %d said nothing: it exited" % self.pid)
        return int(line)

    def _stop(self):
        if self._sampler.poll() is None:
            self._sampler.kill()
        self._sampler.wait()
        self._sampler.stdin.close()
        self._sampler.stdout.close()


def sample_until_told(pid, interval):
    """The sampler of ``Added``: the PSS of ``pid``'s tree written to stdout at once, then what the
    tree added since (``added_since``) sampled every ``interval`` seconds until stdin is closed;
    then the most of those samples and one more, written."""
    before = memory(tree(pid))
    print(sum(pss for pss, _ in before.values()), flush=True)
    most = -float("inf")
    while not select.select([sys.stdin], [], [], interval)[0]:
        most = max(most, added_since(before, memory(tree(pid))))
    print(max(most, added_since(before, memory(tree(pid)))), flush=True)


def release_free_memory():
    """This process's freed memory given back to the system, as far as its allocators let it: the
    garbage collected, glibc's free heap pages (``malloc_trim``), Arrow's pool's unused memory.
    Otherwise memory that an earlier call freed but the allocator kept resident would be reused
    by the next call unseen."""
    import ctypes
    import ctypes.util
    import gc
    import sys

    gc.collect()
    try:
        ctypes.CDLL(ctypes.util.find_library("c") or None).malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass
    pyarrow = sys.modules.get("pyarrow")
    release = pyarrow and getattr(pyarrow.default_memory_pool(), "release_unused", None)
    if release:
        release()


class ClientAdded(object):
    """``with ClientAdded() as added: ...``; then ``added.bytes``: this process's peak RSS while the
    block ran less its RSS just before it (its freed memory released then, ``release_free_memory``,
    and its peak reset: ``/proc/self/clear_refs``), so that what the process held before (a write's
    input frame, loaded in ``setup``) is not counted, and what the block allocated is."""

    def __enter__(self):
        release_free_memory()
        own = [os.getpid()]
        reset_peaks(own)
        self.before = rss_bytes(own)
        return self

    def __exit__(self, *exc):
        self.bytes = peak_bytes([os.getpid()]) - self.before
        return False


if __name__ == "__main__":
    sample_until_told(int(sys.argv[1]), float(sys.argv[2]))
