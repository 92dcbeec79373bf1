#!/usr/bin/env bash
# HSDP against FULL_SHARD and hierarchical against flat all-to-all on one slow emulated fabric, as
# recorded in bench/RESULTS.md: 2 emulated nodes x 2 host ranks, modeled H100 compute, dilated.
#   sweeps/emulate/parallelism_compare.sh OUT_DIR [FABRIC] [DILATION]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: parallelism_compare.sh OUT_DIR [FABRIC] [DILATION]}
fabric=${2:-eth-1g}
dilation=${3:-2}
mkdir -p "$out"
state=$(mktemp -d)
cluster=(sweeps/emulate/cluster)
trap '"${cluster[@]}" down --state "$state" --prefix crp >/dev/null 2>&1; rm -rf "$state"' EXIT
"${cluster[@]}" up --nodes 2 --fabric "$fabric" --dilate "$dilation" --state "$state" --prefix crp
replay() {  # NAME replay-flags...
  local name=$1
  shift
  "${cluster[@]}" run --state "$state" -- mpirun -np 4 --map-by ppr:2:node build/bin/replay \
    --backend mpi --gpus-per-node 2 --compute model:h100 --steps 2 --warmup 1 \
    --fabric "$fabric" --emulated --dilate "$dilation" --timeout 600 "$@" --out "$out/$name.jsonl" \
    >"$out/$name.txt" 2>&1 || { status=1; echo "$name: FAILED, see $out/$name.txt"; return 0; }
  grep -E '^# step|^#   overlap' "$out/$name.txt" | sed "s/^/$name: /"
}
status=0
replay full_shard --model qwen2.5-0.5b --layers 4 --sharding full
replay hybrid_shard --model qwen2.5-0.5b --layers 4 --sharding hybrid
replay a2a_flat --model sweeps/models/replay-tiny-moe.json --ep 4 --a2a flat
replay a2a_hierarchical --model sweeps/models/replay-tiny-moe.json --ep 4 --a2a hierarchical
exit $status
