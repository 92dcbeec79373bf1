#!/usr/bin/env bash
export NCCL_NVLS_ENABLE=0
mkdir -p $OUT/f
nvidia-smi --query-gpu=name --format=csv,noheader; nvidia-smi topo -m | head -4
{ time make -j32 build/bin/replay build/bin/all_gather_perf; } > $OUT/f/build.log 2>&1 || { tail -30 $OUT/f/build.log; exit 1; }
MULTI_GPU=1 REFERENCE_TIMEOUT_S=200 REPLAY_TIMEOUT_S=120 timeout 420 sweeps/gpu/fidelity.sh $OUT/f/fid multi fsdp2-w2 ddp-w2 mix-ep2 2>&1 | tail -32
for p in overlapped perf; do echo "== hang_check $p"; timeout 60 sweeps/gpu/hang_check.sh $p 2>&1 | tail -4; done
cd $OUT && tar czf f.tgz f && rm -rf f
