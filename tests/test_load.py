"""The machine's load beside a run's results: real processes, watched by the real CLI."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest

from dsib_tools import machine_load as load
from dsib_tools.publish import REFERENCE_MACHINE

from .conftest import ROOT, committed

SPIN = "import time\nt = time.process_time()\nwhile time.process_time() - t < %r: pass\n"


def _as_from_a_terminal():
    # A job started in the background by a shell without job control (nohup ... &, as CI runners
    # and scripts do) inherits SIGINT ignored, and Python then never raises KeyboardInterrupt: a
    # terminal's Ctrl-C reaches a foreground make with SIGINT at its default.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _watch(results, command, **kwargs):
    return subprocess.Popen(
        [sys.executable, "-m", "dsib_tools", "study", "load", "--results-dir", str(results), "--machine", "m", "--"]
        + command,
        cwd=ROOT,
        stderr=subprocess.PIPE,
        universal_newlines=True,
        preexec_fn=_as_from_a_terminal,
        **kwargs,
    )


def _only_log(results):
    directory = os.path.join(str(results), "m", load.DIRECTORY)
    names = os.listdir(directory)
    assert len(names) == 1 and names[0].endswith(load.SUFFIX), names
    return load.Log(os.path.join(directory, names[0]))


@pytest.mark.slow
def test_the_commands_own_process_tree_is_its_own_and_other_work_is_other(tmp_path):
    """The watched command's grandchild spins 1.5 CPU-seconds, which must count as the command's own;
    two burners started beside it are other processes, whatever else this machine is doing."""
    done = tmp_path / "cpu"
    grandchild = SPIN % 1.5 + "open(%r, 'w').write(str(time.process_time()))\n" % str(done)
    command = [sys.executable, "-c", "import subprocess, sys; subprocess.run([sys.executable, '-c', %r])" % grandchild]
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        watched = _watch(tmp_path, command)
        _, stderr = watched.communicate(timeout=120)
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    assert watched.returncode == 0, stderr
    log = _only_log(tmp_path)
    first, last = log.readings[0], log.readings[-1]
    assert last["own"] - first["own"] >= float(done.read_text()) * 0.95, "the grandchild's CPU is the run's own"
    whole = log.load(log.start, log.end)
    assert whole.other >= 2 * load.BUSY_CORES and load.busy(whole), whole
    assert "under load" in stderr and log.path in stderr


def test_the_exit_status_is_the_commands():
    proc = subprocess.run(
        [sys.executable, "-m", "dsib_tools", "study", "load", "--results-dir", "/nonexistent/x", "--machine", "m"],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )
    assert proc.returncode != 0
    with pytest.raises(subprocess.CalledProcessError) as failed:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "dsib_tools",
                "study",
                "load",
                "--results-dir",
                "/tmp/dsib-load-%d" % os.getpid(),
                "--machine",
                "m",
                "--",
                sys.executable,
                "-c",
                "raise SystemExit(3)",
            ],
            cwd=ROOT,
            check=True,
            stderr=subprocess.DEVNULL,
        )
    assert failed.value.returncode == 3


def _readings_so_far(results):
    directory = os.path.join(str(results), "m", load.DIRECTORY)
    partial = [n for n in os.listdir(directory) if n.endswith(".partial")] if os.path.isdir(directory) else []
    if not partial:
        return 0
    with open(os.path.join(directory, partial[0])) as f:
        return sum(1 for line in f if '"t":' in line)


def _ctrl_c(results, command, timeout):
    """Watch ``command``; once it runs, send SIGINT to the whole group, as a terminal's Ctrl-C does,
    and wait for the watcher to end. Whatever is left is killed, so that no test leaves it behind."""
    watched = _watch(results, command, start_new_session=True)
    try:
        deadline = time.time() + 60
        while _readings_so_far(results) < 3 and time.time() < deadline:
            time.sleep(0.2)
        os.killpg(watched.pid, signal.SIGINT)
        watched.communicate(timeout=timeout)
    finally:
        if watched.poll() is None:
            os.killpg(watched.pid, signal.SIGKILL)
            watched.communicate()


def test_ctrl_c_stops_the_command_and_keeps_the_log(tmp_path):
    _ctrl_c(tmp_path, [sys.executable, "-c", "import time; time.sleep(60)"], timeout=30)
    log = _only_log(tmp_path)
    assert log.end - log.start < 40
    with open(log.path) as f:
        assert "ended" in json.loads(f.read().splitlines()[-1])
    assert not [n for n in os.listdir(os.path.dirname(log.path)) if n.endswith(".partial")]


def test_a_window_is_the_difference_of_two_interpolated_readings(tmp_path):
    """The arithmetic on a log written out by hand: 2 cpus, one reading a second."""
    path = tmp_path / "run.jsonl"
    readings = [
        {"t": 100.0 + i, "busy": 10.0 + 1.5 * i, "own": 1.0 * i, "watcher": 0.01 * i, "steal": 0.2 * i}
        for i in range(11)
    ]
    path.write_text("\n".join(json.dumps(r) for r in [{"kind": load.KIND, "version": 1, "cpus": 2}] + readings))
    log = load.Log(str(path))
    window = log.load(102.5, 106.5)
    assert window.seconds == pytest.approx(4.0)
    assert window.other == pytest.approx(0.49) and window.steal == pytest.approx(0.1)
    assert load.busy(window) and load.busy(load.Load(0.0, 0.06, 1.0)) and not load.busy(load.Load(0.2, 0.01, 1.0))
    assert log.load(95.0, 150.0).seconds == pytest.approx(10.0), "clipped to the run"
    assert log.load(200.0, 210.0) is None


def test_the_committed_history_states_its_load_and_a_bad_log_is_a_clear_error(tmp_path):
    """The committed runs carry their load logs: their table says what else the machine did. A
    damaged log stops the table with its path and what to do, not a traceback."""
    results = str(tmp_path / "results")
    shutil.copytree(committed("results"), results)
    table = [
        sys.executable,
        "-m",
        "dsib_tools",
        "table",
        "post",
        "--results-dir",
        results,
        "--machine",
        REFERENCE_MACHINE,
        "--env",
        "DSIB_PROFILEdefault",
    ]
    proc = subprocess.run(table, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"machine load during the run: other processes [0-9.]+ cores", proc.stdout), proc.stdout
    broken = os.path.join(results, REFERENCE_MACHINE, load.DIRECTORY, "broken" + load.SUFFIX)
    os.makedirs(os.path.dirname(broken), exist_ok=True)
    with open(broken, "w") as f:
        f.write('{"kind": "dsib machine load"\n')
    proc = subprocess.run(table, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    assert proc.returncode == 1 and broken in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


@pytest.mark.slow
def test_a_command_that_ignores_ctrl_c_is_stopped_all_the_same(tmp_path):
    """A Ctrl-C can miss the command (one that ignores it, or a signal lost between fork and exec):
    the watcher passes it on, then kills, and keeps the log; nothing is left running."""
    ignores = "import signal, time; signal.signal(signal.SIGINT, signal.SIG_IGN); time.sleep(120)"
    _ctrl_c(tmp_path, [sys.executable, "-c", ignores], timeout=60)
    log = _only_log(tmp_path)
    with open(log.path) as f:
        assert json.loads(f.read().splitlines()[-1])["status"] == -signal.SIGKILL
    assert log.end - log.start < 60


def _leaves_an_orphan(code, started=None):
    """A command that starts ``code`` in a new session and ends with ``os._exit`` (once the file
    ``started`` exists, if given), as asv ends a case's process while a server the case started
    still runs."""
    wait = "" if started is None else "while not os.path.exists(%r): time.sleep(0.05)\n" % str(started)
    return [
        sys.executable,
        "-c",
        "import os, subprocess, sys, time\nsubprocess.Popen([sys.executable, '-c', %r], "
        "start_new_session=True)\n%sos._exit(0)" % (code, wait),
    ]


def test_an_orphan_of_the_command_is_its_own_and_waited_for(tmp_path):
    """The orphan spins 1.5 CPU-seconds after its parent ended: the watcher waits for it, and its
    CPU is the run's own, not other processes' (it was, before the watcher adopted orphans)."""
    done = tmp_path / "cpu"
    watched = _watch(
        tmp_path, _leaves_an_orphan(SPIN % 1.5 + "open(%r, 'w').write(str(time.process_time()))\n" % str(done))
    )
    _, stderr = watched.communicate(timeout=120)
    assert watched.returncode == 0, stderr
    assert done.exists(), "the watcher ended before the command's orphan"
    log = _only_log(tmp_path)
    assert log.readings[-1]["own"] - log.readings[0]["own"] >= float(done.read_text()) * 0.95, log.readings
    assert "left" not in stderr, stderr


def test_an_orphan_still_running_after_the_grace_is_killed_and_named(tmp_path, capfd):
    pid_file = tmp_path / "pid"
    command = _leaves_an_orphan(
        "import os, time; open(%r, 'w').write(str(os.getpid())); time.sleep(600)" % str(pid_file), started=pid_file
    )
    path = str(tmp_path / "m" / load.DIRECTORY / ("run" + load.SUFFIX))
    assert load.watch(command, path, interval=0.2, orphans_grace=3) == 0
    pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert "left 1 process(es) running %d (" % pid in capfd.readouterr().err
    import ctypes

    flag = ctypes.c_int(-1)
    assert ctypes.CDLL(None).prctl(37, ctypes.byref(flag), 0, 0, 0) == 0  # PR_GET_CHILD_SUBREAPER
    assert flag.value == 0, "watch left this process adopting orphans"


def test_a_watched_run_logs_the_machine_s_speed_before_and_after_its_command(tmp_path):
    """Page faults, memory copies and the interpreter, timed before the command starts and after it
    ends: the log keeps them, the run's last lines say them, and `study speed` lists them."""
    from dsib_tools import machine_speed

    watched = _watch(tmp_path, [sys.executable, "-c", "pass"])
    _, stderr = watched.communicate(timeout=120)
    assert watched.returncode == 0, stderr
    log = _only_log(tmp_path)
    assert sorted(log.references) == ["end", "start"]
    for reference in log.references.values():
        assert sorted(reference) == sorted(machine_speed.FIGURES)
        assert all(len(v) == machine_speed.REPEATS and min(v) > 0 for v in reference.values()), reference
        assert "machine speed at its start: " + machine_speed.describe(log.references["start"]) in stderr
    listed = subprocess.run(
        [sys.executable, "-m", "dsib_tools", "study", "speed", log.path],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        universal_newlines=True,
    )
    assert os.path.basename(log.path) in listed.stdout, listed.stdout
    # One run: its end set against its own start, which a busy machine can move past the factor
    # (make test's other worker running asv: the loop 1.53x at the end); then it says so and exits 1.
    verdict = listed.stdout.strip().splitlines()[-1].rstrip(" |").rsplit("|", 1)[-1].strip()
    assert (listed.returncode, verdict == "same") in ((0, True), (1, False)), listed.stdout


def test_a_sitting_on_a_slowed_machine_is_named_whatever_its_load(tmp_path):
    """A real run's log, its end's reference made its start's (one speed), and two copies: one with
    page faults three times dearer at the start (as the Xeon's slowed afternoon) and copies 1.2x
    slower at the end (within the factor), one without references (logged before they were).
    `study speed` names the slowed sitting's faults, says "not logged", and exits 1."""
    from dsib_tools import machine_speed

    watched = _watch(tmp_path, [sys.executable, "-c", "pass"])
    watched.communicate(timeout=120)
    with open(_only_log(tmp_path).path) as f:
        lines = [json.loads(line) for line in f]
    (start,) = [line["reference"] for line in lines if line.get("when") == "start"]

    def write(name, references):
        path = str(tmp_path / name)
        with open(path, "w") as f:
            for line in lines:
                if "reference" not in line:
                    f.write(json.dumps(line) + "\n")
                elif line["when"] in references:
                    f.write(json.dumps(dict(line, reference=references[line["when"]])) + "\n")
        return path

    base = write("base.jsonl", {"start": start, "end": start})
    slowed = write(
        "slowed.jsonl",
        {
            "start": dict(start, fault_us=[3 * v for v in start["fault_us"]]),
            "end": dict(start, copy_gbs=[v / 1.2 for v in start["copy_gbs"]]),
        },
    )
    unlogged = write("unlogged.jsonl", {})
    rows = load.sittings([base, slowed, unlogged])
    assert [moved for *_, moved in rows] == [{}, {"fault_us at start": pytest.approx(3.0, abs=0.01)}, {}]
    assert rows[2][1:3] == (None, None)
    assert machine_speed.differs(start, start) == {}
    listed = subprocess.run(
        [sys.executable, "-m", "dsib_tools", "study", "speed", base, slowed, unlogged],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        universal_newlines=True,
    )
    assert listed.returncode == 1, listed.stdout
    assert "fault_us at start 3.00x" in listed.stdout and "not logged" in listed.stdout, listed.stdout


def test_a_benchmark_that_measured_nothing_is_never_under_load(tmp_path):
    """A benchmark whose every cell skipped (an instruction count on a machine without counters)
    measured nothing that the machine's load could spoil: it is not counted under load, even in a
    busy window; with one number in the same window it is. A committed re-run's own case."""
    from dsib_tools import asv_results

    runs = os.path.join(ROOT, "records", "matrix-runs", "xeon-m207-2c-24g-60e20e8", "matrix")
    machine, key = "xeon-m207-2c-24g", "instructions.ReadFromPageCache.track_read"
    name = "60e20e88-env-0c2bb3422612befca9e5463f9b684946.json"
    logs = load.Machine(runs, machine)
    res = asv_results.load(os.path.join(runs, machine, name))
    assert load.busy(logs.of(res, key)), "the window was busy"
    assert not load.measured(res, key) and key not in logs.busy_keys(res)

    with open(os.path.join(runs, machine, name)) as f:
        d = json.load(f)
    d["results"][key][d["result_columns"].index("result")][0] = 123.0
    counted = tmp_path / name
    counted.write_text(json.dumps(d))
    res = asv_results.load(str(counted))
    assert load.measured(res, key) and key in logs.busy_keys(res)
