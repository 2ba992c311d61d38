/*
 * Devices: discovery on recorded sysfs trees (tests/data/sysfs, written by
 * mktrees.py there), the arithmetic of PCIe link ceilings and Identify
 * Namespace, the guard's decisions on those trees, the public API, and, as
 * root, the guard against real loop devices carrying real filesystems,
 * mounted and not, partitioned, swapped on, and reached through symlinks.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nvbench.h"
#include "devices/devices.h"
#include "testutil.h"

#define TREES NVB_SOURCE_DIR "/tests/data/sysfs"

/* ------------------------------------------------------------ helpers */

struct tree {
    struct nvb__devctx c;
    struct nvb__devlist l;
};

static struct tree *tree_open(const char *name)
{
    struct tree *t = calloc(1, sizeof *t);
    char root[512];
    snprintf(root, sizeof root, "%s/%s/sys", TREES, name);
    ck_assert_int_eq(nvb__devctx_init(&t->c, root), 0);
    ck_assert_int_eq(nvb__dev_scan(&t->c, &t->l), 0);
    for (unsigned i = 0; i < t->l.n; i++)
        nvb__dev_probe(&t->c, &t->l, &t->l.d[i], NVB__PROBE_ALL);
    return t;
}

static void tree_close(struct tree *t)
{
    nvb__devlist_free(&t->l);
    free(t);
}

/* The value at key of device dev's JSON, as nvb_device_get gives it;
 * "<null>", "<no key>", "<no device>" otherwise. */
static const char *get(struct tree *t, const char *dev, const char *key)
{
    static char buf[4096];
    struct nvb__dev *d = nvb__devlist_find(&t->l, dev);
    if (!d)
        return "<no device>";
    int rc = nvb__dev_get(&t->l, d, key, buf, sizeof buf);
    if (rc == -ENODATA)
        return "<null>";
    if (rc == -ENOENT)
        return "<no key>";
    ck_assert_msg(rc >= 0, "%s %s: %s", dev, key, nvb_strerror(rc));
    return buf;
}

struct want {
    const char *dev, *key, *value;
};

static void check_all(struct tree *t, const struct want *w, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *v = get(t, w[i].dev, w[i].key);
        ck_assert_msg(!strcmp(v, w[i].value), "%s.%s is '%s', expected '%s'", w[i].dev, w[i].key, v, w[i].value);
    }
}

static double getd(struct tree *t, const char *dev, const char *key)
{
    const char *v = get(t, dev, key);
    ck_assert_msg(v[0] != '<', "%s.%s is %s", dev, key, v);
    return strtod(v, NULL);
}

#define CLOSE_TO(a, b, tol) ck_assert_msg(fabs((a) - (b)) <= (tol), "%s = %.6f, expected %.6f", #a, (double)(a), (double)(b))

/* ------------------------------------------------------------ arithmetic */

START_TEST(pcie_link_ceiling)
{
    /* GT/s x lanes x line code / 8 bits, in 10^9 bytes/s */
    CLOSE_TO(nvb__pcie_ceiling_gbs(2.5, 1), 0.25, 1e-9);      /* 8b/10b */
    CLOSE_TO(nvb__pcie_ceiling_gbs(5.0, 4), 2.0, 1e-9);       /* 8b/10b */
    CLOSE_TO(nvb__pcie_ceiling_gbs(5.0, 2), 1.0, 1e-9);
    CLOSE_TO(nvb__pcie_ceiling_gbs(8.0, 4), 3.938, 5e-4);     /* 128b/130b */
    CLOSE_TO(nvb__pcie_ceiling_gbs(8.0, 2), 1.969, 5e-4);
    CLOSE_TO(nvb__pcie_ceiling_gbs(16.0, 4), 7.877, 5e-4);
    CLOSE_TO(nvb__pcie_ceiling_gbs(16.0, 4), 16.0 * 4 * 128 / 130 / 8, 1e-12);
    CLOSE_TO(nvb__pcie_ceiling_gbs(32.0, 4), 15.754, 5e-4);
    CLOSE_TO(nvb__pcie_ceiling_gbs(32.0, 16), 63.015, 5e-4);
    CLOSE_TO(nvb__pcie_ceiling_gbs(64.0, 4), 31.508, 5e-4);
    ck_assert(nvb__pcie_ceiling_gbs(0, 4) == 0);  /* "Unknown" speed */
    ck_assert(nvb__pcie_ceiling_gbs(16, 0) == 0); /* no width */
}
END_TEST

static void put16(uint8_t *b, int off, unsigned v)
{
    b[off] = (uint8_t)v;
    b[off + 1] = (uint8_t)(v >> 8);
}

START_TEST(identify_namespace_parse)
{
    uint8_t b[4096];
    struct nvb__idns id;
    memset(b, 0, sizeof b);
    /* two formats, the second in use: 4096 bytes + 8 of metadata */
    b[24] = 0x10; /* OPTPERF */
    b[25] = 1;
    b[26] = 0x01;
    b[128 + 2] = 9;
    b[132 + 2] = 12;
    b[132] = 8;
    put16(b, 64, 15); /* NPWG 16 blocks */
    put16(b, 66, 0);
    put16(b, 68, 255);
    put16(b, 70, 7);
    put16(b, 72, 31); /* NOWS 32 blocks */
    ck_assert_int_eq(nvb__idns_parse(b, sizeof b, &id), 0);
    ck_assert_uint_eq(id.lba_size, 4096);
    ck_assert_uint_eq(id.ms, 8);
    ck_assert_int_eq(id.optperf, 1);
    ck_assert_uint_eq(id.npwg, 16);
    ck_assert_uint_eq(id.npwa, 1);
    ck_assert_uint_eq(id.npdg, 256);
    ck_assert_uint_eq(id.npda, 8);
    ck_assert_uint_eq(id.nows, 32);

    /* without OPTPERF the fields mean nothing */
    b[24] = 0;
    ck_assert_int_eq(nvb__idns_parse(b, sizeof b, &id), 0);
    ck_assert_int_eq(id.optperf, 0);
    ck_assert_uint_eq(id.npwg, 0);
    ck_assert_uint_eq(id.nows, 0);

    /* more than 16 formats: FLBAS bits 6:5 extend the index (format 17) */
    b[25] = 19;
    b[26] = 0x21;
    b[128 + 4 * 17 + 2] = 13;
    ck_assert_int_eq(nvb__idns_parse(b, sizeof b, &id), 0);
    ck_assert_uint_eq(id.lba_size, 8192);
    /* with 16 or fewer, those bits are not part of the index */
    b[25] = 3;
    b[128 + 4 * 1 + 2] = 12;
    ck_assert_int_eq(nvb__idns_parse(b, sizeof b, &id), 0);
    ck_assert_uint_eq(id.lba_size, 4096);

    /* a format outside NLBAF, an impossible LBADS, a short buffer */
    b[25] = 0;
    b[26] = 0x02;
    ck_assert_int_eq(nvb__idns_parse(b, sizeof b, &id), -EINVAL);
    b[26] = 0;
    b[128 + 2] = 3;
    ck_assert_int_eq(nvb__idns_parse(b, sizeof b, &id), -EINVAL);
    ck_assert_int_eq(nvb__idns_parse(b, 100, &id), -EINVAL);
}
END_TEST

/* ------------------------------------------------------------ recorded trees */

START_TEST(tree_pcie_nvme)
{
    struct tree *t = tree_open("pcie-nvme");
    ck_assert_uint_eq(t->l.n, 3);
    ck_assert_str_eq(t->l.d[0].name, "nvme0n1");
    ck_assert_str_eq(t->l.d[1].name, "nvme0n1p1"); /* a partition right after its disk */
    ck_assert_str_eq(t->l.d[2].name, "nvme0n2");
    static const struct want w[] = {
        {"nvme0n1", "name", "nvme0n1"},
        {"nvme0n1", "path", "/dev/nvme0n1"},
        {"nvme0n1", "kind", "nvme"},
        {"nvme0n1", "dev", "259:0"},
        {"nvme0n1", "hidden", "false"},
        {"nvme0n1", "size", "30720000000000"},
        {"nvme0n1", "logical_block_size", "4096"},
        {"nvme0n1", "physical_block_size", "4096"},
        {"nvme0n1", "minimum_io_size", "65536"},
        {"nvme0n1", "optimal_io_size", "65536"},
        {"nvme0n1", "max_transfer", "262144"},
        {"nvme0n1", "max_sectors", "262144"},
        {"nvme0n1", "rotational", "false"},
        {"nvme0n1", "zoned", "none"},
        {"nvme0n1", "scheduler", "none"},
        {"nvme0n1", "nr_requests", "1023"},
        {"nvme0n1", "io_poll", "false"},
        {"nvme0n1", "write_cache", "write through"},
        {"nvme0n1", "atomic_write_unit_min_bytes", "4096"},
        {"nvme0n1", "atomic_write_unit_max_bytes", "65536"},
        {"nvme0n1", "read_only", "false"},
        {"nvme0n1", "removable", "false"},
        {"nvme0n1", "model", "SOLIDIGM SSDPF2NQ307TZ"}, /* padding trimmed */
        {"nvme0n1", "serial", "PHAC2151008X30PGGN"},
        {"nvme0n1", "firmware_rev", "ACV10340"},
        {"nvme0n1", "parent", "<null>"},
        {"nvme0n1", "partition", "<null>"},
        {"nvme0n1", "partitions", "[\"nvme0n1p1\"]"},
        {"nvme0n1", "holders", "[]"},
        {"nvme0n1", "mounts", "[]"},
        {"nvme0n1", "swap", "false"},
        {"nvme0n1", "busy", "its partition /dev/nvme0n1p1 is mounted on /data (ext4)"},
        {"nvme0n1", "signature.type", "gpt"},
        {"nvme0n1", "signature.usage", "partition_table"},
        {"nvme0n1", "signature.source", "recorded"},
        {"nvme0n1", "indirection_unit", "65536"},
        {"nvme0n1", "indirection_unit_source", "identify"},
        {"nvme0n1", "nvme.nsid", "1"},
        {"nvme0n1", "nvme.role", "single"},
        {"nvme0n1", "nvme.head", "<null>"},
        {"nvme0n1", "nvme.paths", "[]"},
        {"nvme0n1", "nvme.subsystem", "nvme-subsys0"},
        {"nvme0n1", "nvme.generic_path", "/dev/ng0n1"},
        {"nvme0n1", "nvme.controllers.0.name", "nvme0"},
        {"nvme0n1", "nvme.controllers.0.model", "SOLIDIGM SSDPF2NQ307TZ"},
        {"nvme0n1", "nvme.controllers.0.serial", "PHAC2151008X30PGGN"},
        {"nvme0n1", "nvme.controllers.0.firmware_rev", "ACV10340"},
        {"nvme0n1", "nvme.controllers.0.transport", "pcie"},
        {"nvme0n1", "nvme.controllers.0.address", "0000:01:00.0"},
        {"nvme0n1", "nvme.controllers.0.state", "live"},
        {"nvme0n1", "nvme.controllers.0.numa_node", "0"},
        {"nvme0n1", "nvme.controllers.0.queue_count", "8"}, /* mq/ entries */
        {"nvme0n1", "nvme.controllers.0.subsysnqn", "nqn.2021-09.com.solidigm:PHAC2151008X30PGGN"},
        {"nvme0n1", "nvme.controllers.0.cntlid", "0"},
        {"nvme0n1", "nvme.controllers.0.pcie.current_link_speed_gts", "16"},
        {"nvme0n1", "nvme.controllers.0.pcie.current_link_width", "4"},
        {"nvme0n1", "nvme.controllers.0.pcie.max_link_speed_gts", "16"},
        {"nvme0n1", "nvme.controllers.0.pcie.max_link_width", "4"},
        {"nvme0n1", "nvme.controllers.1", "<no key>"},
        {"nvme0n1", "nvme.identify.source", "recorded"},
        {"nvme0n1", "nvme.identify.nsze", "7500000000"},
        {"nvme0n1", "nvme.identify.lba_size", "4096"},
        {"nvme0n1", "nvme.identify.metadata_size", "0"},
        {"nvme0n1", "nvme.identify.nsfeat", "16"},
        {"nvme0n1", "nvme.identify.optperf", "true"},
        {"nvme0n1", "nvme.identify.npwg_bytes", "65536"},
        {"nvme0n1", "nvme.identify.nows_bytes", "65536"},
        {"nvme0n1", "nvme.identify.error", "<null>"},
        {"nvme0n1", "backing_file", "<null>"},
        {"nvme0n1", "dm", "<null>"},

        {"nvme0n1p1", "kind", "partition"},
        {"nvme0n1p1", "path", "/dev/nvme0n1p1"},
        {"nvme0n1p1", "dev", "259:2"},
        {"nvme0n1p1", "parent", "nvme0n1"},
        {"nvme0n1p1", "partition.number", "1"},
        {"nvme0n1p1", "partition.start", "1048576"},
        {"nvme0n1p1", "size", "30719997902848"},
        {"nvme0n1p1", "logical_block_size", "4096"}, /* the disk's queue */
        {"nvme0n1p1", "model", "SOLIDIGM SSDPF2NQ307TZ"},
        {"nvme0n1p1", "mounts.0.mount_point", "/data"},
        {"nvme0n1p1", "mounts.0.fstype", "ext4"},
        {"nvme0n1p1", "mounts.0.source", "/dev/nvme0n1p1"},
        {"nvme0n1p1", "mounts.1", "<no key>"},
        {"nvme0n1p1", "signature.type", "ext4"},
        {"nvme0n1p1", "signature.usage", "filesystem"},
        {"nvme0n1p1", "signature.label", "data"},
        {"nvme0n1p1", "signature.uuid", "8d1f6b2e-3c4a-4e5f-8a9b-0c1d2e3f4a5b"},
        {"nvme0n1p1", "indirection_unit", "65536"}, /* the disk's flash */
        {"nvme0n1p1", "indirection_unit_source", "identify"},
        {"nvme0n1p1", "nvme", "<null>"},

        {"nvme0n2", "kind", "nvme"},
        {"nvme0n2", "size", "1073741824"},
        {"nvme0n2", "logical_block_size", "512"},
        {"nvme0n2", "io_poll", "true"},
        {"nvme0n2", "nvme.nsid", "2"},
        {"nvme0n2", "nvme.generic_path", "/dev/ng0n2"},
        {"nvme0n2", "nvme.controllers.0.name", "nvme0"},
        /* nothing recorded and no device node: unknown, and why */
        {"nvme0n2", "nvme.identify.source", "<null>"},
        {"nvme0n2", "nvme.identify.error", "no device node for Identify"},
        {"nvme0n2", "indirection_unit", "131072"},
        {"nvme0n2", "indirection_unit_source", "sysfs"},
        {"nvme0n2", "signature.source", "unknown"},
        {"nvme0n2", "signature.why", "no device node to probe"},
        {"nvme0n2", "busy", "<null>"},
    };
    check_all(t, w, sizeof w / sizeof w[0]);
    /* 16 GT/s x4, 128b/130b */
    CLOSE_TO(getd(t, "nvme0n1", "nvme.controllers.0.pcie.link_ceiling_gbs"), 7.877, 5e-4);
    CLOSE_TO(getd(t, "nvme0n1", "nvme.controllers.0.pcie.max_link_ceiling_gbs"), 7.877, 5e-4);
    CLOSE_TO(getd(t, "nvme0n1", "nvme.link_ceiling_gbs"), 7.877, 5e-4);
    /* containers come back as JSON */
    ck_assert_str_eq(get(t, "nvme0n1p1", "mounts"), "[{\"mount_point\":\"/data\",\"fstype\":\"ext4\",\"source\":\"/dev/nvme0n1p1\"}]");
    tree_close(t);
}
END_TEST

START_TEST(tree_nvme_multipath)
{
    struct tree *t = tree_open("nvme-multipath");
    static const struct want w[] = {
        {"nvme0n1", "kind", "nvme"},
        {"nvme0n1", "path", "/dev/nvme0n1"},
        {"nvme0n1", "size", "7681501126656"},
        {"nvme0n1", "model", "ACME DualPort NVMe 7.68TB"}, /* the subsystem's */
        {"nvme0n1", "serial", "AC1234567890"},
        {"nvme0n1", "firmware_rev", "1.2.3"},
        {"nvme0n1", "scheduler", "none"},
        {"nvme0n1", "nr_requests", "<null>"}, /* bio-based */
        {"nvme0n1", "nvme.role", "head"},
        {"nvme0n1", "nvme.nsid", "1"},
        {"nvme0n1", "nvme.paths", "[\"nvme0c0n1\",\"nvme0c1n1\"]"},
        {"nvme0n1", "nvme.subsystem", "nvme-subsys0"},
        {"nvme0n1", "nvme.generic_path", "/dev/ng0n1"},
        {"nvme0n1", "nvme.controllers.0.name", "nvme0"},
        {"nvme0n1", "nvme.controllers.0.address", "0000:41:00.0"},
        {"nvme0n1", "nvme.controllers.0.cntlid", "1"},
        {"nvme0n1", "nvme.controllers.0.numa_node", "1"},
        {"nvme0n1", "nvme.controllers.0.queue_count", "4"},
        {"nvme0n1", "nvme.controllers.0.pcie.current_link_speed_gts", "8"},
        {"nvme0n1", "nvme.controllers.0.pcie.current_link_width", "2"},
        {"nvme0n1", "nvme.controllers.1.name", "nvme1"},
        {"nvme0n1", "nvme.controllers.1.address", "0000:42:00.0"},
        {"nvme0n1", "nvme.controllers.1.cntlid", "2"},
        {"nvme0n1", "nvme.controllers.1.pcie.current_link_speed_gts", "5"},
        {"nvme0n1", "nvme.controllers.1.pcie.max_link_speed_gts", "8"},
        {"nvme0n1", "nvme.controllers.2", "<no key>"},
        /* Identify without OPTPERF; sysfs gives nothing above the LBA */
        {"nvme0n1", "nvme.identify.optperf", "false"},
        {"nvme0n1", "nvme.identify.npwg_bytes", "<null>"},
        {"nvme0n1", "nvme.identify.lba_size", "4096"},
        {"nvme0n1", "indirection_unit", "<null>"},
        {"nvme0n1", "indirection_unit_source", "unknown"},
        {"nvme0n1", "busy", "its partition /dev/nvme0n1p1 is mounted on /srv/my data (xfs)"},

        {"nvme0c0n1", "kind", "nvme-path"},
        {"nvme0c0n1", "path", "<null>"},
        {"nvme0c0n1", "hidden", "true"},
        {"nvme0c0n1", "nvme.role", "path"},
        {"nvme0c0n1", "nvme.head", "nvme0n1"},
        {"nvme0c0n1", "nvme.generic_path", "<null>"},
        {"nvme0c0n1", "nvme.controllers.0.name", "nvme0"},
        {"nvme0c0n1", "nvme.controllers.1", "<no key>"},
        {"nvme0c0n1", "nvme.identify.source", "recorded"}, /* the head's */
        {"nvme0c0n1", "busy", "a partition of its multipath head /dev/nvme0n1p1 is mounted on /srv/my data (xfs)"},
        {"nvme0c1n1", "nvme.controllers.0.name", "nvme1"},
        {"nvme0c1n1", "nvme.controllers.0.queue_count", "4"},
        {"nvme0c1n1", "nr_requests", "1023"},

        {"nvme0n1p1", "mounts.0.mount_point", "/srv/my data"}, /* \040 unescaped */
        {"nvme0n1p1", "mounts.0.fstype", "xfs"},
        {"nvme0n1p1", "parent", "nvme0n1"},
    };
    check_all(t, w, sizeof w / sizeof w[0]);
    /* 8 GT/s x2 at 128b/130b, 5 GT/s x2 at 8b/10b, and the namespace
     * reaches both */
    CLOSE_TO(getd(t, "nvme0n1", "nvme.controllers.0.pcie.link_ceiling_gbs"), 1.969, 5e-4);
    CLOSE_TO(getd(t, "nvme0n1", "nvme.controllers.1.pcie.link_ceiling_gbs"), 1.0, 1e-9);
    CLOSE_TO(getd(t, "nvme0n1", "nvme.controllers.1.pcie.max_link_ceiling_gbs"), 1.969, 5e-4);
    CLOSE_TO(getd(t, "nvme0n1", "nvme.link_ceiling_gbs"), 2.969, 5e-4);
    CLOSE_TO(getd(t, "nvme0c1n1", "nvme.link_ceiling_gbs"), 1.0, 1e-9);
    tree_close(t);
}
END_TEST

START_TEST(tree_nvme_renumbered)
{
    struct tree *t = tree_open("nvme-renumbered");
    static const struct want w[] = {
        /* block device by subsystem instance, generic node by controller's */
        {"nvme0n1", "nvme.role", "single"},
        {"nvme0n1", "nvme.generic_path", "/dev/ng1n1"},
        {"nvme0n1", "nvme.subsystem", "nvme-subsys0"},
        {"nvme0n1", "nvme.controllers.0.name", "nvme1"},
        {"nvme0n1", "nvme.controllers.0.cntlid", "6"},
        {"nvme0n1", "nvme.controllers.0.queue_count", "16"},
        {"nvme0n1", "model", "Example Gen3 SSD"},
        {"nvme0n1", "max_transfer", "524288"},
        /* NVMe/TCP: no PCIe link, a transport address, no NUMA node */
        {"nvme2n1", "nvme.role", "head"},
        {"nvme2n1", "nvme.paths", "[\"nvme2c2n1\"]"},
        {"nvme2n1", "nvme.generic_path", "/dev/ng2n1"},
        {"nvme2n1", "nvme.subsystem", "nvme-subsys2"},
        {"nvme2n1", "nvme.link_ceiling_gbs", "<null>"},
        {"nvme2n1", "nvme.controllers.0.name", "nvme2"},
        {"nvme2n1", "nvme.controllers.0.transport", "tcp"},
        {"nvme2n1", "nvme.controllers.0.address", "traddr=127.0.0.1,trsvcid=4420,src_addr=127.0.0.1"},
        {"nvme2n1", "nvme.controllers.0.numa_node", "<null>"},
        {"nvme2n1", "nvme.controllers.0.queue_count", "2"},
        {"nvme2n1", "nvme.controllers.0.pcie", "<null>"},
        {"nvme2n1", "nvme.controllers.0.subsysnqn", "nqn.2024-01.io.nvbench:target"},
        {"nvme2n1", "model", "Linux"},
        {"nvme2n1", "physical_block_size", "65536"},
        {"nvme2n1", "indirection_unit", "65536"},
        {"nvme2n1", "indirection_unit_source", "sysfs"},
        {"nvme2c2n1", "nvme.head", "nvme2n1"},
        {"nvme2c2n1", "indirection_unit", "65536"},
    };
    check_all(t, w, sizeof w / sizeof w[0]);
    CLOSE_TO(getd(t, "nvme0n1", "nvme.link_ceiling_gbs"), 3.938, 5e-4); /* 8 GT/s x4 */
    char name[64], msg[1024];
    ck_assert_int_eq(nvb__dev_resolve(&t->c, &t->l, "/dev/ng1n1", name, sizeof name), 0);
    ck_assert_str_eq(name, "nvme0n1");
    ck_assert_int_eq(nvb__dev_resolve(&t->c, &t->l, "/dev/ng2n1", name, sizeof name), 0);
    ck_assert_str_eq(name, "nvme2n1");
    ck_assert_int_eq(nvb__guard_check(&t->c, &t->l, "/dev/ng1n1", 0, "write", msg, sizeof msg), -EPERM);
    ck_assert_msg(strstr(msg, "'/dev/ng1n1' (NVMe namespace /dev/nvme0n1)"), "%s", msg);
    tree_close(t);
}
END_TEST

START_TEST(tree_vm)
{
    struct tree *t = tree_open("vm");
    static const struct want w[] = {
        {"vda", "kind", "virtio"},
        {"vda", "serial", "rootdisk"},
        {"vda", "rotational", "true"},
        {"vda", "scheduler", "mq-deadline"},
        {"vda", "nr_requests", "256"},
        {"vda", "size", "34359738368"},
        {"vda", "partitions", "[\"vda1\"]"},
        {"vda", "signature.type", "dos"},
        {"vda1", "kind", "partition"},
        {"vda1", "serial", "rootdisk"},
        {"vda1", "mounts.0.mount_point", "/"},
        {"vdb", "physical_block_size", "4096"},
        {"vdb", "indirection_unit", "4096"}, /* minimum_io_size above the 512 LBA */
        {"vdb", "indirection_unit_source", "sysfs"},
        {"vdb1", "holders", "[\"dm-0\"]"},
        {"vdb1", "signature.type", "LVM2_member"},
        {"vdb1", "signature.usage", "raid"},
        {"dm-0", "kind", "dm"},
        {"dm-0", "dm.name", "vg0-data"},
        {"dm-0", "slaves", "[\"vdb1\"]"},
        {"dm-0", "mounts.0.mount_point", "/srv"},
        {"dm-0", "mounts.0.source", "/dev/mapper/vg0-data"},
        {"dm-0", "nr_requests", "<null>"},
        {"sda", "kind", "scsi"},
        {"sda", "vendor", "ATA"},
        {"sda", "model", "ST4000NM0035-1V4"},
        {"sda", "firmware_rev", "TN04"},
        {"sda", "serial", "ZC11ABCD"}, /* VPD page 0x80 */
        {"sda", "rotational", "true"},
        {"sda", "scheduler", "bfq"},
        {"sda", "nr_requests", "64"},
        {"sda", "max_transfer", "33553408"},
        {"sda", "holders", "[\"md0\"]"},
        {"sda", "busy", "/dev/sda is held by md0 (raid1)"},
        {"md0", "kind", "md"},
        {"md0", "md_level", "raid1"},
        {"md0", "slaves", "[\"sda\"]"},
        {"md0", "busy", "<null>"},
        {"md0", "signature.source", "none"},
        {"loop0", "kind", "loop"},
        {"loop0", "backing_file", "/var/tmp/scratch.img"},
        {"loop0", "size", "1073741824"},
        {"loop0", "signature.type", "<null>"},
        {"loop0", "signature.source", "none"},
        {"loop1", "signature.type", "ext4"},
        {"loop1", "signature.label", "scratch"},
        {"zram0", "kind", "zram"},
        {"zram0", "swap", "true"},
        {"zram0", "busy", "/dev/zram0 is active swap"},
        {"zram0", "logical_block_size", "4096"},
        {"zram0", "signature.type", "swap"},
        {"vda", "nvme", "<null>"},
        {"nosuch", "kind", "<no device>"},
    };
    check_all(t, w, sizeof w / sizeof w[0]);
    ck_assert_str_eq(get(t, "vdb", "busy"), "its partition /dev/vdb1 is held by dm-0 (vg0-data), mounted on /srv");
    tree_close(t);
}
END_TEST

START_TEST(resolve_aliases)
{
    struct tree *t = tree_open("pcie-nvme");
    char name[64];
    static const struct { const char *path, *name; } ok[] = {
        {"/dev/nvme0n1", "nvme0n1"},
        {"/dev/nvme0n1p1", "nvme0n1p1"},
        {"/dev/ng0n1", "nvme0n1"},
        {"/dev/ng0n2", "nvme0n2"},
        {"/dev/disk/by-id/nvme-SOLIDIGM_SSDPF2NQ307TZ_PHAC2151008X30PGGN", "nvme0n1"},
        {"/dev/disk/by-id/nvme-SOLIDIGM_SSDPF2NQ307TZ_PHAC2151008X30PGGN-part1", "nvme0n1p1"},
        {"/dev/disk/by-id/nvme-eui.5cd2e4a1b2c3d4e5", "nvme0n2"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        int rc = nvb__dev_resolve(&t->c, &t->l, ok[i].path, name, sizeof name);
        ck_assert_msg(rc == 0, "%s: %s", ok[i].path, nvb_strerror(rc));
        ck_assert_str_eq(name, ok[i].name);
    }
    ck_assert_int_eq(nvb__dev_resolve(&t->c, &t->l, "/dev/nope", name, sizeof name), -ENOENT);
    ck_assert_int_eq(nvb__dev_resolve(&t->c, &t->l, "/dev/nvme0", name, sizeof name), -ENODEV); /* a controller */
    /* a recorded tree never answers for the host's own paths */
    ck_assert_int_eq(nvb__dev_resolve(&t->c, &t->l, "/etc/hostname", name, sizeof name), -ENODEV);
    ck_assert_int_eq(nvb__dev_resolve(&t->c, &t->l, TREES "/pcie-nvme/dev/nvme0n1", name, sizeof name), -ENODEV);
    tree_close(t);
}
END_TEST

/* Guard decisions on the recorded machines. */
struct gcase {
    const char *tree, *path;
    int allow, rc;
    const char *needles[3];
};

static const struct gcase gcases[] = {
    /* in use: EBUSY whatever allow_destructive says, naming mount or holder */
    {"pcie-nvme", "/dev/nvme0n1", 1, -EBUSY, {"/dev/nvme0n1p1 is mounted on /data (ext4)", "not even allow_destructive=1"}},
    {"pcie-nvme", "/dev/nvme0n1p1", 0, -EBUSY, {"mounted on /data"}},
    {"pcie-nvme", "/dev/ng0n1", 1, -EBUSY, {"'/dev/ng0n1' (NVMe namespace /dev/nvme0n1)", "mounted on /data"}},
    {"pcie-nvme", "/dev/disk/by-id/nvme-SOLIDIGM_SSDPF2NQ307TZ_PHAC2151008X30PGGN", 1, -EBUSY,
     {"(/dev/nvme0n1)", "its partition /dev/nvme0n1p1 is mounted on /data"}},
    {"nvme-multipath", "/dev/nvme0n1", 1, -EBUSY, {"mounted on /srv/my data (xfs)"}},
    {"nvme-multipath", "/dev/ng0n1", 1, -EBUSY, {"mounted on /srv/my data"}},
    {"vm", "/dev/vda", 1, -EBUSY, {"its partition /dev/vda1 is mounted on / (ext4)"}},
    {"vm", "/dev/vdb", 1, -EBUSY, {"its partition /dev/vdb1 is held by dm-0 (vg0-data), mounted on /srv"}},
    {"vm", "/dev/disk/by-id/virtio-datadisk-part1", 1, -EBUSY, {"(/dev/vdb1)", "held by dm-0 (vg0-data)"}},
    {"vm", "/dev/mapper/vg0-data", 1, -EBUSY, {"(/dev/dm-0)", "/dev/dm-0 is mounted on /srv (ext4)"}},
    {"vm", "/dev/sda", 1, -EBUSY, {"/dev/sda is held by md0 (raid1)"}},
    {"vm", "/dev/zram0", 1, -EBUSY, {"/dev/zram0 is active swap"}},
    /* not in use: EPERM without the flag, saying what would be destroyed */
    {"pcie-nvme", "/dev/nvme0n2", 0, -EPERM, {"is a block device", "destroys the data on it", "allow_destructive=1"}},
    {"pcie-nvme", "/dev/ng0n2", 0, -EPERM, {"(NVMe namespace /dev/nvme0n2)", "rw=randwrite"}},
    {"pcie-nvme", "/dev/ng0n2", 1, 0, {NULL}},
    {"vm", "/dev/loop1", 0, -EPERM, {"holds an ext4 filesystem labelled 'scratch'", "allow_destructive=1"}},
    {"vm", "/dev/disk/by-label/scratch", 0, -EPERM, {"(/dev/loop1)", "ext4 filesystem"}},
    {"vm", "/dev/loop1", 1, 0, {NULL}},
    {"vm", "/dev/loop0", 0, -EPERM, {"destroys the data on it"}},
    {"vm", "/dev/loop0", 1, 0, {NULL}},
    {"vm", "/dev/md0", 0, -EPERM, {"/dev/md0", "the data on it"}},
    {"vm", "/dev/md0", 1, 0, {NULL}},
};

START_TEST(guard_recorded)
{
    const struct gcase *g = &gcases[_i];
    struct tree *t = tree_open(g->tree);
    char msg[1024];
    int rc = nvb__guard_check(&t->c, &t->l, g->path, g->allow, "randwrite", msg, sizeof msg);
    ck_assert_msg(rc == g->rc, "%s %s allow=%d: rc %d (%s), expected %d; message: %s", g->tree, g->path, g->allow, rc,
                  nvb_strerror(rc), g->rc, msg);
    if (rc)
        ck_assert_msg(strstr(msg, g->path), "message does not name the target '%s': %s", g->path, msg);
    for (int i = 0; i < 3 && g->needles[i]; i++)
        ck_assert_msg(strstr(msg, g->needles[i]), "%s %s: message lacks '%s': %s", g->tree, g->path, g->needles[i], msg);
    tree_close(t);
}
END_TEST

START_TEST(guard_partition_table_named)
{
    /* The vm tree with nothing mounted: the partition table, and the
     * partitions it would take with it. */
    struct tree *t = tree_open("vm");
    for (unsigned i = 0; i < t->l.n; i++) {
        struct nvb__dev *d = &t->l.d[i];
        for (unsigned m = 0; m < d->nmounts; m++) {
            free(d->mounts[m].point);
            free(d->mounts[m].fstype);
            free(d->mounts[m].source);
        }
        d->nmounts = 0;
    }
    char msg[1024];
    int rc = nvb__guard_check(&t->c, &t->l, "/dev/vda", 0, "write", msg, sizeof msg);
    ck_assert_int_eq(rc, -EPERM);
    ck_assert_msg(strstr(msg, "holds a dos partition table and its 1 partition (vda1)"), "%s", msg);
    rc = nvb__guard_check(&t->c, &t->l, "/dev/vda1", 0, "write", msg, sizeof msg);
    ck_assert_int_eq(rc, -EPERM);
    ck_assert_msg(strstr(msg, "holds an ext4 filesystem"), "%s", msg);
    rc = nvb__guard_check(&t->c, &t->l, "/dev/vda", 1, "write", msg, sizeof msg);
    ck_assert_int_eq(rc, 0);
    /* still held: the LVM member under dm-0 */
    rc = nvb__guard_check(&t->c, &t->l, "/dev/vdb1", 1, "write", msg, sizeof msg);
    ck_assert_int_eq(rc, -EBUSY);
    ck_assert_msg(strstr(msg, "held by dm-0 (vg0-data)") && !strstr(msg, "mounted"), "%s", msg);
    tree_close(t);
}
END_TEST

START_TEST(facts_and_iu_warning)
{
    struct nvb__devctx c;
    struct nvb__tdev f;
    char msg[512], warn[512];
    ck_assert_int_eq(nvb__devctx_init(&c, TREES "/pcie-nvme/sys"), 0);
    /* reads are never refused, and still get the facts */
    ck_assert_int_eq(nvb__device_check_ctx(&c, "/dev/nvme0n1", 0, 0, "randread", &f, msg, sizeof msg), 0);
    ck_assert_int_eq(f.valid, 1);
    ck_assert_str_eq(f.name, "nvme0n1");
    ck_assert_str_eq(f.kind, "nvme");
    ck_assert_str_eq(f.model, "SOLIDIGM SSDPF2NQ307TZ");
    ck_assert_str_eq(f.serial, "PHAC2151008X30PGGN");
    ck_assert_uint_eq(f.lbs, 4096);
    ck_assert_uint_eq(f.pbs, 4096);
    ck_assert_uint_eq(f.iu, 65536);
    ck_assert_str_eq(f.iu_source, "identify");
    CLOSE_TO(f.link_gbs, 7.877, 5e-4);
    /* the seed's caveat: 4k writes on a 64 KiB indirection unit */
    ck_assert_int_eq(nvb__iu_warning(&f, 4096, "/dev/nvme0n1", warn, sizeof warn), 1);
    ck_assert_msg(strstr(warn, "write bs 4k is below the indirection unit 64k of '/dev/nvme0n1' (from identify)"), "%s", warn);
    ck_assert_int_eq(nvb__iu_warning(&f, 96 << 10, "/dev/nvme0n1", warn, sizeof warn), 1);
    ck_assert_msg(strstr(warn, "96k is not a multiple of the indirection unit 64k"), "%s", warn);
    ck_assert_int_eq(nvb__iu_warning(&f, 64 << 10, "/dev/nvme0n1", warn, sizeof warn), 0);
    ck_assert_int_eq(nvb__iu_warning(&f, 128 << 10, "/dev/nvme0n1", warn, sizeof warn), 0);
    /* a partition: its disk's unit and link */
    ck_assert_int_eq(nvb__device_check_ctx(&c, "/dev/disk/by-id/nvme-SOLIDIGM_SSDPF2NQ307TZ_PHAC2151008X30PGGN-part1",
                                           0, 0, "read", &f, msg, sizeof msg), 0);
    ck_assert_str_eq(f.kind, "partition");
    ck_assert_uint_eq(f.iu, 65536);
    CLOSE_TO(f.link_gbs, 7.877, 5e-4);
    /* a write refused by the guard */
    ck_assert_int_eq(nvb__device_check_ctx(&c, "/dev/nvme0n2", 1, 0, "write", &f, msg, sizeof msg), -EPERM);
    ck_assert_int_eq(nvb__device_check_ctx(&c, "/dev/nvme0n2", 1, 1, "write", &f, msg, sizeof msg), 0);
    ck_assert_uint_eq(f.iu, 131072);
    ck_assert_str_eq(f.iu_source, "sysfs");
    ck_assert_int_eq(nvb__iu_warning(&f, 4096, "/dev/nvme0n2", warn, sizeof warn), 1);
    ck_assert_msg(strstr(warn, "(from sysfs)"), "%s", warn);
    /* unknown unit: no warning */
    ck_assert_int_eq(nvb__devctx_init(&c, TREES "/nvme-multipath/sys"), 0);
    ck_assert_int_eq(nvb__device_check_ctx(&c, "/dev/ng0n1", 0, 0, "read", &f, msg, sizeof msg), 0);
    ck_assert_uint_eq(f.iu, 0);
    ck_assert_int_eq(nvb__iu_warning(&f, 512, "/dev/ng0n1", warn, sizeof warn), 0);
    CLOSE_TO(f.link_gbs, 2.969, 5e-4);
    /* not a device */
    ck_assert_int_eq(nvb__device_check_ctx(&c, "/dev/nvme0", 1, 0, "write", &f, msg, sizeof msg), 0);
    ck_assert_int_eq(f.valid, 0);
}
END_TEST

/* ------------------------------------------------------------ public API */

struct enum_ctx {
    int n, stop_at;
    char names[16][64];
};

static int enum_cb(const struct nvb_device *dev, void *arg)
{
    struct enum_ctx *e = arg;
    char buf[64];
    int rc = nvb_device_get(dev, "name", buf, sizeof buf);
    ck_assert_int_ge(rc, 1);
    ck_assert_int_eq((size_t)rc, strlen(buf));
    if (e->n < 16)
        snprintf(e->names[e->n], sizeof e->names[0], "%s", buf);
    e->n++;
    if (!strcmp(buf, "nvme0n1")) {
        ck_assert_int_eq(nvb_device_get(dev, "nvme.controllers.0.model", buf, sizeof buf), 22);
        ck_assert_str_eq(buf, "SOLIDIGM SSDPF2NQ307TZ");
        ck_assert_int_eq(nvb_device_get(dev, "nvme.controllers.0.model", buf, 22), -ENOSPC);
        ck_assert_int_eq(nvb_device_get(dev, "parent", buf, sizeof buf), -ENODATA);
        ck_assert_int_eq(nvb_device_get(dev, "no.such.key", buf, sizeof buf), -ENOENT);
        ck_assert_int_eq(nvb_device_get(dev, "size", buf, sizeof buf), 14);
        ck_assert_int_eq(nvb_device_get(dev, "size", buf, 0), -EINVAL);
        ck_assert_int_eq(nvb_device_get(NULL, "size", buf, sizeof buf), -EINVAL);
    }
    return e->n == e->stop_at ? -ECANCELED : 0;
}

START_TEST(public_api_on_recorded_tree)
{
    struct enum_ctx e;
    memset(&e, 0, sizeof e);
    ck_assert_int_eq(nvb_device_enumerate(TREES "/pcie-nvme/sys", enum_cb, &e), 3);
    ck_assert_int_eq(e.n, 3);
    ck_assert_str_eq(e.names[0], "nvme0n1");
    ck_assert_str_eq(e.names[1], "nvme0n1p1");
    ck_assert_str_eq(e.names[2], "nvme0n2");
    memset(&e, 0, sizeof e);
    e.stop_at = 2;
    ck_assert_int_eq(nvb_device_enumerate(TREES "/pcie-nvme/sys", enum_cb, &e), -ECANCELED);
    ck_assert_int_eq(e.n, 2);
    ck_assert_int_eq(nvb_device_enumerate(TREES "/pcie-nvme/sys", NULL, NULL), -EINVAL);
    ck_assert_int_eq(nvb_device_enumerate(TREES "/no-such-tree/sys", enum_cb, &e), -ENOENT);

    char *json = NULL;
    ck_assert_int_eq(nvb_devices_json(TREES "/vm/sys", &json), 0);
    ck_assert_ptr_nonnull(json);
    ck_assert_int_eq(json[0], '[');
    ck_assert_ptr_nonnull(strstr(json, "{\"name\":\"dm-0\",\"path\":\"/dev/dm-0\",\"kind\":\"dm\""));
    ck_assert_ptr_nonnull(strstr(json, "\"busy\":\"/dev/zram0 is active swap\""));
    nvb_free(json);
    ck_assert_int_eq(nvb_devices_json(TREES "/vm/sys", NULL), -EINVAL);
    ck_assert_int_eq(nvb_devices_json(TREES "/no-such-tree/sys", &json), -ENOENT);
    ck_assert_ptr_null(json);
    ck_assert_int_eq(nvb_devices_json(TREES "/vm", &json), -ENOENT); /* no block/ there */
    /* the JSON is valid and carries what the getters say (python3 checks) */
    if (system("command -v python3 >/dev/null 2>&1") == 0) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd,
                 "python3 -c 'import json,sys; d=json.load(sys.stdin); "
                 "assert [x[\"name\"] for x in d][:3]==[\"dm-0\",\"loop0\",\"loop1\"], d; "
                 "assert all(set(x)=={\"name\",\"path\",\"kind\",\"dev\",\"hidden\",\"size\",\"logical_block_size\","
                 "\"physical_block_size\",\"minimum_io_size\",\"optimal_io_size\",\"max_transfer\",\"max_sectors\","
                 "\"rotational\",\"zoned\",\"scheduler\",\"nr_requests\",\"io_poll\",\"write_cache\",\"read_only\","
                 "\"atomic_write_unit_min_bytes\",\"atomic_write_unit_max_bytes\","
                 "\"removable\",\"model\",\"serial\",\"firmware_rev\",\"vendor\",\"parent\",\"partition\",\"partitions\","
                 "\"holders\",\"slaves\",\"mounts\",\"swap\",\"busy\",\"signature\",\"indirection_unit\","
                 "\"indirection_unit_source\",\"backing_file\",\"dm\",\"md_level\",\"nvme\"} for x in d)' "
                 "< /dev/stdin");
        FILE *p = popen(cmd, "w");
        ck_assert_ptr_nonnull(p);
        ck_assert_int_eq(nvb_devices_json(TREES "/vm/sys", &json), 0);
        fputs(json, p);
        nvb_free(json);
        ck_assert_int_eq(pclose(p), 0);
    }
}
END_TEST

START_TEST(scan_live_sysfs)
{
    /* The running kernel's sysfs, read without opening any device node:
     * probing (blkid, Identify) every device would add reads to devices
     * other processes may be measuring (tests/scripts/test_kernel_counters.sh
     * compares /sys/block/<dev>/stat with its own counts), so this test
     * probes only the loop devices it creates (the live cases below), and
     * the real-NVMe rig (tests/vm) runs nvb_devices_json(NULL). */
    struct nvb__devctx c;
    struct nvb__devlist l;
    ck_assert_int_eq(nvb__devctx_init(&c, NULL), 0);
    int rc = nvb__dev_scan(&c, &l);
    if (access("/sys/block", F_OK) != 0) {
        ck_assert_int_eq(rc, -ENOENT);
        return;
    }
    ck_assert_int_eq(rc, 0);
    ck_assert_int_ge((int)l.n, tu_count_entries("/sys/block")); /* partitions add to it */
    for (unsigned i = 0; i < l.n; i++) {
        const struct nvb__dev *d = &l.d[i];
        char want[96];
        ck_assert_msg(d->majmin[0] && strchr(d->majmin, ':'), "%s: dev '%s'", d->name, d->majmin);
        ck_assert_msg(d->lbs >= 512 && (d->lbs & (d->lbs - 1)) == 0, "%s: logical block size %u", d->name, d->lbs);
        ck_assert_msg(d->pbs >= d->lbs, "%s: physical block size %u < %u", d->name, d->pbs, d->lbs);
        ck_assert_msg(d->size % 512 == 0, "%s: size %llu", d->name, (unsigned long long)d->size);
        if (d->hidden != 1) {
            snprintf(want, sizeof want, "/dev/%s", d->name);
            ck_assert_str_eq(d->path, want);
        }
        if (d->parent[0])
            ck_assert_str_eq(d->kind, "partition");
        /* what stat() says of the node, where there is one */
        struct stat st;
        if (d->path[0] && stat(d->path, &st) == 0 && S_ISBLK(st.st_mode)) {
            snprintf(want, sizeof want, "%u:%u", major(st.st_rdev), minor(st.st_rdev));
            ck_assert_str_eq(d->majmin, want);
            char name[64];
            ck_assert_int_eq(nvb__dev_resolve(&c, &l, d->path, name, sizeof name), 0);
            ck_assert_str_eq(name, d->name);
        }
    }
    /* the root filesystem's device is found mounted on / when it is a
     * block device sysfs knows */
    struct stat root;
    ck_assert_int_eq(stat("/", &root), 0);
    char mm[32];
    snprintf(mm, sizeof mm, "%u:%u", major(root.st_dev), minor(root.st_dev));
    for (unsigned i = 0; i < l.n; i++)
        if (!strcmp(l.d[i].majmin, mm)) {
            int found = 0;
            for (unsigned m = 0; m < l.d[i].nmounts; m++)
                found |= !strcmp(l.d[i].mounts[m].point, "/");
            ck_assert_msg(found, "%s holds / but no mount of / was found", l.d[i].name);
            char busy[512];
            nvb__dev_busy(&l, &l.d[i], busy, sizeof busy);
            ck_assert_msg(strstr(busy, "mounted on / ("), "%s: busy '%s'", l.d[i].name, busy);
        }
    nvb__devlist_free(&l);
    char *json = NULL;
    ck_assert_int_eq(nvb_device_json("/dev/null", &json), -ENODEV);
    ck_assert_int_eq(nvb_device_json("/no/such/device", &json), -ENOENT);
    ck_assert_int_eq(nvb_device_json("", &json), -EINVAL);
    ck_assert_ptr_null(json);
}
END_TEST

/* ------------------------------------------------------------ live, as root */

#define MAX_CLEAN 16
static char g_umount[MAX_CLEAN][256], g_losetup[MAX_CLEAN][64], g_swapoff[MAX_CLEAN][64], g_unlink[MAX_CLEAN][512];
static int g_exclfd = -1;


static void cleanup(void)
{
    if (g_exclfd >= 0)
        close(g_exclfd);
    g_exclfd = -1;
    for (int i = 0; i < MAX_CLEAN; i++) {
        if (g_swapoff[i][0])
            tu_sh("swapoff %s", g_swapoff[i]);
        g_swapoff[i][0] = 0;
    }
    for (int i = MAX_CLEAN - 1; i >= 0; i--) {
        if (g_umount[i][0])
            tu_sh("umount '%s'", g_umount[i]);
        g_umount[i][0] = 0;
    }
    for (int i = 0; i < MAX_CLEAN; i++) {
        if (g_losetup[i][0])
            tu_sh("losetup -d %s", g_losetup[i]);
        g_losetup[i][0] = 0;
        if (g_unlink[i][0])
            unlink(g_unlink[i]);
        g_unlink[i][0] = 0;
    }
}

/* A live case that cannot run here says why and ends; the suite goes on
 * (exiting 77 would hide the other cases' results). */
#define SKIP_CASE(why)                                          \
    do {                                                        \
        fprintf(stderr, "note: %s: %s; case skipped\n", __func__, why); \
        cleanup();                                              \
        return;                                                 \
    } while (0)

/* An image of size MiB under the test directory, attached; partscan with
 * -P. "" when no loop device can be had. */
static void attach(const char *img, int partscan, char *dev, size_t len)
{
    char cmd[700];
    dev[0] = 0;
    snprintf(cmd, sizeof cmd, "losetup -f --show %s '%s' 2>/dev/null", partscan ? "-P" : "", img);
    FILE *f = popen(cmd, "r");
    if (f && fgets(dev, (int)len, f))
        dev[strcspn(dev, "\n")] = 0;
    if (f)
        pclose(f);
    if (dev[0])
        for (int i = 0; i < MAX_CLEAN; i++)
            if (!g_losetup[i][0]) {
                snprintf(g_losetup[i], sizeof g_losetup[i], "%s", dev);
                break;
            }
}

static char *make_image(const char *name, int mib)
{
    char *p = NULL;
    if (asprintf(&p, "%s/%s.%ld.img", tu_tmpdir(), name, (long)getpid()) < 0)
        abort();
    ck_assert_int_eq(tu_sh("truncate -s %dM '%s'", mib, p), 0);
    for (int i = 0; i < MAX_CLEAN; i++)
        if (!g_unlink[i][0]) {
            snprintf(g_unlink[i], sizeof g_unlink[i], "%s", p);
            break;
        }
    return p;
}

/* nvb_workload_validate on one target; the message in msg. */
static int validate(const char *target, const char *rw, int allow, char *msg, size_t len)
{
    struct nvb_workload *w;
    ck_assert_int_eq(nvb_workload_new(&w), 0);
    ck_assert_int_eq(nvb_workload_set(w, "rw", rw), 0);
    ck_assert_int_eq(nvb_workload_set(w, "ios", "16"), 0);
    ck_assert_int_eq(nvb_workload_set(w, "allow_destructive", allow ? "1" : "0"), 0);
    ck_assert_int_eq(nvb_workload_add_target(w, target), 0);
    int rc = nvb_workload_validate(w);
    snprintf(msg, len, "%s", nvb_workload_error(w));
    nvb_workload_free(w);
    return rc;
}

#define EXPECT(target, rw, allow, want, ...)                                                                       \
    do {                                                                                                           \
        char m_[1024];                                                                                             \
        int r_ = validate(target, rw, allow, m_, sizeof m_);                                                       \
        ck_assert_msg(r_ == (want), "%s rw=%s allow=%d: %d (%s), expected %d: %s", target, rw, allow, r_,          \
                      nvb_strerror(r_), want, m_);                                                                 \
        const char *n_[] = {__VA_ARGS__};                                                                          \
        for (size_t k_ = 0; k_ < sizeof n_ / sizeof n_[0]; k_++)                                                   \
            ck_assert_msg(!n_[k_] || strstr(m_, n_[k_]), "%s rw=%s allow=%d: message lacks '%s': %s", target, rw,  \
                          allow, n_[k_], m_);                                                                      \
    } while (0)

START_TEST(live_loop_ext4_mounted_and_not)
{
    char *img = make_image("dev-ext4", 32);
    ck_assert_int_eq(tu_sh("mkfs.ext4 -q -F -L nvbguard '%s'", img), 0);
    char dev[64];
    attach(img, 0, dev, sizeof dev);
    if (!dev[0])
        SKIP_CASE("no free loop device (losetup -f failed)");
    char *dir = tu_mkdtemp("dev-mnt");
    char alias[600];
    snprintf(alias, sizeof alias, "%s.alias", dir);
    unlink(alias);
    ck_assert_int_eq(symlink(dev, alias), 0);
    for (int i = 0; i < MAX_CLEAN; i++)
        if (!g_unlink[i][0]) {
            snprintf(g_unlink[i], sizeof g_unlink[i], "%s", alias);
            break;
        }
    if (tu_sh("mount -t ext4 %s '%s'", dev, dir) != 0)
        SKIP_CASE("mount failed here (no permission to mount in this container)");
    tu_remember(g_umount, MAX_CLEAN, dir);

    /* mounted: refused with EBUSY naming the mount point, whatever the flag */
    EXPECT(dev, "randwrite", 1, -EBUSY, dir, "is mounted on", "(ext4)", "not even allow_destructive=1");
    EXPECT(dev, "write", 0, -EBUSY, dir);
    EXPECT(dev, "randrw", 1, -EBUSY, dir);
    EXPECT(alias, "randwrite", 1, -EBUSY, alias, dev, dir);
    /* reading is never refused */
    EXPECT(dev, "randread", 0, 0, NULL);
    /* discovery sees the mount and the filesystem */
    char *json = NULL;
    ck_assert_int_eq(nvb_device_json(alias, &json), 0);
    ck_assert_msg(strstr(json, "\"fstype\":\"ext4\"") && strstr(json, dir), "%s", json);
    ck_assert_msg(strstr(json, "\"kind\":\"loop\"") && strstr(json, img), "%s", json);
    nvb_free(json);

    ck_assert_int_eq(tu_sh("umount '%s'", dir), 0);
    g_umount[0][0] = 0;
    /* unmounted: EPERM naming what would be destroyed, unless allowed */
    EXPECT(dev, "randwrite", 0, -EPERM, dev, "ext4 filesystem labelled 'nvbguard'", "allow_destructive=1");
    EXPECT(alias, "write", 0, -EPERM, alias, "ext4");
    EXPECT(dev, "randwrite", 1, 0, NULL);
    ck_assert_int_eq(nvb_device_json(dev, &json), 0);
    ck_assert_msg(strstr(json, "\"signature\":{\"type\":\"ext4\",\"usage\":\"filesystem\",\"label\":\"nvbguard\""),
                  "%s", json);
    ck_assert_msg(strstr(json, "\"mounts\":[]") && strstr(json, "\"busy\":null"), "%s", json);
    nvb_free(json);

    /* the run itself: the result carries the device's facts */
    struct nvb_workload *w;
    nvb_workload_new(&w);
    nvb_workload_set(w, "rw", "randwrite");
    nvb_workload_set(w, "ios", "16");
    nvb_workload_set(w, "allow_destructive", "1");
    nvb_workload_add_target(w, alias);
    struct nvb_result *r = NULL;
    ck_assert_int_eq(nvb_run(w, NULL, &r), 0);
    ck_assert_uint_eq(nvb_result_ios(r, NVB_WRITE), 16);
    double v = 0;
    ck_assert_int_eq(nvb_result_get(r, "per_target.0.device.logical_block_size", &v), 0);
    ck_assert(v == 512);
    ck_assert_int_eq(nvb_result_get(r, "per_target.0.device.physical_block_size", &v), 0);
    ck_assert(v >= 512);
    ck_assert_int_eq(nvb_result_json(r, &json), 0);
    char want[128];
    snprintf(want, sizeof want, "\"device\":{\"name\":\"%s\",\"kind\":\"loop\"", dev + 5);
    ck_assert_msg(strstr(json, want), "no '%s' in %s", want, json);
    ck_assert_msg(!strstr(json, "indirection unit"), "no unit known, yet a warning: %s", json);
    nvb_free(json);
    nvb_result_free(r);
    /* the image still backs the attached loop device: writing into it
     * would write under the loop device, so it is in use */
    nvb_workload_clear_targets(w);
    nvb_workload_add_target(w, img);
    ck_assert_int_eq(nvb_run(w, NULL, &r), -EBUSY);
    ck_assert_msg(strstr(nvb_result_error(r), "backs") && strstr(nvb_result_error(r), dev), "%s",
                  nvb_result_error(r));
    nvb_result_free(r);
    /* detached, a regular file has no device object */
    ck_assert_int_eq(tu_sh("losetup -d %s", dev), 0);
    for (int i = 0; i < MAX_CLEAN; i++)
        if (!strcmp(g_losetup[i], dev))
            g_losetup[i][0] = 0;
    ck_assert_int_eq(nvb_run(w, NULL, &r), 0);
    ck_assert_int_eq(nvb_result_json(r, &json), 0);
    ck_assert_msg(strstr(json, "\"device\":null"), "%s", json);
    nvb_free(json);
    nvb_result_free(r);
    nvb_workload_free(w);
    cleanup();
    rmdir(dir);
    free(dir);
    free(img);
}
END_TEST

static int wait_partitions(const char *dev, int n)
{
    char p[128];
    for (int tries = 0; tries < 2; tries++) {
        for (int i = 0; i < 50; i++) {
            snprintf(p, sizeof p, "%sp%d", dev, n);
            if (access(p, F_OK) == 0)
                return 0;
            usleep(20000);
        }
        /* the kernel may lack the partition parser: tell it ourselves */
        tu_sh("partx -a %s", dev);
    }
    return -1;
}

START_TEST(live_loop_partitioned)
{
    if (tu_sh("command -v sfdisk") != 0)
        SKIP_CASE("needs sfdisk (fdisk package)");
    char *img = make_image("dev-gpt", 64);
    ck_assert_int_eq(tu_sh("printf 'label: gpt\\n,24M\\n,\\n' | sfdisk -q '%s'", img), 0);
    char dev[64];
    attach(img, 1, dev, sizeof dev);
    if (!dev[0])
        SKIP_CASE("no free loop device (losetup -f failed)");
    if (wait_partitions(dev, 2) != 0)
        SKIP_CASE("partitions of the loop device did not appear (losetup -P, partx -a)");
    char p1[80], p2[80];
    snprintf(p1, sizeof p1, "%sp1", dev);
    snprintf(p2, sizeof p2, "%sp2", dev);
    ck_assert_int_eq(tu_sh("mkfs.ext4 -q -F %s", p1), 0);
    char *dir = tu_mkdtemp("dev-pmnt");
    if (tu_sh("mount -t ext4 %s '%s'", p1, dir) != 0)
        SKIP_CASE("mount failed here");
    tu_remember(g_umount, MAX_CLEAN, dir);

    /* through the parent, the mounted partition, and a sibling */
    EXPECT(dev, "randwrite", 1, -EBUSY, dev, "its partition", p1, dir);
    EXPECT(p1, "randwrite", 1, -EBUSY, p1, dir);
    EXPECT(p2, "randwrite", 0, -EPERM, p2, "the data on it");
    EXPECT(p2, "randwrite", 1, 0, NULL);

    ck_assert_int_eq(tu_sh("umount '%s'", dir), 0);
    g_umount[0][0] = 0;
    EXPECT(dev, "write", 0, -EPERM, "gpt partition table and its 2 partitions");
    EXPECT(p1, "write", 0, -EPERM, "ext4 filesystem");
    EXPECT(dev, "write", 1, 0, NULL);

    /* a claim no mountinfo shows (another mount namespace, a holder we
     * cannot see): the kernel's O_EXCL answer, for the partition and,
     * through it, the whole disk */
    g_exclfd = open(p1, O_RDONLY | O_EXCL | O_CLOEXEC);
    ck_assert_int_ge(g_exclfd, 0);
    EXPECT(p1, "randwrite", 1, -EBUSY, "claimed");
    EXPECT(dev, "randwrite", 1, -EBUSY, "claimed");
    EXPECT(p2, "randwrite", 1, 0, NULL);
    close(g_exclfd);
    g_exclfd = -1;
    EXPECT(dev, "randwrite", 1, 0, NULL);

    char *json = NULL;
    ck_assert_int_eq(nvb_device_json(dev, &json), 0);
    char want[200];
    snprintf(want, sizeof want, "\"partitions\":[\"%s\",\"%s\"]", p1 + 5, p2 + 5);
    ck_assert_msg(strstr(json, want) && strstr(json, "\"type\":\"gpt\""), "%s", json);
    nvb_free(json);
    ck_assert_int_eq(nvb_device_json(p2, &json), 0);
    snprintf(want, sizeof want, "\"parent\":\"%s\",\"partition\":{\"number\":2,", dev + 5);
    ck_assert_msg(strstr(json, "\"kind\":\"partition\"") && strstr(json, want), "%s", json);
    nvb_free(json);
    cleanup();
    rmdir(dir);
    free(dir);
    free(img);
}
END_TEST

START_TEST(live_loop_swap)
{
    if (tu_sh("command -v mkswap && command -v swapon && command -v swapoff") != 0)
        SKIP_CASE("needs mkswap/swapon");
    char *img = make_image("dev-swap", 16);
    ck_assert_int_eq(tu_sh("mkswap -q '%s'", img), 0);
    char dev[64];
    attach(img, 0, dev, sizeof dev);
    if (!dev[0])
        SKIP_CASE("no free loop device (losetup -f failed)");
    EXPECT(dev, "write", 0, -EPERM, "a swap area");
    if (tu_sh("swapon %s", dev) != 0) {
        fprintf(stderr, "note: swapon refused here; the active-swap case is covered by the recorded trees only\n");
        cleanup();
        free(img);
        return;
    }
    for (int i = 0; i < MAX_CLEAN; i++)
        if (!g_swapoff[i][0]) {
            snprintf(g_swapoff[i], sizeof g_swapoff[i], "%s", dev);
            break;
        }
    EXPECT(dev, "randwrite", 1, -EBUSY, "is active swap");
    cleanup();
    free(img);
}
END_TEST

static void teardown(void) { cleanup(); }

int main(void)
{
    atexit(cleanup);
    Suite *s = suite_create("devices");
    TCase *tc = tcase_create("arithmetic");
    tcase_add_test(tc, pcie_link_ceiling);
    tcase_add_test(tc, identify_namespace_parse);
    suite_add_tcase(s, tc);
    tc = tcase_create("recorded");
    tcase_add_test(tc, tree_pcie_nvme);
    tcase_add_test(tc, tree_nvme_multipath);
    tcase_add_test(tc, tree_nvme_renumbered);
    tcase_add_test(tc, tree_vm);
    tcase_add_test(tc, resolve_aliases);
    tcase_add_loop_test(tc, guard_recorded, 0, (int)(sizeof gcases / sizeof gcases[0]));
    tcase_add_test(tc, guard_partition_table_named);
    tcase_add_test(tc, facts_and_iu_warning);
    tcase_add_test(tc, public_api_on_recorded_tree);
    tcase_add_test(tc, scan_live_sysfs);
    suite_add_tcase(s, tc);
    const char *nolive = !tu_is_root() ? "not root"
                         : tu_sh("command -v losetup && command -v mkfs.ext4 && command -v mount && command -v umount")
                             ? "losetup, mkfs.ext4 (e2fsprogs) or mount (util-linux) missing"
                             : NULL;
    if (!nolive) {
        tc = tcase_create("live");
        tcase_set_timeout(tc, 120);
        tcase_add_checked_fixture(tc, NULL, teardown);
        tcase_add_test(tc, live_loop_ext4_mounted_and_not);
        tcase_add_test(tc, live_loop_partitioned);
        tcase_add_test(tc, live_loop_swap);
        suite_add_tcase(s, tc);
    } else {
        fprintf(stderr, "note: %s: the live loop-device cases are skipped\n", nolive);
    }
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
