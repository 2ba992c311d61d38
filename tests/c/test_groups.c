/*
 * Job groups (nvb_run_groups): totals that are the exact sum of the groups,
 * each group's own figures, a reader and a writer on one file, two writers
 * refused, cancellation, the JSON round trip.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvbench.h"
#include "core/internal.h"
#include "core/hist.h"
#include "testutil.h"

static char *g_file;

static struct nvb_workload *wl(const char *const *kv, const char *target)
{
    const char *const t[] = {target, NULL};
    return tu_workload(kv, target ? t : NULL);
}

static int run2(struct nvb_workload *a, struct nvb_workload *b, const struct nvb_run_opts *o, struct nvb_result **r)
{
    const struct nvb_workload *ws[] = {a, b};
    int rc = nvb_run_groups(ws, 2, o, r);
    ck_assert_ptr_nonnull(*r);
    return rc;
}

static char *json_of(const struct nvb_result *r)
{
    char *s = NULL;
    ck_assert_int_eq(nvb_result_json(r, &s), 0);
    return s;
}

static int has_warning(const struct nvb_result *r, const char *prefix, const char *part)
{
    for (size_t i = 0; i < nvb_result_warning_count(r); i++) {
        const char *w = nvb_result_warning(r, i);
        if (!strncmp(w, prefix, strlen(prefix)) && strstr(w, part))
            return 1;
    }
    return 0;
}

/* The totals are the groups' sums, exactly: counts, bytes, every histogram
 * bucket, the time series, the targets. */
static void assert_totals(const struct nvb_result *r)
{
    ck_assert_uint_ge(r->ngroups, 1);
    unsigned ntg = 0;
    for (int d = 0; d < 2; d++) {
        uint64_t ios = 0, bytes = 0;
        struct nvb__hist h;
        nvb__hist_init(&h);
        for (unsigned g = 0; g < r->ngroups; g++) {
            ios += nvb_result_ios(r->groups[g], d);
            bytes += nvb_result_bytes(r->groups[g], d);
            if (r->groups[g]->tot[d].hist)
                nvb__hist_merge(&h, r->groups[g]->tot[d].hist);
        }
        ck_assert_uint_eq(nvb_result_ios(r, d), ios);
        ck_assert_uint_eq(nvb_result_bytes(r, d), bytes);
        if (h.count) {
            ck_assert_ptr_nonnull(r->tot[d].hist);
            ck_assert(memcmp(h.buckets, r->tot[d].hist->buckets, sizeof h.buckets) == 0);
            for (double p = 0; p <= 100; p += 0.5)
                ck_assert(nvb_result_lat_pct(r, d, p) == nvb__hist_pct(&h, p));
        }
    }
    uint64_t ts = 0, all = nvb_result_ios(r, 0) + nvb_result_ios(r, 1);
    for (unsigned k = 0; k < r->nts; k++)
        ts += r->ts[k].ios[0] + r->ts[k].ios[1];
    ck_assert_uint_eq(ts, all);
    for (unsigned g = 0; g < r->ngroups; g++)
        ntg += r->groups[g]->ntargets;
    ck_assert_uint_eq(r->ntargets, ntg);
}

START_TEST(totals_are_the_sum_of_groups)
{
    struct nvb_workload *a = wl((const char *[]){"engine", "null", "rw", "randread", "bs", "4k", "qd", "4", "jobs",
                                                 "2", "ios", "3001", NULL}, NULL);
    struct nvb_workload *b = wl((const char *[]){"engine", "null", "rw", "randwrite", "bs", "64k", "qd", "2", "ios",
                                                 "1234", NULL}, NULL);
    struct nvb_result *r = NULL;
    ck_assert_int_eq(run2(a, b, NULL, &r), 0);
    ck_assert_uint_eq(r->ngroups, 2);
    assert_totals(r);
    /* each group its own figures: its rw, its bs, its name */
    ck_assert(tu_get(r, "groups.0.read.ios") == 3001);
    ck_assert(tu_get(r, "groups.0.write.ios") == 0);
    ck_assert(tu_get(r, "groups.1.write.ios") == 1234);
    ck_assert(tu_get(r, "groups.1.read.ios") == 0);
    ck_assert(tu_get(r, "groups.0.read.bytes") == 3001.0 * 4096);
    ck_assert(tu_get(r, "groups.1.write.bytes") == 1234.0 * 65536);
    ck_assert(tu_get(r, "read.ios") == 3001 && tu_get(r, "write.ios") == 1234);
    ck_assert(tu_get(r, "groups.1.write.lat_ns.p99") > 0);
    ck_assert_str_eq(r->groups[0]->group, "group0");
    ck_assert_str_eq(r->groups[1]->group, "group1");
    ck_assert_str_eq(r->engine, "null"); /* one engine: the total's too */
    /* the process CPU in the total only */
    double v;
    ck_assert_int_eq(nvb_result_get(r, "cpu.window_s", &v), 0);
    ck_assert_int_eq(nvb_result_get(r, "groups.0.cpu.window_s", &v), -ENOENT);
    char *js = json_of(r);
    ck_assert_ptr_nonnull(strstr(js, "\"groups\":[{\"name\":\"group0\""));
    nvb_free(js);
    nvb_result_free(r);
    nvb_workload_free(a);
    nvb_workload_free(b);
}
END_TEST

START_TEST(names_and_warnings)
{
    /* ios 1 with jobs 2: a planning warning, kept with the group's name */
    struct nvb_workload *a = wl((const char *[]){"engine", "null", "rw", "read", "name", "reader", "jobs", "2",
                                                 "ios", "1", NULL}, NULL);
    struct nvb_workload *b = wl((const char *[]){"engine", "null", "rw", "write", "name", "writer", "ios", "10",
                                                 NULL}, NULL);
    struct nvb_result *r = NULL;
    ck_assert_int_eq(run2(a, b, NULL, &r), 0);
    ck_assert_str_eq(r->groups[0]->group, "reader");
    ck_assert_str_eq(r->groups[1]->group, "writer");
    ck_assert(has_warning(r, "reader: ", "smaller than jobs"));
    ck_assert(!has_warning(r, "writer: ", "smaller than jobs"));
    nvb_result_free(r);
    /* two groups of one name: refused, naming it */
    ck_assert_int_eq(nvb_workload_set(b, "name", "reader"), 0);
    ck_assert_int_eq(run2(a, b, NULL, &r), -EINVAL);
    ck_assert_ptr_nonnull(strstr(nvb_result_error(r), "'reader' names groups 0 and 1"));
    nvb_result_free(r);
    /* a group's planning error names the group */
    ck_assert_int_eq(nvb_workload_set(b, "name", "w2"), 0);
    ck_assert_int_eq(nvb_workload_set(b, "engine", "psync"), 0);
    ck_assert_int_eq(nvb_workload_add_target(b, "/nonexistent/nvbench/groups"), 0);
    ck_assert_int_eq(run2(a, b, NULL, &r), -ENOENT);
    ck_assert_ptr_nonnull(strstr(nvb_result_error(r), "group 'w2': "));
    nvb_result_free(r);
    nvb_workload_free(a);
    nvb_workload_free(b);
}
END_TEST

START_TEST(reader_and_writer_on_one_file)
{
    struct nvb_workload *a = wl((const char *[]){"engine", "psync", "direct", "0", "rw", "randread", "name", "rd",
                                                 "ios", "2000", "qd", "1", NULL}, g_file);
    struct nvb_workload *b = wl((const char *[]){"engine", "psync", "direct", "0", "rw", "randwrite", "name", "wr",
                                                 "ios", "500", "bs", "8k", NULL}, g_file);
    struct nvb_result *r = NULL;
    int rc = run2(a, b, NULL, &r);
    ck_assert_msg(rc == 0, "%d: %s", rc, nvb_result_error(r));
    assert_totals(r);
    ck_assert(tu_get(r, "groups.0.read.ios") == 2000);
    ck_assert(tu_get(r, "groups.1.write.ios") == 500);
    ck_assert(tu_get(r, "groups.1.per_target.0.write.ios") == 500);
    ck_assert_uint_eq(r->ntargets, 2);
    nvb_result_free(r);
    /* the writer named second: it still takes the lock, the reader shares it */
    rc = run2(b, a, NULL, &r);
    ck_assert_msg(rc == 0, "%d: %s", rc, nvb_result_error(r));
    ck_assert(tu_get(r, "groups.0.write.ios") == 500);
    nvb_result_free(r);
    nvb_workload_free(a);
    nvb_workload_free(b);
}
END_TEST


/* Groups a and b refused (-EBUSY) with needle in the message. */
static void refused2(struct nvb_workload *a, struct nvb_workload *b, const char *needle)
{
    struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
    struct nvb_result *r = NULL;
    ck_assert_int_eq(run2(a, b, &o, &r), -EBUSY);
    ck_assert_msg(strstr(nvb_result_error(r), needle), "no '%s' in: %s", needle, nvb_result_error(r));
    nvb_result_free(r);
}

/* Two writers of one file run together (as fio's jobs do), each its own
 * I/O; with verify on either, or zones, refused before anything is written. */
START_TEST(two_writers_refused)
{
    struct nvb_workload *a = wl((const char *[]){"engine", "psync", "direct", "0", "rw", "randwrite", "name", "w1",
                                                 "ios", "100", NULL}, g_file);
    struct nvb_workload *b = wl((const char *[]){"engine", "psync", "direct", "0", "rw", "write", "name", "w2",
                                                 "ios", "100", NULL}, g_file);
    struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
    struct nvb_result *r = NULL;
    ck_assert_msg(run2(a, b, &o, &r) == 0, "%s", nvb_result_error(r));
    ck_assert_uint_eq(nvb_result_ios(r, NVB_WRITE), 200);
    nvb_result_free(r);
    ck_assert_int_eq(nvb_workload_set(b, "rw", "randtrim"), 0); /* a trimming group writes too */
    ck_assert_msg(run2(a, b, &o, &r) == 0, "%s", nvb_result_error(r));
    nvb_result_free(r);
    ck_assert_int_eq(nvb_workload_set(b, "rw", "write"), 0);
    ck_assert_int_eq(nvb_workload_set(b, "verify", "1"), 0);
    uint64_t before = tu_file_sum(g_file);
    ck_assert_int_eq(run2(a, b, &o, &r), -EBUSY);
    const char *e = nvb_result_error(r);
    ck_assert_msg(strstr(e, "'w1'") && strstr(e, "'w2'") && strstr(e, g_file), "%s", e);
    ck_assert_uint_eq(nvb_result_ios(r, 1), 0);
    nvb_result_free(r);
    ck_assert_uint_eq(tu_file_sum(g_file), before);
    /* a verifying reader beside a writer: refused too */
    ck_assert_int_eq(nvb_workload_set(b, "rw", "read"), 0);
    refused2(a, b, "verified by group 'w2'");
    /* emulated zones: each group's write pointers are its own */
    ck_assert_int_eq(nvb_workload_set(b, "verify", "0"), 0);
    ck_assert_int_eq(nvb_workload_set(b, "rw", "write"), 0);
    ck_assert_int_eq(nvb_workload_set(b, "zone_mode", "zbd"), 0);
    ck_assert_int_eq(nvb_workload_set(b, "zone_size", "64k"), 0);
    refused2(a, b, "written by group 'w2'");
    ck_assert_uint_eq(tu_file_sum(g_file), before);
    nvb_workload_free(a);
    nvb_workload_free(b);
}
END_TEST

/* A missing target with size set is created by the run, once, by the
 * first group prepared (a writer before a reader), and the others run on
 * it; two writers share it; with verify refused before anything is made. */
START_TEST(missing_target_in_two_groups)
{
    char *dir = tu_mkdtemp("groups-create");
    char path[512];
    snprintf(path, sizeof path, "%s/new.dat", dir);
    struct nvb_workload *a = wl((const char *[]){"engine", "psync", "rw", "randwrite", "size", "1M", "name", "w",
                                                 "ios", "50", NULL}, path);
    struct nvb_workload *b = wl((const char *[]){"engine", "psync", "rw", "randread", "size", "1M", "name", "r",
                                                 "ios", "50", NULL}, path);
    struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
    struct nvb_result *r = NULL;
    /* created once, by the writer (prepared first), then read by both */
    ck_assert_int_eq(run2(a, b, &o, &r), 0);
    ck_assert_uint_eq(r->ngroups, 2);
    ck_assert_uint_eq(r->groups[0]->tot[NVB_WRITE].ios, 50);
    ck_assert_uint_eq(r->groups[1]->tot[NVB_READ].ios, 50);
    nvb_result_free(r);
    ck_assert_int_eq(tu_count_entries(dir), 1);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_size, 1 << 20);
    /* two writers of it: created once, the second shares the first's hold */
    unlink(path);
    nvb_workload_free(b);
    b = wl((const char *[]){"engine", "psync", "rw", "write", "size", "1M", "name", "w2", "ios", "50", NULL}, path);
    ck_assert_msg(run2(a, b, &o, &r) == 0, "%s", nvb_result_error(r));
    ck_assert_uint_eq(r->groups[0]->tot[NVB_WRITE].ios + r->groups[1]->tot[NVB_WRITE].ios, 100);
    nvb_result_free(r);
    ck_assert_int_eq(tu_count_entries(dir), 1);
    /* with verify on one, refused as for any target, before anything is created */
    unlink(path);
    ck_assert_int_eq(nvb_workload_set(b, "verify", "1"), 0);
    ck_assert_int_eq(run2(a, b, &o, &r), -EBUSY);
    ck_assert_msg(strstr(nvb_result_error(r), "'w'") && strstr(nvb_result_error(r), "'w2'"), "%s",
                  nvb_result_error(r));
    nvb_result_free(r);
    ck_assert_int_eq(tu_count_entries(dir), 0);
    nvb_workload_free(a);
    nvb_workload_free(b);
    rmdir(dir);
    free(dir);
}
END_TEST

/* nvb_groups_validate: the steps of a job file planned before any runs.
 * A later step's two writers of one file are refused, naming both groups
 * and pointing at the workload; nothing is written or created; a target an
 * earlier step creates may be shared by the readers of a later step, and
 * two writers of it are refused all the same. */
START_TEST(steps_validated_before_any_run)
{
    char *dir = tu_mkdtemp("groups-steps");
    char made[512];
    snprintf(made, sizeof made, "%s/made.dat", dir);
    struct nvb_workload *fill = wl((const char *[]){"engine", "psync", "rw", "write", "name", "fill", "ios", "10",
                                                    NULL}, g_file);
    struct nvb_workload *w1 = wl((const char *[]){"engine", "psync", "rw", "randwrite", "name", "w", "ios", "10",
                                                  NULL}, g_file);
    struct nvb_workload *w2 = wl((const char *[]){"engine", "psync", "rw", "write", "name", "w2", "ios", "10",
                                                  NULL}, g_file);
    struct nvb_workload *mk = wl((const char *[]){"engine", "psync", "rw", "write", "size", "1M", "name", "mk",
                                                  NULL}, made);
    struct nvb_workload *r1 = wl((const char *[]){"engine", "psync", "rw", "read", "size", "1M", "name", "r1",
                                                  NULL}, made);
    struct nvb_workload *r2 = wl((const char *[]){"engine", "psync", "rw", "read", "size", "1M", "name", "r2",
                                                  NULL}, made);
    struct nvb_workload *x2 = wl((const char *[]){"engine", "psync", "rw", "write", "size", "1M", "name", "x2",
                                                  NULL}, made);
    uint64_t before = tu_file_sum(g_file);
    char err[1024];
    size_t bad = 99;
    /* step 0: fill; step 1: w and w2 both write g_file, w2 with verify */
    ck_assert_int_eq(nvb_workload_set(w2, "verify", "1"), 0);
    const struct nvb_workload *a[] = {fill, w1, w2};
    const unsigned sa[] = {0, 1, 1};
    ck_assert_int_eq(nvb_groups_validate(a, 3, sa, &bad, err, sizeof err), -EBUSY);
    ck_assert_msg(strstr(err, "'w'") && strstr(err, "'w2'") && strstr(err, g_file), "%s", err);
    ck_assert_uint_eq(bad, 2);
    /* the same workloads, each a step of its own: fine */
    const unsigned sa2[] = {0, 1, 2};
    ck_assert_int_eq(nvb_groups_validate(a, 3, sa2, &bad, err, sizeof err), 0);
    /* two groups of one name in a step: refused, as nvb_run_groups refuses them */
    ck_assert_int_eq(nvb_workload_set(w2, "name", "w"), 0);
    ck_assert_int_eq(nvb_workload_set(w2, "rw", "read"), 0);
    ck_assert_int_eq(nvb_groups_validate(a, 3, sa, &bad, err, sizeof err), -EINVAL);
    ck_assert_msg(strstr(err, "names groups"), "%s", err);
    /* created in step 0, read by two groups in step 1: fine; written by two: fine, but for verify */
    const struct nvb_workload *b[] = {mk, r1, r2};
    const unsigned sb[] = {0, 1, 1};
    ck_assert_int_eq(nvb_groups_validate(b, 3, sb, &bad, err, sizeof err), 0);
    const struct nvb_workload *c[] = {mk, r1, x2, mk};
    const unsigned sc[] = {0, 1, 1, 2};
    ck_assert_int_eq(nvb_groups_validate(c, 4, sc, &bad, err, sizeof err), 0); /* a reader beside a writer */
    ck_assert_int_eq(nvb_workload_set(r1, "rw", "randwrite"), 0);
    ck_assert_int_eq(nvb_groups_validate(c, 4, sc, &bad, err, sizeof err), 0); /* two writers share it */
    ck_assert_int_eq(nvb_workload_set(r1, "verify", "1"), 0);
    ck_assert_int_eq(nvb_groups_validate(c, 4, sc, &bad, err, sizeof err), -EBUSY);
    ck_assert_msg(strstr(err, "'r1'") && strstr(err, "'x2'") && strstr(err, made), "%s", err);
    ck_assert_uint_eq(bad, 2);
    /* in one step, a missing target is created once (nvb_run_groups: by the
     * first group prepared) and shared: a writer and a reader of it are fine,
     * two writers, one verifying (r1 now), refused as for any target */
    const struct nvb_workload *b2[] = {mk, r2};
    ck_assert_int_eq(nvb_groups_validate(b2, 2, NULL, &bad, err, sizeof err), 0);
    ck_assert_int_eq(nvb_groups_validate(b, 3, NULL, &bad, err, sizeof err), -EBUSY);
    ck_assert_msg(strstr(err, "'mk'") && strstr(err, "'r1'"), "%s", err);
    /* bad arguments */
    const unsigned back[] = {1, 0, 0};
    ck_assert_int_eq(nvb_groups_validate(a, 3, back, &bad, err, sizeof err), -EINVAL);
    ck_assert_uint_eq(bad, 1);
    ck_assert_int_eq(nvb_groups_validate(NULL, 1, NULL, NULL, NULL, 0), -EINVAL);
    ck_assert_int_eq(nvb_groups_validate(a, 0, NULL, NULL, err, sizeof err), -EINVAL);
    ck_assert_uint_eq(tu_file_sum(g_file), before);
    ck_assert_int_eq(tu_count_entries(dir), 0); /* nothing created */
    struct nvb_workload *all[] = {fill, w1, w2, mk, r1, r2, x2};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        nvb_workload_free(all[i]);
    rmdir(dir);
    free(dir);
}
END_TEST

struct watch {
    int progress, polls, barrier;
    struct nvb_cancel *c;
    uint64_t seen_ios;
};

static int on_progress(const struct nvb_progress *p, void *arg)
{
    struct watch *w = arg;
    w->progress++;
    w->seen_ios = p->ios[0] + p->ios[1];
    return 0;
}

static int on_poll(void *arg)
{
    struct watch *w = arg;
    /* cancel once both groups have done some I/O */
    if (++w->polls >= 3 && w->seen_ios > 0)
        nvb_cancel_request(w->c);
    return 0;
}

static int on_barrier(int status, void *arg)
{
    struct watch *w = arg;
    ck_assert_int_eq(status, 0);
    w->barrier++;
    return 0;
}

START_TEST(cancel_gives_partial_groups)
{
    struct nvb_workload *a = wl((const char *[]){"engine", "null", "rw", "randread", "runtime", "600", "interval",
                                                 "0.05", NULL}, NULL);
    struct nvb_workload *b = wl((const char *[]){"engine", "null", "rw", "randwrite", "runtime", "600", "interval",
                                                 "0.05", NULL}, NULL);
    struct watch w = {0};
    ck_assert_int_eq(nvb_cancel_new(&w.c), 0);
    struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
    o.cancel = w.c;
    o.progress = on_progress;
    o.progress_arg = &w;
    o.poll = on_poll;
    o.poll_arg = &w;
    o.poll_ms = 20;
    o.start_barrier = on_barrier;
    o.start_barrier_arg = &w;
    struct nvb_result *r = NULL;
    ck_assert_int_eq(run2(a, b, &o, &r), -ECANCELED);
    ck_assert(nvb_result_cancelled(r));
    ck_assert_int_eq(w.barrier, 1);
    ck_assert_int_gt(w.progress, 0);
    ck_assert_uint_eq(r->ngroups, 2);
    ck_assert(nvb_result_cancelled(r->groups[0]) && nvb_result_cancelled(r->groups[1]));
    ck_assert_uint_gt(nvb_result_ios(r, 0), 0);
    ck_assert_uint_gt(nvb_result_ios(r, 1), 0);
    ck_assert_double_lt(nvb_result_duration(r), 600);
    assert_totals(r);
    nvb_result_free(r);
    nvb_cancel_free(w.c);
    nvb_workload_free(a);
    nvb_workload_free(b);
}
END_TEST

/* What a round-trip test holds at its end: two JSON texts, the result and
 * the one read back, the two workloads. */
static void free_round_trip(char *js, char *js2, struct nvb_result *r, struct nvb_result *l, struct nvb_workload *a,
                            struct nvb_workload *b)
{
    nvb_free(js);
    nvb_free(js2);
    nvb_result_free(r);
    nvb_result_free(l);
    nvb_workload_free(a);
    nvb_workload_free(b);
}

START_TEST(json_round_trip)
{
    struct nvb_workload *a = wl((const char *[]){"engine", "null", "rw", "randrw", "name", "mix", "ios", "777",
                                                 NULL}, NULL);
    struct nvb_workload *b = wl((const char *[]){"engine", "psync", "direct", "0", "rw", "read", "name", "seq",
                                                 "ios", "300", NULL}, g_file);
    struct nvb_result *r = NULL, *l = NULL;
    ck_assert_int_eq(run2(a, b, NULL, &r), 0);
    /* two engines: the total names neither */
    ck_assert_str_eq(r->engine, "mixed");
    ck_assert_uint_eq(r->used.n, 0);
    ck_assert_str_eq(r->groups[1]->engine, "psync");
    char *js = json_of(r);
    ck_assert_int_eq(nvb_result_from_json(js, &l), 0);
    ck_assert_uint_eq(l->ngroups, 2);
    ck_assert_str_eq(l->groups[1]->group, "seq");
    char *js2 = json_of(l);
    ck_assert_str_eq(js, js2);
    static const char *const paths[] = {"groups.0.read.iops", "groups.1.read.lat_ns.p99", "groups.0.write.ios",
                                        "groups.1.per_target.0.read.bytes", "read.ios", "cpu.process_user_s"};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
        ck_assert_msg(tu_get(r, paths[i]) == tu_get(l, paths[i]), "%s", paths[i]);
    assert_totals(l);
    /* a group carrying "cpu" is refused: the CPU is the total's */
    char *bad = strdup(js2);
    char *at = strstr(bad, "\"name\":\"mix\"");
    ck_assert_ptr_nonnull(at);
    memcpy(at, "\"cpu\":{}   ", 11);
    struct nvb_result *x = NULL;
    char why[256];
    ck_assert_int_eq(nvb_result_parse(bad, strlen(bad), &x, why, sizeof why), -EINVAL);
    free(bad);
    free_round_trip(js, js2, r, l, a, b);
}
END_TEST

/* One group with a bssplit, one without: each group keeps its per-size
 * counts, the total has none (they would not add up to its ios), and the
 * JSON reads back. Before, the total held the split group's counts alone
 * and nvb_result_from_json refused the library's own JSON. */
START_TEST(split_and_plain_groups_round_trip)
{
    struct nvb_workload *a = wl((const char *[]){"engine", "null", "rw", "randread", "bssplit", "4k/50:8k/50",
                                                 "name", "split", "ios", "500", NULL}, g_file);
    struct nvb_workload *b = wl((const char *[]){"engine", "null", "rw", "randread", "name", "plain", "ios", "300",
                                                 NULL}, g_file);
    struct nvb_result *r = NULL, *l = NULL;
    ck_assert_int_eq(run2(a, b, NULL, &r), 0);
    char *js = json_of(r);
    char why[256] = "";
    ck_assert_msg(nvb_result_parse(js, strlen(js), &l, why, sizeof why) == 0, "%s", why);
    ck_assert_ptr_nonnull(r->groups[0]->tot[NVB_READ].bsc);
    ck_assert_ptr_null(r->groups[1]->tot[NVB_READ].bsc);
    ck_assert_ptr_null(r->tot[NVB_READ].bsc);
    ck_assert_ptr_nonnull(l->groups[0]->tot[NVB_READ].bsc);
    ck_assert_uint_eq(tu_get(l, "read.ios"), 800);
    char *js2 = json_of(l);
    ck_assert_str_eq(js, js2);
    /* a fault inside a group is named with the group in front */
    size_t len = strlen(js2);
    char *bad = malloc(len + 2), *at = NULL;
    for (char *g = js2; (g = strstr(g, "\"groups\":[")); g++)
        at = g; /* the last: the first is the total's workload */
    ck_assert_ptr_nonnull(at);
    at = strstr(at, "\"duration_s\":");
    ck_assert_ptr_nonnull(at);
    size_t cut = (size_t)(at - js2) + strlen("\"duration_s\":");
    memcpy(bad, js2, cut);
    bad[cut] = '-';
    memcpy(bad + cut + 1, js2 + cut, len - cut + 1);
    struct nvb_result *x = NULL;
    ck_assert_int_eq(nvb_result_parse(bad, strlen(bad), &x, why, sizeof why), -EINVAL);
    ck_assert_str_eq(why, "result JSON: 'groups.0.duration_s': negative");
    free(bad);
    free_round_trip(js, js2, r, l, a, b);
}
END_TEST

/* exitall: a's end stops b when it reaches b (step, or group with b's
 * exitall_group), as at b's runtime's end: no error, no cancellation, a
 * warning in b naming a; a group it does not reach does all its I/Os. */
START_TEST(exitall_stops_the_groups_it_reaches)
{
    for (int reach = 0; reach < 3; reach++) {
        const char *how = reach == 0 ? "step" : "group";
        struct nvb_workload *a = wl((const char *[]){"engine", "null", "rw", "read", "ios", "2000", "exitall", how,
                                                     NULL}, NULL);
        struct nvb_workload *b = wl(reach == 2 ? (const char *[]){"engine", "null", "rw", "randread", "ios", "3000",
                                                                  "qd", "2", "thinktime", "1ms", "exitall_group", "1",
                                                                  NULL}
                                               : (const char *[]){"engine", "null", "rw", "randread", "runtime",
                                                                  "30s", "thinktime", "1ms", NULL}, NULL);
        struct nvb_result *r = NULL;
        ck_assert_int_eq(run2(a, b, NULL, &r), 0);
        ck_assert(tu_get(r, "groups.0.read.ios") == 2000);
        char *js = json_of(r);
        if (reach == 2) { /* b's exitall_group is another: it runs to its own end */
            ck_assert(tu_get(r, "groups.1.read.ios") == 3000);
            ck_assert_ptr_null(strstr(js, "stopped when"));
            ck_assert_ptr_null(strstr(js, "exitall:"));
        } else {
            ck_assert_ptr_nonnull(strstr(js, "stopped when group 'group0' ended"));
            ck_assert(tu_get(r, "groups.1.duration_s") < 30);
            ck_assert(!r->groups[1]->cancelled);
        }
        nvb_free(js);
        nvb_result_free(r);
        nvb_workload_free(a);
        nvb_workload_free(b);
    }
}
END_TEST

START_TEST(bad_arguments)
{
    struct nvb_workload *a = wl((const char *[]){"engine", "null", "ios", "10", NULL}, NULL);
    const struct nvb_workload *ws[] = {a, NULL};
    struct nvb_result *r = (struct nvb_result *)1;
    ck_assert_int_eq(nvb_run_groups(ws, 0, NULL, &r), -EINVAL);
    ck_assert_ptr_null(r);
    ck_assert_int_eq(nvb_run_groups(ws, 2, NULL, &r), -EINVAL);
    ck_assert_int_eq(nvb_run_groups(NULL, 1, NULL, &r), -EINVAL);
    ck_assert_int_eq(nvb_run_groups(ws, 1, NULL, NULL), -EINVAL);
    /* one group: a run like nvb_run's, with one entry in groups */
    ck_assert_int_eq(nvb_run_groups(ws, 1, NULL, &r), 0);
    ck_assert_uint_eq(r->ngroups, 1);
    ck_assert(tu_get(r, "groups.0.read.ios") == 10);
    assert_totals(r);
    nvb_result_free(r);
    nvb_workload_free(a);
}
END_TEST

/* One block device named three ways (the kernel's node, a symlink to it,
 * a node made with mknod): the groups see one target. Needs root and
 * losetup; the device is a loop device on an image of random bytes. */
START_TEST(device_aliases_are_one_target)
{
    if (!tu_is_root() || tu_sh("command -v losetup") != 0) {
        fprintf(stderr, "note: device_aliases_are_one_target needs root and losetup; skipped\n");
        return;
    }
    char *dir = tu_mkdtemp("groups-alias");
    char img[512], lnk[512], node[512], dev[64];
    snprintf(img, sizeof img, "%s/dev.img", dir);
    snprintf(lnk, sizeof lnk, "%s/link", dir);
    snprintf(node, sizeof node, "%s/node", dir);
    ck_assert_int_eq(tu_sh("dd if=/dev/urandom of='%s' bs=1M count=8 status=none", img), 0);
    ck_assert_msg(tu_losetup(img, dev, sizeof dev) == 0, "losetup failed");
    struct stat st;
    ck_assert_int_eq(stat(dev, &st), 0);
    ck_assert_int_eq(symlink(dev, lnk), 0);
    ck_assert_int_eq(mknod(node, S_IFBLK | 0600, st.st_rdev), 0);
    uint64_t before = tu_file_sum(img);
    const char *names[] = {dev, lnk, node, NULL};
    struct nvb_result *r = NULL;
    struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
    for (int i = 0; i < 3; i++) {
        struct nvb_workload *a = wl((const char *[]){"engine", "psync", "rw", "randwrite", "name", "w", "ios", "64",
                                                     "allow_destructive", "1", NULL}, names[i]);
        for (int k = 0; k < 3; k++) {
            if (k == i)
                continue;
            /* a second writer that verifies, and a verifier, through another name */
            struct nvb_workload *b = wl((const char *[]){"engine", "psync", "rw", "write", "name", "b", "ios", "64",
                                                         "verify", "1", "allow_destructive", "1", NULL}, names[k]);
            refused2(a, b, "written by group 'b'");
            ck_assert_int_eq(nvb_workload_set(b, "rw", "randread"), 0);
            ck_assert_int_eq(nvb_workload_set(b, "verify", "1"), 0);
            refused2(a, b, "verified by group 'b'");
            nvb_workload_free(b);
        }
        nvb_workload_free(a);
    }
    ck_assert_msg(tu_file_sum(img) == before, "a refused run wrote the device");
    /* plain readers through every name beside a writer: they run */
    struct nvb_workload *a = wl((const char *[]){"engine", "psync", "rw", "randwrite", "name", "w", "ios", "64",
                                                 "allow_destructive", "1", NULL}, node);
    struct nvb_workload *b = tu_workload((const char *[]){"engine", "psync", "rw", "randread", "name", "r", "ios",
                                                          "64", NULL}, names);
    ck_assert_msg(run2(a, b, &o, &r) == 0, "%s", nvb_result_error(r));
    ck_assert_uint_gt(nvb_result_ios(r, NVB_READ), 0);
    nvb_result_free(r);
    nvb_workload_free(a);
    nvb_workload_free(b);
    tu_sh("losetup -d %s", dev);
    ck_assert_int_eq(tu_sh("rm -rf '%s'", dir), 0);
    free(dir);
}
END_TEST

/* A failed assertion ends a case before its own clean-up: the loop
 * devices it attached are found by their backing files' directory. */
static void detach_alias_loops(void)
{
    if (tu_is_root())
        tu_sh("losetup -a 2>/dev/null | grep '(%s/groups-alias\\.' | cut -d: -f1 | xargs -r -n1 losetup -d",
              tu_tmpdir());
}

static Suite *groups_suite(void)
{
    Suite *s = suite_create("groups");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_unchecked_fixture(tc, NULL, detach_alias_loops);
    tcase_add_test(tc, totals_are_the_sum_of_groups);
    tcase_add_test(tc, names_and_warnings);
    tcase_add_test(tc, reader_and_writer_on_one_file);
    tcase_add_test(tc, two_writers_refused);
    tcase_add_test(tc, missing_target_in_two_groups);
    tcase_add_test(tc, steps_validated_before_any_run);
    tcase_add_test(tc, device_aliases_are_one_target);
    tcase_add_test(tc, cancel_gives_partial_groups);
    tcase_add_test(tc, json_round_trip);
    tcase_add_test(tc, split_and_plain_groups_round_trip);
    tcase_add_test(tc, bad_arguments);
    tcase_add_test(tc, exitall_stops_the_groups_it_reaches);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    g_file = tu_scratch("groups-a", 4u << 20);
    int failed = tu_run_suite(groups_suite());
    unlink(g_file);
    free(g_file);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
