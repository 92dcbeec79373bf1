#!/usr/bin/env bash
# `make demo`: the main job on this machine, ending with pictures, a report and the headline.
#   With GPUs: Qwen2.5-7B (4 layers, micro-batch 2, seq 2048) replayed over NCCL's socket
#   transport with each rank its own emulated node (every GPU a rank; on one GPU, two ranks share
#   it), and over NVLink on one node where there are two GPUs or more, plus bus-bandwidth sweeps;
#   then the mission's models projected from a fast and a slow fabric profile.
#   Without: an emulated cluster on this host (network namespaces, shaped links, modeled H100
#   compute, time dilation) at 1, 2 and 4 nodes on a fast (ib-ndr-8x400) and a slow (eth-10g)
#   fabric, replaying 2 layers of Qwen2.5-0.5B (needs root; without it, 4 host ranks of one node);
#   then the mission's models (Qwen2.5-7B, Qwen2.5-72B, Mixtral-8x7B with EP 8) projected to
#   1-1024 nodes of 8 GPUs from the nominal ib-ndr-8x400 and eth-100g profiles side by side, the
#   same on every machine (the emulated runs are drawn as measured points of their own fabrics).
#   Then every figure and report.md, which opens with where each model tips on each fabric.
#   sweeps/demo.sh BIN_DIR MPIRUN NP [BUILD_REST]
# BUILD_REST: a command that builds `project` and `report` when the demo starts with only `replay`
# and `all_gather_perf` built (`make demo` on a fresh machine): run first, or, on the emulated
# cluster, beside the replays, whose waits leave the cores mostly idle.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-build/bin}; mpirun=${2:-mpirun}; np=${3:-4}; build_rest=${4:-true}
out=results/demo
rm -rf "$out"
mkdir -p "$out/replay" "$out/busbw"
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
start=$SECONDS
step=0
steps=4
# A progress line per step, with the time so far.
say() { step=$((step + 1)); echo "== [$step/$steps] $* ($((SECONDS - start)) s elapsed)"; }
# An emulated sweep in the background, its lines labelled; wait_beside waits for all of them and
# fails when one did.
beside_pids=()
sweep_beside() {
  local label=$1
  shift
  "$here/sweep" --emulate --bin "$bin" "$@" | sed -u "s/^/   [$label] /" &
  beside_pids+=($!)
}
wait_beside() {
  local pid failed=0
  for pid in "${beside_pids[@]}"; do wait "$pid" || failed=1; done
  beside_pids=()
  return "$failed"
}

gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
# The mission's models as project sees them on the nominal fast and slow fabric, side by side:
# the same step model on every machine, so the headline is the same wherever the demo runs. The
# answer (every layout weighed on both fabrics) at 8, 32 and 256 nodes: each count is a
# ranking of some 60 layouts, the bulk of the demo's CPU time.
fabrics=ib-ndr-8x400,eth-100g
project_mission() {
  local workload model rest
  mkdir -p "$out/projection"
  for workload in "${mission[@]}"; do
    read -r model rest <<<"$workload"
    # shellcheck disable=SC2086 # the workload's flags are words
    "$bin/project" --model "$model" $rest --fabric "$fabrics" \
      --nodes 1,2,4,8,16,32,64,128,256,512,1024 --answer-nodes 8,32,256 \
      --out "$out/projection/$model.jsonl" \
      >"$out/projection/$model.txt"
    # The answer as project prints it (records/fabric_answer.hpp), at 8 and 32 nodes.
    awk '/^# answer: / { on = 1; sub(/^# answer: /, "   "); print; next }
      on && ($1 == "nodes" || $1 == 8 || $1 == 32) { print "   " $0; next }
      on && !/^ *[0-9]/ { on = 0 }' "$out/projection/$model.txt"
  done
}
# 8 GPUs a node (intra-node: the measured H200 NVLink sweep), H100 compute as project models it
# (GEMMs at replay's default MFU).
mission=("qwen2.5-7b --micro-batch 2 --seq 2048 --gpus-per-node 8 --compute model:h100"
  "qwen2.5-72b --micro-batch 1 --seq 2048 --gpus-per-node 8 --compute model:h100"
  "mixtral-8x7b --micro-batch 1 --seq 2048 --ep 8 --gpus-per-node 8 --compute model:h100")

if [ "${gpus:-0}" -gt 0 ] && ldd "$bin/replay" | grep -q libnccl; then
  # One GPU: two ranks share it, each its own NCCL node (they talk over sockets on lo).
  ranks=$((gpus > 1 ? gpus : 2))
  echo "== collreplay demo: $gpus GPU(s), NCCL + cuBLAS, $ranks ranks, a few minutes"
  launch=("$mpirun" --bind-to none -x NCCL_NVLS_ENABLE)
  [ "$(id -u)" = 0 ] && launch+=(--allow-run-as-root)
  workload=(--model qwen2.5-7b --layers 4 --micro-batch 2 --seq 2048 --monitor-interval 1)
  say "replay Qwen2.5-7B (4 layers) over sockets, $ranks emulated nodes"
  "${launch[@]}" -np "$ranks" "$bin/replay" "${workload[@]}" --emulate-nodes "$ranks" \
    --transport socket --ifname lo --out "$out/replay/socket-$ranks.jsonl"
  say "replay over NVLink on one node; bus bandwidth"
  if [ "$gpus" -gt 1 ]; then
    "${launch[@]}" -np "$gpus" "$bin/replay" "${workload[@]}" \
      --out "$out/replay/nvlink-$gpus.jsonl"
    "${launch[@]}" -np "$gpus" "$bin/all_gather_perf" -b 1M -e 1G -f 4 \
      --out "$out/busbw/nvlink.jsonl"
  else
    echo "   one GPU: no NVLink between ranks to replay over"
  fi
  "${launch[@]}" -np "$ranks" "$bin/all_gather_perf" -b 1M -e 256M -f 4 -n 5 --emulate-nodes "$ranks" \
    --transport socket --ifname lo --out "$out/busbw/socket.jsonl"
  say "project Qwen2.5-7B, Qwen2.5-72B and Mixtral-8x7B (EP 8) to 1-1024 nodes"
  bash -c "$build_rest" >"$out/build_rest.log" 2>&1 || { tail -20 "$out/build_rest.log"; exit 1; }
  project_mission
elif [ "$(id -u)" = 0 ] && ip netns list >/dev/null 2>&1; then
  steps=5
  echo "== collreplay demo: no GPU; emulated clusters of 1, 2 and 4 nodes (about three minutes)"
  # Each fabric with its own dilation and its own clusters. A dilated node is shaped at its
  # profile's rate / D; this host's tbf holds a link to its rate up to ~500 Mbit/s
  # (sweeps/README.md), so eth-10g runs at 20. NDR would need 6400 to stay below that, which
  # stretches every modeled millisecond of compute 6400 times; at 400 its 8 Gbit/s links run at
  # what the host carries, so its emulated busbw reads below the profile (possible, never above
  # it) and its layers still hide their communication, which is all the demo asks of it. Two
  # decoder layers: eth-10g's cells are its bytes at 500 Mbit/s, most of them the tied embedding's.
  replay_flags=(--backend mpi --model qwen2.5-0.5b --layers 2 --compute model:h100 -- --monitor-interval 1)
  say "replay Qwen2.5-0.5B (2 layers, modeled H100) on 1, 2 and 4 nodes of ib-ndr-8x400"
  # NDR's cells are dilated compute (timed sleeps) and what the host carries, each node count on a
  # cluster of its own, all at once, beside the rest of the build and the projection.
  { bash -c "$build_rest" >"$out/build_rest.log" 2>&1 &&
    bash -c "$(declare -p bin out fabrics mission; declare -f project_mission); project_mission"; } \
    >"$out/project_mission.log" 2>&1 &
  project_pid=$!
  for nodes in 1 2 4; do
    sweep_beside "ib-ndr-8x400 n$nodes" --name "demo-replay-ib-$nodes" --nodes "$nodes" \
      --fabric ib-ndr-8x400 --dilate 400 --out "$out/replay/ib-ndr-8x400/$nodes" "${replay_flags[@]}"
  done
  wait_beside
  wait "$project_pid" || { tail -n 20 "$out/build_rest.log" "$out/project_mission.log"; exit 1; }
  say "replay the same on 1, 2 and 4 nodes of eth-10g, alone"
  # Alone: eth-10g's shaped transfers need the cores' attention, and anything beside them (a
  # compile, another cluster's MPI progress loops) read its communication 17-28% longer
  # (bench/RESULTS.md).
  "$here/sweep" --emulate --bin "$bin" --name demo-replay-eth --nodes 1,2,4 --fabric eth-10g \
    --dilate 20 --out "$out/replay/eth-10g" "${replay_flags[@]}"
  say "all_gather bus bandwidth on the same fabrics"
  # Up to the largest decoder-layer collective the replays ran (the busbw figure marks it), in
  # factors of 4 from 512 KiB; one sweep at a time, since a bandwidth sweep measures what the
  # host's network carries.
  layer_bytes=$(find "$out/replay" -name '*.jsonl' -exec cat {} + |
    jq -s '[.[] | select(.record == "op" and (.layer // -1) >= 0) | .bytes] | max // 0 | ceil')
  end_bytes=$((512 * 1024))
  while [ "$end_bytes" -lt "$layer_bytes" ]; do end_bytes=$((end_bytes * 4)); done
  for spec in "ib-ndr-8x400 400" "eth-10g 20"; do
    read -r fabric dilation <<<"$spec"
    "$here/sweep" --emulate --bin "$bin" --name "demo-busbw-$fabric" --exe all_gather_perf \
      --nodes 2,4 --fabric "$fabric" --dilate "$dilation" --backend mpi \
      --out "$out/busbw/$fabric" -- -b 512K -e "$end_bytes" -f 4 -n 3
  done
  say "project Qwen2.5-7B, Qwen2.5-72B and Mixtral-8x7B (EP 8) to 1-1024 nodes"
  # From the nominal profiles, as on every machine (projected beside NDR's replays above): the
  # emulated runs are measured points of their own (emulated, dilated) fabrics, drawn beside the
  # projection, never refitted into it.
  cat "$out/project_mission.log"
else
  steps=5
  echo "== collreplay demo: no GPU and no root for an emulated cluster: $np host ranks of one node"
  launch=("$mpirun" --bind-to none -np "$np" --oversubscribe --mca mpi_yield_when_idle 1)
  [ "$(id -u)" = 0 ] && launch+=(--allow-run-as-root)
  workload=(--backend mpi --model qwen2.5-0.5b --layers 4 --compute model:h100 --steps 2)
  say "replay Qwen2.5-0.5B on $np ranks (shared memory)"
  "${launch[@]}" "$bin/replay" "${workload[@]}" --transport shm \
    --out "$out/replay/shm.jsonl"
  say "replay over TCP on loopback"
  "${launch[@]}" "$bin/replay" "${workload[@]}" --transport socket --ifname lo \
    --out "$out/replay/socket.jsonl"
  say "bus bandwidth sweep"
  "${launch[@]}" "$bin/all_gather_perf" --backend mpi -b 256K -e 64M -f 4 -n 5 --out "$out/busbw/shm.jsonl"
  say "project Qwen2.5-7B, Qwen2.5-72B and Mixtral-8x7B (EP 8) to 1-1024 nodes"
  project_mission
fi

say "figures and report"
# report draws every figure the results allow (PNG + SVG beside report.md) and embeds them;
# without gnuplot it writes the text and says why each figure is missing.
"$bin/report" "$out" --out "$out" >/dev/null
if ls "$out"/*.png >/dev/null 2>&1; then
  ls "$out"/*.png | sed 's/^/   /'
else
  echo "   no figures: $(sed -n 's/^- .*: not drawn (\(.*\))$/\1/p' "$out/report.md" | head -1)"
fi
echo "   $out/report.md"

# The headline: median decoder-layer headroom per fabric at each node count (the median the
# headroom figure draws: the middle two averaged for an even count), and where each fabric tips.
echo "== done in $((SECONDS - start)) s; results, figures and report.md in $out/"
command -v jq >/dev/null && find "$out" -name '*.jsonl' -exec cat {} + 2>/dev/null |
  jq -rs '
    [ .[] | select(.record == "unit" and (.unit | startswith("layers.")))
      | {fabric: (if (.run.fabric // "real") == "real" then .run.transport_verified else .run.fabric end), nodes: .run.nodes, model: (.run.command_line | index("--model") as $i | if $i then .[$i + 1] else "?" end), h: .headroom_ms, ranks: (.run.ranks // 2)} ]
    | group_by([.model, .fabric, .nodes])
    | map({model: .[0].model, fabric: .[0].fabric, nodes: .[0].nodes, ranks: .[0].ranks,
           h: (map(.h) | sort | if length % 2 == 1 then .[length / 2 | floor]
                                  else (.[length / 2 - 1] + .[length / 2]) / 2 end)})
    | (group_by(.nodes) | map(
        "\(.[0].model) at \(.[0].nodes) node(s): " +
        (map("headroom \(if .h >= 0 then "+" else "" end)\(.h * 100 | round / 100) ms per layer on \(.fabric)") | join(", ")))),
      (group_by(.fabric) | map(sort_by(.nodes) as $s
        | ($s | map(.h < 0 and .ranks > 1) | index(true)) as $i
        | if $i == null then "\($s[0].fabric): headroom stays positive up to \($s[-1].nodes) nodes (no tipping point measured)"
          elif $i == 0 then "\($s[0].fabric): headroom is negative from \($s[0].nodes) node(s) on (tipped before the first count)"
          else "\($s[0].fabric): tipping point between \($s[$i - 1].nodes) and \($s[$i].nodes) nodes" end))
    | .[]' 2>/dev/null || true
# The mission's answer, as report.md opens with it (projected from the fabrics measured above).
if [ -f "$out/report.md" ]; then
  awk '/^## The answer/ { on = 1; next } on && /^## / { exit } on && NF' "$out/report.md"
fi
