/*
 * The fio job-file reader (nvb_fiojob_*): lines and comments as fio 3.33
 * reads them, [global] inheritance, includes, ${} expansion, and every
 * bound, each refusal naming the file and the limit.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvbench.h"
#include "testutil.h"

static char *dir;

static void setup(void) { dir = tu_mkdtemp("fiojob"); }
static void teardown(void)
{
    tu_sh("rm -rf '%s'", dir);
    free(dir);
}

/* Write len bytes of text to dir/name; returns a static path. */
static const char *put(const char *name, const char *text, size_t len)
{
    static char path[4][512];
    static int slot;
    char *p = path[slot++ % 4];
    snprintf(p, 512, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    ck_assert_msg(f != NULL, "cannot write %s", p);
    ck_assert_uint_eq(fwrite(text, 1, len, f), len);
    fclose(f);
    return p;
}
#define PUT(name, lit) put(name, lit, sizeof(lit) - 1)

static char why[1024];

static struct nvb_fiojob *read_ok(const char *path, const char *const *envp)
{
    struct nvb_fiojob *f = NULL;
    int rc = nvb_fiojob_read(path, envp, &f, why, sizeof why);
    ck_assert_msg(rc == 0, "%s: %d %s", path, rc, why);
    return f;
}

static int read_err(const char *path, const char *const *envp)
{
    struct nvb_fiojob *f = (struct nvb_fiojob *)&f;
    int rc = nvb_fiojob_read(path, envp, &f, why, sizeof why);
    ck_assert_msg(rc < 0, "%s was accepted", path);
    ck_assert_ptr_null(f);
    ck_assert_msg(strstr(why, dir) != NULL, "the message names no file: %s", why);
    return rc;
}

/* Job j's option key: its value, "(flag)" for a bare flag, NULL if unset. */
static const char *opt(const struct nvb_fiojob *f, size_t j, const char *key)
{
    for (size_t k = 0; k < nvb_fiojob_options(f, j); k++) {
        const char *v;
        if (strcmp(nvb_fiojob_option(f, j, k, &v), key) == 0)
            return v ? v : "(flag)";
    }
    return NULL;
}

START_TEST(vt_is_not_a_line_break)
{
    /* issue 22: Python's splitlines() broke the comment at \v and wrote victim.dat */
    struct nvb_fiojob *f = read_ok(PUT("w.fio", "[w]\n# scratch job\vfilename=victim.dat\nrw=write\nbs=4k\nsize=1M\n"), NULL);
    ck_assert_uint_eq(nvb_fiojob_jobs(f), 1);
    ck_assert_ptr_null(opt(f, 0, "filename"));
    ck_assert_uint_eq(nvb_fiojob_options(f, 0), 3);
    nvb_fiojob_free(f);
    /* nor any other byte Unicode calls a line break; \r\n is a line end */
    f = read_ok(PUT("b.fio", "[w]\r\n; a\fb\x1c" "c\x1d" "d\x1e" "e\x85" "f\xe2\x80\xa8g\xe2\x80\xa9h=1\r\nrw=read\r\n"), NULL);
    ck_assert_uint_eq(nvb_fiojob_options(f, 0), 1);
    ck_assert_str_eq(opt(f, 0, "rw"), "read");
    ck_assert_str_eq(nvb_fiojob_name(f, 0), "w");
    nvb_fiojob_free(f);
}
END_TEST

/* Every filename= line adds files, in [global] and in the job (fio 3.33
 * wrote g1, f1 and f2 for this file): never the last one only. */
START_TEST(filename_lines_add_files)
{
    struct nvb_fiojob *f = read_ok(PUT("fn.fio", "[global]\nfilename=g1\n[j]\nfilename=f1\nrw=write\nfilename=f\\:2\n"
                                                 "[k]\nrw=read\n"), NULL);
    ck_assert_str_eq(opt(f, 0, "filename"), "g1:f1:f\\:2");
    ck_assert_str_eq(opt(f, 0, "rw"), "write");
    ck_assert_str_eq(opt(f, 1, "filename"), "g1");
    nvb_fiojob_free(f);
}
END_TEST

START_TEST(inline_comments)
{
    struct nvb_fiojob *f = read_ok(PUT("c.fio", "[j] # the job\nfilename=inl.dat # the scratch file\n"
                                                "bs=4k;64k\n  rw = randread\t; mixed\ndirect # on\n#x=1\n;y=2\n"
                                                "size=1\v2\n\f iodepth=8\n"), NULL);
    ck_assert_str_eq(nvb_fiojob_name(f, 0), "j");
    ck_assert_str_eq(opt(f, 0, "filename"), "inl.dat");
    ck_assert_str_eq(opt(f, 0, "bs"), "4k");
    ck_assert_str_eq(opt(f, 0, "rw"), "randread");
    ck_assert_str_eq(opt(f, 0, "direct"), "(flag)");
    ck_assert_str_eq(opt(f, 0, "size"), "1\v2"); /* inside a line a \v is a byte of it */
    ck_assert_str_eq(opt(f, 0, "iodepth"), "8");
    ck_assert_ptr_null(opt(f, 0, "x"));
    ck_assert_ptr_null(opt(f, 0, "y"));
    ck_assert_uint_eq(nvb_fiojob_options(f, 0), 6);
    nvb_fiojob_free(f);
}
END_TEST

START_TEST(sections_and_inheritance)
{
    struct nvb_fiojob *f = read_ok(PUT("s.fio", "[global]\nbs=8k\nrw=write\n[a]\nrw=read\nbs=4k\n[global-x]\nstonewall\n"
                                                "[b]\nsize=1m\n[c]\nwait_for_previous=0\nstonewall=off\n"
                                                "[d]\nstonewall=yes\n[e]\n"), NULL);
    ck_assert_uint_eq(nvb_fiojob_jobs(f), 5);
    const char *names[] = {"a", "b", "c", "d", "e"};
    for (size_t j = 0; j < 5; j++)
        ck_assert_str_eq(nvb_fiojob_name(f, j), names[j]);
    /* a later value replaces the global one in its place */
    const char *v;
    ck_assert_str_eq(nvb_fiojob_option(f, 0, 0, &v), "bs");
    ck_assert_str_eq(v, "4k");
    ck_assert_str_eq(nvb_fiojob_option(f, 0, 1, &v), "rw");
    ck_assert_str_eq(v, "read");
    ck_assert_uint_eq(nvb_fiojob_options(f, 0), 2);
    /* [global-x] is global, as fio reads a name starting with "global" */
    ck_assert_str_eq(opt(f, 1, "stonewall"), "(flag)");
    ck_assert_str_eq(opt(f, 1, "rw"), "write");
    ck_assert_int_eq(nvb_fiojob_stonewall(f, 0), 0);
    ck_assert_int_eq(nvb_fiojob_stonewall(f, 1), 1);
    ck_assert_int_eq(nvb_fiojob_stonewall(f, 2), 0);
    ck_assert_int_eq(nvb_fiojob_stonewall(f, 3), 1);
    ck_assert_int_eq(nvb_fiojob_stonewall(f, 4), 1);
    ck_assert_int_eq(nvb_fiojob_stonewall(f, 5), -EINVAL);
    ck_assert_ptr_null(nvb_fiojob_name(f, 5));
    ck_assert_ptr_null(nvb_fiojob_option(f, 0, 2, &v));
    ck_assert_ptr_null(v);
    nvb_fiojob_free(f);

    ck_assert_int_eq(read_err(PUT("e1.fio", "rw=read\n[j]\n"), NULL), -EINVAL);
    ck_assert_ptr_nonnull(strstr(why, "e1.fio:1: option 'rw=read' before the first section"));
    ck_assert_int_eq(read_err(PUT("e2.fio", "[j\nrw=read\n"), NULL), -EINVAL);
    ck_assert_ptr_nonnull(strstr(why, "e2.fio:1: a section header"));
    ck_assert_int_eq(read_err(PUT("e3.fio", "[global]\nrw=read\n# [j]\n"), NULL), -EINVAL);
    ck_assert_ptr_nonnull(strstr(why, "no job section"));
    ck_assert_int_eq(read_err(PUT("e4.fio", "[j]\nstonewall=maybe\n"), NULL), -EINVAL);
    ck_assert_ptr_nonnull(strstr(why, "e4.fio:2: stonewall='maybe' is not a boolean"));
    ck_assert_int_eq(read_err(PUT("e5.fio", "[j]\n =1\n"), NULL), -EINVAL);
    ck_assert_ptr_nonnull(strstr(why, "e5.fio:2:"));
}
END_TEST

START_TEST(bytes_kept)
{
    /* not UTF-8: kept byte for byte; a NUL only in a comment */
    static const char text[] = "[n\xff]\nfilename=a\xc3(b\n# \0 in a comment\n";
    struct nvb_fiojob *f = read_ok(put("u.fio", text, sizeof text - 1), NULL);
    ck_assert_str_eq(nvb_fiojob_name(f, 0), "n\xff");
    ck_assert_str_eq(opt(f, 0, "filename"), "a\xc3(b");
    nvb_fiojob_free(f);
    static const char nul[] = "[j]\nfilename=a\0b\n";
    ck_assert_int_eq(read_err(put("z.fio", nul, sizeof nul - 1), NULL), -EINVAL);
    ck_assert_ptr_nonnull(strstr(why, "z.fio:2: the line contains a NUL byte"));
    /* a message shows control characters escaped */
    ck_assert_int_eq(read_err(PUT("esc.fio", "\x1b[31m=1\n[j]\n"), NULL), -EINVAL);
    ck_assert_ptr_null(strchr(why, 0x1b));
    ck_assert_ptr_nonnull(strstr(why, "\\x1b[31m"));
}
END_TEST

START_TEST(expansion)
{
    const char *env[] = {"DIR=/mnt/x", "BS=4k # not a comment", "EMPTY=", NULL};
    struct nvb_fiojob *f = read_ok(PUT("x.fio", "[j]\ndirectory=${DIR}/y\nbs=${BS}\nsize=${EMPTY}1m\n"
                                                "numjobs=$ncpus\nsz=$pagesizeX\nmem=$mb_memory\n"), env);
    ck_assert_str_eq(opt(f, 0, "directory"), "/mnt/x/y");
    ck_assert_str_eq(opt(f, 0, "bs"), "4k # not a comment"); /* comments go before expansion */
    ck_assert_str_eq(opt(f, 0, "size"), "1m");
    char n[32];
    snprintf(n, sizeof n, "%ld", sysconf(_SC_NPROCESSORS_ONLN));
    ck_assert_str_eq(opt(f, 0, "numjobs"), n);
    ck_assert_str_eq(opt(f, 0, "sz"), "$pagesizeX");
    ck_assert_int_gt(atoll(opt(f, 0, "mem")), 0);
    nvb_fiojob_free(f);
    ck_assert_int_eq(read_err(PUT("x2.fio", "[j]\nfilename=${NVB_FIOJOB_UNSET_VARIABLE}\n"), env), -EINVAL);
    ck_assert_ptr_nonnull(strstr(why, "x2.fio:2: environment variable 'NVB_FIOJOB_UNSET_VARIABLE' is not set"));
    ck_assert_int_eq(read_err(PUT("x3.fio", "[j]\nsize=$(1+1)\n"), env), -EINVAL);
    ck_assert_ptr_nonnull(strstr(why, "x3.fio:2: arithmetic"));
}
END_TEST

START_TEST(includes)
{
    tu_sh("mkdir -p '%s/sub/deeper'", dir);
    PUT("sub/deeper/last.inc", "iodepth=4 ; from deeper\n");
    PUT("sub/common.inc", "# shared\nbs=8k\ninclude deeper/last.inc\n");
    const char *env[] = {"INC=common.inc", NULL};
    struct nvb_fiojob *f = read_ok(PUT("sub/main.fio", "[global]\ninclude ${INC}\n[j]\nrw=read\n"), env);
    ck_assert_str_eq(opt(f, 0, "bs"), "8k");
    ck_assert_str_eq(opt(f, 0, "iodepth"), "4");
    ck_assert_str_eq(opt(f, 0, "rw"), "read");
    nvb_fiojob_free(f);
    /* no sections in an included file (fio refuses them too); no include before a section */
    PUT("sect.inc", "[k]\n");
    ck_assert_int_eq(read_err(PUT("i1.fio", "[j]\ninclude sect.inc\n"), NULL), -EINVAL);
    ck_assert_ptr_nonnull(strstr(why, "sect.inc:1: a section '[k]' in an included file"));
    ck_assert_int_eq(read_err(PUT("i2.fio", "include sect.inc\n[j]\n"), NULL), -EINVAL);
    ck_assert_ptr_nonnull(strstr(why, "i2.fio:1: option 'include sect.inc' before the first section"));
    ck_assert_int_eq(read_err(PUT("i3.fio", "[j]\ninclude missing.inc\n"), NULL), -ENOENT);
    ck_assert_ptr_nonnull(strstr(why, "i3.fio:2: include "));
    ck_assert_ptr_nonnull(strstr(why, "missing.inc"));
}
END_TEST

/* A FIFO, a character device and a directory are refused before they are
 * read: were the FIFO opened, this test would block (no writer) until its
 * timeout. */
START_TEST(non_regular_refused)
{
    char fifo[600];
    snprintf(fifo, sizeof fifo, "%s/pipe", dir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    tu_sh("mkdir '%s/adir'", dir);
    ck_assert_int_eq(read_err(PUT("f1.fio", "[j]\ninclude pipe\n"), NULL), -EINVAL);
    ck_assert_ptr_nonnull(strstr(why, "f1.fio:2: include "));
    ck_assert_ptr_nonnull(strstr(why, "pipe is a FIFO, not a regular file"));
    ck_assert_int_eq(read_err(PUT("f2.fio", "[j]\ninclude /dev/zero\n"), NULL), -EINVAL);
    ck_assert_ptr_nonnull(strstr(why, "/dev/zero is a character device"));
    ck_assert_int_eq(read_err(PUT("f3.fio", "[j]\ninclude adir\n"), NULL), -EINVAL);
    ck_assert_ptr_nonnull(strstr(why, "adir is a directory"));
    ck_assert_int_eq(read_err(fifo, NULL), -EINVAL);
    ck_assert_ptr_nonnull(strstr(why, "is a FIFO"));
}
END_TEST

/* A job's target without size: its length from stat-like facts, and a FIFO
 * refused unopened (an open for reading would wait for a writer, forever). */
START_TEST(target_length_never_opens)
{
    char fifo[600];
    uint64_t n = 1;
    snprintf(fifo, sizeof fifo, "%s/tpipe", dir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    ck_assert_int_eq(nvb_target_length(fifo, &n, why, sizeof why), -EINVAL);
    ck_assert_msg(strstr(why, fifo) && strstr(why, "FIFO"), "%s", why);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(nvb_target_length(dir, &n, why, sizeof why), -EISDIR);
    ck_assert_int_eq(nvb_target_length(PUT("seven", "1234567"), &n, why, sizeof why), 0);
    ck_assert_uint_eq(n, 7);
    char missing[600];
    snprintf(missing, sizeof missing, "%s/none", dir);
    ck_assert_int_eq(nvb_target_length(missing, &n, why, sizeof why), -ENOENT);
    ck_assert_ptr_nonnull(strstr(why, missing));
    ck_assert_int_eq(nvb_target_length(NULL, &n, why, sizeof why), -EINVAL);
    ck_assert_int_eq(nvb_target_length(missing, NULL, NULL, 0), -EINVAL);
}
END_TEST

START_TEST(line_limit)
{
    size_t n = NVB_FIOJOB_MAX_LINE + 64;
    char *t = malloc(n + 16);
    strcpy(t, "[j]\nfilename=");
    size_t l = strlen(t);
    memset(t + l, 'a', n - l);
    t[n] = '\n';
    ck_assert_int_eq(read_err(put("long.fio", t, n + 1), NULL), -E2BIG);
    ck_assert_ptr_nonnull(strstr(why, "long.fio:2: a line longer than 8192 bytes (the line limit)"));
    /* the same limit after expansion */
    char *val = malloc(6000);
    memset(val, 'b', 5999);
    val[5999] = 0;
    char *e = malloc(6010);
    snprintf(e, 6010, "V=%s", val);
    const char *env[] = {e, NULL};
    ck_assert_int_eq(read_err(PUT("exp.fio", "[j]\nfilename=${V}${V}\n"), env), -E2BIG);
    ck_assert_ptr_nonnull(strstr(why, "exp.fio:2: longer than 8192 bytes after ${} expansion (the line limit)"));
    free(t);
    free(val);
    free(e);
}
END_TEST

START_TEST(depth_limit)
{
    char name[32], text[64];
    for (int i = 0; i <= NVB_FIOJOB_MAX_DEPTH + 1; i++) {
        snprintf(name, sizeof name, "d%d.inc", i);
        snprintf(text, sizeof text, "bs=4k\ninclude d%d.inc\n", i + 1);
        put(name, text, strlen(text));
    }
    ck_assert_int_eq(read_err(PUT("deep.fio", "[j]\ninclude d0.inc\n"), NULL), -E2BIG);
    ck_assert_ptr_nonnull(strstr(why, "d7.inc:2: include 'd8.inc': includes nested more than 8 deep (the include depth limit)"));
}
END_TEST

/* issue 22: eight files each including the next 30 times (30^8 reads)
 * kept both readers busy for minutes; the count of includes bounds it. */
START_TEST(fanout_limit)
{
    char name[32], text[1024];
    for (int i = 0; i < 7; i++) {
        size_t o = 0;
        for (int k = 0; k < 30; k++)
            o += (size_t)snprintf(text + o, sizeof text - o, "include f%d.inc\n", i + 1);
        snprintf(name, sizeof name, "f%d.inc", i);
        put(name, text, o);
    }
    PUT("f7.inc", "bs=4k\n");
    ck_assert_int_eq(read_err(PUT("fan.fio", "[j]\ninclude f0.inc\n"), NULL), -E2BIG);
    ck_assert_ptr_nonnull(strstr(why, "more than 256 includes in all (the include count limit)"));
}
END_TEST

START_TEST(size_limit)
{
    /* one file larger than the bound: refused before it is read */
    char path[600];
    snprintf(path, sizeof path, "%s/big.inc", dir);
    int fd = open(path, O_CREAT | O_WRONLY, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, NVB_FIOJOB_MAX_BYTES + 1), 0);
    close(fd);
    ck_assert_int_eq(read_err(PUT("big.fio", "[j]\ninclude big.inc\n"), NULL), -E2BIG);
    ck_assert_ptr_nonnull(strstr(why, "big.fio:2: include "));
    ck_assert_ptr_nonnull(strstr(why, "(the size limit)"));
    /* files each under it, together over it: one 3 MiB file included three times */
    FILE *c = fopen(path, "w");
    ck_assert_ptr_nonnull(c);
    for (int i = 0; i < (3 << 20) / 64; i++)
        fprintf(c, "# %60d\n", i);
    fclose(c);
    ck_assert_int_eq(read_err(PUT("big2.fio", "[j]\ninclude big.inc\ninclude big.inc\ninclude big.inc\n"), NULL),
                     -E2BIG);
    ck_assert_ptr_nonnull(strstr(why, "big2.fio:4: include "));
    ck_assert_ptr_nonnull(strstr(why, "(the size limit)"));
}
END_TEST

/* text of n lines made by fmt(i) */
static char *lines(const char *head, const char *fmt, int n, size_t *len)
{
    size_t cap = strlen(head) + (size_t)n * 32 + 1;
    char *t = malloc(cap);
    size_t o = (size_t)snprintf(t, cap, "%s", head);
    for (int i = 0; i < n; i++)
        o += (size_t)snprintf(t + o, cap - o, fmt, i);
    *len = o;
    return t;
}

START_TEST(count_limits)
{
    size_t len;
    char *t = lines("", "[s%d]\n", NVB_FIOJOB_MAX_SECTIONS + 1, &len);
    ck_assert_int_eq(read_err(put("sect.fio", t, len), NULL), -E2BIG);
    ck_assert_ptr_nonnull(strstr(why, "sect.fio:4097: more than 4096 sections (the sections limit)"));
    free(t);
    t = lines("[j]\n", "o%d=1\n", NVB_FIOJOB_MAX_OPTIONS + 1, &len);
    ck_assert_int_eq(read_err(put("opts.fio", t, len), NULL), -E2BIG);
    ck_assert_ptr_nonnull(strstr(why, "opts.fio:1026: more than 1024 distinct options in one section (the options limit)"));
    free(t);
    /* a repeated option is one option */
    t = lines("[j]\n", "same=%d\n", NVB_FIOJOB_MAX_OPTIONS + 10, &len);
    struct nvb_fiojob *f = read_ok(put("same.fio", t, len), NULL);
    ck_assert_uint_eq(nvb_fiojob_options(f, 0), 1);
    ck_assert_str_eq(opt(f, 0, "same"), "1033");
    nvb_fiojob_free(f);
    free(t);
    /* 1000 global options copied into 70 jobs */
    char *g = lines("[global]\n", "g%d=1\n", 1000, &len);
    char *jobs = lines("", "[j%d]\n", 70, &len);
    char *all = malloc(strlen(g) + strlen(jobs) + 1);
    strcpy(all, g);
    strcat(all, jobs);
    ck_assert_int_eq(read_err(put("total.fio", all, strlen(all)), NULL), -E2BIG);
    ck_assert_ptr_nonnull(strstr(why, "(the total options limit)"));
    free(g);
    free(jobs);
    free(all);
}
END_TEST

START_TEST(misuse)
{
    struct nvb_fiojob *f = NULL;
    ck_assert_int_eq(nvb_fiojob_read(NULL, NULL, &f, why, sizeof why), -EINVAL);
    ck_assert_int_eq(nvb_fiojob_read("x", NULL, NULL, NULL, 0), -EINVAL);
    ck_assert_uint_eq(nvb_fiojob_jobs(NULL), 0);
    nvb_fiojob_free(NULL);
}
END_TEST

static Suite *fiojob_suite(void)
{
    Suite *s = suite_create("fiojob");
    TCase *tc = tcase_create("lines");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, vt_is_not_a_line_break);
    tcase_add_test(tc, inline_comments);
    tcase_add_test(tc, filename_lines_add_files);
    tcase_add_test(tc, sections_and_inheritance);
    tcase_add_test(tc, bytes_kept);
    tcase_add_test(tc, expansion);
    tcase_add_test(tc, includes);
    tcase_add_test(tc, misuse);
    suite_add_tcase(s, tc);

    tc = tcase_create("bounds");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, non_regular_refused);
    tcase_add_test(tc, target_length_never_opens);
    tcase_add_test(tc, line_limit);
    tcase_add_test(tc, depth_limit);
    tcase_add_test(tc, fanout_limit);
    tcase_add_test(tc, size_limit);
    tcase_add_test(tc, count_limits);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    int failed = tu_run_suite(fiojob_suite());
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
