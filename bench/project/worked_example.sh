#!/usr/bin/env bash
# The worked example of bench/project/README.md: Qwen2.5-7B and -72B FSDP on 8x H100 nodes over
# InfiniBand NDR and a 50 Gbit/s Ethernet, against the published throughputs (FACTS.md), and the
# inter-node bandwidth those throughputs imply.
#   bench/project/worked_example.sh [BIN_DIR] [OUT_DIR]
set -euo pipefail
bin=${1:-build/bin}
out=${2:-$(mktemp -d)}
mkdir -p "$out"
project="$bin/project"

# tokens/s the projection gives: MODEL MICRO_BATCH FABRIC MFU NODES [extra flags]
tokens() {
  local model=$1 mb=$2 fabric=$3 mfu=$4 nodes=$5
  shift 5
  "$project" --model "$model" --micro-batch "$mb" --seq 2048 --gpus-per-node 8 --fabric "$fabric" \
    --compute "model:h100@$mfu" --nodes "$nodes" "$@" | awk -v n="$nodes" '$1 == n { print $10 }'
}

# Bisection on a monotone function: LO HI TARGET COMMAND... (the command gets the value last and
# prints a number that grows with it); prints the value where it reaches TARGET.
solve() {
  local lo=$1 hi=$2 target=$3
  shift 3
  for _ in $(seq 30); do
    local mid value
    mid=$(awk -v a="$lo" -v b="$hi" 'BEGIN { printf "%.6g", (a + b) / 2 }')
    value=$("$@" "$mid")
    if awk -v v="$value" -v t="$target" 'BEGIN { exit !(v < t) }'; then lo=$mid; else hi=$mid; fi
  done
  awk -v a="$lo" -v b="$hi" 'BEGIN { printf "%.4g\n", (a + b) / 2 }'
}

mfu_tokens() { tokens "$1" "$2" ib-ndr-8x400 "$4" "$3"; }  # MODEL MB NODES MFU

# A one-row fabrics file for a node bandwidth in Gbit/s (TCP-like latency, one interface).
fabric_file="$out/fabrics.tsv"
bw_tokens() {  # MODEL MB MFU NODES GBIT_S
  printf 'name node_gbit_s latency_us links description\nbw %s 10 1 solved\n' "$5" >"$fabric_file"
  tokens "$1" "$2" bw "$3" "$4" --fabrics-file "$fabric_file"
}

echo "== compute calibrated on the published throughput at the smallest node count (IB)"
mfu7=$(solve 0.2 0.9 68039 mfu_tokens qwen2.5-7b 2 1)
mfu72=$(solve 0.1 0.9 9093 mfu_tokens qwen2.5-72b 1 2)
mfu72_8=$(solve 0.1 0.9 30914 mfu_tokens qwen2.5-72b 1 8)
echo "qwen2.5-7b  mb 2: MFU $mfu7 gives 68,039 tok/s at 1 node"
echo "qwen2.5-72b mb 1: MFU $mfu72 gives 9,093 tok/s at 2 nodes; MFU $mfu72_8 gives 30,914 tok/s at 8 nodes"

for spec in "qwen2.5-7b 2 $mfu7" "qwen2.5-72b 1 $mfu72"; do
  set -- $spec
  for fabric in ib-ndr-8x400 eth-50g ipoib-ndr-8x400; do
    echo "== $1 micro-batch $2 x 2048 on $fabric, compute model:h100@$3"
    "$project" --model "$1" --micro-batch "$2" --seq 2048 --gpus-per-node 8 --fabric "$fabric" \
      --compute "model:h100@$3" --nodes 1,2,4,8,16,32,64,128,256,512,1024 --out "$out/$1_$fabric.jsonl" |
      grep -v '^# fit\|^#   \|^# wrote'
  done
done

echo "== node bandwidth (Gbit/s) the 8-node 'Ethernet' throughputs imply"
echo "qwen2.5-72b: 28,584 tok/s with compute set so IB gives 30,914: $(solve 1 4000 28584 bw_tokens qwen2.5-72b 1 "$mfu72_8" 8) Gbit/s"
echo "qwen2.5-72b: 28,584 tok/s with compute from 2 nodes: $(solve 1 4000 28584 bw_tokens qwen2.5-72b 1 "$mfu72" 8) Gbit/s"
echo "qwen2.5-7b:  424,296 tok/s (within 1% of IB's 414,339: read as 99% of IB's projection): $(
  solve 1 4000 "$(awk -v t="$(tokens qwen2.5-7b 2 ib-ndr-8x400 "$mfu7" 8)" 'BEGIN { print t * 0.99 }')" \
    bw_tokens qwen2.5-7b 2 "$mfu7" 8) Gbit/s"
# The second reading for the plot: both models over the bandwidth the 72B numbers imply.
implied=$(solve 1 4000 28584 bw_tokens qwen2.5-72b 1 "$mfu72_8" 8)
printf 'name node_gbit_s latency_us links description\nimplied %s 10 1 implied by 72B at 8 nodes\n' "$implied" \
  >"$fabric_file"
for spec in "qwen2.5-7b 2 $mfu7" "qwen2.5-72b 1 $mfu72"; do
  set -- $spec
  echo "== $1 over the implied $implied Gbit/s per node"
  "$project" --model "$1" --micro-batch "$2" --seq 2048 --gpus-per-node 8 --fabric implied \
    --fabrics-file "$fabric_file" --compute "model:h100@$3" --nodes 1,2,4,8,16,32,64,128,256,512,1024 \
    --out "$out/$1_implied.jsonl" | grep -v '^# fit\|^#   \|^# wrote'
done
for g in 50 100 320; do
  echo "72b at 8 nodes over $g Gbit/s: $(bw_tokens qwen2.5-72b 1 "$mfu72_8" 8 "$g") tok/s;" \
       "7b: $(bw_tokens qwen2.5-7b 2 "$mfu7" 8 "$g") tok/s"
done
