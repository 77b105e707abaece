"""The guest's memory over a sitting: a JSON line every INTERVAL seconds of /proc/meminfo's and
/proc/vmstat's figures that a run could accumulate (page cache, slab, transparent huge pages,
reclaim, compaction, refaults), until the process is signalled (SIGTERM, SIGINT).

    python3 records/machine-speed/memlog.py OUT.jsonl [INTERVAL]
"""

import json
import os
import signal
import sys
import time

MEMINFO = ("MemFree", "MemAvailable", "Cached", "Dirty", "AnonPages", "AnonHugePages", "Shmem", "Slab", "SReclaimable")
VMSTAT = (
    "pgfault",
    "pgmajfault",
    "thp_fault_alloc",
    "thp_fault_fallback",
    "compact_stall",
    "compact_success",
    "pgscan_kswapd",
    "pgscan_direct",
    "allocstall_normal",
    "allocstall_movable",
    "workingset_refault_file",
    "pswpin",
    "nr_free_pages",
)


def reading():
    with open("/proc/meminfo") as f:
        mem = dict((line.split(":")[0], int(line.split()[1])) for line in f)
    with open("/proc/vmstat") as f:
        vm = dict((line.split()[0], int(line.split()[1])) for line in f)
    figures = dict(("%s_kB" % k, mem.get(k)) for k in MEMINFO)
    figures.update((k, vm.get(k)) for k in VMSTAT)
    figures["time"] = time.time()
    return figures


def main(path, interval=30.0):
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with open(path, "a") as out:
        while True:
            out.write(json.dumps(reading(), sort_keys=True) + "\n")
            out.flush()
            os.fsync(out.fileno())
            time.sleep(interval)


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 30.0)
