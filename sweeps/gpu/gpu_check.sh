#!/usr/bin/env bash
# The GPU check: build, then gpu_tests on 1 rank, on 2 ranks over NVLink (two GPUs or more) and on
# 2 ranks over NCCL's socket transport (on one GPU both share it, each its own NCCL host), then a
# summary. Logs in build/gpu_check/.
#   sweeps/gpu/gpu_check.sh [TARGET]   (TARGET to build first, default all; MPIRUN=... launcher)
case ${1:-} in -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
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
