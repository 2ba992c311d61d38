/* Fault injection (fault.* keys) through the public API, the same tests for
 * every engine including null: every injected fault is counted once, by
 * errno and direction; failed I/O never reaches the device; latency leaves
 * failed I/O out unless lat_include_errors=1; continue_on_error=0 stops at
 * the first fault with a partial result; delayed completions are held back
 * and do not hold up a cancel. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvbench.h"
#include "testutil.h"

#define FILE_SIZE (8u << 20)

static char *g_file;
static const char *g_engines[8];
static int g_n;                 /* engines tested, null last */

static struct nvb_workload *mk(const char *eng, const char *const *kv)
{
    const char *base[] = {"engine", eng, NULL}, *targets[] = {g_file, NULL};
    struct nvb_workload *w = tu_workload(base, targets);
    for (; kv && kv[0]; kv += 2)
        ck_assert_msg(nvb_workload_set(w, kv[0], kv[1]) == 0, "set %s=%s: %s", kv[0], kv[1], nvb_workload_error(w));
    return w;
}


static double dget(const struct nvb_result *r, const char *dir, const char *key)
{
    char p[96];
    snprintf(p, sizeof p, "fault.%s.%s", dir, key);
    return tu_get(r, p);
}

/* Every I/O counted exactly once, every fault where it belongs. */
static void check_accounting(const struct nvb_result *r, const char *eng, uint64_t issued, const char *ename)
{
    uint64_t done = nvb_result_ios(r, NVB_READ) + nvb_result_ios(r, NVB_WRITE);
    uint64_t failed = nvb_result_errors(r);
    ck_assert_msg(done + failed == issued, "%s: %llu done + %llu failed != %llu issued", eng,
                  (unsigned long long)done, (unsigned long long)failed, (unsigned long long)issued);
    double inj = tu_get(r, "fault.injected"), sh = tu_get(r, "fault.short");
    ck_assert_msg(inj + sh == (double)failed, "%s: injected %.0f + short %.0f != errors %llu", eng, inj, sh,
                  (unsigned long long)failed);
    ck_assert(tu_get(r, "errors.short") == sh);
    char p[64];
    snprintf(p, sizeof p, "fault.by_errno.%s", ename);
    if (inj > 0)
        ck_assert_msg(tu_get(r, p) == inj, "%s: %s = %f, injected %f", eng, p, tu_get(r, p), inj);
    for (int d = 0; d < 2; d++) {
        const char *dn = d ? "write" : "read";
        snprintf(p, sizeof p, "errors.%s", dn);
        ck_assert_msg(tu_get(r, p) == dget(r, dn, "injected") + dget(r, dn, "short"), "%s: %s", eng, p);
        /* failed I/O stays out of the latency histogram */
        snprintf(p, sizeof p, "%s.lat_hist.count", dn);
        ck_assert_uint_eq((uint64_t)tu_get(r, p), nvb_result_ios(r, d));
    }
    ck_assert(dget(r, "read", "injected") + dget(r, "write", "injected") == inj);
    ck_assert(dget(r, "read", "delayed") + dget(r, "write", "delayed") == tu_get(r, "fault.delayed"));
    /* the time series carries the same errors */
    double ts = 0;
    for (int i = 0;; i++) {
        double v;
        snprintf(p, sizeof p, "timeseries.%d.errors", i);
        if (nvb_result_get(r, p, &v) < 0)
            break;
        ts += v;
    }
    ck_assert_msg(ts == (double)failed, "%s: timeseries errors %f != %llu", eng, ts, (unsigned long long)failed);
}

START_TEST(counted_once_every_engine)
{
    for (int e = 0; e < g_n; e++) {
        const char *eng = g_engines[e];
        struct nvb_workload *w = mk(eng, (const char *[]){"rw", "randrw", "qd", "8", "jobs", "2", "ios", "6000",
                                                          "fault.rate", "1/20", "fault.errno", "ENOSPC",
                                                          "fault.short", "5%", "fault.delay", "100us",
                                                          "fault.delay_rate", "0.05", "continue_on_error", "1",
                                                          NULL});
        struct nvb_result *r = NULL;
        int rc = nvb_run(w, NULL, &r);
        ck_assert_msg(rc == 0, "%s: %d %s", eng, rc, r ? nvb_result_error(r) : "");
        check_accounting(r, eng, 6000, "ENOSPC");
        ck_assert(tu_get(r, "fault.injected") > 100 && tu_get(r, "fault.short") > 100 && tu_get(r, "fault.delayed") > 100);
        ck_assert(dget(r, "read", "injected") > 0 && dget(r, "write", "injected") > 0);
        char *json;
        ck_assert_int_eq(nvb_result_json(r, &json), 0);
        ck_assert_ptr_nonnull(strstr(json, "\"fault\":{\"enabled\":true"));
        ck_assert_ptr_nonnull(strstr(json, "\"errno\":\"ENOSPC\""));
        nvb_free(json);
        nvb_result_free(r);
        nvb_workload_free(w);
    }
}
END_TEST

/* One job, one seed: the same I/Os fail whatever engine runs them. */
START_TEST(same_seed_same_faults)
{
    double first = -1, first_short = -1;
    for (int e = 0; e < g_n; e++) {
        struct nvb_workload *w = mk(g_engines[e], (const char *[]){"rw", "randread", "qd", "4", "ios", "3000",
                                                                   "fault.rate", "0.02", "fault.short", "0.01",
                                                                   "fault.seed", "42", "continue_on_error", "1",
                                                                   NULL});
        struct nvb_result *r = NULL;
        ck_assert_int_eq(nvb_run(w, NULL, &r), 0);
        check_accounting(r, g_engines[e], 3000, "EIO");
        if (first < 0) {
            first = tu_get(r, "fault.injected");
            first_short = tu_get(r, "fault.short");
            ck_assert(first > 0 && first_short > 0);
        } else {
            ck_assert_msg(tu_get(r, "fault.injected") == first && tu_get(r, "fault.short") == first_short,
                          "%s: %f/%f faults, first engine %f/%f", g_engines[e], tu_get(r, "fault.injected"),
                          tu_get(r, "fault.short"), first, first_short);
        }
        nvb_result_free(r);
        /* another seed, other faults */
        nvb_workload_set(w, "fault.seed", "43");
        ck_assert_int_eq(nvb_run(w, NULL, &r), 0);
        ck_assert(tu_get(r, "fault.injected") != first || tu_get(r, "fault.short") != first_short);
        nvb_result_free(r);
        nvb_workload_free(w);
    }
}
END_TEST


/* fault.rate=1: every write fails before it reaches the engine, so the
 * file is left exactly as it was. */
START_TEST(injected_errors_do_not_touch_the_device)
{
    uint64_t before = tu_file_sum(g_file);
    for (int e = 0; e < g_n; e++) {
        struct nvb_workload *w = mk(g_engines[e], (const char *[]){"rw", "randwrite", "qd", "8", "ios", "500",
                                                                   "fault.rate", "1", "fault.errno", "EROFS",
                                                                   "continue_on_error", "1", NULL});
        struct nvb_result *r = NULL;
        ck_assert_int_eq(nvb_run(w, NULL, &r), 0);
        ck_assert_uint_eq(nvb_result_ios(r, NVB_WRITE), 0);
        ck_assert_uint_eq(nvb_result_errors(r), 500);
        ck_assert(tu_get(r, "errors.by_errno.EROFS") == 500);
        ck_assert(tu_get(r, "fault.write.injected") == 500);
        ck_assert(tu_get(r, "write.lat_ns.max") == 0);
        nvb_result_free(r);
        nvb_workload_free(w);
    }
    ck_assert_msg(tu_file_sum(g_file) == before, "the target changed under writes that all failed");
}
END_TEST

/* The default stops at the first failure: a partial result carrying the
 * error, the I/O done until then, and the fault counted once. */
START_TEST(stops_at_first_fault)
{
    for (int e = 0; e < g_n; e++) {
        struct nvb_workload *w = mk(g_engines[e], (const char *[]){"rw", "randread", "qd", "8", "ios", "100000",
                                                                   "fault.rate", "1/500", "fault.errno", "EIO",
                                                                   "fault.seed", "7", NULL});
        struct nvb_result *r = NULL;
        int rc = nvb_run(w, NULL, &r);
        ck_assert_msg(rc == -EIO, "%s: rc %d", g_engines[e], rc);
        ck_assert_ptr_nonnull(r);
        ck_assert_int_eq(nvb_result_errno(r), -EIO);
        ck_assert_int_eq(nvb_result_cancelled(r), 0);
        ck_assert_ptr_nonnull(strstr(nvb_result_error(r), "injected"));
        uint64_t errs = nvb_result_errors(r);
        /* in-flight I/O (up to qd-1 per job) drains after the stop and may fail too */
        ck_assert_msg(errs >= 1 && errs <= 8, "%s: %llu errors", g_engines[e], (unsigned long long)errs);
        ck_assert(tu_get(r, "fault.injected") == (double)errs);
        uint64_t ios = nvb_result_ios(r, NVB_READ);
        ck_assert_msg(ios > 0 && ios < 100000, "%s: %llu ios", g_engines[e], (unsigned long long)ios);
        char *json;
        ck_assert_int_eq(nvb_result_json(r, &json), 0);
        ck_assert_ptr_nonnull(strstr(json, "\"error\":{\"errno\":5,\"name\":\"EIO\""));
        nvb_free(json);
        nvb_result_free(r);
        nvb_workload_free(w);
    }
}
END_TEST

/* continue_errnos: continue_on_error goes on after the listed errnos only
 * (fio's ignore_error lists, EIO and EILSEQ by default): an ENOSPC the
 * list names is counted and the run goes on to its end; one it does not
 * name stops the run with it, as without continue_on_error. */
START_TEST(continues_after_listed_errnos_only)
{
    for (int listed = 0; listed < 2; listed++) {
        struct nvb_workload *w = mk("null", (const char *[]){"rw", "randread", "ios", "20000", "fault.rate", "1/50",
                                                             "fault.errno", "ENOSPC", "fault.seed", "3",
                                                             "continue_on_error", "1", "continue_errnos",
                                                             listed ? "EIO:ENOSPC" : "EIO:EILSEQ", NULL});
        struct nvb_result *r = NULL;
        int rc = nvb_run(w, NULL, &r);
        ck_assert_ptr_nonnull(r);
        if (listed) {
            ck_assert_int_eq(rc, 0);
            ck_assert_uint_eq(nvb_result_ios(r, NVB_READ) + nvb_result_errors(r), 20000); /* to its end */
            ck_assert_uint_gt(nvb_result_errors(r), 1);
        } else {
            ck_assert_int_eq(rc, -ENOSPC);
            ck_assert_uint_lt(nvb_result_ios(r, NVB_READ), 20000);
        }
        nvb_result_free(r);
        nvb_workload_free(w);
    }
    struct nvb_workload *w = mk("null", NULL);
    ck_assert_int_eq(nvb_workload_set(w, "continue_errnos", "EIO:NOSUCH"), -EINVAL);
    ck_assert_ptr_nonnull(strstr(nvb_workload_error(w), "'continue_errnos'"));
    nvb_workload_free(w);
}
END_TEST

START_TEST(latency_of_errors_on_request)
{
    for (int e = 0; e < g_n; e++) {
        struct nvb_workload *w = mk(g_engines[e], (const char *[]){"rw", "randread", "qd", "4", "ios", "2000",
                                                                   "fault.rate", "0.1", "fault.short", "0.1",
                                                                   "continue_on_error", "1",
                                                                   "lat_include_errors", "1", NULL});
        struct nvb_result *r = NULL;
        ck_assert_int_eq(nvb_run(w, NULL, &r), 0);
        uint64_t ios = nvb_result_ios(r, NVB_READ), errs = nvb_result_errors(r);
        ck_assert(errs > 0);
        ck_assert_uint_eq(ios + errs, 2000);
        ck_assert_uint_eq((uint64_t)tu_get(r, "read.lat_hist.count"), ios + errs);
        nvb_result_free(r);
        nvb_workload_free(w);
    }
}
END_TEST

/* Delayed completions: latency includes the delay, the I/O succeeds. */
START_TEST(delayed_completions)
{
    for (int e = 0; e < g_n; e++) {
        struct nvb_workload *w = mk(g_engines[e], (const char *[]){"rw", "randrw", "qd", "4", "ios", "200",
                                                                   "fault.delay", "3ms", NULL});
        struct nvb_result *r = NULL;
        ck_assert_int_eq(nvb_run(w, NULL, &r), 0);
        ck_assert_uint_eq(nvb_result_ios(r, NVB_READ) + nvb_result_ios(r, NVB_WRITE), 200);
        ck_assert_uint_eq(nvb_result_errors(r), 0);
        ck_assert(tu_get(r, "fault.delayed") == 200);
        ck_assert_msg(tu_get(r, "read.lat_ns.min") >= 3e6, "%s: min latency %f below the 3 ms delay", g_engines[e],
                      tu_get(r, "read.lat_ns.min"));
        ck_assert(tu_get(r, "write.lat_ns.min") >= 3e6);
        nvb_result_free(r);
        /* half of them */
        nvb_workload_set(w, "fault.delay_rate", "0.5");
        nvb_workload_set(w, "ios", "2000");
        ck_assert_int_eq(nvb_run(w, NULL, &r), 0);
        double dl = tu_get(r, "fault.delayed");
        ck_assert_msg(dl > 800 && dl < 1200, "%s: %f of 2000 delayed at rate 0.5", g_engines[e], dl);
        nvb_result_free(r);
        nvb_workload_free(w);
    }
}
END_TEST

static void *cancel_later(void *arg)
{
    usleep(300 * 1000);
    nvb_cancel_request(arg);
    return NULL;
}

/* A completion held back for 10 s does not hold up a cancel. */
START_TEST(cancel_with_long_delays)
{
    for (int e = 0; e < g_n; e++) {
        struct nvb_workload *w = mk(g_engines[e], (const char *[]){"rw", "randread", "qd", "4", "runtime", "60s",
                                                                   "fault.delay", "10s", "fault.delay_rate", "0.01",
                                                                   NULL});
        struct nvb_cancel *c;
        nvb_cancel_new(&c);
        pthread_t th;
        pthread_create(&th, NULL, cancel_later, c);
        struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
        o.cancel = c;
        struct nvb_result *r = NULL;
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        int rc = nvb_run(w, &o, &r);
        clock_gettime(CLOCK_MONOTONIC, &b);
        pthread_join(th, NULL);
        double took = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
        ck_assert_int_eq(rc, -ECANCELED);
        ck_assert_msg(took < 3.0, "%s: cancel took %.2fs", g_engines[e], took);
        nvb_result_free(r);
        nvb_cancel_free(c);
        nvb_workload_free(w);
    }
}
END_TEST

/* The watchdog: completions held back longer than io_timeout stop the run
 * with -ETIMEDOUT and a partial result that parses; the same delays under a longer io_timeout, or with the
 * watchdog off (0), complete normally. Every engine: each one bounds its
 * waits (the wrapper holds completions the engine already delivered). */
START_TEST(watchdog_io_timeout)
{
    for (int e = 0; e < g_n; e++) {
        struct nvb_workload *w = mk(g_engines[e], (const char *[]){"rw", "randread", "qd", "4", "runtime", "60s",
                                                                   "fault.delay", "10s", "io_timeout", "200ms",
                                                                   NULL});
        struct nvb_result *r = NULL;
        int rc = nvb_run(w, NULL, &r);
        ck_assert_msg(rc == -ETIMEDOUT, "%s: rc %d (%s)", g_engines[e], rc, r ? nvb_result_error(r) : "");
        ck_assert_ptr_nonnull(r);
        ck_assert_int_eq(nvb_result_errno(r), -ETIMEDOUT);
        const char *msg = nvb_result_error(r);
        ck_assert_msg(strstr(msg, "watchdog") && strstr(msg, "io_timeout=0.2 s") && strstr(msg, " in flight"),
                      "%s: %s", g_engines[e], msg);
        ck_assert_uint_eq(nvb_result_ios(r, NVB_READ), 0);
        char *js = NULL;
        ck_assert_int_eq(nvb_result_json(r, &js), 0);
        /* what the wrapper held back was complete: nothing is left to the
         * device, so nothing stays allocated (valgrind checks that too) */
        ck_assert_ptr_null(strstr(js, "abandoned "));
        ck_assert_ptr_nonnull(strstr(js, "\"io_timeout_s\":0.2"));
        struct nvb_result *back = NULL;
        ck_assert_msg(nvb_result_from_json(js, &back) == 0, "%s: the partial result does not load", g_engines[e]);
        nvb_result_free(back);
        nvb_free(js);
        nvb_result_free(r);

        /* delays shorter than io_timeout: no watchdog */
        nvb_workload_set(w, "runtime", "0");
        nvb_workload_set(w, "ios", "16");
        nvb_workload_set(w, "fault.delay", "50ms");
        nvb_workload_set(w, "io_timeout", "5s");
        ck_assert_int_eq(nvb_run(w, NULL, &r), 0);
        ck_assert_uint_eq(nvb_result_ios(r, NVB_READ), 16);
        nvb_result_free(r);
        /* off: waits as long as it takes */
        nvb_workload_set(w, "fault.delay", "300ms");
        nvb_workload_set(w, "io_timeout", "0");
        ck_assert_int_eq(nvb_run(w, NULL, &r), 0);
        ck_assert_uint_eq(nvb_result_ios(r, NVB_READ), 16);
        nvb_result_free(r);
        /* and the same run with a watchdog shorter than the delay */
        nvb_workload_set(w, "io_timeout", "100ms");
        ck_assert_int_eq(nvb_run(w, NULL, &r), -ETIMEDOUT);
        nvb_result_free(r);
        nvb_workload_free(w);

        /* One I/O in a hundred held back while the others complete (1000
         * IOPS, 32 slots): the job never goes quiet, the age of that one
         * I/O is what ends the run, long before its 60 s runtime. */
        w = mk(g_engines[e], (const char *[]){"rw", "randread", "qd", "32", "runtime", "60s", "rate_iops", "1000",
                                              "fault.delay", "10s", "fault.delay_rate", "0.01",
                                              "io_timeout", "300ms", NULL});
        rc = nvb_run(w, NULL, &r);
        ck_assert_msg(rc == -ETIMEDOUT, "%s: rc %d (%s)", g_engines[e], rc, r ? nvb_result_error(r) : "");
        msg = nvb_result_error(r);
        if (tu_get(r, "qd_effective") > 1)
            ck_assert_msg(strstr(msg, "watchdog") && strstr(msg, "was in flight for") &&
                          strstr(msg, "read of target"), "%s: %s", g_engines[e], msg);
        else /* one I/O at a time (psync): holding it is the job going quiet */
            ck_assert_msg(strstr(msg, "watchdog") && strstr(msg, "none completed for"), "%s: %s", g_engines[e], msg);
        ck_assert_uint_gt(nvb_result_ios(r, NVB_READ), 0);
        nvb_result_free(r);
        nvb_workload_free(w);
    }
}
END_TEST

/* bs of one logical block with direct=1: half a block cannot be submitted,
 * so the engine's answer is cut instead. Still one short transfer each. */
START_TEST(short_below_alignment)
{
    for (int e = 0; e < g_n; e++) {
        struct nvb_workload *w = mk(g_engines[e], (const char *[]){"rw", "randread", "bs", "512", "qd", "4",
                                                                   "ios", "1000", "fault.short", "1",
                                                                   "continue_on_error", "1", NULL});
        struct nvb_result *r = NULL;
        int rc = nvb_run(w, NULL, &r);
        if (rc == -EINVAL && strstr(nvb_result_error(r), "logical block size")) {
            nvb_result_free(r); /* a 4K-sector file system: nothing to test here */
            nvb_workload_free(w);
            continue;
        }
        ck_assert_msg(rc == 0, "%s: %s", g_engines[e], nvb_result_error(r));
        ck_assert_uint_eq(nvb_result_errors(r), 1000);
        ck_assert(tu_get(r, "errors.short") == 1000 && tu_get(r, "fault.short") == 1000);
        nvb_result_free(r);
        nvb_workload_free(w);
    }
}
END_TEST

/* Faults during the ramp are not counted, like the ramp's I/O. */
START_TEST(ramp_faults_not_counted)
{
    struct nvb_workload *w = mk(g_engines[0], (const char *[]){"rw", "randread", "ramp", "100ms", "ios", "1000",
                                                               "fault.rate", "0.2", "continue_on_error", "1", NULL});
    struct nvb_result *r = NULL;
    ck_assert_int_eq(nvb_run(w, NULL, &r), 0);
    check_accounting(r, g_engines[0], 1000, "EIO");
    nvb_result_free(r);
    nvb_workload_free(w);
}
END_TEST

/* An I/O that fault.rate failed never reached the engine: it is no
 * submission. slat counts exactly the I/Os the engine took, which are
 * submissions.ios, which is what was issued less fault.injected (an
 * ios-bounded run, no ramp); a call that carried none of them is no call.
 * Mixed directions, so that slat is split by direction after the failed
 * ones are left out; rate 1 too, where nothing reaches the engine. */
START_TEST(injected_not_submitted)
{
    static const char *const rates[] = {"0.5", "1"};
    for (int e = 0; e < g_n; e++) {
        for (int k = 0; k < 2; k++) {
            const char *eng = g_engines[e];
            struct nvb_workload *w = mk(eng, (const char *[]){"rw", "randrw", "qd", "8", "ios", "2000",
                                                              "fault.rate", rates[k], "continue_on_error", "1",
                                                              NULL});
            struct nvb_result *r = NULL;
            int rc = nvb_run(w, NULL, &r);
            ck_assert_msg(rc == 0, "%s: %d %s", eng, rc, r ? nvb_result_error(r) : "");
            check_accounting(r, eng, 2000, "EIO");
            const double inj = tu_get(r, "fault.injected"), ios = tu_get(r, "submissions.ios");
            const double calls = tu_get(r, "submissions.calls");
            ck_assert_msg(k ? inj == 2000 : inj > 500 && inj < 1500, "%s rate %s: %.0f injected", eng, rates[k], inj);
            ck_assert_msg(ios == 2000 - inj, "%s rate %s: submissions.ios %.0f, issued 2000 - injected %.0f = %.0f",
                          eng, rates[k], ios, inj, 2000 - inj);
            ck_assert_msg(calls <= ios && (ios == 0) == (calls == 0), "%s rate %s: %.0f calls for %.0f I/Os", eng,
                          rates[k], calls, ios);
            double sr, sw;
            int hr = nvb_result_get(r, "read.slat_hist.count", &sr);
            int hw = nvb_result_get(r, "write.slat_hist.count", &sw);
            if (!strcmp(eng, "psync")) { /* completes inside submit: no slat */
                ck_assert_msg(hr < 0 && hw < 0, "%s: a slat histogram", eng);
            } else {
                ck_assert_msg(hr == 0 && hw == 0, "%s: no slat histogram", eng);
                ck_assert_msg(sr + sw == ios, "%s rate %s: slat counts %.0f + %.0f I/Os, submissions.ios %.0f", eng,
                              rates[k], sr, sw, ios);
            }
            nvb_result_free(r);
            nvb_workload_free(w);
        }
    }
}
END_TEST

/* The open-loop lag is over submissions.ios too: with every I/O failed
 * before the engine there is no lag to count, and its means are null (no
 * submission to take a mean over), not 0; at rate 0.5 no more I/Os are
 * lagged than were submitted. */
START_TEST(injected_no_lag)
{
    static const char *const rates[] = {"1", "0.5"};
    for (int k = 0; k < 2; k++) {
        struct nvb_workload *w = mk("null", (const char *[]){"rw", "randread", "qd", "4", "ios", "400",
                                                             "rate_iops", "20000", "fault.rate", rates[k],
                                                             "continue_on_error", "1", NULL});
        struct nvb_result *r = NULL;
        ck_assert_int_eq(nvb_run(w, NULL, &r), 0);
        const double inj = tu_get(r, "fault.injected"), ios = tu_get(r, "submissions.ios");
        ck_assert_msg(ios == 400 - inj, "rate %s: submissions.ios %.0f, 400 - injected %.0f", rates[k], ios, inj);
        ck_assert(tu_get(r, "rate.lagged_ios") <= ios);
        double v;
        if (k == 0) {
            ck_assert_msg(tu_get(r, "rate.lag_sum_ns") == 0 && tu_get(r, "rate.lag_max_ns") == 0,
                          "lag %.0f ns (max %.0f) over no submission", tu_get(r, "rate.lag_sum_ns"),
                          tu_get(r, "rate.lag_max_ns"));
            ck_assert(tu_get(r, "rate.late_sum_ns") == 0 && tu_get(r, "rate.queue_full_sum_ns") == 0);
            ck_assert_msg(nvb_result_get(r, "rate.lag_mean_ns", &v) < 0, "lag_mean_ns %f, not null", v);
            ck_assert(nvb_result_get(r, "rate.late_mean_ns", &v) < 0);
            ck_assert(nvb_result_get(r, "rate.queue_full_mean_ns", &v) < 0);
        } else {
            ck_assert(ios > 0 && nvb_result_get(r, "rate.lag_mean_ns", &v) == 0);
        }
        nvb_result_free(r);
        nvb_workload_free(w);
    }
}
END_TEST

START_TEST(keys)
{
    struct nvb_workload *w;
    char buf[64];
    ck_assert_int_eq(nvb_workload_new(&w), 0);
    static const struct { const char *in; double v; } probs[] = {
        {"0", 0}, {"1", 1}, {"0.25", 0.25}, {"1/1000", 0.001}, {"0.5%", 0.005}, {"1e-3", 0.001}, {".5", 0.5},
        {"3/3", 1},
    };
    for (size_t i = 0; i < sizeof probs / sizeof probs[0]; i++) {
        ck_assert_msg(nvb_workload_set(w, "fault.rate", probs[i].in) == 0, "%s: %s", probs[i].in,
                      nvb_workload_error(w));
        ck_assert_int_gt(nvb_workload_get(w, "fault.rate", buf, sizeof buf), 0);
        ck_assert_msg(strtod(buf, NULL) == probs[i].v, "%s read back as %s", probs[i].in, buf);
    }
    static const char *const bad[] = {"", "-0.1", "nan", "inf", "0x1p-3", "1/0", "2/1", "1.5", "101%", "1/", "/2",
                                      "abc", "0.1.2", "1e400", " "};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = nvb_workload_set(w, "fault.short", bad[i]);
        ck_assert_msg(rc == -EINVAL || rc == -ERANGE, "fault.short='%s' accepted", bad[i]);
        ck_assert_ptr_nonnull(strstr(nvb_workload_error(w), "fault.short"));
    }
    ck_assert_int_eq(nvb_workload_set(w, "fault.errno", "ENOSPC"), 0);
    ck_assert_int_gt(nvb_workload_get(w, "fault.errno", buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "ENOSPC");
    ck_assert_int_eq(nvb_workload_set(w, "fault.errno", "eio"), 0);
    nvb_workload_get(w, "fault.errno", buf, sizeof buf);
    ck_assert_str_eq(buf, "EIO");
    ck_assert_int_eq(nvb_workload_set(w, "fault.errno", "61"), 0);
    /* an errno without a name reads back as E<n>, which is accepted again */
    ck_assert_int_eq(nvb_workload_set(w, "fault.errno", "200"), 0);
    nvb_workload_get(w, "fault.errno", buf, sizeof buf);
    ck_assert_int_eq(nvb_workload_set(w, "fault.errno", buf), 0);
    ck_assert_int_eq(nvb_workload_set(w, "fault.errno", "0"), -ERANGE);
    ck_assert_int_eq(nvb_workload_set(w, "fault.errno", "256"), -ERANGE);
    ck_assert_int_eq(nvb_workload_set(w, "fault.errno", "EWHATEVER"), -EINVAL);
    ck_assert_ptr_nonnull(strstr(nvb_workload_error(w), "EWHATEVER"));
    ck_assert_int_eq(nvb_workload_set(w, "fault.delay", "2ms"), 0);
    nvb_workload_get(w, "fault.delay", buf, sizeof buf);
    ck_assert_str_eq(buf, "2ms");
    ck_assert_int_eq(nvb_workload_set(w, "fault.delay", "1h"), -ERANGE);
    ck_assert_int_eq(nvb_workload_set(w, "fault.seed", "18446744073709551615"), 0);
    ck_assert_int_eq(nvb_workload_set(w, "fault.bogus", "1"), -EINVAL);
    ck_assert_ptr_nonnull(strstr(nvb_workload_error(w), "fault.rate"));
    ck_assert_int_eq(nvb_workload_set(w, "lat_include_errors", "1"), 0);
    nvb_workload_free(w);
}
END_TEST

/* A result without fault keys reports fault injection off and all zero. */
START_TEST(off_by_default)
{
    struct nvb_workload *w = mk("null", (const char *[]){"ios", "100", NULL});
    struct nvb_result *r = NULL;
    ck_assert_int_eq(nvb_run(w, NULL, &r), 0);
    char *json;
    ck_assert_int_eq(nvb_result_json(r, &json), 0);
    ck_assert_ptr_nonnull(strstr(json, "\"fault\":{\"enabled\":false,\"injected\":0,\"short\":0,\"delayed\":0"));
    nvb_free(json);
    nvb_result_free(r);
    nvb_workload_free(w);
}
END_TEST

int main(void)
{
    g_file = tu_scratch("faults", FILE_SIZE);
    for (int i = 0; i < nvb_engine_count(); i++) {
        const char *n = nvb_engine_name(i);
        char why[256];
        if (!strcmp(n, "nvme")) /* NVMe namespaces only, not the regular file used here */
            continue;
        if (strcmp(n, "null") && nvb_engine_probe(n, why, sizeof why) == 0)
            g_engines[g_n++] = n;
        else if (strcmp(n, "null"))
            fprintf(stderr, "note: engine %s not tested here: %s\n", n, why);
    }
    g_engines[g_n++] = "null";
    Suite *s = suite_create("faults");
    TCase *tc = tcase_create("faults");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, keys);
    tcase_add_test(tc, off_by_default);
    tcase_add_test(tc, counted_once_every_engine);
    tcase_add_test(tc, same_seed_same_faults);
    tcase_add_test(tc, injected_errors_do_not_touch_the_device);
    tcase_add_test(tc, stops_at_first_fault);
    tcase_add_test(tc, latency_of_errors_on_request);
    tcase_add_test(tc, delayed_completions);
    tcase_add_test(tc, cancel_with_long_delays);
    tcase_add_test(tc, watchdog_io_timeout);
    tcase_add_test(tc, short_below_alignment);
    tcase_add_test(tc, ramp_faults_not_counted);
    tcase_add_test(tc, injected_not_submitted);
    tcase_add_test(tc, injected_no_lag);
    tcase_add_test(tc, continues_after_listed_errnos_only);
    suite_add_tcase(s, tc);
    int failed = tu_run_suite(s);
    unlink(g_file);
    free(g_file);
    return failed ? 1 : 0;
}
