"""One case as asv runs it, outside asv: the suite imported (its preload, as asv's forkserver does),
a forked process, the case's setup (its untimed calls), then

- by default, 7 timed calls with the collector off (as timeit does): one line with the median in
  ms and the minor page faults of the median call;
- with ``--peak``, one call: the process's peak RSS over its life (what a ``peakmem_`` case
  reports) and what the call adds over the RSS after setup (the peak reset by ``clear_refs``, as
  ``dsib.procmem`` does), MiB.

    CLONE=<a clone with data/ at default> <env>/bin/python caseprobe.py [--peak] MODULE CLASS METHOD PARAM...
"""

import gc
import importlib
import os
import platform
import resource
import statistics
import sys
import time


def memory_mode():
    return "kept" if "MALLOC_MMAP_THRESHOLD_" in os.environ else "glibc default"


def timed(case, method, cell):
    case.setup(*cell)
    gc.disable()
    times, faults = [], []
    for _ in range(7):
        case.setup(*cell)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        started = time.perf_counter()
        getattr(case, method)(*cell)
        times.append(time.perf_counter() - started)
        faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
    import pandas
    import pyarrow

    versions = (platform.python_version(), pandas.__version__, pyarrow.__version__)
    print(
        "py %s pandas %s pyarrow %s %-13s %s%s: median %6.1f ms, minor faults a call %6d"
        % (versions + (memory_mode(), type(case).__name__, cell, statistics.median(times) * 1e3, sorted(faults)[3]))
    )


def status_mib(key):
    with open("/proc/self/status") as f:
        return [int(line.split()[1]) / 1024.0 for line in f if line.startswith(key + ":")][0]


def peak(case, method, cell):
    case.setup(*cell)
    rss = status_mib("VmRSS")
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    getattr(case, method)(*cell)
    added = status_mib("VmHWM") - rss
    whole = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(
        "%-13s %s%s: peak RSS %.0f MiB, RSS after setup %.0f, one call adds %.0f"
        % (memory_mode(), type(case).__name__, cell, whole, rss, added)
    )


def main(argv):
    measure = peak if argv[0] == "--peak" else timed
    argv = argv[1:] if argv[0] == "--peak" else argv
    clone = os.environ.get("CLONE", os.getcwd())
    os.environ["DSIB_PROFILE"] = "default"
    os.environ["DSIB_DATA_DIR"] = os.path.join(clone, "data")
    sys.path.insert(0, clone)
    module, cls, method = argv[:3]
    suite = importlib.import_module("benchmarks." + module)
    if os.fork() == 0:
        measure(getattr(suite, cls)(), method, tuple(argv[3:]))
        os._exit(0)
    os.wait()


if __name__ == "__main__":
    main(sys.argv[1:])
