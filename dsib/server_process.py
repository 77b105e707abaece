"""A server's process: started by the suite, listening on 127.0.0.1 only, and stopped by its PID.

A server is a child process of the case (or test) that needs it, listening on a free port of
127.0.0.1 and nowhere else, with its files in a directory the case gave it. It is stopped by
its PID, whichever way its case ends:

- ``Server.stop()``: an engine's ``close``; a signal that asks the server to finish cleanly,
  then SIGKILL if it has not within ``STOP_TIMEOUT``;
- at interpreter exit (``atexit``), any server of this process still running;
- when the process that started it dies without either (asv's forkserver ends each case with
  ``os._exit``, kills a case past its timeout, Ctrl-C, SIGKILL): the kernel sends the server its
  stop signal (Linux's parent-death signal, ``PR_SET_PDEATHSIG``).

A server runs in a session of its own, so a Ctrl-C at the terminal reaches the case, which stops
its servers in that order: the client first, then the server.

PostgreSQL refuses to run as root. Run as root, the suite runs servers as an unprivileged user
(``postgres`` where it exists, else ``nobody``), who owns the server's directory.

The servers themselves are in ``dsib.postgres_server`` and ``dsib.questdb_server``; ``dsib.servers``
holds them for a run and names every one of these for the engines.
"""

import atexit
import ctypes
import ctypes.util
import os
import pwd
import signal
import socket
import subprocess
import time

LOOPBACK = "127.0.0.1"
START_TIMEOUT = 120
STOP_TIMEOUT = 30
_PR_SET_PDEATHSIG = 1
_RUNNING = {}  # pid: Server, this process's servers not yet stopped


class ServerError(RuntimeError):
    pass


def free_port():
    """A port of 127.0.0.1 that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


def port_open(port):
    """Whether something accepts connections on 127.0.0.1:``port``."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex((LOOPBACK, port)) == 0


def server_user():
    """The ``pwd`` entry to run servers as: None (this process's own user) unless it is root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            pass
    raise ServerError("running as root, and neither a 'postgres' nor a 'nobody' user exists to run servers as")


def give_to(path, user):
    """``path`` and everything under it owned by ``user`` (None: left as it is)."""
    if user is None:
        return
    os.chown(path, user.pw_uid, user.pw_gid)
    for directory, dirs, files in os.walk(path):
        for name in dirs + files:
            os.chown(os.path.join(directory, name), user.pw_uid, user.pw_gid, follow_symlinks=False)


def check_reachable(path, user):
    """Raise where ``user`` cannot reach ``path`` (a parent directory it may not enter)."""
    if user is None:
        return
    parent = os.path.dirname(os.path.abspath(path))
    while True:
        st = os.stat(parent)
        if not (
            st.st_mode & 0o001
            or (st.st_uid == user.pw_uid and st.st_mode & 0o100)
            or (st.st_gid == user.pw_gid and st.st_mode & 0o010)
        ):
            raise ServerError(
                "servers run as %r here (root may not run them), and %r cannot enter %s: "
                "keep the data directory (DSIB_DATA_DIR, DSIB_CACHE_DIR) where it can"
                % (user.pw_name, user.pw_name, parent)
            )
        if parent == os.path.dirname(parent):
            return
        parent = os.path.dirname(parent)


_libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)


def _in_child(parent_pid, user, stop_signal):
    """Between fork and exec: a session of its own, the server's user, and the signal the kernel
    sends when the process that started it dies (set after the user: a change of user clears it)."""

    def preexec():
        os.setsid()
        if user is not None:
            os.setgroups([])
            os.setgid(user.pw_gid)
            os.setuid(user.pw_uid)
        _libc.prctl(_PR_SET_PDEATHSIG, int(stop_signal), 0, 0, 0)
        if os.getppid() != parent_pid:  # the parent died before the signal was set
            os._exit(1)

    return preexec


class Server(object):
    """One server process: ``argv`` run in ``directory`` as ``user``, its output in ``log``; its
    stdin a pipe this process keeps open where ``stdin_pipe`` (a server that ends when it closes:
    PySpark's gateway), else empty."""

    def __init__(self, name, argv, directory, port, stop_signal=signal.SIGTERM, user=None, env=None, stdin_pipe=False):
        self.name, self.argv, self.directory, self.port = name, list(argv), directory, port
        self.stop_signal, self.user, self.env = stop_signal, user, env
        self.stdin = subprocess.PIPE if stdin_pipe else subprocess.DEVNULL
        self.log = os.path.join(directory, "server.log")
        self.process = None

    @property
    def pid(self):
        return self.process.pid if self.process else None

    def start(self, ready, timeout=START_TIMEOUT):
        """Start it and wait until ``ready()``; a server that exits or is not ready in ``timeout``
        seconds is stopped, and the error quotes its log."""
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                self.argv,
                cwd=self.directory,
                stdin=self.stdin,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=self.env,
                close_fds=True,
                preexec_fn=_in_child(os.getpid(), self.user, self.stop_signal),
            )
        _RUNNING[self.process.pid] = self
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                self.stop()
                raise ServerError(
                    "%s exited (code %s) before it was ready: %s"
                    % (self.name, self.process.returncode, self.log_tail())
                )
            try:
                if ready():
                    return self
            except Exception:  # not listening yet
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise ServerError("%s was not ready within %d s: %s" % (self.name, timeout, self.log_tail()))
            time.sleep(0.05)

    def stop(self, timeout=STOP_TIMEOUT):
        """Stop it by its PID: the stop signal, then SIGKILL after ``timeout`` seconds. Returns the
        exit code."""
        process = self.process
        if process is None:
            return None
        try:
            if process.poll() is None:
                process.send_signal(self.stop_signal)
                try:
                    process.wait(timeout)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        finally:
            _RUNNING.pop(process.pid, None)
            if process.stdin:
                process.stdin.close()
        return process.returncode

    def log_tail(self, lines=20):
        try:
            with open(self.log, errors="replace") as f:
                return "".join(f.readlines()[-lines:]).strip() or "(its log is empty)"
        except OSError:
            return "(no log)"

    def __repr__(self):
        return "<%s pid=%s port=%s>" % (self.name, self.pid, self.port)


@atexit.register
def stop_all():
    """Every server this process started and has not stopped."""
    for server in list(_RUNNING.values()):
        server.stop()


def running():
    """This process's servers not yet stopped."""
    return list(_RUNNING.values())


def not_the_series_major(server, major, expected, constant):
    """Why ``server`` at this machine's ``major`` is not measured here (it is not the series'
    major, ``expected``, the constant named ``constant``: "dsib.module.NAME"), or None."""
    if major == expected:
        return None
    if major is None:
        return "this machine's %s names no major version, and the engines' series are of %s %d (%s)" % (
            server,
            server,
            expected,
            constant,
        )
    return (
        "this machine's %s is %d, and the engines' series are of %s %d (%s): to measure it, "
        "set %s = %d and record each engine series as new or continuing (python -m dsib_tools lock)"
        % (server, major, server, expected, constant, constant.rpartition(".")[2], major)
    )
