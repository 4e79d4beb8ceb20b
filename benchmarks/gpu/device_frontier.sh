#!/usr/bin/env bash
# A frontier solve on a device machine (numba-cuda, no python-flint or gmpy2 installed):
# run from a copy of the repository that holds the two wheels under .whl/.
#
#   bash benchmarks/gpu/device_frontier.sh SECONDS N KEEP_FROM [gops solve options]
#
# Installs the wheels into /tmp/site, stubs gops-exact's dist-info (exact reads its
# version) and numpy 2.5's missing row_stack for numba-cuda (a sitecustomize, so the
# job's subprocesses get it too), then runs benchmarks/gpu/detached_solve.py, which
# starts the solve detached or attaches to the one already running: a second call with
# the same arguments, on the same warm machine, picks the run up.  The store goes to the
# file system with the most room (recorded in /tmp/gops_store_dir for the next call).
set -u
seconds=$1 n=$2 keep=$3
shift 3
if [ ! -d /tmp/site/flint ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl || exit 1
    mkdir -p /tmp/site/gops_exact-0.0.0.dist-info
    printf 'Metadata-Version: 2.1\nName: gops-exact\nVersion: 0.0.0\n' \
        > /tmp/site/gops_exact-0.0.0.dist-info/METADATA
    printf 'import numpy as np\nif not hasattr(np, "row_stack"):\n    np.row_stack = np.vstack\n' \
        > /tmp/site/sitecustomize.py
fi
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
if [ ! -f /tmp/gops_store_dir ]; then
    df --output=avail,target /tmp /var/tmp "$PWD" | tail -n +2 | sort -n | tail -1 \
        | awk '{print $2}' > /tmp/gops_store_dir
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
    nproc; free -g | sed -n 2p; df -h "$(cat /tmp/gops_store_dir)" | tail -1
fi
dir=$(cat /tmp/gops_store_dir)
mkdir -p "$dir/gops"
python3 benchmarks/gpu/detached_solve.py "$n" --keep-from "$keep" --store "$dir/gops/s$n" \
    --out "$OUT" --seconds "$seconds" "$@"
