#!/usr/bin/env bash
# The pickle reads of the taxi rows with categoricals (ReadFromPageCache, nyc_taxi, pickle-2 and
# pickle-highest, cat) in the three environments around the chains' msgpack step (pandas 2.2.3 with
# msgpack 1.0.5, with msgpack 1.2.4, then pandas 2.3.3), by caseprobe.py, two processes each way.
#   CLONE=<the chains' clone> ENVS="<env dir> <env dir> <env dir>" records/allocator/pickle.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
for env in $ENVS; do
    for format in pickle-2 pickle-highest; do
        "$here/both.sh" "$env/bin/python" reads ReadFromPageCache time_read nyc_taxi $format cat
    done
done
