#!/usr/bin/env bash
# A rank stopped mid-collective must end the job within --timeout + 10 s, with exit 4, the op
# named and no process left. 2 ranks; rank 1 gets SIGSTOP in one place:
#   sweeps/gpu/hang_check.sh [overlapped|comm-only|perf]   (default overlapped; MPIRUN=... launcher)
#   BACKEND=mpi sweeps/gpu/hang_check.sh ...                (the same on host ranks, tiny model)
# Logs in build/hang_check/PLACE/.
case ${1:-} in -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -u
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0   # the test machines lend no multicast objects: keep NVLink SHARP off
MPIRUN=${MPIRUN:-mpirun}
PLACE=${1:-overlapped}
TIMEOUT_S=10
SETTLE_S=${SETTLE_S:-25}    # start-up, NCCL init and warm-up before the stop
LOG=build/hang_check/$PLACE
mkdir -p "$LOG"
[ -x build/bin/replay ] || { echo "build/bin/replay missing: run make first"; exit 1; }

BACKEND=${BACKEND:-nccl}
if [ "$BACKEND" = nccl ]; then MODEL="--model qwen2.5-0.5b --layers 4 --seq 512"
else MODEL="--model sweeps/models/replay-tiny.json --layers 4 --seq 1024"; fi
case $PLACE in
  overlapped) program=(build/bin/replay --backend "$BACKEND" $MODEL --warmup 1000000 --steps 1)
              op_named="(all_gather|reduce_scatter|all_reduce|all_to_all)[a-z]* '|step barrier before [a-z_]+ step" ;;
  # A near-zero compute scale makes the compute-only pass short; its end is announced by
  # --progress ("pass 1/3"), and the comm-only pass then runs its many steps.
  comm-only)  program=(build/bin/replay --backend "$BACKEND" $MODEL --warmup 0 --steps 20000
                       --compute-scale 0.001 --progress)
              op_named="(all_gather|reduce_scatter|all_reduce|all_to_all)[a-z]* '|step barrier before [a-z_]+ step" ;;
  perf)       program=(build/bin/all_gather_perf --backend "$BACKEND" -b 64M -e 64M -n 100000000 -w 1)
              op_named="all_gather of 64 MiB|ncclAllGather of 32 MiB per rank" ;;
  *) echo "usage: hang_check.sh [overlapped|comm-only|perf]"; exit 2 ;;
esac
$MPIRUN $(cat tests/mpirun_flags) -np 2 "${program[@]}" --timeout "$TIMEOUT_S" \
  >"$LOG/out.txt" 2>"$LOG/err.txt" &
launcher=$!
if [ "$PLACE" = comm-only ]; then
  for _ in $(seq 1 $((SETTLE_S * 4))); do grep -q "pass 1/3" "$LOG/err.txt" 2>/dev/null && break; sleep 1; done
  sleep 2
else
  sleep "$SETTLE_S"
fi
ranks=$(pgrep -P "$launcher" | sort -n)
VICTIM_RANK=${VICTIM_RANK:-1}
victim=
for pid in $ranks; do
  grep -qz "^OMPI_COMM_WORLD_RANK=$VICTIM_RANK\$" "/proc/$pid/environ" 2>/dev/null && victim=$pid
done
if [ -z "$victim" ] || ! kill -0 "$launcher" 2>/dev/null; then
  echo "FAIL: the replay was not running after ${SETTLE_S} s"; cat "$LOG/err.txt"; exit 1
fi
: >"$LOG/ps.txt"
echo "== SIGSTOP rank $VICTIM_RANK, process $victim (of: $(echo $ranks))"
stopped_at=$(date +%s)
kill -STOP "$victim"
limit=$((TIMEOUT_S + 10))
alive() {  # the launcher or any rank process still exists (zombies of the launcher count as gone)
  kill -0 "$launcher" 2>/dev/null && [ "$(ps -o stat= -p "$launcher" | cut -c1)" != Z ] && return 0
  for pid in $ranks; do kill -0 "$pid" 2>/dev/null && return 0; done
  return 1
}
while alive && [ $(( $(date +%s) - stopped_at )) -le "$limit" ]; do
  # What every process of the job is doing, for a job that does not end.
  { echo "-- $(( $(date +%s) - stopped_at )) s after the stop"
    ps -o pid,ppid,stat,wchan:32,args -p "$(echo $launcher $(pgrep -P "$launcher") $ranks | tr ' ' ,)"
    echo "stderr lines so far: $(wc -l <"$LOG/err.txt")"
    for pid in $ranks; do  # each thread's kernel wait channel, counted
      for t in /proc/"$pid"/task/*; do cat "$t/wchan" 2>/dev/null; echo; done | sort | uniq -c | tr '\n' ' ' |
        sed "s/^/rank process $pid threads: /"; echo
    done
  } >>"$LOG/ps.txt"
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
  grep -Eq "did not finish|not complete" "$LOG/err.txt" || { echo "FAIL: no timeout message"; status=1; }
  grep -Eq "$op_named" "$LOG/err.txt" ||
    { echo "FAIL: the message names no op (kind 'name')"; status=1; }
fi
for pid in $ranks; do
  if kill -0 "$pid" 2>/dev/null; then
    echo "FAIL: rank process $pid is left behind"
    status=1
    kill -CONT "$pid" 2>/dev/null; kill -KILL "$pid" 2>/dev/null
  fi
done
[ "$status" -eq 0 ] && echo "PASS ($PLACE): stopped rank ended the job with exit 4, op named, nothing left"
exit "$status"
