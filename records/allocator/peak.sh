#!/usr/bin/env bash
# Peak memory both ways (caseprobe.py --peak), in the newest environment, two processes a case and way.
#   CLONE=<the chains' clone> PYTHON=<its newest environment's python> records/allocator/peak.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
for c in "writes WriteToBytes time_write nyc_taxi msgpack plain" "writes WriteToBytes time_write nyc_taxi csv plain" \
    "reads ReadFromPageCache time_read nyc_taxi parquet plain" "reads ReadFromPageCache time_read nyc_taxi csv str" \
    "reads ReadFromPageCache time_read nyc_taxi pickle-highest plain"; do
    "$here/both.sh" "$PYTHON" --peak $c
done
