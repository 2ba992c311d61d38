#!/usr/bin/env bash
# Run fio's own examples/ job files through `nvbench run --fio` (strict), from a fio
# source tree given by path; the files are fio's: fetched by the caller, never kept here.
#
#   tests/scripts/fio_examples.sh FIO_SRC_DIR [NVBENCH]      (root: block-device jobs run on a loop device)
#
# Targets are rewritten to scratch files (a 1 GiB loop device for /dev/... names), lengths
# capped (runtime and timeout at most 3 s, sizes at most 256 MiB, runtime=3 added to jobs
# without one); nothing else is changed. Prints each file's outcome (OK, or the refusal's
# first line naming the option and why) and the count of files that ran. The files chosen are
# the 54 about local block and file I/O (docs/fio-jobs.md); the others need network, cloud, GPU
# or metadata engines nvbench does not have.
set -u
src=${1:?usage: fio_examples.sh FIO_SRC_DIR [NVBENCH]}
nvb=${2:-nvbench}
[ -d "$src/examples" ] || { echo "no examples/ in $src" >&2; exit 2; }
LOCAL="${ONLY:-1mbs_clients aio-read atomic-verify backwards-read basic-verify butterfly cmdprio-bssplit
cmdprio-percentage cross-stripe-verify dedupe-global disk-zone-profile enospc-pressure
example_latency_steadystate exitwhat fio-rand-RW fio-rand-read fio-rand-write fio-seq-RW fio-seq-read
fio-seq-write fixed-rate-submission flow fsx iometer-file-access-server jesd219 latency-profile null numa
poisson-rate-submission rand-zones sequence-distribution sprandom ssd-steadystate ssd-test steadystate
surface-scan tiobench-example uring-cmd-bsg uring-cmd-fdp uring-cmd-ng uring-cmd-pi-ext uring-cmd-pi-sb
uring-cmd-trim-multi-range uring-cmd-write-mode uring-cmd-zoned-append uring-cmd-zoned waitfor xnvme-compare
xnvme-zoned zbd-rand-write-trim-gc zbd-rand-write-zone-reset-gc zbd-rand-write zbd-seq-read zipf}"
d=$(mktemp -d /tmp/nvb-fio-examples.XXXXXX)
L=
if [ "$(id -u)" = 0 ] && truncate -s 1G "$d/dev.img" && L=$(losetup -f --show "$d/dev.img" 2>/dev/null); then :; else L=; fi
trap '[ -n "$L" ] && losetup -d "$L"; rm -rf "$d"' EXIT
export FIO_BS=4096 FIO_RW=randread FIO_IODEPTH=16   # environment variables some examples expect
ran=0 tot=0
for n in $LOCAL; do
  f="$src/examples/$n.fio"
  [ -f "$f" ] || continue
  tot=$((tot + 1)); mkdir -p "$d/s/$n"
  # targets to scratch, lengths capped; awk keeps everything else as fio wrote it
  awk -v dev="${L:-/nonexistent-loop}" -v dir="$d/s/$n" '
    /^[ \t]*filename[ \t]*=/ { v = $0; sub(/^[^=]*=[ \t]*/, "", v); sub(/[ \t]*[;#].*/, "", v)
      if (v ~ /^\/dev\/(null|zero)$/) { print "filename=" dir "/" substr(v, 6) "-file" }
      else if (v ~ /^\/dev\//) { print "filename=" dev }
      else { n = split(v, p, "/"); print "filename=" dir "/" p[n] } next }
    /^[ \t]*directory[ \t]*=/ { print "directory=" dir; next }
    /^[ \t]*(runtime|timeout)[ \t]*=/ { k = $0; sub(/[ \t]*=.*/, "", k); v = $0; sub(/^[^=]*=[ \t]*/, "", v)
      sub(/[ \t]*[;#].*/, "", v); u = v; sub(/^[0-9.]+/, "", u)
      print k "=" ((u ~ /^(m|h|d)/ || v + 0 > 3) ? 3 : v); next }
    /^[ \t]*size[ \t]*=[ \t]*[0-9]+[gGtT]/ { print "size=256m"; next }
    { print }' "$f" > "$d/$n.fio"
  grep -qE '^[[:space:]]*(runtime|timeout)[[:space:]]*=' "$d/$n.fio" || sed -i '0,/^\[/s//[global]\nruntime=3\n\n[/' "$d/$n.fio"
  ad=(); grep -q "filename=/dev/" "$d/$n.fio" && ad=(allow_destructive=1)
  (cd "$d/s/$n" && timeout 60 "$nvb" run --fio "$d/$n.fio" --no-progress --json "$d/$n.json" "${ad[@]}" >/dev/null 2>"$d/$n.err")
  rc=$?
  [ -n "${KEEP_ERR:-}" ] && cp "$d/$n.err" "$KEEP_ERR/$n.err"
  if [ $rc -eq 0 ]; then ran=$((ran + 1)); echo "OK      $n"
  else echo "REFUSED $n: $(grep -v '^[[:space:]]*$' "$d/$n.err" | head -1 | cut -c1-300)"; fi
done
echo "fio examples: $ran of $tot run strict"
