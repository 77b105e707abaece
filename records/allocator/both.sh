#!/usr/bin/env bash
# caseprobe.py's ARGS in PYTHON, in two processes, each time with glibc's defaults and then with
# freed memory kept (the settings of dsib_tools.compare.PROCESS_ENV): four lines.
#   both.sh PYTHON ARGS...
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python="$1"
shift
for process in 1 2; do
    "$python" "$here/caseprobe.py" "$@" 2>&1 | grep -E '^py |MiB'
    MALLOC_MMAP_THRESHOLD_=1073741824 MALLOC_TRIM_THRESHOLD_=4294967296 MALLOC_TOP_PAD_=268435456 \
        "$python" "$here/caseprobe.py" "$@" 2>&1 | grep -E '^py |MiB'
done
