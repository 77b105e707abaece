"""Each step the step caller calls in a machine's chains, re-timed in its two environments by
caseprobe.py, with glibc's defaults and with freed memory kept (the gate's MALLOC_* settings,
dsib_tools.compare.PROCESS_ENV): 2 processes x 7 samples each side and each way. One JSON line a
process, appended to OUT.

    CLONE=<the chains' clone> python records/allocator/stepprobe.py RESULTS_DIR MACHINE OUT

run from the checkout (it reads asv.conf.json and the results with dsib_tools); each environment
is CLONE's .asv/env of the entry's pins.
"""

import ast
import glob
import json
import os
import subprocess
import sys

from dsib_tools import matrix, steps
from dsib_tools.compare import PROCESS_ENV

HERE = os.path.dirname(os.path.abspath(__file__))
CLONE = os.environ["CLONE"]
KEPT = dict((k, v) for k, v in PROCESS_ENV.items() if k.startswith("MALLOC_"))


def environments():
    """{(python, pins): the environment's directory} of CLONE's asv environments."""
    found = {}
    for info in glob.glob(os.path.join(CLONE, ".asv", "env", "*", "asv-env-info.json")):
        with open(info) as f:
            d = json.load(f)
        found[(d["python"], tuple(sorted(d["requirements"].items())))] = os.path.dirname(info)
    return found


def main(results_dir, machine, out):
    judged, _, _ = steps.judge_results(results_dir, machine, "asv.conf.json")
    entries, envs = matrix.entries("asv.conf.json"), environments()
    with open(out, "a") as f:
        for judgement, call in steps.called(judged):
            bench, args = call.cell.split("(", 1)
            module, cls, method = bench.split(".")
            cell = [str(a) for a in ast.literal_eval("(" + args)]
            for side, index in (("before", judgement.step.before), ("after", judgement.step.after)):
                entry = entries[index]
                python = os.path.join(envs[(entry["python"], tuple(sorted(entry["req"].items())))], "bin", "python")
                for mode in ("default", "kept"):
                    for process in range(2):
                        env = dict(os.environ, **(KEPT if mode == "kept" else {}))
                        proc = subprocess.run(
                            [python, os.path.join(HERE, "caseprobe.py"), module, cls, method] + cell,
                            env=env,
                            stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT,
                            universal_newlines=True,
                        )
                        lines = [line for line in proc.stdout.splitlines() if line.startswith("py ")]
                        record = dict(step=judgement.label, cell=call.cell, recorded_ratio=call.ratio, side=side)
                        record.update(mode=mode, process=process, out=lines[-1] if lines else proc.stdout[-300:])
                        f.write(json.dumps(record) + "\n")
                        f.flush()


if __name__ == "__main__":
    main(*sys.argv[1:4])
