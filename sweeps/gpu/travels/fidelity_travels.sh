#!/usr/bin/env bash
# Fidelity in one device call, stage by stage, each under its own timeout:
#   sweeps/gpu/travels/fidelity_travels.sh OUT_DIR [STAGE...]   (default: every stage)
#   build         replay and gpu_tests, the GPU's name, torch's version (always first)
#   calibrate     host_time_calibrate.py -> build/gen/host_time.json (CALIBRATE_ATTEMPTS, default
#                 3; CALIBRATE_TIMEOUT_S, default 300; runs kept in OUT_DIR/calibration)
#   table         fidelity.sh q05 q7 q72 mix against this call's calibration (skipped without one)
#   grouped       fidelity.sh mixg;  multi_tensor  multi_tensor/bandwidth.sh;  check  gpu_check.sh
# Torch and replay are held to CPU 2 (PIN_CPUS=LIST, or PIN_CPUS= for none); TRACE_OUT=1 as in
# fidelity.sh. `build calibrate table grouped` fits one 600 s call (390-490 s on H100/H200 VMs).
# Writes OUT_DIR/summary.txt; exit 1 when a stage failed, 2 for an unknown stage.
case ${1:-} in -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
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
