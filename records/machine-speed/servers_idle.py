"""What the held servers cost while they sit idle: the servers a run holds (``servers hold``) held
around a ``sleep``, and each of their processes' CPU (cores, averaged over a minute), RSS and
threads printed once a minute, with the machine's context switches and interrupts a second.

    .venv/bin/python records/machine-speed/servers_idle.py [SECONDS]
"""

import subprocess
import sys
import time

import psutil

MINUTE = 60.0


def processes(holder):
    """{pid: (name, cpu seconds, rss bytes, threads)} of the holder's descendants."""
    found = {}
    for child in holder.children(recursive=True):
        try:
            with child.oneshot():
                times = child.cpu_times()
                name = " ".join(child.cmdline()[:3]).split("/")[-1][:40]
                found[child.pid] = (name, times.user + times.system, child.memory_info().rss, child.num_threads())
        except psutil.Error:
            pass
    return found


def machine():
    """(context switches, interrupts) since boot."""
    with open("/proc/stat") as f:
        fields = dict((line.split()[0], line.split()[1]) for line in f)
    return int(fields["ctxt"]), int(fields["intr"])


def main(seconds):
    holder = subprocess.Popen(
        [sys.executable, "-m", "dsib_tools", "servers", "hold", "--", "sleep", str(seconds + 2 * MINUTE)]
    )
    time.sleep(25)  # every server up
    held = psutil.Process(holder.pid)
    before, switches, started = processes(held), machine(), time.monotonic()
    try:
        while time.monotonic() - started < seconds:
            time.sleep(MINUTE)
            now, switched = processes(held), machine()
            print(
                "t=%4.0f s  system ctxt/s %.0f intr/s %.0f"
                % (
                    time.monotonic() - started,
                    (switched[0] - switches[0]) / MINUTE,
                    (switched[1] - switches[1]) / MINUTE,
                ),
                flush=True,
            )
            for pid, (name, cpu, rss, threads) in sorted(now.items()):
                if pid in before:
                    print(
                        "    %s cpu %.3f cores rss %d MiB thr %d"
                        % (name, (cpu - before[pid][1]) / MINUTE, rss >> 20, threads),
                        flush=True,
                    )
            before, switches = now, switched
    finally:
        holder.terminate()
        holder.wait()


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 600.0)
