#!/usr/bin/env bash
# Issue 38 on one GPU (1x H200 or H100, torch importable, nvcc, no internet), each stage under its
# own timeout so a slow one cannot starve the rest, most needed first:
#   build      replay and gpu_tests, the GPU's name, torch's version (always run first);
#   calibrate  host time per launch on this host (host_time_calibrate.py ->
#              build/gen/host_time.json, its runs' records in OUT_DIR/calibration), again (at
#              most twice more, CALIBRATE_ATTEMPTS) when it finds the host's speed moved between
#              its runs (one more round of its three processes added to the runs it has) or ran
#              past CALIBRATE_TIMEOUT_S (300; the runs it finished kept). A process a workload
#              took about 15 s on an H200 VM's host, the 18 of three rounds with the fused
#              workloads 268 s; with one process a depth (its optimizers swept) a round is three
#              processes, and three rounds took 142-152 s on H200 VMs (164 s with the second
#              depth at 12 layers, as committed);
#   table      the fidelity table, world 1: q05 q7 q72 mix, real torch against replay
#              --host-time calibrate, every phase judged (fidelity_summary.py; its exit code
#              says pass or FAIL); skipped, failing, when this call's calibrate stage wrote no
#              calibration;
#   grouped    the same for mixg (Mixtral, experts grouped on both sides);
#   multi_tensor  the multi_tensor kernels beside torch's at 64M and 545M elements;
#   check      the GPU check (gpu_check.sh: gpu_tests at 1 rank, 2 ranks over sockets sharing
#              GPU 0).
#   sweeps/gpu/travels/fidelity_travels.sh OUT_DIR [STAGE...]   (default: every stage, in order)
# The stages' timeouts add up to 1370 s after the build (the calibration's three attempts 900 of
# them): more than one 600 s device call, so name
# the stages each call runs. With CALIBRATE_ATTEMPTS=1, `build calibrate table grouped
# multi_tensor` ran in one call in 484 s on an H100 VM, `build calibrate table grouped` (with
# CALIBRATE_ATTEMPTS=2, accepted at the first; 30 timed steps a run) in 471 s and, on the same
# machine again, 449 s, and `build check` in 70 s (15 processes a calibration; with the 18 of the
# fused workloads `build calibrate table` took 542 s on an H200 VM, and grouped did not fit;
# with one process a depth `build calibrate table grouped` took 390-438 s on H200 VMs,
# CALIBRATE_ATTEMPTS=1, and with the 12-layer depth `build calibrate table` 387 s). A later call
# on the same machine finds the
# calibration where the first left it (build/gen/host_time.json);
# `table` without one in build/gen fails its rows. A later `calibrate` into the same OUT_DIR fits
# from the runs already in OUT_DIR/calibration rather than measuring again (a fresh OUT_DIR
# measures afresh).
# Stages calibrate, table and grouped hold every torch and replay process to CPU 2 (PIN_CPUS=LIST
# to choose others, PIN_CPUS= for none): on a VM an unpinned torch process's host ran 1.5x slower
# in some processes than in others (bench/RESULTS.md). TRACE_OUT=1 keeps both sides' steps of each
# row as Chrome traces beside their records (fidelity.sh), for
# sweeps/gpu/traces/kinds_side_by_side.py.
# Writes OUT_DIR/{host_time.json, fidelity/, multi_tensor/, gpu_check.txt, summary.txt}, each
# stage's lines appended to the summary as it ends. Exit 1 when any stage failed, 2 on a stage it
# does not know (before anything runs).
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=${1:?usage: fidelity_travels.sh OUT_DIR [build|calibrate|table|grouped|multi_tensor|check ...]}
shift
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(calibrate table grouped multi_tensor check)
for s in "${stages[@]}"; do
  case $s in build | calibrate | table | grouped | multi_tensor | check) ;;
    *) echo "fidelity_travels.sh: unknown stage '$s' (build calibrate table grouped multi_tensor check)" >&2
       exit 2 ;;
  esac
done
mkdir -p "$out"
status=0
start=$(date +%s)
stage() { echo "== [$(( $(date +%s) - start )) s] $*" | tee -a "$out/summary.txt"; }
pin_cpus=${PIN_CPUS-2}
calibration_failed=

stage "build: make -j16 build/bin/replay build/bin/gpu_tests"
make -j16 build/bin/replay build/bin/gpu_tests >"$out/build.log" 2>&1 || { tail -20 "$out/build.log"; echo "BUILD FAILED"; exit 1; }
nvidia-smi -L | tee -a "$out/summary.txt"
python3 -c "import torch; print('torch', torch.__version__)" | tee -a "$out/summary.txt"

calibrate() {
  stage "host time per launch (item 1 of the issue), CPUs ${pin_cpus:-not pinned}"
  local calibrated=0 attempt repeats=3 rc
  for ((attempt = 1; attempt <= ${CALIBRATE_ATTEMPTS:-3}; attempt++)); do
    timeout "${CALIBRATE_TIMEOUT_S:-300}" python3 sweeps/gpu/travels/host_time_calibrate.py \
      --out build/gen/host_time.json --records "$out/calibration" --repeats "$repeats" \
      ${pin_cpus:+--cpus "$pin_cpus"} 2>&1 | tee -a "$out/summary.txt"
    rc=${PIPESTATUS[0]}
    [ "$rc" -eq 0 ] && { calibrated=1; break; }
    # A disturbed host only adds time, so each phase's fastest run only gets nearer the host
    # undisturbed as runs are added: a refusal goes on with one more round of each process,
    # a timeout with the runs it finished; anything else (no torch, no GPU) ends it.
    case $rc in
      124) echo "calibration: ran past ${CALIBRATE_TIMEOUT_S:-300} s; the next attempt keeps" \
             "its runs" | tee -a "$out/summary.txt" ;;
      1) repeats=$((repeats + 1))
         echo "calibration: the next attempt adds a round of each process to its runs ($repeats)" |
           tee -a "$out/summary.txt" ;;
      *) break ;;
    esac
  done
  [ $calibrated -eq 1 ] || { status=1; calibration_failed=1; }
  cp build/gen/host_time.json "$out/host_time.json" 2>/dev/null
}

# fidelity_rows NAME TIMEOUT_S CASE...: world-1 rows against the calibration.
fidelity_rows() {
  local name=$1 limit=$2
  shift 2
  # A calibration file left by an earlier call would be another host's speed (or this host's at
  # another time), and the replays' time is better kept for another try.
  if [ -n "$calibration_failed" ]; then
    stage "fidelity, world 1: $* skipped: this call's calibration wrote none (see above)"
    status=1
    return
  fi
  stage "fidelity, world 1, replay --host-time calibrate: $*"
  PIN_CPUS=$pin_cpus HOST_TIME=calibrate REFERENCE_TIMEOUT_S=120 REPLAY_TIMEOUT_S=90 \
    timeout "$limit" sweeps/gpu/fidelity.sh "$out/$name" "$@" >"$out/$name.log" 2>&1 || status=1
  # The table, its verdict, and each row's spread and per-layer lines.
  tail -24 "$out/$name.log" | tee -a "$out/summary.txt"
}

multi_tensor() {
  stage "multi_tensor kernels beside torch's, 64M and 545M elements"
  timeout 80 sweeps/gpu/multi_tensor/bandwidth.sh "$out/multi_tensor" >"$out/multi_tensor.log" 2>&1 ||
    status=1
  cat "$out/multi_tensor/side_by_side.md" 2>/dev/null | tee -a "$out/summary.txt" ||
    tail -5 "$out/multi_tensor.log" | tee -a "$out/summary.txt"
}

check() {
  stage "GPU check"
  timeout 110 sweeps/gpu/gpu_check.sh build/bin/gpu_tests >"$out/gpu_check.txt" 2>&1 || status=1
  grep -E '^== |-> |PASSED|FAILED' "$out/gpu_check.txt" | tail -20 | tee -a "$out/summary.txt"
}

for s in "${stages[@]}"; do
  case $s in
    build) ;;
    calibrate) calibrate ;;
    table) fidelity_rows fidelity 280 q05 q7 q72 mix ;;
    grouped) fidelity_rows fidelity_grouped 100 mixg ;;
    multi_tensor) multi_tensor ;;
    check) check ;;
  esac
done

stage "done: $([ $status -eq 0 ] && echo ALL OK || echo SOME FAILED)"
exit $status
