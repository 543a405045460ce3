#!/bin/sh
# Two hosts on this machine, to run vaced's MPICH across hosts without a
# cluster: two network namespaces joined by a veth pair (10.212.0.1 and
# 10.212.0.2, nothing else reachable from them). COMMAND runs in the first
# one, with VACED_REMOTE_EXEC set to a remote shell that runs a command in
# the namespace of the host it names, and HYDRA_IFACE set to the veth, so:
#
#   mpich-patch/netns-hosts.sh mpirun --mpich --hosts 10.212.0.1:8,10.212.0.2:8 -n 16 PROG ARGS
#
# runs 8 ranks in each namespace, each host's ranks on a segment of its own
# joined by vaced's bridges over the veth, and MPICH's ranks talking TCP
# across it. Needs root (ip netns). Everything made is removed at the end.
set -eu
if [ $# -eq 0 ]; then
    echo "usage: $0 COMMAND [ARGS...]  (as root)" >&2
    exit 2
fi
ip=$(command -v ip || true)
if [ -z "$ip" ]; then
    echo "$0: needs ip (iproute2)" >&2
    exit 1
fi
tag=$$
A=vaced-$tag-a
B=vaced-$tag-b
DEV=vch$tag
remote=$(mktemp "${TMPDIR:-/tmp}/vaced-netns-remote.XXXXXX")
cleanup() {
    for ns in "$A" "$B"; do
        "$ip" netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
        "$ip" netns del "$ns" 2>/dev/null || true
    done
    rm -f "$remote"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
"$ip" netns add "$A"
"$ip" netns add "$B"
"$ip" link add "$DEV" netns "$A" type veth peer name "$DEV" netns "$B"
"$ip" -n "$A" addr add 10.212.0.1/24 dev "$DEV"
"$ip" -n "$B" addr add 10.212.0.2/24 dev "$DEV"
for ns in "$A" "$B"; do
    "$ip" -n "$ns" link set lo up
    "$ip" -n "$ns" link set "$DEV" up
done
cat >"$remote" <<EOF
#!/bin/sh
# written by $0: run COMMAND in HOST's namespace, as ssh [options] HOST COMMAND would
while [ \$# -gt 0 ]; do case "\$1" in -*) shift ;; *) break ;; esac; done
case "\$1" in
10.212.0.1) ns=$A ;;
10.212.0.2) ns=$B ;;
*) echo "\$0: \$1 is not one of the two hosts (10.212.0.1, 10.212.0.2)" >&2; exit 255 ;;
esac
shift
exec "$ip" netns exec "\$ns" /bin/sh -c "\$*"
EOF
chmod +x "$remote"
status=0
HYDRA_IFACE=$DEV VACED_REMOTE_EXEC=$remote "$ip" netns exec "$A" "$@" || status=$?
exit "$status"
