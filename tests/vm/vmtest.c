/*
 * vmtest: the device-level half of the QEMU rig (tests/vm), run inside the
 * guest, statically linked against libnvbench.a.
 *
 *   vmtest devices                    every block device as JSON (nvb_devices_json)
 *   vmtest find SERIAL NSID [generic] the namespace's /dev path (or generic node)
 *   vmtest engines BLOCKDEV           the engine behavioural tests on one namespace
 *   vmtest fio JOBFILE [KEY=VALUE...] a fio job file's steps run (vmtest_fio.c)
 *
 * `engines` drives every engine through the internal interface, the way
 * tests/c/test_engines.c does on files (whose harness this mirrors), but on
 * a real Linux NVMe namespace: the block engines on /dev/nvmeXnY (O_DIRECT),
 * the passthrough engine on its generic node. Each configuration writes a
 * pattern that every other one reads back byte for byte, so passthrough
 * LBAs are checked against the block layer's, in both directions. Then:
 * reads past the end of the namespace, writes through read-only descriptors
 * (which a passthrough command would not be stopped by), and reap() never
 * handing back more than asked. Output: one JSON object, with every check.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include <unistd.h>

#include "nvbench.h"
#include "core/engine.h"
#include "devices/devices.h"
#include "engine_harness.h"
#include "vmtest_fio.h"

#define QMAX 32
#define BS 4096u
#define NBLK 128u                  /* 512 KiB moved per direction and pair */

struct cfg {
    const char *engine, *label;
    struct th_kv kv[3];
};

static const struct cfg cfgs[] = {
    {"psync", "psync", {{NULL, 0}}},
    {"libaio", "libaio", {{NULL, 0}}},
    {"io_uring", "io_uring", {{NULL, 0}}},
    {"io_uring", "io_uring iopoll=1", {{"iopoll", 1}, {NULL, 0}}},
    {"nvme", "nvme", {{NULL, 0}}},
    {"nvme", "nvme fixedbufs=0 regfiles=0", {{"fixedbufs", 0}, {"regfiles", 0}, {NULL, 0}}},
    {"nvme", "nvme iopoll=1", {{"iopoll", 1}, {NULL, 0}}},
};
#define NCFG ((int)(sizeof cfgs / sizeof cfgs[0]))

/* ------------------------------------------------------------ report */

static int g_first = 1, g_failed, g_passed;

static void jstr(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", *s);
        else
            putchar(*s);
    }
    putchar('"');
}

static void check(int ok, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void check(int ok, const char *name, const char *fmt, ...)
{
    char detail[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    printf("%s\n  {\"name\": ", g_first ? "" : ",");
    g_first = 0;
    jstr(name);
    printf(", \"ok\": %s, \"detail\": ", ok ? "true" : "false");
    jstr(detail);
    putchar('}');
    fflush(stdout);
    if (ok)
        g_passed++;
    else
        g_failed++;
}

/* ------------------------------------------------------------ harness */

/* The engine harness shared with tests/c/test_engines.c
 * (tests/common/engine_harness.c), on a namespace (always O_DIRECT). */
static int h_open(struct th *h, const struct cfg *c, int fd, unsigned qd)
{
    return th_open(h, c->engine, fd, qd, BS, 1, c->kv);
}

#define h_close th_close

static const char *used_get(const struct nvb__used *u, const char *key)
{
    const char *v = th_used(u, key);
    return v ? v : "";
}

static int h_transfer(struct th *h, int dir, uint64_t seed, uint64_t base, char *err, size_t elen)
{
    return th_transfer(h, dir, seed, base, NBLK, err, elen);
}






/* ------------------------------------------------------------ engines */

struct target {
    const char *block;
    char generic[64];
    uint64_t size;
    uint32_t lbs;
};

static int open_for(const struct target *t, const struct cfg *c, int flags)
{
    int chardev = (nvb__engine_find(c->engine)->flags & NVB__ENG_CHARDEV) != 0;
    return open(chardev ? t->generic : t->block, flags | (chardev ? 0 : O_DIRECT) | O_CLOEXEC);
}

static void engines_roundtrip(const struct target *t)
{
    char name[160], err[512];
    for (int a = 0; a < NCFG; a++)
        for (int b = 0; b < NCFG; b++) {
            snprintf(name, sizeof name, "roundtrip %s -> %s", cfgs[a].label, cfgs[b].label);
            uint64_t seed = (uint64_t)(a * NCFG + b) + 1;
            /* each pair its own region: stale data from a neighbour cannot pass */
            uint64_t base = ((uint64_t)(a * NCFG + b) * NBLK * BS) % (t->size - NBLK * BS);
            base -= base % BS;
            struct th h;
            int fa = open_for(t, &cfgs[a], O_RDWR), fb = open_for(t, &cfgs[b], O_RDWR);
            int rc = -1;
            err[0] = 0;
            if (fa < 0 || fb < 0) {
                snprintf(err, sizeof err, "open: %s", strerror(errno));
            } else if (h_open(&h, &cfgs[a], fa, 8) != 0) {
                snprintf(err, sizeof err, "writer setup: %s", h.why);
                h_close(&h);
            } else {
                rc = h_transfer(&h, NVB_WRITE, seed, base, err, sizeof err);
                h_close(&h);
                if (rc == 0) {
                    if (h_open(&h, &cfgs[b], fb, 8) != 0) {
                        snprintf(err, sizeof err, "reader setup: %s", h.why);
                        rc = -1;
                    } else {
                        rc = h_transfer(&h, NVB_READ, seed, base, err, sizeof err);
                    }
                    h_close(&h);
                }
            }
            if (fa >= 0)
                close(fa);
            if (fb >= 0)
                close(fb);
            check(rc == 0, name, "%s%s", rc == 0 ? "" : err, rc == 0 ? "512 KiB written and read back" : "");
        }
}

/* What each configuration reports it used, on this kernel (6.1). */
static void engines_used(const struct target *t)
{
    for (int c = 0; c < NCFG; c++) {
        if (strcmp(cfgs[c].engine, "nvme"))
            continue;
        int fd = open_for(t, &cfgs[c], O_RDWR);
        struct th h;
        int rc = h_open(&h, &cfgs[c], fd, 4);
        char name[160];
        snprintf(name, sizeof name, "used %s", cfgs[c].label);
        if (rc != 0) {
            check(0, name, "setup: %s", h.why);
        } else {
            const char *fb = used_get(&h.used, "fixedbufs"), *ip = used_get(&h.used, "iopoll");
            const char *lba = used_get(&h.used, "lba_size");
            int want_fb = cfgs[c].kv[0].k && !strcmp(cfgs[c].kv[0].k, "fixedbufs") ? 0 : 1;
            int want_ip = cfgs[c].kv[0].k && !strcmp(cfgs[c].kv[0].k, "iopoll") ? 1 : 0;
            char want_lba[16];
            snprintf(want_lba, sizeof want_lba, "%u", t->lbs);
            check(atoi(fb) == want_fb && atoi(ip) == want_ip && !strcmp(lba, want_lba), name,
                  "fixedbufs=%s iopoll=%s lba_size=%s setup_flags=%s", fb, ip, lba, used_get(&h.used, "setup_flags"));
        }
        h_close(&h);
        close(fd);
    }
}

static int one_io(struct th *h, int dir, uint64_t off, int64_t *res)
{
    struct nvb__io *io = &h->io[0], *out[QMAX];
    memset(io, 0, sizeof *io);
    io->buf = h->bufs[0];
    io->off = off;
    io->len = BS;
    io->dir = (uint8_t)dir;
    io->res = INT64_MIN;
    int r = h->e->submit(h->st, &io, 1);
    if (r < 0)
        return r;
    r = h->e->reap(h->st, out, h->qd, 1);
    if (r != 1 || out[0] != io)
        return -EPROTO;
    *res = io->res;
    return 0;
}

/* Past the end: the block engines read nothing (0); a passthrough command
 * names an LBA the namespace does not have, and the controller says so
 * (status LBA Out of Range, -EIO), which the engine's note reports. */
static void engines_eof(const struct target *t)
{
    for (int c = 0; c < NCFG; c++) {
        char name[160];
        snprintf(name, sizeof name, "past the end %s", cfgs[c].label);
        int fd = open_for(t, &cfgs[c], O_RDONLY);
        struct th h;
        if (h_open(&h, &cfgs[c], fd, 4) != 0) {
            check(0, name, "setup: %s", h.why);
            h_close(&h);
            close(fd);
            continue;
        }
        int64_t at_end = INT64_MIN, last = INT64_MIN;
        int r1 = one_io(&h, NVB_READ, t->size, &at_end);
        int r2 = one_io(&h, NVB_READ, t->size - BS, &last);
        char note[256] = "";
        if (h.e->note)
            h.e->note(h.st, note, sizeof note);
        int nv = !strcmp(cfgs[c].engine, "nvme");
        int ok = r1 == 0 && r2 == 0 && last == BS &&
                 (nv ? at_end == -EIO && strstr(note, "LBA Out of Range") && strstr(note, "1 command")
                     : at_end == 0 && !note[0]);
        check(ok, name, "read at the end: %" PRId64 ", last block: %" PRId64 "; note: %s", at_end, last, note);
        h_close(&h);
        close(fd);
    }
}

/* A write through a read-only descriptor fails with -EBADF for every engine:
 * the kernel stops pwrite/aio/io_uring writes, the nvme engine stops its
 * own (as root on 6.1 the kernel would pass the command). The block is
 * unchanged afterwards. */
static void engines_readonly(const struct target *t)
{
    static uint8_t before[BS] __attribute__((aligned(4096))), after[BS] __attribute__((aligned(4096)));
    const uint64_t off = t->size / 2;
    for (int c = 0; c < NCFG; c++) {
        char name[160];
        snprintf(name, sizeof name, "read-only descriptor %s", cfgs[c].label);
        int bfd = open(t->block, O_RDONLY | O_DIRECT);
        if (bfd < 0 || pread(bfd, before, BS, (off_t)off) != BS) {
            check(0, name, "pread %s: %s", t->block, strerror(errno));
            if (bfd >= 0)
                close(bfd);
            continue;
        }
        int fd = open_for(t, &cfgs[c], O_RDONLY);
        struct th h;
        if (h_open(&h, &cfgs[c], fd, 4) != 0) {
            check(0, name, "setup: %s", h.why);
            h_close(&h);
            close(fd);
            close(bfd);
            continue;
        }
        memset(h.bufs[0], 0x3c, BS);
        int64_t res = INT64_MIN;
        int r = one_io(&h, NVB_WRITE, off, &res);
        h_close(&h);
        close(fd);
        int same = pread(bfd, after, BS, (off_t)off) == BS && !memcmp(before, after, BS);
        close(bfd);
        check(r == 0 && res == -EBADF && same, name, "res %" PRId64 "%s", res, same ? "" : ", and the block changed");
    }
}

/* reap(max=1) hands back exactly one slot each time. */
static void engines_reap_max(const struct target *t)
{
    for (int c = 0; c < NCFG; c++) {
        char name[160];
        snprintf(name, sizeof name, "reap max %s", cfgs[c].label);
        int fd = open_for(t, &cfgs[c], O_RDONLY);
        struct th h;
        if (h_open(&h, &cfgs[c], fd, 8) != 0) {
            check(0, name, "setup: %s", h.why);
            h_close(&h);
            close(fd);
            continue;
        }
        struct nvb__io *ios[QMAX], *out[QMAX];
        for (unsigned i = 0; i < h.qd; i++) {
            struct nvb__io *io = &h.io[i];
            memset(io, 0, sizeof *io);
            io->buf = h.bufs[i];
            io->off = (uint64_t)i * BS;
            io->len = BS;
            io->slot = i;
            io->dir = NVB_READ;
            io->res = INT64_MIN;
            ios[i] = io;
        }
        int ok = h.e->submit(h.st, ios, h.qd) == 0;
        unsigned mask = 0;
        for (unsigned i = 0; i < h.qd && ok; i++) {
            out[1] = NULL;
            ok = h.e->reap(h.st, out, 1, 1) == 1 && out[1] == NULL && out[0]->res == BS;
            if (ok)
                mask |= 1u << out[0]->slot;
        }
        ok = ok && mask == (1u << h.qd) - 1 && h.e->reap(h.st, out, h.qd, 0) == 0;
        check(ok, name, "qd %u, slots seen 0x%x", h.qd, mask);
        h_close(&h);
        close(fd);
    }
}

/* What the runner does with the nvme engine's targets, now that the engine
 * is available (on a machine without NVMe the probe answers first). */
static int validate_msg(const char *engine, const char *target, const char *const *kv, char *msg, size_t len)
{
    struct nvb_workload *w;
    if (nvb_workload_new(&w) < 0)
        return -ENOMEM;
    int rc = nvb_workload_set(w, "engine", engine);
    for (; rc == 0 && kv && kv[0]; kv += 2)
        rc = nvb_workload_set(w, kv[0], kv[1]);
    if (rc == 0)
        rc = nvb_workload_add_target(w, target);
    if (rc == 0)
        rc = nvb_workload_validate(w);
    snprintf(msg, len, "%s", nvb_workload_error(w));
    nvb_workload_free(w);
    return rc;
}

static void runner_checks(const struct target *t)
{
    char msg[600];
    const char *file = "/tmp/vmtest-file";
    int fd = open(file, O_CREAT | O_RDWR | O_TRUNC, 0644);
    if (fd >= 0) {
        if (ftruncate(fd, 1 << 20) != 0)
            fprintf(stderr, "vmtest: ftruncate: %s\n", strerror(errno));
        close(fd);
    }
    int rc = validate_msg("nvme", file, NULL, msg, sizeof msg);
    check(rc == -ENODEV && strstr(msg, "not an NVMe namespace (a regular file)"), "runner: nvme refuses a file",
          "%d %s", rc, msg);
    unlink(file);
    rc = validate_msg("psync", t->generic, NULL, msg, sizeof msg);
    check(rc == -EINVAL && strstr(msg, "character device"), "runner: psync refuses a generic node", "%d %s", rc,
          msg);
    rc = validate_msg("nvme", t->generic, (const char *[]){"bs", "1M", NULL}, msg, sizeof msg);
    check(rc == -EINVAL && strstr(msg, "largest command"), "runner: nvme refuses bs above the largest transfer",
          "%d %s", rc, msg);
    if (t->lbs > 512) {
        rc = validate_msg("nvme", t->block, (const char *[]){"bs", "512", NULL}, msg, sizeof msg);
        check(rc == -EINVAL && strstr(msg, "NVMe commands move whole blocks"),
              "runner: nvme refuses bs below the LBA size", "%d %s", rc, msg);
    }
    rc = validate_msg("nvme", t->block, (const char *[]){"rw", "randwrite", NULL}, msg, sizeof msg);
    check(rc == -EPERM && strstr(msg, "allow_destructive=1"), "runner: the guard covers nvme writes",
          "%d %s", rc, msg);

    /* direct=0 means nothing to passthrough: a warning, and a run. */
    struct nvb_workload *w;
    struct nvb_result *r = NULL;
    char *json = NULL;
    rc = nvb_workload_new(&w);
    if (rc == 0) {
        nvb_workload_set(w, "engine", "nvme");
        nvb_workload_set(w, "direct", "0");
        nvb_workload_set(w, "ios", "64");
        nvb_workload_add_target(w, t->block);
        rc = nvb_run(w, NULL, &r);
        if (r)
            nvb_result_json(r, &json);
    }
    check(rc == 0 && nvb_result_ios(r, NVB_READ) == 64 && json && strstr(json, "direct=0 ignored") &&
              strstr(json, t->generic),
          "runner: nvme with direct=0 runs direct, with a warning, on the generic node", "%d %s", rc,
          r ? nvb_result_error(r) : "");
    nvb_free(json);
    nvb_result_free(r);
    nvb_workload_free(w);
}

/* A block device read through the page cache (direct=0): invalidate=0
 * finds the 8 MiB just read there and warns; invalidate (the default)
 * drops them (write-back and POSIX_FADV_DONTNEED on the device) first.
 * The descriptor that read them stays open across the run: the kernel
 * drops a block device's cached pages when its last opener closes it. */
static double cached_pct_after(const char *block, const char *invalidate, int *warned)
{
    int fd = open(block, O_RDONLY);
    char *b = malloc(1 << 20);
    for (int i = 0; fd >= 0 && b && i < 8; i++)
        if (pread(fd, b, 1 << 20, (off_t)i << 20) < 0)
            break;
    free(b);
    struct nvb_workload *w = NULL;
    struct nvb_result *r = NULL;
    double pct = -1;
    char *json = NULL;
    if (nvb_workload_new(&w) == 0) {
        const char *kv[] = {"engine", "psync", "direct", "0", "size", "8M", "ios", "16", "invalidate", invalidate};
        for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i += 2)
            nvb_workload_set(w, kv[i], kv[i + 1]);
        nvb_workload_add_target(w, block);
        if (nvb_run(w, NULL, &r) == 0 && nvb_result_get(r, "per_target.0.page_cache.cached_pct", &pct) != 0)
            pct = -1;
        if (r && nvb_result_json(r, &json) == 0)
            *warned = strstr(json, "in the page cache as the run began") != NULL;
    }
    nvb_free(json);
    nvb_result_free(r);
    nvb_workload_free(w);
    if (fd >= 0)
        close(fd);
    return pct;
}

static void page_cache_block(const struct target *t)
{
    int warned = 0;
    double pct = cached_pct_after(t->block, "0", &warned);
    check(pct > 90 && warned, "runner: invalidate=0 on a block device reports its cached pages and warns",
          "cached_pct %.1f, warning %d", pct, warned);
    pct = cached_pct_after(t->block, "1", &warned);
    check(pct >= 0 && pct < 5 && !warned, "runner: invalidate=1 drops a block device's cached pages",
          "cached_pct %.1f, warning %d", pct, warned);
}

/* Trims through the passthrough engine (Dataset Management, deallocate):
 * the guard covers them as writes; 1 MiB written with a pattern, trimmed in
 * 16 commands of 64 KiB, reads back as zeros (the emulated controller
 * reports that deallocated blocks read as zeros). */
static void nvme_trims(const struct target *t)
{
    char msg[600];
    int rc = validate_msg("nvme", t->block, (const char *[]){"rw", "trim", NULL}, msg, sizeof msg);
    check(rc == -EPERM && strstr(msg, "allow_destructive=1"), "runner: the guard covers nvme trims", "%d %s", rc,
          msg);
    const size_t len = 1 << 20;
    unsigned char *b = NULL;
    int fd = open(t->block, O_RDWR | O_DIRECT);
    int wrote = fd >= 0 && posix_memalign((void **)&b, 4096, len) == 0 &&
                (memset(b, 0xa5, len), pwrite(fd, b, len, 0) == (ssize_t)len);
    struct nvb_workload *w = NULL;
    struct nvb_result *r = NULL;
    rc = -1;
    if (wrote && nvb_workload_new(&w) == 0) {
        const char *kv[] = {"engine", "nvme", "rw", "trim", "bs", "64k", "size", "1M", "ios", "16",
                            "allow_destructive", "1"};
        for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i += 2)
            nvb_workload_set(w, kv[i], kv[i + 1]);
        nvb_workload_add_target(w, t->block);
        rc = nvb_run(w, NULL, &r);
    }
    int zeros = 0;
    if (rc == 0 && pread(fd, b, len, 0) == (ssize_t)len) {
        zeros = 1;
        for (size_t i = 0; i < len && zeros; i++)
            zeros = b[i] == 0;
    }
    check(rc == 0 && nvb_result_ios(r, NVB_TRIM) == 16 && nvb_result_errors(r) == 0 && zeros,
          "runner: nvme trims deallocate (Dataset Management), the range reads back as zeros",
          "wrote %d, rc %d, trims %" PRIu64 ", errors %" PRIu64 ", zeros %d %s", wrote, rc,
          r ? nvb_result_ios(r, NVB_TRIM) : 0, r ? nvb_result_errors(r) : 0, zeros, r ? nvb_result_error(r) : "");
    nvb_result_free(r);
    nvb_workload_free(w);
    free(b);
    if (fd >= 0)
        close(fd);
}

static int cmd_engines(const char *block)
{
    struct target t = {.block = block};
    struct nvb__nvme_ns ns;
    char msg[512];
    printf("{\"target\": ");
    jstr(block);
    printf(", \"checks\": [");
    int rc = nvb__nvme_ns_find(block, &ns, msg, sizeof msg);
    check(rc == 0 && ns.generic[0], "namespace of the target", "%s -> %s nsid %d lba %u size %" PRIu64 " %s", block,
          ns.generic, ns.nsid, ns.lba_size, ns.size, msg);
    if (rc == 0) {
        snprintf(t.generic, sizeof t.generic, "%s", ns.generic);
        t.size = ns.size;
        t.lbs = ns.lba_size;
        for (int c = 0; c < NCFG; c++) {
            char why[192];
            int p = nvb_engine_probe(cfgs[c].engine, why, sizeof why);
            if (c == 0 || strcmp(cfgs[c].engine, cfgs[c - 1].engine)) {
                char name[64];
                snprintf(name, sizeof name, "probe %s", cfgs[c].engine);
                check(p == 0, name, "%s", why);
            }
        }
        engines_used(&t);
        engines_roundtrip(&t);
        engines_eof(&t);
        engines_readonly(&t);
        engines_reap_max(&t);
        runner_checks(&t);
        page_cache_block(&t);
        nvme_trims(&t);
    }
    printf("\n], \"passed\": %d, \"failed\": %d}\n", g_passed, g_failed);
    return g_failed ? 1 : 0;
}

/* ------------------------------------------------------------ devices */

struct findarg {
    const char *serial;
    const char *nsid;
    int generic;
    int found;
};

static int find_cb(const struct nvb_device *d, void *arg)
{
    struct findarg *a = arg;
    char kind[32], serial[128], nsid[16], path[128], hidden[8];
    if (nvb_device_get(d, "kind", kind, sizeof kind) < 0 || strcmp(kind, "nvme"))
        return 0;
    if (nvb_device_get(d, "hidden", hidden, sizeof hidden) >= 0 && !strcmp(hidden, "true"))
        return 0;
    if (nvb_device_get(d, "serial", serial, sizeof serial) < 0 || strcmp(serial, a->serial))
        return 0;
    if (nvb_device_get(d, "nvme.nsid", nsid, sizeof nsid) < 0 || strcmp(nsid, a->nsid))
        return 0;
    if (nvb_device_get(d, a->generic ? "nvme.generic_path" : "path", path, sizeof path) < 0)
        return 0;
    printf("%s\n", path);
    a->found = 1;
    return 1;
}

/* A library call's JSON on stdout (freed), or its error on stderr: exit status. */
static int put_json(const char *call, int rc, char *json)
{
    if (rc < 0) {
        fprintf(stderr, "vmtest: %s: %s\n", call, nvb_strerror(rc));
        return 1;
    }
    puts(json);
    nvb_free(json);
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    char *json = NULL;
    int rc;
    if (argc >= 2 && !strcmp(argv[1], "devices")) {
        rc = nvb_devices_json(NULL, &json); /* before json is read: argument order is unspecified */
        return put_json("nvb_devices_json", rc, json);
    }
    if (argc >= 4 && !strcmp(argv[1], "find")) {
        struct findarg a = {argv[2], argv[3], argc >= 5 && !strcmp(argv[4], "generic"), 0};
        nvb_device_enumerate(NULL, find_cb, &a);
        return a.found ? 0 : 1;
    }
    if (argc >= 3 && !strcmp(argv[1], "engines"))
        return cmd_engines(argv[2]);
    if (argc >= 3 && !strcmp(argv[1], "environment")) { /* what nvbench doctor prints, in the guest */
        const char *const t[] = {argv[2]};
        rc = nvb_environment_json(NULL, t, 1, &json);
        return put_json("nvb_environment_json", rc, json);
    }
    if (argc >= 2 && !strcmp(argv[1], "fio"))
        return vm_fio(argc, argv);
    fprintf(stderr, "usage: vmtest devices | find SERIAL NSID [generic] | engines BLOCKDEV | environment BLOCKDEV | "
            "fio JOBFILE [KEY=VALUE...]\n");
    return 2;
}
