# Shared by sweeps/emulate/cluster, its helpers and sweeps/sweep: error exits, fabric profiles,
# the state folder. Sourced, never run.
#   usage_error MSG   one line on stderr, exit 2 (bad input; nothing was changed)
#   fabric_fields NAME   prints "node_gbit_s latency_us links" or fails with exit 2

EMULATE_DIR=${EMULATE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
REPO_DIR=$(cd "$EMULATE_DIR/../.." && pwd)
FABRICS_FILE=${FABRICS_FILE:-$REPO_DIR/sweeps/fabrics.tsv}
DEFAULT_STATE=/run/collreplay-emulate
# Every cluster that is up registers its state file here as PREFIX.env (a link to
# STATE/cluster.env), so a program started on one of its nodes finds the cluster's fabric and
# dilation from its own network namespace (bench/app/run/emulated_cluster.hpp), with no flag or
# environment to pass on.
CLUSTERS_DIR=/run/collreplay-clusters
# The per-node rate up to which this host's tbf holds a TCP stream near the shaped rate with a
# small bucket (2 cores, measured in sweeps/README.md: ~93% at 100-250 Mbit/s, ~85-90% at 500,
# <= 65% at 1000); above it the link is still shaped, but runs below the profile.
HOST_SHAPE_MBIT=500
# The bucket: what an idle link lets through at once. It must cover the host's timer wake-ups
# (else the link runs below its rate) and no more, since a dilated time turns whatever passes at
# once into a faster-than-line-rate link: 125 us at the rate, at least two full frames.
SHAPE_BURST_US=125
FRAME_BYTES=1514
# Addresses come only from 198.18.0.0/15, the range reserved for network benchmarking.
NET_RANGE=198.18.0.0/15
NET_PREFIX=198.18.0

usage_error() { echo "$(basename "$0"): $*" >&2; exit 2; }
fail() { echo "$(basename "$0"): $*" >&2; exit 1; }

# "node_gbit_s latency_us links" of a profile; exit 2 naming the known ones when it is unknown.
fabric_fields() {
  local name=$1 row
  [ -r "$FABRICS_FILE" ] || fail "cannot read fabric profiles $FABRICS_FILE"
  row=$(awk -v n="$name" '!/^#/ && $1 == n && $1 != "name" { print $2, $3, $4; exit }' "$FABRICS_FILE")
  if [ -z "$row" ]; then
    usage_error "unknown fabric profile '$name' (known: $(fabric_names | tr '\n' ' ' | sed 's/ $//'); see $FABRICS_FILE)"
  fi
  echo "$row"
}

fabric_names() { awk '!/^#/ && NF && $1 != "name" { print $1 }' "$FABRICS_FILE"; }

# The shaped rate in Mbit/s for a profile at a dilation, or 0 for the unshaped profile.
shaped_rate_mbit() {
  local gbit=$1 dilate=$2
  awk -v g="$gbit" -v d="$dilate" 'BEGIN { if (g <= 0) print 0; else printf "%.3f\n", g * 1000 / d }'
}

# tbf's burst in bytes for a rate in Mbit/s: $2 (default SHAPE_BURST_US) microseconds at the
# rate, at least two frames.
shape_burst_bytes() {
  awk -v r="$1" -v us="${2:-$SHAPE_BURST_US}" -v f="$FRAME_BYTES" \
    'BEGIN { b = r * us / 8; if (b < 2 * f) b = 2 * f; printf "%d\n", b }'
}

# The smallest whole dilation that brings a profile to HOST_SHAPE_MBIT per node (1 if unshaped).
faithful_dilation() {
  awk -v g="$1" -v cap="$HOST_SHAPE_MBIT" \
    'BEGIN { x = g * 1000 / cap; x = (x == int(x)) ? x : int(x) + 1; print (x > 1) ? x : 1 }'
}

# The registered state file of the emulated cluster whose node this process runs in (its network
# namespace, as `ip netns identify` names it); nothing outside every cluster.
cluster_env_here() {
  local here entry prefix nodes i
  here=$(ip netns identify $$ 2>/dev/null || true)
  [ -n "$here" ] || return 0
  for entry in "$CLUSTERS_DIR"/*.env; do
    [ -r "$entry" ] || continue
    prefix=$(sed -n 's/^CL_PREFIX=//p' "$entry")
    nodes=$(sed -n 's/^CL_NODES=//p' "$entry")
    for ((i = 0; i < ${nodes:-0}; i++)); do
      if [ "$here" = "$prefix$i" ]; then
        echo "$entry"
        return 0
      fi
    done
  done
}

is_positive_number() { [[ $1 =~ ^[0-9]+([.][0-9]+)?$ ]] && awk -v x="$1" 'BEGIN { exit !(x > 0) }'; }
