"""The four columns of the published comparison from three saved files.

The published table has one column per storage stack: Windows Server 2025's
non-native stack (disk.sys, Storport, stornvme), its native stack (NVMeDisk.sys,
StorMQ), Linux with libaio and Linux with io_uring. A user reproduces it with
three runs: one on Linux (``nvbench matrix --engines libaio,io_uring`` or
``seed_matrix --engines libaio,io_uring --json``), and one on Windows with each
stack (``seed_matrix.exe --json``, or the package's PowerShell script).
:func:`four_stacks` puts them into one ResultSet whose stacks are the four
column labels, in the published order, after checking that each file is what its
place says: the Linux file holds libaio and io_uring runs, each Windows file
holds runs whose ``engine_used.stack`` is that file's stack, as the library
detected it or as the user stated it (``stack_source``). A file that says
otherwise, or says nothing (``unknown``), is refused, naming it.
"""

from .resultset import ResultSet

__all__ = ["COLUMNS", "LINUX_ENGINES", "WINDOWS_ENGINES", "four_stacks"]

# The published columns, in their order: the seed's stack name -> our label.
# The labels differ from the published figures' own stack names
# (nvbench.reference), so that both can stand side by side in one report.
COLUMNS = {
    "windows_non_native": "Win non-native",
    "windows_native": "Win native",
    "linux_libaio": "Linux libaio",
    "linux_io_uring": "Linux io_uring",
}
LINUX_ENGINES = {"libaio": "linux_libaio", "io_uring": "linux_io_uring"}
# Windows engines in order of preference for a column: iocp is what fio's
# windowsaio engine (the published runs) does; ioring and wsync otherwise.
WINDOWS_ENGINES = ("iocp", "ioring", "wsync")


def _engine(r):
    return r.data.get("engine") or r.meta.get("engine")


def _used(r):
    used = r.data.get("engine_used")
    return used if isinstance(used, dict) else {}


def _linux(rs, path):
    out = {}
    for r in rs:
        stack = LINUX_ENGINES.get(_engine(r))
        if stack:
            out.setdefault(stack, []).append(r)
        elif _engine(r) in WINDOWS_ENGINES:
            raise ValueError(f"{path}: holds {_engine(r)} runs, a Windows engine: the first file is the "
                             f"Linux run (libaio and io_uring)")
    if not out:
        raise ValueError(f"{path}: no libaio or io_uring run: the first file is the Linux run "
                         f"(nvbench matrix --engines libaio,io_uring --json FILE)")
    return out


def _windows(rs, path, stack, engine):
    engines = list(dict.fromkeys(_engine(r) for r in rs if _engine(r) in WINDOWS_ENGINES))
    if not engines:
        raise ValueError(f"{path}: no run of a Windows engine ({', '.join(WINDOWS_ENGINES)}): it should be "
                         f"seed_matrix.exe's --json file on the {stack} stack")
    if engine is None:
        engine = next(e for e in WINDOWS_ENGINES if e in engines)
    elif engine not in engines:
        raise ValueError(f"{path}: no {engine} run (it has {', '.join(engines)})")
    chosen = [r for r in rs if _engine(r) == engine]
    for r in chosen:
        found = _used(r).get("stack")
        if found == stack:
            continue
        if found in (None, "", "unknown", "mixed"):
            why = ("it is mixed: the target spans disks of both stacks" if found == "mixed" else
                   "the stack could not be detected there")
            raise ValueError(f"{path}: the runs do not say they ran on the {stack} stack ({why}); "
                             f"run seed_matrix.exe again with --stack {stack}, or the script with "
                             f"-Stack {stack}, if that is the stack the disk was on")
        raise ValueError(f"{path}: its runs went through the {found} stack "
                         f"({_used(r).get('stack_source') or 'detected'}), not {stack}: "
                         f"the files are in the order LINUX WINDOWS_NATIVE WINDOWS_NON_NATIVE")
    return engine, chosen


def four_stacks(linux, native, non_native, paths=("linux", "windows native", "windows non-native"),
                windows_engine=None):
    """One ResultSet of the four published columns from three ResultSets (see the module).

    ``paths`` names the three sources in messages; ``windows_engine`` picks the
    Windows engine whose runs make the Windows columns (default: iocp when it ran,
    else ioring, else wsync). Each result's ``meta["stack"]`` becomes its column's
    label (:data:`COLUMNS`), and ``meta["seed_stack"]`` the seed's stack name.
    Raises ValueError naming the file that is not what its place says."""
    lin = _linux(linux, paths[0])
    win = {"windows_native": _windows(native, paths[1], "windows_native", windows_engine),
           "windows_non_native": _windows(non_native, paths[2], "windows_non_native", windows_engine)}
    out = ResultSet()
    for stack, label in COLUMNS.items():
        runs = win[stack][1] if stack in win else lin.get(stack, [])
        out.extend(r.with_meta(stack=label, seed_stack=stack) for r in runs)
    return out
