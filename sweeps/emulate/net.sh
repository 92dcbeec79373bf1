# The emulated fabric: one network namespace per node (PREFIX0..), each with eth0 (a veth) whose
# peer pI sits on bridge br0 in the namespace CL_PREFIX-fabric; the root namespace is never touched.
# Every node also gets a persistent UTS namespace ($CL_STATE/uts/NAME) holding its hostname.
# Sourced by `cluster` after common.sh; uses CL_STATE, CL_PREFIX, CL_NODES.

node_name() { echo "$CL_PREFIX$1"; }
node_addr() { echo "$NET_PREFIX.$(($1 + 1))"; }
fabric_ns() { echo "$CL_PREFIX-fabric"; }

net_up() {
  local br i name
  br=$(fabric_ns)
  mkdir -p "$CL_STATE/uts"
  ip netns add "$br"
  ip -n "$br" link set lo up
  ip -n "$br" link add br0 type bridge
  ip -n "$br" link set br0 up
  : >"$CL_STATE/nodes"
  for ((i = 0; i < CL_NODES; i++)); do
    name=$(node_name "$i")
    ip netns add "$name"
    ip -n "$br" link add "p$i" type veth peer name eth0 netns "$name"
    ip -n "$br" link set "p$i" master br0 up
    ip -n "$name" link set lo up
    ip -n "$name" addr add "$(node_addr "$i")/24" dev eth0
    ip -n "$name" link set eth0 up
    touch "$CL_STATE/uts/$name"
    unshare --uts="$CL_STATE/uts/$name" hostname "$name"
    echo "$name $(node_addr "$i")" >>"$CL_STATE/nodes"
  done
}

# tc tbf on both ends of every node's link: eth0 shapes what the node sends, the bridge port pI
# what it receives. Latency (half per direction) only where the kernel has netem.
# The bucket is small (shape_burst_bytes: 125 us at the rate), so no message passes an idle link
# faster than the rate by more than that. TCP's GSO packets (up to 64 KiB) larger than the bucket
# are cut into MTU-sized ones by tbf itself (the kernel's tbf_segment), so segmentation offload
# stays on: turning it off (gso_max_segs 1) costs this host most of its throughput.
net_shape() {
  local rate_mbit=$1 latency_us=$2 burst_bytes=$3 br i
  br=$(fabric_ns)
  [ "$rate_mbit" = 0 ] && [ "$latency_us" = 0 ] && return 0
  for ((i = 0; i < CL_NODES; i++)); do
    shape_device "$(node_name "$i")" eth0 "$rate_mbit" "$latency_us" "$burst_bytes"
    shape_device "$br" "p$i" "$rate_mbit" "$latency_us" "$burst_bytes"
  done
}

shape_device() {
  local ns=$1 dev=$2 rate_mbit=$3 latency_us=$4 burst_bytes=$5 parent=root
  if [ "$latency_us" != 0 ]; then
    ip netns exec "$ns" tc qdisc add dev "$dev" root handle 1: netem delay "$((latency_us / 2))us"
    parent="parent 1:1"
  fi
  if [ "$rate_mbit" != 0 ]; then
    # shellcheck disable=SC2086  # parent is one or two words
    ip netns exec "$ns" tc qdisc add dev "$dev" $parent handle 10: tbf rate "${rate_mbit}mbit" \
      burst "$burst_bytes" latency 200ms
  fi
}

# Whether this kernel has netem, tried on the fabric namespace's loopback (never the host's).
netem_available() {
  local br
  br=$(fabric_ns)
  if ip netns exec "$br" tc qdisc add dev lo root netem delay 1us 2>/dev/null; then
    ip netns exec "$br" tc qdisc del dev lo root
    return 0
  fi
  return 1
}

# Namespaces of ours: CL_PREFIX<digits> and CL_PREFIX-fabric.
our_namespaces() {
  ip netns list 2>/dev/null | awk '{ print $1 }' | grep -E "^${CL_PREFIX}([0-9]+|-fabric)\$" || true
}

net_down() {
  local ns pids name
  for ns in $(our_namespaces); do
    # Processes still inside a namespace (a rank or step left by a killed job) were started there
    # by us; ending them lets the namespace go away for real.
    pids=$(ip netns pids "$ns" 2>/dev/null || true)
    [ -n "$pids" ] && kill -TERM $pids 2>/dev/null || true
  done
  sleep 0.2
  for ns in $(our_namespaces); do
    pids=$(ip netns pids "$ns" 2>/dev/null || true)
    [ -n "$pids" ] && kill -KILL $pids 2>/dev/null || true
    ip netns del "$ns" 2>/dev/null || true
  done
  if [ -d "$CL_STATE/uts" ]; then
    for name in "$CL_STATE"/uts/*; do
      [ -e "$name" ] || continue
      umount "$name" 2>/dev/null || true
      rm -f "$name"
    done
  fi
}
