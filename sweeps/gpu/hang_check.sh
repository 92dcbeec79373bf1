#!/usr/bin/env bash
# A rank stopped mid-collective must end the job within --timeout + 10 s, with exit 4 and a
# message naming the op, and leave no process behind (issue 9: no hang outlives --timeout).
# 2 ranks replay over NCCL; while they run overlapped (warm-up) steps, which are mostly
# collectives in flight, rank 1 gets SIGSTOP. Needs a CUDA build.
# Usage: sweeps/gpu/hang_check.sh            (MPIRUN=... to choose the launcher)
#        BACKEND=mpi sweeps/gpu/hang_check.sh   (the same on host ranks, tiny model)
set -u
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0   # the test machines lend no multicast objects: keep NVLink SHARP off
MPIRUN=${MPIRUN:-mpirun}
TIMEOUT_S=10
SETTLE_S=${SETTLE_S:-25}    # start-up, NCCL init and warm-up before the stop
LOG=build/hang_check
mkdir -p "$LOG"
[ -x build/bin/replay ] || { echo "build/bin/replay missing: run make first"; exit 1; }

BACKEND=${BACKEND:-nccl}
if [ "$BACKEND" = nccl ]; then MODEL="--model qwen2.5-0.5b --layers 4 --seq 512"
else MODEL="--model sweeps/models/replay-tiny.json --layers 4 --seq 1024"; fi
$MPIRUN $(cat tests/mpirun_flags) -np 2 build/bin/replay --backend "$BACKEND" $MODEL \
  --warmup 1000000 --steps 1 --timeout "$TIMEOUT_S" \
  >"$LOG/out.txt" 2>"$LOG/err.txt" &
launcher=$!
sleep "$SETTLE_S"
ranks=$(pgrep -P "$launcher" | sort -n)
victim=$(echo "$ranks" | tail -1)
if [ -z "$victim" ] || ! kill -0 "$launcher" 2>/dev/null; then
  echo "FAIL: the replay was not running after ${SETTLE_S} s"; cat "$LOG/err.txt"; exit 1
fi
echo "== SIGSTOP rank process $victim (of: $(echo $ranks))"
stopped_at=$(date +%s)
kill -STOP "$victim"
limit=$((TIMEOUT_S + 10))
alive() {  # the launcher or any rank process still exists (zombies of the launcher count as gone)
  kill -0 "$launcher" 2>/dev/null && [ "$(ps -o stat= -p "$launcher" | cut -c1)" != Z ] && return 0
  for pid in $ranks; do kill -0 "$pid" 2>/dev/null && return 0; done
  return 1
}
while alive && [ $(( $(date +%s) - stopped_at )) -le "$limit" ]; do
  sleep 1
done
status=0
if kill -0 "$launcher" 2>/dev/null; then
  echo "FAIL: the job still runs $limit s after the stop"
  status=1
  kill -CONT "$victim" 2>/dev/null
  kill -TERM "$launcher" 2>/dev/null
  wait "$launcher"
else
  wait "$launcher"; code=$?
  took=$(( $(date +%s) - stopped_at ))
  echo "== exit $code after $took s"
  grep -m3 "error" "$LOG/err.txt"
  [ "$code" -eq 4 ] || { echo "FAIL: exit $code, expected 4 (timeout)"; status=1; }
  grep -q "did not finish" "$LOG/err.txt" || { echo "FAIL: no timeout message"; status=1; }
  grep -Eq "(all_gather|reduce_scatter|all_reduce|all_to_all)[a-z]* '" "$LOG/err.txt" ||
    { echo "FAIL: the message names no op (kind 'name')"; status=1; }
fi
for pid in $ranks; do
  if kill -0 "$pid" 2>/dev/null; then
    echo "FAIL: rank process $pid is left behind"
    status=1
    kill -CONT "$pid" 2>/dev/null; kill -KILL "$pid" 2>/dev/null
  fi
done
[ "$status" -eq 0 ] && echo "PASS: stopped rank ended the job with exit 4, op named, nothing left"
exit "$status"
