"""One case as asv runs it, outside asv: the suite imported (its preload, as asv's forkserver does),
a forked process, the case's setup (its untimed calls), then 7 timed calls with the collector off
(as timeit does). Prints one line: the median in ms and the minor page faults of the median call.

    <env>/bin/python caseprobe.py MODULE CLASS METHOD PARAM... (reads CLONE/data at `default`)
"""

import gc
import importlib
import os
import platform
import resource
import statistics
import sys
import time

CLONE = os.environ.get("CLONE", os.getcwd())
os.environ["DSIB_PROFILE"] = "default"
os.environ["DSIB_DATA_DIR"] = os.path.join(CLONE, "data")
sys.path.insert(0, CLONE)
module, cls, method = sys.argv[1:4]
cell = tuple(sys.argv[4:])
suite = importlib.import_module("benchmarks." + module)
pid = os.fork()
if pid == 0:
    case = getattr(suite, cls)()
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

    print(
        "py %s pandas %s pyarrow %s %-13s %s%s: median %6.1f ms, minor faults a call %6d"
        % (
            platform.python_version(),
            pandas.__version__,
            pyarrow.__version__,
            "kept" if "MALLOC_MMAP_THRESHOLD_" in os.environ else "glibc default",
            cls,
            cell,
            statistics.median(times) * 1e3,
            sorted(faults)[3],
        )
    )
    os._exit(0)
os.waitpid(pid, 0)
