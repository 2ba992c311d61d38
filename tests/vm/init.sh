#!/bin/sh
# /init of the QEMU rig's initramfs (built by tests/vm/run.sh; busybox sh).
#
# Loads the stock kernel's NVMe driver, waits for the namespaces the rig
# configured, runs the tests and prints every result between markers on the
# console (the first serial port), which the host parses (check.py):
#
#   @@NVB-BEGIN <name>           a block: JSON, or text
#   @@NVB-END <name> rc=<n>      its end, with the exit status
#   @@NVB-ERR <name> <text>      a program's stderr, on one line
#   @@NVB-EXIT <n>               the end of the run
#
# /vm.conf (written by run.sh) names the modules, the poll queues and the
# controllers by serial. Nothing here decides pass or fail: the host does.
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /tmp /mnt
mount -t tmpfs tmpfs /tmp
. /vm.conf

T0=$(cut -d' ' -f1 /proc/uptime)
echo "@@NVB-BOOTED uptime=$T0"

finish() {
    echo "@@NVB-EXIT $1 uptime=$(cut -d' ' -f1 /proc/uptime)"
    sync
    poweroff -f
    sleep 10
}

for m in $MODULES; do
    if [ "$m" = nvme ]; then
        # busybox insmod ignores the kernel command line: parameters go here
        insmod /mods/$m.ko poll_queues=$POLL_QUEUES || { echo "@@NVB-ERR insmod cannot load $m"; finish 1; }
    else
        insmod /mods/$m.ko || { echo "@@NVB-ERR insmod cannot load $m"; finish 1; }
    fi
done

# The namespace scan is asynchronous: wait for every node the rig configured.
i=0
while :; do
    ng=$(ls /dev | grep -c '^ng[0-9]*n[0-9]*$')
    nb=$(ls /sys/block | grep -c '^nvme[0-9]*n[0-9]*$')
    [ "$ng" -ge "$EXPECT_NG" ] && [ "$nb" -ge "$EXPECT_NS" ] && break
    i=$((i + 1))
    if [ $i -gt 300 ]; then
        echo "@@NVB-ERR wait only $ng generic nodes and $nb namespaces after 30 s (want $EXPECT_NG, $EXPECT_NS)"
        ls -l /dev /sys/block
        finish 1
    fi
    usleep 100000
done
echo "@@NVB-READY uptime=$(cut -d' ' -f1 /proc/uptime)"

# run NAME PROGRAM ARGS...: the program's stdout as a block, its stderr on one line.
run() {
    name=$1
    shift
    echo "@@NVB-BEGIN $name"
    "$@" 2>/tmp/err
    rc=$?
    echo
    echo "@@NVB-END $name rc=$rc"
    [ -s /tmp/err ] && echo "@@NVB-ERR $name $(tr '\n' ' ' </tmp/err)"
    return 0
}
W=/bin/run_workload

# Ask the host to run a QEMU monitor command (run.sh serves each once).
MSEQ=0
monitor() {
    MSEQ=$((MSEQ + 1))
    echo "@@NVB-MONITOR $MSEQ $* ;;"
}


# Text blocks: name, then the lines.
block() {
    name=$1
    shift
    echo "@@NVB-BEGIN $name"
    "$@"
    echo "@@NVB-END $name rc=$?"
}

# Interrupts of one controller's queues, all CPUs (a polled completion
# raises none).
irqs() {
    awk -v c="$1" -v n="$NCPU" '$NF ~ "^"c"q[0-9]+$" { for (i = 2; i <= n + 1; i++) s += $i } END { print s + 0 }' \
        /proc/interrupts
}
NCPU=$(grep -c '^processor' /proc/cpuinfo)

# /sys/block/NAME/stat: reads completed, sectors read, writes completed, sectors written
kstat() { awk '{ print $1, $3, $5, $7 }' /sys/block/$1/stat; }

ns() { /bin/vmtest find "$1" "$2" $3; }

# ------------------------------------------------------------ facts
block kernel uname -r
block io_poll sh -c 'for f in /sys/block/nvme*/queue/io_poll; do echo "$f $(cat $f)"; done'
block interrupts_layout sh -c "grep nvme /proc/interrupts | awk '{ print \$NF }'"
run devices /bin/vmtest devices

A=$(ns "$SER_A" 1); AG=$(ns "$SER_A" 1 generic)
B1=$(ns "$SER_B" 1); B1G=$(ns "$SER_B" 1 generic)
B2=$(ns "$SER_B" 2)
C=$(ns "$SER_C" 1); CG=$(ns "$SER_C" 1 generic)
D=$(ns "$SER_D" 1); DG=$(ns "$SER_D" 1 generic)
MP=$(ns "$SER_MP" 1); MPG=$(ns "$SER_MP" 1 generic)
G=$(ns "$SER_G" 1); GG=$(ns "$SER_G" 1 generic)
echo "@@NVB-NAMES A=$A AG=$AG B1=$B1 B1G=$B1G B2=$B2 C=$C CG=$CG D=$D DG=$DG MP=$MP MPG=$MPG"
for v in "$A" "$AG" "$B1" "$B1G" "$B2" "$C" "$CG" "$D" "$DG" "$MP" "$MPG"; do
    [ -n "$v" ] || { echo "@@NVB-ERR names a configured namespace was not found by serial"; finish 1; }
done
ANAME=${A#/dev/}
ACTRL=$(basename "$(readlink /sys/block/$ANAME/device)")

# ------------------------------------------------------------ what the device did
# The health log around a run of known writes (docs/device.md): QEMU's
# controller counts every write command and the 512-byte units written,
# so the deltas can be checked against what was issued (check.py).
run devlog.A $W engine=psync rw=write bs=128k qd=1 ios=80 allow_destructive=1 "$A"

# ------------------------------------------------------------ protection information
# P: 8 bytes of metadata per block, PI type 1 (docs/engines.md). nvbench
# generates the PI of writes (pi_act=0) and the controller checks all three
# tags; reads check them again, with the PI returned or stripped (pi_act=1);
# a read expecting another application tag fails every command with the
# controller's status; formats and engines that cannot are refused.
pi_tests() {
P=$(ns "$SER_P" 1); PG=$(ns "$SER_P" 1 generic)
if [ -z "$PG" ]; then
    echo "@@NVB-ERR pi namespace P not found"
    return
fi
PK="bs=4k size=1m io_limit=1m pi_chk=GUARD,REFTAG,APPTAG"
run pi.write $W engine=nvme rw=write $PK pi_act=0 md_per_io_size=64 allow_destructive=1 "$PG"
run pi.read $W engine=nvme rw=read $PK pi_act=0 md_per_io_size=64 qd=4 "$PG"
run pi.read.pract $W engine=nvme rw=randread $PK pi_act=1 qd=4 "$PG"
run pi.badtag $W engine=nvme rw=read bs=4k size=64k io_limit=64k pi_act=1 pi_chk=APPTAG apptag=0x4321 \
    continue_on_error=1 "$PG"
# The same keys from a fio job file (/pi.fio, tests/vm/pi.fio: fio's names),
# mapped and run as `nvbench run --fio` does: write, read, read with PRACT.
export NVB_PI_NODE="$PG"
run fiojob.pi /bin/vmtest fio /pi.fio allow_destructive=1
run pi.refused.nokeys $W engine=nvme rw=randread bs=4k ios=10 "$PG"
run pi.refused.small $W engine=nvme rw=randread bs=4k ios=10 pi_chk=GUARD md_per_io_size=32 "$PG"
run pi.refused.nometa $W engine=nvme rw=randread bs=4k ios=10 pi_act=1 "$AG"
run pi.refused.engine $W engine=io_uring rw=randread bs=4k ios=10 pi_act=1 "$P"
# Write Zeroes (write_zeroes=1): B2's first MiB written with random data,
# then zeroed by 16 commands; the bytes that are not zero, before and after.
B2G=$(ns "$SER_B" 2 generic)
nonzero() { dd if="$B2" bs=1M count=1 2>/dev/null | tr -d '\000' | wc -c; }
run zeroes.fill $W engine=nvme rw=write bs=64k size=1m io_limit=1m allow_destructive=1 "$B2G"
block zeroes.before nonzero
run zeroes.nvme $W engine=nvme rw=trim write_zeroes=1 bs=64k size=1m io_limit=1m allow_destructive=1 "$B2G"
block zeroes.after nonzero
}
pi_tests
if [ "$ONLY" = pi ]; then
    finish 0
fi

# ------------------------------------------------------------ a device that stops answering
# G's drive is behind blkdebug on the host: a breakpoint set during a run
# suspends the next read QEMU's controller issues, and the guest's driver
# waits for it (its own timeout is 30 s). The other slots go on; the
# watchdog (io_timeout) must find the stalled read by its age, stop the
# run long before its runtime with -ETIMEDOUT and a result that parses,
# and abandon that read. Set before the run, the breakpoint stalls the
# nvme engine's setup read, which io_timeout bounds too.
# The program's result is on disk before its exit, which waits for the
# kernel to finish the read: the guest then asks the host to release it.
stall() {
    name=$1 when=$2
    shift 2
    if [ "$when" = before ]; then
        monitor qemu-io dG \"break read_aio stall\"
        sleep 1
    fi
    "$@" >/tmp/st.json 2>/tmp/err &
    pid=$!
    t0=$(cut -d' ' -f1 /proc/uptime)
    if [ "$when" = during ]; then
        sleep 1
        monitor qemu-io dG \"break read_aio stall\"
    fi
    i=0
    # the whole result is written (exit flushes it) before the process
    # waits in the kernel for the stalled read
    while [ "$(tr -d '\n' </tmp/st.json 2>/dev/null | tail -c 1)" != "}" ] && kill -0 $pid 2>/dev/null && [ $i -lt 150 ]; do
        usleep 100000
        i=$((i + 1))
    done
    t1=$(cut -d' ' -f1 /proc/uptime)
    if [ "$(tr -d '\n' </tmp/st.json 2>/dev/null | tail -c 1)" != "}" ]; then
        # no result: where is it stuck?
        for t in /proc/$pid/task/*; do
            echo "@@NVB-ERR $name task $t $(awk '/^State:/ { print $2 }' $t/status) wchan=$(cat $t/wchan) $(tr '\n' ' ' <$t/stack)"
        done
    fi
    usleep 300000
    state=$(awk '/^State:/ { print $2 }' /proc/$pid/status 2>/dev/null)
    monitor qemu-io dG \"resume stall\"
    wait $pid
    rc=$?
    echo "@@NVB-BEGIN $name"
    cat /tmp/st.json
    echo
    echo "@@NVB-END $name rc=$rc"
    [ -s /tmp/err ] && echo "@@NVB-ERR $name $(tr '\n' ' ' </tmp/err)"
    echo "@@NVB-STALL $name start=$t0 result=$t1 exiting_state=${state:-gone}"
}
stall_tests() {
if [ -n "$G" ] && [ -n "$GG" ]; then
    for e in io_uring libaio; do
        stall "stall.$e" during $W engine=$e rw=randread bs=4k qd=4 runtime=10s io_timeout=2s "$G"
    done
    stall stall.nvme during $W engine=nvme rw=randread bs=4k qd=4 runtime=10s io_timeout=2s "$GG"
    # the nvme engine's one read per target at setup, before the run
    stall stall.nvme_setup before $W engine=nvme rw=randread bs=4k qd=4 runtime=3s io_timeout=2s "$GG"
else
    echo "@@NVB-ERR stall namespace G not found"
fi
}
# NVB_VM_ONLY=stall (run.sh): only these, to work on them
if [ "$ONLY" = stall ]; then
    stall_tests
    finish 0
fi

# ------------------------------------------------------------ engines on namespaces
# The behavioural tests of every engine (512-byte and 4096-byte LBAs).
run engines.A /bin/vmtest engines "$A"
run engines.B1 /bin/vmtest engines "$B1"

# ------------------------------------------------------------ verify: write with one engine, read with another
# Each pair on its own region of namespace D; the nvme engine is named by its
# generic node and by its block device in turn, and the multipath head is
# written through passthrough and read through the block layer.
VK="bs=16k qd=8 size=4M io_limit=4M verify=1 allow_destructive=1"
i=0
for pair in psync:libaio libaio:io_uring io_uring:nvme nvme:psync nvme:nvme; do
    wr=${pair%:*}; rd=${pair#*:}
    off=$((i * 4))M
    tgt_w=$D; [ "$wr" = nvme ] && [ $((i % 2)) = 1 ] && tgt_w=$DG
    tgt_r=$D; [ "$rd" = nvme ] && [ $((i % 2)) = 0 ] && tgt_r=$DG
    run "verify.$i.write.$wr" $W engine=$wr rw=write offset=$off seed=$((100 + i)) $VK "$tgt_w"
    run "verify.$i.read.$rd" $W engine=$rd rw=read offset=$off seed=$((100 + i)) $VK "$tgt_r"
    i=$((i + 1))
done
run "verify.mp.write.nvme" $W engine=nvme rw=write seed=7 $VK "$MPG"
run "verify.mp.read.io_uring" $W engine=io_uring rw=read seed=7 $VK "$MP"
run "verify.b2.write.nvme" $W engine=nvme rw=write seed=8 bs=4k size=1M io_limit=1M allow_destructive=1 verify=1 "$B2"
run "verify.b2.read.libaio" $W engine=libaio rw=read seed=8 bs=4k size=1M io_limit=1M verify=1 "$B2"

# ------------------------------------------------------------ IOPOLL with poll queues
# Interrupt counts of A's controller around each run: polled completions
# raise none, interrupt-driven ones do.
PK="rw=randread bs=4k qd=8 ios=3000"
for c in io_uring:0 io_uring:1 nvme:0 nvme:1; do
    e=${c%:*}; p=${c#*:}
    i0=$(irqs "$ACTRL")
    run "iopoll.$e.$p" $W engine=$e $e.iopoll=$p $PK "$A"
    i1=$(irqs "$ACTRL")
    echo "@@NVB-IRQ iopoll.$e.$p $((i1 - i0))"
done
# cpus=local and sqpoll_cpu=local on the guest's one node (its NVMe
# controller has no NUMA node of its own), and doctor's facts and checks
run "local.io_uring" $W engine=io_uring io_uring.sqpoll=1 io_uring.sqpoll_cpu=local cpus=local $PK "$A"
run "environment.A" /bin/vmtest environment "$A"

# ------------------------------------------------------------ kernel counters
# The block layer counts io_uring's requests, and not passthrough commands
# (Linux 6.1 accounts no passthrough I/O).
for e in io_uring nvme; do
    s0=$(kstat "$ANAME")
    run "kstat.$e" $W engine=$e rw=randread bs=4k qd=4 ios=1000 "$A"
    s1=$(kstat "$ANAME")
    echo "@@NVB-KSTAT kstat.$e $s0 $s1"
done

# ------------------------------------------------------------ JBOD: four controllers
JK="rw=randrw rwmix=70 bs=4k qd=16 jobs=2 runtime=2s allow_destructive=1"
run jbod.io_uring $W engine=io_uring $JK "$A" "$B1" "$C" "$D"
run jbod.nvme $W engine=nvme $JK "$AG" "$B1" "$CG" "$D"

# ------------------------------------------------------------ the block path beside passthrough
# The seed table's cells on one namespace: io_uring (the block layer) and
# nvme (passthrough), the Linux analogue of the published non-native and
# native columns.
for cell in rand4k:randread:4k:1 rand4k:randread:4k:32 rand4k:randwrite:4k:32 seq64k:read:64k:32; do
    set -- $(echo "$cell" | tr ':' ' ')
    for e in io_uring nvme; do
        run "compare.$1.$2.qd$4.$e" $W engine=$e rw=$2 bs=$3 qd=$4 runtime=$COMPARE_RUNTIME allow_destructive=1 "$A"
    done
done

# ------------------------------------------------------------ the guard
# A filesystem on namespace C, mounted: every write is refused (-EBUSY),
# through the block device and the generic node alike, even with
# allow_destructive=1; reads go on. Unmounted: the signature is named
# (-EPERM) until allow_destructive=1.
mke2fs -q -L nvbvm "$C" >/dev/null 2>&1 || echo "@@NVB-ERR guard mke2fs failed"
mount -t ext2 "$C" /mnt || echo "@@NVB-ERR guard mount failed"
block guard.mounts grep "$C" /proc/self/mountinfo
run guard.mounted.psync $W engine=psync rw=randwrite ios=10 allow_destructive=1 "$C"
run guard.mounted.nvme $W engine=nvme rw=randwrite ios=10 allow_destructive=1 "$CG"
run guard.mounted.nvme.trim $W engine=nvme rw=trim ios=10 allow_destructive=1 "$CG"
run guard.mounted.psync.trim $W engine=psync rw=randtrim ios=10 allow_destructive=1 "$C"
run guard.mounted.read $W engine=io_uring rw=randread ios=100 "$C"
umount /mnt
run guard.unmounted $W engine=io_uring rw=randwrite ios=10 "$C"
run guard.unmounted.nvme $W engine=nvme rw=randwrite ios=10 "$CG"
run guard.unmounted.nvme.trim $W engine=nvme rw=trim ios=10 "$CG"
run guard.allowed $W engine=nvme rw=randwrite ios=10 allow_destructive=1 "$CG"
# The hold, across the two nodes of one namespace: a run writing (or
# trimming) through one keeps every other writer and every verifier off
# the other, whichever engine; plain reads go on.
held() {
    "$@" >/dev/null 2>/tmp/held.err &
    hpid=$!
    sleep 1
}
held_end() {
    wait $hpid
    hrc=$?
    echo "@@NVB-BEGIN $1"
    echo
    echo "@@NVB-END $1 rc=$hrc"
    [ -s /tmp/held.err ] && echo "@@NVB-ERR $1 $(tr '\n' ' ' </tmp/held.err)"
}
held $W engine=nvme rw=randwrite bs=4k runtime=8s allow_destructive=1 "$CG"
run guard.held.nvme.psync.write $W engine=psync rw=write ios=4 allow_destructive=1 "$C"
run guard.held.nvme.psync.verify $W engine=psync rw=randread verify=1 ios=4 "$C"
run guard.held.nvme.nvme.verify $W engine=nvme rw=randread verify=1 ios=4 "$CG"
run guard.held.nvme.read $W engine=io_uring rw=randread ios=100 "$C"
held_end guard.held.nvme
held $W engine=psync rw=randtrim bs=4k runtime=8s allow_destructive=1 "$C"
run guard.held.psync.nvme.trim $W engine=nvme rw=trim ios=4 allow_destructive=1 "$CG"
run guard.held.psync.nvme.verify $W engine=nvme rw=randread verify=1 ios=4 "$CG"
run guard.held.psync.read $W engine=nvme rw=randread ios=100 "$CG"
held_end guard.held.psync

# ------------------------------------------------------------ hot removal
# A run drives a controller behind a PCIe root port; once it is under way
# the host removes the controller (QEMU monitor device_del). The run must end by itself, with the errors counted and a
# partial result that parses (the watchdog, io_timeout, bounds any wait the
# device leaves unanswered). E: the block layer, counting errors and going
# on; F: passthrough, stopping at the first error.
E=$(ns "$SER_E" 1); FG=$(ns "$SER_F" 1 generic)
hotremove() {
    name=$1 ctrl=$2 node=$3
    shift 3
    "$@" >/tmp/hr.json 2>/tmp/err &
    pid=$!
    sleep 3
    t0=$(cut -d' ' -f1 /proc/uptime)
    monitor device_del "$ctrl"
    wait $pid
    rc=$?
    t1=$(cut -d' ' -f1 /proc/uptime)
    echo "@@NVB-BEGIN $name"
    cat /tmp/hr.json
    echo
    echo "@@NVB-END $name rc=$rc"
    [ -s /tmp/err ] && echo "@@NVB-ERR $name $(tr '\n' ' ' </tmp/err)"
    i=0
    while [ -e "$node" ] && [ $i -lt 100 ]; do usleep 100000; i=$((i + 1)); done
    echo "@@NVB-HOTREMOVE $name unplug=$t0 end=$t1 node_gone=$([ -e "$node" ] && echo 0 || echo 1)"
}
if [ -n "$E" ] && [ -n "$FG" ]; then
    hotremove hotremove.io_uring cE "$E" $W engine=io_uring rw=randrw bs=4k qd=16 runtime=10s io_timeout=5s \
        continue_on_error=1 allow_destructive=1 "$E"
    hotremove hotremove.nvme cF "$FG" $W engine=nvme rw=randread bs=4k qd=16 runtime=20s io_timeout=5s "$FG"
else
    echo "@@NVB-ERR hotremove namespaces E or F not found"
fi

stall_tests

finish 0
