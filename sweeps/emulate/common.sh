# Shared by sweeps/emulate/cluster, its helpers and sweeps/sweep: error exits, fabric profiles,
# the state folder. Sourced, never run.
#   usage_error MSG   one line on stderr, exit 2 (bad input; nothing was changed)
#   fabric_fields NAME   prints "node_gbit_s latency_us links" or fails with exit 2

EMULATE_DIR=${EMULATE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
REPO_DIR=$(cd "$EMULATE_DIR/../.." && pwd)
FABRICS_FILE=${FABRICS_FILE:-$REPO_DIR/sweeps/fabrics.tsv}
DEFAULT_STATE=/run/collreplay-emulate
# The fastest rate tbf is trusted to shape on a 2-core host; above it the host is the bottleneck.
SHAPE_CAP_MBIT=4000
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

# The shaped rate in Mbit/s for a profile at a dilation, or 0 when the link stays unshaped.
shaped_rate_mbit() {
  local gbit=$1 dilate=$2
  awk -v g="$gbit" -v d="$dilate" -v cap="$SHAPE_CAP_MBIT" \
    'BEGIN { r = g * 1000 / d; if (g <= 0 || r > cap) print 0; else printf "%.3f\n", r }'
}

is_positive_number() { [[ $1 =~ ^[0-9]+([.][0-9]+)?$ ]] && awk -v x="$1" 'BEGIN { exit !(x > 0) }'; }
