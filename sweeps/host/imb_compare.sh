#!/usr/bin/env bash
# collreplay's host collectives beside the Intel MPI Benchmarks (built from their public source,
# outside this repository) on the same ranks, flags and machine, interleaved round by round so
# that drift hits both alike; prints the median per size (bench/RESULTS.md, issue 9). IMB's
# message size is the per-rank block, so S = block x ranks. Under SCHED_RR priority 1 (chrt), as
# recorded, which keeps other work off the cores while a round runs.
#   sweeps/host/imb_compare.sh IMB-MPI1 [RANKS=4] [ROUNDS=6] [RAW_OUT]
set -euo pipefail
cd "$(dirname "$0")/../.."
imb=${1:?usage: imb_compare.sh IMB-MPI1 [RANKS] [ROUNDS] [RAW_OUT]}
np=${2:-4}
rounds=${3:-6}
raw=${4:-$(mktemp)}
flags=$(cat tests/mpirun_flags)
: >"$raw"
for _ in $(seq "$rounds"); do
  chrt -r 1 mpirun $flags -np "$np" "$imb" -npmin "$np" -msglog 18:22 Allgather Reduce_scatter_block Alltoall 2>/dev/null |
    awk -v np="$np" '/Benchmarking/ {op=$3} $1 ~ /^(262144|1048576|4194304)$/ {print "IMB", op, $1*np, $5}' >>"$raw"
  for op in all_gather reduce_scatter alltoall; do
    chrt -r 1 mpirun $flags -np "$np" build/bin/${op}_perf --backend mpi -b $((262144 * np)) \
      -e $((4194304 * np)) -f 4 -n 50 -w 5 --report avg 2>/dev/null |
      awk -v op="$op" '$1 ~ /^[0-9]+$/ && NF > 8 {print "ours", op, $1, $6, $10, $9}' >>"$raw"
  done
done
python3 - "$raw" <<'PY'
import collections, statistics, sys
times = collections.defaultdict(list); in_place = collections.defaultdict(list); wrong = 0
name = {'Allgather': 'all_gather', 'Reduce_scatter_block': 'reduce_scatter', 'Alltoall': 'alltoall'}
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == 'IMB':
        times[('IMB', name.get(f[1], f[1]), int(f[2]))].append(float(f[3]))
    else:
        times[('ours', f[1], int(f[2]))].append(float(f[3]))
        in_place[(f[1], int(f[2]))].append(float(f[4]))
        wrong += int(f[5])
print('| S | op | IMB t_avg (us) | ours out-of-place (us) | ratio | per-round ratios | ours in-place (us) |')
print('|---|---|---|---|---|---|---|')
for op in ['all_gather', 'reduce_scatter', 'alltoall']:
    for s in sorted({k[2] for k in times if k[1] == op}):
        imb, ours = times[('IMB', op, s)], times[('ours', op, s)]
        if not imb or not ours:
            continue
        ratios = [b / a for a, b in zip(imb, ours)]
        print(f'| {s / 2**20:g} MiB | {op} | {statistics.median(imb):,.0f} | {statistics.median(ours):,.0f} | '
              f'{statistics.median(ours) / statistics.median(imb):.2f} | {min(ratios):.2f}-{max(ratios):.2f} | '
              f'{statistics.median(in_place[(op, s)]):,.0f} |')
print(f'wrong elements, out of place, all rounds: {wrong}')
PY
