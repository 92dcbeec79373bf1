# The sweep's matrix: input checks (exit 2, one line, before anything is written), the cells in
# launch order (fabric, then node count, so one emulated cluster serves consecutive cells), and
# the results folder. Sourced by sweeps/sweep; uses its option variables.

# A JSON array of the arguments as strings.
json_strings() { if [ $# -eq 0 ]; then echo '[]'; else printf '%s\n' "$@" | jq -R . | jq -sc .; fi; }

split_list() { tr ',' ' ' <<<"$1"; }

positive_int_list() {
  local what=$1 item
  for item in $(split_list "$2"); do
    [[ $item =~ ^[0-9]+$ ]] && [ "$item" -ge 1 ] || usage_error "$what: '$item' is not a positive integer"
  done
  [ -n "$(split_list "$2")" ] || usage_error "$what is empty"
}

max_of() { tr ',' '\n' <<<"$1" | sort -n | tail -1; }

# Hostfile lines: "host [slots=N] [max_slots=N]", '#' comments; prints the hosts in order.
parse_hostfile() {
  local file=$1 bad
  [ -r "$file" ] || usage_error "hostfile '$file' is not readable"
  bad=$(awk '{ sub(/#.*/, "") } NF == 0 { next }
    { ok = ($1 ~ /^[A-Za-z0-9._-]+$/)
      for (i = 2; i <= NF; i++) if ($i !~ /^(slots|max_slots|max-slots)=[0-9]+$/) ok = 0
      if (!ok) { print NR; exit } }' "$file")
  [ -z "$bad" ] || usage_error "hostfile '$file' does not parse at line $bad (expected: HOST [slots=N])"
  awk '{ sub(/#.*/, "") } NF { print $1 }' "$file"
}

# The default dilation: the smallest whole factor that brings every shaped fabric of the sweep to
# at most HOST_SHAPE_MBIT per node (what this host's small-bucket shaping holds) and 4 Gbit/s
# summed over the largest node count (about half of what two cores move between 8 namespaces), so
# the shaping and not the host decides the bandwidth.
SUM_CAP_GBIT_S=4
default_dilation() {
  local fabric gbit d=1 max_nodes
  max_nodes=$(max_of "$NODE_LIST")
  for fabric in $(split_list "$FABRICS"); do
    [ "$fabric" = real ] && continue
    read -r gbit _ _ <<<"$(fabric_fields "$fabric")"
    d=$(awk -v g="$gbit" -v n="$max_nodes" -v cap="$SUM_CAP_GBIT_S" -v d="$d" \
      -v node_d="$(faithful_dilation "$gbit")" \
      'BEGIN { x = g * n / cap; x = (x == int(x)) ? x : int(x) + 1; if (node_d > x) x = node_d
               print (x > d) ? x : d }')
  done
  echo "$d"
}

validate_inputs() {
  case $LAUNCHER in
    emulate) [ "$(id -u)" = 0 ] || usage_error "--emulate needs root (network namespaces)" ;;
    hostfile) local hosts_text
      hosts_text=$(parse_hostfile "$HOSTFILE") || exit 2
      read -r -a HOSTS <<<"$(tr '\n' ' ' <<<"$hosts_text")"
      [ ${#HOSTS[@]} -gt 0 ] || usage_error "hostfile '$HOSTFILE' names no host" ;;
    slurm) [ -n "${SLURM_JOB_ID:-}" ] || usage_error "--slurm runs inside an allocation (no SLURM_JOB_ID)" ;;
    "") if [ -n "${SLURM_JOB_ID:-}" ]; then LAUNCHER=slurm
        else usage_error "choose where cells run: --emulate, --hostfile F or --slurm"; fi ;;
  esac
  positive_int_list --nodes "$NODE_LIST"
  positive_int_list --ranks-per-node "$RPN_LIST"
  positive_int_list --steps "$STEPS"
  [[ $WARMUP =~ ^[0-9]+$ ]] || usage_error "--warmup must be a whole number"
  [[ $TIMEOUT_S =~ ^[0-9]+$ ]] && [ "$TIMEOUT_S" -ge 1 ] || usage_error "--timeout must be a positive number of seconds"
  [[ $NAME =~ ^[A-Za-z0-9._-]+$ ]] || usage_error "--name may hold letters, digits, '.', '_', '-'"
  local max_nodes fabric
  max_nodes=$(max_of "$NODE_LIST")
  # Inside an emulated cluster (`cluster run`, e.g. its Slurm) the fabric is the cluster's: the
  # one whose node this process's network namespace is.
  IN_EMULATED=0
  local cluster_env
  cluster_env=$(cluster_env_here)
  if [ "$LAUNCHER" != emulate ] && [ -n "$cluster_env" ]; then
    IN_EMULATED=1
    local shaped_as shaped_dilation
    shaped_as=$(sed -n 's/^CL_FABRIC=//p' "$cluster_env")
    shaped_dilation=$(sed -n 's/^CL_DILATE=//p' "$cluster_env")
    [ -z "$FABRICS" ] || [ "$FABRICS" = "$shaped_as" ] ||
      usage_error "--fabric $FABRICS: this emulated cluster is shaped as $shaped_as"
    [ -z "$DILATE" ] || [ "$DILATE" = "$shaped_dilation" ] ||
      usage_error "--dilate $DILATE: this emulated cluster is dilated $shaped_dilation"
    FABRICS=$shaped_as DILATE=$shaped_dilation
  fi
  if [ -z "$FABRICS" ]; then
    if [ "$LAUNCHER" = emulate ]; then FABRICS=unshaped; else FABRICS=real; fi
  fi
  for fabric in $(split_list "$FABRICS"); do
    if [ "$fabric" = real ]; then
      [ "$LAUNCHER" != emulate ] || usage_error "--fabric real: the emulated cluster needs a profile"
    else
      fabric_fields "$fabric" >/dev/null || exit 2
    fi
  done
  case $LAUNCHER in
    emulate) [ "$max_nodes" -le 16 ] || usage_error "--nodes $max_nodes: this host emulates at most 16 nodes" ;;
    hostfile) [ "$max_nodes" -le ${#HOSTS[@]} ] || usage_error "--nodes $max_nodes: hostfile '$HOSTFILE' has ${#HOSTS[@]} hosts" ;;
    slurm) [ "$max_nodes" -le "${SLURM_JOB_NUM_NODES:-1}" ] ||
      usage_error "--nodes $max_nodes: the allocation has ${SLURM_JOB_NUM_NODES:-1} nodes" ;;
  esac
  # Real fabrics are not dilated; a --fabric label there only names them.
  if [ -z "$DILATE" ]; then
    if [ "$LAUNCHER" = emulate ]; then DILATE=$(default_dilation); else DILATE=1; fi
  fi
  is_positive_number "$DILATE" || usage_error "--dilate must be a positive number"
  if [[ $EXE != */* ]]; then EXE=$BIN_DIR/$EXE; fi
  [ -x "$EXE" ] || usage_error "executable '$EXE' not found (build it: make build/bin/$(basename "$EXE"))"
  EXE=$(cd "$(dirname "$EXE")" && pwd)/$(basename "$EXE")
  IS_REPLAY=0
  [ "$(basename "$EXE")" = replay ] && IS_REPLAY=1
  # Replay and the perf executables record --fabric/--emulated/--dilate; an older build without
  # them still runs, and the manifest says the records lack them.
  FABRIC_FLAGS=0
  # (Captured first: `--help | grep -q` under pipefail fails when grep closes the pipe early.)
  local help_text
  help_text=$("$EXE" --help 2>/dev/null || true)
  [[ $help_text == *--dilate* ]] && FABRIC_FLAGS=1
  [ -n "$OUT" ] || OUT=$REPO_DIR/results/$NAME
  [[ $OUT = /* ]] || OUT=$PWD/$OUT
  mkdir -p "$OUT" 2>/dev/null && [ -w "$OUT" ] && touch "$OUT/.write-test" 2>/dev/null ||
    usage_error "results folder '$OUT' is not writable"
  rm -f "$OUT/.write-test"
}

cell_id() {  # fabric transport nodes rpn model plan
  local id="$1"
  [ -n "$2" ] && id+="_$2"
  id+="_n$3_r$4"
  if [ "$IS_REPLAY" = 1 ]; then id+="_$(basename "${5%.json}")_$6"; fi
  tr -c 'A-Za-z0-9._\n-' '_' <<<"$id"
}

build_cells() {
  local fabric transport nodes rpn model plan id models plans
  CELL_IDS=()
  CELLS_JSON='[]'
  models=$MODELS plans=$PLANS
  [ "$IS_REPLAY" = 1 ] || { models=-; plans=-; }
  local lines=() emulated=false
  if [ "$LAUNCHER" = emulate ] || [ "$IN_EMULATED" = 1 ]; then emulated=true; fi
  for fabric in $(split_list "$FABRICS"); do
    for transport in $(split_list "${TRANSPORTS:--}"); do
      [ "$transport" = - ] && transport=
      for nodes in $(split_list "$NODE_LIST"); do
        for model in $(split_list "$models"); do
          for plan in $(split_list "$plans"); do
            for rpn in $(split_list "$RPN_LIST"); do
              id=$(cell_id "$fabric" "$transport" "$nodes" "$rpn" "$model" "$plan")
              CELL_IDS+=("$id")
              lines+=("$(jq -nc --arg id "$id" --arg f "$fabric" --arg t "$transport" --argjson n "$nodes" \
                --argjson r "$rpn" --arg m "$model" --arg p "$plan" --argjson e "$emulated" \
                --argjson d "$DILATE" \
                '{id: $id, fabric: $f, transport: $t, nodes: $n, ranks_per_node: $r, model: $m,
                  plan: $p, emulated: $e, dilation: $d, status: "pending", attempts: 0}')")
            done
          done
        done
      done
    done
  done
  CELLS_JSON=$(printf '%s\n' "${lines[@]}" | jq -sc .)
}

prepare_out() {
  mkdir -p "$OUT/logs"
  local settings
  settings=$(jq -nc --arg launcher "$LAUNCHER" --arg exe "$EXE" --arg dilate "$DILATE" \
    --arg fabrics "$FABRICS" --arg transports "$TRANSPORTS" --arg nodes "$NODE_LIST" \
    --arg models "$MODELS" --arg plans "$PLANS" --arg rpn "$RPN_LIST" --arg backend "$BACKEND" \
    --arg layers "$LAYERS" --arg compute "$COMPUTE" --argjson steps "$STEPS" --argjson warmup "$WARMUP" --argjson timeout "$TIMEOUT_S" \
    --argjson fabric_flags "$FABRIC_FLAGS" --arg hostfile "$HOSTFILE" \
    --argjson extra "$(json_strings "${EXTRA[@]}")" '{sweep_launcher: $launcher, executable: $exe, dilation: ($dilate | tonumber),
      timeout_s: $timeout, fabric_flags_recorded: ($fabric_flags == 1), hostfile: $hostfile,
      options: {backend: $backend, layers: $layers, compute: $compute, steps: $steps,
               warmup: $warmup, extra: $extra},
      matrix: {fabrics: ($fabrics | split(",")), transports: ($transports | split(",") | map(select(. != ""))),
               nodes: ($nodes | split(",") | map(tonumber)), models: ($models | split(",")),
               plans: ($plans | split(",")), ranks_per_node: ($rpn | split(",") | map(tonumber))}}')
  manifest_init "$settings" "$CELLS_JSON"
  echo "== sweep $OUT: ${#CELL_IDS[@]} cells on $LAUNCHER, dilation $DILATE, $(basename "$EXE")"
  [ "$FABRIC_FLAGS" = 1 ] || echo "note: $(basename "$EXE") has no --fabric/--emulated/--dilate yet; the manifest records them"
}
