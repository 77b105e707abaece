#!/usr/bin/env bash
# The pickle reads of the taxi rows with categoricals (ReadFromPageCache, nyc_taxi, pickle-2 and
# pickle-highest, cat) in the three environments around the chains' msgpack step (pandas 2.2.3 with
# msgpack 1.0.5, with msgpack 1.2.4, then pandas 2.3.3), by caseprobe.py, two processes each way.
#   CLONE=<the chains' clone> ENVS="<env dir> <env dir> <env dir>" records/allocator/pickle.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
for env in $ENVS; do
    for format in pickle-2 pickle-highest; do
        for process in 1 2; do
            "$env/bin/python" "$here/caseprobe.py" reads ReadFromPageCache time_read nyc_taxi $format cat 2>&1 | grep '^py '
            MALLOC_MMAP_THRESHOLD_=1073741824 MALLOC_TRIM_THRESHOLD_=4294967296 MALLOC_TOP_PAD_=268435456 \
                "$env/bin/python" "$here/caseprobe.py" reads ReadFromPageCache time_read nyc_taxi $format cat 2>&1 | grep '^py '
        done
    done
done
