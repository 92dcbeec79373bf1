# shellcheck shell=bash disable=SC2034  # sets variables for the script that sources it
# Sourced by the scripts that run nccl-tests beside collreplay on this machine's GPUs
# (side_by_side.sh, stable_wall.sh): builds nccl-tests from its public source (outside this
# repository) and sets how both sides are launched.
#   . sweeps/gpu/nccl_tests_common.sh OUT_DIR NCCL_TESTS_SOURCE_DIR
# Sets: peer (nccl-tests' binaries), launch (mpirun over every GPU of this machine, an array) and
# ours_transport (collreplay's transport flags, an array). TRANSPORT=socket puts both sides on
# NCCL's socket transport over loopback (the variables are exported to nccl-tests; collreplay
# sets the same ones itself from --transport socket --ifname lo, and verifies the transport).
nccl_tests_out=${1:?usage: . nccl_tests_common.sh OUT_DIR NCCL_TESTS_SOURCE_DIR}
nccl_tests_src=${2:?usage: . nccl_tests_common.sh OUT_DIR NCCL_TESTS_SOURCE_DIR}
mkdir -p "$nccl_tests_out"
export NCCL_NVLS_ENABLE=0
np=$(nvidia-smi -L | wc -l)
launch=(mpirun --allow-run-as-root -np "$np" --bind-to none -x NCCL_NVLS_ENABLE)
ours_transport=()
if [ "${TRANSPORT:-}" = socket ]; then
  export NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo
  launch+=(-x NCCL_P2P_DISABLE -x NCCL_SHM_DISABLE -x NCCL_IB_DISABLE -x NCCL_SOCKET_IFNAME)
  ours_transport=(--transport socket --ifname lo)
fi
nccl_home=$(dirname "$(dirname "$(find /usr/local/cuda/include /usr/include -maxdepth 1 -name nccl.h | head -1)")")
mpi_home=$(dirname "$(dirname "$(find /usr/lib/x86_64-linux-gnu/openmpi/include /usr/include -maxdepth 2 -name mpi.h | head -1)")")
make -C "$nccl_tests_src" -j"$(nproc)" MPI=1 MPI_HOME="$mpi_home" CUDA_HOME=/usr/local/cuda \
  NCCL_HOME="$nccl_home" NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" > "$nccl_tests_out/peer_build.txt" 2>&1 ||
  { echo "nccl-tests did not build (see $nccl_tests_out/peer_build.txt)"; tail -5 "$nccl_tests_out/peer_build.txt"; exit 1; }
peer=$nccl_tests_src/build
