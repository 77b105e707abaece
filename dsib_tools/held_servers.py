"""``python -m dsib_tools servers hold [--kinds K,...] -- COMMAND``: one PostgreSQL, one QuestDB and
the object store for the whole of COMMAND (``make run`` wraps ``asv run`` in it, asking for the
kinds its selected cells work in), started before it, and Spark's JVMs, started when its cases
ask (``dsib.spark_server``), all stopped by their PID when it ends, however it ends (``hold``).
``dsib.servers`` starts and stops each server; what they need is installed by ``server_install``.
"""

import os
import shutil
import signal
import subprocess
import sys
import tempfile

import psutil

from dsib import environment, server_process, servers

from .machine_load import end_command


class _Stopped(Exception):
    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def run_directory():
    """A new directory for this run's servers, beside the cells' cache (``$DSIB_CACHE_DIR``, else
    ``.cache`` in the data directory); those of runs that have ended are removed first."""
    data_dir = os.environ.get("DSIB_DATA_DIR") or os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data"
    )
    root = os.path.join(environment.cache_dir(data_dir), "_servers")
    os.makedirs(root, exist_ok=True)
    for name in os.listdir(root):
        pid = name.split("-")[1] if name.count("-") >= 2 else ""
        if pid.isdigit() and not psutil.pid_exists(int(pid)):
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)
    directory = tempfile.mkdtemp(prefix="run-%d-" % os.getpid(), dir=root)
    os.chmod(directory, 0o711)  # enterable (not listable) by PostgreSQL's own user where this is root
    return directory


def _where(server):
    if server.pid is None:  # Spark's holder: a JVM when a case asks
        return "%s when a case asks" % server.name
    return "%s pid %d on %s:%d" % (server.name, server.pid, server_process.LOOPBACK, server.port)


def _stopped(server):
    return str(server) if server.pid is None else "%s pid %d" % (server.name, server.pid)


def _serve(started):
    """The requests of the run's cases answered (Spark's JVMs started)."""
    for server in started:
        if hasattr(server, "serve"):
            server.serve()


def hold(command, kinds=None, say=lambda line: print(line, file=sys.stderr, flush=True)):
    """Run ``command`` with the run's servers held (those of ``kinds``, None: every kind): started
    first, told to it in ``$DSIB_SERVERS``, stopped by their PID when it ends, when this process is
    interrupted (SIGINT, SIGTERM, SIGHUP), and, should this process be killed, by the kernel (their
    parent-death signal). Returns the command's exit status as a shell reports it."""
    stopping, running = [], []

    def stop_here(signum, frame):
        if not stopping:  # the first signal stops the run; it is already stopping on a later one
            stopping.append(signum)
            # While the servers start, the signal interrupts the start. Once the command runs it is
            # only noted: an exception raised between the kernel's reaping of the command and
            # Popen's noting its status would lose that status (Popen then reports 0).
            if not running:
                raise _Stopped(signum)

    caught = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    previous = dict((sig, signal.signal(sig, stop_here)) for sig in caught)
    directory, started, child = None, [], None
    try:
        directory = run_directory()
        started, value, missing = servers.hold(directory, kinds)
        for kind, why in sorted(missing.items()):
            say("dsib: no %s held for this run: %s" % (kind, why))
        say("dsib: servers held for this run: %s" % (", ".join(_where(s) for s in started) or "none"))
        child = subprocess.Popen(command, env=dict(os.environ, **{environment.HELD_SERVERS: value}))
        running.append(child)
        status = None
        while status is None and not stopping:
            _serve(started)
            try:
                status = child.wait(timeout=0.2)
            except subprocess.TimeoutExpired:
                pass
        if status is None:
            status = end_command(child, stopping[0])
    except _Stopped as stopped:
        status = end_command(child, stopped.signum)
    finally:
        for sig in caught:  # the servers are stopped whatever else arrives meanwhile
            signal.signal(sig, signal.SIG_IGN)
        try:
            for server in started:
                server.stop()
            if started:
                say("dsib: servers of this run stopped: %s" % ", ".join(_stopped(s) for s in started))
        finally:
            if directory:
                shutil.rmtree(directory, ignore_errors=True)
            for sig, handler in previous.items():
                signal.signal(sig, handler)
    return 128 - status if status < 0 else status
