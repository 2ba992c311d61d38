/*
 * Fuzz target: the fio job-file reader (nvb_fiojob_read) and its mapping
 * (nvb_fiomap_new), on hostile bytes.
 *
 * Input: up to three files separated by a line "----": the job file, then
 * a.inc and b.inc (written under $NVB_FUZZ_TMP, else /tmp), which the job file may include (and include each
 * other: loops end at the depth limit). ${A} and ${B} are set ("B" holds a
 * '#' and a ';', which must stay in the value: comments go before
 * expansion). Besides "no crash, no sanitizer report", it checks:
 *  - a refusal is a documented negative errno with a message that names a
 *    file and holds no control character (they are shown as \xNN);
 *  - what is accepted is what fio would keep: at least one job; names and
 *    option keys without '\n', with no blank at either end, keys distinct
 *    within a job and never empty; no '\n' in a value and no blank at
 *    its ends; at most NVB_FIOJOB_MAX_OPTIONS options a job; stonewall 0 or 1;
 *  - reading the same files twice gives the same jobs.
 *
 * Built by tests/fuzz/run.sh like fuzz_workload.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvbench.h"

#define CHECK(c, ...)                                                                                  \
    do {                                                                                               \
        if (!(c)) {                                                                                    \
            fprintf(stderr, "property violated: " __VA_ARGS__);                                        \
            fputc('\n', stderr);                                                                       \
            abort();                                                                                   \
        }                                                                                              \
    } while (0)

static char dir[512];

static void cleanup(void)
{
    const char *const names[] = {"job.fio", "a.inc", "b.inc"};
    char path[600];
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

static void put(const char *name, const uint8_t *p, size_t n)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL, "cannot write %s", path);
    if (n)
        fwrite(p, 1, n, f);
    fclose(f);
}

static int blank(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

static void plain(const char *s, const char *what, int may_be_empty)
{
    size_t n = strlen(s);
    CHECK(may_be_empty || n > 0, "an empty %s", what);
    CHECK(!strchr(s, '\n'), "%s '%s' holds a line break", what, s);
    CHECK(n == 0 || (!blank((unsigned char)s[0]) && !blank((unsigned char)s[n - 1])), "%s '%s' keeps a blank", what, s);
}

/* -EINVAL, -E2BIG, -ENOMEM, or what opening or reading a file said */
static int documented(int rc) { return rc < 0 && rc > -4096; }

/* The mapping of what was read (nvb_fiomap_new), strict and lenient: a
 * refusal is -EINVAL or -ENOMEM with a message naming the file and holding
 * no control character; a map has steps from 0 without gaps, and every
 * workload a name of at most 63 bytes, an engine and a section. */
static void map_checked(const struct nvb_fiojob *f, const char *path, unsigned flags)
{
    struct nvb_fiomap *m = NULL;
    char why[1024];
    int rc = nvb_fiomap_new(f, path, flags, &m, why, sizeof why);
    if (rc < 0) {
        CHECK((rc == -EINVAL || rc == -ENOMEM) && m == NULL && why[0], "map refused with %d: '%s'", rc, why);
        CHECK(strstr(why, dir) != NULL || rc == -ENOMEM, "the map's message names no file: %s", why);
        for (const char *p = why; *p; p++)
            CHECK((unsigned char)*p >= 0x20 && *p != 0x7f, "a control character in the map's message: %s", why);
        return;
    }
    size_t n = nvb_fiomap_workloads(m);
    CHECK(n >= 1, "a map of no workload");
    for (size_t w = 0; w < n; w++) {
        int step = nvb_fiomap_step(m, w), prev = w ? nvb_fiomap_step(m, w - 1) : 0;
        CHECK(step == prev || step == prev + 1, "workload %zu in step %d after step %d", w, step, prev);
        const char *name = NULL, *engine = NULL;
        for (size_t k = 0; k < nvb_fiomap_count(m, w, NVB_FIOMAP_KEYS); k++) {
            const char *v, *o, *key = nvb_fiomap_item(m, w, NVB_FIOMAP_KEYS, k, &v, &o);
            CHECK(key && v && o, "key %zu of workload %zu incomplete", k, w);
            name = strcmp(key, "name") == 0 ? v : name;
            engine = strcmp(key, "engine") == 0 ? v : engine;
        }
        CHECK(name && strlen(name) <= 63 && engine && nvb_fiomap_section(m, w), "workload %zu lacks a name or engine", w);
    }
    CHECK(nvb_fiomap_step(m, 0) == 0, "the first step is %d", nvb_fiomap_step(m, 0));
    nvb_fiomap_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        const char *tmp = getenv("NVB_FUZZ_TMP");
        snprintf(dir, sizeof dir, "%s/nvb-fuzz-fiojob-%ld", tmp && *tmp ? tmp : "/tmp", (long)getpid());
        CHECK(mkdir(dir, 0700) == 0 || errno == EEXIST, "mkdir %s", dir);
        atexit(cleanup);
    }
    static const char *const names[] = {"job.fio", "a.inc", "b.inc"};
    const uint8_t *p = data, *end = data + size;
    for (int part = 0; part < 3; part++) {
        const uint8_t *sep = part < 2 ? memmem(p, (size_t)(end - p), "\n----\n", 6) : NULL;
        const uint8_t *e = sep ? sep + 1 : end; /* the '\n' ends the part's last line */
        put(names[part], p, (size_t)(e - p));
        p = sep ? sep + 6 : end;
    }

    char path[600], why[512], why2[512];
    snprintf(path, sizeof path, "%s/job.fio", dir);
    const char *const envp[] = {"A=inc", "B=x#y;z", NULL};
    struct nvb_fiojob *f = NULL, *g = NULL;
    int rc = nvb_fiojob_read(path, envp, &f, why, sizeof why);
    int rc2 = nvb_fiojob_read(path, envp, &g, why2, sizeof why2);
    CHECK(rc == rc2, "read twice: %d then %d", rc, rc2);
    if (rc < 0) {
        CHECK(documented(rc) && why[0], "refused with %d: '%s'", rc, why);
        CHECK(f == NULL, "refused (%d) but a handle was returned", rc);
        CHECK(strstr(why, dir) != NULL || rc == -ENOMEM, "the message names no file: %s", why);
        for (const char *p = why; *p; p++)
            CHECK((unsigned char)*p >= 0x20 && *p != 0x7f, "a control character in the message: %s", why);
        CHECK(strcmp(why, why2) == 0, "two messages: '%s', '%s'", why, why2);
        return 0;
    }
    size_t jobs = nvb_fiojob_jobs(f);
    CHECK(jobs >= 1 && jobs == nvb_fiojob_jobs(g), "%zu jobs", jobs);
    for (size_t j = 0; j < jobs; j++) {
        plain(nvb_fiojob_name(f, j), "a section name", 0);
        CHECK(strcmp(nvb_fiojob_name(f, j), nvb_fiojob_name(g, j)) == 0, "job %zu named twice", j);
        int sw = nvb_fiojob_stonewall(f, j);
        CHECK(sw == 0 || sw == 1, "stonewall %d", sw);
        size_t n = nvb_fiojob_options(f, j);
        CHECK(n <= NVB_FIOJOB_MAX_OPTIONS && n == nvb_fiojob_options(g, j), "%zu options", n);
        for (size_t k = 0; k < n; k++) {
            const char *v, *v2;
            const char *key = nvb_fiojob_option(f, j, k, &v), *key2 = nvb_fiojob_option(g, j, k, &v2);
            plain(key, "an option name", 0);
            CHECK(!strchr(key, '='), "option name '%s' holds '='", key);
            if (v)
                plain(v, "a value", 1);
            CHECK(strcmp(key, key2) == 0 && (v == NULL) == (v2 == NULL) && (!v || strcmp(v, v2) == 0),
                  "option %zu of job %zu read twice differently", k, j);
            for (size_t m = 0; m < k; m++)
                CHECK(strcmp(nvb_fiojob_option(f, j, m, NULL), key) != 0, "option '%s' twice in job %zu", key, j);
        }
    }
    map_checked(f, path, 0);
    map_checked(f, path, NVB_FIOMAP_LENIENT);
    nvb_fiojob_free(f);
    nvb_fiojob_free(g);
    return 0;
}
