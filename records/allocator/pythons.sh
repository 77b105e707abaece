#!/usr/bin/env bash
# The msgpack write of the taxi rows (WriteToBytes, nyc_taxi, plain) with the same packages on
# Pythons 3.7, 3.8 and 3.9 (numpy 1.19.5, pandas 1.3.5, pyarrow 10.0.1, msgpack 1.0.5: wheels
# only), by caseprobe.py, two processes each with glibc's defaults and with freed memory kept.
#   CLONE=<a clone with data/ at default> WORK=<scratch dir> records/allocator/pythons.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
for py in 3.7.16 3.8.18 3.9.18; do
    venv="$WORK/py$py"
    [ -x "$venv/bin/python" ] || {
        "$(pyenv root)/versions/$py/bin/python" -m venv "$venv"
        "$venv/bin/pip" install -q --only-binary=:all: numpy==1.19.5 pandas==1.3.5 pyarrow==10.0.1 msgpack==1.0.5 psutil
    }
    for process in 1 2; do
        "$venv/bin/python" "$here/caseprobe.py" writes WriteToBytes time_write nyc_taxi msgpack plain 2>&1 | grep '^py '
        MALLOC_MMAP_THRESHOLD_=1073741824 MALLOC_TRIM_THRESHOLD_=4294967296 MALLOC_TOP_PAD_=268435456 \
            "$venv/bin/python" "$here/caseprobe.py" writes WriteToBytes time_write nyc_taxi msgpack plain 2>&1 | grep '^py '
    done
done
