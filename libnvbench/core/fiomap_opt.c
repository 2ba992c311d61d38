/*
 * fiomap_opt.c - the fio options nvbench honours, one handler each, and
 * the options that shape a job as a whole (read in fiomap.c). An option
 * in neither table has no equivalent: refused, or left out with a warning
 * when the mapping is lenient.
 */
#include "core/fiomap.h"
#include "core/keys.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ direct renames
 * A fio option whose value a library key takes as it is says so in the key
 * table (core/keys.c: its fio column and NVB__KEY_FIO_AS_IS); here only
 * fio's own other names of those options. */
static const struct { const char *alias, *fio; } aliases[] = {
    {"iodepth_batch", "iodepth_batch_submit"},
    {"iodepth_batch_complete", "iodepth_batch_complete_min"},
};

/* The key that takes fio option opt's value as it is, or NULL. */
static const char *as_is_key(const char *opt)
{
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (!strcmp(opt, aliases[i].alias))
            opt = aliases[i].fio;
    for (size_t i = 0; i < nvb__nkeys; i++)
        if ((nvb__keys[i].flags & NVB__KEY_FIO_AS_IS) && nvb__keys[i].fio && !strcmp(opt, nvb__keys[i].fio))
            return nvb__keys[i].name;
    return NULL;
}

/* Options that shape the run as a whole or only fio's report: read in
 * fiomap.c, or accepted as they are (nvbench reports every job's figures
 * and percentiles anyway). */
static const char *const structure[] = {
    "name", "description", "stonewall", "wait_for_previous", "new_group", "group_reporting", "thread", "kb_base",
    "unit_base", "lat_percentiles", "clat_percentiles", "filename", "directory", "nrfiles", "size", "io_size",
    "io_limit", "offset_increment", "loops", "runtime", "time_based", "ramp_time", "numjobs", "do_verify",
    "cpus_allowed_policy", "cmd_type", "refill_buffers", "scramble_buffers", "ioengine", "norandommap",
    "randrepeat", "timeout", "threads", "filesize", "rate", "write_bw_log", "write_lat_log", "write_iops_log",
    "log_avg_msec", "blockalign", "ba", "wait_for", "io_submit_mode", "log_offset", "log_prio", "steadystate", "ss",
    "steadystate_duration", "ss_dur", "steadystate_ramp_time", "ss_ramp", "steadystate_check_interval", "ss_interval",
    "allow_file_create", "number_ios", "error_dump",
};

/* Options nvbench does not honour, with the reason a user is told (others:
 * "nvbench has no equivalent"). */
static const char *const reasons[][2] = {
    {"rate_min", "nvbench has no minimum rate that stops a job running slower"},
    {"ratemin", "nvbench has no minimum rate that stops a job running slower"},
    {"fsync", "nvbench issues no fsync between writes: a job's writes would not be flushed every N"},
    {"fdatasync", "nvbench issues no fdatasync between writes: a job's writes would not be flushed every N"},
    {"end_fsync", "nvbench issues no fsync at a job's end: the last writes would not be flushed"},
    {"write_mode", "zone append and the other write commands need a real zoned device's commands, which nvbench "
                   "does not send (its zones are emulated: docs/zoned.md)"},
};

/* ------------------------------------------------------------------ handlers */

static const char *const rw_names[][2] = {
    {"read", "read"}, {"write", "write"}, {"randread", "randread"}, {"randwrite", "randwrite"}, {"rw", "rw"},
    {"readwrite", "rw"}, {"randrw", "randrw"}, {"trim", "trim"}, {"randtrim", "randtrim"},
};

static int h_rw(struct fm_job *j, const char *opt, const char *v)
{
    const char *colon = strchr(v, ':');
    size_t n = colon ? (size_t)(colon - v) : strlen(v);
    for (size_t i = 0; i < sizeof rw_names / sizeof rw_names[0]; i++) {
        if (strlen(rw_names[i][0]) != n || strncmp(v, rw_names[i][0], n) != 0)
            continue;
        TRY(fm_set(j, "rw", rw_names[i][1], opt));
        return colon ? fm_rw_modifier(j, opt, rw_names[i][1], colon + 1) : 0;
    }
    return fm_err(j, opt, "'%s': nvbench runs read, write, randread, randwrite, rw, readwrite, randrw, trim, randtrim",
                  v);
}

static int h_rwmixwrite(struct fm_job *j, const char *opt, const char *v)
{
    uint64_t n;
    TRY(fm_whole(j, opt, v, "a whole number", &n));
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", 100 - (long long)n);
    return fm_set(j, "rwmix", buf, opt);
}

static int h_bs(struct fm_job *j, const char *opt, const char *v)
{
    char one[NVB_FIOJOB_MAX_LINE + 1];
    uint64_t n;
    int rc = fm_one_value(j, opt, one, sizeof one);
    if (rc != 0)
        return rc < 0 ? rc : 0; /* left out: the option takes no effect at all */
    (void)v;
    TRY(fm_size(j, opt, one, &n));
    return fm_setu(j, "bs", n, opt);
}

/* 4k/50:64k/50[,...]: each size (at the start, after ':' or ',') as fio
 * reads it, the shares after '/' as written; cmdprio_bssplit's
 * 64k/25/1/1:... alike (the key of the option's own name). */
static int h_bssplit(struct fm_job *j, const char *opt, const char *v)
{
    struct {
        char  *s;
        size_t n;
    } out = {malloc(strlen(v) * 10 + 64), 0}; /* "1p" is 16 digits */
    if (!out.s)
        return -ENOMEM;
    int rc = 0;
    for (const char *p = v; rc == 0;) {
        size_t n = strcspn(p, ":,/");
        int is_size = p == v || p[-1] == ':' || p[-1] == ',';
        if (is_size && n) {
            char item[NVB_FIOJOB_MAX_LINE + 1];
            uint64_t sz;
            snprintf(item, sizeof item, "%.*s", (int)n, p);
            rc = fm_size(j, opt, item, &sz);
            out.n += (size_t)sprintf(out.s + out.n, "%llu", (unsigned long long)sz);
        } else {
            memcpy(out.s + out.n, p, n);
            out.n += n;
        }
        if (!p[n])
            break;
        out.s[out.n++] = p[n];
        p += n + 1;
    }
    out.s[out.n] = 0;
    if (rc == 0)
        rc = fm_set(j, opt, out.s, opt);
    free(out.s);
    if (rc == 0 && !strcmp(opt, "cmdprio_bssplit"))
        rc = fm_warn(j, "fio job section [%s]: cmdprio_bssplit: the same I/O at the same priorities; fio reports "
                        "latency per priority too, nvbench over all I/Os", j->name);
    return rc;
}

static int h_offset(struct fm_job *j, const char *opt, const char *v)
{
    uint64_t n;
    if (*v && v[strlen(v) - 1] == '%') { /* of the target's length: known with the targets (fiomap.c) */
        if ((j->offset_pct = fm_pct(v)) < 0)
            return fm_err(j, opt, "'%s' is not a share of the target (a whole percentage 0%% to 100%%)", v);
        return 0;
    }
    TRY(fm_size(j, opt, v, &n));
    return fm_setu(j, "offset", n, opt);
}

static int h_direct(struct fm_job *j, const char *opt, const char *v)
{
    int t = fm_flag(j, opt);
    (void)v;
    TRY(t);
    /* buffered is direct's opposite */
    return fm_set(j, "direct", (t == (strcmp(opt, "direct") == 0)) ? "1" : "0", opt);
}

/* A fio flag that is the library key of the same name (invalidate, uncached,
 * atomic, fua): it may stand without a value. */
static int h_same_flag(struct fm_job *j, const char *opt, const char *v)
{
    int t = fm_flag(j, opt);
    (void)v;
    TRY(t);
    return fm_set(j, opt, t ? "1" : "0", opt);
}

static int h_rate_iops(struct fm_job *j, const char *opt, const char *v)
{
    uint64_t n;
    int rc = fm_one_whole(j, opt, "a count of I/Os per second", &n);
    (void)v;
    if (rc != 0)
        return rc < 0 ? rc : 0;
    if (n && j->numjobs > UINT64_MAX / n)
        return fm_err(j, opt, "%llu per job over %llu jobs is more than 2^64 - 1 I/Os per second",
                      (unsigned long long)n, (unsigned long long)j->numjobs);
    TRY(fm_setu(j, "rate_iops", n * j->numjobs, opt)); /* fio's is per job, nvbench's over all jobs */
    return fm_set(j, "rate_mode", "closed", opt);
}

static int h_rate_process(struct fm_job *j, const char *opt, const char *v)
{
    return fm_set(j, "rate_process", strcmp(v, "linear") == 0 ? "uniform" : v, opt);
}

static int h_thinktime(struct fm_job *j, const char *opt, const char *v)
{
    uint64_t ns;
    (void)v;
    TRY(fm_time(j, opt, "us", &ns));
    uint64_t us = ns / 1000, r = ns % 1000;
    us += r > 500 || (r == 500 && (us & 1)); /* to the nearest us, ties to even */
    return fm_setu(j, "thinktime", us, opt);
}

/* fio's checksums of a verify block: nvbench writes its own header and
 * CRC32C in their place, which fails on the same corruption (a changed
 * byte, a block landing at another offset, a stale block), so verify means
 * what it means in fio: the read-back detects corruption. */
static const char *const checksums[] = {"crc32c", "crc32c-intel", "crc32", "crc16", "crc7", "crc64", "md5",
                                        "sha1", "sha256", "sha512", "sha3-224", "sha3-256", "sha3-384",
                                        "sha3-512", "xxhash", "meta"};

static int h_verify(struct fm_job *j, const char *opt, const char *v)
{
    size_t i = 0;
    if (strcmp(v, "0") == 0 || strcmp(v, "none") == 0)
        return 0;
    while (i < sizeof checksums / sizeof checksums[0] && strcmp(v, checksums[i]) != 0)
        i++;
    if (i == sizeof checksums / sizeof checksums[0]) {
        int rc = fm_refuse(j, opt, "'%s': nvbench checks blocks with its own header and CRC32C, in place of fio's "
                                   "checksums (md5, crc64, crc32c, sha256, xxhash, meta ...), not by a pattern alone", v);
        return rc < 0 ? rc : 0; /* left out: no verify at all, not nvbench's in its place */
    }
    if (i > 1)
        TRY(fm_warn(j, "fio job section [%s]: verify=%s: nvbench checks each block with its own header (offset, "
                       "seed, sequence) and CRC32C in place of %s, which detects the same corruption", j->name, v, v));
    return fm_set(j, "verify", "1", opt);
}

static int h_engine_flag(struct fm_job *j, const char *opt, const char *v)
{
    static const char *const keys[][2] = {
        {"fixedbufs", "fixedbufs"}, {"registerfiles", "regfiles"}, {"hipri", "iopoll"}, {"sqthread_poll", "sqpoll"}};
    int t = fm_flag(j, opt);
    (void)v;
    TRY(t);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(opt, keys[i][0]) == 0)
            return fm_engine_opt(j, opt, t ? "1" : "0", keys[i][1], strcmp(opt, "sqthread_poll") == 0);
    return -EINVAL;
}

static int h_sqpoll_cpu(struct fm_job *j, const char *opt, const char *v)
{
    return fm_engine_opt(j, opt, v, "sqpoll_cpu", 1);
}

static int h_cpus(struct fm_job *j, const char *opt, const char *v)
{
    const char *policy = fm_val(j, "cpus_allowed_policy");
    unsigned n;
    TRY(fm_cpu_count(j, opt, v, &n));
    if ((!policy || strcmp(policy, "split") != 0) && n > 1) {
        int rc = fm_refuse(j, opt, "with cpus_allowed_policy=shared fio's jobs float over the set; nvbench pins "
                                   "job i to the i-th CPU (cpus_allowed_policy=split)");
        return rc < 0 ? rc : 0; /* left out: the jobs float, as without the option */
    }
    return fm_set(j, "cpus", v, opt);
}

static int h_continue(struct fm_job *j, const char *opt, const char *v)
{
    char l[8] = {0};
    for (size_t i = 0; v[i] && i < sizeof l - 1; i++)
        l[i] = (char)(v[i] >= 'A' && v[i] <= 'Z' ? v[i] | 0x20 : v[i]);
    int none = strlen(v) < sizeof l && (!strcmp(l, "none") || !strcmp(l, "0"));
    int all = strlen(v) < sizeof l && (!strcmp(l, "all") || !strcmp(l, "1"));
    if (!strcmp(l, "read") || !strcmp(l, "write") || !strcmp(l, "io"))
        return 0; /* fm_continue, once rw and verify are known */
    if (!none && !all) {
        int rc = fm_refuse(j, opt, "'%s': nvbench continues after every error or after none (none, all; read, "
                                   "write and io where the job's I/O is of the one kind)", v);
        return rc < 0 ? rc : 0; /* left out: fio's default, stop at the first error */
    }
    return fm_set(j, "continue_on_error", all ? "1" : "0", opt);
}

/* continue_on_error=read, write or io: fio continues after an error of
 * that kind of I/O (reads; writes and trims) and stops at the others. On a
 * job whose I/O is all of one kind that is nvbench's continue_on_error on
 * or off; a mixed job, or one with a verify read-back, would continue
 * after both kinds or neither, so it is refused. */
int fm_continue(struct fm_job *j)
{
    const char *v = fm_val(j, "continue_on_error"), *rw = fm_get(&j->out, "rw"), *ver = fm_get(&j->out, "verify");
    char l[8] = {0};
    for (size_t i = 0; v && v[i] && i < sizeof l - 1; i++)
        l[i] = (char)(v[i] >= 'A' && v[i] <= 'Z' ? v[i] | 0x20 : v[i]);
    int rd = !strcmp(l, "read"), wr = !strcmp(l, "write"), io = !strcmp(l, "io");
    if (!v || strlen(v) >= sizeof l || !(rd || wr || io))
        return 0;
    rw = rw ? rw : "read";
    int reads = !strcmp(rw, "read") || !strcmp(rw, "randread");
    int writes = !strcmp(rw, "write") || !strcmp(rw, "randwrite") || !strcmp(rw, "trim") || !strcmp(rw, "randtrim") ||
                 !strcmp(rw, "trimwrite");
    if ((ver && strcmp(ver, "0") != 0) || (!io && !reads && !writes)) {
        int rc = fm_refuse(j, "continue_on_error", "'%s' on a job that %s: nvbench continues after the errors of "
                                                   "every kind of I/O or of none",
                           v, ver && strcmp(ver, "0") != 0 ? "reads back what it wrote" : "both reads and writes");
        return rc < 0 ? rc : 0; /* left out: fio's default, stop at the first error */
    }
    return fm_set(j, "continue_on_error", io || (rd && reads) || (wr && writes) ? "1" : "0", "continue_on_error");
}

/* bsrange=a-b as fio 3.33 draws it: a + u b (u uniform in [0, 1))
 * rounded down to a multiple of a, above b taken as b. So each multiple
 * of a up to b has a share a / b, b the rest (write_iolog of 4k-10k:
 * 4k 41%, 8k 38%, 10k 20%; of 4k-16k a quarter each): nvbench's bssplit,
 * when the shares are whole percents. */
static int h_bsrange(struct fm_job *j, const char *opt, const char *v)
{
    char one[NVB_FIOJOB_MAX_LINE + 1], split[2048];
    uint64_t a, b;
    int rc = fm_one_value(j, opt, one, sizeof one);
    (void)v;
    if (rc != 0)
        return rc < 0 ? rc : 0;
    char *dash = strchr(one, '-');
    if (!dash)
        return fm_err(j, opt, "'%s' is not a range of sizes (min-max)", one);
    *dash = 0;
    TRY(fm_size(j, opt, one, &a));
    TRY(fm_size(j, opt, dash + 1, &b));
    if (!a || a > b)
        return fm_err(j, opt, "'%s-%s' is not a range of sizes (the smaller first, not 0)", one, dash + 1);
    if (a == b)
        return fm_setu(j, "bs", a, opt);
    if ((a & (a - 1)) || a > UINT64_MAX / 100 || a * 100 % b) {
        rc = fm_refuse(j, opt, "fio draws sizes from %llu to %llu bytes in shares of %llu/%llu; nvbench's bssplit "
                               "holds whole percents only", (unsigned long long)a, (unsigned long long)b,
                       (unsigned long long)a, (unsigned long long)b);
        return rc < 0 ? rc : 0;
    }
    unsigned pct = (unsigned)(a * 100 / b), used = 0;
    size_t o = 0;
    for (uint64_t m = a; m <= b; m += a, used += pct)
        o += (size_t)snprintf(split + o, sizeof split - o, "%s%llu/%u", o ? ":" : "", (unsigned long long)m, pct);
    if (used < 100)
        snprintf(split + o, sizeof split - o, ":%llu/%u", (unsigned long long)b, 100 - used);
    return fm_set(j, "bssplit", split, opt);
}

/* random_distribution as written, but for fio's zone of an empty range in
 * zoned:IO/RANGE:...: the rest of the range (zoned:50/5:30/15:20/ is
 * zoned:50/5:30/15:20/80). */
static int h_random_distribution(struct fm_job *j, const char *opt, const char *v)
{
    char out[NVB_FIOJOB_MAX_LINE + 16];
    unsigned used = 0, empty = 0;
    if (strncmp(v, "zoned:", 6) != 0)
        return fm_set(j, "random_distribution", v, opt);
    for (const char *p = v + 6; *p; p += strcspn(p, ":"), p += *p == ':') {
        const char *slash = memchr(p, '/', strcspn(p, ":"));
        if (slash && (slash[1] == ':' || !slash[1]))
            empty++;
        else if (slash)
            used += (unsigned)atoi(slash + 1);
    }
    if (empty == 0 || empty > 1 || used > 100) {
        if (empty > 1)
            return fm_err(j, opt, "'%s': more than one zone without a range (the rest of the range is one zone's)", v);
        return fm_set(j, "random_distribution", v, opt); /* the library checks the rest */
    }
    size_t o = 0;
    for (const char *p = v; *p; p++) {
        out[o++] = *p;
        if (*p == '/' && (p[1] == ':' || !p[1]))
            o += (size_t)snprintf(out + o, sizeof out - o, "%u", 100 - used);
    }
    out[o] = 0;
    return fm_set(j, "random_distribution", out, opt);
}

static int h_zonemode(struct fm_job *j, const char *opt, const char *v)
{
    if (strcmp(v, "none") == 0)
        return 0;
    if (strcmp(v, "strided") == 0) /* zonesize, zonerange, zoneskip: fm_zones (fiomap_offs.c) */
        return 0;
    if (strcmp(v, "zbd") == 0) /* emulated zones (core/zbd.c); a real zoned device is refused by the plan */
        return fm_set(j, "zone_mode", "zbd", opt);
    return fm_err(j, opt, "'%s': fio's zone modes are none, strided and zbd", v);
}

/* zonecapacity: the emulated zones' (zonemode=zbd); fio's strided zones
 * have no capacity. */
static int h_zone_capacity(struct fm_job *j, const char *opt, const char *v)
{
    const char *mode = fm_val(j, "zonemode");
    uint64_t n;
    if (!mode || strcmp(mode, "zbd") != 0) {
        int rc = fm_refuse(j, opt, "without zonemode=zbd: only emulated zoned devices have a zone capacity");
        return rc < 0 ? rc : 0;
    }
    TRY(fm_size(j, opt, v, &n));
    return fm_setu(j, "zone_capacity", n, opt);
}

/* fio's startdelay: seconds unless a unit is given; a range (a random
 * delay) has no equivalent and fm_time refuses it. */
static int h_startdelay(struct fm_job *j, const char *opt, const char *v)
{
    uint64_t ns;
    char buf[32];
    (void)v;
    TRY(fm_time(j, opt, "s", &ns));
    snprintf(buf, sizeof buf, "%lluns", (unsigned long long)ns);
    return fm_set(j, "startdelay", buf, opt);
}

static int h_gtod_reduce(struct fm_job *j, const char *opt, const char *v)
{
    int t = fm_flag(j, opt);
    (void)v;
    TRY(t);
    return t ? fm_warn(j, "fio job section [%s]: gtod_reduce accepted: it only thins fio's own clock readings; "
                          "nvbench times every I/O as always", j->name) : 0;
}

static int h_random_generator(struct fm_job *j, const char *opt, const char *v)
{
    if (strcmp(v, "tausworthe") && strcmp(v, "lfsr") && strcmp(v, "tausworthe64"))
        return fm_err(j, opt, "'%s': fio's generators are tausworthe, lfsr and tausworthe64", v);
    return fm_warn(j, "fio job section [%s]: random_generator=%s accepted: nvbench has one generator, so the "
                      "offsets follow its sequence, not fio's", j->name, v);
}

/* fio's cmdprio_percentage, cmdprio_class and cmdprio (read,write values):
 * one value for both directions as the keys cmdprio_pct, cmdprio_class,
 * cmdprio. fio reports latency per priority too: nvbench over all I/Os. */
static int h_cmdprio(struct fm_job *j, const char *opt, const char *v)
{
    uint64_t n;
    int rc = fm_one_whole(j, opt, "a whole number", &n);
    (void)v;
    if (rc != 0)
        return rc < 0 ? rc : 0;
    const int pct = !strcmp(opt, "cmdprio_percentage");
    TRY(fm_setu(j, pct ? "cmdprio_pct" : opt, n, opt));
    return pct && n ? fm_warn(j, "fio job section [%s]: cmdprio_percentage=%llu: the same I/O at the same "
                                 "priorities; fio reports latency per priority too, nvbench over all I/Os",
                              j->name, (unsigned long long)n) : 0;
}

/* latency_target, latency_window: fio times in microseconds (read again
 * by fm_lat_target once the job's runtime is known); latency_percentile:
 * a share up to 100. */
static int h_latency(struct fm_job *j, const char *opt, const char *v)
{
    uint64_t ns;
    if (strcmp(opt, "latency_percentile"))
        return fm_time(j, opt, "us", &ns);
    char *end;
    double pct = strtod(v, &end);
    if (end == v || *end || !(pct > 0 && pct <= 100))
        return fm_err(j, opt, "'%s' is not a percentile above 0, at most 100", v);
    return 0;
}

static int h_zero_buffers(struct fm_job *j, const char *opt, const char *v)
{
    int t = fm_flag(j, opt);
    (void)v;
    TRY(t);
    return t ? fm_set(j, "fill", "zero", opt) : 0;
}

/* flag: the option may stand without a value (on). */
static const struct {
    const char *fio;
    int (*fn)(struct fm_job *j, const char *opt, const char *v);
    int flag;
} handlers[] = {
    {"rw", h_rw, 0},
    {"readwrite", h_rw, 0},
    {"rwmixwrite", h_rwmixwrite, 0},
    {"bs", h_bs, 0},
    {"blocksize", h_bs, 0},
    {"bssplit", h_bssplit, 0},
    {"cmdprio_bssplit", h_bssplit, 0},
    {"offset", h_offset, 0},
    {"direct", h_direct, 1},
    {"buffered", h_direct, 1},
    {"invalidate", h_same_flag, 1},
    {"uncached", h_same_flag, 1},
    {"atomic", h_same_flag, 1},
    {"fua", h_same_flag, 1},
    {"rate_iops", h_rate_iops, 0},
    {"rate_process", h_rate_process, 0},
    {"thinktime", h_thinktime, 0},
    {"verify", h_verify, 0},
    {"fixedbufs", h_engine_flag, 1},
    {"registerfiles", h_engine_flag, 1},
    {"hipri", h_engine_flag, 1},
    {"sqthread_poll", h_engine_flag, 1},
    {"sqthread_poll_cpu", h_sqpoll_cpu, 0},
    {"cpus_allowed", h_cpus, 0},
    {"continue_on_error", h_continue, 0},
    {"zero_buffers", h_zero_buffers, 1},
    {"cmdprio_percentage", h_cmdprio, 0},
    {"latency_target", h_latency, 0},
    {"latency_window", h_latency, 0},
    {"latency_percentile", h_latency, 0},
    {"cmdprio_class", h_cmdprio, 0},
    {"cmdprio", h_cmdprio, 0},
    {"zonemode", h_zonemode, 0},
    {"zonesize", fm_h_zone, 0},
    {"zonerange", fm_h_zone, 0},
    {"zoneskip", fm_h_zone, 0},
    {"zonecapacity", h_zone_capacity, 0},
    {"rw_sequencer", fm_h_rw_sequencer, 0},
    {"bsrange", h_bsrange, 0},
    {"random_distribution", h_random_distribution, 0},
    {"random_generator", h_random_generator, 0},
    {"blocksize_range", h_bsrange, 0},
    {"gtod_reduce", h_gtod_reduce, 1},
    {"startdelay", h_startdelay, 0},
    {"numa_cpu_nodes", fm_numa_cpu_nodes, 0},
    {"numa_mem_policy", fm_numa_mem_policy, 0},
    {"verify_pattern", fm_verify_pattern, 0},
    {"verify_interval", fm_verify_interval, 0},
    {"fill_device", fm_fill_device, 1},
    {"fill_fs", fm_fill_device, 1},
    {"create_serialize", fm_create_serialize, 1},
    {"verify_dump", fm_verify_dump, 1},
    {"dedupe_mode", fm_dedupe_mode, 0},
    {"dedupe_working_set_percentage", fm_dedupe_set, 0},
    {"dedupe_global", fm_dedupe_set, 1},
    {"verify_backlog_batch", fm_verify_backlog_batch, 0},
    {"verify_write_sequence", fm_verify_write_sequence, 1},
    {"verify_async", fm_verify_async, 0},
    {"create_on_open", fm_create_on_open, 1},
    {"exitall", fm_exit_opt, 1},
    {"exit_what", fm_exit_opt, 0},
    {"ignore_error", fm_ignore_error, 0},
};

/* fio's wait_for=NAME: the job starts once the job NAME is done. Honoured
 * as a new step when every job of the step now running is NAME (fio's
 * waitfor example), or when NAME ran in an earlier step (nothing to wait
 * for); refused when the step holds other jobs (a new step would wait for
 * them too). 1: start a new step. */
int fm_wait_for(struct fm_job *j, const struct nvb_fiomap *m, size_t step_start)
{
    const char *name = fm_val(j, "wait_for");
    int here = 0, other = 0, before = 0;
    if (!fm_has(j, "wait_for", NULL))
        return 0;
    if (!name || !*name)
        return fm_err(j, "wait_for", "needs a value (option=value)");
    for (size_t i = 0; i < m->n; i++) {
        int is = strcmp(m->wl[i].section, name) == 0 || strcmp(fm_get(&m->wl[i], "name"), name) == 0;
        if (i < step_start)
            before |= is;
        else if (is)
            here = 1;
        else
            other = 1;
    }
    if (here && !other)
        return 1;
    if (!here && before)
        return 0;
    if (!here)
        return fm_err(j, "wait_for", "'%s' names no job before this one", name);
    int rc = fm_refuse(j, "wait_for", "'%s' runs beside other jobs: nvbench starts a job after a whole step (a "
                                      "stonewall), so it would wait for those too", name);
    return rc < 0 ? rc : 0;
}

/* The first of fio's two names of an option that the job sets, or NULL. */
static const char *either(const struct fm_job *j, const char *a, const char *b)
{
    return fm_has(j, a, NULL) ? a : fm_has(j, b, NULL) ? b : NULL;
}

/* steadystate=METRIC:LIMIT% with steadystate_duration: nvbench's ss over
 * that window, stopping the job when reached (fio's meaning). fio judges
 * every round within LIMIT% of the mean, nvbench max - min within a share
 * of the mean: 2 x LIMIT, which every window fio accepts meets; a slope of
 * LIMIT% of the mean per round is LIMIT x (rounds - 1) of nvbench's
 * line excursion over the window. The rest is said in a warning. */
int fm_steady(struct fm_job *j)
{
    const char *opt = either(j, "steadystate", "ss"), *dopt = either(j, "steadystate_duration", "ss_dur");
    const char *iopt = either(j, "steadystate_check_interval", "ss_interval");
    const char *ropt = either(j, "steadystate_ramp_time", "ss_ramp"), *v = opt ? fm_val(j, opt) : NULL;
    uint64_t dur = 0, iv = 1000000000ull, ramp = 0;
    if (!opt)
        return 0;
    if (!v || !strchr(v, ':'))
        return fm_err(j, opt, "'%s' is not METRIC:LIMIT (iops, bw, lat, or their _slope, e.g. iops:10%%)", v ? v : "");
    if (dopt)
        TRY(fm_time(j, dopt, "s", &dur));
    if (!dur) /* fio's default duration 0 turns the detection off */
        return fm_warn(j, "fio job section [%s]: %s without a duration: fio judges no steady state (its "
                          "steadystate_duration 0), nor does nvbench", j->name, opt);
    size_t ml = strcspn(v, ":");
    int slope = ml > 6 && strncmp(v + ml - 6, "_slope", 6) == 0;
    char metric[8] = "";
    snprintf(metric, sizeof metric, "%.*s", (int)(slope ? ml - 6 : ml), v);
    if (strcmp(metric, "iops") && strcmp(metric, "bw") && strcmp(metric, "lat"))
        return fm_err(j, opt, "'%.*s': fio's metrics are iops, bw, lat and their _slope", (int)ml, v);
    char *end;
    double lim = strtod(v + ml + 1, &end);
    if (strcmp(end, "%") != 0 || !(lim >= 0) || end == v + ml + 1) {
        int rc = fm_refuse(j, opt, "'%s': a limit in %s units; nvbench judges a share of the mean (give LIMIT%%)", v,
                           metric);
        return rc < 0 ? rc : 0;
    }
    const char *have = fm_get(&j->out, "interval");
    if (have) /* log_avg_msec's, "Nms" */
        iv = strtoull(have, NULL, 10) * 1000000ull;
    if (iopt) {
        uint64_t want;
        TRY(fm_time(j, iopt, "s", &want));
        if (have && want != iv)
            return fm_err(j, iopt, "and log_avg_msec differ: nvbench's rounds are its time series' intervals");
        iv = want;
        char buf[32];
        snprintf(buf, sizeof buf, "%lluns", (unsigned long long)iv);
        TRY(fm_set(j, "interval", buf, iopt));
    }
    uint64_t rounds = iv ? dur / iv : 0;
    double pct = slope ? lim * (double)(rounds ? rounds - 1 : 0) : 2 * lim;
    if (rounds < 3 || rounds > 100000 || pct > 100) {
        int rc = fm_refuse(j, opt, "a window of %llu rounds with a limit of %g%% of the mean: nvbench judges 3 to "
                                   "100000 rounds, within 100%%", (unsigned long long)rounds, slope ? pct : lim);
        return rc < 0 ? rc : 0;
    }
    char b[3][40];
    snprintf(b[0], sizeof b[0], "%lluns", (unsigned long long)dur);
    snprintf(b[1], sizeof b[1], "%.6g", slope ? 100.0 : pct);
    snprintf(b[2], sizeof b[2], "%.6g", slope ? pct : 100.0);
    TRY(fm_set(j, "ss", metric, opt));
    TRY(fm_set(j, "ss.window", b[0], dopt));
    TRY(fm_set(j, "ss.excursion", b[1], opt));
    TRY(fm_set(j, "ss.slope", b[2], opt));
    TRY(fm_set(j, "ss.stop", "1", opt));
    if (ropt)
        TRY(fm_time(j, ropt, "s", &ramp));
    TRY(fm_warn(j, "fio job section [%s]: %s=%s: nvbench's ss over %llu rounds, stopping when steady; %s", j->name,
                opt, v, (unsigned long long)rounds,
                slope ? "the same slope, as its excursion over the window" : "fio wants every round within the "
                "limit of the mean, nvbench max - min within twice it, so it may judge steady a window fio does not"));
    return ramp ? fm_warn(j, "fio job section [%s]: %s: fio judges from then on, nvbench from its first full "
                             "window: a run may stop earlier than fio's", j->name, ropt) : 0;
}

/* fio's latency_target: the job starts at queue depth 1 and, at the end
 * of every latency_window, raises the depth when latency_percentile of the
 * window's I/Os completed within the target (else lowers it), until it
 * settles, then runs a last window at that depth and ends. nvbench has no
 * such search inside a job; but a job whose runtime (with its ramp) ends
 * before its first window does (fio's latency-profile example, capped)
 * never leaves depth 1 in fio: that is qd=1, which nvbench runs, with a
 * note. Otherwise refused. */
int fm_lat_target(struct fm_job *j)
{
    const char *ropt = fm_val(j, "runtime") ? "runtime" : fm_val(j, "timeout") ? "timeout" : NULL;
    uint64_t target, window = 0, runtime = 0, ramp = 0;
    if (!fm_has(j, "latency_target", NULL))
        return 0;
    TRY(fm_time(j, "latency_target", "us", &target));
    if (!target) /* fio's default: no target */
        return 0;
    if (fm_has(j, "latency_window", NULL))
        TRY(fm_time(j, "latency_window", "us", &window));
    if (ropt)
        TRY(fm_time(j, ropt, "s", &runtime));
    if (fm_val(j, "ramp_time"))
        TRY(fm_time(j, "ramp_time", "s", &ramp));
    if (!runtime || ramp + runtime > window) {
        int rc = fm_refuse(j, "latency_target", "fio searches the queue depth that keeps latency_percentile of the "
                                                "I/Os within the target, window by window, inside the job; nvbench "
                                                "has no such search in a job (nvbench search runs one trial per "
                                                "depth: another measurement). Only a job whose runtime ends before "
                                                "its first latency_window (fio then stays at depth 1) maps: qd=1");
        return rc < 0 ? rc : 0;
    }
    TRY(fm_set(j, "qd", "1", "latency_target"));
    return fm_warn(j, "fio job section [%s]: latency_target: the job ends before its first latency_window, so fio "
                      "runs it at queue depth 1 throughout (its search never moves): qd=1; fio's report of the "
                      "depth found (depth=1) is not repeated", j->name);
}

/* One option: a rename, a handler, structure, or nothing nvbench has. */
static int option(struct fm_job *j, const char *opt, const char *v)
{
    const char *key = as_is_key(opt);
    if (key) {
        if (!v)
            return fm_err(j, opt, "needs a value (option=value)");
        return fm_set(j, key, v, opt);
    }
    for (size_t i = 0; i < sizeof handlers / sizeof handlers[0]; i++) {
        if (strcmp(opt, handlers[i].fio) != 0)
            continue;
        if (!v && !handlers[i].flag)
            return fm_err(j, opt, "needs a value (option=value)");
        return handlers[i].fn(j, opt, v);
    }
    for (size_t i = 0; i < sizeof structure / sizeof structure[0]; i++)
        if (strcmp(opt, structure[i]) == 0)
            return 0;
    const char *why = "nvbench has no equivalent";
    for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
        if (strcmp(opt, reasons[i][0]) == 0)
            why = reasons[i][1];
    int rc = fm_refuse(j, opt, "%s", why);
    return rc < 0 ? rc : 0;
}

int fm_options(struct fm_job *j)
{
    size_t n = nvb_fiojob_options(j->f, j->idx);
    for (size_t k = 0; k < n; k++) {
        const char *v, *opt = nvb_fiojob_option(j->f, j->idx, k, &v);
        TRY(option(j, opt, v));
    }
    return 0;
}

/* sprandom=1: fio makes the job's io_size the plan's length (the region x
 * (1 + spr_op)), whatever size or io_size said; nvbench's plan bounds the
 * job itself (key sprandom), so the byte bound goes. fio refuses a
 * generator other than its LFSR with sprandom; a time_based job would run
 * past the plan, which nvbench does not model. */
int fm_sprandom(struct fm_job *j)
{
    const char *v = fm_get(&j->out, "sprandom"), *gen = fm_val(j, "random_generator");
    if (!v || strcmp(v, "0") == 0 || strcmp(v, "false") == 0)
        return 0;
    if (gen && strcmp(gen, "lfsr") != 0)
        return fm_err(j, "random_generator", "'%s' with sprandom: fio's sprandom needs random_generator=lfsr", gen);
    int timed = fm_flag(j, "time_based");
    TRY(timed);
    if (timed)
        return fm_refuse(j, "time_based", "with sprandom: the planned sequence has an end (its length), and what "
                                          "fio writes after it is not modelled by nvbench");
    fm_del(&j->out, "io_limit");
    return 0;
}
