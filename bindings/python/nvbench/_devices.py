"""Block devices as libnvbench discovers them (docs/devices.md)."""
import json

from . import _nvbench


def devices(sysfs_root=None):
    """Every block device of this machine, as libnvbench's discovery sees it:
    a list of dicts in /sys/block order, partitions after their disk, with
    size, block sizes, queue settings, NVMe controllers and PCIe links,
    multipath, holders, mounts, swap, filesystem signature, the indirection
    unit, and ``busy`` (why the destructive-write guard would refuse a write,
    or None). The shape is docs/devices.md; unknown keys may appear later.

    sysfs_root: a recorded tree (a directory laid out like /sys) instead of
    the running system; no device node is opened then. What needs privileges
    this process lacks is reported as unknown with the reason, not raised.
    Raises NvbenchError when the tree cannot be read.
    """
    return json.loads(_nvbench.devices_json(sysfs_root))


def device(path):
    """One device by path (a block device node, a /dev/disk/by-* link, or an
    NVMe generic node /dev/ngXnY) as a dict, as in devices(). Raises
    NvbenchError: ENOENT (no such path), ENODEV (not a block device)."""
    return json.loads(_nvbench.device_json(path))
