#!/usr/bin/env bash
# The commands the READMEs show run as shown: every `build/bin/project`, `build/bin/advise` and
# `build/bin/replay --dry-run` line of a fenced block in a README (a leading `$ ` and trailing
# `\` continuations allowed; fences and lines may be indented, as in a list item) runs from a
# scratch folder that sees the checkout's tests/, sweeps/ and workloads/, with BIN_DIR for
# build/bin. It must exit 0, or the status the README gives for it: `# exit N` on the command,
# or `(exit N)` on the first line after its block.
#   tests/readme_commands.sh BIN_DIR [ROOT]
# Prints each command with its status; exits 1 naming the first that did otherwise.
set -euo pipefail
bin=$(cd "${1:?usage: readme_commands.sh BIN_DIR [ROOT]}" && pwd)
root=${2:-$(cd "$(dirname "$0")/.." && pwd)}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for d in tests sweeps workloads; do ln -s "$root/$d" "$scratch/$d"; done

# One line per command: README<TAB>expected status<TAB>command.
commands() {
  local readme
  while IFS= read -r readme; do
    awk -v file="${readme#"$root"/}" '
      /^ *```/ { if (fenced) { fenced = 0; pending = n } else fenced = 1; next }
      !fenced && pending > 0 && NF {
        if (match($0, /\(exit [0-9]+\)/)) status[pending] = substr($0, RSTART + 6, RLENGTH - 7)
        pending = 0
      }
      !fenced { next }
      {
        line = $0; sub(/^ */, "", line); sub(/^\$ /, "", line)
        if (joining) { cmd[n] = cmd[n] " " line }
        else if (line ~ /^build\/bin\/(project|advise) / || line ~ /^build\/bin\/replay --dry-run /) {
          cmd[++n] = line; status[n] = 0
        } else next
        joining = cmd[n] ~ /\\$/
        sub(/\\$/, "", cmd[n])
        if (match(cmd[n], /# exit [0-9]+/)) status[n] = substr(cmd[n], RSTART + 7, RLENGTH - 7)
      }
      END { for (i = 1; i <= n; i++) { c = cmd[i]; sub(/ *#.*$/, "", c); print file "\t" status[i] "\t" c } }
    ' "$readme"
  done < <(find "$root" \( -path "$root/build" -o -path "$root/results" -o -path "$root/.git" \) \
             -prune -o -name README.md -print | sort)
}

ran=0
while IFS=$'\t' read -r readme want command; do
  rc=0
  (cd "$scratch" && eval "${command/#build\/bin\//$bin/}") >"$scratch/out.txt" 2>&1 || rc=$?
  ran=$((ran + 1))
  if [ "$rc" != "$want" ]; then
    echo "readme_commands: $readme: exit $rc (the README says $want): $command"
    tail -5 "$scratch/out.txt"
    exit 1
  fi
  echo "ok ($rc) $readme: ${command:0:110}"
done < <(commands)
[ "$ran" -gt 0 ] || { echo "readme_commands: no README command found"; exit 1; }
echo "readme_commands: $ran README commands ran as documented"
