#!/usr/bin/env bash
# Several hosts on one machine: network namespaces joined by a bridge, for running paratrain's
# MPI backend across "hosts" through Open MPI's TCP transport, with no ssh and no second machine.
#
# Usage (as root; needs iproute2's `ip`, and Open MPI for the command):
#   scripts/multihost-netns.sh run CMD [ARG...]   up, CMD in the first host, down (also when CMD
#                                                 fails or is interrupted); exits with CMD's status
#   scripts/multihost-netns.sh up                 make the hosts, after removing any left over from
#                                                 an earlier run with the same names
#   scripts/multihost-netns.sh exec CMD [ARG...]  run CMD in the first host (where mpirun starts)
#   scripts/multihost-netns.sh down               end every process in the hosts, remove them,
#                                                 their links and DIR; harmless when nothing is up
#
# For paratrain, CMD is a train command with these options (DIR as below):
#   --backend mpi --hostfile DIR/hostfile
#   --mpirun-args "--mca plm_rsh_agent DIR/rsh-agent --mca btl tcp,self"
# e.g., as in the README's "Several hosts":
#   scripts/multihost-netns.sh run ./paratrain train --x data/X.in --y data/y.in --nodes 4 \
#       --allreduce ring --backend mpi --hostfile /run/paratrain-netns/hostfile \
#       --mpirun-args "--mca plm_rsh_agent /run/paratrain-netns/rsh-agent --mca btl tcp,self"
# Why each is needed:
#   plm_rsh_agent  mpirun starts its daemon (orted) on every other host through this agent
#                  instead of ssh: it is called as `rsh-agent HOST COMMAND...` and runs COMMAND
#                  (a shell command line, as ssh would) inside HOST's namespace. The first host's
#                  ranks are started by mpirun itself: it sees that address is its own.
#   btl tcp,self   no shared-memory transport (vader). The namespaces share the machine's host
#                  name and /dev/shm, and vader names its segments after the host name, the job
#                  and the local rank, so local rank 0 of two "hosts" would map the same segment
#                  (seen: a SIGSEGV in mca_btl_vader_poll_handle_frag). Ranks on one host then
#                  talk over TCP too, through that host's own address.
# Nothing else is needed: each host has only `lo` and `eth0`, so Open MPI's TCP transport and
# its out-of-band channel (which leave out loopback) can only use the hosts' own addresses.
#
# The network: hosts NAME0 .. NAME<N-1>, each a namespace with one interface eth0 at
# SUBNET.<i+1>/24, all plugged into a bridge br0 that sits in a namespace of its own (NAME-sw),
# like machines on one switch. Nothing is added to the machine's own namespace, so traffic
# between the hosts stays between them. The hostfile lists each host's address with slots=1;
# paratrain's mpirun oversubscribes, so p ranks go to the hosts in blocks, in order (2 ranks on
# 2 hosts: one each; 4 ranks: 0,1 on the first and 2,3 on the second). mpirun runs in NAME0.
#
# Settings (environment):
#   PARATRAIN_NETNS_HOSTS   number of hosts, 2 to 9 (default 2)
#   PARATRAIN_NETNS_NAME    prefix of the namespaces' names (default ptnet: ptnet0, ptnet1, ptnet-sw)
#   PARATRAIN_NETNS_SUBNET  the first three numbers of the hosts' /24 (default 10.77.0)
#   PARATRAIN_NETNS_DIR     where the hostfile, the agent and its log go (default /run/paratrain-netns)
#   PARATRAIN_NETNS_RATE    each host's link rate, as tc spells it (100mbit, 1gbit, 2500mbit); empty
#                           (default): unshaped, about 8.5 Gbit/s between two hosts here. Shaped by a
#                           token bucket (tc tbf) on both ends of every host's link, so each direction
#                           carries at most RATE, as a full-duplex port on a switch does; this kernel
#                           has no netem, so the latency is the veth's own (tens of microseconds).
#                           DIR/link records it for benchmarks and cost models.
#   PARATRAIN_NETNS_BURST   the token bucket's size in bytes (default: a millisecond at the rate,
#                           125000 at 1gbit, at least 32768): what an idle link lets through at the
#                           veth's own speed before the rate holds
#   PARATRAIN_NETNS_PIN     1 (default): where the machine has a core a host, host i's processes
#                           (mpirun in the first, the daemon and ranks the agent starts) run on core i
#                           only, as on a machine of one core; 0: anywhere
set -euo pipefail

hosts=${PARATRAIN_NETNS_HOSTS:-2}
name=${PARATRAIN_NETNS_NAME:-ptnet}
subnet=${PARATRAIN_NETNS_SUBNET:-10.77.0}
dir=${PARATRAIN_NETNS_DIR:-/run/paratrain-netns}
rate=${PARATRAIN_NETNS_RATE:-}
pin=${PARATRAIN_NETNS_PIN:-1}
burst_bytes=${PARATRAIN_NETNS_BURST:-}
switch="$name-sw"

die() { echo "multihost-netns: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0" >&2; exit 2; }

check() {
  [[ $hosts =~ ^[2-9]$ ]] || die "PARATRAIN_NETNS_HOSTS must be 2 to 9, got '$hosts'"
  [[ $name =~ ^[A-Za-z][A-Za-z0-9_]{0,11}$ ]] || die "PARATRAIN_NETNS_NAME must be a letter and up to 11 letters, digits or _, got '$name'"
  [[ $subnet =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]] || die "PARATRAIN_NETNS_SUBNET must be like 10.77.0, got '$subnet'"
  [[ -z $rate || $rate =~ ^[1-9][0-9]*(kbit|mbit|gbit)$ ]] || die "PARATRAIN_NETNS_RATE must be like 100mbit or 1gbit (a whole number and kbit, mbit or gbit), got '$rate'"
  [[ $pin =~ ^[01]$ ]] || die "PARATRAIN_NETNS_PIN must be 0 or 1, got '$pin'"
  [[ -z $burst_bytes || ( $burst_bytes =~ ^[1-9][0-9]{0,9}$ && $burst_bytes -ge 2048 ) ]] \
    || die "PARATRAIN_NETNS_BURST must be a whole number of bytes, at least 2048, got '$burst_bytes'"
  [ "$(id -u)" -eq 0 ] || die "making network namespaces needs root"
  command -v ip >/dev/null || die "no ip command; install iproute2"
  [ -z "$rate" ] || command -v tc >/dev/null || die "PARATRAIN_NETNS_RATE needs the tc command; install iproute2"
}

# The rate in bits a second.
rate_bits() {
  local n=${rate%?bit} unit=${rate: -4}
  case $unit in
    kbit) echo $((n * 1000)) ;;
    mbit) echo $((n * 1000000)) ;;
    gbit) echo $((n * 1000000000)) ;;
  esac
}

# Shapes one interface: a token bucket of a millisecond at the rate, at least 32 KiB. What the
# bucket holds goes at the veth's own speed after the link was idle, which a switch port does
# not do: a bucket of a 4 ms timer tick (500 KB at 1 Gbit/s, the size until 2026-12) refilled
# while a training step computed and carried up to half of its exchange at once (bench
# network's MLP exchanged in 5.0 ms a step, 9.5 ms with a smaller bucket). tbf's timers are
# high-resolution, so the rate holds with far less than a tick, but not with too little when
# both directions carry data (the ACKs wait behind it): at 1gbit, TCP streams both ways at once
# carried 0.95 Gbit/s each with 125 KB, 131 KB, 256 KB and 500 KB, 0.67-0.70 with 62.5 KB.
burst_of() {
  local burst
  burst=$(( $(rate_bits) / 8 / 1000 ))
  [ "$burst" -ge 32768 ] || burst=32768
  echo "${burst_bytes:-$burst}"
}
shape() {
  local ns=$1 dev=$2
  ip netns exec "$ns" tc qdisc replace dev "$dev" root tbf rate "$rate" burst "$(burst_of)" latency 50ms
}

# The core host i runs on, or nothing when hosts are not pinned (PARATRAIN_NETNS_PIN=0, or fewer
# cores than hosts).
core_of() {
  if [ "$pin" = 1 ] && [ "$(nproc)" -ge "$hosts" ] && command -v taskset >/dev/null; then
    echo "$1"
  fi
}

# Namespaces of this name, whatever number of hosts made them.
ours() { ip netns list | awk '{print $1}' | grep -E "^$name([0-9]|-sw)\$" || true; }

down() {
  local ns pids
  for ns in $(ours); do
    # Processes still in a host (a rank, an orted) would keep its namespace and links alive.
    pids=$(ip netns pids "$ns" 2>/dev/null || true)
    if [ -n "$pids" ]; then
      kill -TERM $pids 2>/dev/null || true
      for _ in $(seq 25); do   # 5 s: paratrain, told to stop, ends its MPI job itself within 3 s
        pids=$(ip netns pids "$ns" 2>/dev/null || true)
        [ -z "$pids" ] && break
        sleep 0.2
      done
      [ -n "$pids" ] && kill -KILL $pids 2>/dev/null || true
    fi
    ip netns del "$ns"   # its interfaces go with it, and so the other end of each veth pair
  done
  rm -rf "$dir"
}

up() {
  down
  mkdir -p "$dir"
  ip netns add "$switch"
  ip -n "$switch" link add br0 type bridge
  ip -n "$switch" link set br0 up
  local i ns addr
  : > "$dir/hostfile"
  local cases=""
  for ((i = 0; i < hosts; i++)); do
    ns="$name$i"
    addr="$subnet.$((i + 1))"
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    ip -n "$switch" link add "h$i" type veth peer name eth0 netns "$ns"
    ip -n "$switch" link set "h$i" master br0 up
    ip -n "$ns" addr add "$addr/24" dev eth0
    ip -n "$ns" link set eth0 up
    if [ -n "$rate" ]; then
      shape "$ns" eth0                # what the host sends
      shape "$switch" "h$i"           # what the switch sends to it
    fi
    echo "$addr slots=1" >> "$dir/hostfile"
    cases+="  $addr) ns=$ns core=$(core_of "$i") ;;"$'\n'
  done
  { echo "rate=${rate:-unshaped}"; echo "rate_bits=$([ -n "$rate" ] && rate_bits || echo 0)";
    echo "burst_bytes=$([ -n "$rate" ] && burst_of || echo 0)"; echo "hosts=$hosts"; echo "pinned=$([ -n "$(core_of 0)" ] && echo 1 || echo 0)"; } > "$dir/link"
  cat > "$dir/rsh-agent" <<EOF
#!/bin/sh
# Made by multihost-netns.sh: plays ssh for mpirun. Called as: rsh-agent HOST COMMAND...
host=\$1
shift
case \$host in
$cases  *) echo "rsh-agent: \$host is none of the namespace hosts" >&2; exit 255 ;;
esac
echo "\$host \$ns: \$*" >> "$dir/agent.log"
if [ -n "\$core" ]; then
  exec ip netns exec "\$ns" taskset -c "\$core" sh -c "\$*"
fi
exec ip netns exec "\$ns" sh -c "\$*"
EOF
  chmod 755 "$dir/rsh-agent"
  echo "multihost-netns: hosts $(tr '\n' ' ' < "$dir/hostfile")in namespaces ${name}0..$name$((hosts - 1)), links ${rate:-unshaped}$([ -n "$(core_of 0)" ] && echo ", a core each"); files in $dir" >&2
}

run_in_first() {
  [ -f "$dir/hostfile" ] && ip netns list | grep -q "^${name}0\\b" || die "no hosts are up (scripts/multihost-netns.sh up)"
  local core
  core=$(core_of 0)
  if [ -n "$core" ]; then
    ip netns exec "${name}0" taskset -c "$core" "$@"
  else
    ip netns exec "${name}0" "$@"
  fi
}

[ $# -ge 1 ] || usage
command=$1
shift
check
case $command in
  up) up ;;
  down) down ;;
  exec)
    [ $# -ge 1 ] || usage
    run_in_first "$@" ;;
  run)
    [ $# -ge 1 ] || usage
    trap down EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    up
    # In the background, so that a signal to this script is handled at once, not after CMD.
    run_in_first "$@" &
    status=0
    wait $! || status=$?
    exit "$status" ;;
  *) usage ;;
esac
