#!/usr/bin/env bash
# Trace fixtures from real torch jobs: each job of reference/traced_jobs.py runs under torchrun,
# its traces are cut over the same steps (reference/trim_trace.py --ranks) into
# OUT_DIR/fixtures/<job>/ and replayed on the GPU placed as taken; fixtures_table.py closes.
#   sweeps/gpu/traces/trace_fixtures.sh OUT_DIR [--gpu-per-rank] [job...]   jobs: ddp fsdp2 hsdp
#                                                                            pipeline moe
#   sweeps/gpu/traces/trace_fixtures.sh OUT_DIR replay [job...]   replay the committed
#                                                                 tests/fixtures/traces/torch_<job>
# Ranks share GPU 0 as separate NCCL hosts unless --gpu-per-rank. TRACE_FIXTURES_BUDGET_S (480)
# bounds the run. Needs a GPU, torch, mpirun and build/bin/replay; exit 1 when a job failed.
case ${1:-} in -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 2
out=${1:?usage: trace_fixtures.sh OUT_DIR [replay | --gpu-per-rank] [job...]   jobs: ddp fsdp2 hsdp pipeline moe}
shift
mode=take gpu_per_rank=0
[ "${1:-}" = replay ] && { mode=replay; shift; }
[ $mode = take ] && [ "${1:-}" = --gpu-per-rank ] && { gpu_per_rank=1; shift; }
jobs=("$@")
[ ${#jobs[@]} -gt 0 ] || jobs=(ddp fsdp2 hsdp pipeline moe)
for j in "${jobs[@]}"; do
  case $j in ddp | fsdp2 | hsdp | pipeline | moe) ;;
    *) echo "trace_fixtures.sh: unknown job '$j' (ddp fsdp2 hsdp pipeline moe)" >&2; exit 2 ;;
  esac
done
[ -x build/bin/replay ] || { echo "trace_fixtures.sh: build/bin/replay not built (make build/bin/replay)" >&2; exit 2; }
mkdir -p "$out/raw" "$out/fixtures" "$out/logs"
out=$(cd "$out" && pwd)
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
deadline=$((SECONDS + ${TRACE_FIXTURES_BUDGET_S:-480}))
commands="$out/commands.sh"
echo "# the commands trace_fixtures.sh ran, in order ($(date -u +%Y-%m-%dT%H:%M:%SZ))" >"$commands"
status=0
# The committed fixtures' jobs as traced_jobs.py recorded them (shape, unprofiled step).
records=sweeps/measured/2026-11-25-traces

# MICRO_BATCH SEQ MICRO_BATCHES of a job. Taken: the pipeline's stages pass 2 x 2048 tokens a
# micro-batch (at 1 x 512 its profiled step is the profiler's own host time: bench/RESULTS.md),
# the rest 1 x 512 (their steps are their gradients' collectives); replayed: as recorded.
shape_of() {
  if [ $mode = replay ]; then
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["micro_batch"], r["seq"], r["micro_batches"])' "$records/$1.json"
  elif [ "$1" = pipeline ]; then
    echo 2 2048 4
  else
    echo 1 512 4
  fi
}

# logged SECONDS_CAP LOG CMD...: runs CMD under timeout (capped by what is left of the budget),
# output to LOG, the command line to commands.sh.
logged() {
  local cap=$1 log=$2 left
  shift 2
  left=$((deadline - SECONDS))
  [ "$left" -lt "$cap" ] && cap=$left
  [ "$cap" -gt 5 ] || { echo "out of time budget" >"$log"; return 124; }
  printf '%q ' "$@" >>"$commands"
  echo >>"$commands"
  timeout -k 10 "$cap" "$@" >"$log" 2>&1
}

ranks_of() { case $1 in hsdp) echo 4 ;; *) echo 2 ;; esac; }

# 1 when the job's ranks hold a GPU each: as asked when taken, as recorded when replayed.
own_gpus() {
  if [ $mode = replay ]; then
    python3 -c 'import json,sys; print(0 if json.load(open(sys.argv[1]))["same_gpu"] else 1)' "$records/$1.json"
  else
    echo $gpu_per_rank
  fi
}
visible_gpus=$(nvidia-smi -L 2>/dev/null | grep -c "^GPU")
[ -n "${CUDA_VISIBLE_DEVICES:-}" ] && visible_gpus=$(tr ',' '\n' <<<"$CUDA_VISIBLE_DEVICES" | grep -c .)
# Ranks that share a GPU share the first visible one, in the job and in its replay: on a host
# with more, replay's ranks would each take a GPU of their own (local rank R on GPU R).
shared_gpu=${CUDA_VISIBLE_DEVICES:-0}
shared_gpu=${shared_gpu%%,*}

for job in "${jobs[@]}"; do
  if [ $((deadline - SECONDS)) -lt 60 ]; then
    echo "$job: skipped, under 60 s of the time budget left" | tee "$out/logs/$job.skipped"
    status=1
    continue
  fi
  ranks=$(ranks_of "$job")
  read -r mb seq micro <<<"$(shape_of "$job")"
  [ -n "$micro" ] || { echo "$job: no shape (record $records/$job.json)"; status=1; continue; }
  own=$(own_gpus "$job")
  if [ "$own" = 1 ] && [ "$visible_gpus" -lt "$ranks" ]; then
    echo "$job: skipped, a GPU per rank needs $ranks GPUs and $visible_gpus are visible" |
      tee "$out/logs/$job.skipped"
    status=1
    continue
  fi
  if [ "$own" = 1 ]; then
    same=() placement=(--gpus-per-node "$ranks") gpus=(env)
  else
    same=(--same-gpu) placement=(--gpus-per-node 1 --emulate-nodes "$ranks" --transport socket --ifname lo)
    gpus=(env CUDA_VISIBLE_DEVICES="$shared_gpu")
  fi
  raw="$out/raw/$job" fx="$out/fixtures/$job"
  echo "== $job: $ranks ranks$([ "$own" = 1 ] && echo ", a GPU each")"
  if [ $mode = replay ]; then
    fx="tests/fixtures/traces/torch_$job"
    cp "$records/$job.json" "$out/raw/$job.json" 2>/dev/null
  else
  rm -rf "$raw" "$fx"
  mkdir -p "$fx"
  logged 150 "$out/logs/${job}_torch.log" "${gpus[@]}" torchrun --nproc-per-node "$ranks" \
    --master-port $((29600 + RANDOM % 300)) sweeps/gpu/reference/traced_jobs.py --job "$job" \
    "${same[@]}" --micro-batch $mb --seq $seq --micro-batches $micro --trace-dir "$raw" \
    --record "$out/raw/$job.json" ||
    { echo "$job: the torch job failed:"; tail -8 "$out/logs/${job}_torch.log"; status=1; continue; }
  grep -h "^# traced job" "$out/logs/${job}_torch.log"
  steps=1
  [ "$job" = fsdp2 ] && steps=3
  raws=()
  for f in "$raw"/*.json "$raw"/*.json.gz; do [ -e "$f" ] && raws+=("$f"); done
  [ ${#raws[@]} = "$ranks" ] || { echo "$job: ${#raws[@]} trace files for $ranks ranks in $raw"; status=1; continue; }
  # Each rank's steps as torch wrote them, then every rank cut over the same step numbers.
  logged 120 "$out/logs/${job}_steps.txt" python3 sweeps/gpu/reference/trim_trace.py --list "${raws[@]}"
  sed "s/^/  /" "$out/logs/${job}_steps.txt" | cut -c1-160
  logged 180 "$out/logs/${job}_trim.log" python3 sweeps/gpu/reference/trim_trace.py --steps $steps \
    --ranks "$fx" "${raws[@]}"
  trimmed=$?
  sed "s/^/  /" "$out/logs/${job}_trim.log"
  [ $trimmed = 0 ] || { echo "$job: not replayed (the trim failed or the ranks' steps differ)"; status=1; continue; }
  # The untrimmed traces stay, compressed (tens of MB each as JSON), to be trimmed again.
  gzip -f "$raw"/*.json 2>/dev/null
  fi
  du -h "$fx"/* | sed "s/^/  /"
  # What replay is given: the folder of tensorboard files, or each rank's file by pattern.
  if [ -e "$fx/rank0.trace.json" ]; then
    trace="$fx/rank%d.trace.json" listing="$fx/rank0.trace.json"
  else
    trace="$fx" listing="$fx"
  fi
  # Tokens a step (replay reads them from its flags, not from the trace): the pipeline's step
  # is its micro-batches.
  tokens=(--micro-batch "$mb" --seq "$seq")
  [ "$job" = pipeline ] && tokens=(--micro-batch "$((mb * micro))" --seq "$seq")
  logged 60 "$out/logs/${job}_dry_run.txt" build/bin/replay --dry-run --trace "$listing" "${tokens[@]}" ||
    { echo "$job: replay --dry-run failed:"; tail -5 "$out/logs/${job}_dry_run.txt"; status=1; continue; }
  # Every other rank's traced step: the table compares the slowest with replay's slowest rank.
  for ((r = 1; r < ranks; r++)); do
    logged 60 "$out/logs/${job}_dry_run_r$r.txt" build/bin/replay --dry-run --trace "$trace" \
      --rank $r --world "$ranks" "${tokens[@]}" || status=1
  done
  # What the importer made of it: the collectives per step and the traced step.
  sed -n '/^# per step per rank/,/^#   GEMM/p' "$out/logs/${job}_dry_run.txt" | sed "s/^/  /"
  grep -h "traced step" "$out/logs/${job}_dry_run.txt" | head -3
  # Unpinned (--bind-to none), as torchrun runs the job; placed as the job was.
  logged 150 "$out/logs/${job}_replay.log" "${gpus[@]}" mpirun --allow-run-as-root -np "$ranks" \
    --bind-to none -x NCCL_NVLS_ENABLE -x NCCL_IB_DISABLE=1 -x NCCL_SOCKET_IFNAME=lo build/bin/replay \
    --trace "$trace" "${tokens[@]}" "${placement[@]}" --steps 10 --out "$out/raw/${job}_replay.jsonl" ||
    { echo "$job: replay failed:"; tail -8 "$out/logs/${job}_replay.log"; status=1; }
done

python3 sweeps/gpu/traces/fixtures_table.py "$out" "${jobs[@]}" || status=1
exit $status
