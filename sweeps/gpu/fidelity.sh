#!/usr/bin/env bash
# Fidelity on one GPU: the real-training reference (reference/reference_step.py) and replay of the
# same model and plan side by side, closing with fidelity_summary.py's table (exit 1 on a FAIL).
#   sweeps/gpu/fidelity.sh OUT_DIR [case...]                world 1: q05 q7 q72 mix (default),
#                                                           q3moe, nem (Nemotron-4 15B),
#                                                           mixg q3moeg (experts grouped)
#   sweeps/gpu/fidelity.sh OUT_DIR multi [case...]          fsdp2-w2 fsdp2-w4 hsdp-2x2 ddp-w2 mix-ep2
#   sweeps/gpu/fidelity.sh OUT_DIR optimizers [model...]    every AdamW on q05 q7 q72 mix
# Environment: HOST_TIME=calibrate|FILE (replay's --host-time), PIN_CPUS=LIST (taskset both
# sides), ROUNDS=N (runs a case, fastest judged; q05: 3), TRACE_OUT=1 (both steps as traces),
# MULTI_GPU=1 (multi with a GPU per rank), GROUPED_GEMM=loop|cublas-grouped.
# Needs a GPU, torch (torchrun) and build/bin/replay. Rules and results: bench/RESULTS.md.
case ${1:-} in -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: fidelity.sh OUT_DIR [multi|optimizers] [case...]}
shift
mode=world1
case ${1:-} in multi | optimizers) mode=$1; shift ;; esac
cases=("$@")
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
# Ranks that share a GPU share the first visible one, reference and replay alike: on a host with
# more, replay's ranks would each take a GPU of their own (local rank R on GPU R).
if [ $mode = multi ] && [ "${MULTI_GPU:-0}" != 1 ]; then
  first_gpu=${CUDA_VISIBLE_DEVICES:-0}
  export CUDA_VISIBLE_DEVICES=${first_gpu%%,*}
fi
pin=()
if [ -n "${PIN_CPUS:-}" ]; then
  taskset -c "$PIN_CPUS" true 2>/dev/null ||
    { echo "fidelity.sh: PIN_CPUS='$PIN_CPUS' is not a CPU list this host can run on" >&2; exit 2; }
  pin=(taskset -c "$PIN_CPUS")
fi
status=0

workload() {
  case $1 in
    q05) echo "--model qwen2.5-0.5b --layers 4 --micro-batch 2 --seq 2048" ;;
    q7) echo "--model qwen2.5-7b --layers 4 --micro-batch 2 --seq 2048" ;;
    q72) echo "--model qwen2.5-72b --layers 2 --micro-batch 1 --seq 2048" ;;
    mix) echo "--model mixtral-8x7b --layers 2 --micro-batch 2 --seq 2048" ;;
    # Fine-grained MoE (128 experts, top 8), experts looped as transformers writes them.
    q3moe) echo "--model qwen3-30b-a3b --layers 2 --micro-batch 2 --seq 2048" ;;
    # The same two, experts grouped (torch._grouped_mm over stacked experts, as torchtitan).
    mixg) echo "--model mixtral-8x7b --layers 2 --micro-batch 2 --seq 2048 --experts grouped" ;;
    q3moeg) echo "--model qwen3-30b-a3b --layers 2 --micro-batch 2 --seq 2048 --experts grouped" ;;
    # Nemotron-4 15B (LayerNorm1P, squared ReLU, partial rotary) at its published seq 4096.
    nem) echo "--model nemotron-4-15b --layers 2 --micro-batch 1 --seq 4096" ;;
    *) echo "fidelity.sh: unknown model case '$1' (q05 q7 q72 mix q3moe mixg q3moeg nem)" >&2; return 2 ;;
  esac
}

# ranks | workload | the reference's plan flags | replay's plan flags. Sizes where compute-only and
# comm-only are of one size over loopback sockets (bench/RESULTS.md, "Multi-rank fidelity").
multi_case() {
  local q05="--model qwen2.5-0.5b --layers 4"
  case $1 in
    fsdp2-w2) echo "2|$q05 --micro-batch 4 --seq 4096|--plan fsdp2|--plan fsdp2" ;;
    fsdp2-w4) echo "4|$q05 --micro-batch 2 --seq 4096|--plan fsdp2|--plan fsdp2" ;;
    hsdp-2x2) echo "4|$q05 --micro-batch 2 --seq 4096|--plan fsdp2 --shard-group 2|--plan fsdp2 --sharding hybrid --shard-group 2" ;;
    ddp-w2) echo "2|$q05 --micro-batch 4 --seq 4096|--plan ddp|--plan ddp" ;;
    mix-ep2) echo "2|--model mixtral-8x7b --layers 2 --micro-batch 2 --seq 2048|--plan fsdp2 --ep 2|--plan fsdp2 --ep 2 --experts-layout stacked" ;;
    *) echo "fidelity.sh: unknown multi case '$1' (fsdp2-w2 fsdp2-w4 hsdp-2x2 ddp-w2 mix-ep2)" >&2; return 2 ;;
  esac
}

# reference NAME RANKS ARGS...: torchrun, log beside the records.
reference() {
  local name=$1 ranks=$2
  shift 2
  local trace=()
  [ "${TRACE_OUT:-0}" = 1 ] && trace=(--trace-dir "$out/reference_$name.trace")
  timeout "${REFERENCE_TIMEOUT_S:-240}" "${pin[@]}" torchrun --nproc-per-node "$ranks" \
    sweeps/gpu/reference/reference_step.py "$@" "${trace[@]}" --out "$out/reference_$name.jsonl" \
    >"$out/reference_$name.log" 2>&1 ||
    { echo "reference $name failed:"; tail -8 "$out/reference_$name.log"; status=1; }
}

# replay NAME RANKS ARGS...: unpinned (--bind-to none), as torchrun runs the reference.
replay() {
  local name=$1 ranks=$2
  shift 2
  local flags=()
  [ -n "${HOST_TIME:-}" ] && flags=(--host-time "$HOST_TIME")
  [ -n "${GROUPED_GEMM:-}" ] && flags+=(--grouped-gemm "$GROUPED_GEMM")
  [ "${TRACE_OUT:-0}" = 1 ] && flags+=(--trace-out "$out/replay_$name.trace.json.gz")
  timeout "${REPLAY_TIMEOUT_S:-180}" "${pin[@]}" mpirun --allow-run-as-root -np "$ranks" --bind-to none \
    -x NCCL_NVLS_ENABLE build/bin/replay "$@" "${flags[@]}" --out "$out/replay_$name.jsonl" \
    >"$out/replay_$name.log" 2>&1 ||
    { echo "replay $name failed:"; tail -8 "$out/replay_$name.log"; status=1; }
}

case $mode in
  world1)
    [ ${#cases[@]} -gt 0 ] || cases=(q05 q7 q72 mix)
    for c in "${cases[@]}"; do workload "$c" >/dev/null || exit 2; done
    [[ ${ROUNDS:-1} =~ ^[1-9][0-9]*$ ]] ||
      { echo "fidelity.sh: ROUNDS='$ROUNDS' is not a count of runs (1 or more)" >&2; exit 2; }
    rounds_of() {
      if [ -n "${ROUNDS:-}" ]; then echo "$ROUNDS"; elif [ "$1" = q05 ]; then echo 3; else echo 1; fi
    }
    most=1
    for c in "${cases[@]}"; do [ "$(rounds_of "$c")" -gt $most ] && most=$(rounds_of "$c"); done
    # Round by round over the cases, as the calibration runs its workloads: a stretch of a slower
    # host lands on one run of a host-bound row rather than on all of them (on an H100 VM the
    # 0.5B's three back-to-back runs all came in 1.3-1.6x its host's calibration).
    for ((r = 1; r <= most; r++)); do
      for c in "${cases[@]}"; do
        [ "$r" -le "$(rounds_of "$c")" ] || continue
        read -r -a w <<<"$(workload "$c")"
        # transformers 5.x builds Mixtral's experts stacked; the reference does too.
        extra=()
        [ "$c" = mix ] && extra=(--experts-layout stacked)
        reference "$c.r$r" 1 "${w[@]}" --steps 30 --warmup 3
        replay "$c.r$r" 1 "${w[@]}" "${extra[@]}" --plan fsdp2 --world 1 --gpus-per-node 1 \
          --steps 10
      done
    done
    for c in "${cases[@]}"; do
      for side in reference replay; do
        python3 sweeps/gpu/travels/fastest_round.py "$out" "${side}_$c" "$(rounds_of "$c")" ||
          status=1
      done
    done ;;
  optimizers)
    [ ${#cases[@]} -gt 0 ] || cases=(q05 q7 q72 mix)
    for c in "${cases[@]}"; do
      spec=$(workload "$c") || exit 2
      read -r -a w <<<"$spec"
      extra=()
      [ "$c" = mix ] && extra=(--experts-layout stacked)
      reference "opt_$c" 1 "${w[@]}" --optimizer-sweep --steps 10 --warmup 2 --no-breakdown
      for o in auto adamw-foreach adamw-fused adamw-loop; do
        replay "opt_${c}_$o" 1 "${w[@]}" "${extra[@]}" --plan fsdp2 --world 1 --gpus-per-node 1 \
          --optimizer "$o" --steps 5
      done
    done ;;
  multi)
    [ ${#cases[@]} -gt 0 ] || cases=(fsdp2-w2 fsdp2-w4 hsdp-2x2 ddp-w2 mix-ep2)
    for c in "${cases[@]}"; do
      spec=$(multi_case "$c") || exit 2
      IFS='|' read -r ranks w ref_plan rep_plan <<<"$spec"
      read -r -a w <<<"$w"
      read -r -a ref_plan <<<"$ref_plan"
      read -r -a rep_plan <<<"$rep_plan"
      if [ "${MULTI_GPU:-0}" = 1 ]; then
        same=() emulate=(--gpus-per-node "$ranks")
      else
        same=(--same-gpu) emulate=(--emulate-nodes "$ranks" --transport socket --ifname lo)
      fi
      reference "$c" "$ranks" "${w[@]}" "${ref_plan[@]}" "${same[@]}" --steps 6 --warmup 2
      replay "$c" "$ranks" "${w[@]}" "${rep_plan[@]}" "${emulate[@]}" --steps 5
      # What each side ran, for the lead to read when a row misses.
      grep -h "^# reference\|^#   compute-only\|^# profiled\|^#   [a-z_]* *[0-9]* B" \
        "$out/reference_$c.log" 2>/dev/null | sed "s/^/[$c] /"
      grep -h "^# optimizer\|^# step\|^#   fwd+bwd" "$out/replay_$c.log" 2>/dev/null | sed "s/^/[$c] /"
    done ;;
esac

# The summary judges every phase of every row; a failing or missing one fails the run (exit 1).
# Beside the calibration replay ran on, a host-bound row's reference host time says whether the
# host held its speed since calibrating.
calibration=()
case ${HOST_TIME:-} in
  "" | eager | none) ;;
  calibrate) [ $mode = world1 ] && calibration=(--calibration build/gen/host_time.json) ;;
  *) [ $mode = world1 ] && calibration=(--calibration "$HOST_TIME") ;;
esac
python3 sweeps/gpu/fidelity_summary.py "$mode" "$out" "${calibration[@]}" "${cases[@]}" |
  tee "$out/summary_$mode.md" || status=1
exit $status
