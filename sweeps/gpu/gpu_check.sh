#!/usr/bin/env bash
# One-call check of the GPU parts on the GPU machine: build, then gpu_tests on 1 and 2 ranks over
# NVLink and on 2 ranks over NCCL's socket transport, then a short summary. Logs: build/gpu_check/.
# Ranks are placed as the machine allows: with two GPUs or more each rank has its own; on one GPU
# the NVLink run is left out (said so) and the two socket ranks share GPU 0, each with its own
# NCCL_HOSTID, so NCCL takes them for two nodes and talks over sockets (NCCL refuses two ranks of
# one host on one GPU), as fidelity.sh's shared-GPU cases and replay --emulate-nodes do.
# Usage: sweeps/gpu/gpu_check.sh [TARGET]   (from anywhere; MPIRUN=... to choose the launcher;
#        TARGET: what to build first, default all; build/bin/gpu_tests when the rest is built)
set -u
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0   # the test machines lend no multicast objects: keep NVLink SHARP off
MPIRUN=${MPIRUN:-mpirun}
LOG=build/gpu_check
mkdir -p "$LOG"
status=0

target=${1:-all}
echo "== build: make -j16 $target"
if ! make -j16 "$target" >"$LOG/build.log" 2>&1; then
  tail -40 "$LOG/build.log"
  echo "BUILD FAILED (full log: $LOG/build.log)"
  exit 1
fi
tail -1 "$LOG/build.log"
# The binary says what it was built with (a build log is empty when it was up to date).
if ! ldd "build/bin/$(basename "$target")" 2>/dev/null | grep -q libnccl &&
  ! grep -q 'with CUDA+NCCL' "$LOG/build.log"; then
  echo "BUILD IS HOST-ONLY: no CUDA+NCCL found (set CUDA_HOME / NCCL_HOME)"
  exit 1
fi
command -v nvidia-smi >/dev/null && { nvidia-smi -L; nvidia-smi topo -m 2>/dev/null | head -5; }

gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
echo "== GPUs visible: ${gpus:-0}"

# run NAME NP FILTER [VAR=VALUE...]: gpu_tests (tests matching FILTER) under mpirun with the
# given environment. SHARED_GPU=1 before the call: each rank its own NCCL_HOSTID (one GPU).
run() {
  local name=$1 np=$2 filter=$3
  shift 3
  local exports=() kv per_rank=()
  for kv in "$@"; do exports+=(-x "$kv"); done
  # OpenMPI gives each rank OMPI_COMM_WORLD_RANK; the host id is set from it inside the rank.
  [ "${SHARED_GPU:-0}" = 1 ] &&
    per_rank=(sh -c 'NCCL_HOSTID=gpu-check-rank$OMPI_COMM_WORLD_RANK exec "$0" "$@"')
  echo "== $name: $np rank(s) $*${per_rank:+ (GPU 0 shared, an NCCL_HOSTID per rank)}"
  env "$@" $MPIRUN --allow-run-as-root -np "$np" --bind-to none -x NCCL_NVLS_ENABLE \
    "${exports[@]}" "${per_rank[@]}" build/bin/gpu_tests --gtest_color=no \
    --gtest_filter="$filter" >"$LOG/$name.log" 2>&1
  local rc=$?
  grep -E '^\[ (transport|gemm|engine) \]' "$LOG/$name.log" | sort -u
  grep -E '^\[  (PASSED|FAILED|SKIPPED) |^\[==========\] .* ran' "$LOG/$name.log" | grep -v '^\[  SKIPPED \] ' || true
  grep -E 'Failure|error:' "$LOG/$name.log" | head -20
  if grep -q 'no GPU visible' "$LOG/$name.log"; then
    echo "   -> no GPU visible: nothing was tested"
    status=1
  fi
  if [ $rc -ne 0 ]; then echo "   -> FAILED (rc $rc, log $LOG/$name.log)"; status=1; else echo "   -> ok"; fi
}

run np1 1 '*'
if [ "${gpus:-0}" -ge 2 ]; then
  run np2_nvlink 2 '*' COLLREPLAY_EXPECT_TRANSPORT=nvlink
  SHARED_GPU=0
else
  echo "== np2_nvlink: left out: one GPU, no NVLink pair to test"
  SHARED_GPU=1
fi
run np2_socket 2 'NcclOps.*' COLLREPLAY_EXPECT_TRANSPORT=socket NCCL_P2P_DISABLE=1 \
  NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo

echo "== summary: $([ $status -eq 0 ] && echo ALL OK || echo SOME FAILED) (logs in $LOG/)"
exit $status
