"""Block devices, until libnvbench has discovery of its own.

libnvbench 0.1 offers no device discovery (no NVMe identify, no
in-use/mounted check beyond the destructive-write guard at run time), so this
is only what the kernel lists in /sys/block, unprobed.
"""
import os

_SYS_BLOCK = "/sys/block"


def _read(path, default=None):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().strip()
    except OSError:
        return default


def _int(text):
    try:
        return int(text)
    except (TypeError, ValueError):
        return None


def devices():
    """Block devices the kernel lists in /sys/block: a list of dicts with
    name, path, size_bytes, logical_block_size, rotational, model, source.

    libnvbench has no device discovery yet, so this is a plain sysfs listing
    made by Python (``source`` is "sysfs"): nothing is opened or probed, and
    it does not say whether a device is in use. Virtual devices (loop, ram,
    zram, dm) with no media are left out. Once libnvbench offers discovery,
    this returns the library's records instead.
    """
    out = []
    try:
        names = sorted(os.listdir(_SYS_BLOCK))
    except OSError:
        return out
    for name in names:
        base = os.path.join(_SYS_BLOCK, name)
        sectors = _int(_read(os.path.join(base, "size")))
        if not sectors or name.startswith(("ram", "zram")):
            continue
        out.append({
            "name": name,
            "path": "/dev/" + name,
            "size_bytes": sectors * 512,
            "logical_block_size": _int(_read(os.path.join(base, "queue", "logical_block_size"))),
            "rotational": _read(os.path.join(base, "queue", "rotational")) == "1",
            "model": _read(os.path.join(base, "device", "model"), ""),
            "source": "sysfs",
        })
    return out
