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
 *    the target's facts as they were.
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
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
