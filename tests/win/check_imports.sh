#!/bin/bash
# Check the import tables of cross-built Windows binaries:
#   check_imports.sh OBJDUMP FILE.dll|FILE.exe...
# Every imported DLL!function must be in imports-allowed.txt beside this
# script (functions Windows Server 2022 and later have), and none may be a
# wine-only function or one nvbench looks up at run time with
# GetProcAddress (a binary importing a function Windows lacks still loads
# under wine, but not on Windows).
set -euo pipefail
objdump=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
allowed=$(grep -v '^#' "$here/imports-allowed.txt" | sed '/^$/d')
runtime_only='^(NtQuerySystemInformation|NtQuerySystemInformationEx|SetThreadDescription|GetThreadDescription|QueryIoRingCapabilities|CreateIoRing|GetIoRingInfo|CloseIoRing|SubmitIoRing|PopIoRingCompletion|BuildIoRing.*|IsIoRingOpSupported)$'
fail=0
total=0
for f in "$@"; do
    # objdump -p prints "DLL Name: X" then one "hint ordinal name" row per import
    imports=$("$objdump" -p "$f" | awk '
        /DLL Name:/ { dll = $3; next }
        /^$/ { if (dll != "" && seen) dll = ""; next }
        dll != "" && $1 ~ /^[0-9a-f]+$/ && NF >= 3 && $2 ~ /^[0-9]+$/ { print dll "!" $3; seen = 1 }')
    n=0
    while IFS= read -r imp; do
        [ -z "$imp" ] && continue
        n=$((n + 1))
        dll=${imp%%!*}
        fn=${imp#*!}
        if [[ $fn =~ $runtime_only ]]; then
            echo "$(basename "$f"): imports $imp, which nvbench must look up at run time" >&2
            fail=1
            continue
        fi
        if [[ $fn == wine_* || $fn == __wine_* ]]; then
            echo "$(basename "$f"): imports wine-only $imp" >&2
            fail=1
            continue
        fi
        ok=0
        while IFS= read -r pat; do
            # shellcheck disable=SC2053
            if [[ ${imp,,} == ${pat,,} ]]; then
                ok=1
                break
            fi
        done <<<"$allowed"
        if [ $ok = 0 ]; then
            echo "$(basename "$f"): imports $imp, not in tests/win/imports-allowed.txt" >&2
            fail=1
        fi
    done <<<"$imports"
    echo "$(basename "$f"): $n imports checked"
    total=$((total + n))
    if [ "$n" = 0 ]; then
        echo "$(basename "$f"): no imports found: objdump output not understood" >&2
        fail=1
    fi
done
[ $fail = 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit $fail
