#!/usr/bin/env bash
# Runs every test suite that was built, stopping at the first failure:
#   tests/run_all.sh BIN_DIR MPIRUN
# the layout checks (layering.sh: includes point down; room_sizes.sh: folders of at most 15
# sources, files of at most 400 lines, function bodies of at most 100), unit_tests, the READMEs'
# commands (readme_commands.sh), mpi_tests under MPIRUN with 1, 2 and 4 ranks, cli_tests,
# emulated_tests, and gpu_tests and plots_tests where built.
# MPIRUN's flags for this kind of machine live in tests/mpirun_flags (one place, also read by
# cli_tests through COLLREPLAY_MPIRUN).
set -euo pipefail
bin=${1:?usage: run_all.sh BIN_DIR MPIRUN}
mpirun=${2:-mpirun}
here=$(cd "$(dirname "$0")" && pwd)
export COLLREPLAY_MPIRUN="$mpirun $(cat "$here/mpirun_flags")"

passed=0
failed=0
# Runs one suite, echoing its output, and adds its gtest counts to the closing line.
step() {
  echo "== $*"
  local log rc=0
  log=$(mktemp)
  "$@" 2>&1 | tee "$log" || rc=$?
  local p f
  p=$(sed -n 's/.*PASSED[^0-9]*\([0-9][0-9]*\) tests\{0,1\}\..*/\1/p' "$log" | head -1)
  f=$(sed -n 's/.*FAILED[^0-9]*\([0-9][0-9]*\) tests\{0,1\}, listed below.*/\1/p' "$log" | head -1)
  rm -f "$log"
  passed=$((passed + ${p:-0}))
  failed=$((failed + ${f:-0}))
  if [ $rc -ne 0 ]; then
    echo "$passed passed, $((failed > 0 ? failed : 1)) failed"
    exit $rc
  fi
}

step "$here/layering.sh"
step "$here/room_sizes.sh"
step "$bin/unit_tests" --gtest_brief=1
step "$here/readme_commands.sh" "$bin"
for np in 1 2 4; do
  step $COLLREPLAY_MPIRUN -np "$np" "$bin/mpi_tests" --gtest_brief=1
done
step "$bin/cli_tests" --gtest_brief=1
# Root-only (network namespaces); it skips with a reason elsewhere.
if [ -x "$bin/emulated_tests" ]; then step "$bin/emulated_tests" --gtest_brief=1; fi
if [ -x "$bin/gpu_tests" ]; then step "$bin/gpu_tests" --gtest_brief=1; fi
if [ -x "$bin/plots_tests" ]; then step "$bin/plots_tests" --gtest_brief=1; fi
echo "== all tests passed"
echo "$passed passed, $failed failed"
