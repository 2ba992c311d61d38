/* Workload keys, value parsing, and every bad-input case: a negative errno,
 * a message naming the key and the value, and nothing created or written. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/bindings.h"
#include "core/internal.h"
#include "nvbench.h"
#include "testutil.h"

static char *g_file;   /* 1 MiB data file */
static char *g_dir;    /* empty directory */

/* ---------------------------------------------------------------- parsers */

START_TEST(parse_sizes)
{
    static const struct { const char *s; uint64_t v; } ok[] = {
        {"0", 0}, {"512", 512}, {"4k", 4096}, {"4K", 4096}, {"4KiB", 4096}, {"4kb", 4096},
        {"64k", 65536}, {"1M", 1 << 20}, {"2G", 2ull << 30}, {"1t", 1ull << 40}, {"1.5k", 1536},
        {"0.5M", 512 << 10}, {" 8k", 8192}, {"18446744073709551615", UINT64_MAX},
        {"8k ", 8192}, {"3b", 3}, {"3B", 3}, {"1Ki", 1024}, {"1pib", 1ull << 50},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        uint64_t v = 1;
        ck_assert_msg(nvb__parse_size(ok[i].s, &v) == 0, "'%s' rejected", ok[i].s);
        ck_assert_msg(v == ok[i].v, "'%s' -> %llu", ok[i].s, (unsigned long long)v);
    }
    static const char *const bad[] = {"", "k", "4x", "-1", "4kk", "1.5", "4 k b", "0x10", "1e3", ".", "4k2",
                                       "4 k", "3bb", "3bi", "1.5b", "1kbi", "1e"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t v;
        ck_assert_msg(nvb__parse_size(bad[i], &v) < 0, "'%s' accepted", bad[i]);
    }
    uint64_t v;
    ck_assert_int_eq(nvb__parse_size("18446744073709551616", &v), -ERANGE);
    ck_assert_int_eq(nvb__parse_size("16777216T", &v), -ERANGE);
}
END_TEST

START_TEST(parse_durations)
{
    static const struct { const char *s; uint64_t ns; } ok[] = {
        {"2", 2000000000ull}, {"2s", 2000000000ull}, {"500ms", 500000000ull}, {"250us", 250000ull},
        {"10ns", 10}, {"1m", 60000000000ull}, {"1h", 3600000000000ull}, {"1.5s", 1500000000ull},
        {"0", 0}, {"2MS", 2000000ull}, {"1min", 60000000000ull}, {"1Min", 60000000000ull},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        uint64_t ns = 1;
        ck_assert_msg(nvb__parse_duration(ok[i].s, &ns) == 0, "'%s' rejected", ok[i].s);
        ck_assert_msg(ns == ok[i].ns, "'%s' -> %llu", ok[i].s, (unsigned long long)ns);
    }
    static const char *const bad[] = {"", "s", "-1s", "2parsecs", "1 s s", "ms", "1d", "1 s", "1s ", "1mins"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t ns;
        ck_assert_msg(nvb__parse_duration(bad[i], &ns) < 0, "'%s' accepted", bad[i]);
    }
}
END_TEST

/* Durations are decimal text turned into whole nanoseconds by integer
 * arithmetic: no binary fraction in between (0.001 s was 999,999 ns), and
 * a value finer than 1 ns is refused, not rounded. */
START_TEST(parse_durations_exactly)
{
    static const struct { const char *s; uint64_t ns; } ok[] = {
        {"0.001", 1000000ull}, {"0.001s", 1000000ull}, {"0.000001", 1000ull}, {"0.3", 300000000ull},
        {"1.001", 1001000000ull}, {"0.123456789", 123456789ull}, {"1.000000001", 1000000001ull},
        {"2.675ms", 2675000ull}, {"0.7us", 700ull}, {"0.001ms", 1000ull}, {"1.1h", 3960000000000ull},
        {"0.0000000001h", 360ull}, {"1.000000000000000000000s", 1000000000ull}, {"0.1m", 6000000000ull},
        {"31535999.999999999", 31535999999999999ull},
        /* with a decimal exponent, as JSON writers print small numbers (a result's
         * thinktime_s of 5 us is 5e-06 once Python has read and written it) */
        {"5e-06", 5000ull}, {"5e-06s", 5000ull}, {"1.5e3ms", 1500000000ull}, {"2E+2us", 200000ull},
        {"12.5e-1", 1250000000ull}, {"1e-9", 1ull}, {".5e1", 5000000000ull},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        uint64_t ns = 1;
        ck_assert_msg(nvb__parse_duration(ok[i].s, &ns) == 0, "'%s' rejected", ok[i].s);
        ck_assert_msg(ns == ok[i].ns, "'%s' -> %llu, not %llu", ok[i].s, (unsigned long long)ns,
                      (unsigned long long)ok[i].ns);
    }
    uint64_t ns = 0;
    ck_assert_int_eq(nvb__parse_usec("0.5", &ns), 0); /* bare: microseconds */
    ck_assert_uint_eq(ns, 500);
    static const char *const finer[] = {"0.0000000001", "1.5ns", "0.0001us", "0.0000000000009h",
                                        "1.0000000000000000001s", "0.0000000000000000001"};
    for (size_t i = 0; i < sizeof finer / sizeof finer[0]; i++)
        ck_assert_msg(nvb__parse_duration(finer[i], &ns) < 0, "'%s' (finer than 1 ns) accepted", finer[i]);
    ck_assert_int_lt(nvb__parse_usec("0.0005", &ns), 0);
    ck_assert_int_eq(nvb__parse_usec("5e-06s", &ns), 0);
    ck_assert_uint_eq(ns, 5000);
    static const char *const bad_exp[] = {"1e-10s", "1e41", "1e", "1e+", "1.2.3e1", "-1e3"};
    for (size_t i = 0; i < sizeof bad_exp / sizeof bad_exp[0]; i++)
        ck_assert_msg(nvb__parse_duration(bad_exp[i], &ns) < 0, "'%s' accepted", bad_exp[i]);
    /* a fraction past the 18 digits kept is still a fraction */
    uint64_t v;
    ck_assert_int_lt(nvb__parse_u64("1.0000000000000000000001", &v), 0);
    ck_assert_int_lt(nvb__parse_size("1.0000000000000000000001", &v), 0);
}
END_TEST

/* Every duration key of the key table: set from decimal text, read back
 * with nvb_workload_get and echoed in the result's workload, each exactly
 * the value set (0.001 was echoed 0.000999999). */
START_TEST(duration_keys_round_trip)
{
    static const struct { const char *text, *seconds; } vals[] = {
        {"0.001s", "0.001"}, {"0.011s", "0.011"}, {"1.001s", "1.001"}, {"0.123456789s", "0.123456789"},
        {"2.000000001s", "2.000000001"}, {"0.7us", "0.0000007"}, {"9.999999999s", "9.999999999"},
        {"0.1m", "6"}, {"1.5ms", "0.0015"},
    };
    int keys_seen = 0;
    const char *type;
    const char *key;
    for (size_t i = 0; (key = nvb__workload_key(i, &type, NULL)); i++) {
        if (strcmp(type, "duration") && strcmp(type, "duration_us"))
            continue;
        keys_seen++;
        int set_once = 0;
        for (size_t v = 0; v < sizeof vals / sizeof vals[0]; v++) {
            struct nvb_workload *w;
            ck_assert_int_eq(nvb_workload_new(&w), 0);
            uint64_t want;
            ck_assert_int_eq(nvb__parse_duration(vals[v].text, &want), 0);
            int rc = nvb_workload_set(w, key, vals[v].text);
            if (rc == -ERANGE) { /* below the key's minimum (interval) */
                nvb_workload_free(w);
                continue;
            }
            ck_assert_msg(rc == 0, "%s=%s: %s", key, vals[v].text, nvb_workload_error(w));
            set_once = 1;
            char buf[64];
            ck_assert_int_gt(nvb_workload_get(w, key, buf, sizeof buf), 0);
            uint64_t back = 0;
            int prc = strcmp(type, "duration") ? nvb__parse_usec(buf, &back) : nvb__parse_duration(buf, &back);
            ck_assert_msg(prc == 0 && back == want, "%s=%s read back as '%s' (%llu ns, not %llu)", key,
                          vals[v].text, buf, (unsigned long long)back, (unsigned long long)want);
            /* the echo: "<last part of the key>_s":<exact seconds> */
            struct nvb__buf b = {0};
            nvb__workload_json(w, &b);
            char *json = NULL;
            ck_assert_int_eq(nvb__buf_take(&b, &json), 0);
            const char *leaf = strrchr(key, '.') ? strrchr(key, '.') + 1 : key;
            char field[96];
            snprintf(field, sizeof field, "\"%s_s\":%s", leaf, vals[v].seconds);
            const char *at = strstr(json, field);
            ck_assert_msg(at && (at[strlen(field)] == ',' || at[strlen(field)] == '}'),
                          "%s=%s: echo has no %s in %s", key, vals[v].text, field, json);
            free(json);
            nvb_workload_free(w);
        }
        ck_assert_msg(set_once, "no test value fits key %s", key);
    }
    ck_assert_int_ge(keys_seen, 7);
}
END_TEST

START_TEST(parse_ints)
{
    int64_t v = 0;
    ck_assert_int_eq(nvb__parse_i64("-5", &v), 0);
    ck_assert_int_eq(v, -5);
    ck_assert_int_eq(nvb__parse_i64(" +7", &v), 0);
    ck_assert_int_eq(v, 7);
    ck_assert_int_eq(nvb__parse_i64("-9223372036854775808", &v), 0);
    ck_assert(v == INT64_MIN);
    ck_assert_int_eq(nvb__parse_i64("9223372036854775808", &v), -ERANGE);
    ck_assert_int_lt(nvb__parse_i64("-", &v), 0);
    ck_assert_int_lt(nvb__parse_i64("--1", &v), 0);
    ck_assert_int_lt(nvb__parse_i64("1.5", &v), 0);
    ck_assert_int_eq(nvb__parse_i64(NULL, &v), -EINVAL);
    uint64_t u = 0;
    ck_assert_int_eq(nvb__parse_u64(" 42 ", &u), 0);
    ck_assert_uint_eq(u, 42);
    ck_assert_int_eq(nvb__parse_u64(NULL, &u), -EINVAL);
    ck_assert_int_eq(nvb__parse_size(NULL, &u), -EINVAL);
    ck_assert_int_eq(nvb__parse_duration(NULL, &u), -EINVAL);
}
END_TEST

START_TEST(parse_cpulist)
{
    uint64_t bits[4];
    ck_assert_int_eq(nvb__parse_cpulist("0-3,6,8-9", bits, 256), 0);
    ck_assert_uint_eq(bits[0], 0x34full);
    ck_assert_int_lt(nvb__parse_cpulist("3-1", bits, 256), 0);
    ck_assert_int_lt(nvb__parse_cpulist("a", bits, 256), 0);
    ck_assert_int_lt(nvb__parse_cpulist("1,,2", bits, 256), 0);
    ck_assert_int_eq(nvb__parse_cpulist("300", bits, 256), -ERANGE);
}
END_TEST

/* ---------------------------------------------------------------- keys */

START_TEST(defaults_and_roundtrip)
{
    struct nvb_workload *w;
    ck_assert_int_eq(nvb_workload_new(&w), 0);
    char buf[64];
    ck_assert_int_gt(nvb_workload_get(w, "engine", buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "psync");
    ck_assert_int_gt(nvb_workload_get(w, "direct", buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "1");
    ck_assert_int_eq(nvb_workload_set(w, "bs", "64k"), 0);
    nvb_workload_get(w, "bs", buf, sizeof buf);
    ck_assert_str_eq(buf, "65536");
    ck_assert_int_eq(nvb_workload_set(w, "runtime", "500ms"), 0);
    nvb_workload_get(w, "runtime", buf, sizeof buf);
    ck_assert_str_eq(buf, "500ms");
    ck_assert_int_eq(nvb_workload_set(w, "rw", "randrw"), 0);
    nvb_workload_get(w, "rw", buf, sizeof buf);
    ck_assert_str_eq(buf, "randrw");
    ck_assert_int_eq(nvb_workload_set(w, "io_uring.sqpoll", "1"), 0);
    nvb_workload_get(w, "io_uring.sqpoll", buf, sizeof buf);
    ck_assert_str_eq(buf, "1");
    ck_assert_int_gt(nvb_workload_get(w, "io_uring.fixedbufs", buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "auto");
    ck_assert_int_eq(nvb_workload_get(w, "nope", buf, sizeof buf), -ENOENT);
    ck_assert_int_eq(nvb_workload_get(w, "bs", buf, 2), -ENOSPC);
    ck_assert_int_eq(nvb_workload_set(w, "cpus", "0"), 0);
    nvb_workload_get(w, "cpus", buf, sizeof buf);
    ck_assert_str_eq(buf, "0");
    nvb_workload_free(w);
}
END_TEST

/* A failed set leaves the workload unchanged and names key and value. */
static void expect_set_fail(const char *key, const char *value, int err)
{
    struct nvb_workload *w;
    ck_assert_int_eq(nvb_workload_new(&w), 0);
    char before[64], after[64];
    int had = nvb_workload_get(w, key, before, sizeof before);
    int rc = nvb_workload_set(w, key, value);
    ck_assert_msg(rc == err, "set %s=%s returned %d, expected %d", key, value, rc, err);
    const char *msg = nvb_workload_error(w);
    ck_assert_msg(strstr(msg, key) != NULL, "message '%s' does not name key '%s'", msg, key);
    if (*value)
        ck_assert_msg(strstr(msg, value) != NULL, "message '%s' does not name value '%s'", msg, value);
    if (had >= 0) {
        nvb_workload_get(w, key, after, sizeof after);
        ck_assert_str_eq(before, after);
    }
    nvb_workload_free(w);
}

/* A slip gets a suggestion; a word that is nothing like any name gets none. */
static void expect_hint(const char *key, const char *value, const char *hint)
{
    struct nvb_workload *w;
    ck_assert_int_eq(nvb_workload_new(&w), 0);
    if (strncmp(key, "io_uring.", 9) == 0)
        ck_assert_int_eq(nvb_workload_set(w, "engine", "io_uring"), 0);
    ck_assert_int_lt(nvb_workload_set(w, key, value), 0);
    const char *msg = nvb_workload_error(w);
    if (hint) {
        char want[96];
        snprintf(want, sizeof want, "did you mean '%s'?", hint);
        ck_assert_msg(strstr(msg, want), "%s=%s: '%s' lacks \"%s\"", key, value, msg, want);
    } else {
        ck_assert_msg(!strstr(msg, "did you mean"), "%s=%s: a far-fetched suggestion: %s", key, value, msg);
    }
    ck_assert_msg(strstr(msg, key) && strstr(msg, value), "%s", msg);
    nvb_workload_free(w);
}

START_TEST(did_you_mean)
{
    expect_hint("runtim", "2s", "runtime");
    expect_hint("qdd", "8", "qd");
    expect_hint("engine", "iouring", "io_uring");
    expect_hint("engine", "libiao", "libaio");
    expect_hint("rw", "randrea", "randread");
    expect_hint("io_uring.sqpol", "1", "sqpoll");
    expect_hint("iouring.sqpoll", "1", "io_uring");
    expect_hint("blocksize", "4k", NULL);
    expect_hint("engine", "spdk", NULL);
    expect_hint("x", "1", NULL);
}
END_TEST

/* A fio option given as a key is answered with nvbench's key for it, not a bare "unknown key". */
START_TEST(fio_names_say_the_key)
{
    static const char *const cases[][3] = {
        {"iodepth", "32", "nvbench's key is qd"},
        {"numjobs", "4", "nvbench's key is jobs"},
        {"time_based", "1", "runtime"},
        {"blocksize", "4k", "nvbench's key is bs"},
        {"ioengine", "libaio", "nvbench's key is engine"},
        {"ramp_time", "2s", "nvbench's key is ramp"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct nvb_workload *w;
        ck_assert_int_eq(nvb_workload_new(&w), 0);
        ck_assert_int_eq(nvb_workload_set(w, cases[i][0], cases[i][1]), -EINVAL);
        const char *msg = nvb_workload_error(w);
        ck_assert_msg(strstr(msg, cases[i][0]) && strstr(msg, "fio's") && strstr(msg, cases[i][2]),
                      "%s=%s: '%s' does not say \"%s\"", cases[i][0], cases[i][1], msg, cases[i][2]);
        nvb_workload_free(w);
    }
}
END_TEST

START_TEST(bad_values_at_set)
{
    expect_set_fail("blocksize", "4k", -EINVAL);           /* unknown key */
    expect_set_fail("engine", "spdk", -EINVAL);            /* unknown engine */
    expect_set_fail("rw", "randomread", -EINVAL);          /* unknown rw */
    expect_set_fail("bs", "0", -ERANGE);
    expect_set_fail("bs", "4x", -EINVAL);
    expect_set_fail("bs", "-4k", -EINVAL);
    expect_set_fail("bs", "2G", -ERANGE);
    expect_set_fail("qd", "0", -ERANGE);
    expect_set_fail("qd", "1000000", -ERANGE);
    expect_set_fail("qd", "many", -EINVAL);
    expect_set_fail("jobs", "0", -ERANGE);
    expect_set_fail("size", "lots", -EINVAL);
    expect_set_fail("runtime", "2parsecs", -EINVAL);
    expect_set_fail("runtime", "-1s", -EINVAL);
    expect_set_fail("ramp", "soon", -EINVAL);
    expect_set_fail("interval", "1ms", -ERANGE);
    expect_set_fail("rwmix", "101", -ERANGE);
    expect_set_fail("rwmix", "-5", -EINVAL);
    expect_set_fail("direct", "maybe", -EINVAL);
    expect_set_fail("fill", "ones", -EINVAL);
    expect_set_fail("target_mode", "mixed", -EINVAL);
    expect_set_fail("cpus", "3-1", -EINVAL);
    expect_set_fail("io_uring.sqpoll", "2", -EINVAL);
    expect_set_fail("io_uring.nosuch", "1", -EINVAL);
    expect_set_fail("nosuchengine.opt", "1", -EINVAL);
    expect_set_fail("io_limit", "1.5", -EINVAL);
    expect_set_fail("ios", "1k", -EINVAL);
}
END_TEST

/* ------------------------------------------------------- the echo, back */

/* A value away from the default for every key of the key table: a key
 * added to the table without one here fails the test below. */
static const struct { const char *key, *value; } echo_vals[] = {
    {"engine", "null"}, {"rw", "randrw"}, {"rwmix", "70"}, {"rwmixtrim", "10"}, {"bs", "8k"}, {"qd", "4"},
    {"jobs", "2"}, {"size", "512k"}, {"offset", "4k"}, {"random_distribution", "zipf:1.2"}, {"random_map", "1"}, {"random_sequence_stride", "1"},
    {"runtime", "2.000000001s"}, {"ramp", "1ms"}, {"interval", "20ms"}, {"align_interval", "1"}, {"timeseries_max", "64"},
    {"io_limit", "64k"}, {"ios", "48"}, {"direct", "0"}, {"invalidate", "0"}, {"uncached", "1"}, {"atomic", "1"}, {"fua", "1"}, {"pi_act", "1"}, {"pi_chk", "GUARD,APPTAG"}, {"write_zeroes", "1"},
    {"apptag", "0xbeef"}, {"apptag_mask", "0xff00"}, {"md_per_io_size", "64"}, {"fill", "zero"},
    {"data_compress", "50"}, {"data_dedupe", "20"}, {"data_dedupe_set", "30"}, {"data_dedupe_global", "1"},
    {"verify_backlog", "8"}, {"seed", "18446744073709551615"}, {"rate_iops", "100000"},
    {"rate_mode", "closed"}, {"rate_process", "poisson"}, {"cpus", "0"}, {"allow_destructive", "1"},
    {"target_mode", "split"}, {"seq_start", "same"}, {"seq_stride", "-8k"},
    {"zone_range", "32k"}, {"zone_skip", "64k"}, {"blockalign", "4k"}, {"verify", "1"}, {"verify_readback", "1"},
    {"verify_pattern", "0xaa555aa5"}, {"continue_on_error", "1"}, {"bssplit", "4k/50:8k/50"},
    {"thinktime", "7us"}, {"thinktime_blocks", "3"}, {"flow", "8"}, {"ioprio_class", "3"}, {"ioprio", "5"},
    {"cmdprio_pct", "20"}, {"cmdprio_class", "2"}, {"cmdprio", "6"},
    {"cmdprio_bssplit", "64k/25/1/1:64k/75/3/2,1m/50"}, {"flow_id", "3"}, {"flow_sleep", "250us"},
    {"exitall", "step"}, {"exitall_group", "4"}, {"rate_period", "1024s"}, {"continue_errnos", "EIO:ENOSPC"},
    {"submit_batch", "2"}, {"complete_batch", "2"},
    {"name", "a \"quoted\" name"}, {"lat_include_errors", "1"}, {"io_timeout", "1.5s"}, {"fault.rate", "1/3"},
    {"fault.errno", "ENOSPC"}, {"fault.short", "0.1%"}, {"fault.delay", "1ms"}, {"fault.delay_rate", "0.5"},
    {"fault.seed", "99"}, {"precondition", "1"}, {"precondition.mode", "random"}, {"sprandom", "1"},
    {"sprandom.op", "0.28"}, {"sprandom.regions", "400"}, {"sprandom.cache", "1m"}, {"ss", "iops"},
    {"ss.window", "50ms"}, {"ss.excursion", "12.5"},
    {"ss.slope", "5"}, {"ss.stop", "1"}, {"startdelay", "1.5ms"},
    {"zone_mode", "zbd"}, {"zone_size", "1m"}, {"zone_capacity", "512k"}, {"max_open_zones", "4"},
    {"zone_reset_threshold", "0.7"}, {"zone_reset_frequency", "0.125"}, {"read_beyond_wp", "1"},
};

/* Every key of a as b shows it (nvb_workload_get), and the same echo. */
static void same_workload(const struct nvb_workload *a, const struct nvb_workload *b, const char *what)
{
    const char *key;
    for (size_t i = 0; (key = nvb__workload_key(i, NULL, NULL)); i++) {
        char va[2048], vb[2048];
        ck_assert_int_ge(nvb_workload_get(a, key, va, sizeof va), 0);
        ck_assert_int_ge(nvb_workload_get(b, key, vb, sizeof vb), 0);
        ck_assert_msg(!strcmp(va, vb), "%s: key %s was '%s', read back '%s'", what, key, va, vb);
    }
    struct nvb__buf ea = {0}, eb = {0};
    nvb__workload_json(a, &ea);
    nvb__workload_json(b, &eb);
    ck_assert_msg(ea.s && eb.s && !strcmp(ea.s, eb.s), "%s: echo\n%s\nread back as\n%s", what, ea.s, eb.s);
    free(ea.s);
    free(eb.s);
}

/* Every key round-trips through its result: set away from its default,
 * run, and read back from the result's echo (nvb_result_workload), from
 * the result's JSON loaded again, and from the echo text alone, it is the
 * value that was set, as the library shows it. (Python's reproduce command
 * once dropped every ss.* key: the echo renamed keys and the way back was
 * guessed.) */
START_TEST(every_key_round_trips_through_the_result)
{
    const char *key;
    for (size_t i = 0; (key = nvb__workload_key(i, NULL, NULL)); i++) {
        size_t v;
        for (v = 0; v < sizeof echo_vals / sizeof echo_vals[0]; v++)
            if (!strcmp(echo_vals[v].key, key))
                break;
        ck_assert_msg(v < sizeof echo_vals / sizeof echo_vals[0], "key %s has no value in echo_vals", key);
        struct nvb_workload *w;
        ck_assert_int_eq(nvb_workload_new(&w), 0);
        ck_assert_int_eq(nvb_workload_set(w, "engine", "null"), 0);
        ck_assert_int_eq(nvb_workload_add_target(w, g_file), 0);
        if (strcmp(key, "ios") && strcmp(key, "io_limit"))
            ck_assert_int_eq(nvb_workload_set(w, "ios", "32"), 0);
        ck_assert_msg(nvb_workload_set(w, key, echo_vals[v].value) == 0, "%s=%s: %s", key, echo_vals[v].value,
                      nvb_workload_error(w));
        char def[2048], now[2048];
        struct nvb_workload *d;
        ck_assert_int_eq(nvb_workload_new(&d), 0);
        ck_assert_int_ge(nvb_workload_get(d, key, def, sizeof def), 0);
        ck_assert_int_ge(nvb_workload_get(w, key, now, sizeof now), 0);
        ck_assert_msg(strcmp(def, now), "%s=%s is the default", key, echo_vals[v].value);
        nvb_workload_free(d);
        /* the workload that ran: runtime, when not given beside ios or io_limit, is no time bound (0) */
        if (strcmp(key, "runtime"))
            ck_assert_int_eq(nvb_workload_set(w, "runtime", "0"), 0);

        struct nvb_result *r = NULL, *loaded = NULL;
        nvb_run(w, NULL, &r); /* refused or not (verify=1 beside fault.rate), the result echoes the workload */
        ck_assert_ptr_nonnull(r);
        struct nvb_workload *back = NULL;
        char why[256] = "";
        ck_assert_msg(nvb_result_workload(r, &back, why, sizeof why) == 0, "%s: %s", key, why);
        same_workload(w, back, key);
        nvb_workload_free(back);

        char *json = NULL;
        ck_assert_int_eq(nvb_result_json(r, &json), 0);
        ck_assert_msg(nvb_result_parse(json, strlen(json), &loaded, why, sizeof why) == 0, "%s: %s", key, why);
        ck_assert_msg(nvb_result_workload(loaded, &back, why, sizeof why) == 0, "%s (loaded): %s", key, why);
        same_workload(w, back, key);
        nvb_workload_free(back);
        nvb_result_free(loaded);
        nvb_free(json);
        nvb_result_free(r);
        nvb_workload_free(w);
    }
}
END_TEST

/* The echo alone: targets and engine options come back too; a member that
 * is no key, or a value of the wrong kind, is refused by name. */
START_TEST(workload_from_echo_text)
{
    struct nvb_workload *w, *back = NULL;
    ck_assert_int_eq(nvb_workload_new(&w), 0);
    ck_assert_int_eq(nvb_workload_set(w, "io_uring.sqpoll_cpu", "3"), 0);
    ck_assert_int_eq(nvb_workload_set(w, "ios", "10"), 0);
    ck_assert_int_eq(nvb_workload_add_target(w, "/a b"), 0);
    ck_assert_int_eq(nvb_workload_add_target(w, "./c=d"), 0);
    struct nvb__buf b = {0};
    nvb__workload_json(w, &b);
    char why[256];
    ck_assert_msg(nvb_workload_from_json(b.s, b.len, &back, why, sizeof why) == 0, "%s", why);
    char v[64];
    ck_assert_int_eq(nvb_workload_get(back, "io_uring.sqpoll_cpu", v, sizeof v), 1);
    ck_assert_str_eq(v, "3");
    ck_assert_str_eq(nvb__workload_engine_opt(back, 0), "io_uring.sqpoll_cpu");
    ck_assert_ptr_null(nvb__workload_engine_opt(back, 1));
    ck_assert_str_eq(nvb__workload_target(back, 0), "/a b");
    ck_assert_str_eq(nvb__workload_target(back, 1), "./c=d");
    ck_assert_ptr_null(nvb__workload_target(back, 2));
    ck_assert_int_eq(nvb_workload_get(back, "runtime", v, sizeof v), 2);
    ck_assert_str_eq(v, "0s"); /* ios alone bounded the run */
    nvb_workload_free(back);
    free(b.s);
    nvb_workload_free(w);

    static const struct { const char *json, *must; int err; } bad[] = {
        {"{\"bogus\":1}", "'bogus'", -EINVAL},
        {"{\"ss\":{\"excursion\":5}}", "'ss.excursion'", -EINVAL}, /* the key's name is not its echo name */
        {"{\"runtime\":1}", "'runtime'", -EINVAL},
        {"{\"qd\":\"4\"}", "'qd'", -EINVAL},
        {"{\"ss\":{\"metric\":\"fast\"}}", "fast", -EINVAL},
        {"{\"qd\":0}", "'qd'", -ERANGE},
        {"{\"engine_opts\":{\"qd\":\"4\"}}", "engine_opts", -EINVAL},
        {"[]", "object", -EINVAL},
        {"{\"qd\":", "not JSON", -EINVAL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        back = (struct nvb_workload *)1;
        int rc = nvb_workload_from_json(bad[i].json, strlen(bad[i].json), &back, why, sizeof why);
        ck_assert_msg(rc == bad[i].err, "%s: %d (%s)", bad[i].json, rc, why);
        ck_assert_ptr_null(back);
        ck_assert_msg(strstr(why, bad[i].must), "%s: '%s' lacks %s", bad[i].json, why, bad[i].must);
    }
}
END_TEST

/* ------------------------------------------------------- run-time checks */


/* Both nvb_workload_validate() and nvb_run() refuse the workload with err,
 * name `key_or_path` and `value` in the message, and create/write nothing. */
static void expect_run_fail(const char *const *kv, const char *const *targets, int err, const char *must1,
                            const char *must2)
{
    struct nvb_workload *w;
    ck_assert_int_eq(nvb_workload_new(&w), 0);
    for (; kv && kv[0]; kv += 2)
        ck_assert_msg(nvb_workload_set(w, kv[0], kv[1]) == 0, "set %s=%s: %s", kv[0], kv[1], nvb_workload_error(w));
    for (; targets && *targets; targets++)
        ck_assert_int_eq(nvb_workload_add_target(w, *targets), 0);
    uint64_t sum = tu_file_sum(g_file);
    int rc = nvb_workload_validate(w);
    const char *msg = nvb_workload_error(w);
    ck_assert_msg(rc == err, "validate returned %d (%s), expected %d", rc, msg, err);
    if (must1)
        ck_assert_msg(strstr(msg, must1), "message '%s' lacks '%s'", msg, must1);
    if (must2)
        ck_assert_msg(strstr(msg, must2), "message '%s' lacks '%s'", msg, must2);
    struct nvb_result *r = NULL;
    rc = nvb_run(w, NULL, &r);
    ck_assert_int_eq(rc, err);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(nvb_result_errno(r), err);
    if (must1)
        ck_assert_msg(strstr(nvb_result_error(r), must1), "result error '%s' lacks '%s'", nvb_result_error(r), must1);
    char *json = NULL;
    ck_assert_int_eq(nvb_result_json(r, &json), 0);
    ck_assert_ptr_nonnull(strstr(json, "\"error\":{"));
    nvb_free(json);
    nvb_result_free(r);
    ck_assert_msg(tu_file_sum(g_file) == sum, "target file modified by a refused workload");
    ck_assert_int_eq(tu_count_entries(g_dir), 0);
    nvb_workload_free(w);
}

/* The refusal says what was expected, in the same words for every key of
 * a kind. */
START_TEST(refusals_say_what_was_expected)
{
    static const char *const cases[][3] = {
        {"bs", "4x", "invalid size '4x' for key 'bs' (examples: 4k, 1M, 2G)"},
        {"runtime", "2x", "invalid duration '2x' for key 'runtime' (examples: 500ms, 2s, 1m)"},
        {"fault.delay", "1.5ns", "invalid duration '1.5ns' for key 'fault.delay': finer than 1 ns (durations are whole nanoseconds)"},
        {"qd", "x", "invalid value 'x' for key 'qd': expected a non-negative integer"},
        {"seed", "-1", "invalid value '-1' for key 'seed': expected a non-negative integer"},
        {"rw", "x", "invalid value 'x' for key 'rw': expected one of read, write, randread, randwrite, randrw, rw"},
        {"engine", "x", "unknown engine 'x' for key 'engine' (known: psync, "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct nvb_workload *w;
        ck_assert_int_eq(nvb_workload_new(&w), 0);
        ck_assert_int_eq(nvb_workload_set(w, cases[i][0], cases[i][1]), -EINVAL);
        const char *msg = nvb_workload_error(w);
        ck_assert_msg(!strncmp(msg, cases[i][2], strlen(cases[i][2])), "'%s', not '%s'", msg, cases[i][2]);
        nvb_workload_free(w);
    }
}
END_TEST

START_TEST(bad_workloads_at_run)
{
    const char *file[] = {g_file, NULL};
    const char *dir[] = {g_dir, NULL};
    /* bs not a multiple of the logical block size with direct I/O */
    expect_run_fail((const char *[]){"rw", "randwrite", "bs", "1000", NULL}, file, -EINVAL, "bs", "1000");
    expect_run_fail((const char *[]){"rw", "randwrite", "bs", "1000", "size", "64k", NULL}, dir, -EINVAL, "bs", "1000");
    /* bs larger than the region */
    expect_run_fail((const char *[]){"rw", "randwrite", "bs", "64k", "size", "8k", NULL}, file, -EINVAL, "bs", "64k");
    expect_run_fail((const char *[]){"rw", "write", "bs", "2M", NULL}, file, -EINVAL, "bs", "2M");
    /* region beyond the end */
    expect_run_fail((const char *[]){"rw", "write", "offset", "2M", NULL}, file, -EINVAL, "offset", "2097152");
    expect_run_fail((const char *[]){"rw", "write", "size", "4M", NULL}, file, -EINVAL, "size", NULL);
    /* runtime zero without a bound */
    expect_run_fail((const char *[]){"rw", "randwrite", "runtime", "0", NULL}, file, -EINVAL, "runtime", "0");
    /* both bounds */
    expect_run_fail((const char *[]){"rw", "randwrite", "ios", "10", "io_limit", "40k", NULL}, file, -EINVAL,
                    "io_limit", "ios");
    /* io_limit not a multiple of bs */
    expect_run_fail((const char *[]){"rw", "randwrite", "io_limit", "6k", NULL}, file, -EINVAL, "io_limit", "6k");
    /* no targets */
    expect_run_fail((const char *[]){"rw", "randwrite", NULL}, NULL, -EINVAL, "targets", NULL);
    /* missing target, next to an existing one: nothing written to either */
    char missing[512];
    snprintf(missing, sizeof missing, "%s/does-not-exist", g_dir);
    expect_run_fail((const char *[]){"rw", "randwrite", NULL}, (const char *[]){g_file, missing, NULL}, -ENOENT,
                    missing, NULL);
    /* not a file, device or directory */
    expect_run_fail((const char *[]){"rw", "randread", NULL}, (const char *[]){"/dev/null", NULL}, -EINVAL,
                    "/dev/null", NULL);
    /* a CPU that does not exist */
    expect_run_fail((const char *[]){"rw", "randwrite", "cpus", "1000", NULL}, file, -EINVAL, "cpus", "1000");
    /* an option the kernel/engine cannot honour is refused, not ignored */
    char why[256];
    if (nvb_engine_probe("io_uring", why, sizeof why) == 0) {
        struct nvb_workload *w;
        ck_assert_int_eq(nvb_workload_new(&w), 0);
        nvb_workload_set(w, "engine", "io_uring");
        nvb_workload_set(w, "direct", "0");
        nvb_workload_set(w, "io_uring.iopoll", "1");
        nvb_workload_set(w, "rw", "randwrite");
        nvb_workload_set(w, "ios", "10");
        nvb_workload_add_target(w, g_file);
        uint64_t sum = tu_file_sum(g_file);
        struct nvb_result *r = NULL;
        int rc = nvb_run(w, NULL, &r);
        ck_assert_int_eq(rc, -ENOTSUP);
        ck_assert_msg(strstr(nvb_result_error(r), "iopoll"), "message '%s'", nvb_result_error(r));
        ck_assert(tu_file_sum(g_file) == sum);
        nvb_result_free(r);
        nvb_workload_free(w);
    }
}
END_TEST

START_TEST(unavailable_engine_is_refused)
{
    char why[256];
    for (int i = 0; i < nvb_engine_count(); i++) {
        const char *name = nvb_engine_name(i);
        if (nvb_engine_probe(name, why, sizeof why) == 0)
            continue;
        ck_assert_msg(why[0], "engine %s unavailable without a reason", name);
        struct nvb_workload *w;
        nvb_workload_new(&w);
        ck_assert_int_eq(nvb_workload_set(w, "engine", name), 0);
        nvb_workload_add_target(w, g_file);
        ck_assert_int_lt(nvb_workload_validate(w), 0);
        ck_assert_ptr_nonnull(strstr(nvb_workload_error(w), name));
        nvb_workload_free(w);
    }
    ck_assert_int_eq(nvb_engine_probe("nosuch", why, sizeof why), -ENOENT);
}
END_TEST

/* Without permission: run as an unprivileged user in a child process. */
START_TEST(target_without_permission)
{
    if (!tu_is_root()) {
        /* as a normal user a mode-000 file is enough */
        char *p = tu_scratch("noperm", 65536);
        chmod(p, 0);
        struct nvb_workload *w;
        nvb_workload_new(&w);
        nvb_workload_add_target(w, p);
        ck_assert_int_eq(nvb_workload_validate(w), -EACCES);
        ck_assert_ptr_nonnull(strstr(nvb_workload_error(w), p));
        nvb_workload_free(w);
        unlink(p);
        free(p);
        return;
    }
    /* under /tmp: the refusal must come from the file's mode, not from a
     * build tree user 65534 cannot enter */
    char *dir = tu_mkdtemp_public("noperm");
    char *p = malloc(strlen(dir) + 16);
    ck_assert_ptr_nonnull(p);
    sprintf(p, "%s/target", dir);
    int fd = open(p, O_CREAT | O_WRONLY, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, 65536), 0);
    close(fd);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        if (setgid(65534) || setuid(65534))
            _exit(3);
        struct nvb_workload *w;
        nvb_workload_new(&w);
        nvb_workload_add_target(w, p);
        int rc = nvb_workload_validate(w);
        int named = strstr(nvb_workload_error(w), p) != NULL;
        struct nvb_result *r = NULL;
        int rc2 = nvb_run(w, NULL, &r);
        _exit(rc == -EACCES && rc2 == -EACCES && named ? 0 : 1);
    }
    int st;
    waitpid(pid, &st, 0);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) != 3, "could not drop privileges");
    ck_assert_msg(WEXITSTATUS(st) == 0, "unprivileged run was not refused with EACCES naming the path");
    unlink(p);
    rmdir(dir);
    free(p);
    free(dir);
}
END_TEST

/* Writing to a block device needs allow_destructive=1. */
START_TEST(block_device_write_guard)
{
    if (!tu_is_root() || system("command -v losetup >/dev/null 2>&1") != 0) {
        fprintf(stderr, "note: block device guard case needs root and losetup; skipped\n");
        return;
    }
    char *img = tu_scratch("guard.img", 4 << 20);
    char cmd[600], dev[64] = "";
    snprintf(cmd, sizeof cmd, "losetup -f --show '%s'", img);
    FILE *f = popen(cmd, "r");
    if (!f || !fgets(dev, sizeof dev, f)) {
        if (f)
            pclose(f);
        unlink(img);
        fprintf(stderr, "note: losetup failed; guard case skipped\n");
        return;
    }
    pclose(f);
    dev[strcspn(dev, "\n")] = 0;
    uint64_t before = tu_file_sum(img);
    struct nvb_workload *w;
    nvb_workload_new(&w);
    nvb_workload_set(w, "rw", "randwrite");
    nvb_workload_set(w, "ios", "16");
    nvb_workload_add_target(w, dev);
    int rc = nvb_workload_validate(w);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", nvb_workload_error(w));
    struct nvb_result *r = NULL;
    int rc2 = nvb_run(w, NULL, &r);
    nvb_result_free(r);
    /* reading is allowed */
    nvb_workload_set(w, "rw", "randread");
    int rc3 = nvb_run(w, NULL, &r);
    uint64_t reads = r ? nvb_result_ios(r, NVB_READ) : 0;
    nvb_result_free(r);
    /* and with the flag, writing is */
    nvb_workload_set(w, "rw", "randwrite");
    nvb_workload_set(w, "allow_destructive", "1");
    int rc4 = nvb_run(w, NULL, &r);
    uint64_t writes = r ? nvb_result_ios(r, NVB_WRITE) : 0;
    nvb_result_free(r);
    nvb_workload_free(w);
    snprintf(cmd, sizeof cmd, "losetup -d %s", dev);
    ck_assert_int_eq(system(cmd), 0);
    uint64_t after_refused = before; /* the refused runs happened before rc4 */
    (void)after_refused;
    unlink(img);
    free(img);
    ck_assert_int_eq(rc, -EPERM);
    ck_assert_msg(strstr(msg, "allow_destructive") && strstr(msg, dev), "message '%s'", msg);
    ck_assert_int_eq(rc2, -EPERM);
    ck_assert_int_eq(rc3, 0);
    ck_assert_uint_eq(reads, 16);
    ck_assert_int_eq(rc4, 0);
    ck_assert_uint_eq(writes, 16);
}
END_TEST

/* The key table through the public API: every key described in every
 * column the front doors read, the same list the bindings walk, engine
 * options described by their engine, and every default the docs state as
 * a value is the value of a new workload (the docs' column cannot drift
 * from nvb_workload_new). */
START_TEST(key_table_describes_every_key)
{
    const char *fields[16];
    size_t nfields = 0;
    while ((fields[nfields] = nvb_workload_key_field(nfields)))
        ck_assert_uint_lt(++nfields, 16);
    ck_assert_uint_eq(nfields, 10);
    const char *key;
    size_t i;
    struct nvb_workload *fresh;
    ck_assert_int_eq(nvb_workload_new(&fresh), 0);
    for (i = 0; (key = nvb_workload_key(i)); i++) {
        ck_assert_str_eq(key, nvb__workload_key(i, NULL, NULL));
        for (size_t f = 0; f < nfields; f++)
            ck_assert_msg(nvb_workload_key_info(key, fields[f]), "%s has no %s", key, fields[f]);
        ck_assert_msg(*nvb_workload_key_info(key, "help") && *nvb_workload_key_info(key, "group") &&
                      *nvb_workload_key_info(key, "type") && *nvb_workload_key_info(key, "echo"),
                      "%s: a required column is empty", key);
        ck_assert_msg(!strchr(nvb_workload_key_info(key, "help"), '\n'), "%s: help is one line", key);
        const char *m = nvb_workload_key_info(key, "measures");
        ck_assert_msg(!strcmp(m, "0") || !strcmp(m, "1"), "%s measures '%s'", key, m);
        /* a stated default that is a value: the value of a new workload */
        char dflt[256], want[2048], got[2048];
        const char *d = nvb_workload_key_info(key, "default");
        size_t n = 0;
        for (; *d && n + 1 < sizeof dflt; d++)
            if (*d != '`')
                dflt[n++] = *d;
        dflt[n] = 0;
        if (!strcmp(dflt, "\"\""))
            dflt[0] = 0;
        struct nvb_workload *w;
        ck_assert_int_eq(nvb_workload_new(&w), 0);
        if (*nvb_workload_key_info(key, "default") && nvb_workload_set(w, key, dflt) == 0) {
            ck_assert_int_ge(nvb_workload_get(fresh, key, want, sizeof want), 0);
            ck_assert_int_ge(nvb_workload_get(w, key, got, sizeof got), 0);
            ck_assert_msg(!strcmp(want, got), "%s: the docs' default '%s' is not the default '%s'", key, dflt, want);
        }
        nvb_workload_free(w);
        /* its fio name, given as a key, names it */
        const char *fio = nvb_workload_key_info(key, "fio");
        if (*fio && strcmp(fio, key)) {
            ck_assert_int_eq(nvb_workload_new(&w), 0);
            ck_assert_int_eq(nvb_workload_set(w, fio, "1"), -EINVAL);
            char say[128];
            snprintf(say, sizeof say, "nvbench's key is %s", key);
            ck_assert_msg(strstr(nvb_workload_error(w), say), "%s: %s", fio, nvb_workload_error(w));
            nvb_workload_free(w);
        }
    }
    nvb_workload_free(fresh);
    ck_assert_ptr_null(nvb__workload_key(i, NULL, NULL));
    ck_assert_ptr_null(nvb_workload_key_info("no_such_key", "help"));
    ck_assert_ptr_null(nvb_workload_key_info("bs", "no_such_column"));
    ck_assert_ptr_null(nvb_workload_key_info(NULL, "help"));
    /* engine options: listed by their engine, described by its table */
    size_t opts = 0;
    for (int e = 0; e < nvb_engine_count(); e++)
        for (size_t o = 0; (key = nvb_engine_option(e, o)); o++, opts++) {
            char full[96];
            snprintf(full, sizeof full, "%s.%s", nvb_engine_name(e), key);
            ck_assert_str_eq(nvb_workload_key_info(full, "group"), "engine");
            ck_assert_msg(*nvb_workload_key_info(full, "type"), "%s has no type", full);
            ck_assert_msg(*nvb_workload_key_info(full, "help"), "%s has no help", full);
        }
    ck_assert_uint_gt(opts, 0);
    ck_assert_ptr_null(nvb_engine_option(-1, 0));
    ck_assert_ptr_null(nvb_engine_option(nvb_engine_count(), 0));
}
END_TEST

/* startdelay: the jobs wait before their first I/O, and the run's window
 * (its start time in the result) begins only after the wait; a cancel ends
 * the wait. Bounded from below only: a wait of at least the delay. */
START_TEST(startdelay_waits_before_the_window)
{
    struct nvb_workload *w;
    ck_assert_int_eq(nvb_workload_new(&w), 0);
    ck_assert_int_eq(nvb_workload_set(w, "engine", "null"), 0);
    ck_assert_int_eq(nvb_workload_add_target(w, g_file), 0);
    ck_assert_int_eq(nvb_workload_set(w, "ios", "64"), 0);
    ck_assert_int_eq(nvb_workload_set(w, "startdelay", "200ms"), 0);
    struct timespec t0;
    clock_gettime(CLOCK_REALTIME, &t0);
    struct nvb_result *r = NULL;
    ck_assert_int_eq(nvb_run(w, NULL, &r), 0);
    double start;
    ck_assert_int_eq(nvb_result_get(r, "start_unix_ns", &start), 0);
    double before = (double)t0.tv_sec * 1e9 + (double)t0.tv_nsec;
    ck_assert_msg(start - before >= 200e6 - 1e3, "the window started %.0f ns after the call, before the delay",
                  start - before);
    ck_assert_uint_eq(nvb_result_ios(r, NVB_READ), 64);
    nvb_result_free(r);

    /* a day's delay, cancelled: the run returns, cancelled, with no I/O */
    ck_assert_int_eq(nvb_workload_set(w, "startdelay", "24h"), 0);
    struct nvb_cancel *c;
    ck_assert_int_eq(nvb_cancel_new(&c), 0);
    nvb_cancel_request(c);
    struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
    o.cancel = c;
    r = NULL;
    nvb_run(w, &o, &r);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(nvb_result_cancelled(r), 1);
    ck_assert_uint_eq(nvb_result_ios(r, NVB_READ), 0);
    nvb_result_free(r);
    nvb_cancel_free(c);
    nvb_workload_free(w);
}
END_TEST

/* nvb_workload_key_parse: the number a key's value stands for, and the
 * refusal nvb_workload_set() gives, word for word. */
START_TEST(key_parse_is_the_setter)
{
    static const struct {
        const char *key, *text;
        uint64_t want;
    } ok[] = {
        {"size", "4k", 4096}, {"size", "1.5G", 3ull << 29}, {"bs", "64KiB", 65536}, {"size", "512", 512},
        {"runtime", "500ms", 500000000ull}, {"runtime", "2", 2000000000ull}, {"ramp", "1m", 60000000000ull},
        {"thinktime", "100", 100000ull}, {"qd", "32", 32}, {"precondition", "random", 1},
        {"seq_stride", "-8k", (uint64_t)-8192},
    };
    char why[256];
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        uint64_t v = 7;
        int rc = nvb_workload_key_parse(ok[i].key, ok[i].text, &v, why, sizeof why);
        ck_assert_msg(rc == 0 && v == ok[i].want, "%s=%s: rc %d, %llu (%s)", ok[i].key, ok[i].text, rc,
                      (unsigned long long)v, why);
    }
    static const struct {
        const char *key, *text;
    } bad[] = {
        {"size", "4q"}, {"bs", "0"}, {"runtime", "5 fortnights"}, {"runtime", "1.5ns"}, {"qd", "-1"},
        {"sise", "4k"}, {"rw", "read"}, {"direct", "1"}, {"size", "99999999999999999999"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t v = 7;
        struct nvb_workload *w;
        ck_assert_int_eq(nvb_workload_new(&w), 0);
        int set = nvb_workload_set(w, bad[i].key, bad[i].text);
        int rc = nvb_workload_key_parse(bad[i].key, bad[i].text, &v, why, sizeof why);
        ck_assert_msg(rc < 0 && v == 7, "%s=%s accepted (%d)", bad[i].key, bad[i].text, rc);
        ck_assert_msg(strstr(why, bad[i].key) && strstr(why, bad[i].text), "'%s' names neither", why);
        if (set < 0) /* a value the setter refuses: its very words */
            ck_assert_str_eq(why, nvb_workload_error(w));
        nvb_workload_free(w);
    }
    uint64_t v;
    ck_assert_int_eq(nvb_workload_key_parse("size", NULL, &v, why, sizeof why), -EINVAL);
    ck_assert_int_eq(nvb_workload_key_parse(NULL, "4k", &v, NULL, 0), -EINVAL);
    ck_assert_int_eq(nvb_workload_key_parse("size", "4k", NULL, why, sizeof why), -EINVAL);
    ck_assert_int_eq(nvb_workload_key_parse("size", "4q", &v, why, 8), -EINVAL); /* cut, terminated */
    ck_assert_uint_eq(strlen(why), 7);
    ck_assert_int_eq(nvb_workload_key_parse("size", "99999999999999999999", &v, NULL, 0), -ERANGE);
}
END_TEST

int main(void)
{
    g_file = tu_scratch("wl-data", 1 << 20);
    g_dir = tu_mkdtemp("wl-dir");
    Suite *s = suite_create("workload");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, parse_sizes);
    tcase_add_test(tc, parse_durations);
    tcase_add_test(tc, parse_durations_exactly);
    tcase_add_test(tc, parse_ints);
    tcase_add_test(tc, refusals_say_what_was_expected);
    tcase_add_test(tc, parse_cpulist);
    suite_add_tcase(s, tc);
    tc = tcase_create("keys");
    tcase_add_test(tc, defaults_and_roundtrip);
    tcase_add_test(tc, duration_keys_round_trip);
    tcase_add_test(tc, bad_values_at_set);
    tcase_add_test(tc, did_you_mean);
    tcase_add_test(tc, fio_names_say_the_key);
    tcase_add_test(tc, every_key_round_trips_through_the_result);
    tcase_add_test(tc, workload_from_echo_text);
    tcase_add_test(tc, key_table_describes_every_key);
    tcase_add_test(tc, key_parse_is_the_setter);
    tcase_add_test(tc, startdelay_waits_before_the_window);
    suite_add_tcase(s, tc);
    tc = tcase_create("validate");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, bad_workloads_at_run);
    tcase_add_test(tc, unavailable_engine_is_refused);
    tcase_add_test(tc, target_without_permission);
    tcase_add_test(tc, block_device_write_guard);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    unlink(g_file);
    rmdir(g_dir);
    free(g_file);
    free(g_dir);
    return failed ? 1 : 0;
}
