#!/usr/bin/env bash
# The ABI and the installed package, as a user meets them:
#  (a) the dynamic symbols libnvbench.so.0 exports are exactly the global:
#      names of libnvbench/libnvbench.map, all nvb_*, each bound to a node;
#  (b) its SONAME is libnvbench.so.0;
#  (c) the NVB_API functions of include/nvbench.h are exactly the map's names;
#  (d) nvbench.h compiles as strict C99 and as C++ (and C++11), no inline code;
#  (e) `cmake --install` into a temporary prefix, then the C examples build
#      through pkg-config (shared, and static against libnvbench.a) and run;
#  (f) a CMake project using find_package(nvbench) builds and runs, against
#      the install prefix and against the build tree (-Dnvbench_DIR=BUILD);
#  (g) the build tree's nvbench.pc (PKG_CONFIG_PATH=BUILD, no install) builds
#      a program against this build's library and the source's header.
# Every check runs; the failures are listed at the end.
#
#   bash test_abi.sh BUILD_DIR SOURCE_DIR     (exit 77: skipped)
set -euo pipefail

BUILD=$(cd "${1:?usage: $0 BUILD_DIR SOURCE_DIR}" && pwd)
SRC=$(cd "${2:?usage: $0 BUILD_DIR SOURCE_DIR}" && pwd)
MAP=$SRC/libnvbench/libnvbench.map
HDR=$SRC/include/nvbench.h
# the umbrella header and the topic headers it includes (include/nvbench/*.h)
HDRS=("$HDR" "$SRC"/include/nvbench/*.h)
CC=${CC:-cc}
CXX=${CXX:-g++}
# A sanitized build (tests/CMakeLists.txt): programs linked against it need
# the sanitizer runtime as well.
SAN=${NVB_SANITIZE_FLAGS:-}

skip() { echo "SKIP: $*" >&2; exit 77; }
FAILS=()
bad() { echo "  FAIL: $*"; FAILS+=("$*"); }
ok() { echo "  ok: $*"; }
have() { command -v "$1" > /dev/null 2>&1; }

for tool in nm readelf "$CC" cmake; do
    have "$tool" || skip "$tool not found"
done
SO=$(readlink -f "$BUILD/libnvbench.so.0" 2>/dev/null || true)
if [ ! -f "$SO" ]; then
    SO=$(find "$BUILD" -maxdepth 1 -name 'libnvbench.so.0.*' -type f | head -n 1)
fi
{ [ -n "$SO" ] && [ -f "$SO" ]; } || skip "no $BUILD/libnvbench.so.0.* (shared library not built)"

mkdir -p "$BUILD/tests/tmp"
TMP=$(mktemp -d "$BUILD/tests/tmp/abi.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# Names in the map: the global: sections of every node, and the node names.
# Comments (/* */ on one line, or # to the end of the line) are dropped.
sed -e 's|/\*.*\*/||g' -e 's|#.*||' "$MAP" | tr -s ' \t' '\n\n' | awk '
    /^[A-Za-z_][A-Za-z0-9_.]*$/ && !inside { node = $0; next }
    /^\{$/                                { inside = 1; sect = ""; print node > "/dev/stderr"; next }
    /^\}/                                 { inside = 0; sect = ""; next }
    inside && /^global:$/                 { sect = "g"; next }
    inside && /^local:$/                  { sect = "l"; next }
    inside && sect == "g" && /;$/         { sub(/;$/, ""); print }
    ' > "$TMP/map.syms" 2> "$TMP/map.nodes"
sort -u -o "$TMP/map.syms" "$TMP/map.syms"
sort -u -o "$TMP/map.nodes" "$TMP/map.nodes"
echo "map: $(wc -l < "$TMP/map.syms") global names in node(s) $(tr '\n' ' ' < "$TMP/map.nodes")"
[ -s "$TMP/map.syms" ] || bad "no global: names found in $MAP"

echo "(a) exported symbols of $(basename "$SO")"
nm -D --defined-only "$SO" > "$TMP/nm.txt"
# Version definitions appear as absolute (A) symbols named after the nodes.
awk '$2 == "A" { print $3 }' "$TMP/nm.txt" | sort -u > "$TMP/so.nodes"
awk '$2 != "A" { print $3 }' "$TMP/nm.txt" > "$TMP/so.raw"
sed 's/@.*//' "$TMP/so.raw" | sort -u > "$TMP/so.syms"
if cmp -s "$TMP/so.syms" "$TMP/map.syms"; then
    ok "$(wc -l < "$TMP/so.syms") exported symbols, exactly the map's global: names"
else
    extra=$(comm -23 "$TMP/so.syms" "$TMP/map.syms" | tr '\n' ' ')
    missing=$(comm -13 "$TMP/so.syms" "$TMP/map.syms" | tr '\n' ' ')
    [ -z "$extra" ] || bad "exported but not in the map: $extra"
    [ -z "$missing" ] || bad "in the map but not exported: $missing"
fi
notnvb=$(grep -v '^nvb_' "$TMP/so.syms" | tr '\n' ' ' || true)
[ -z "$notnvb" ] && ok "every exported symbol starts with nvb_" || bad "exported symbols outside nvb_: $notnvb"
internal=$(grep '^nvb__' "$TMP/so.syms" | tr '\n' ' ' || true)
[ -z "$internal" ] || bad "internal nvb__ symbols exported: $internal"
notfunc=$(awk '$2 != "A" && $2 != "T" { print $3 }' "$TMP/nm.txt" | tr '\n' ' ')
[ -z "$notfunc" ] && ok "every exported symbol is a function" || bad "exported symbols that are not functions (data is not ABI-safe): $notfunc"
if grep -q '@' "$TMP/so.raw"; then
    unversioned=$(grep -v '@' "$TMP/so.raw" | tr '\n' ' ' || true)
    [ -z "$unversioned" ] || bad "exported without a version node: $unversioned"
    badnode=$(sed -n 's/^[^@]*@@*//p' "$TMP/so.raw" | sort -u | comm -23 - "$TMP/map.nodes" | tr '\n' ' ')
    [ -z "$badnode" ] && ok "every symbol is bound to a node of the map" || bad "symbol versions not in the map: $badnode"
fi
if cmp -s "$TMP/so.nodes" "$TMP/map.nodes"; then
    ok "version nodes: $(tr '\n' ' ' < "$TMP/so.nodes")"
else
    bad "version definitions in the library ($(tr '\n' ' ' < "$TMP/so.nodes")) differ from the map's nodes ($(tr '\n' ' ' < "$TMP/map.nodes"))"
fi
badnodes=$(grep -v '^NVB_' "$TMP/map.nodes" | tr '\n' ' ' || true)
[ -z "$badnodes" ] || bad "version node names outside NVB_ (they are exported symbols too): $badnodes"

echo "(b) SONAME"
soname=$(readelf -d "$SO" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
[ "$soname" = libnvbench.so.0 ] && ok "SONAME $soname" || bad "SONAME is '$soname', expected libnvbench.so.0"
[ -L "$BUILD/libnvbench.so.0" ] || bad "$BUILD/libnvbench.so.0 is not a symlink to the versioned library"

echo "(c) NVB_API declarations in nvbench.h against the map"
# A declaration starts with NVB_API at the beginning of a line; its name is
# the first nvb_ identifier followed by '(' (the declaration may span lines).
awk '
    /^[ \t]*NVB_API[ \t]/ { decl = 1; buf = "" }
    decl { buf = buf " " $0; if (buf ~ /\(/) { decl = 0; if (match(buf, /nvb_[A-Za-z0-9_]*[ \t]*\(/)) { s = substr(buf, RSTART, RLENGTH); sub(/[ \t]*\($/, "", s); print s } } }
    ' "${HDRS[@]}" | sort > "$TMP/hdr.all"
sort -u "$TMP/hdr.all" > "$TMP/hdr.syms"
dups=$(uniq -d "$TMP/hdr.all" | tr '\n' ' ')
[ -z "$dups" ] || bad "declared twice in nvbench.h: $dups"
if cmp -s "$TMP/hdr.syms" "$TMP/map.syms"; then
    ok "$(wc -l < "$TMP/hdr.syms") NVB_API functions, exactly the map's names"
else
    extra=$(comm -23 "$TMP/hdr.syms" "$TMP/map.syms" | tr '\n' ' ')
    missing=$(comm -13 "$TMP/hdr.syms" "$TMP/map.syms" | tr '\n' ' ')
    [ -z "$extra" ] || bad "NVB_API in nvbench.h but not in the map: $extra"
    [ -z "$missing" ] || bad "in the map but not declared NVB_API in nvbench.h: $missing"
fi

echo "(d) nvbench.h as C99 and C++"
if grep -nE '\b(static[[:space:]]+)?(__)?inline(__)?\b' "${HDRS[@]}" > "$TMP/inline.txt"; then
    bad "inline code in nvbench.h (bindings need real symbols): $(tr '\n' ' ' < "$TMP/inline.txt")"
else
    ok "no inline functions"
fi
# Uses the macros and types a caller uses; included twice for the guard.
cat > "$TMP/hdr.c" <<'EOF'
#include <nvbench.h>
#include <nvbench.h>

int main(void)
{
    struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
    struct nvb_progress p;
    enum nvb_dir d = NVB_WRITE;
    const char *schema = NVB_SCHEMA_VERSION;
    int ver = NVB_VERSION_MAJOR * 10000 + NVB_VERSION_MINOR * 100 + NVB_VERSION_PATCH;
    p.size = sizeof p;
    (void)schema;
    (void)ver;
    (void)d;
    return o.size == sizeof o && p.size > 0 ? 0 : 1;
}
EOF
cp "$TMP/hdr.c" "$TMP/hdr.cpp"
if "$CC" -std=c99 -pedantic -Werror -Wall -Wextra -Wstrict-prototypes -I"$SRC/include" -c "$TMP/hdr.c" -o "$TMP/hdr_c.o" 2> "$TMP/cc.err"; then
    ok "$CC -std=c99 -pedantic -Werror -Wall -Wextra"
else
    cat "$TMP/cc.err"
    bad "nvbench.h does not compile with $CC -std=c99 -pedantic -Werror -Wall -Wextra"
fi
if have "$CXX"; then
    for std in "" -std=c++11; do
        if "$CXX" $std -Wall -Wextra -Werror -pedantic -I"$SRC/include" -c "$TMP/hdr.cpp" -o "$TMP/hdr_cxx.o" 2> "$TMP/cxx.err"; then
            ok "$CXX ${std:-(default std)} -Wall -Wextra -Werror -pedantic"
        else
            cat "$TMP/cxx.err"
            bad "nvbench.h does not compile with $CXX $std -Wall -Wextra -Werror -pedantic"
        fi
    done
else
    echo "  note: $CXX not found, C++ check not run"
fi

echo "(e) install, then build the examples through pkg-config"
PREFIX=$TMP/prefix
if ! cmake --install "$BUILD" --prefix "$PREFIX" > "$TMP/install.log" 2>&1; then
    cat "$TMP/install.log"
    bad "cmake --install $BUILD --prefix $PREFIX failed"
fi
[ -f "$PREFIX/include/nvbench.h" ] || bad "nvbench.h not installed under $PREFIX/include"
installed_headers=$(cd "$PREFIX" && find . -name '*.h' | sort | tr '\n' ' ')
case "$installed_headers" in
    "./include/nvbench.h " | "") ;;
    *) # include/nvbench/*.h by topic is allowed; nothing internal
        if echo "$installed_headers" | tr ' ' '\n' | grep -v -e '^$' -e '^\./include/nvbench\.h$' -e '^\./include/nvbench/' > /dev/null; then
            bad "headers other than the public ones installed: $installed_headers"
        fi ;;
esac
PC=$(find "$PREFIX" -name nvbench.pc | head -n 1)
LIBDIR=$(dirname "$(find "$PREFIX" -name 'libnvbench.so.0' | head -n 1)")
if [ -z "$PC" ]; then
    bad "nvbench.pc not installed under $PREFIX"
elif ! have pkg-config; then
    echo "  note: pkg-config not found, pkg-config builds not run"
else
    export PKG_CONFIG_PATH
    PKG_CONFIG_PATH=$(dirname "$PC")
    unset PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR
    PCDEF=()
    pc_libdir=$(pkg-config --variable=libdir nvbench)
    pc_incdir=$(pkg-config --variable=includedir nvbench)
    # compared resolved: a relocatable .pc says ${pcfiledir}/../.. for prefix
    if [ "$(readlink -m "$pc_libdir")" != "$(readlink -m "$LIBDIR")" ] ||
       [ "$(readlink -m "$pc_incdir")" != "$(readlink -m "$PREFIX/include")" ]; then
        bad "installed nvbench.pc does not follow the install prefix: libdir=$pc_libdir includedir=$pc_incdir, installed in $LIBDIR and $PREFIX/include (nvbench.pc.in bakes in the configure-time CMAKE_INSTALL_PREFIX; cmake --install --prefix cannot move it)"
        # go on with the right directories, to check the rest
        PCDEF=(--define-variable=prefix="$PREFIX" --define-variable=libdir="$LIBDIR"
               --define-variable=includedir="$PREFIX/include")
    else
        ok "nvbench.pc: libdir $pc_libdir"
    fi
    pcver=$(pkg-config --modversion nvbench)
    hdrver=$(sed -n 's/^#define NVB_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' "$HDR" | paste -sd. -)
    [ "$pcver" = "$hdrver" ] || bad "nvbench.pc version $pcver, nvbench.h says $hdrver"
    CFLAGS_PC=$(pkg-config "${PCDEF[@]}" --cflags nvbench)
    LIBS_PC=$(pkg-config "${PCDEF[@]}" --libs nvbench)
    LIBS_STATIC=$(pkg-config "${PCDEF[@]}" --static --libs nvbench)
    # The static archive sits next to the shared library: name it explicitly.
    LIBS_STATIC=${LIBS_STATIC//-lnvbench/-l:libnvbench.a}
    for ex in run_workload seed_matrix; do
        # shellcheck disable=SC2086
        if "$CC" -Wall -Wextra $SAN $CFLAGS_PC "$SRC/examples/c/$ex.c" -o "$TMP/$ex" $LIBS_PC -Wl,-rpath,"$LIBDIR" 2> "$TMP/$ex.err"; then
            ok "built $ex against the installed shared library"
        else
            cat "$TMP/$ex.err"
            bad "cannot build examples/c/$ex.c with pkg-config --cflags --libs nvbench"
        fi
        # shellcheck disable=SC2086
        if "$CC" -Wall -Wextra $SAN $CFLAGS_PC "$SRC/examples/c/$ex.c" -o "$TMP/$ex-static" $LIBS_STATIC 2> "$TMP/$ex-static.err"; then
            ok "built $ex against libnvbench.a (pkg-config --static)"
        else
            cat "$TMP/$ex-static.err"
            bad "cannot build examples/c/$ex.c statically with pkg-config --static --libs nvbench"
        fi
    done
    # run_workload, shared: the installed library is the one loaded.
    if [ -x "$TMP/run_workload" ]; then
        if have ldd; then
            loaded=$(env -u LD_LIBRARY_PATH ldd "$TMP/run_workload" | awk '/libnvbench/ { print $3 }')
            [ "$(readlink -f "$loaded")" = "$(readlink -f "$LIBDIR/libnvbench.so.0")" ] \
                || bad "run_workload loads '$loaded', not the installed $LIBDIR/libnvbench.so.0"
        fi
        for variant in run_workload run_workload-static; do
            [ -x "$TMP/$variant" ] || continue
            rc=0
            env -u LD_LIBRARY_PATH "$TMP/$variant" engine=null rw=randread runtime=100ms \
                > "$TMP/$variant.json" 2> "$TMP/$variant.stderr" || rc=$?
            if [ "$rc" -ne 0 ]; then
                cat "$TMP/$variant.stderr"
                bad "$variant engine=null rw=randread runtime=100ms exited with $rc"
            elif [ -x /usr/bin/python3 ]; then
                if /usr/bin/python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["schema"] == "nvbench.result/1", r["schema"]
assert r["engine"] == "null" and r["read"]["ios"] > 0, "no I/O"
' "$TMP/$variant.json" 2> "$TMP/$variant.pyerr"; then
                    ok "$variant (null engine) printed a JSON result with $(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["read"]["ios"])' "$TMP/$variant.json") reads"
                else
                    cat "$TMP/$variant.pyerr"
                    bad "$variant did not print a valid JSON result: $(head -c 300 "$TMP/$variant.json")"
                fi
            elif grep -q '^{"schema":"nvbench.result/1"' "$TMP/$variant.json"; then
                ok "$variant printed a JSON result"
            else
                bad "$variant did not print a JSON result: $(head -c 300 "$TMP/$variant.json")"
            fi
        done
        if [ -x "$TMP/run_workload-static" ] && readelf -d "$TMP/run_workload-static" | grep -q 'NEEDED.*libnvbench'; then
            bad "the static build of run_workload still needs libnvbench.so"
        fi
    fi
fi

echo "(f) a CMake project with find_package(nvbench)"
mkdir -p "$TMP/consumer"
cat > "$TMP/consumer/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.16)
project(nvbench_consumer LANGUAGES C)
find_package(nvbench 0.1 REQUIRED)
add_executable(consumer main.c)
target_link_libraries(consumer PRIVATE nvbench::nvbench)
add_executable(consumer_static main.c)
target_link_libraries(consumer_static PRIVATE nvbench::nvbench_static)
EOF
cat > "$TMP/consumer/main.c" <<'EOF'
/* Runs 1000 null I/Os through the public API and checks what comes back. */
#include <stdio.h>
#include <string.h>

#include <nvbench.h>

int main(void)
{
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", NVB_VERSION_MAJOR, NVB_VERSION_MINOR, NVB_VERSION_PATCH);
    if (strcmp(nvb_version(), want) != 0) {
        fprintf(stderr, "library %s, header %s\n", nvb_version(), want);
        return 1;
    }
    struct nvb_workload *w = NULL;
    struct nvb_result *r = NULL;
    char *json = NULL;
    int rc = nvb_workload_new(&w);
    if (rc == 0) rc = nvb_workload_set(w, "engine", "null");
    if (rc == 0) rc = nvb_workload_set(w, "ios", "1000");
    if (rc == 0) rc = nvb_run(w, NULL, &r);
    if (rc == 0) rc = nvb_result_json(r, &json);
    if (rc < 0) {
        fprintf(stderr, "%s: %s\n", nvb_strerror(rc), r ? nvb_result_error(r) : nvb_workload_error(w));
        return 1;
    }
    int good = nvb_result_ios(r, NVB_READ) == 1000 &&
               strncmp(json, "{\"schema\":\"" NVB_SCHEMA_VERSION "\"", 11 + strlen(NVB_SCHEMA_VERSION) + 1) == 0;
    printf("nvbench %s: %llu reads\n", nvb_version(), (unsigned long long)nvb_result_ios(r, NVB_READ));
    nvb_free(json);
    nvb_result_free(r);
    nvb_workload_free(w);
    return good ? 0 : 1;
}
EOF
# cmake_consumer NAME WHERE ARGS...: configure and build the consumer with
# ARGS into $TMP/NAME, run both programs; find_package must have used WHERE.
cmake_consumer() {
    local name=$1 where=$2 out=$TMP/$1
    shift 2
    if cmake -S "$TMP/consumer" -B "$out" "$@" -DCMAKE_C_FLAGS="$SAN" \
            -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON \
            > "$out.log" 2>&1 &&
       cmake --build "$out" >> "$out.log" 2>&1; then
        found=$(sed -n 's/^nvbench_DIR:[A-Z]*=//p' "$out/CMakeCache.txt")
        case "$(readlink -m "$found")/" in
            "$(readlink -m "$where")"/*) ok "$name: configured and built against $found" ;;
            *) bad "$name: find_package(nvbench) found '$found', not the package in $where" ;;
        esac
        for exe in consumer consumer_static; do
            if out_text=$(env -u LD_LIBRARY_PATH "$out/$exe" 2>&1); then
                ok "$name: $exe: $out_text"
            else
                bad "$name: $exe failed: $out_text"
            fi
        done
        if have ldd; then
            loaded=$(env -u LD_LIBRARY_PATH ldd "$out/consumer" | awk '/libnvbench/ { print $3 }')
            case "$(readlink -f "$loaded")" in
                "$(readlink -f "$where")"/*) ;;
                *) bad "$name: the CMake consumer loads '$loaded', not the library in $where" ;;
            esac
        fi
        if readelf -d "$out/consumer_static" | grep -q 'NEEDED.*libnvbench'; then
            bad "$name: consumer_static (nvbench::nvbench_static) still needs libnvbench.so"
        fi
    else
        cat "$out.log"
        bad "$name: a CMake project with find_package(nvbench) and nvbench::nvbench does not configure or build"
    fi
}
cmake_consumer installed "$PREFIX" -DCMAKE_PREFIX_PATH="$PREFIX"
cmake_consumer build-tree "$BUILD" -Dnvbench_DIR="$BUILD"

echo "(g) the build tree's nvbench.pc, without installing"
if ! have pkg-config; then
    echo "  note: pkg-config not found, build-tree pkg-config build not run"
elif [ ! -f "$BUILD/nvbench.pc" ]; then
    bad "no nvbench.pc in the build tree $BUILD"
else
    bt_inc=$(env -u PKG_CONFIG_LIBDIR PKG_CONFIG_PATH="$BUILD" pkg-config --variable=includedir nvbench)
    bt_lib=$(env -u PKG_CONFIG_LIBDIR PKG_CONFIG_PATH="$BUILD" pkg-config --variable=libdir nvbench)
    [ "$(readlink -m "$bt_inc")" = "$SRC/include" ] || bad "build-tree nvbench.pc: includedir $bt_inc, not $SRC/include"
    [ "$(readlink -m "$bt_lib")" = "$BUILD" ] || bad "build-tree nvbench.pc: libdir $bt_lib, not $BUILD"
    # shellcheck disable=SC2046
    if "$CC" -Wall -Wextra $SAN $(env -u PKG_CONFIG_LIBDIR PKG_CONFIG_PATH="$BUILD" pkg-config --cflags nvbench) \
            "$TMP/consumer/main.c" -o "$TMP/bt_consumer" \
            $(env -u PKG_CONFIG_LIBDIR PKG_CONFIG_PATH="$BUILD" pkg-config --libs nvbench) 2> "$TMP/bt.err"; then
        if out_text=$(LD_LIBRARY_PATH=$BUILD "$TMP/bt_consumer" 2>&1); then
            ok "built with PKG_CONFIG_PATH=$BUILD and ran: $out_text"
        else
            bad "the build-tree pkg-config consumer failed: $out_text"
        fi
    else
        cat "$TMP/bt.err"
        bad "cannot build a program with PKG_CONFIG_PATH=$BUILD pkg-config --cflags --libs nvbench"
    fi
fi

if [ "${#FAILS[@]}" -gt 0 ]; then
    echo
    echo "FAIL: ${#FAILS[@]} ABI/packaging problem(s):"
    for f in "${FAILS[@]}"; do
        echo "  - $f"
    done
    exit 1
fi
echo "PASS"
