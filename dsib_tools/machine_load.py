"""What else the machine was doing while the suite ran: other processes' CPU time and steal.

The same `make bench` read Parquet plain in 59 ms on a quiet 2-core EPYC and in 147 ms while
other work ran, and asv's results cannot tell the two apart. ``watch`` runs asv and, every
second, reads the machine's CPU counters (``psutil.cpu_times``) and the CPU time of asv's own
process tree, with the orphans that tree leaves (the watcher adopts them: a server outlives
the case that started it for a moment). Other processes' CPU is the machine's busy time minus that tree's and the
watcher's own; steal is the time the hypervisor gave to other guests. The counters are kept
cumulative in a JSON Lines log beside the results (``<results>/<machine>/load/``; asv reads only
``.json`` files), so a window's mean is a difference of two interpolated readings, and a process
that ends between two readings moves its time by a second at most, never loses it.

A figure is *taken under load* when, over its benchmark's window in asv's results (its last
round's start, ``started_at``, for the total ``duration`` of its rounds), other processes used at
least ``BUSY_CORES`` of a core on average, or steal took at least ``BUSY_STEAL`` of the machine.
Kernel threads working for the suite (writeback after an fsync) count as other processes: on a
quiet machine they stayed far below the threshold (docs/running.md, "Machine load").

A quiet machine can still be a slow one (its host's doing): each log also holds the machine's
speed before the command and after it (``machine_speed``), and ``sittings`` compares the runs of
one resumed run by it.
"""

import bisect
import datetime
import glob
import json
import math
import os
import resource
import signal
import subprocess
import sys
import time
from collections import namedtuple

from . import machine_speed

INTERVAL = 1.0
BUSY_CORES = 0.25
BUSY_STEAL = 0.05
DIRECTORY = "load"
SUFFIX = ".jsonl"
KIND = "dsib machine load"

Load = namedtuple("Load", "other steal seconds")


def _busy_and_steal():
    import psutil

    t = psutil.cpu_times()
    return t.user + t.nice + t.system + t.irq + t.softirq, t.steal


def _tree_cpu(roots):
    """CPU seconds of the processes ``roots`` and their live descendants, with what each has reaped
    of its own."""
    import psutil

    total = 0.0
    members = []
    for root in roots:
        try:
            members += [root] + root.children(recursive=True)
        except psutil.NoSuchProcess:
            continue
    for member in members:
        try:
            t = member.cpu_times()
        except psutil.NoSuchProcess:  # ended since the listing: its parent's reaped time has it next
            continue
        total += t.user + t.system + t.children_user + t.children_system
    return total


def _own_cpu(tree):
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    me = resource.getrusage(resource.RUSAGE_SELF)
    return reaped.ru_utime + reaped.ru_stime + tree, me.ru_utime + me.ru_stime


def _reading(roots=()):
    busy, steal = _busy_and_steal()
    own, watcher = _own_cpu(_tree_cpu(roots))
    return {
        "t": round(time.time(), 3),
        "busy": round(busy, 2),
        "own": round(own, 3),
        "watcher": round(watcher, 3),
        "steal": round(steal, 2),
    }


def log_path(results_dir, machine, started=None):
    started = started or datetime.datetime.now(datetime.timezone.utc)
    return os.path.join(
        results_dir, machine, DIRECTORY, started.strftime("%Y%m%dT%H%M%SZ") + "-%d" % os.getpid() + SUFFIX
    )


def watch(command, path, interval=INTERVAL, orphans_grace=None, **popen):
    """Run ``command`` (``popen``: Popen's ``cwd``, ``env``), logging the machine's load to ``path``
    (written as ``path.partial`` and renamed when the command ends, interrupted or not); returns
    its exit status. Processes the command leaves behind are waited for ``orphans_grace`` seconds
    (default ``ORPHANS_GRACE``), then killed."""
    import psutil

    os.makedirs(os.path.dirname(path), exist_ok=True)
    partial = path + ".partial"
    with open(partial, "w") as log:
        log.write(
            json.dumps(
                {"kind": KIND, "version": 1, "cpus": psutil.cpu_count(), "interval": interval, "command": command}
            )
            + "\n"
        )
        log.write(json.dumps({"reference": machine_speed.reference(), "when": "start"}) + "\n")
        log.write(json.dumps(_reading()) + "\n")
        child, tree, status = None, None, None
        # A SIGTERM sent to this process alone is passed on.
        previous = signal.signal(signal.SIGTERM, lambda signum, frame: child and child.terminate())
        adopting = _adopt_orphans(True)
        try:
            tree = _Tree()
            child = subprocess.Popen(command, **popen)
            tree.child = psutil.Process(child.pid)
            while status is None:
                try:
                    status = child.wait(timeout=interval)
                except subprocess.TimeoutExpired:
                    pass
                log.write(json.dumps(_reading(tree.roots(status is None))) + "\n")
                log.flush()
        except KeyboardInterrupt:
            status = end_command(child, signal.SIGINT)
            log.write(json.dumps(_reading()) + "\n")
        finally:
            signal.signal(signal.SIGTERM, previous)
            if tree is not None:
                tree.finish(log, interval, ORPHANS_GRACE if orphans_grace is None else orphans_grace)
            if adopting:
                _adopt_orphans(False)
        log.write(json.dumps({"reference": machine_speed.reference(), "when": "end"}) + "\n")
        log.write(json.dumps({"ended": round(time.time(), 3), "status": status}) + "\n")
    os.replace(partial, path)
    return status


# prctl(2): a subreaper becomes the parent of its descendants' orphans, in place of init.
_PR_SET_CHILD_SUBREAPER = 36
# A server whose case ended without stopping it gets its stop signal from the kernel when its parent
# dies (dsib.servers) and has dsib.servers.STOP_TIMEOUT (30 s) to finish; a few seconds more here.
ORPHANS_GRACE = 40.0


def _adopt_orphans(on):
    """Make this process (Linux) the reaper of its descendants' orphans, or stop; whether it did.

    asv ends each case's process with ``os._exit``, so a server the case started outlives it for
    a moment, re-parented. Re-parented to init, it would leave the command's tree with all the CPU
    time it had used, which would then count as other processes' (a QuestDB run read 1.57 cores of
    "other work" on a quiet machine); adopted here, it stays the command's own."""
    import ctypes

    try:
        return ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


class _Tree(object):
    """The watched command's processes: its own tree, and the orphans of that tree that this
    process adopted (its children that were not there before the command started)."""

    def __init__(self):
        import psutil

        self.me = psutil.Process()
        self.before = set(p.pid for p in self.me.children())
        self.child = None

    def adopted(self):
        import psutil

        try:
            children = self.me.children()
        except psutil.NoSuchProcess:
            return []
        return [p for p in children if p.pid not in self.before and (self.child is None or p.pid != self.child.pid)]

    def _reap(self):
        """Adopted orphans that have ended: reaped, so their CPU time is in this process's own
        ``RUSAGE_CHILDREN`` from now on."""
        for p in self.adopted():
            try:
                os.waitpid(p.pid, os.WNOHANG)
            except ChildProcessError:
                pass

    def roots(self, with_command=True):
        self._reap()
        return ([self.child] if with_command and self.child is not None else []) + self.adopted()

    def _alive(self):
        import psutil

        alive = []
        for p in self.roots(False):
            try:
                if p.status() != psutil.STATUS_ZOMBIE:
                    alive.append(p)
            except psutil.NoSuchProcess:
                pass
        return alive

    def finish(self, log, interval, grace):
        """After the command: its orphans are waited for ``grace`` seconds, still logged as its
        own; any left then is killed, and said so."""
        import psutil

        deadline = time.time() + grace
        try:
            while self._alive() and time.time() < deadline:
                time.sleep(min(interval, 0.2))
                log.write(json.dumps(_reading(self.roots(False))) + "\n")
        except KeyboardInterrupt:
            pass
        left = self._alive()
        if left:
            sys.stderr.write(
                "dsib: the command left %d process(es) running %s after it ended: killed\n"
                % (len(left), ", ".join("%d (%s)" % (p.pid, _name(p)) for p in left))
            )
            for p in left:
                try:
                    p.kill()
                except psutil.NoSuchProcess:
                    pass
            psutil.wait_procs(left, timeout=10)
        log.write(json.dumps(_reading(self.roots(False))) + "\n")


def _name(process):
    import psutil

    try:
        return " ".join(process.cmdline()[:3]) or process.name()
    except psutil.Error:
        return "?"


def end_command(child, signum, grace=10):
    """The command's status after this process got ``signum``. A Ctrl-C reached the command too
    (the terminal sends it to the whole foreground group): it is given ``grace`` seconds to stop on
    its own; any other signal, or a command that did not stop (a signal between fork and exec is
    lost), gets it, then SIGKILL."""
    if child is None:
        return 128 + signum
    first = [None] if signum == signal.SIGINT else []
    for sig in first + [signum, signal.SIGKILL]:
        if sig is not None:
            try:
                child.send_signal(sig)
            except ProcessLookupError:
                pass
        try:
            return child.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            continue
    return child.wait()


class Log(object):
    """One watched run: cumulative readings, interpolated at any instant inside the run."""

    def __init__(self, path):
        self.path = path
        try:
            with open(path) as f:
                lines = [json.loads(line) for line in f if line.strip()]
        except ValueError as exc:
            raise ValueError(
                "%s is not readable JSON Lines (%s): restore it from git, or remove it and re-run "
                "the results it covers" % (path, exc)
            )
        if not lines or lines[0].get("kind") != KIND:
            raise ValueError("%s is not a dsib load log" % path)
        self.cpus = lines[0]["cpus"]
        self.readings = [r for r in lines[1:] if "t" in r]
        if len(self.readings) < 2:
            raise ValueError("%s holds fewer than two readings" % path)
        self.times = [r["t"] for r in self.readings]
        # How fast the machine was before the command and after it (machine_speed), where logged.
        self.references = dict((r["when"], r["reference"]) for r in lines[1:] if "reference" in r)
        ended = [r for r in lines[1:] if "ended" in r]
        # The watched command's exit status (None: the log of a run still going, or cut short).
        self.status = ended[-1]["status"] if ended else None

    @property
    def start(self):
        return self.times[0]

    @property
    def end(self):
        return self.times[-1]

    def _at(self, t):
        i = min(max(bisect.bisect_right(self.times, t), 1), len(self.times) - 1)
        a, b = self.readings[i - 1], self.readings[i]
        share = 0.0 if b["t"] == a["t"] else (t - a["t"]) / (b["t"] - a["t"])
        return dict((k, a[k] + share * (b[k] - a[k])) for k in ("busy", "own", "watcher", "steal"))

    def load(self, start, end):
        """Mean load over [start, end] (clipped to the run): other processes' cores and steal's
        share of the machine."""
        start, end = max(start, self.start), min(end, self.end)
        if end <= start:
            return None
        return between(self._at(start), self._at(end), end - start, self.cpus)


def between(a, b, seconds, cpus):
    """The mean load between two readings ``seconds`` apart."""
    other = (b["busy"] - a["busy"]) - (b["own"] - a["own"]) - (b["watcher"] - a["watcher"])
    return Load(max(other, 0.0) / seconds, (b["steal"] - a["steal"]) / seconds / cpus, seconds)


class Span(object):
    """The load while this process ran its own work in child processes that it waited for (their
    CPU time is its own once reaped): ``Span()`` at the start, ``.load()`` at the end."""

    def __init__(self):
        self.first = _reading()

    def load(self):
        import psutil

        last = _reading()
        return between(self.first, last, last["t"] - self.first["t"], psutil.cpu_count())


def over_logs(paths):
    """The mean load over the whole of several watched runs, weighted by their lengths."""
    loads = [log.load(log.start, log.end) for log in (Log(path) for path in paths)]
    loads = [load for load in loads if load is not None]
    if not loads:
        return None
    seconds = sum(load.seconds for load in loads)
    return Load(
        sum(load.other * load.seconds for load in loads) / seconds,
        sum(load.steal * load.seconds for load in loads) / seconds,
        seconds,
    )


def as_record(load):
    """A Load as the noise and audit records keep it; None where none was recorded."""
    return (
        None
        if load is None
        else {"other_cores": round(load.other, 3), "steal": round(load.steal, 4), "seconds": round(load.seconds, 1)}
    )


def describe_record(figures):
    """``as_record``'s figures, as the README's tables say them."""
    return (
        "not recorded"
        if figures is None
        else "%.2f cores / %.1f %% steal" % (figures["other_cores"], 100 * figures["steal"])
    )


def busy(load):
    return load is not None and (load.other >= BUSY_CORES or load.steal >= BUSY_STEAL)


def describe_load(load):
    if load is None:
        return "not recorded"
    return "other processes %.2f cores on average, steal %.1f %% (%s)" % (
        load.other,
        100 * load.steal,
        "under load" if busy(load) else "quiet",
    )


class Machine(object):
    """The load logs of one machine's results, asked about asv's benchmark windows."""

    def __init__(self, results_dir, machine):
        self.logs = []
        for path in sorted(glob.glob(os.path.join(results_dir, machine, DIRECTORY, "*" + SUFFIX))):
            self.logs.append(Log(path))

    def _log(self, start):
        for log in self.logs:
            if log.start <= start < log.end:
                return log
        return None

    def window(self, start, end):
        """The load over [start, end], from the log of the run that was going at ``start``."""
        log = self._log(start)
        return log.load(start, end) if log else None

    def of(self, res, key):
        """The load while benchmark ``key`` of asv Results ``res`` ran; None if no log covers it."""
        started, duration = res.started_at.get(key), res.duration.get(key)
        if started is None or duration is None:
            return None
        return self.window(started / 1000.0, started / 1000.0 + duration)

    def run(self, res):
        """The load over the whole of ``res``'s run (all its benchmarks' windows)."""
        keys = [k for k in res.get_all_result_keys() if res.started_at.get(k) and res.duration.get(k) is not None]
        if not keys:
            return None
        start = min(res.started_at[k] / 1000.0 for k in keys)
        end = max(res.started_at[k] / 1000.0 + res.duration[k] for k in keys)
        # The first round started before the earliest recorded (last-round) start: take the log's
        # own start when one log holds the whole run.
        log = self._log(start)
        return log.load(log.start, end) if log else None

    def busy_keys(self, res):
        """The benchmarks of ``res`` that measured something (``measured``) while the machine was busy."""
        return sorted(k for k in res.get_all_result_keys() if measured(res, k) and busy(self.of(res, k)))


def measured(res, key):
    """Whether benchmark ``key`` of asv Results ``res`` has a number in some cell: one that skipped
    or failed in every cell (an instruction count where the machine has no counters) measured
    nothing that the machine's load could spoil."""
    values = res.get_result_value(key, res.get_result_params(key)) or []
    return any(isinstance(v, (int, float)) and not math.isnan(v) for v in values)


def sittings(paths):
    """Each watched run of ``paths``, in the order given (a run's sittings in time): its path, its
    references at start and end (None where its log has none), and the figures of either that
    differ from the start of the first run that logged one (``machine_speed.differs``)."""
    rows, first = [], None
    for path in paths:
        references = Log(path).references
        first = first or references.get("start")
        moved = {}
        for when in ("start", "end"):
            if first and references.get(when):
                moved.update(
                    ("%s at %s" % (k, when), r) for k, r in machine_speed.differs(first, references[when]).items()
                )
        rows.append((path, references.get("start"), references.get("end"), moved))
    return rows


def print_sittings(paths):
    """``sittings`` as a table; exit status 1 where a run's machine was of another speed."""
    from tabulate import tabulate

    rows = sittings(paths)
    print(
        tabulate(
            [
                [
                    os.path.basename(path),
                    machine_speed.describe(start) if start else "not logged",
                    machine_speed.describe(end) if end else "not logged",
                    ", ".join("%s %.2fx" % kv for kv in sorted(moved.items())) or "same",
                ]
                for path, start, end, moved in rows
            ],
            headers=["run", "machine speed at start", "at end", "against the first run's start"],
            tablefmt="github",
        )
    )
    return 1 if any(moved for *_, moved in rows) else 0


def main(results_dir, machine, command):
    path = log_path(results_dir, machine)
    status = watch(command, path)
    log = Log(path)
    load = log.load(log.start, log.end)
    sys.stderr.write("dsib: machine load during this run: %s (%s)\n" % (describe_load(load), path))
    for when in ("start", "end"):
        sys.stderr.write("dsib: machine speed at its %s: %s\n" % (when, machine_speed.describe(log.references[when])))
    return 128 - status if status < 0 else status  # killed by a signal: as a shell reports it
