"""The table of README.md from stepprobe.jsonl: each called step's change as the chains' results
have it, and re-timed with glibc's defaults and with freed memory kept (the ratio of the medians of
each side's two processes, and the range of the ratios of one process to another), with each
side's minor page faults in a call (the higher of its two processes).

    python records/allocator/stepsummary.py records/allocator/stepprobe.jsonl
"""

import collections
import json
import re
import sys

LINE = re.compile(r"median\s+([\d.]+) ms, minor faults a call\s+(\d+)")


def way(ratio):
    return "%.2fx %s" % ((ratio, "slower") if ratio >= 1 else (1 / ratio, "faster"))


def ratios(before, after):
    """(ratio of the medians, lowest and highest ratio of one process to another)."""
    b, a = sorted(t for t, _ in before), sorted(t for t, _ in after)
    middle = (a[0] + a[-1]) / (b[0] + b[-1])
    return middle, a[0] / b[-1], a[-1] / b[0]


def column(probes, mode):
    before, after = probes[("before", mode)], probes[("after", mode)]
    if not before or not after:
        return "(did not run)", ""
    middle, low, high = ratios(before, after)
    times = "%s (%s-%s; %.1f → %.1f ms)" % (
        way(middle),
        "%.2f" % low,
        "%.2f" % high,
        sum(t for t, _ in before) / len(before),
        sum(t for t, _ in after) / len(after),
    )
    return times, "%d → %d" % (max(f for _, f in before), max(f for _, f in after))


def main(path):
    probes, order = collections.defaultdict(lambda: collections.defaultdict(list)), []
    with open(path) as f:
        for line in f:
            record = json.loads(line)
            key = (record["step"], record["cell"], record["recorded_ratio"])
            if key not in order:
                order.append(key)
            found = LINE.search(record["out"])
            if found:
                probes[key][(record["side"], record["mode"])].append((float(found.group(1)), int(found.group(2))))
    headers = ["step", "cell", "called in the chains", "re-timed, glibc's defaults", "faults a call"]
    headers += ["re-timed, freed memory kept", "faults a call"]
    print("| %s |" % " | ".join(headers))
    print("|%s" % ("---|" * len(headers)))
    for key in order:
        default, kept = column(probes[key], "default"), column(probes[key], "kept")
        cells = (key[0], "`%s`" % key[1].split(".", 1)[1], way(key[2])) + default + kept
        print("| %s |" % " | ".join(cells))


if __name__ == "__main__":
    main(sys.argv[1])
