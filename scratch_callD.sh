#!/usr/bin/env bash
export NCCL_NVLS_ENABLE=0
mkdir -p $OUT/d
{ time make -j16 build/bin/replay; } > $OUT/d/build.log 2>&1 || { tail -30 $OUT/d/build.log; exit 1; }
git_rev=$(cat .git_rev 2>/dev/null); echo "rev $git_rev"
timeout 560 sweeps/gpu/fidelity.sh $OUT/d/fid multi 2>&1 | tail -45
cd $OUT && tar czf d.tgz d && rm -rf d
