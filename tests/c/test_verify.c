/* Data verification (verify=1) through the public API and the block format
 * underneath (core/verify.h), for every engine: blocks corrupted behind
 * nvbench's back (single byte flips anywhere in a block, whole blocks
 * zeroed, blocks copied from another offset or another target, a stretch
 * overwritten) are all found, each once and under the right field, and
 * concurrent writers and readers, any number of jobs, never report a block
 * that was not corrupted. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvbench.h"
#include "core/verify.h"
#include "testutil.h"

#define BS 4096u
#define NBLK 1024u                    /* 4 MiB files */
#define FILE_SIZE (BS * NBLK)
#define SEED "4242"

static char *g_file[2];
static const char *g_engines[8];
static int g_n;

static struct nvb_workload *mk(const char *eng, const char *const *kv, const char *const *targets)
{
    const char *base[] = {"engine", eng, "verify", "1", "seed", SEED, NULL};
    struct nvb_workload *w = tu_workload(base, targets);
    for (; kv && kv[0]; kv += 2)
        ck_assert_msg(nvb_workload_set(w, kv[0], kv[1]) == 0, "set %s=%s: %s", kv[0], kv[1], nvb_workload_error(w));
    return w;
}



/* Both files written whole, as target 0 and target 1 of one workload. */
static void write_all(const char *eng, const char *jobs)
{
    char n[32];
    snprintf(n, sizeof n, "%u", 2 * NBLK);
    struct nvb_workload *w = mk(eng, (const char *[]){"rw", "write", "qd", "8", "jobs", jobs, "ios", n,
                                                      "target_mode", "split", NULL},
                                (const char *[]){g_file[0], g_file[1], NULL});
    struct nvb_result *r = tu_run_ok(w);
    ck_assert_uint_eq(nvb_result_ios(r, NVB_WRITE), 2 * NBLK);
    nvb_result_free(r);
    nvb_workload_free(w);
}

/* Read every block of both files once; the result. */
static struct nvb_result *read_all(const char *eng)
{
    char n[32];
    snprintf(n, sizeof n, "%u", 2 * NBLK);
    struct nvb_workload *w = mk(eng, (const char *[]){"rw", "read", "qd", "8", "ios", n, "target_mode", "split",
                                                      "jobs", "2", NULL},
                                (const char *[]){g_file[0], g_file[1], NULL});
    struct nvb_result *r = tu_run_ok(w);
    nvb_workload_free(w);
    ck_assert_uint_eq((uint64_t)tu_get(r, "verify.checked"), 2 * NBLK);
    return r;
}

static void pread_block(int fd, unsigned blk, unsigned char *b)
{
    ck_assert_int_eq(pread(fd, b, BS, (off_t)blk * BS), BS);
}

static void pwrite_block(int fd, unsigned blk, const unsigned char *b, size_t len, size_t at)
{
    ck_assert_int_eq(pwrite(fd, b + at, len, (off_t)blk * BS + (off_t)at), (ssize_t)len);
}

struct plan {
    int expect[NBLK];   /* per block of file 0: the field a read must report, 0 = intact */
    int nbad;
    int by[NVB__VF_COUNT];
};

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static unsigned pick_clean(struct plan *p, uint64_t *s)
{
    for (;;) {
        unsigned b = (unsigned)(rnd(s) % NBLK);
        if (!p->expect[b])
            return b;
    }
}

static void mark(struct plan *p, unsigned blk, int field)
{
    p->expect[blk] = field;
    p->nbad++;
    p->by[field]++;
}

/* Corrupt file 0 behind the library's back, recording what each read of a
 * damaged block must say. */
static void corrupt(struct plan *p, uint64_t seed)
{
    memset(p, 0, sizeof *p);
    uint64_t s = seed | 1;
    int fd = open(g_file[0], O_RDWR);
    int fd1 = open(g_file[1], O_RDONLY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_ge(fd1, 0);
    unsigned char b[BS], z[BS];
    memset(z, 0, sizeof z);
    /* single byte flips, one per block, at every kind of position */
    static const unsigned header_pos[] = {0, 7, 8, 15, 16, 23, 24, 31, 32, 35, 36, 39, 40, 43, 44, 47};
    for (unsigned i = 0; i < 80; i++) {
        unsigned blk = pick_clean(p, &s);
        unsigned pos = i < 16 ? header_pos[i] : NVB__VHDR_SIZE + (unsigned)(rnd(&s) % (BS - NVB__VHDR_SIZE));
        if (i == 16)
            pos = BS - 1;
        pread_block(fd, blk, b);
        b[pos] ^= (unsigned char)(1u << (rnd(&s) % 8));
        pwrite_block(fd, blk, b, 1, pos);
        mark(p, blk, pos < 8 ? NVB__VF_MAGIC : pos >= 36 && pos < 40 ? NVB__VF_BS : NVB__VF_CHECKSUM);
    }
    /* whole blocks zeroed */
    for (unsigned i = 0; i < 20; i++) {
        unsigned blk = pick_clean(p, &s);
        pwrite_block(fd, blk, z, BS, 0);
        mark(p, blk, NVB__VF_MAGIC);
    }
    /* a block copied over another: intact, but of another offset */
    for (unsigned i = 0; i < 20; i++) {
        unsigned src = pick_clean(p, &s), dst;
        do
            dst = pick_clean(p, &s);
        while (dst == src);
        pread_block(fd, src, b);
        pwrite_block(fd, dst, b, BS, 0);
        mark(p, dst, NVB__VF_OFFSET);
    }
    /* the block of the same offset in the other target */
    for (unsigned i = 0; i < 10; i++) {
        unsigned blk = pick_clean(p, &s);
        pread_block(fd1, blk, b);
        pwrite_block(fd, blk, b, BS, 0);
        mark(p, blk, NVB__VF_TARGET);
    }
    /* a stretch of foreign bytes inside the payload */
    for (unsigned i = 0; i < 10; i++) {
        unsigned blk = pick_clean(p, &s);
        unsigned at = NVB__VHDR_SIZE + (unsigned)(rnd(&s) % 2000), len = 1 + (unsigned)(rnd(&s) % 1000);
        pread_block(fd, blk, b);
        for (unsigned k = 0; k < len; k++)
            b[at + k] = (unsigned char)~b[at + k];
        pwrite_block(fd, blk, b, len, at);
        mark(p, blk, NVB__VF_CHECKSUM);
    }
    fsync(fd);
    close(fd);
    close(fd1);
}

static void check_found(const struct nvb_result *r, const struct plan *p, const char *eng)
{
    ck_assert_msg((int)tu_get(r, "verify.mismatches") == p->nbad, "%s: %f mismatches, %d blocks corrupted", eng,
                  tu_get(r, "verify.mismatches"), p->nbad);
    for (int f = 1; f < NVB__VF_COUNT; f++) {
        char k[64];
        snprintf(k, sizeof k, "verify.by_field.%s", nvb__vfield_name(f));
        ck_assert_msg((int)tu_get(r, k) == p->by[f], "%s: %s = %f, expected %d", eng, k, tu_get(r, k), p->by[f]);
    }
    /* the mismatches described are corrupted blocks, with the right field */
    char *json;
    ck_assert_int_eq(nvb_result_json(r, &json), 0);
    for (int i = 0; i < NVB__VERIFY_FIRST; i++) {
        char k[64];
        double off, tgt;
        snprintf(k, sizeof k, "verify.first_mismatches.%d.offset", i);
        if (nvb_result_get(r, k, &off) < 0)
            break;
        snprintf(k, sizeof k, "verify.first_mismatches.%d.target", i);
        tgt = tu_get(r, k);
        ck_assert(tgt == 0);
        unsigned blk = (unsigned)(off / BS);
        ck_assert_msg((uint64_t)off % BS == 0 && blk < NBLK && p->expect[blk], "%s: block %u reported", eng, blk);
        char want[80];
        snprintf(want, sizeof want, "\"offset\":%u,\"target\":0,\"field\":\"%s\"", blk * BS,
                 nvb__vfield_name(p->expect[blk]));
        ck_assert_msg(strstr(json, want), "%s: %s not in the result", eng, want);
    }
    nvb_free(json);
}

/* Every engine finds every corrupted block, and nothing else. */
START_TEST(corruption_found_by_every_engine)
{
    for (int a = 0; a < g_n; a++) {
        write_all(g_engines[a], a % 2 ? "4" : "1");
        struct nvb_result *r = read_all(g_engines[a]);
        ck_assert_msg(tu_get(r, "verify.mismatches") == 0, "%s: %f mismatches on an intact file", g_engines[a],
                      tu_get(r, "verify.mismatches"));
        nvb_result_free(r);
        struct plan p;
        corrupt(&p, 0x1234567ull + (uint64_t)a);
        ck_assert_int_eq(p.nbad, 140);
        for (int b = 0; b < g_n; b++) {
            r = read_all(g_engines[b]);
            check_found(r, &p, g_engines[b]);
            nvb_result_free(r);
        }
    }
}
END_TEST

/* Readers and writers at once, many jobs, each target mode, on a scratch
 * file laid out with valid blocks: no false positives; and afterwards any
 * reader (other jobs, other engine) finds every block intact. */
START_TEST(no_false_positives_under_concurrency)
{
    char *dir = tu_mkdtemp("verify");
    static const char *const jobs[] = {"1", "4", "7"};
    for (int e = 0; e < g_n; e++)
        for (int k = 0; k < 3; k++) {
            struct nvb_workload *w = mk(g_engines[e], (const char *[]){"rw", "randrw", "qd", "16", "jobs", jobs[k],
                                                                       "size", "2M", "runtime", "300ms", NULL},
                                        (const char *[]){dir, NULL});
            struct nvb_result *r = tu_run_ok(w);
            ck_assert(tu_get(r, "verify.checked") > 0 && nvb_result_ios(r, NVB_WRITE) > 0);
            ck_assert_msg(tu_get(r, "verify.mismatches") == 0, "%s jobs %s: %f mismatches (first %s)", g_engines[e],
                          jobs[k], tu_get(r, "verify.mismatches"), "");
            nvb_result_free(r);
            nvb_workload_free(w);
        }
    /* regular files, both modes, then a full read by a different setup */
    static const char *const modes[] = {"shared", "split"};
    for (int e = 0; e < g_n; e++)
        for (int m = 0; m < 2; m++) {
            write_all(g_engines[e], "2");
            struct nvb_workload *w = mk(g_engines[e], (const char *[]){"rw", "randrw", "qd", "32", "jobs", "5",
                                                                       "target_mode", modes[m], "runtime", "300ms",
                                                                       "rwmix", "30", NULL},
                                        (const char *[]){g_file[0], g_file[1], NULL});
            struct nvb_result *r = tu_run_ok(w);
            ck_assert_msg(tu_get(r, "verify.mismatches") == 0, "%s %s: %f mismatches", g_engines[e], modes[m],
                          tu_get(r, "verify.mismatches"));
            nvb_result_free(r);
            nvb_workload_free(w);
            r = read_all(g_engines[(e + 1) % g_n]);
            ck_assert_msg(tu_get(r, "verify.mismatches") == 0, "%s %s then a full read: %f mismatches", g_engines[e],
                          modes[m], tu_get(r, "verify.mismatches"));
            nvb_result_free(r);
        }
    ck_assert_int_eq(tu_count_entries(dir), 0);
    rmdir(dir);
    free(dir);
}
END_TEST

/* Buffered I/O on tmpfs, where a read racing a write of the same block
 * really can return half of each: many jobs hammering a small region must
 * still report nothing (each job keeps one I/O per block in flight, and
 * jobs write disjoint stripes). */
START_TEST(no_torn_reads_on_tmpfs)
{
    struct stat st;
    if (stat("/dev/shm", &st) != 0 || !S_ISDIR(st.st_mode) || access("/dev/shm", W_OK) != 0)
        return; /* nothing to race on here */
    char dir[] = "/dev/shm/nvb-verify.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    for (int e = 0; e < g_n; e++) {
        struct nvb_workload *w = mk(g_engines[e], (const char *[]){"rw", "randrw", "qd", "32", "jobs", "8",
                                                                   "size", "256k", "direct", "0", "runtime",
                                                                   "700ms", NULL},
                                    (const char *[]){dir, NULL});
        struct nvb_result *r = tu_run_ok(w);
        ck_assert(tu_get(r, "verify.checked") > 1000);
        ck_assert_msg(tu_get(r, "verify.mismatches") == 0, "%s: %f mismatches under contention", g_engines[e],
                      tu_get(r, "verify.mismatches"));
        nvb_result_free(r);
        nvb_workload_free(w);
    }
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* A reader with the wrong seed or block size is told so, block by block. */
START_TEST(wrong_reader_is_named)
{
    const char *eng = g_engines[0];
    write_all(eng, "1");
    char n[32];
    snprintf(n, sizeof n, "%u", NBLK);
    struct nvb_workload *w = mk(eng, (const char *[]){"rw", "read", "ios", n, "seed", "99", NULL},
                                (const char *[]){g_file[0], NULL});
    struct nvb_result *r = tu_run_ok(w);
    ck_assert(tu_get(r, "verify.mismatches") == NBLK);
    ck_assert(tu_get(r, "verify.by_field.seed") == NBLK);
    ck_assert(tu_get(r, "verify.first_mismatches.0.expected") == 99);
    ck_assert(tu_get(r, "verify.first_mismatches.0.found") == 4242);
    nvb_result_free(r);
    nvb_workload_free(w);
    snprintf(n, sizeof n, "%u", NBLK / 2);
    w = mk(eng, (const char *[]){"rw", "read", "ios", n, "bs", "8k", NULL}, (const char *[]){g_file[0], NULL});
    r = tu_run_ok(w);
    ck_assert(tu_get(r, "verify.by_field.bs") == NBLK / 2);
    ck_assert(tu_get(r, "verify.first_mismatches.0.expected") == 8192);
    ck_assert(tu_get(r, "verify.first_mismatches.0.found") == 4096);
    nvb_result_free(r);
    nvb_workload_free(w);
    /* target 1 read as target 0: every block names the other target */
    write_all(eng, "1");
    snprintf(n, sizeof n, "%u", NBLK);
    w = mk(eng, (const char *[]){"rw", "read", "ios", n, NULL}, (const char *[]){g_file[1], NULL});
    r = tu_run_ok(w);
    ck_assert(tu_get(r, "verify.by_field.target") == NBLK);
    ck_assert(tu_get(r, "verify.first_mismatches.0.found") == 1);
    /* the sequence says which write the block claims: job 0 (1 << 40 | n) */
    ck_assert(tu_get(r, "verify.first_mismatches.0.seq") > (double)(1ull << 40));
    nvb_result_free(r);
    nvb_workload_free(w);
    /* a block size below the header is refused up front */
    w = mk(eng, (const char *[]){"bs", "32", "direct", "0", NULL}, (const char *[]){g_file[0], NULL});
    ck_assert_int_eq(nvb_run(w, NULL, &r), -EINVAL);
    ck_assert_ptr_nonnull(strstr(nvb_result_error(r), "header"));
    nvb_result_free(r);
    nvb_workload_free(w);
}
END_TEST

/* Garbage over a whole file: nothing in it is a verification block. */
static void scribble(const char *path, uint64_t seed)
{
    int fd = open(path, O_WRONLY);
    ck_assert_int_ge(fd, 0);
    static unsigned char b[BS];
    for (unsigned blk = 0; blk < NBLK; blk++) {
        for (unsigned i = 0; i < BS; i++)
            b[i] = (unsigned char)rnd(&seed);
        pwrite_block(fd, blk, b, BS, 0);
    }
    close(fd);
}

/* A mixed run on a target it did not lay out checks only the blocks it
 * has written (each against its last write): reads of the others are
 * counted unchecked, never mismatches. A read-only run checks every block
 * it reads. (Before: 6615 of 10186 reads reported as mismatches.) */
START_TEST(mixed_run_checks_only_what_it_wrote)
{
    for (int e = 0; e < g_n; e++) {
        scribble(g_file[0], 7 + (uint64_t)e);
        static const char *const jobs[] = {"1", "3"};
        for (int k = 0; k < 2; k++) {
            struct nvb_workload *w = mk(g_engines[e], (const char *[]){"rw", "randrw", "qd", "8", "jobs", jobs[k],
                                                                       "ios", "3000", NULL},
                                        (const char *[]){g_file[0], NULL});
            struct nvb_result *r = tu_run_ok(w);
            const double reads = (double)nvb_result_ios(r, NVB_READ);
            ck_assert_msg(tu_get(r, "verify.mismatches") == 0, "%s jobs %s: %f of %f reads mismatched",
                          g_engines[e], jobs[k], tu_get(r, "verify.mismatches"), reads);
            /* 3000 I/Os over 1024 blocks: some reads come before their block's first write, some after */
            ck_assert(tu_get(r, "verify.unchecked") > 0 && tu_get(r, "verify.checked") > 0);
            ck_assert(tu_get(r, "verify.checked") + tu_get(r, "verify.unchecked") == reads);
            nvb_result_free(r);
            nvb_workload_free(w);
        }
        /* a read-only pass assumes every block was written: the ones never written are mismatches */
        char n[32];
        snprintf(n, sizeof n, "%u", NBLK);
        struct nvb_workload *w = mk(g_engines[e], (const char *[]){"rw", "read", "ios", n, NULL},
                                    (const char *[]){g_file[0], NULL});
        struct nvb_result *r = tu_run_ok(w);
        ck_assert(tu_get(r, "verify.checked") == NBLK && tu_get(r, "verify.unchecked") == 0);
        ck_assert(tu_get(r, "verify.mismatches") > 0 && tu_get(r, "verify.by_field.magic") > 0);
        nvb_result_free(r);
        nvb_workload_free(w);
    }
}
END_TEST

/* Sequential verify jobs sharing a target each write one slice, and a
 * read-back of the same jobs reads exactly those blocks (fio's numjobs
 * with offset_increment: each clone at its own offset). Before: the
 * writers took interleaved stripes from block 0, the readers started at
 * their own offsets, half the blocks read were never written. */
START_TEST(read_back_reads_what_each_job_wrote)
{
    const char *eng = g_engines[0];
    static const char *const jobs[] = {"2", "3"};
    for (int k = 0; k < 2; k++) {
        scribble(g_file[0], 11 + (uint64_t)k);
        char lim[32];
        snprintf(lim, sizeof lim, "%u", FILE_SIZE / 4); /* a quarter: each job writes the start of its share */
        struct nvb_workload *w = mk(eng, (const char *[]){"rw", "write", "jobs", jobs[k], "io_limit", lim, NULL},
                                    (const char *[]){g_file[0], NULL});
        nvb_result_free(tu_run_ok(w));
        nvb_workload_free(w);
        w = mk(eng, (const char *[]){"rw", "read", "jobs", jobs[k], "io_limit", lim, NULL},
               (const char *[]){g_file[0], NULL});
        struct nvb_result *r = tu_run_ok(w);
        ck_assert(tu_get(r, "verify.checked") == FILE_SIZE / 4 / BS);
        ck_assert_msg(tu_get(r, "verify.mismatches") == 0, "jobs %s: %f of %f mismatched", jobs[k],
                      tu_get(r, "verify.mismatches"), tu_get(r, "verify.checked"));
        nvb_result_free(r);
        nvb_workload_free(w);
    }
}
END_TEST


/* One target named twice in a run that writes or verifies (by name or by
 * a hard link) is refused before any I/O, naming both; the file is
 * unchanged. Readers may name it twice. (Before: 967 of 1651 reads
 * mismatched, each name's jobs writing the other's blocks.) */
START_TEST(a_target_named_twice_is_refused)
{
    const char *eng = g_engines[0];
    char ln[4200];
    snprintf(ln, sizeof ln, "%s.link", g_file[0]);
    unlink(ln);
    ck_assert_int_eq(link(g_file[0], ln), 0);
    const char *const names[][2] = {{g_file[0], g_file[0]}, {g_file[0], ln}};
    static const char *const rws[][2] = {{"randrw", "1"}, {"randwrite", "0"}, {"read", "1"}, {"write", "0"}};
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 4; k++) {
            uint64_t before = tu_file_sum(g_file[0]);
            struct nvb_workload *w = mk(eng, (const char *[]){"rw", rws[k][0], "verify", rws[k][1], "ios", "64",
                                                              NULL},
                                        (const char *[]){names[i][0], names[i][1], NULL});
            struct nvb_result *r = NULL;
            ck_assert_int_eq(nvb_run(w, NULL, &r), -EINVAL);
            const char *m = nvb_result_error(r);
            ck_assert_msg(strstr(m, "same file") && strstr(m, names[i][1]), "%s", m);
            ck_assert_msg(strstr(m, "0 '") && strstr(m, "1 '"), "%s", m);
            ck_assert_uint_eq(nvb_result_ios(r, NVB_WRITE) + nvb_result_ios(r, NVB_READ), 0);
            ck_assert_uint_eq(tu_file_sum(g_file[0]), before);
            nvb_result_free(r);
            nvb_workload_free(w);
        }
    /* reading it twice is harmless */
    struct nvb_workload *w = mk(eng, (const char *[]){"rw", "randread", "verify", "0", "ios", "64", NULL},
                                (const char *[]){g_file[0], ln, NULL});
    nvb_result_free(tu_run_ok(w));
    nvb_workload_free(w);
    unlink(ln);
}
END_TEST

static uint32_t crc_ref(const unsigned char *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    while (n--) {
        c ^= *p++;
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1u)));
    }
    return ~c;
}

START_TEST(crc32c_and_block_format)
{
    ck_assert_uint_eq(nvb__crc32c(0, "123456789", 9), 0xe3069283u);
    static unsigned char buf[9000];
    uint64_t s = 77;
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)rnd(&s);
    for (size_t off = 0; off < 9; off++)
        for (size_t len = 0; len < 300; len += 7)
            ck_assert_uint_eq(nvb__crc32c(0, buf + off, len), crc_ref(buf + off, len));
    /* chaining: crc(a || b) = crc(crc(a), b) */
    ck_assert_uint_eq(nvb__crc32c(nvb__crc32c(0, buf, 1000), buf + 1000, 8000), crc_ref(buf, 9000));
    /* block sizes that are not multiples of 8 fill and check too */
    static const uint32_t lens[] = {48, 49, 55, 56, 100, 512, 4095, 4096, 8192};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        struct nvb__vmismatch mm;
        nvb__vblock_fill(buf, lens[i], 5, 3, 1ull << 40, 9);
        ck_assert_int_eq(nvb__vblock_check(buf, lens[i], 5, 3, 1ull << 40, &mm), NVB__VF_OK);
        ck_assert_int_eq(nvb__vblock_check(buf, lens[i], 5, 3, 1ull << 40 | 512, &mm), NVB__VF_OFFSET);
        ck_assert_uint_eq(mm.seq, 9);
        /* every single bit flip, anywhere, is found */
        for (uint32_t b = 0; b < lens[i] * 8; b += (lens[i] > 600 ? 13 : 1)) {
            buf[b / 8] ^= (unsigned char)(1u << (b % 8));
            ck_assert_msg(nvb__vblock_check(buf, lens[i], 5, 3, 1ull << 40, &mm) != NVB__VF_OK, "len %u bit %u",
                          lens[i], b);
            buf[b / 8] ^= (unsigned char)(1u << (b % 8));
        }
    }
}
END_TEST

/* With verify=1 a scratch file starts with valid blocks: reads before any
 * write check out. */
START_TEST(scratch_layout_is_verifiable)
{
    char *dir = tu_mkdtemp("verify-scratch");
    for (int e = 0; e < g_n; e++) {
        struct nvb_workload *w = mk(g_engines[e], (const char *[]){"rw", "randread", "qd", "4", "size", "3M",
                                                                   "ios", "2000", NULL},
                                    (const char *[]){dir, NULL});
        struct nvb_result *r = tu_run_ok(w);
        ck_assert(tu_get(r, "verify.checked") == 2000);
        ck_assert(tu_get(r, "verify.mismatches") == 0);
        nvb_result_free(r);
        nvb_workload_free(w);
    }
    ck_assert_int_eq(tu_count_entries(dir), 0);
    rmdir(dir);
    free(dir);
}
END_TEST

int main(void)
{
    g_file[0] = tu_scratch("verify-a", FILE_SIZE);
    g_file[1] = tu_scratch("verify-b", FILE_SIZE);
    for (int i = 0; i < nvb_engine_count(); i++) {
        const char *n = nvb_engine_name(i);
        char why[256];
        if (!strcmp(n, "null") || !strcmp(n, "nvme")) /* null verifies nothing; nvme needs a namespace */
            continue;
        if (nvb_engine_probe(n, why, sizeof why) == 0)
            g_engines[g_n++] = n;
        else
            fprintf(stderr, "note: engine %s not tested here: %s\n", n, why);
    }
    Suite *s = suite_create("verify");
    TCase *tc = tcase_create("verify");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, crc32c_and_block_format);
    tcase_add_test(tc, corruption_found_by_every_engine);
    tcase_add_test(tc, no_false_positives_under_concurrency);
    tcase_add_test(tc, no_torn_reads_on_tmpfs);
    tcase_add_test(tc, wrong_reader_is_named);
    tcase_add_test(tc, scratch_layout_is_verifiable);
    tcase_add_test(tc, mixed_run_checks_only_what_it_wrote);
    tcase_add_test(tc, read_back_reads_what_each_job_wrote);
    tcase_add_test(tc, a_target_named_twice_is_refused);
    suite_add_tcase(s, tc);
    int failed = tu_run_suite(s);
    for (int i = 0; i < 2; i++) {
        unlink(g_file[i]);
        free(g_file[i]);
    }
    return failed ? 1 : 0;
}
