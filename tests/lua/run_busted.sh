#!/bin/sh
# Runs one tests/lua/*_spec.lua under busted with lua5.4, with require()
# pointed at the build tree's nvbench.so and the source tree's Lua files.
#   run_busted.sh BUILD_DIR_OF_THE_MODULE SOURCE_DIR SPEC
# Exit 77 (skipped) when lua5.4 or busted is missing, or in a sanitizer
# build: the module then carries the ASan runtime, which a plain lua5.4
# cannot load.
moddir=$1 src=$2 spec=$3
skip() { echo "SKIP: $*" >&2; exit 77; }

if [ -n "$NVB_SANITIZER" ] || [ "$NVB_LUA_SANITIZE" = ON ] || [ "$NVB_LUA_SANITIZE" = 1 ]; then
  skip "sanitizer build: lua5.4 cannot load a module built with -fsanitize=address"
fi
lua=${NVB_LUA:-}
case $lua in ""|*NOTFOUND) lua=$(command -v lua5.4 || true) ;; esac
[ -n "$lua" ] || skip "lua5.4 not found (Debian: lua5.4)"
busted=${NVB_BUSTED:-}
case $busted in ""|*NOTFOUND) busted=$(command -v busted || true) ;; esac
[ -n "$busted" ] || skip "busted not found (Debian: lua-busted)"
[ -f "$moddir/nvbench.so" ] || { echo "nvbench.so not built in $moddir" >&2; exit 1; }

# ";;" keeps the default paths after ours: busted's own modules live there.
LUA_CPATH="$moddir/?.so;;"
LUA_PATH="$src/bindings/lua/?.lua;$src/tests/lua/?.lua;;"
NVB_LUA=$lua
NVB_SOURCE_DIR=$src
export LUA_CPATH LUA_PATH NVB_LUA NVB_SOURCE_DIR
exec "$busted" --lua="$lua" --output=TAP "$spec"
