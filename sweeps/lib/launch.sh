# Launching one cell: the executable's command line, the launcher around it (emulated cluster,
# hostfile mpirun, or srun inside a Slurm allocation), the timeout, and the manifest entry.
# The emulated cluster is brought up for a (fabric, node count) when a cell needs it and torn down
# when the next cell needs another one, and always at exit (launch_finish).
# Sourced by sweeps/sweep; uses its option variables.

CLUSTER=$SWEEPS_DIR/emulate/cluster
CLUSTER_STATE=/run/collreplay-sweep.$$
# One prefix per sweep process, so sweeps side by side never share namespaces.
CLUSTER_PREFIX=crs$$n
CLUSTER_KEY=

# The executable's flags for one cell (into the array EXE_ARGS).
exe_args() {
  local fabric=$1 transport=$2 model=$3 plan=$4 out_file=$5
  EXE_ARGS=()
  if [ "$IS_REPLAY" = 1 ]; then
    EXE_ARGS+=(--model "$model" --plan "$plan" --steps "$STEPS" --warmup "$WARMUP")
    [ -n "$LAYERS" ] && EXE_ARGS+=(--layers "$LAYERS")
    [ -n "$COMPUTE" ] && EXE_ARGS+=(--compute "$COMPUTE")
  fi
  [ -n "$BACKEND" ] && EXE_ARGS+=(--backend "$BACKEND")
  [ -n "$transport" ] && EXE_ARGS+=(--transport "$transport")
  if [ "$FABRIC_FLAGS" = 1 ]; then
    EXE_ARGS+=(--fabric "$fabric")
    if [ "$LAUNCHER" = emulate ] || [ "$IN_EMULATED" = 1 ]; then EXE_ARGS+=(--emulated); fi
    EXE_ARGS+=(--dilate "$DILATE")
  fi
  EXE_ARGS+=(--out "$out_file" "${EXTRA[@]}")
}

cluster_for() {
  local fabric=$1 nodes=$2 key="$1/$2"
  [ "$CLUSTER_KEY" = "$key" ] && return 0
  cluster_down
  "$CLUSTER" up --state "$CLUSTER_STATE" --prefix "$CLUSTER_PREFIX" --nodes "$nodes" \
    --fabric "$fabric" --dilate "$DILATE" >"$OUT/logs/cluster-$fabric-n$nodes.log" 2>&1 || return 1
  CLUSTER_KEY=$key
}

cluster_down() {
  [ -n "$CLUSTER_KEY" ] || return 0
  "$CLUSTER" down --state "$CLUSTER_STATE" --prefix "$CLUSTER_PREFIX" >/dev/null 2>&1 || true
  CLUSTER_KEY=
}

launch_finish() { [ "$LAUNCHER" = emulate ] && cluster_down; return 0; }

default_mpirun() {
  local flags=""
  [ "$(id -u)" = 0 ] && flags=" --allow-run-as-root"
  echo "mpirun$flags"
}

# run_cell ID ATTEMPT: launches the cell once and records the outcome.
run_cell() {
  local id=$1 attempt=$2 fabric transport nodes rpn model plan
  read -r fabric transport nodes rpn model plan < <(jq -r --arg id "$id" \
    '.cells[] | select(.id == $id) | [.fabric, (.transport | if . == "" then "-" else . end),
      .nodes, .ranks_per_node, .model, .plan] | @tsv' "$(manifest_path)")
  [ "$transport" = - ] && transport=
  local out_file=$OUT/$id.jsonl log=$OUT/logs/$id.log rc=0 started launcher_json
  started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  rm -f "$out_file"
  exe_args "$fabric" "$transport" "$model" "$plan" "$out_file"
  local ranks=$((nodes * rpn)) t0=$SECONDS
  launcher_json=$(jq -nc --arg k "$LAUNCHER" '{kind: $k}')
  manifest_set "$id" "$(jq -nc --arg s "$started" --argjson a "$attempt" '{status: "running", attempts: $a, started_utc: $s}')"
  case $LAUNCHER in
    emulate)
      if cluster_for "$fabric" "$nodes"; then
        # mpirun runs in node 0; the cluster's environment carries the rsh agent and interfaces.
        timeout --kill-after=10 "$TIMEOUT_S" "$CLUSTER" run --state "$CLUSTER_STATE" -- \
          mpirun -np "$ranks" --map-by "ppr:$rpn:node" "$EXE" "${EXE_ARGS[@]}" >"$log" 2>&1 || rc=$?
      else
        rc=1
        cp "$OUT/logs/cluster-$fabric-n$nodes.log" "$log" 2>/dev/null || true
      fi ;;
    hostfile)
      local cell_hosts=$OUT/logs/$id.hosts
      local host
      for host in "${HOSTS[@]:0:$nodes}"; do echo "$host slots=$rpn"; done >"$cell_hosts"
      # shellcheck disable=SC2086  # MPIRUN is a command with flags
      timeout --kill-after=10 "$TIMEOUT_S" ${MPIRUN:-$(default_mpirun)} --hostfile "$cell_hosts" \
        -np "$ranks" --map-by "ppr:$rpn:node" "$EXE" "${EXE_ARGS[@]}" >"$log" 2>&1 || rc=$? ;;
    slurm)
      # One job step per cell; its tasks' output goes to a log named after the job and step.
      local pattern=$OUT/logs/$id.%j.%s.log step_log
      timeout --kill-after=10 "$TIMEOUT_S" srun -N "$nodes" --ntasks-per-node="$rpn" \
        --mpi="$SRUN_MPI" --kill-on-bad-exit=1 --output="$pattern" "$EXE" "${EXE_ARGS[@]}" \
        >"$log" 2>&1 || rc=$?
      step_log=$(ls -t "$OUT/logs/$id.$SLURM_JOB_ID."*.log 2>/dev/null | head -1 || true)
      if [ -n "$step_log" ]; then
        cat "$log" >>"$step_log"
        rm -f "$log"
        log=$step_log
      fi
      local step=${log%.log}
      step=${step##*.}
      [[ $step =~ ^[0-9]+$ ]] || step=null
      launcher_json=$(jq -nc --arg j "$SLURM_JOB_ID" --argjson s "$step" \
        --arg nl "${SLURM_JOB_NODELIST:-}" --arg mpi "$SRUN_MPI" \
        '{kind: "slurm", slurm_job_id: $j, slurm_step_id: $s, nodelist: $nl, srun_mpi: $mpi}') ;;
  esac
  local status=done
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then status=timeout
  elif [ "$rc" != 0 ] || [ ! -s "$out_file" ]; then status=failed; fi
  manifest_set "$id" "$(jq -nc --arg st "$status" --argjson rc "$rc" --argjson d "$((SECONDS - t0))" \
    --arg log "$log" --arg out "$out_file" --argjson l "$launcher_json" \
    '{status: $st, exit_code: $rc, duration_s: $d, log: $log, out: $out, launcher: $l}')"
}
