#!/usr/bin/env bash
# Two "hosts" as network namespaces joined by a bridge, each with its own
# host name (a UTS namespace), and Open MPI between them over TCP: mpirun
# reaches them through a small launcher standing in for ssh (ip netns exec),
# so the ranks' messages cross a real network stack. examples/c/mpi_run then
# runs 2 ranks per host, each on {host}/r{rank}, and the merged result must
# name both hosts, add up exactly, and line its time series up by wall clock.
# Needs root, ip(8) with netns and a bridge, unshare(1); exit 77 otherwise.
# Everything it creates (namespaces, links, files) is removed at the end.
#
#   bash test_mpi_netns.sh BUILD_DIR SOURCE_DIR     (exit 77: skipped)
set -euo pipefail

BUILD=$(cd "${1:?usage: $0 BUILD_DIR SOURCE_DIR}" && pwd)
EXE=$BUILD/examples/c/mpi_run
PY=/usr/bin/python3

skip() { echo "SKIP: $*" >&2; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || skip "needs root (network namespaces)"
command -v mpirun > /dev/null 2>&1 || skip "mpirun not found (apt-get install openmpi-bin)"
[ -x "$EXE" ] || skip "$EXE not built (no MPI C library found by CMake)"
command -v ip > /dev/null 2>&1 || skip "ip(8) not found (apt-get install iproute2)"
command -v unshare > /dev/null 2>&1 || skip "unshare(1) not found"
[ -x "$PY" ] || skip "$PY not found"

# Names and a subnet of our own, so two runs at once do not collide.
id=$(( $$ % 200 + 20 ))
BR=nvbbr$id
NS=(nvb${id}a nvb${id}b)
NET=10.213.$id
mkdir -p "$BUILD/tests/tmp"
TMP=$(mktemp -d "$BUILD/tests/tmp/mpi_netns.XXXXXX")
cleanup() {
    for ns in "${NS[@]}"; do ip netns del "$ns" 2> /dev/null || true; ip link del "v$ns" 2> /dev/null || true; done
    ip link del "$BR" 2> /dev/null || true
    rm -rf "$TMP"
}
trap cleanup EXIT

ip netns add nvbprobe$id 2> /dev/null || skip "cannot create network namespaces here"
ip netns del nvbprobe$id
ip link add "$BR" type bridge 2> /dev/null || skip "cannot create a bridge here"
ip addr add "$NET.1/24" dev "$BR"
ip link set "$BR" up
i=2
for ns in "${NS[@]}"; do
    ip netns add "$ns"
    ip link add "v$ns" type veth peer name "e$ns"
    ip link set "e$ns" netns "$ns"
    ip link set "v$ns" master "$BR"
    ip link set "v$ns" up
    ip netns exec "$ns" ip link set lo up
    ip netns exec "$ns" ip addr add "$NET.$i/24" dev "e$ns"
    ip netns exec "$ns" ip link set "e$ns" up
    i=$((i + 1))
done

# Open MPI starts its daemon on a "remote" host with "AGENT HOST COMMAND...":
# run the command in that host's namespaces, under its own host name.
cat > "$TMP/agent" << EOF
#!/bin/sh
host=\$1; shift
case "\$host" in
  $NET.2) ns=${NS[0]} ;;
  $NET.3) ns=${NS[1]} ;;
  *) echo "agent: unknown host \$host" >&2; exit 255 ;;
esac
exec ip netns exec "\$ns" unshare --uts sh -c "hostname \$ns; \$*"
EOF
chmod +x "$TMP/agent"
for h in "${NS[@]}"; do for r in 0 1 2 3; do mkdir -p "$TMP/$h/r$r"; done; done

if [ -n "${NVB_SANITIZER:-}" ]; then
    # as in test_mpi.sh: Open MPI's own leaks are not ours to report
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi
MPI=(mpirun --allow-run-as-root --mca plm_rsh_agent "$TMP/agent" --mca plm_rsh_no_tree_spawn 1
     --mca btl tcp,self --mca btl_tcp_if_include "$NET.0/24" --mca oob_tcp_if_include "$NET.0/24"
     --host "$NET.2:2,$NET.3:2" -n 4)
echo "two hosts (${NS[*]}) over TCP on $NET.0/24"
if ! timeout 90 "${MPI[@]}" "$EXE" --json "$TMP/m.json" --parts "$TMP/p.json" engine=psync rw=randrw bs=4k \
        size=4M direct=0 ios=4000 align_interval=1 interval=50ms "$TMP/{host}/r{rank}" > "$TMP/out" 2> "$TMP/err"; then
    # Some container runtimes allow namespaces but not the traffic: say so.
    grep -qi "unable to reach\|connect.*refused\|No route" "$TMP/err" && skip "MPI over veth does not work here: $(head -2 "$TMP/err")"
    fail "mpirun across the namespaces failed: $(tail -5 "$TMP/err")"
fi
cat "$TMP/out"
"$PY" - "$TMP/m.json" "$TMP/p.json" "${NS[@]}" << 'EOF' || fail "the merged result across hosts is not right"
import json, sys
m, parts = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))["results"]
a, b = sys.argv[3], sys.argv[4]
assert [h["host"] for h in m["hosts"]] == [a, a, b, b], [h["host"] for h in m["hosts"]]
assert [p["host"] for p in parts] == [a, a, b, b]
assert m["total"]["ios"] == 16000 == sum(p["total"]["ios"] for p in parts)
for d in ("read", "write"):
    s = {}
    for p in parts:
        for i, n in p[d]["lat_hist"]["buckets"]:
            s[i] = s.get(i, 0) + n
    assert {i: n for i, n in m[d]["lat_hist"]["buckets"]} == s
assert [t["host"] for t in m["per_target"]] == [a, a, b, b]
assert [t["path"].split("/")[-2:] for t in m["per_target"]] == [[a, "r0"], [a, "r1"], [b, "r2"], [b, "r3"]]
assert sum(x["read"]["ios"] + x["write"]["ios"] for x in m["timeseries"]) == 16000
print("ok: 4 ranks on 2 hosts merged exactly; targets, hosts and time series agree")
EOF
