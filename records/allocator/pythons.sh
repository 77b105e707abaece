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
    "$here/both.sh" "$venv/bin/python" writes WriteToBytes time_write nyc_taxi msgpack plain
done
