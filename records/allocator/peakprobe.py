"""Peak memory of a case as asv runs it, with glibc's defaults or freed memory kept: the process's
peak RSS over its life (what peakmem_ reports, ru_maxrss) and what one call adds over the RSS
after setup (VmHWM reset by clear_refs, as dsib.procmem does), MiB.

    CLONE=<a clone with data/ at default> <env>/bin/python peakprobe.py MODULE CLASS METHOD PARAM...
"""

import importlib
import os
import resource
import sys

CLONE = os.environ.get("CLONE", os.getcwd())
os.environ["DSIB_PROFILE"] = "default"
os.environ["DSIB_DATA_DIR"] = os.path.join(CLONE, "data")
sys.path.insert(0, CLONE)
mod, cls, method = sys.argv[1:4]
cell = tuple(sys.argv[4:])
m = importlib.import_module("benchmarks." + mod)


def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024.0


pid = os.fork()
if pid == 0:
    case = getattr(m, cls)()
    case.setup(*cell)
    rss = status("VmRSS")
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    getattr(case, method)(*cell)
    added = status("VmHWM") - rss
    print(
        "%-13s %s%s: peak RSS %.0f MiB, RSS after setup %.0f, one call adds %.0f"
        % (
            "kept" if "MALLOC_MMAP_THRESHOLD_" in os.environ else "glibc default",
            cls,
            cell,
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
            rss,
            added,
        )
    )
    os._exit(0)
os.waitpid(pid, 0)
