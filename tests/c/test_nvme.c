/*
 * The NVMe passthrough engine on a machine without NVMe: what can be checked
 * without a namespace. Its I/O (the behavioural tests every engine runs,
 * against a real Linux NVMe driver) is in tests/vm.
 *
 *  - its place in the registry, flags and options;
 *  - probe() says why it is unavailable, or is available;
 *  - setup() on something that is not a namespace fails, naming why;
 *  - the namespace behind a target (nvb__nvme_ns_find_ctx) on the recorded
 *    sysfs trees: block device -> generic node, generic node -> itself,
 *    renumbered instances, multipath heads, by-id symlinks, and refusals of
 *    partitions and of devices that are not NVMe;
 *  - the runner refuses character devices for other engines, and refuses
 *    the nvme engine on files with the probe's reason or the target's;
 *  - the engine's prepare_target() (the runner's passthrough mapping)
 *    refuses what is not a namespace with the runner's message and leaves
 *    the target's facts as they were;
 *  - the commands its submit path makes from a target's and direction's
 *    template (engines/nvme_sqe.h): all 128 bytes of each as the NVMe
 *    command the I/O means, whatever the ring slot held before, over random
 *    I/Os of every direction, LBA size and registration; and what it
 *    refuses before the ring.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvbench.h"
#include "core/engine.h"
#include "devices/devices.h"
#include "testutil.h"

#if defined(__linux__) && defined(__has_include)
#if __has_include(<liburing.h>)
#undef NVB_HAVE_LIBURING
#define NVB_HAVE_LIBURING 1 /* the header's inline code, without the library */
#include "engines/nvme_sqe.h"
#endif
#endif

#define TREES NVB_SOURCE_DIR "/tests/data/sysfs"

START_TEST(registry_place_and_options)
{
    int i = nvb__engine_index("nvme");
    ck_assert_int_eq(i, nvb__engine_index("io_uring") + 1);
    const struct nvb__engine *e = nvb__engine_find("nvme");
    ck_assert_ptr_eq(e, &nvb__engine_nvme);
    ck_assert_uint_eq(e->flags & NVB__ENG_CHARDEV, NVB__ENG_CHARDEV);
    ck_assert_uint_eq(e->flags & (NVB__ENG_SYNC | NVB__ENG_NO_FILES), 0);
    ck_assert_ptr_nonnull(e->note);
    int fb = nvb__engine_opt_index(e, "fixedbufs");
    ck_assert_int_ge(fb, 0);
    ck_assert_int_eq(e->opts[fb].type, NVB__OPT_AUTOBOOL);
    ck_assert_int_eq(e->opts[fb].def, -1);
    int ip = nvb__engine_opt_index(e, "iopoll");
    ck_assert_int_ge(ip, 0);
    ck_assert_int_eq(e->opts[ip].type, NVB__OPT_BOOL);
    ck_assert_int_eq(e->opts[ip].def, 0);
    ck_assert_int_ge(nvb__engine_opt_index(e, "regfiles"), 0);
    ck_assert_int_ge(nvb__engine_opt_index(e, "entries"), 0);

    /* The keys parse as workload options (owned by the engine's table). */
    struct nvb_workload *w;
    ck_assert_int_eq(nvb_workload_new(&w), 0);
    ck_assert_int_eq(nvb_workload_set(w, "nvme.iopoll", "1"), 0);
    ck_assert_int_eq(nvb_workload_set(w, "nvme.fixedbufs", "auto"), 0);
    ck_assert_int_eq(nvb_workload_set(w, "nvme.no_such", "1"), -EINVAL);
    ck_assert_ptr_nonnull(strstr(nvb_workload_error(w), "nvme.no_such"));
    nvb_workload_free(w);
    /* Only engines that take character devices are flagged so. */
    for (int k = 0; k < nvb_engine_count(); k++)
        if (strcmp(nvb_engine_name(k), "nvme"))
            ck_assert_uint_eq(nvb__engines[k]->flags & NVB__ENG_CHARDEV, 0);
}
END_TEST

static int have_generic_node(void)
{
    for (int x = 0; x < 64; x++)
        for (int y = 1; y < 8; y++) {
            char p[32];
            snprintf(p, sizeof p, "/dev/ng%dn%d", x, y);
            if (access(p, F_OK) == 0)
                return 1;
        }
    return 0;
}

START_TEST(probe_says_why)
{
    char why[192] = "x";
    int rc = nvb_engine_probe("nvme", why, sizeof why);
    if (rc == 0) {
        ck_assert_str_eq(why, "");
        ck_assert(have_generic_node());
        return;
    }
    ck_assert_msg(rc == -ENOTSUP || rc == -EACCES, "rc %d", rc);
    ck_assert_str_ne(why, "");
    ck_assert_msg(!strncmp(why, "nvme: ", 6), "%s", why);
    if (!have_generic_node() && !strstr(why, "built without") && !strstr(why, "Linux 5.19") &&
        !strstr(why, "io_uring"))
        ck_assert_msg(strstr(why, "no NVMe generic device (/dev/ng*)"), "%s", why);
}
END_TEST

/* setup() on a descriptor that is not a namespace: -ENODEV and the reason,
 * whether or not the engine is available here. */
START_TEST(setup_refuses_non_namespace)
{
    const struct nvb__engine *e = &nvb__engine_nvme;
    char *path = tu_scratch("nvme-file", 1 << 20);
    int fds[2] = {open(path, O_RDWR), open("/dev/null", O_RDWR)};
    ck_assert_int_ge(fds[0], 0);
    ck_assert_int_ge(fds[1], 0);
    void *buf;
    ck_assert_int_eq(posix_memalign(&buf, 4096, 4096), 0);
    void *const bufs[1] = {buf};
    int64_t opts[NVB__ENGINE_MAX_OPTS] = {0};
    for (int i = 0; e->opts[i].name; i++)
        opts[i] = e->opts[i].def;
    for (int k = 0; k < 2; k++) {
        char why[256] = "";
        struct nvb__used used = {0};
        struct nvb__engine_ctx ctx = {
            .qd = 1, .nfds = 1, .fds = &fds[k], .direct = 1, .writes = 1, .bufs = bufs, .buf_len = 4096,
            .cpu = -1, .opts = opts, .used = &used, .why = why, .why_len = sizeof why,
        };
        void *st = NULL;
        int rc = e->setup(&ctx, &st);
        ck_assert_int_lt(rc, 0);
        ck_assert_ptr_null(st);
        ck_assert_str_ne(why, "");
        if (!strstr(why, "built without")) {
            ck_assert_int_eq(rc, -ENODEV);
            ck_assert_msg(strstr(why, "not an NVMe namespace"), "%s", why);
        }
    }
    /* No targets at all is a caller error, said as such. */
    char why[256] = "";
    struct nvb__engine_ctx ctx = {.qd = 1, .bufs = bufs, .buf_len = 4096, .cpu = -1, .why = why,
                                  .why_len = sizeof why};
    void *st = NULL;
    ck_assert_int_lt(e->setup(&ctx, &st), 0);
    ck_assert_str_ne(why, "");
    free(buf);
    close(fds[0]);
    close(fds[1]);
    unlink(path);
    free(path);
}
END_TEST

struct nscase {
    const char *tree, *path;
    int rc;
    const char *generic, *block;
    int nsid;
    uint32_t lbs;
    uint64_t size;
    const char *msg;    /* a piece of the message on failure */
};

START_TEST(namespace_of_target)
{
    static const struct nscase cs[] = {
        /* a PCIe SSD with two namespaces and a partition */
        {"pcie-nvme", "/dev/nvme0n1", 0, "/dev/ng0n1", "/dev/nvme0n1", 1, 4096, 30720000000000ull, NULL},
        {"pcie-nvme", "/dev/ng0n2", 0, "/dev/ng0n2", "/dev/nvme0n2", 2, 512, 1ull << 30, NULL},
        {"pcie-nvme", "/dev/disk/by-id/nvme-SOLIDIGM_SSDPF2NQ307TZ_PHAC2151008X30PGGN", 0, "/dev/ng0n1",
         "/dev/nvme0n1", 1, 4096, 30720000000000ull, NULL},
        {"pcie-nvme", "/dev/nvme0n1p1", -EINVAL, "", "", -1, 0, 0, "is a partition of nvme0n1"},
        /* a multipath head: its generic node is named like it */
        {"nvme-multipath", "/dev/nvme0n1", 0, "/dev/ng0n1", "/dev/nvme0n1", 1, 4096, 7681501126656ull, NULL},
        {"nvme-multipath", "/dev/ng0n1", 0, "/dev/ng0n1", "/dev/nvme0n1", 1, 4096, 7681501126656ull, NULL},
        /* block devices named by subsystem, generic nodes by controller */
        {"nvme-renumbered", "/dev/nvme0n1", 0, "/dev/ng1n1", "/dev/nvme0n1", 1, 512, 1000204886016ull, NULL},
        {"nvme-renumbered", "/dev/ng1n1", 0, "/dev/ng1n1", "/dev/nvme0n1", 1, 512, 1000204886016ull, NULL},
        {"nvme-renumbered", "/dev/nvme2n1", 0, "/dev/ng2n1", "/dev/nvme2n1", 1, 512, 1ull << 30, NULL},
        /* not NVMe */
        {"vm", "/dev/vda", -ENODEV, "", "", -1, 0, 0, "(kind virtio) is not an NVMe namespace"},
        {"vm", "/dev/loop0", -ENODEV, "", "", -1, 0, 0, "(kind loop) is not an NVMe namespace"},
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        const struct nscase *c = &cs[i];
        char root[512], msg[512];
        snprintf(root, sizeof root, "%s/%s/sys", TREES, c->tree);
        struct nvb__devctx ctx;
        ck_assert_int_eq(nvb__devctx_init(&ctx, root), 0);
        struct nvb__nvme_ns ns;
        int rc = nvb__nvme_ns_find_ctx(&ctx, c->path, &ns, msg, sizeof msg);
        ck_assert_msg(rc == c->rc, "%s %s: rc %d, want %d (%s)", c->tree, c->path, rc, c->rc, msg);
        if (rc < 0) {
            ck_assert_msg(strstr(msg, c->msg), "%s %s: %s", c->tree, c->path, msg);
            ck_assert_msg(strstr(msg, c->path), "the message names the target: %s", msg);
            continue;
        }
        ck_assert_str_eq(msg, "");
        ck_assert_str_eq(ns.generic, c->generic);
        ck_assert_str_eq(ns.block, c->block);
        ck_assert_int_eq(ns.nsid, c->nsid);
        ck_assert_uint_eq(ns.lba_size, c->lbs);
        ck_assert_uint_eq(ns.size, c->size);
        ck_assert_uint_gt(ns.max_transfer, 0);
        ck_assert_str_eq(ns.source, "sysfs");
    }
}
END_TEST

/* On the live system: a regular file, a directory, /dev/null. */
START_TEST(namespace_of_non_devices)
{
    char *path = tu_scratch("nvme-ns", 4096);
    const char *paths[] = {path, tu_tmpdir(), "/dev/null"};
    const char *what[] = {"a regular file", "a directory", "/dev/null"};
    for (int i = 0; i < 3; i++) {
        struct nvb__nvme_ns ns;
        char msg[512];
        int rc = nvb__nvme_ns_find(paths[i], &ns, msg, sizeof msg);
        ck_assert_int_eq(rc, -ENODEV);
        ck_assert_msg(strstr(msg, what[i]) && strstr(msg, "not an NVMe namespace"), "%s", msg);
    }
    struct nvb__nvme_ns ns;
    char msg[512];
    ck_assert_int_eq(nvb__nvme_ns_find("/nonexistent/ng9n9", &ns, msg, sizeof msg), -ENOENT);
    unlink(path);
    free(path);
}
END_TEST

/* The mapping to the generic node is the engine's: on what is not a
 * namespace it fails with "engine nvme: target ..." and rewrites nothing. */
START_TEST(prepare_target_refuses_non_namespace)
{
    const struct nvb__engine *e = &nvb__engine_nvme;
    if (e->unavailable) { /* compiled out: the runner never plans a target for it */
        ck_assert_ptr_null(e->prepare_target);
        return;
    }
    ck_assert_ptr_nonnull(e->prepare_target);
    char *path = tu_scratch("nvme-prep", 4096);
    const char *paths[] = {path, "/dev/null"};
    const char *what[] = {"(a regular file)", "/dev/null"};
    for (int i = 0; i < 2; i++) {
        char file[4200], claim[80] = "", dev[64] = "", err[512] = "";
        snprintf(file, sizeof file, "%s", paths[i]);
        struct nvb__target_prep t = {
            .path = paths[i], .bs = 4096, .file = file, .file_len = sizeof file, .claim = claim,
            .claim_len = sizeof claim, .dev = dev, .dev_len = sizeof dev, .size = 4096, .lbs = 1,
            .id_dev = 7, .id_ino = 8, .id_rdev = 9,
        };
        ck_assert_int_eq(e->prepare_target(&t, err, sizeof err), -ENODEV);
        ck_assert_msg(!strncmp(err, "engine nvme: target ", 20) && strstr(err, "not an NVMe namespace") &&
                      strstr(err, what[i]), "%s", err);
        ck_assert_str_eq(file, paths[i]);
        ck_assert_str_eq(claim, "");
        ck_assert_str_eq(dev, "");
        ck_assert_uint_eq(t.size, 4096);
        ck_assert_uint_eq(t.lbs, 1);
        ck_assert(t.id_dev == 7 && t.id_ino == 8 && t.id_rdev == 9);
        ck_assert_ptr_null(t.whole_blocks);
    }
    /* No other engine maps its targets. */
    for (int k = 0; k < nvb_engine_count(); k++)
        if (strcmp(nvb_engine_name(k), "nvme"))
            ck_assert_ptr_null(nvb__engines[k]->prepare_target);
    unlink(path);
    free(path);
}
END_TEST

static int validate(const char *engine, const char *target, char *err, size_t len)
{
    struct nvb_workload *w;
    ck_assert_int_eq(nvb_workload_new(&w), 0);
    ck_assert_int_eq(nvb_workload_set(w, "engine", engine), 0);
    ck_assert_int_eq(nvb_workload_set(w, "rw", "randread"), 0);
    ck_assert_int_eq(nvb_workload_add_target(w, target), 0);
    int rc = nvb_workload_validate(w);
    snprintf(err, len, "%s", nvb_workload_error(w));
    nvb_workload_free(w);
    return rc;
}

START_TEST(runner_targets)
{
    char err[512];
    /* A character device is for the nvme engine only. */
    ck_assert_int_eq(validate("psync", "/dev/null", err, sizeof err), -EINVAL);
    ck_assert_msg(strstr(err, "character device") && strstr(err, "engine nvme"), "%s", err);
    /* The nvme engine on a file: the probe's reason, or the target's. */
    char *path = tu_scratch("nvme-run", 1 << 20);
    int rc = validate("nvme", path, err, sizeof err);
    ck_assert_int_lt(rc, 0);
    char why[192];
    if (nvb_engine_probe("nvme", why, sizeof why) < 0)
        ck_assert_msg(strstr(err, why), "%s / %s", err, why);
    else
        ck_assert_msg(rc == -ENODEV && strstr(err, "not an NVMe namespace (a regular file)"), "%s", err);
    unlink(path);
    free(path);
}
END_TEST

#if NVB_HAVE_LIBURING
/* The command an I/O means, written field by field on a zeroed pair of SQE
 * slots: the NVMe opcode, namespace, buffer, length, starting LBA and
 * block count (0-based), the file and the registered buffer. */
static void expected_cmd(unsigned char exp[128], int fd, int fixed_file, int fixed_buf, uint32_t nsid,
                         unsigned shift, const struct nvb__io *io)
{
    memset(exp, 0, 128);
    struct io_uring_sqe *s = (struct io_uring_sqe *)exp;
    struct nvme_uring_cmd *c = (struct nvme_uring_cmd *)s->cmd;
    s->opcode = IORING_OP_URING_CMD;
    s->fd = fd;
    s->flags = fixed_file ? IOSQE_FIXED_FILE : 0;
    s->cmd_op = NVME_URING_CMD_IO;
    s->user_data = (uintptr_t)io;
    if (fixed_buf) {
        s->uring_cmd_flags = IORING_URING_CMD_FIXED;
        s->buf_index = (uint16_t)io->slot;
    }
    c->nsid = nsid;
    c->addr = (uintptr_t)io->buf;
    uint64_t slba = io->off >> shift;
    if (io->dir == NVB_TRIM) {
        c->opcode = 0x09;   /* Dataset Management, one range, deallocate */
        c->data_len = 16;
        c->cdw11 = 1u << 2;
        return;
    }
    c->opcode = io->dir == NVB_WRITE ? 0x01 : 0x02;
    c->data_len = io->len;
    c->cdw10 = (uint32_t)slba;
    c->cdw11 = (uint32_t)(slba >> 32);
    c->cdw12 = (io->len >> shift) - 1;
}
#endif

START_TEST(commands_from_templates)
{
#if !NVB_HAVE_LIBURING
    tu_skip("liburing's headers are not installed");
#else
    static unsigned char buf[8][65536 * 4];
    uint64_t x = 0x9e3779b97f4a7c15ull;
    unsigned n[3] = {0, 0, 0};
    for (int k = 0; k < 20000; k++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        const unsigned shift = x & 1 ? 12 : 9;
        const int dir = (int)((x >> 1) % 3), fixed_file = (x >> 3) & 1, fixed_buf = (x >> 4) & 1;
        const uint32_t nsid = 1 + (uint32_t)((x >> 5) & 7);
        const int fd = fixed_file ? (int)((x >> 8) & 63) : 3 + (int)((x >> 8) & 1023);
        struct nvb__io io = { .slot = (uint32_t)((x >> 18) & 7), .target = (uint16_t)((x >> 8) & 63),
                              .dir = (uint8_t)dir };
        io.buf = buf[io.slot];
        io.len = (uint32_t)(1 + ((x >> 21) & 63)) << shift;
        io.off = ((x >> 27) & ((1ull << 36) - 1)) << shift;  /* LBAs past 2^32 too */
        struct nvb__nvme_tmpl t;
        nvb__nvme_tmpl_make(&t, fd, fixed_file, fixed_buf, nsid, 1u << shift, dir, 1);
        ck_assert_int_eq(nvb__nvme_check(&t, &io), 0);
        unsigned char got[128], exp[128];
        memset(got, 0xa5, sizeof got);  /* an earlier command's leftovers */
        nvb__nvme_fill((struct io_uring_sqe *)got, &t, fixed_buf ? (uint16_t)io.slot : 0, &io);
        expected_cmd(exp, fd, fixed_file, fixed_buf, nsid, shift, &io);
        for (int b = 0; b < 128; b++)
            ck_assert_msg(got[b] == exp[b], "byte %d: 0x%02x, expected 0x%02x (dir %d, lba %u, fixed %d/%d)", b,
                          got[b], exp[b], dir, 1u << shift, fixed_file, fixed_buf);
        if (dir == NVB_TRIM) {  /* the range: attributes, blocks, starting LBA */
            uint32_t head[2];
            uint64_t slba;
            memcpy(head, io.buf, 8);
            memcpy(&slba, (char *)io.buf + 8, 8);
            ck_assert_uint_eq(head[0], 0);
            ck_assert_uint_eq(head[1], io.len >> shift);
            ck_assert_uint_eq(slba, io.off >> shift);
        }
        n[dir]++;
    }
    ck_assert_uint_gt(n[NVB_READ], 0);
    ck_assert_uint_gt(n[NVB_WRITE], 0);
    ck_assert_uint_gt(n[NVB_TRIM], 0);

    /* Refused before the ring: writes and trims through a read-only
     * descriptor (reads go), an empty or misaligned extent, more blocks
     * than a command carries. */
    struct nvb__nvme_tmpl t;
    struct nvb__io io = { .buf = buf[0], .len = 4096, .off = 8192, .dir = NVB_WRITE };
    for (int dir = 0; dir < 3; dir++) {
        nvb__nvme_tmpl_make(&t, 3, 0, 0, 1, 512, dir, 0);
        io.dir = (uint8_t)dir;
        ck_assert_int_eq(nvb__nvme_check(&t, &io), dir == NVB_READ ? 0 : -EBADF);
    }
    nvb__nvme_tmpl_make(&t, 3, 0, 0, 1, 4096, NVB_READ, 1);
    io.dir = NVB_READ;
    ck_assert_int_eq(nvb__nvme_check(&t, &io), 0);
    io.off = 8192 + 512;
    ck_assert_int_eq(nvb__nvme_check(&t, &io), -EINVAL);
    io.off = 8192, io.len = 4096 + 512;
    ck_assert_int_eq(nvb__nvme_check(&t, &io), -EINVAL);
    io.len = 0;
    ck_assert_int_eq(nvb__nvme_check(&t, &io), -EINVAL);
    nvb__nvme_tmpl_make(&t, 3, 0, 0, 1, 512, NVB_READ, 1);
    io.len = 65536u * 512;
    ck_assert_int_eq(nvb__nvme_check(&t, &io), 0);
    io.len += 512;
    ck_assert_int_eq(nvb__nvme_check(&t, &io), -EINVAL);
#endif
}
END_TEST

int main(void)
{
    Suite *s = suite_create("nvme");
    TCase *tc = tcase_create("nvme");
    tcase_add_test(tc, registry_place_and_options);
    tcase_add_test(tc, probe_says_why);
    tcase_add_test(tc, setup_refuses_non_namespace);
    tcase_add_test(tc, namespace_of_target);
    tcase_add_test(tc, namespace_of_non_devices);
    tcase_add_test(tc, runner_targets);
    tcase_add_test(tc, prepare_target_refuses_non_namespace);
    tcase_add_test(tc, commands_from_templates);
    suite_add_tcase(s, tc);
    int failed = tu_run_suite(s);
    return failed ? 1 : 0;
}
