#!/usr/bin/env bash
# Bounded fuzzing, as a CTest step (label fuzz):
#  1. the workload key/value and value parsers (fuzz_workload.c), with
#     libFuzzer (clang -fsanitize=fuzzer,address,undefined) when it links,
#     else with driver.c under gcc's ASan+UBSan; corpus tests/fuzz/corpus/workload;
#     the fio job-file reader (fuzz_fiojob.c) the same way, corpus corpus/fiojob;
#  2. nvbench.load() on mutated result JSON (fuzz_load.py) with the Python
#     package the 'python' test installs, when it is there.
#
#   run.sh BUILD_DIR SOURCE_DIR [SECONDS]     (SECONDS per target, default 30)
# Findings go to BUILD_DIR/tests/fuzz/ (crash-*, the input that failed).
set -euo pipefail
BUILD=$(cd "${1:?usage: $0 BUILD_DIR SOURCE_DIR [SECONDS]}" && pwd)
SRC=$(cd "${2:?usage: $0 BUILD_DIR SOURCE_DIR [SECONDS]}" && pwd)
SECS=${3:-${NVB_FUZZ_SECONDS:-30}}
# A fixed seed by default, so a CI run explores the same inputs each time and
# its verdict does not depend on luck; NVB_FUZZ_SEED=random explores anew.
SEED=${NVB_FUZZ_SEED:-1}
if [ "$SEED" = random ]; then SEED=$(( $(date +%s) % 2147483647 )); fi
OUT=$BUILD/tests/fuzz
mkdir -p "$OUT"
status=0

# The library's Linux sources: every .c of these folders (platform/*.c is
# what both OSes share; engines/win and devices/win are Windows only).
sources=()
for d in util core engines devices platform platform/unix; do
    for f in "$SRC"/libnvbench/$d/*.c; do sources+=("$f"); done
done
# Parsing needs no I/O library: the engines build as "not compiled in".
defs=(-D_GNU_SOURCE -DNVB_HAVE_LIBURING=0 -DNVB_HAVE_LIBAIO=0 -DNVB_HAVE_LIBBLKID=0 -DNVB_VERSION_STRING='"fuzz"')
incs=(-I"$SRC/include" -I"$SRC/libnvbench")

# Rebuilt only when a source is newer than the binary.
stale() { [ ! -x "$1" ] || [ -n "$(find "$SRC/libnvbench" "$SRC/include" "$SRC/tests/fuzz" -name '*.[ch]' -newer "$1" -print -quit)" ]; }

# One binary per target: fuzz_<name>.c, its seeds in corpus/<name>.
libfuzzer=0
if [ -z "${NVB_FUZZ_DRIVER:-}" ] && command -v clang > /dev/null && echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' |
        clang -x c -fsanitize=fuzzer - -o "$OUT/probe" 2> /dev/null; then
    libfuzzer=1
fi
rm -f "$OUT/probe"
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
work=$(mktemp -d "$OUT/corpus.XXXXXX")
trap 'rm -rf "$work"' EXIT

fuzz() {  # fuzz NAME WHAT
    local name=$1 what=$2 mode bin
    if [ $libfuzzer = 1 ]; then
        mode=libfuzzer
        bin=$OUT/fuzz_$name
        if stale "$bin"; then
            echo "building $bin (clang, libFuzzer, ASan, UBSan)"
            clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined "${defs[@]}" "${incs[@]}" \
                "$SRC/tests/fuzz/fuzz_$name.c" "${sources[@]}" -lpthread -lm -o "$bin"
        fi
    else
        mode=driver
        bin=$OUT/fuzz_${name}_driver
        cc=${CC:-cc}
        if stale "$bin"; then
            echo "building $bin ($cc, the mutation driver, ASan, UBSan): libFuzzer is not available"
            "$cc" -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined -DNVB_FUZZ_STANDALONE \
                "${defs[@]}" "${incs[@]}" "$SRC/tests/fuzz/fuzz_$name.c" "$SRC/tests/fuzz/driver.c" "${sources[@]}" \
                -lpthread -lm -o "$bin"
        fi
    fi
    echo "fuzzing $what for ${SECS}s ($mode)"
    mkdir -p "$work/$name"
    if [ "$mode" = libfuzzer ]; then
        # New inputs go to a scratch corpus; the seed corpus is only read.
        "$bin" -seed="$SEED" -max_total_time="$SECS" -max_len=4096 -timeout=10 -print_final_stats=1 \
            -artifact_prefix="$OUT/" "$work/$name" "$SRC/tests/fuzz/corpus/$name" 2>&1 | tail -25 || status=1
    else
        "$bin" -t "$SECS" -s "$SEED" -a "$OUT/crash-$name" "$SRC/tests/fuzz/corpus/$name" || status=1
    fi
}
fuzz workload "the workload parser"
# The job-file reader reads its inputs from files it writes under NVB_FUZZ_TMP.
export NVB_FUZZ_TMP=$work
fuzz fiojob "the fio job-file reader"

# Python: the package the 'python' CTest installs (pure-Python loading, but
# importing nvbench needs its C extension).
py=$BUILD/tests/python-venv/bin/python
if [ -x "$py" ] && "$py" -c 'import nvbench' 2> /dev/null; then
    echo "fuzzing nvbench.load for ${SECS}s"
    "$py" "$SRC/tests/fuzz/fuzz_load.py" --seconds "$SECS" --seed "$SEED" --artifact "$OUT/crash-load.json" \
        "$SRC/tests/fuzz/corpus/load" || status=1
else
    echo "note: no Python venv with nvbench at $py (the 'python' test makes it): nvbench.load not fuzzed"
fi
exit $status
