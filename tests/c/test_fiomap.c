/*
 * The fio job-file mapping (nvb_fiomap_*): fio's values as fio 3.33 reads
 * them, each job's keys and targets, steps at stonewalls and read-backs,
 * refusals naming the section and the option, lenient drops with their
 * warnings, names made distinct, and the API's bounds.
 *
 * `test_fiomap dump JOBFILE [lenient]` prints the map of a job file in the
 * form tests/python/test_fio_job.py compares with Python's and Lua's.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvbench.h"
#include "testutil.h"

static char *dir;
static char why[1024];

static void setup(void) { dir = tu_mkdtemp("fiomap"); }
static void teardown(void)
{
    tu_sh("rm -rf '%s'", dir);
    free(dir);
}

/* The map of a job file, or NULL with the message in why and *rc. */
static struct nvb_fiomap *map_file(const char *path, unsigned flags, int *rc)
{
    struct nvb_fiojob *f = NULL;
    struct nvb_fiomap *m = NULL;
    *rc = nvb_fiojob_read(path, NULL, &f, why, sizeof why);
    if (*rc == 0)
        *rc = nvb_fiomap_new(f, path, flags, &m, why, sizeof why);
    nvb_fiojob_free(f);
    return m;
}

static struct nvb_fiomap *map_text(const char *text, unsigned flags, int *rc)
{
    char path[600];
    snprintf(path, sizeof path, "%s/t.fio", dir);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    return map_file(path, flags, rc);
}

static const char *key(const struct nvb_fiomap *m, size_t w, const char *name, const char **origin)
{
    for (size_t k = 0; k < nvb_fiomap_count(m, w, NVB_FIOMAP_KEYS); k++) {
        const char *v, *o, *n = nvb_fiomap_item(m, w, NVB_FIOMAP_KEYS, k, &v, &o);
        if (strcmp(n, name) == 0) {
            if (origin)
                *origin = o;
            return v;
        }
    }
    return NULL;
}

#define KEY_EQ(m, w, name, want) ck_assert_str_eq(key(m, w, name, NULL) ? key(m, w, name, NULL) : "(none)", want)

/* ------------------------------------------------------------------ values */

START_TEST(sizes_and_times)
{
    static const struct { const char *text; unsigned base; uint64_t want; } ok[] = {
        {"4k", 1024, 4096}, {"1K", 1024, 1024}, {"1kb", 1024, 1024}, {"1ki", 1024, 1024}, {"1kib", 1024, 1000},
        {"1MiB", 1024, 1000000}, {"1m", 1024, 1 << 20}, {"2g", 1024, 2ull << 30}, {"3t", 1024, 3ull << 40},
        {"0x400", 1024, 1024}, {"1000b", 1024, 1000}, {"512", 1024, 512}, {"1k", 1000, 1000},
        {"1KiB", 1000, 1024}, {"1m", 1000, 1000000},
    };
    uint64_t v;
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        ck_assert_msg(nvb_fiomap_size(ok[i].text, ok[i].base, &v, why, sizeof why) == 0, "%s: %s", ok[i].text, why);
        ck_assert_uint_eq(v, ok[i].want);
    }
    static const char *const bad[] = {"1.5k", "k", "4x", "1ib", "", "-1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(nvb_fiomap_size(bad[i], 1024, &v, why, sizeof why), -EINVAL);
        ck_assert_ptr_nonnull(strstr(why, "not a size"));
    }
    ck_assert_int_eq(nvb_fiomap_size("99999999999p", 1024, &v, why, sizeof why), -EINVAL);
    ck_assert_ptr_nonnull(strstr(why, "2^63 - 1 bytes"));
    static const struct { const char *text, *unit; uint64_t want; } t[] = {
        {"30", "s", 30000000000ull}, {"500ms", "s", 500000000}, {"500msec", "s", 500000000},
        {"2m", "s", 120000000000ull}, {"1h", "s", 3600000000000ull}, {"1d", "s", 86400000000000ull},
        {"1.5s", "s", 1500000000}, {"50", "us", 50000}, {"10usec", "s", 10000}, {".5", "s", 500000000},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        ck_assert_msg(nvb_fiomap_time(t[i].text, t[i].unit, &v, why, sizeof why) == 0, "%s: %s", t[i].text, why);
        ck_assert_uint_eq(v, t[i].want);
    }
    ck_assert_int_eq(nvb_fiomap_time("5 fortnights", "s", &v, why, sizeof why), -EINVAL);
    ck_assert_ptr_nonnull(strstr(why, "not a time"));
}
END_TEST

/* ------------------------------------------------------------------ jobs */

START_TEST(one_job_key_by_key)
{
    char path[600];
    int rc;
    snprintf(path, sizeof path, "%s/tests/data/fio_jobs/randread-4k-qd32.fio", NVB_SOURCE_DIR);
    struct nvb_fiomap *m = map_file(path, 0, &rc);
    ck_assert_msg(m != NULL, "%d %s", rc, why);
    ck_assert_uint_eq(nvb_fiomap_workloads(m), 1);
    static const char *const want[][2] = {{"engine", "libaio"}, {"name", "randread-4k"}, {"rw", "randread"},
                                          {"direct", "1"}, {"bs", "4096"}, {"qd", "32"}, {"jobs", "1"},
                                          {"random_map", "0"}, {"runtime", "30000000000ns"}};
    ck_assert_uint_eq(nvb_fiomap_count(m, 0, NVB_FIOMAP_KEYS), sizeof want / sizeof want[0]);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        KEY_EQ(m, 0, want[i][0], want[i][1]);
    const char *origin;
    key(m, 0, "qd", &origin);
    ck_assert_str_eq(origin, "iodepth");
    ck_assert_uint_eq(nvb_fiomap_count(m, 0, NVB_FIOMAP_TARGETS), 1);
    ck_assert_str_eq(nvb_fiomap_item(m, 0, NVB_FIOMAP_TARGETS, 0, NULL, NULL), "/dev/nvme0n1");
    ck_assert_uint_eq(nvb_fiomap_count(m, 0, NVB_FIOMAP_WARNINGS), 0);
    nvb_fiomap_free(m);
}
END_TEST

START_TEST(steps_read_back_and_names)
{
    int rc;
    struct nvb_fiomap *m = map_text("[global]\nioengine=null\nsize=1m\n[w]\nrw=write\nverify=crc32c\n"
                                    "[r]\nstonewall\nrw=read\n[r]\nrw=read\n",
                                    0, &rc);
    ck_assert_msg(m != NULL, "%d %s", rc, why);
    ck_assert_uint_eq(nvb_fiomap_workloads(m), 4);
    static const int steps[] = {0, 1, 2, 2};
    static const char *const names[] = {"w", "w verify", "r", "r #2"};
    for (size_t w = 0; w < 4; w++) {
        ck_assert_int_eq(nvb_fiomap_step(m, w), steps[w]);
        KEY_EQ(m, w, "name", names[w]);
    }
    KEY_EQ(m, 1, "rw", "read");
    KEY_EQ(m, 1, "verify", "1");
    ck_assert_str_eq(nvb_fiomap_section(m, 3), "r");
    ck_assert_ptr_nonnull(strstr(nvb_fiomap_item(m, 3, NVB_FIOMAP_WARNINGS, 0, NULL, NULL), "'r #2'"));
    ck_assert_int_eq(nvb_fiomap_step(m, 4), -EINVAL);
    ck_assert_ptr_null(nvb_fiomap_section(m, 4));
    ck_assert_ptr_null(nvb_fiomap_item(m, 0, NVB_FIOMAP_KEYS, 99, NULL, NULL));
    nvb_fiomap_free(m);
}
END_TEST

START_TEST(refused_or_left_out)
{
    int rc;
    const char *text = "[global]\nioengine=null\nsize=1m\n[sec]\nbs=4k,8k\nfsync=4\n";
    struct nvb_fiomap *m = map_text(text, 0, &rc);
    ck_assert_ptr_null(m);
    ck_assert_int_eq(rc, -EINVAL);
    ck_assert_msg(strstr(why, "section [sec]: fio option 'bs': different values per direction"), "%s", why);
    m = map_text(text, NVB_FIOMAP_LENIENT, &rc);
    ck_assert_msg(m != NULL, "%s", why);
    ck_assert_ptr_null(key(m, 0, "bs", NULL));
    ck_assert_uint_eq(nvb_fiomap_count(m, 0, NVB_FIOMAP_DROPPED), 2);
    ck_assert_str_eq(nvb_fiomap_item(m, 0, NVB_FIOMAP_DROPPED, 0, NULL, NULL), "bs");
    ck_assert_str_eq(nvb_fiomap_item(m, 0, NVB_FIOMAP_DROPPED, 1, NULL, NULL), "fsync");
    ck_assert_ptr_nonnull(strstr(nvb_fiomap_item(m, 0, NVB_FIOMAP_WARNINGS, 1, NULL, NULL),
                                 "option 'fsync' not honoured: nvbench issues no fsync between writes"));
    nvb_fiomap_free(m);
    /* refused even when lenient: without it the run would be another one */
    m = map_text("[sec]\nioengine=windowsaio\nsize=1m\n", NVB_FIOMAP_LENIENT, &rc);
    ck_assert_ptr_null(m);
    ck_assert_msg(strstr(why, "fio option 'ioengine': 'windowsaio'"), "%s", why);
    /* a control character of the file is shown, never obeyed */
    m = map_text("[s\x1b[2J]\nioengine=null\nsize=1m\nrw=bogus\n", 0, &rc);
    ck_assert_ptr_null(m);
    ck_assert_msg(strstr(why, "[s\\x1b[2J]") && !strchr(why, 0x1b), "%s", why);
}
END_TEST

/* issue 26: options fio's own examples use, with fio 3.33's meaning */
START_TEST(options_of_fios_examples)
{
    int rc;
    struct nvb_fiomap *m = map_text("[global]\nioengine=sync\nfilename=g1\nsize=64k\n[j]\nrw=write\nfilename=f1\n"
                                    "filename=f2\ntimeout=2\nrate=8k\nbs=4k\nnumjobs=1\ngtod_reduce\n",
                                    0, &rc);
    ck_assert_msg(m != NULL, "%s", why);
    const char *origin;
    KEY_EQ(m, 0, "engine", "psync");
    KEY_EQ(m, 0, "size", "20480"); /* 64k over three files, each whole blocks */
    KEY_EQ(m, 0, "io_limit", "61440");
    KEY_EQ(m, 0, "rate_iops", "2");
    ck_assert_str_eq(key(m, 0, "runtime", &origin), "2000000000ns");
    ck_assert_str_eq(origin, "timeout");
    ck_assert_uint_eq(nvb_fiomap_count(m, 0, NVB_FIOMAP_TARGETS), 3);
    ck_assert_str_eq(nvb_fiomap_item(m, 0, NVB_FIOMAP_TARGETS, 2, NULL, NULL), "f2");
    ck_assert_uint_eq(nvb_fiomap_count(m, 0, NVB_FIOMAP_WARNINGS), 2); /* the engine's note, gtod_reduce's */
    nvb_fiomap_free(m);
}
END_TEST

/* zonemode=zbd: emulated zones (core/zbd.c, docs/zoned.md); 'z' sizes are
 * zones of zonesize, as fio's */
START_TEST(zoned_options)
{
    int rc;
    struct nvb_fiomap *m = map_text("[global]\nzonemode=zbd\nzonesize=1M\n[z]\nioengine=null\nzonecapacity=512k\n"
                                    "max_open_zones=4\nzone_reset_threshold=0.7\nzone_reset_frequency=0.125\n"
                                    "read_beyond_wp=1\noffset=2z\nsize=8z\nrw=randwrite\n", 0, &rc);
    ck_assert_msg(m != NULL, "%s", why);
    KEY_EQ(m, 0, "zone_mode", "zbd");
    KEY_EQ(m, 0, "zone_size", "1048576");
    KEY_EQ(m, 0, "zone_capacity", "524288");
    KEY_EQ(m, 0, "max_open_zones", "4");
    KEY_EQ(m, 0, "zone_reset_threshold", "0.7");
    KEY_EQ(m, 0, "zone_reset_frequency", "0.125");
    KEY_EQ(m, 0, "read_beyond_wp", "1");
    KEY_EQ(m, 0, "offset", "2097152");
    KEY_EQ(m, 0, "size", "8388608");
    nvb_fiomap_free(m);
    /* zones counted without zonemode=zbd and a zonesize: refused even lenient */
    m = map_text("[z]\nioengine=null\nsize=8z\n", NVB_FIOMAP_LENIENT, &rc);
    ck_assert_ptr_null(m);
    ck_assert_msg(strstr(why, "fio option 'size': '8z' counts zones"), "%s", why);
    /* zonesize alone is fio's strided zones of offsets (zone_size without zone_mode) */
    m = map_text("[z]\nioengine=null\nsize=8m\nzonesize=1m\n", 0, &rc);
    ck_assert_msg(m != NULL, "%s", why);
    KEY_EQ(m, 0, "zone_size", "1048576");
    ck_assert_ptr_null(key(m, 0, "zone_mode", NULL));
    nvb_fiomap_free(m);
    /* zonecapacity belongs to zbd's zones: refused without, dropped with a warning when lenient */
    m = map_text("[z]\nioengine=null\nsize=8m\nzonecapacity=1m\n", 0, &rc);
    ck_assert_ptr_null(m);
    ck_assert_msg(strstr(why, "fio option 'zonecapacity': without zonemode=zbd"), "%s", why);
    m = map_text("[z]\nioengine=null\nsize=8m\nzonecapacity=1m\n", NVB_FIOMAP_LENIENT, &rc);
    ck_assert_msg(m != NULL, "%s", why);
    ck_assert_ptr_null(key(m, 0, "zone_capacity", NULL));
    ck_assert_str_eq(nvb_fiomap_item(m, 0, NVB_FIOMAP_DROPPED, 0, NULL, NULL), "zonecapacity");
    nvb_fiomap_free(m);
    /* zbd's zones cover the whole region: no range or skip */
    m = map_text("[z]\nioengine=null\nsize=8m\nzonemode=zbd\nzonesize=1m\nzoneskip=1m\nrw=write\n", 0, &rc);
    ck_assert_ptr_null(m);
    ck_assert_msg(strstr(why, "fio option 'zoneskip': with zonemode=zbd"), "%s", why);
    m = map_text("[z]\nioengine=null\nsize=8m\nzonemode=bogus\n", NVB_FIOMAP_LENIENT, &rc);
    ck_assert_ptr_null(m);
    ck_assert_msg(strstr(why, "fio's zone modes are none, strided and zbd"), "%s", why);
    /* a verify read-back reads what was written, wherever the pointers are */
    m = map_text("[z]\nioengine=null\nzonemode=zbd\nzonesize=1m\nsize=4m\nrw=write\nverify=crc32c\n", 0, &rc);
    ck_assert_msg(m != NULL, "%s", why);
    ck_assert_uint_eq(nvb_fiomap_workloads(m), 2);
    KEY_EQ(m, 1, "rw", "read");
    KEY_EQ(m, 1, "read_beyond_wp", "1");
    ck_assert_ptr_null(key(m, 0, "read_beyond_wp", NULL));
    nvb_fiomap_free(m);
}
END_TEST

START_TEST(bad_arguments)
{
    struct nvb_fiomap *m = (struct nvb_fiomap *)&m;
    ck_assert_int_eq(nvb_fiomap_new(NULL, "x", 0, &m, why, sizeof why), -EINVAL);
    ck_assert_ptr_null(m);
    ck_assert_uint_eq(nvb_fiomap_workloads(NULL), 0);
    ck_assert_uint_eq(nvb_fiomap_count(NULL, 0, NVB_FIOMAP_KEYS), 0);
    nvb_fiomap_free(NULL);
}
END_TEST


/* fio's clones of a sequential job (numjobs, no offset_increment) each
 * start at the job's offset and cover its region (fio 3.33: numjobs=4
 * rw=write bs=4k size=1m wrote each of the 256 offsets 4 times): mapped
 * to seq_start=same, which the library runs as that. */
START_TEST(sequential_clones_start_together)
{
    int rc;
    struct nvb_fiomap *m = map_text("[j]\nioengine=null\nrw=write\nbs=4k\nsize=1m\nnumjobs=4\n", 0, &rc);
    ck_assert_msg(m != NULL, "%d %s", rc, why);
    KEY_EQ(m, 0, "seq_start", "same");
    KEY_EQ(m, 0, "jobs", "4");
    KEY_EQ(m, 0, "size", "1048576");
    KEY_EQ(m, 0, "io_limit", "4194304"); /* each clone its region once */
    nvb_fiomap_free(m);
    /* offset_increment other than size: fio's clones on overlapping or spaced regions */
    m = map_text("[j]\nioengine=null\nrw=read\nsize=1m\nnumjobs=2\noffset_increment=64k\n", 0, &rc);
    ck_assert_ptr_null(m);
    ck_assert_ptr_nonnull(strstr(why, "'offset_increment'"));
    /* the library: two jobs writing half the region's bytes between them;
     * staggered they write both halves, same the first half twice */
    for (int same = 0; same < 2; same++) {
        char path[600];
        snprintf(path, sizeof path, "%s/clones.dat", dir);
        tu_sh("rm -f '%s' && truncate -s 1M '%s'", path, path);
        const char *t[] = {path, NULL};
        struct nvb_workload *w = tu_workload((const char *[]){"engine", "psync", "rw", "write", "bs", "4k", "jobs", "2",
                                                              "io_limit", "1m", "seq_start", same ? "same" : "staggered",
                                                              NULL}, t);
        nvb_result_free(tu_run_ok(w));
        nvb_workload_free(w);
        static unsigned char buf[1 << 20];
        FILE *f = fopen(path, "rb");
        ck_assert_ptr_nonnull(f);
        ck_assert_uint_eq(fread(buf, 1, sizeof buf, f), sizeof buf);
        fclose(f);
        ck_assert(!tu_all_zero(buf, 4096));                       /* both start with block 0 ... */
        ck_assert_int_eq(tu_all_zero(buf + (1 << 19), 1 << 19), same); /* ... same never reaches the second half */
    }
    /* same with verify writes by several jobs: each would check another's blocks */
    struct nvb_workload *w = tu_workload((const char *[]){"rw", "write", "jobs", "2", "verify", "1", "seq_start",
                                                          "same", "engine", "null", NULL}, NULL);
    ck_assert_int_eq(nvb_workload_validate(w), -EINVAL);
    ck_assert_ptr_nonnull(strstr(nvb_workload_error(w), "seq_start=same"));
    nvb_workload_free(w);
}
END_TEST


/* A job without a stonewall after a verify writer runs beside the writer
 * (fio: its group), not beside the read-back, which waits for the step. */
START_TEST(job_beside_a_verify_writer)
{
    int rc;
    struct nvb_fiomap *m = map_text("[global]\nioengine=null\nsize=1m\n[w]\nrw=write\nverify=crc32c\n"
                                    "[beside]\nrw=randread\n[next]\nstonewall\nrw=read\n", 0, &rc);
    ck_assert_msg(m != NULL, "%d %s", rc, why);
    ck_assert_uint_eq(nvb_fiomap_workloads(m), 4);
    static const char *const names[] = {"w", "beside", "w verify", "next"};
    static const int steps[] = {0, 0, 1, 2};
    for (size_t w = 0; w < 4; w++) {
        KEY_EQ(m, w, "name", names[w]);
        ck_assert_int_eq(nvb_fiomap_step(m, w), steps[w]);
    }
    nvb_fiomap_free(m);
}
END_TEST

/* wait_for=NAME: a new step when the step now running is NAME's alone
 * (fio's waitfor example), nothing when NAME is done already; refused
 * when the step holds other jobs too, and an error naming no job. */
START_TEST(wait_for_as_steps)
{
    int rc;
    struct nvb_fiomap *m = map_text("[global]\nioengine=null\nsize=1m\n[a]\nrw=write\n[b]\nnew_group\nwait_for=a\n"
                                    "rw=read\n[c]\nwait_for=a\nrw=read\n", 0, &rc);
    ck_assert_msg(m != NULL, "%d %s", rc, why);
    ck_assert_int_eq(nvb_fiomap_step(m, 0), 0);
    ck_assert_int_eq(nvb_fiomap_step(m, 1), 1);
    ck_assert_int_eq(nvb_fiomap_step(m, 2), 1); /* a ran in step 0: c need not wait */
    nvb_fiomap_free(m);
    m = map_text("[global]\nioengine=null\nsize=1m\n[a]\nrw=write\n[x]\nrw=read\n[b]\nwait_for=a\nrw=read\n", 0, &rc);
    ck_assert_ptr_null(m);
    ck_assert_ptr_nonnull(strstr(why, "'wait_for'"));
    m = map_text("[global]\nioengine=null\nsize=1m\n[b]\nwait_for=nobody\nrw=read\n", 0, &rc);
    ck_assert_ptr_null(m);
    ck_assert_ptr_nonnull(strstr(why, "names no job"));
}
END_TEST

/* io_submit_mode=offload with a rate: submissions on schedule, latency
 * from there (rate_mode=open); per-I/O logs: the time series, noted. */
START_TEST(offload_logs_and_steady_state)
{
    int rc;
    struct nvb_fiomap *m = map_text("[j]\nioengine=null\nsize=1m\nrw=read\nio_submit_mode=offload\nrate_iops=100\n"
                                    "write_bw_log=j\n", 0, &rc);
    ck_assert_msg(m != NULL, "%d %s", rc, why);
    KEY_EQ(m, 0, "rate_mode", "open");
    ck_assert_ptr_nonnull(strstr(nvb_fiomap_item(m, 0, NVB_FIOMAP_WARNINGS, 0, NULL, NULL), "log files are not written"));
    nvb_fiomap_free(m);
    m = map_text("[j]\nioengine=null\nsize=1m\nrw=read\nio_submit_mode=sideways\n", 0, &rc);
    ck_assert_ptr_null(m);
    /* steadystate: rounds of log_avg_msec, limits as nvbench's shares */
    m = map_text("[j]\nioengine=null\nsize=1m\nrw=read\ntime_based\nruntime=3\nss=iops:10%\nss_dur=30s\n"
                 "ss_ramp=10s\n[k]\nioengine=null\nsize=1m\nrw=read\ntime_based\nruntime=3\nsteadystate=bw_slope:1%\n"
                 "steadystate_duration=10\nlog_avg_msec=2000\nwrite_bw_log=k\n", 0, &rc);
    ck_assert_msg(m != NULL, "%d %s", rc, why);
    KEY_EQ(m, 0, "ss", "iops");
    KEY_EQ(m, 0, "ss.window", "30000000000ns");
    KEY_EQ(m, 0, "ss.excursion", "20");
    KEY_EQ(m, 0, "ss.slope", "100");
    KEY_EQ(m, 0, "ss.stop", "1");
    KEY_EQ(m, 1, "ss", "bw");
    KEY_EQ(m, 1, "interval", "2000ms");
    KEY_EQ(m, 1, "ss.slope", "4"); /* 1% a round over 5 rounds: 4% over the window */
    KEY_EQ(m, 1, "ss.excursion", "100");
    nvb_fiomap_free(m);
    m = map_text("[j]\nioengine=null\nsize=1m\nrw=read\nss=iops:20\nss_dur=30\n", 0, &rc);
    ck_assert_ptr_null(m);
    ck_assert_ptr_nonnull(strstr(why, "share of the mean"));
}
END_TEST

/* ------------------------------------------------------------------ dump */

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* One line per workload: "STEP<tab>SECTION<tab>key=value(origin) ..."
 * sorted, targets=a|b, then "<tab>warning<tab>..." and "<tab>dropped<tab>..."
 * lines; or "error<tab>MESSAGE". A fresh seed (randrepeat=0) shows as '*'. */
static int dump(const char *path, unsigned flags)
{
    int rc;
    struct nvb_fiomap *m = map_file(path, flags, &rc);
    if (!m) {
        printf("error\t%s\n", why);
        return 0;
    }
    for (size_t w = 0; w < nvb_fiomap_workloads(m); w++) {
        size_t n = nvb_fiomap_count(m, w, NVB_FIOMAP_KEYS), nt = nvb_fiomap_count(m, w, NVB_FIOMAP_TARGETS);
        char **items = calloc(n + 1, sizeof *items), tg[8192] = "targets=";
        for (size_t k = 0; k < n; k++) {
            const char *v, *o, *name = nvb_fiomap_item(m, w, NVB_FIOMAP_KEYS, k, &v, &o);
            items[k] = malloc(strlen(name) + strlen(v) + strlen(o) + 4);
            sprintf(items[k], "%s=%s(%s)", name, strcmp(o, "randrepeat") ? v : "*", o);
        }
        for (size_t t = 0; t < nt; t++)
            snprintf(tg + strlen(tg), sizeof tg - strlen(tg), "%s%s", t ? "|" : "",
                     nvb_fiomap_item(m, w, NVB_FIOMAP_TARGETS, t, NULL, NULL));
        items[n] = tg;
        qsort(items, n + 1, sizeof *items, cmp);
        printf("%d\t%s\t", nvb_fiomap_step(m, w) + 1, nvb_fiomap_section(m, w));
        for (size_t k = 0; k <= n; k++) {
            printf("%s%s", k ? " " : "", items[k]);
            if (items[k] != tg)
                free(items[k]);
        }
        printf("\n");
        free(items);
        for (size_t k = 0; k < nvb_fiomap_count(m, w, NVB_FIOMAP_WARNINGS); k++)
            printf("\twarning\t%s\n", nvb_fiomap_item(m, w, NVB_FIOMAP_WARNINGS, k, NULL, NULL));
        for (size_t k = 0; k < nvb_fiomap_count(m, w, NVB_FIOMAP_DROPPED); k++)
            printf("\tdropped\t%s\n", nvb_fiomap_item(m, w, NVB_FIOMAP_DROPPED, k, NULL, NULL));
    }
    nvb_fiomap_free(m);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "dump") == 0)
        return dump(argv[2], argc > 3 && strcmp(argv[3], "lenient") == 0 ? NVB_FIOMAP_LENIENT : 0);
    Suite *s = suite_create("fiomap");
    TCase *tc = tcase_create("fiomap");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, sizes_and_times);
    tcase_add_test(tc, one_job_key_by_key);
    tcase_add_test(tc, steps_read_back_and_names);
    tcase_add_test(tc, refused_or_left_out);
    tcase_add_test(tc, bad_arguments);
    tcase_add_test(tc, options_of_fios_examples);
    tcase_add_test(tc, zoned_options);
    tcase_add_test(tc, sequential_clones_start_together);
    tcase_add_test(tc, job_beside_a_verify_writer);
    tcase_add_test(tc, wait_for_as_steps);
    tcase_add_test(tc, offload_logs_and_steady_state);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
