# The sweep's manifest ($OUT/manifest.json), shared by sweeps/sweep and the Slurm scripts through
# it. One JSON object: the sweep's settings and matrix, and one entry per cell:
#   {"id", "fabric", "transport", "nodes", "ranks_per_node", "model", "plan", "status"
#    ("pending" | "done" | "failed" | "timeout"), "attempts", "exit_code", "duration_s", "log",
#    "out", "started_utc", "launcher": {"kind", "slurm_job_id", "slurm_step_id", "nodelist"}}
# Every change goes through jq under flock, written to a temporary file and renamed, so a killed
# sweep never leaves half a manifest. Sourced; uses OUT.

manifest_path() { echo "$OUT/manifest.json"; }

# manifest_edit JQ_FILTER [jq args...]: applies the filter to the manifest atomically.
manifest_edit() {
  local filter=$1 path tmp
  shift
  path=$(manifest_path)
  tmp=$path.tmp.$$
  (
    flock 9
    jq "$@" "$filter" "$path" >"$tmp" && mv "$tmp" "$path"
  ) 9>"$OUT/.manifest.lock"
}

# Creates the manifest or refreshes its settings; cells already recorded keep their history.
manifest_init() {
  local settings_json=$1 cells_json=$2 path
  path=$(manifest_path)
  [ -s "$path" ] || echo '{"cells": []}' >"$path"
  manifest_edit '. + $settings
    | .cells as $old
    | .cells = ($old + [ $new[] | select(.id as $id | ($old | map(.id) | index($id)) | not) ])' \
    --argjson settings "$settings_json" --argjson new "$cells_json"
}

# manifest_cell ID FIELD: one field of one cell ("" when absent).
manifest_cell() {
  jq -r --arg id "$1" --arg f "$2" '.cells[] | select(.id == $id) | .[$f] // "" ' "$(manifest_path)"
}

# manifest_set ID JSON: merges JSON into the cell.
manifest_set() {
  manifest_edit '.cells |= map(if .id == $id then . + $fields else . end)' \
    --arg id "$1" --argjson fields "$2"
}

# The summary table: one line per cell of this matrix.
manifest_table() {
  local ids_json=$1
  {
    printf 'cell\tstatus\tattempts\tduration_s\tlog\n'
    jq -r --argjson ids "$ids_json" '.cells[] | select(.id as $i | $ids | index($i))
      | [.id, .status, (.attempts // 0), (.duration_s // "-"), (.log // "-")] | @tsv' \
      "$(manifest_path)"
  } | align_columns
}

# Pads tab-separated columns to their widest cell (what `column -t` does; column is not in a
# bare Debian, whose util-linux leaves it to bsdextrautils).
align_columns() {
  awk -F'\t' '{ rows[NR] = $0; for (i = 1; i <= NF; i++) if (length($i) > w[i]) w[i] = length($i) }
    END { for (r = 1; r <= NR; r++) { n = split(rows[r], f, "\t"); line = ""
            for (i = 1; i < n; i++) line = line sprintf("%-" w[i] "s  ", f[i])
            print line f[n] } }'
}
