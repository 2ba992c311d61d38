#!/usr/bin/env bash
# run.sh - real NVMe under QEMU: the Linux NVMe driver of a stock Debian
# kernel, driven by every nvbench engine.
#
#   run.sh VM_BUILD_DIR [SOURCE_DIR] [WHY_NOT_BUILT]
#
# VM_BUILD_DIR holds nvb-vm-vmtest and nvb-vm-run_workload (static, built by
# tests/vm/CMakeLists.txt). The steps:
#  1. the kernel: the linux-image-6.1.*-amd64 package that linux-image-amd64
#     depends on, fetched with `apt-get download` (never installed) into a
#     cache outside the source tree ($NVB_VM_CACHE, default
#     ${XDG_CACHE_HOME:-~/.cache}/nvbench-vm), unpacked once: vmlinuz and
#     the modules the rig loads;
#  2. an initramfs: busybox (static), the two programs, the modules, /init
#     (init.sh) and /vm.conf;
#  3. QEMU (q35, 2 CPUs, 1 GiB) with six NVMe namespaces on six controllers:
#     A (512-byte LBAs), B (two namespaces, one with 4096-byte LBAs), C, D,
#     and a two-controller subsystem sharing one namespace (multipath);
#     TCG, or KVM when it boots here (tried once, the verdict cached);
#  4. check.py reads the console and decides.
#
# Environment: NVB_VM_CACHE, NVB_VM_ACCEL (auto|tcg|kvm), NVB_VM_TIMEOUT
# (seconds for the guest, default 200), NVB_VM_KEEP=1 (keep the work dir),
# NVB_VM_COMPARE_RUNTIME (per comparison run, default 2s).
# Exit 0 pass, 1 fail, 77 skipped (with the reason): no qemu-system-x86,
# no static busybox, no cpio, the kernel package cannot be fetched.
set -u

VMB=${1:?usage: run.sh VM_BUILD_DIR [SOURCE_DIR] [WHY_NOT_BUILT]}
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
WHY_NOT_BUILT=${3:-}
HERE=$SRC/tests/vm
T_START=$(date +%s.%N)

skip() { echo "SKIP: $*" >&2; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

[ -z "$WHY_NOT_BUILT" ] || skip "$WHY_NOT_BUILT"
VMTEST=$VMB/nvb-vm-vmtest
RUNW=$VMB/nvb-vm-run_workload
[ -x "$VMTEST" ] && [ -x "$RUNW" ] || skip "the static guest programs are not built ($VMTEST, $RUNW)"
QEMU=$(command -v qemu-system-x86_64) || skip "qemu-system-x86_64 is missing (Debian package qemu-system-x86)"
BUSYBOX=$(command -v busybox) || skip "busybox is missing (Debian package busybox-static)"
if command -v readelf >/dev/null 2>&1; then
    readelf -l "$BUSYBOX" 2>/dev/null | grep -q 'Requesting program interpreter' &&
        skip "$BUSYBOX is dynamically linked: the initramfs needs busybox-static"
fi
command -v cpio >/dev/null 2>&1 || skip "cpio is missing (Debian package cpio)"
PY=/usr/bin/python3
[ -x "$PY" ] || skip "/usr/bin/python3 is needed to read the results"
command -v apt-cache >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1 ||
    skip "apt-get/apt-cache/dpkg-deb are needed to fetch the Debian kernel"

# ------------------------------------------------------------ 1. the kernel
CACHE=${NVB_VM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/nvbench-vm}
mkdir -p "$CACHE" || skip "cannot create the cache directory $CACHE"
PKG=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '$1 == "Depends:" && $2 ~ /^linux-image-6\.1\.[0-9.-]+-amd64$/ { print $2; exit }')
[ -n "$PKG" ] || skip "apt-cache knows no linux-image-6.1.*-amd64 that linux-image-amd64 depends on (apt-get update?)"

# Loaded in this order with insmod (there is no modules.dep to resolve them):
# the NVMe driver and what it needs for protection information, then ext4
# (which mounts ext2, and wants crc32c) for the guard's mounted filesystem.
MODULES="crc64 crct10dif_common crct10dif_generic crct10dif-pclmul crc64_rocksoft_generic crc-t10dif crc64-rocksoft
t10-pi nvme-core nvme crc32c_generic mbcache jbd2 crc16 ext4"
KDIR=$CACHE/$PKG
T_KERNEL=$(date +%s.%N)
(
    flock 9
    have=1
    for m in $MODULES; do [ -f "$KDIR/mods/$m.ko" ] || have=0; done
    [ -f "$KDIR/ready" ] && [ $have = 1 ] && exit 0
    rm -rf "$KDIR.tmp" && mkdir -p "$KDIR.tmp" || exit 1
    deb=$(ls "$CACHE/$PKG"_*.deb 2>/dev/null | head -1)
    if [ -z "$deb" ]; then
        echo "fetching $PKG with apt-get download (once; cached in $CACHE)" >&2
        (cd "$CACHE" && apt-get download -q -o APT::Sandbox::User=root "$PKG" >"$KDIR.tmp/download.log" 2>&1) ||
            { cat "$KDIR.tmp/download.log" >&2; exit 3; }
        deb=$(ls "$CACHE/$PKG"_*.deb 2>/dev/null | head -1)
        [ -n "$deb" ] || exit 3
    fi
    pats=("./boot/vmlinuz-*")
    for m in $MODULES; do pats+=("./lib/modules/*/$m.ko*"); done
    dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$KDIR.tmp" --wildcards "${pats[@]}" || exit 4
    mkdir -p "$KDIR.tmp/mods"
    for m in $MODULES; do
        f=$(find "$KDIR.tmp/lib/modules" -name "$m.ko*" | head -1)
        [ -n "$f" ] || { echo "module $m is not in $PKG" >&2; exit 4; }
        case $f in
        *.ko) mv "$f" "$KDIR.tmp/mods/$m.ko" ;;
        *.ko.xz) xz -dc "$f" >"$KDIR.tmp/mods/$m.ko" || exit 4 ;;
        *.ko.zst) zstd -qdc "$f" >"$KDIR.tmp/mods/$m.ko" || exit 4 ;;
        *) echo "module $f: unknown compression" >&2; exit 4 ;;
        esac
    done
    mv "$KDIR.tmp"/boot/vmlinuz-* "$KDIR.tmp/vmlinuz" && rm -rf "$KDIR.tmp/boot" "$KDIR.tmp/lib" || exit 4
    rm -rf "$KDIR" && mv "$KDIR.tmp" "$KDIR" && touch "$KDIR/ready"
) 9>"$CACHE/lock"
case $? in
0) ;;
3) skip "the kernel package $PKG cannot be downloaded (apt-get download needs Debian's archive)" ;;
*) fail "cannot unpack $PKG into $KDIR" ;;
esac
echo "kernel: $PKG ($(elapsed "$T_KERNEL") s to fetch/unpack; cache $CACHE)"

# ------------------------------------------------------------ 2. the initramfs
WORK=$(mktemp -d "${TMPDIR:-/tmp}/nvb-vm.XXXXXX") || exit 1
QPID=""
# QEMU exits on SIGTERM only once its block layer has drained, which never
# happens while blkdebug holds a request: SIGKILL after 3 s.
stop_qemu() {
    kill "$QPID" 2>/dev/null || return 0
    for _ in $(seq 30); do kill -0 "$QPID" 2>/dev/null || return 0; sleep 0.1; done
    kill -9 "$QPID" 2>/dev/null
}
cleanup() {
    local rc=$?
    [ -n "$QPID" ] && stop_qemu
    if [ "${NVB_VM_KEEP:-0}" = 1 ] || { [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; }; then
        echo "work directory kept: $WORK (console: $WORK/console.log)" >&2
        rm -f "$WORK"/*.img
    else
        rm -rf "$WORK"
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The rig: one line per namespace: name serial nsid size lba-size [nvme-ns
# options]. P is formatted with 8 bytes of metadata per block, all of it
# protection information (type 1, in the last 8 bytes). Namespaces
# of one serial sit on one controller; MP's controller is two, in one
# subsystem (multipath). QEMU 7.2 reports no physical block size (NPWG, NAWUPF)
# to the guest, so Linux says physical = logical for all of them. E and F sit
# behind PCIe root ports: the guest asks the host to remove them mid-run
# (QEMU monitor device_del). G's drive passes through blkdebug, whose
# breakpoints stall a request until released (qemu-io break/resume): a
# device that stops answering, for the watchdog.
RIG="A NVBVM-A 1 64M 512
B1 NVBVM-B 1 64M 4096
B2 NVBVM-B 2 16M 512
C NVBVM-C 1 32M 512
D NVBVM-D 1 32M 512
MP NVBVM-MP 1 32M 512
E NVBVM-E 1 32M 512
F NVBVM-F 1 32M 512
G NVBVM-G 1 32M 512
P NVBVM-P 1 16M 512 ms=8,mset=0,pi=1,pil=0"
STALL="G"
HOTPLUG="E F"
MP_NQN=nqn.2024-01.io.nvbench:vm-multipath
POLL_QUEUES=2

R=$WORK/root
mkdir -p "$R"/{bin,mods,dev,proc,sys,tmp,mnt} || exit 1
cp "$BUSYBOX" "$R/bin/busybox"
for a in $("$BUSYBOX" --list); do [ "$a" = busybox ] || ln -s busybox "$R/bin/$a"; done
cp "$VMTEST" "$R/bin/vmtest" && cp "$RUNW" "$R/bin/run_workload" && cp "$KDIR"/mods/*.ko "$R/mods/" || exit 1
cp "$HERE/init.sh" "$R/init" && chmod 755 "$R/init"
cp "$HERE/pi.fio" "$R/pi.fio" || exit 1
NS_COUNT=$(echo "$RIG" | wc -l)
{
    echo "MODULES=\"$(echo "$MODULES" | tr '\n' ' ')\""
    echo "POLL_QUEUES=$POLL_QUEUES"
    echo "EXPECT_NG=$NS_COUNT"
    echo "EXPECT_NS=$NS_COUNT"
    echo "COMPARE_RUNTIME=${NVB_VM_COMPARE_RUNTIME:-2s}"
    echo "ONLY=${NVB_VM_ONLY:-}"
    echo "$RIG" | awk '{ c = $2; sub(/^NVBVM-/, "", c); if (!seen[c]++) print "SER_" c "=" $2 }'
} >"$R/vm.conf"
(cd "$R" && find . | cpio -o -H newc --quiet >"$WORK/initramfs.cpio") || fail "cannot build the initramfs"

# ------------------------------------------------------------ 3. QEMU
# The guest's console goes to its own file: QEMU's own output (blkdebug
# prints to stdout when it suspends or resumes a request) would otherwise
# land in the middle of a result on the console.
QARGS=(-machine q35 -smp 2 -m 1G -display none -serial "file:$WORK/console.log" -no-reboot -nic none
       -kernel "$KDIR/vmlinuz" -initrd "$WORK/initramfs.cpio"
       -append "console=ttyS0 quiet loglevel=1 panic=-1")
declare -A CTRL_DONE
while read -r name serial nsid size lbs extra; do
    truncate -s "$size" "$WORK/$name.img" || exit 1
    if [[ " $STALL " == *" $name "* ]]; then
        QARGS+=(-drive "if=none,id=d$name,format=raw,file.driver=blkdebug,file.image.filename=$WORK/$name.img,cache=unsafe")
    else
        QARGS+=(-drive "if=none,id=d$name,file=$WORK/$name.img,format=raw,cache=unsafe,discard=unmap")
    fi
    ctrl=c${serial#NVBVM-}
    if [ -z "${CTRL_DONE[$ctrl]:-}" ]; then
        CTRL_DONE[$ctrl]=1
        if [ "$name" = MP ]; then
            QARGS+=(-device "nvme-subsys,id=subsys-mp,nqn=$MP_NQN"
                    -device "nvme,serial=$serial,id=${ctrl},subsys=subsys-mp"
                    -device "nvme,serial=$serial,id=${ctrl}2,subsys=subsys-mp")
        elif [[ " $HOTPLUG " == *" $name "* ]]; then
            QARGS+=(-device "pcie-root-port,id=rp$name,chassis=$((10 + ${#CTRL_DONE[@]}))"
                    -device "nvme,serial=$serial,id=$ctrl,bus=rp$name")
        else
            QARGS+=(-device "nvme,serial=$serial,id=$ctrl")
        fi
    fi
    QARGS+=(-device "nvme-ns,drive=d$name,bus=$ctrl,nsid=$nsid,logical_block_size=$lbs,physical_block_size=$lbs${extra:+,$extra}")
done <<<"$RIG"
{
    echo "{\"mp_nqn\": \"$MP_NQN\", \"poll_queues\": $POLL_QUEUES, \"namespaces\": ["
    echo "$RIG" | awk '{ s = $4; m = substr(s, length(s)); v = substr(s, 1, length(s) - 1);
        b = v * (m == "M" ? 1048576 : m == "G" ? 1073741824 : 1);
        # QEMU keeps the metadata of a namespace in its image after the data: ms bytes per block
        if (match($6, /(^|,)ms=[0-9]+/)) { ms = substr($6, RSTART, RLENGTH); sub(/.*=/, "", ms); b = int(b / ($5 + ms)) * $5 }
        printf "%s{\"name\": \"%s\", \"serial\": \"%s\", \"nsid\": %d, \"size\": %d, \"lbs\": %d}\n",
            (NR > 1 ? "," : ""), $1, $2, $3, b, $5 }'
    echo "]}"
} >"$WORK/rig.json"

QARGS+=(-monitor "unix:$WORK/monitor.sock,server=on,wait=off")

TIMEOUT=${NVB_VM_TIMEOUT:-450}
LOG=$WORK/console.log

# The guest asks for QEMU monitor commands on its console, numbered:
# "@@NVB-MONITOR <n> <command> ;;" (device_del to remove a controller, qemu-io
# to stall a drive's requests and let them go); each is run once, in order,
# through the human monitor, and its answer is printed here.
MON_DONE=0
serve_monitor() {
    local n cmd
    while IFS= read -r line; do
        n=${line%% *}
        cmd=${line#* }
        [ "$n" -gt "$MON_DONE" ] 2>/dev/null || continue
        MON_DONE=$n
        echo "monitor <- $cmd ($(elapsed "$T_BOOT") s after QEMU start)"
        "$PY" - "$WORK/monitor.sock" "$cmd" <<'PYEOF' || echo "monitor: no answer to: $cmd" >&2
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.settimeout(0.5)
s.sendall((sys.argv[2] + "\n").encode())
out, t_end = b"", time.time() + 3.0
while time.time() < t_end and out.count(b"(qemu)") < 2:  # the banner's prompt, then the answer's
    try:
        d = s.recv(65536)
    except OSError:
        continue
    if not d:
        break
    out += d
s.close()
lines = out.decode(errors="replace").replace("\r", "").split("\n")
for l in lines:
    l = l.strip()
    if l and not l.startswith(("QEMU ", "(qemu)")) and sys.argv[2] not in l:
        print("monitor -> " + l)
PYEOF
    done < <(tr -d '\r' <"$LOG" 2>/dev/null | sed -n 's/.*@@NVB-MONITOR \([0-9][0-9]*\) \(.*\) ;;$/\1 \2/p')
}

# boot ACCEL: starts QEMU in the background; QPID, and the console in $LOG.
boot() {
    local accel=$1
    : >"$LOG"
    if [ "$accel" = kvm ]; then
        "$QEMU" -accel kvm -cpu host "${QARGS[@]}" </dev/null >"$WORK/qemu.out" 2>&1 &
    else
        "$QEMU" -accel tcg,thread=multi -cpu max "${QARGS[@]}" </dev/null >"$WORK/qemu.out" 2>&1 &
    fi
    QPID=$!
}

# Wait until the guest prints `marker` or QEMU exits, at most `secs` seconds.
# 0 when the marker came.
wait_for() {
    local marker=$1 secs=$2 i=0
    while [ $i -lt $((secs * 10)) ]; do
        grep -q "$marker" "$LOG" 2>/dev/null && return 0
        kill -0 "$QPID" 2>/dev/null || { grep -q "$marker" "$LOG" 2>/dev/null; return; }
        grep -q '@@NVB-MONITOR' "$LOG" 2>/dev/null && serve_monitor
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

ACCEL=${NVB_VM_ACCEL:-auto}
QVER=$("$QEMU" --version | head -1 | awk '{ print $4 }')
VERDICT=$CACHE/kvm-boots-$(uname -r)-qemu-$QVER
if [ "$ACCEL" = auto ]; then
    ACCEL=tcg
    if [ -r /dev/kvm ] && [ -w /dev/kvm ] && [ "$(cat "$VERDICT" 2>/dev/null)" != no ]; then
        ACCEL=kvm
    fi
fi
T_BOOT=$(date +%s.%N)
boot "$ACCEL"
if [ "$ACCEL" = kvm ] && [ "${NVB_VM_ACCEL:-auto}" = auto ]; then
    # Some nested hypervisors offer /dev/kvm but cannot run a stock kernel:
    # give KVM 20 s to reach /init, else remember that and use TCG.
    if wait_for '@@NVB-BOOTED' 20; then
        echo yes >"$VERDICT"
    else
        echo "KVM did not boot the guest within 20 s: using TCG (remembered in $VERDICT)"
        stop_qemu
        wait "$QPID" 2>/dev/null
        echo no >"$VERDICT"
        ACCEL=tcg
        T_BOOT=$(date +%s.%N)
        boot tcg
    fi
fi
echo "accelerator: $ACCEL; guest timeout ${TIMEOUT}s"
if ! wait_for '@@NVB-EXIT' "$TIMEOUT"; then
    stop_qemu
    wait "$QPID" 2>/dev/null
    QPID=""
    tail -n 40 "$LOG" >&2
    tail -n 10 "$WORK/qemu.out" >&2
    fail "the guest did not finish within ${TIMEOUT}s"
fi
# Requests the guest made just before powering off (QEMU cannot exit while
# blkdebug holds a request: it waits for it).
serve_monitor
for _ in $(seq 100); do kill -0 "$QPID" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$QPID" 2>/dev/null; then
    echo "QEMU did not exit 10 s after the guest powered off: killed" >&2
    stop_qemu
fi
wait "$QPID" 2>/dev/null
QPID=""
T_GUEST=$(elapsed "$T_BOOT")

# ------------------------------------------------------------ 4. the verdict
"$PY" "$HERE/check.py" "$LOG" "$WORK/rig.json" --accel "$ACCEL" --guest-seconds "$T_GUEST"
rc=$?
echo "timing: guest ${T_GUEST}s (QEMU start to power-off, $ACCEL), whole rig $(elapsed "$T_START")s"
exit $rc
