#!/usr/bin/env python3
"""Write the recorded sysfs trees that tests/c/test_devices.c reads.

Each machine is a directory with the four roots discovery takes:
  sys/    the sysfs layout of Linux 6.x, reduced to the attribute files
          nvbench reads: /sys/block links into /sys/devices, partitions as
          subdirectories of their disk, NVMe controllers under their PCI
          function, multipath heads under nvme-subsystem, hidden paths under
          their controller, holders/ and slaves/ links between dm/md and
          their members.
  proc/   self/mountinfo and swaps.
  dev/    an empty file per device node (a recorded tree has no device
          nodes) and the udev symlinks (disk/by-id, mapper) to them.
  probe/  what the device nodes would have answered: NAME.blkid is the
          output of `blkid -p -o export`, NAME.id-ns the Identify Namespace
          data as hex bytes.

The trees are committed; run this script (from anywhere) after changing it
and commit the result:  python3 tests/data/sysfs/mktrees.py
"""
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))


class Tree:
    def __init__(self, name):
        self.root = os.path.join(HERE, name)
        shutil.rmtree(self.root, ignore_errors=True)
        os.makedirs(self.root)

    def p(self, rel):
        return os.path.join(self.root, rel)

    def attrs(self, rel, **kv):
        """Attribute files in directory rel; '__' in a name is '/'."""
        for k, v in kv.items():
            path = self.p(os.path.join(rel, k.replace("__", "/")))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(f"{v}\n")

    def text(self, rel, s):
        path = self.p(rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(s)

    def link(self, rel, target_rel):
        """Relative symlink rel -> target_rel (both inside the tree), the way
        sysfs writes them."""
        path = self.p(rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.symlink(os.path.relpath(self.p(target_rel), os.path.dirname(path)), path)

    def binary(self, rel, b):
        path = self.p(rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(b)

    def mkdir(self, rel, marker=None):
        os.makedirs(self.p(rel), exist_ok=True)
        if marker:
            self.attrs(rel, **marker)

    def queue(self, disk, **kv):
        base = dict(logical_block_size=512, physical_block_size=512, minimum_io_size=512,
                    optimal_io_size=0, max_hw_sectors_kb=128, max_sectors_kb=128, rotational=0,
                    zoned="none", scheduler="[none] mq-deadline", nr_requests=1023, io_poll=0,
                    write_cache="write back")
        base.update(kv)
        self.attrs(os.path.join(disk, "queue"), **{k: v for k, v in base.items() if v is not None})

    def mq(self, disk, n):
        for i in range(n):
            self.attrs(os.path.join(disk, "mq", str(i)), cpu_list=i, nr_tags=1023)

    def disk(self, devdir, name, dev, sectors, **kv):
        """A whole disk at sys/<devdir>/<name>, linked from sys/block."""
        d = os.path.join("sys", devdir, name)
        self.attrs(d, dev=dev, size=sectors, ro=0, removable=0, **kv)
        self.link(os.path.join("sys/block", name), d)
        self.link(os.path.join("sys/dev/block", dev), d)
        return d

    def part(self, disk, name, dev, number, start, sectors):
        d = os.path.join(disk, name)
        self.attrs(d, dev=dev, partition=number, start=start, size=sectors, ro=0)
        self.link(os.path.join("sys/dev/block", dev), d)
        return d

    def nodes(self, *names):
        for n in names:
            self.text(os.path.join("dev", n), "")


def pad(s, n):
    return s.ljust(n)


def id_ns(nsze, nsfeat, nlbaf, flbas, lbads, npwg=0, npwa=0, npdg=0, npda=0, nows=0, comment=""):
    """Identify Namespace bytes 0..(128 + 4 * formats) as commented hex."""
    b = bytearray(128 + 4 * len(lbads))
    b[0:8] = nsze.to_bytes(8, "little")
    b[8:16] = nsze.to_bytes(8, "little")
    b[16:24] = (nsze // 2).to_bytes(8, "little")
    b[24], b[25], b[26] = nsfeat, nlbaf, flbas
    for off, v in ((64, npwg), (66, npwa), (68, npdg), (70, npda), (72, nows)):
        b[off:off + 2] = v.to_bytes(2, "little")
    for i, lbads_i in enumerate(lbads):
        b[128 + 4 * i:132 + 4 * i] = (lbads_i << 16).to_bytes(4, "little")
    out = [f"# Identify Namespace (CNS 0), bytes 0..{len(b) - 1}; the rest is zero. {comment}\n"]
    for i in range(0, len(b), 16):
        out.append(f"# {i:04x}\n" + " ".join(f"{x:02x}" for x in b[i:i + 16]) + "\n")
    return "".join(out)


def pcie_nvme():
    """One PCIe Gen4 x4 NVMe SSD with a 64 KiB indirection unit (the seed's
    P5316 class of drive), two namespaces, the first partitioned and its
    partition mounted; no multipath (the controller is single-ported)."""
    t = Tree("pcie-nvme")
    pci = "sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0"
    t.attrs(pci, current_link_speed="16.0 GT/s PCIe", max_link_speed="16.0 GT/s PCIe",
            current_link_width=4, max_link_width=4, numa_node=0, vendor="0x025e", device="0x0b60")
    ctrl = pci + "/nvme/nvme0"
    t.attrs(ctrl, model=pad("SOLIDIGM SSDPF2NQ307TZ", 40), serial=pad("PHAC2151008X30PGGN", 20),
            firmware_rev=pad("ACV10340", 8), transport="pcie", address="0000:01:00.0", state="live",
            cntlid=0, numa_node=0, queue_count=129, dev="243:0",
            subsysnqn="nqn.2021-09.com.solidigm:PHAC2151008X30PGGN")
    t.link(ctrl + "/device", pci)
    t.link("sys/class/nvme/nvme0", ctrl)
    subsys = "sys/devices/virtual/nvme-subsystem/nvme-subsys0"
    t.attrs(subsys, model=pad("SOLIDIGM SSDPF2NQ307TZ", 40), serial=pad("PHAC2151008X30PGGN", 20),
            firmware_rev="ACV10340", iopolicy="numa", subsystype="nvm",
            subsysnqn="nqn.2021-09.com.solidigm:PHAC2151008X30PGGN")
    t.link(subsys + "/nvme0", ctrl)
    t.link("sys/class/nvme-subsystem/nvme-subsys0", subsys)

    # nvme0n1: 30.72 TB in 4 KiB blocks; NPWG = NOWS = 16 blocks (64 KiB).
    n1 = t.disk(ctrl[len("sys/"):], "nvme0n1", "259:0", 60000000000, nsid=1, hidden=0)
    t.link(n1 + "/device", ctrl)
    t.queue(n1, logical_block_size=4096, physical_block_size=4096, minimum_io_size=65536,
            optimal_io_size=65536, max_hw_sectors_kb=256, max_sectors_kb=256,
            write_cache="write through", atomic_write_unit_min_bytes=4096, atomic_write_unit_max_bytes=65536)
    t.mq(n1, 8)
    t.part(n1, "nvme0n1p1", "259:2", 1, 2048, 59999995904)
    t.attrs(ctrl + "/ng0n1", dev="241:0")
    t.link("sys/class/nvme-generic/ng0n1", ctrl + "/ng0n1")

    # nvme0n2: 1 GiB of 512-byte blocks, no OPTPERF; polled queues.
    n2 = t.disk(ctrl[len("sys/"):], "nvme0n2", "259:1", 2097152, nsid=2, hidden=0)
    t.link(n2 + "/device", ctrl)
    t.queue(n2, optimal_io_size=131072, max_hw_sectors_kb=256, max_sectors_kb=256, io_poll=1,
            write_cache="write through")
    t.mq(n2, 8)
    t.attrs(ctrl + "/ng0n2", dev="241:1")
    t.link("sys/class/nvme-generic/ng0n2", ctrl + "/ng0n2")

    t.text("proc/self/mountinfo",
           "22 1 0:21 / /proc rw,relatime - proc proc rw\n"
           "23 1 0:22 / /sys rw,relatime - sysfs sysfs rw\n"
           "31 1 259:2 / /data rw,noatime shared:1 - ext4 /dev/nvme0n1p1 rw\n")
    t.text("proc/swaps", "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n")
    t.nodes("nvme0", "nvme0n1", "nvme0n1p1", "nvme0n2", "ng0n1", "ng0n2")
    t.link("dev/disk/by-id/nvme-SOLIDIGM_SSDPF2NQ307TZ_PHAC2151008X30PGGN", "dev/nvme0n1")
    t.link("dev/disk/by-id/nvme-SOLIDIGM_SSDPF2NQ307TZ_PHAC2151008X30PGGN-part1", "dev/nvme0n1p1")
    t.link("dev/disk/by-id/nvme-eui.5cd2e4a1b2c3d4e5", "dev/nvme0n2")
    t.text("probe/nvme0n1.blkid", "PTUUID=2a6c7d0e-5f1b-4c8e-9a3d-1e2f3a4b5c6d\nPTTYPE=gpt\n")
    t.text("probe/nvme0n1p1.blkid",
           "LABEL=data\nUUID=8d1f6b2e-3c4a-4e5f-8a9b-0c1d2e3f4a5b\nBLOCK_SIZE=4096\nTYPE=ext4\n"
           "USAGE=filesystem\nPART_ENTRY_SCHEME=gpt\nPART_ENTRY_NUMBER=1\n")
    t.text("probe/nvme0n1.id-ns",
           id_ns(7500000000, 0x10, 1, 0x01, [9, 12], npwg=15, npwa=15, npdg=15, npda=15, nows=15,
                 comment="NSFEAT 0x10 (OPTPERF), format 1 = 4096 bytes, NPWG = NOWS = 15 (16 blocks)"))


def nvme_multipath():
    """A dual-port NVMe SSD on two PCIe functions (one controller each) in
    one subsystem: the namespace is a multipath head nvme0n1 with hidden
    paths nvme0c0n1 and nvme0c1n1. The second port trained at 5 GT/s of 8."""
    t = Tree("nvme-multipath")
    nqn = "nqn.2019-10.com.acme:dualport:AC1234567890"
    ports = [("sys/devices/pci0000:00/0000:00:03.1/0000:41:00.0", "0000:41:00.0", "8.0 GT/s PCIe", 1),
             ("sys/devices/pci0000:00/0000:00:03.2/0000:42:00.0", "0000:42:00.0", "5.0 GT/s PCIe", 2)]
    subsys = "sys/devices/virtual/nvme-subsystem/nvme-subsys0"
    t.attrs(subsys, model=pad("ACME DualPort NVMe 7.68TB", 40), serial=pad("AC1234567890", 20),
            firmware_rev="1.2.3", iopolicy="round-robin", subsystype="nvm", subsysnqn=nqn)
    t.link("sys/class/nvme-subsystem/nvme-subsys0", subsys)
    for i, (pci, addr, speed, cntlid) in enumerate(ports):
        t.attrs(pci, current_link_speed=speed, max_link_speed="8.0 GT/s PCIe", current_link_width=2,
                max_link_width=2, numa_node=1)
        ctrl = f"{pci}/nvme/nvme{i}"
        t.attrs(ctrl, model=pad("ACME DualPort NVMe 7.68TB", 40), serial=pad("AC1234567890", 20),
                firmware_rev=pad("1.2.3", 8), transport="pcie", address=addr, state="live",
                cntlid=cntlid, numa_node=1, queue_count=33, dev=f"243:{i}", subsysnqn=nqn)
        t.link(ctrl + "/device", pci)
        t.link(f"sys/class/nvme/nvme{i}", ctrl)
        t.link(f"{subsys}/nvme{i}", ctrl)
        path = t.disk(ctrl[len("sys/"):], f"nvme0c{i}n1", f"259:{i + 1}", 15002931888, nsid=1, hidden=1)
        t.link(path + "/device", ctrl)
        t.queue(path, logical_block_size=4096, physical_block_size=4096, minimum_io_size=4096,
                max_hw_sectors_kb=128, max_sectors_kb=128)
        t.mq(path, 4)
    head = t.disk(subsys[len("sys/"):], "nvme0n1", "259:0", 15002931888, nsid=1, hidden=0)
    t.link(head + "/device", subsys)
    # A bio-based device: no scheduler choice, no nr_requests, no mq/.
    t.queue(head, logical_block_size=4096, physical_block_size=4096, minimum_io_size=4096,
            scheduler="none", nr_requests=None)
    for i in range(2):
        t.link(f"{head}/multipath/nvme0c{i}n1", f"{ports[i][0]}/nvme/nvme{i}/nvme0c{i}n1")
    t.part(head, "nvme0n1p1", "259:3", 1, 2048, 15002927104)
    t.attrs(subsys + "/ng0n1", dev="241:0")
    t.link("sys/class/nvme-generic/ng0n1", subsys + "/ng0n1")
    t.text("proc/self/mountinfo",
           "22 1 0:21 / /proc rw,relatime - proc proc rw\n"
           "35 1 259:3 / /srv/my\\040data rw,relatime shared:9 - xfs /dev/nvme0n1p1 rw,attr2\n")
    t.text("proc/swaps", "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n")
    t.nodes("nvme0", "nvme1", "nvme0n1", "nvme0n1p1", "ng0n1")
    t.link("dev/disk/by-id/nvme-ACME_DualPort_NVMe_7.68TB_AC1234567890", "dev/nvme0n1")
    t.text("probe/nvme0n1.blkid", "PTUUID=0b7e\nPTTYPE=gpt\n")
    t.text("probe/nvme0n1p1.blkid", "UUID=5a5b\nTYPE=xfs\nUSAGE=filesystem\n")
    t.text("probe/nvme0n1.id-ns",
           id_ns(1875366486, 0x00, 0, 0x00, [12], comment="no OPTPERF: NPWG/NOWS not defined"))


def vm():
    """A virtual machine: root on a virtio disk partition, LVM on a second
    virtio disk mounted at /srv, a SATA disk in an MD RAID 1, two loop
    devices (one with an unmounted ext4), and zram as swap."""
    t = Tree("vm")
    v1 = "sys/devices/pci0000:00/0000:00:02.0/virtio1"
    t.attrs(v1, features="0" * 64)
    vda = t.disk(v1[len("sys/"):] + "/block", "vda", "254:0", 67108864, serial="rootdisk")
    t.link(vda + "/device", v1)
    t.queue(vda, max_hw_sectors_kb=2147483647, max_sectors_kb=1280, rotational=1,
            scheduler="[mq-deadline] none", nr_requests=256)
    t.mq(vda, 2)
    t.part(vda, "vda1", "254:1", 1, 2048, 67106783)

    v2 = "sys/devices/pci0000:00/0000:00:03.0/virtio2"
    vdb = t.disk(v2[len("sys/"):] + "/block", "vdb", "254:16", 20971520, serial="datadisk")
    t.link(vdb + "/device", v2)
    t.queue(vdb, physical_block_size=4096, minimum_io_size=4096, max_hw_sectors_kb=2147483647,
            max_sectors_kb=1280, rotational=1, scheduler="[mq-deadline] none", nr_requests=256)
    t.mq(vdb, 2)
    vdb1 = t.part(vdb, "vdb1", "254:17", 1, 2048, 20969439)

    dm0 = t.disk("devices/virtual/block", "dm-0", "253:0", 20967424)
    t.attrs(dm0, dm__name="vg0-data", dm__uuid="LVM-Wq3xO0aTQ1u2v3w4x5y6z7A8B9C0D1E2F3G4H5I6J7K8L9M0N1O2P3Q4R5S6T7U8",
            dm__suspended=0)
    t.queue(dm0, physical_block_size=4096, minimum_io_size=4096, scheduler="none", nr_requests=None,
            max_hw_sectors_kb=2147483647)
    t.link(dm0 + "/slaves/vdb1", vdb1)
    t.link(vdb1 + "/holders/dm-0", dm0)

    scsi = "sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0"
    t.attrs(scsi, vendor=pad("ATA", 8), model=pad("ST4000NM0035-1V4", 16), rev="TN04", scsi_level=6,
            wwid="t10.ATA     ST4000NM0035-1V4107                      ZC11ABCD")
    t.binary(scsi + "/vpd_pg80", b"\x00\x80\x00\x14" + b"            ZC11ABCD")
    sda = t.disk(scsi[len("sys/"):] + "/block", "sda", "8:0", 7814037168)
    t.link(sda + "/device", scsi)
    t.queue(sda, physical_block_size=4096, minimum_io_size=4096, max_hw_sectors_kb=32767,
            max_sectors_kb=1280, rotational=1, scheduler="mq-deadline kyber [bfq] none", nr_requests=64)
    t.mq(sda, 1)
    md0 = t.disk("devices/virtual/block", "md0", "9:0", 7813771264)
    t.attrs(md0, md__level="raid1", md__raid_disks=2)
    t.queue(md0, physical_block_size=4096, minimum_io_size=4096, scheduler="none", nr_requests=None)
    t.link(md0 + "/slaves/sda", sda)
    t.link(sda + "/holders/md0", md0)

    for i, (sectors, backing) in enumerate(((2097152, "/var/tmp/scratch.img"), (409600, "/var/tmp/ext4.img"))):
        lo = t.disk("devices/virtual/block", f"loop{i}", f"7:{i}", sectors)
        t.attrs(lo, loop__backing_file=backing, loop__offset=0, loop__sizelimit=0, loop__dio=1)
        t.queue(lo, scheduler="none", nr_requests=128, max_hw_sectors_kb=1280, max_sectors_kb=1280)
        t.mq(lo, 1)

    z = t.disk("devices/virtual/block", "zram0", "252:0", 8388608, disksize=4294967296,
               comp_algorithm="lzo-rle [lz4] zstd")
    t.queue(z, logical_block_size=4096, physical_block_size=4096, minimum_io_size=4096,
            optimal_io_size=4096, scheduler="none", nr_requests=None, max_hw_sectors_kb=128)

    t.text("proc/self/mountinfo",
           "21 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,errors=remount-ro\n"
           "22 21 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw\n"
           "40 21 253:0 / /srv rw,relatime shared:20 - ext4 /dev/mapper/vg0-data rw\n")
    t.text("proc/swaps",
           "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
           "/dev/zram0                              partition\t4194300\t\t0\t\t100\n")
    t.nodes("vda", "vda1", "vdb", "vdb1", "dm-0", "sda", "md0", "loop0", "loop1", "zram0")
    t.link("dev/mapper/vg0-data", "dev/dm-0")
    t.link("dev/disk/by-id/virtio-datadisk", "dev/vdb")
    t.link("dev/disk/by-id/virtio-datadisk-part1", "dev/vdb1")
    t.link("dev/disk/by-label/scratch", "dev/loop1")
    t.text("probe/vda.blkid", "PTUUID=1c2d3e4f\nPTTYPE=dos\n")
    t.text("probe/vda1.blkid", "UUID=0f1e2d3c\nTYPE=ext4\nUSAGE=filesystem\n")
    t.text("probe/vdb.blkid", "PTUUID=aa55\nPTTYPE=gpt\n")
    t.text("probe/vdb1.blkid", "UUID=Ab12-Cd34\nVERSION=LVM2 001\nTYPE=LVM2_member\nUSAGE=raid\n")
    t.text("probe/dm-0.blkid", "UUID=77aa\nTYPE=ext4\nUSAGE=filesystem\n")
    t.text("probe/sda.blkid", "UUID=99bb\nTYPE=linux_raid_member\nUSAGE=raid\n")
    t.text("probe/md0.blkid", "")
    t.text("probe/loop0.blkid", "")
    t.text("probe/loop1.blkid", "LABEL=scratch\nUUID=3e4f\nTYPE=ext4\nUSAGE=filesystem\n")
    t.text("probe/zram0.blkid", "UUID=5566\nTYPE=swap\nUSAGE=other\n")


def nvme_renumbered():
    """Instances out of step, as after a controller reset or hot-plug: PCIe
    controller nvme1 in subsystem nvme-subsys0 serves namespace nvme0n1
    (subsystem instance) whose generic node is ng1n1 (controller instance).
    Beside it, an NVMe/TCP connection (nvme-fabrics) whose namespace is a
    multipath head nvme2n1 (subsystem nvme-subsys2) with one path, nvme2c2n1
    on controller nvme2, its generic node ng2n1."""
    t = Tree("nvme-renumbered")
    pci = "sys/devices/pci0000:00/0000:00:1d.0/0000:3b:00.0"
    t.attrs(pci, current_link_speed="8.0 GT/s PCIe", max_link_speed="8.0 GT/s PCIe",
            current_link_width=4, max_link_width=4, numa_node=0)
    ctrl = pci + "/nvme/nvme1"
    t.attrs(ctrl, model=pad("Example Gen3 SSD", 40), serial=pad("GEN3SERIAL01", 20),
            firmware_rev=pad("3B2QGXA7", 8), transport="pcie", address="0000:3b:00.0", state="live",
            cntlid=6, numa_node=0, queue_count=65, dev="243:1", subsysnqn="nqn.2014.08.org.nvmexpress:gen3")
    t.link(ctrl + "/device", pci)
    t.link("sys/class/nvme/nvme1", ctrl)
    s0 = "sys/devices/virtual/nvme-subsystem/nvme-subsys0"
    t.attrs(s0, model=pad("Example Gen3 SSD", 40), serial=pad("GEN3SERIAL01", 20), firmware_rev="3B2QGXA7",
            iopolicy="numa", subsystype="nvm", subsysnqn="nqn.2014.08.org.nvmexpress:gen3")
    t.link(s0 + "/nvme1", ctrl)
    t.link("sys/class/nvme-subsystem/nvme-subsys0", s0)
    ns = t.disk(ctrl[len("sys/"):], "nvme0n1", "259:0", 1953525168, nsid=1, hidden=0)
    t.link(ns + "/device", ctrl)
    t.queue(ns, max_hw_sectors_kb=512, max_sectors_kb=512)
    t.mq(ns, 16)
    t.attrs(ctrl + "/ng1n1", dev="241:0")
    t.link("sys/class/nvme-generic/ng1n1", ctrl + "/ng1n1")

    fab = "sys/devices/virtual/nvme-fabrics/ctl/nvme2"
    nqn = "nqn.2024-01.io.nvbench:target"
    t.attrs(fab, model=pad("Linux", 40), serial=pad("2f4a9c1e7b3d5a60", 20), firmware_rev=pad("6.1.0-2", 8),
            transport="tcp", address="traddr=127.0.0.1,trsvcid=4420,src_addr=127.0.0.1", state="live",
            cntlid=1, numa_node=-1, queue_count=3, dev="243:2", subsysnqn=nqn)
    t.link("sys/class/nvme/nvme2", fab)
    s1 = "sys/devices/virtual/nvme-subsystem/nvme-subsys2"
    t.attrs(s1, model=pad("Linux", 40), serial=pad("2f4a9c1e7b3d5a60", 20), firmware_rev="6.1.0-2",
            iopolicy="numa", subsystype="nvm", subsysnqn=nqn)
    t.link(s1 + "/nvme2", fab)
    t.link("sys/class/nvme-subsystem/nvme-subsys2", s1)
    path = t.disk(fab[len("sys/"):], "nvme2c2n1", "259:2", 2097152, nsid=1, hidden=1)
    t.link(path + "/device", fab)
    t.queue(path, physical_block_size=65536, minimum_io_size=65536, optimal_io_size=65536)
    t.mq(path, 2)
    head = t.disk(s1[len("sys/"):], "nvme2n1", "259:1", 2097152, nsid=1, hidden=0)
    t.link(head + "/device", s1)
    t.queue(head, physical_block_size=65536, minimum_io_size=65536, optimal_io_size=65536,
            scheduler="none", nr_requests=None)
    t.attrs(s1 + "/ng2n1", dev="241:1")
    t.link("sys/class/nvme-generic/ng2n1", s1 + "/ng2n1")
    t.text("proc/self/mountinfo", "22 1 0:21 / /proc rw,relatime - proc proc rw\n")
    t.text("proc/swaps", "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n")
    t.nodes("nvme1", "nvme2", "nvme0n1", "nvme2n1", "ng1n1", "ng2n1")


if __name__ == "__main__":
    pcie_nvme()
    nvme_multipath()
    nvme_renumbered()
    vm()
