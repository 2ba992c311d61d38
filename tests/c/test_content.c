/*
 * What the targets hold, before and after a run: the page cache at the
 * start (invalidate=1 drops it, invalidate=0 measures it and warns), holes
 * in file targets (a read of a sparse file warns; a scratch file has none),
 * the data written (fresh and incompressible by default, data_compress and
 * data_dedupe on purpose), and libaio with direct=0 run as qd 1.
 *
 * The page-cache state is asserted with mincore(2) from here, at the run's
 * start barrier (every job set up, nothing read yet), not from IOPS.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "nvbench.h"
#include "core/data.h"
#include "core/internal.h"
#include "platform/platform.h"
#include "testutil.h"

#define MiB (1ull << 20)
#define DATA_SIZE (64 * MiB)

#define mk tu_workload

/* ------------------------------------------------------------ helpers */

static int warned(const struct nvb_result *r, const char *a, const char *b)
{
    for (unsigned i = 0; i < r->nwarn; i++)
        if (strstr(r->warn[i], a) && (!b || strstr(r->warn[i], b)))
            return 1;
    return 0;
}

/* Share of a file in the page cache, by mincore() here. */
static double resident_pct(const char *path)
{
    int fd = open(path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    struct stat st;
    ck_assert_int_eq(fstat(fd, &st), 0);
    size_t len = (size_t)st.st_size, ps = (size_t)sysconf(_SC_PAGESIZE), np = (len + ps - 1) / ps;
    void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
    ck_assert(m != MAP_FAILED);
    unsigned char *vec = malloc(np);
    ck_assert_int_eq(mincore(m, len, vec), 0);
    size_t n = 0;
    for (size_t i = 0; i < np; i++)
        n += vec[i] & 1;
    free(vec);
    munmap(m, len);
    close(fd);
    return 100.0 * (double)n / (double)np;
}

/* Read a whole file through the page cache. */
static void cache_file(const char *path)
{
    int fd = open(path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    char *b = malloc(MiB);
    while (read(fd, b, MiB) > 0)
        ;
    free(b);
    close(fd);
}

static unsigned char *read_all(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    struct stat st;
    ck_assert_int_eq(fstat(fd, &st), 0);
    *len = (size_t)st.st_size;
    unsigned char *b = malloc(*len);
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(pread(fd, b, *len, 0), (ssize_t)*len);
    close(fd);
    return b;
}

/* A file of size bytes: zeros written (allocated), or a hole. */
static char *zero_file(const char *name, uint64_t size, int allocated)
{
    char *p = NULL;
    ck_assert_int_ge(asprintf(&p, "%s/content-%s-%d", tu_tmpdir(), name, (int)getpid()), 0);
    int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, (off_t)size), 0);
    if (allocated) {
        char *z = calloc(1, MiB);
        for (uint64_t o = 0; o < size; o += MiB)
            ck_assert_int_eq(pwrite(fd, z, MiB, (off_t)o), (ssize_t)MiB);
        free(z);
        ck_assert_int_eq(fsync(fd), 0);
    }
    close(fd);
    return p;
}

/* Duplicate 4 KiB blocks (each block equal to an earlier one counts) and
 * what zlib at level 1 (gzip -1) makes of the whole, as a ratio. */
struct content_stats {
    size_t blocks, dups;
    double zratio;
};

static int cmp_idx(const void *a, const void *b, void *arg)
{
    const unsigned char *d = arg;
    return memcmp(d + *(const size_t *)a * 4096, d + *(const size_t *)b * 4096, 4096);
}

static struct content_stats content_of(const unsigned char *d, size_t len)
{
    struct content_stats s = {len / 4096, 0, 0};
    size_t *idx = malloc(s.blocks * sizeof *idx);
    for (size_t i = 0; i < s.blocks; i++)
        idx[i] = i;
    qsort_r(idx, s.blocks, sizeof *idx, cmp_idx, (void *)d);
    for (size_t i = 1; i < s.blocks; i++)
        s.dups += !memcmp(d + idx[i] * 4096, d + idx[i - 1] * 4096, 4096);
    free(idx);
    uLongf zl = compressBound(len);
    unsigned char *z = malloc(zl);
    ck_assert_int_eq(compress2(z, &zl, d, len, 1), Z_OK);
    free(z);
    s.zratio = (double)zl / (double)len;
    return s;
}

static struct content_stats file_content(const char *path)
{
    size_t len;
    unsigned char *d = read_all(path, &len);
    struct content_stats s = content_of(d, len);
    free(d);
    return s;
}

static int engine_ok(const char *e)
{
    char why[256];
    return nvb_engine_probe(e, why, sizeof why) == 0;
}

/* ---------------------------------------------------------- page cache */

struct barrier_look {
    const char *path;
    double pct;
};

static int look_at_start(int status, void *arg)
{
    struct barrier_look *b = arg;
    if (status == 0)
        b->pct = resident_pct(b->path);
    return 0;
}

/* A cached file read with direct=0: invalidate (the default) drops it
 * before the run; invalidate=0 leaves it, says how much was cached, and
 * warns. */
START_TEST(invalidate_drops_the_page_cache)
{
    char *f = tu_scratch("cached", DATA_SIZE);
    const char *t1[] = {f, NULL};
    for (int inv = 1; inv >= 0; inv--) {
        cache_file(f);
        ck_assert_msg(resident_pct(f) > 90, "the file could not be cached: %.1f%%", resident_pct(f));
        struct nvb_workload *w = mk((const char *[]){"engine", "psync", "rw", "randread", "direct", "0",
                                                     "ios", "64", NULL}, t1);
        if (!inv)
            ck_assert_int_eq(nvb_workload_set(w, "invalidate", "0"), 0);
        struct barrier_look b = {f, -1};
        struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
        o.start_barrier = look_at_start;
        o.start_barrier_arg = &b;
        struct nvb_result *r = NULL;
        ck_assert_int_eq(nvb_run(w, &o, &r), 0);
        const struct nvb__tcontent *c = &r->tg[0].content;
        ck_assert(c->examined && c->cached_known);
        ck_assert_uint_eq(c->cached_examined, DATA_SIZE);
        double got = tu_get(r, "per_target.0.page_cache.cached_pct");
        ck_assert(got == c->cached_pct);
        if (inv) {
            ck_assert_msg(b.pct < 1, "%.2f%% of the file resident at the start after invalidation", b.pct);
            ck_assert_msg(got < 1, "result says %.2f%% cached", got);
            ck_assert(c->invalidated);
            ck_assert(!warned(r, "page cache", NULL));
        } else {
            ck_assert_msg(b.pct > 90, "%.2f%% resident at the start with invalidate=0", b.pct);
            ck_assert_msg(got > 90, "result says %.2f%% cached", got);
            ck_assert(!c->invalidated);
            ck_assert_msg(warned(r, "in the page cache as the run began", f), "no warning about the cached target");
        }
        char *json = NULL;
        ck_assert_int_eq(nvb_result_json(r, &json), 0);
        ck_assert(strstr(json, inv ? "\"invalidated\":true" : "\"invalidated\":false"));
        ck_assert(strstr(json, inv ? "\"invalidate\":1" : "\"invalidate\":0"));
        nvb_free(json);
        nvb_result_free(r);
        nvb_workload_free(w);
    }
    /* direct=1: dropped all the same, not measured (no read goes through the cache) */
    cache_file(f);
    struct nvb_workload *w = mk((const char *[]){"engine", "psync", "rw", "randread", "ios", "16", NULL}, t1);
    struct nvb_result *r = tu_run_ok(w);
    ck_assert(r->tg[0].content.invalidated && !r->tg[0].content.cached_known);
    ck_assert_msg(resident_pct(f) < 5, "%.1f%% still resident after a direct=1 run", resident_pct(f));
    nvb_result_free(r);
    nvb_workload_free(w);
    unlink(f);
    free(f);
}
END_TEST

/* cachestat(2) and mincore(2) agree; dirty pages are written back and
 * dropped; mincore() examines a huge region in evenly spaced windows,
 * saying how much it looked at. */
START_TEST(cache_measures_agree)
{
    char *f = tu_scratch("half", 32 * MiB);
    int fd = open(f, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(nvb__cache_drop(fd, 0, 0), 0);
    ck_assert_int_eq(posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM), 0); /* no readahead */
    char *b = malloc(MiB);
    for (int i = 0; i < 16; i++) /* the first half */
        ck_assert_int_eq(pread(fd, b, MiB, (off_t)i * (off_t)MiB), (ssize_t)MiB);
    free(b);
    uint64_t r1, e1, r2, e2;
    ck_assert_int_eq(nvb__cache_resident(fd, 0, 32 * MiB, &r1, &e1), 0);
    ck_assert_int_eq(nvb__cache_resident_mincore(fd, 0, 32 * MiB, &r2, &e2), 0);
    ck_assert_uint_eq(e1, 32 * MiB);
    ck_assert_uint_eq(e2, 32 * MiB);
    ck_assert_msg(r1 >= 16 * MiB && r1 <= 17 * MiB, "cachestat: %llu", (unsigned long long)r1);
    ck_assert_msg(r2 >= 16 * MiB && r2 <= 17 * MiB, "mincore: %llu", (unsigned long long)r2);
    /* a region part of the cached half, part not: clipped to the region */
    ck_assert_int_eq(nvb__cache_resident_mincore(fd, 15 * MiB + 100, MiB, &r2, &e2), 0);
    ck_assert_uint_ge(r2, MiB - 100);
    ck_assert_uint_le(r2, MiB);
    close(fd);
    unlink(f);
    free(f);
    /* dirty pages: written back first, then dropped with the rest */
    char *dirty = zero_file("dirty", 16 * MiB, 0);
    fd = open(dirty, O_WRONLY);
    ck_assert_int_ge(fd, 0);
    char *ones = malloc(MiB);
    memset(ones, 1, MiB);
    for (int i = 0; i < 16; i++)
        ck_assert_int_eq(pwrite(fd, ones, MiB, (off_t)i * (off_t)MiB), (ssize_t)MiB);
    free(ones);
    ck_assert_msg(resident_pct(dirty) > 90, "the written file is not in the cache: %.1f%%", resident_pct(dirty));
    ck_assert_int_eq(nvb__cache_drop(fd, 0, 16 * MiB), 0);
    close(fd);
    ck_assert_msg(resident_pct(dirty) < 1, "%.1f%% of a dirty file stayed cached", resident_pct(dirty));
    unlink(dirty);
    free(dirty);
    /* 40 GiB of holes: mincore() looks at 16 GiB of it, spread out */
    char *big = zero_file("big", 40ull << 30, 0);
    fd = open(big, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(nvb__cache_resident_mincore(fd, 0, 40ull << 30, &r2, &e2), 0);
    ck_assert_uint_eq(e2, 16ull << 30);
    ck_assert_uint_eq(r2, 0);
    close(fd);
    unlink(big);
    free(big);
}
END_TEST

/* ---------------------------------------------------------- holes */

START_TEST(sparse_target_warns)
{
    char *hole = zero_file("hole", DATA_SIZE, 0), *full = zero_file("full", DATA_SIZE, 1);
    char *half = zero_file("half", DATA_SIZE, 0);
    {
        int fd = open(half, O_WRONLY);
        char *z = calloc(1, MiB);
        for (uint64_t o = 0; o < DATA_SIZE / 2; o += MiB)
            ck_assert_int_eq(pwrite(fd, z, MiB, (off_t)o), (ssize_t)MiB);
        fsync(fd);
        close(fd);
        free(z);
    }
    const char *files[] = {hole, half, full};
    const double want[] = {0, 50, 100};
    for (int i = 0; i < 3; i++) {
        const char *t1[] = {files[i], NULL};
        struct nvb_workload *w = mk((const char *[]){"engine", "psync", "rw", "randread", "ios", "32", NULL}, t1);
        struct nvb_result *r = tu_run_ok(w);
        double got = tu_get(r, "per_target.0.allocated_pct");
        ck_assert_msg(got >= want[i] - 1 && got <= want[i] + 1, "%s: allocated %.1f%%", files[i], got);
        ck_assert_msg(warned(r, "SPARSE TARGET", files[i]) == (want[i] < 90), "%s: warning?", files[i]);
        if (want[i] < 90)
            ck_assert(warned(r, "Fill the region first", NULL));
        nvb_result_free(r);
        nvb_workload_free(w);
    }
    /* writing holes is no mistake: no warning */
    const char *t1[] = {hole, NULL};
    struct nvb_workload *w = mk((const char *[]){"engine", "psync", "rw", "randwrite", "ios", "32", NULL}, t1);
    struct nvb_result *r = tu_run_ok(w);
    ck_assert(!warned(r, "SPARSE TARGET", NULL));
    nvb_result_free(r);
    nvb_workload_free(w);
    for (int i = 0; i < 3; i++) {
        unlink(files[i]);
        free((char *)files[i]);
    }
}
END_TEST

/* At the start barrier the scratch file is laid out: it has no holes, and
 * its blocks are all different and do not compress. */
struct scratch_look {
    const char *dir;
    off_t size, hole;
    struct content_stats st;
};

static int look_at_scratch(int status, void *arg)
{
    struct scratch_look *s = arg;
    if (status)
        return 0;
    DIR *dd = opendir(s->dir);
    struct dirent *e;
    char path[1024] = "";
    while (dd && (e = readdir(dd)))
        if (strncmp(e->d_name, ".nvbench-scratch-", 17) == 0)
            snprintf(path, sizeof path, "%s/%s", s->dir, e->d_name);
    if (dd)
        closedir(dd);
    int fd = path[0] ? open(path, O_RDONLY) : -1;
    if (fd < 0)
        return 0;
    s->size = lseek(fd, 0, SEEK_END);
    s->hole = lseek(fd, 0, SEEK_HOLE);
    close(fd);
    s->st = file_content(path);
    return 0;
}

START_TEST(scratch_layout_has_no_holes)
{
    char *dir = tu_mkdtemp("content-scratch");
    const char *t1[] = {dir, NULL};
    struct nvb_workload *w = mk((const char *[]){"engine", "psync", "rw", "randread", "size", "64M", "ios", "16",
                                                 NULL}, t1);
    struct scratch_look s = {dir, -1, -1, {0, 0, 0}};
    struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
    o.start_barrier = look_at_scratch;
    o.start_barrier_arg = &s;
    struct nvb_result *r = NULL;
    ck_assert_int_eq(nvb_run(w, &o, &r), 0);
    ck_assert_int_eq(s.size, (off_t)DATA_SIZE);
    ck_assert_msg(s.hole == s.size, "a hole at %lld in the laid-out scratch file", (long long)s.hole);
    ck_assert_uint_eq(s.st.blocks, DATA_SIZE / 4096);
    ck_assert_msg(s.st.dups == 0, "%zu repeated 4 KiB blocks in the layout", s.st.dups);
    ck_assert_msg(s.st.zratio >= 0.95, "the layout compresses to %.3f", s.st.zratio);
    ck_assert(tu_get(r, "per_target.0.allocated_pct") == 100);
    nvb_result_free(r);
    nvb_workload_free(w);
    rmdir(dir);
    free(dir);
}
END_TEST

/* ---------------------------------------------------------- data written */

/* 64 MiB written by a run (each block of a file once, sequentially; then
 * each block of a smaller one 4 times over at random) holds no repeated 4 KiB block and does not
 * compress, whatever the engine and queue depth. */
START_TEST(written_data_is_fresh)
{
    static const char *const engines[] = {"psync", "io_uring"};
    static const char *const qds[] = {"1", "8"};
    for (int e = 0; e < 2; e++) {
        if (!engine_ok(engines[e])) {
            fprintf(stderr, "note: %s not available: not checked\n", engines[e]);
            continue;
        }
        for (int rnd = 0; rnd < 2; rnd++) {
            /* randwrite: a quarter of the size, written 4 times over */
            char *f = zero_file("fresh", rnd ? DATA_SIZE / 4 : DATA_SIZE, 1);
            const char *t1[] = {f, NULL};
            struct nvb_workload *w = mk((const char *[]){"engine", engines[e], "rw", rnd ? "randwrite" : "write",
                                                         "bs", "4k", "qd", qds[e], "direct", "0",
                                                         "io_limit", "64M", NULL}, t1);
            struct nvb_result *r = tu_run_ok(w);
            nvb_result_free(r);
            nvb_workload_free(w);
            struct content_stats s = file_content(f);
            /* randwrite 4x the region misses e^-4 of it: those blocks stay zero */
            size_t zero_dups = rnd ? s.blocks / 40 : 0;
            ck_assert_msg(s.dups <= zero_dups, "%s %s: %zu repeated 4 KiB blocks", engines[e],
                          rnd ? "randwrite" : "write", s.dups);
            if (!rnd)
                ck_assert_msg(s.zratio >= 0.95, "%s: compresses to %.3f", engines[e], s.zratio);
            unlink(f);
            free(f);
        }
    }
}
END_TEST

/* data_compress=50 compresses to about half, data_dedupe=50 makes about
 * half the blocks duplicates; the result echoes both. */
START_TEST(data_compress_and_dedupe)
{
    static const char *const keys[][4] = {
        {"data_compress", "50", "data_dedupe", "0"},
        {"data_compress", "0", "data_dedupe", "50"},
        {"data_compress", "25", "data_dedupe", "25"},
    };
    for (int k = 0; k < 3; k++) {
        char *f = zero_file("cd", DATA_SIZE, 1);
        const char *t1[] = {f, NULL};
        struct nvb_workload *w = mk((const char *[]){"engine", "psync", "rw", "write", "bs", "4k", "direct", "0",
                                                     "io_limit", "64M", keys[k][0], keys[k][1], keys[k][2],
                                                     keys[k][3], NULL}, t1);
        struct nvb_result *r = tu_run_ok(w);
        char *json = NULL, echo[64];
        ck_assert_int_eq(nvb_result_json(r, &json), 0);
        snprintf(echo, sizeof echo, "\"data_compress\":%s,\"data_dedupe\":%s", keys[k][1], keys[k][3]);
        ck_assert_msg(strstr(json, echo), "no %s in the workload", echo);
        nvb_free(json);
        nvb_result_free(r);
        nvb_workload_free(w);
        struct content_stats s = file_content(f);
        double comp = atoi(keys[k][1]) / 100.0, dup = atoi(keys[k][3]) / 100.0;
        double dupf = (double)s.dups / (double)s.blocks;
        ck_assert_msg(dupf >= dup - 0.05 && dupf <= dup + 0.05, "%s=%s %s=%s: %.3f duplicates", keys[k][0],
                      keys[k][1], keys[k][2], keys[k][3], dupf);
        /* what is not a duplicate compresses by data_compress (duplicates, within 32 KiB, to nothing) */
        double want = (1 - comp) * (1 - dup);
        ck_assert_msg(s.zratio >= want - 0.1 && s.zratio <= want + 0.1, "%s=%s %s=%s: ratio %.3f, expected ~%.2f",
                      keys[k][0], keys[k][1], keys[k][2], keys[k][3], s.zratio, want);
        unlink(f);
        free(f);
    }
}
END_TEST

/* The block generator: the documented layout of zeros, a prefix of a block
 * is the block's start, and the same (offset, counter) gives the same. */
START_TEST(data_block_layout)
{
    static const uint32_t sizes[] = {512, 1000, 4096, 4100, 65536};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint32_t bs = sizes[i];
        struct nvb__data d;
        ck_assert_int_eq(nvb__data_init(&d, bs, 42, 50, 0), 0);
        unsigned char *a = malloc(bs + 1), *b = malloc(bs);
        nvb__data_fill(&d, a + 1, bs, 4096, 7); /* anywhere in memory */
        nvb__data_fill(&d, b, bs, 4096, 7);
        ck_assert(!memcmp(a + 1, b, bs));
        for (uint32_t so = 0; so < bs; so += 512) {
            uint32_t len = bs - so < 512 ? bs - so : 512, z = (uint32_t)(len * 50 / 100) & ~7u;
            for (uint32_t k = len - z; k < len; k++)
                ck_assert_msg(b[so + k] == 0, "bs %u: byte %u of the sector at %u is not zero", bs, k, so);
            int nz = 0;
            for (uint32_t k = 0; k < len - z; k++)
                nz += b[so + k] != 0;
            ck_assert_int_gt(nz, (int)(len - z) * 9 / 10);
        }
        for (uint32_t n = 1; n < bs; n = n * 3 + 7) {
            memset(a, 0xee, bs);
            nvb__data_fill(&d, a, n, 4096, 7);
            ck_assert(!memcmp(a, b, n));
            ck_assert_int_eq(a[n], 0xee);
        }
        nvb__data_fill(&d, a, bs, 4096, 8);
        ck_assert(memcmp(a, b, bs));
        free(a);
        free(b);
        nvb__data_free(&d);
    }
}
END_TEST

START_TEST(data_keys_checked)
{
    char *f = zero_file("keys", MiB, 1);
    const char *t1[] = {f, NULL};
    struct nvb_workload *w = mk((const char *[]){"engine", "psync", "rw", "randwrite", NULL}, t1);
    ck_assert_int_eq(nvb_workload_set(w, "data_compress", "101"), -ERANGE);
    ck_assert_ptr_nonnull(strstr(nvb_workload_error(w), "data_compress"));
    ck_assert_int_eq(nvb_workload_set(w, "data_dedupe", "-1"), -EINVAL);
    ck_assert_int_eq(nvb_workload_set(w, "invalidate", "2"), -EINVAL);
    ck_assert_int_eq(nvb_workload_set(w, "data_compress", "30"), 0);
    ck_assert_int_eq(nvb_workload_set(w, "verify", "1"), 0);
    ck_assert_int_eq(nvb_workload_validate(w), -EINVAL);
    ck_assert_ptr_nonnull(strstr(nvb_workload_error(w), "data_compress=30 needs verify=0"));
    ck_assert_int_eq(nvb_workload_set(w, "verify", "0"), 0);
    ck_assert_int_eq(nvb_workload_set(w, "fill", "zero"), 0);
    ck_assert_int_eq(nvb_workload_validate(w), -EINVAL);
    ck_assert_ptr_nonnull(strstr(nvb_workload_error(w), "needs fill=random"));
    ck_assert_int_eq(nvb_workload_set(w, "fill", "random"), 0);
    ck_assert_int_eq(nvb_workload_validate(w), 0);
    char v[16];
    ck_assert_int_gt(nvb_workload_get(w, "invalidate", v, sizeof v), 0);
    ck_assert_str_eq(v, "1");
    nvb_workload_free(w);
    /* nothing written: the keys are said to do nothing */
    w = mk((const char *[]){"engine", "psync", "rw", "randread", "ios", "4", "data_dedupe", "10", NULL}, t1);
    struct nvb_result *r = tu_run_ok(w);
    ck_assert(warned(r, "data_dedupe=10 ignored", NULL));
    nvb_result_free(r);
    nvb_workload_free(w);
    unlink(f);
    free(f);
}
END_TEST

/* verify=1 keeps its own blocks: the scramble never touches them. */
START_TEST(verify_keeps_its_blocks)
{
    char *f = zero_file("verify", 8 * MiB, 1);
    const char *t1[] = {f, NULL};
    struct nvb_workload *w = mk((const char *[]){"engine", "psync", "rw", "write", "bs", "4k", "verify", "1",
                                                 "io_limit", "8M", NULL}, t1);
    nvb_result_free(tu_run_ok(w));
    nvb_workload_free(w);
    w = mk((const char *[]){"engine", "psync", "rw", "randrw", "bs", "4k", "verify", "1", "ios", "4000", NULL}, t1);
    struct nvb_result *r = tu_run_ok(w);
    ck_assert_uint_gt(r->verify_checked, 0);
    ck_assert_uint_eq(r->verify_mismatches, 0);
    nvb_result_free(r);
    nvb_workload_free(w);
    unlink(f);
    free(f);
}
END_TEST

/* libaio completes buffered I/O inside io_submit: run as qd 1, said so. */
START_TEST(libaio_buffered_runs_qd1)
{
    if (!engine_ok("libaio")) {
        fprintf(stderr, "note: libaio not available: not checked\n");
        return;
    }
    char *f = tu_scratch("aio", 8 * MiB);
    const char *t1[] = {f, NULL};
    for (int direct = 0; direct < 2; direct++) {
        struct nvb_workload *w = mk((const char *[]){"engine", "libaio", "rw", "randread", "qd", "16", "direct",
                                                     direct ? "1" : "0", "ios", "256", NULL}, t1);
        struct nvb_result *r = tu_run_ok(w);
        ck_assert_uint_eq((unsigned)tu_get(r, "qd_effective"), direct ? 16 : 1);
        ck_assert_int_eq(warned(r, "is synchronous with direct=0", "qd 16 runs as qd 1"), !direct);
        nvb_result_free(r);
        nvb_workload_free(w);
    }
    unlink(f);
    free(f);
}
END_TEST

/* Writes to holes or unwritten (fallocated) extents cost the file system
 * allocating or converting extents: warned on writes as holes are on reads
 * (fio lays a write-only job's file out with fallocate). The write caching
 * under a file target is recorded: its file system, and the disk's
 * queue/write_cache as the kernel says it. */
START_TEST(unwritten_target_warns_on_writes)
{
    char *hole = zero_file("w-hole", DATA_SIZE, 0), *full = zero_file("w-full", DATA_SIZE, 1);
    char *fall = zero_file("w-fall", 0, 0);
    int fd = open(fall, O_WRONLY);
    int have_fall = fd >= 0 && posix_fallocate(fd, 0, DATA_SIZE) == 0;
    if (fd >= 0)
        close(fd);
    if (!have_fall)
        fprintf(stderr, "note: no fallocate on %s: the fallocated case is not tested\n", tu_tmpdir());
    const char *files[] = {hole, full, fall};
    for (int i = 0; i < (have_fall ? 3 : 2); i++) {
        const char *t1[] = {files[i], NULL};
        struct nvb_workload *w = mk((const char *[]){"engine", "psync", "rw", "randwrite", "ios", "32", NULL}, t1);
        struct nvb_result *r = tu_run_ok(w);
        double got = tu_get(r, "per_target.0.allocated_pct");
        ck_assert_msg(warned(r, "UNWRITTEN TARGET", files[i]) == (got < 90), "%s: allocated %.1f%%, warning?",
                      files[i], got);
        if (i == 0)
            ck_assert(got < 1 && warned(r, "UNWRITTEN TARGET", files[i]));
        if (i == 1)
            ck_assert(got > 99 && !warned(r, "UNWRITTEN TARGET", NULL));
        ck_assert(!warned(r, "SPARSE TARGET", NULL)); /* that one is the reads' */
        char *json = NULL, *json2 = NULL;
        struct nvb_result *back = NULL;
        ck_assert_int_eq(nvb_result_json(r, &json), 0);
        const char *wc = strstr(json, "\"write_cache\":{\"fs\":\"");
        ck_assert_msg(wc != NULL, "no write_cache in %s", files[i]);
        /* the disk's mode is the kernel's queue/write_cache, word for word */
        const struct nvb__tcontent *k = &r->tg[0].content;
        if (k->wc_disk[0]) {
            char q[256], mode[32] = "";
            snprintf(q, sizeof q, "/sys/class/block/%s/queue/write_cache", k->wc_disk);
            FILE *f = fopen(q, "r");
            if (!f) {
                snprintf(q, sizeof q, "/sys/class/block/%s/../queue/write_cache", k->wc_disk);
                f = fopen(q, "r");
            }
            if (f) {
                if (fgets(mode, sizeof mode, f))
                    mode[strcspn(mode, "\n")] = 0;
                fclose(f);
                ck_assert_str_eq(k->wc_disk_mode, mode);
            }
        }
        ck_assert_int_eq(nvb_result_from_json(json, &back), 0);
        ck_assert_int_eq(nvb_result_json(back, &json2), 0);
        ck_assert_str_eq(json, json2);
        free(json);
        free(json2);
        nvb_result_free(back);
        nvb_result_free(r);
        nvb_workload_free(w);
    }
    for (int i = 0; i < 3; i++) {
        unlink(files[i]);
        free((char *)files[i]);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("content");
    TCase *tc = tcase_create("content");
    tcase_set_timeout(tc, 300);
    const TTest *const tests[] = {
        invalidate_drops_the_page_cache, cache_measures_agree, sparse_target_warns, scratch_layout_has_no_holes,
        written_data_is_fresh, data_compress_and_dedupe, data_block_layout, data_keys_checked,
        verify_keeps_its_blocks, libaio_buffered_runs_qd1, unwritten_target_warns_on_writes,
    };
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
        tcase_add_test(tc, tests[i]);
    suite_add_tcase(s, tc);
    int failed = tu_run_suite(s);
    return failed ? 1 : 0;
}
