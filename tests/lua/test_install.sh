#!/bin/sh
# The installed Lua module: `cmake --install` into a scratch prefix puts
# nvbench.so and nvbench/matrix.lua where lua5.4's default package.cpath and
# package.path look once the scratch prefix stands for the real one (so a
# plain `lua5.4 -e 'require "nvbench"'` works after `make install`), and the
# module exports luaopen_nvbench and nothing else.
#   test_install.sh BUILD_DIR INSTALL_PREFIX CMOD_DIR LMOD_DIR
build=$1 prefix=$2 cmod=$3 lmod=$4
skip() { echo "SKIP: $*" >&2; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

if [ -n "$NVB_SANITIZER" ] || [ "$NVB_LUA_SANITIZE" = ON ]; then
  skip "sanitizer build: lua5.4 cannot load a module built with -fsanitize=address"
fi
lua=${NVB_LUA:-}
case $lua in ""|*NOTFOUND) lua=$(command -v lua5.4 || true) ;; esac
[ -n "$lua" ] || skip "lua5.4 not found (Debian: lua5.4)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/nvb-lua-install.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp" >"$tmp.log" 2>&1 || { cat "$tmp.log" >&2; rm -f "$tmp.log"; fail "cmake --install"; }
rm -f "$tmp.log"
[ -f "$tmp/$cmod/nvbench.so" ] || fail "nvbench.so not installed in <prefix>/$cmod"
[ -f "$tmp/$lmod/nvbench/matrix.lua" ] || fail "matrix.lua not installed in <prefix>/$lmod/nvbench"
[ -f "$tmp/$lmod/nvbench/search.lua" ] || fail "search.lua not installed in <prefix>/$lmod/nvbench"

# Only the entry point is exported: libnvbench is linked in with its
# symbols made local.
if command -v nm >/dev/null 2>&1; then
  syms=$(nm -D --defined-only "$tmp/$cmod/nvbench.so" | awk '{print $3}' | grep -v '^_' | sort | tr '\n' ' ')
  [ "$syms" = "luaopen_nvbench " ] || fail "nvbench.so exports: $syms"
  nm -D --undefined-only "$tmp/$cmod/nvbench.so" | grep -q ' lua_pushinteger' || fail "lua_* symbols not left to the interpreter"
fi
if command -v readelf >/dev/null 2>&1; then
  readelf -d "$tmp/$cmod/nvbench.so" | grep NEEDED | grep -q 'liblua' && fail "nvbench.so links liblua"
  readelf -d "$tmp/$cmod/nvbench.so" | grep NEEDED | grep -q 'libnvbench' && fail "nvbench.so needs libnvbench.so"
fi

# lua5.4's own default search paths, with the real prefix replaced by the
# scratch one: what `require` would find after a real install.
cpath=$(env -u LUA_CPATH -u LUA_CPATH_5_4 "$lua" -e 'io.write(package.cpath)')
lpath=$(env -u LUA_PATH -u LUA_PATH_5_4 "$lua" -e 'io.write(package.path)')
case ";$cpath;" in *";$prefix/$cmod/?.so;"*) ;; *)
  echo "note: $prefix/$cmod is not in lua5.4's default package.cpath ($cpath); set LUA_CPATH" >&2 ;;
esac
case ";$lpath;" in *";$prefix/$lmod/?.lua;"*) ;; *)
  echo "note: $prefix/$lmod is not in lua5.4's default package.path ($lpath); set LUA_PATH" >&2 ;;
esac
esc=$(printf '%s' "$prefix" | sed 's/[#&\\]/\\&/g')
tmpesc=$(printf '%s' "$tmp" | sed 's/[#&\\]/\\&/g')
LUA_CPATH=$(printf '%s' "$cpath" | sed "s#$esc/#$tmpesc/#g")
LUA_PATH=$(printf '%s' "$lpath" | sed "s#$esc/#$tmpesc/#g")
NVB_TMP=$tmp
export LUA_CPATH LUA_PATH NVB_TMP
out=$(cd "$tmp" && "$lua" -e '
  local nvb = require "nvbench"
  local m = require "nvbench.matrix"
  assert(package.searchpath("nvbench", package.cpath):find(os.getenv("NVB_TMP"), 1, true) == 1)
  assert(type(m.seed) == "function")
  io.write(nvb.version)' 2>&1) || fail "require from the installed tree: $out"
echo "installed module loads with lua5.4's default paths: nvbench $out"
