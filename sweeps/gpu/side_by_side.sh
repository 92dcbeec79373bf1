#!/usr/bin/env bash
# collreplay's perf executables beside nccl-tests (built from its public source, outside this
# repository) on the same GPUs in the same call, as recorded in bench/RESULTS.md: AG / RS / A2A
# from 8 B to 4 GiB, ranks averaged (--report avg, nccl-tests' rule), plain launches, CUDA graphs
# (-G) and registered buffers (-R 1); then one sweep's wall time with --stable against nccl-tests'
# fixed iteration count.
#   sweeps/gpu/side_by_side.sh OUT_DIR NCCL_TESTS_SOURCE_DIR [OPS [TRANSPORT_FLAGS...]]
# OPS: comma-separated, default all_gather,reduce_scatter,alltoall.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: side_by_side.sh OUT_DIR NCCL_TESTS_SOURCE_DIR [transport flags]}
peer_src=${2:?usage: side_by_side.sh OUT_DIR NCCL_TESTS_SOURCE_DIR [transport flags]}
shift 2
ops=${1:-all_gather,reduce_scatter,alltoall}
[ $# -gt 0 ] && shift
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0
np=$(nvidia-smi -L | wc -l)
launch=(mpirun --allow-run-as-root -np "$np" --bind-to none -x NCCL_NVLS_ENABLE)
nccl_home=$(dirname "$(dirname "$(find /usr/local/cuda/include /usr/include -maxdepth 1 -name nccl.h | head -1)")")
mpi_home=$(dirname "$(dirname "$(find /usr/lib/x86_64-linux-gnu/openmpi/include /usr/include -maxdepth 2 -name mpi.h | head -1)")")
make -C "$peer_src" -j"$(nproc)" MPI=1 MPI_HOME="$mpi_home" CUDA_HOME=/usr/local/cuda \
  NCCL_HOME="$nccl_home" NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" > "$out/peer_build.txt" 2>&1 ||
  { echo "nccl-tests did not build (see $out/peer_build.txt)"; tail -5 "$out/peer_build.txt"; exit 1; }
peer=$peer_src/build
sizes=(-b 16 -e "${MAX_SIZE:-4G}" -f 4)  # MAX_SIZE: a shorter sweep when device time is short
status=0
for op in ${ops//,/ }; do
  # Interleaved, so that drift of the machine hits both sides alike.
  "${launch[@]}" "$peer/${op}_perf" -g 1 "${sizes[@]}" -n 50 -w 10 -c 1 > "$out/peer_${op}.txt" 2>&1 || status=1
  "${launch[@]}" build/bin/${op}_perf "${sizes[@]}" -n 50 -w 10 -c 1 --report avg "$@" \
    --out "$out/ours_${op}.jsonl" > "$out/ours_${op}.txt" 2>&1 || status=1
  "${launch[@]}" "$peer/${op}_perf" -g 1 "${sizes[@]}" -n 50 -w 10 -c 1 -G 20 > "$out/peer_${op}_graph.txt" 2>&1 || status=1
  "${launch[@]}" build/bin/${op}_perf "${sizes[@]}" -n 50 -w 10 -c 1 --report avg -G 20 "$@" \
    --out "$out/ours_${op}_graph.jsonl" > "$out/ours_${op}_graph.txt" 2>&1 || status=1
  "${launch[@]}" "$peer/${op}_perf" -g 1 "${sizes[@]}" -n 50 -w 10 -c 1 -R 1 > "$out/peer_${op}_reg.txt" 2>&1 || status=1
  "${launch[@]}" build/bin/${op}_perf "${sizes[@]}" -n 50 -w 10 -c 1 --report avg -R 1 "$@" \
    --out "$out/ours_${op}_reg.jsonl" > "$out/ours_${op}_reg.txt" 2>&1 || status=1
done
# Wall time of one all-gather sweep: nccl-tests' fixed -n 200 against --stable 1 capped at 200.
start=$(date +%s%N)
"${launch[@]}" "$peer/all_gather_perf" -g 1 "${sizes[@]}" -n 200 -w 10 -c 0 > "$out/peer_wall.txt" 2>&1 || status=1
mid=$(date +%s%N)
"${launch[@]}" build/bin/all_gather_perf "${sizes[@]}" -n 200 -w 10 -c 0 --report avg --stable 1 "$@" \
  --out "$out/ours_wall.jsonl" > "$out/ours_wall.txt" 2>&1 || status=1
end=$(date +%s%N)
awk -v a="$start" -v b="$mid" -v c="$end" 'BEGIN { printf "wall_s nccl-tests -n 200: %.1f  collreplay --stable 1 -n 200: %.1f\n", (b - a) / 1e9, (c - b) / 1e9 }' |
  tee "$out/wall.txt"
exit $status
