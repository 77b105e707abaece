#!/usr/bin/env bash
# Three cells of formats that never call pyarrow, timed by records/allocator/caseprobe.py in the
# chain's first and fifth environments (pyarrow 0.11.1 and 5.0.0 at pandas 0.23.4, Python 3.7),
# alternately, twice each, with freed memory kept: do they differ when measured minutes apart?
#   CLONE=<a clone with data/ at default> FIRST=<env dir> FIFTH=<env dir> records/machine-speed/chain_probe.sh
set -euo pipefail
probe="$(cd "$(dirname "$0")/../allocator" && pwd)/caseprobe.py"
export MALLOC_MMAP_THRESHOLD_=1073741824 MALLOC_TRIM_THRESHOLD_=4294967296 MALLOC_TOP_PAD_=268435456
for turn in 1 2; do
    for env in "$FIRST" "$FIFTH"; do
        for cell in "writes WriteToBytes time_write nyc_taxi msgpack cat" \
                    "reads ReadFromPageCache time_read nyc_taxi csv str" \
                    "writes WriteToBytes time_write rocklin msgpack plain"; do
            # shellcheck disable=SC2086
            "$env/bin/python" "$probe" $cell 2>&1 | grep -E '^py '
        done
    done
done
