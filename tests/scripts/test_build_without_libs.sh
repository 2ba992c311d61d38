#!/usr/bin/env bash
# The library builds and runs without liburing, libaio and libblkid (device
# signatures are then "unknown"). Those engines stay
# listed, report why they are unavailable, and a workload naming them is
# refused with that reason (never a crash or a silent fallback).
set -euo pipefail
BUILD=$1 SRC=$2
B="$BUILD/nolibs"
rm -rf "$B"
cmake -S "$SRC" -B "$B" -DNVB_WITH_LIBURING=OFF -DNVB_WITH_LIBAIO=OFF -DNVB_WITH_LIBBLKID=OFF -DNVB_BUILD_TESTS=OFF >"$B.log" 2>&1 ||
  { cat "$B.log"; exit 1; }
cmake --build "$B" -j2 >>"$B.log" 2>&1 || { tail -30 "$B.log"; exit 1; }
so=$(ls "$B"/libnvbench.so.0.* | head -1)
if readelf -d "$so" | grep -Eq 'liburing|libaio|libblkid'; then
  echo "FAIL: $so still links liburing/libaio/libblkid"; exit 1
fi
rw="$B/examples/c/run_workload"
f="$B/data"
dd if=/dev/zero of="$f" bs=1M count=4 status=none
fail=0
for eng in io_uring libaio; do
  set +e
  out=$("$rw" engine=$eng rw=randread ios=10 "$f" 2>&1 >/dev/null)
  rc=$?
  set -e
  if [ $rc -ne 2 ] || ! echo "$out" | grep -q "built without"; then
    echo "FAIL: $eng without its library: exit $rc, message: $out"; fail=1
  else
    echo "ok: $eng refused: $out"
  fi
done
json=$("$rw" engine=psync rw=randread ios=100 "$f")
echo "$json" | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["read"]["ios"]==100, d["read"]' ||
  { echo "FAIL: psync run without the optional libraries"; fail=1; }
rm -rf "$B" "$B.log"
[ $fail -eq 0 ] && echo "1 passed, 0 failed"
exit $fail
