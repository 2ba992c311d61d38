/*
 * fiomap.c - the one mapping of fio job files to workloads
 * (include/nvbench.h, docs/fio-jobs.md). Python, Lua and C programs map
 * job files through it; the reader is fiojob.c, the option table
 * fiomap_opt.c, fio's values fiomap_val.c.
 *
 * Phases of one job: kb_base, the engine, numjobs, the name, every option
 * through its handler, then what depends on several options (engine
 * defaults, the random map, the seed, targets, the region each target
 * gives, the bounds of the run, the read-back of a verify write). Then
 * the steps of the file: a stonewall starts one, a read-back is one of
 * its own, and two jobs of one name in a step get names of their own.
 */
#include "core/fiomap.h"
#include "platform/platform.h"
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ workloads */

int fm_list_add(struct fm_list *l, const char *s)
{
    if (nvb__grow(&l->s, &l->cap, l->n, sizeof *l->s, 4) < 0)
        return -ENOMEM;
    if (!(l->s[l->n] = nvb__strdup(s)))
        return -ENOMEM;
    l->n++;
    return 0;
}

static void list_free(struct fm_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->s[i]);
    free(l->s);
    memset(l, 0, sizeof *l);
}

void fm_wl_free(struct fm_wl *w)
{
    for (size_t i = 0; i < w->nkv; i++) {
        free(w->kv[i].key);
        free(w->kv[i].val);
        free(w->kv[i].origin);
    }
    free(w->kv);
    free(w->section);
    list_free(&w->targets);
    list_free(&w->warnings);
    list_free(&w->dropped);
    memset(w, 0, sizeof *w);
}

/* key = val in w: a later value replaces the earlier one in its place. */
static int wl_set(struct fm_wl *w, const char *key, const char *val, const char *origin)
{
    size_t i = 0;
    while (i < w->nkv && strcmp(w->kv[i].key, key) != 0)
        i++;
    if (i == w->nkv) {
        if (nvb__grow(&w->kv, &w->capkv, w->nkv, sizeof *w->kv, 16) < 0)
            return -ENOMEM;
        memset(&w->kv[i], 0, sizeof w->kv[i]);
        if (!(w->kv[i].key = nvb__strdup(key)))
            return -ENOMEM;
        w->nkv++;
    }
    char *v = nvb__strdup(val), *o = nvb__strdup(origin);
    if (!v || !o) {
        free(v);
        free(o);
        return -ENOMEM;
    }
    free(w->kv[i].val);
    free(w->kv[i].origin);
    w->kv[i].val = v;
    w->kv[i].origin = o;
    return 0;
}

int fm_set(struct fm_job *j, const char *key, const char *val, const char *origin)
{
    return wl_set(&j->out, key, val, origin);
}

int fm_setu(struct fm_job *j, const char *key, uint64_t val, const char *origin)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)val);
    return fm_set(j, key, buf, origin);
}

const char *fm_get(const struct fm_wl *w, const char *key)
{
    for (size_t i = 0; i < w->nkv; i++)
        if (strcmp(w->kv[i].key, key) == 0)
            return w->kv[i].val;
    return NULL;
}

void fm_del(struct fm_wl *w, const char *key)
{
    for (size_t i = 0; i < w->nkv; i++) {
        if (strcmp(w->kv[i].key, key) != 0)
            continue;
        free(w->kv[i].key);
        free(w->kv[i].val);
        free(w->kv[i].origin);
        memmove(&w->kv[i], &w->kv[i + 1], (w->nkv - i - 1) * sizeof *w->kv);
        w->nkv--;
        return;
    }
}

static uint64_t get_u64(const struct fm_wl *w, const char *key, uint64_t def)
{
    const char *v = fm_get(w, key);
    return v ? strtoull(v, NULL, 10) : def;
}

/* ------------------------------------------------------------------ engine and name */

static const char *const engines[][2] = {
    {"psync", "psync"},       {"pvsync", "psync"}, {"libaio", "libaio"}, {"io_uring", "io_uring"},
    {"io_uring_cmd", "nvme"}, {"null", "null"},
};

static int engine(struct fm_job *j)
{
    const char *name = fm_has(j, "ioengine", NULL) ? fm_val(j, "ioengine") : "psync";
    if (!name)
        return fm_err(j, "ioengine", "needs a value (option=value)");
    j->engine = name;
    for (size_t i = 0; i < sizeof engines / sizeof engines[0]; i++)
        if (strcmp(name, engines[i][0]) == 0)
            TRY(fm_set(j, "engine", engines[i][1], "ioengine"));
    /* fio's other synchronous engines: the same offsets, sizes and one I/O
     * at a time, through other system calls */
    static const char *const sync_calls[][2] = {
        {"sync", "lseek + read/write"}, {"vsync", "readv/writev"}, {"pvsync2", "preadv2/pwritev2"}};
    for (size_t i = 0; !fm_get(&j->out, "engine") && i < sizeof sync_calls / sizeof sync_calls[0]; i++) {
        if (strcmp(name, sync_calls[i][0]) != 0)
            continue;
        TRY(fm_warn(j, "fio job section [%s]: ioengine=%s runs as nvbench's psync: the same I/O, one pread/pwrite "
                       "each where fio issues %s", j->name, name, sync_calls[i][1]));
        TRY(fm_set(j, "engine", "psync", "ioengine"));
    }
    if (!fm_get(&j->out, "engine"))
        return fm_err(j, "ioengine", "'%s': nvbench runs psync, pvsync, sync, vsync, pvsync2, libaio, io_uring, "
                                     "io_uring_cmd (its nvme engine) and null", name);
    const char *cmd = fm_val(j, "cmd_type");
    if (strcmp(name, "io_uring_cmd") == 0 && cmd && strcmp(cmd, "nvme") != 0)
        return fm_err(j, "cmd_type", "nvbench's passthrough engine speaks nvme only");
    return 0;
}

int fm_engine_opt(struct fm_job *j, const char *opt, const char *value, const char *key, int only_uring)
{
    int uring = strcmp(j->engine, "io_uring") == 0, cmd = strcmp(j->engine, "io_uring_cmd") == 0;
    if (cmd && only_uring) {
        /* fio takes it there; nvbench's nvme engine has no such key (docs/engines.md) */
        if (strcmp(opt, "sqthread_poll") == 0 && (strcmp(value, "0") == 0 || strcmp(value, "-1") == 0))
            return 0; /* off, as the nvme engine always is */
        int rc = fm_refuse(j, opt, "nvbench's nvme engine (fio's io_uring_cmd) has no submission-queue polling "
                                   "thread (no nvme.sqpoll key); ioengine=io_uring has one");
        return rc < 0 ? rc : 0;
    }
    if (!uring && !cmd)
        return fm_err(j, opt, "is an option of ioengine %s, not %s", only_uring ? "io_uring" : "io_uring or io_uring_cmd",
                      j->engine);
    char full[64];
    snprintf(full, sizeof full, "%s.%s", uring ? "io_uring" : "nvme", key);
    return fm_set(j, full, value, opt);
}

/* The job's name, as fio takes it (of any length): the library's names
 * hold 63 bytes, so a longer one is cut, with a warning giving both. */
static int name(struct fm_job *j)
{
    const char *text = fm_val(j, "name");
    char fit[FM_NAME_MAX + 1], s[400];
    text = text && *text ? text : j->name;
    fm_fit_name(text, "", fit);
    if (strcmp(fit, text) != 0)
        TRY(fm_warn(j, "fio job section [%s]: its name is %zu bytes, more than the %d of nvbench's names: its "
                       "results are named '%s'", fm_short(j->name, 80, s, sizeof s), strlen(text), FM_NAME_MAX, fit));
    return fm_set(j, "name", fit, "name");
}

/* ------------------------------------------------------------------ targets and region */

static int is_random(const char *rw)
{
    return strncmp(rw, "rand", 4) == 0;
}

/* fio's ':'-separated list of names; '\:' is a ':' inside a name. */
static int split_escaped(const char *text, const char *prefix, struct fm_list *out)
{
    size_t pl = prefix ? strlen(prefix) : 0;
    char *cur = malloc(pl + strlen(text) + 2);
    if (!cur)
        return -ENOMEM;
    int rc = 0;
    for (const char *p = text; rc == 0;) {
        size_t n = 0;
        for (; *p && *p != ':'; p++)
            cur[n++] = (p[0] == '\\' && p[1] == ':') ? *++p : *p;
        cur[n] = 0;
        if (n)
            rc = fm_list_add(out, cur);
        if (!*p++)
            break;
    }
    free(cur);
    return rc;
}

static int is_abs(const char *p)
{
#ifdef _WIN32
    return p[0] == '/' || p[0] == '\\' || (p[0] && p[1] == ':');
#else
    return p[0] == '/';
#endif
}

static int targets(struct fm_job *j)
{
    struct fm_list files = {0}, dirs = {0};
    const char *fv = fm_val(j, "filename"), *dv = fm_val(j, "directory");
    uint64_t nrfiles;
    int rc = fm_count(j, "nrfiles", 1, &nrfiles);
    if (rc == 0 && fv)
        rc = split_escaped(fv, NULL, &files);
    if (rc == 0 && dv)
        rc = split_escaped(dv, NULL, &dirs);
    if (rc == 0 && files.n && dirs.n > 1) /* not left out when lenient: the files would land elsewhere */
        rc = fm_err(j, "directory", "several directories with filename: nvbench takes one");
    for (size_t i = 0; rc == 0 && i < files.n; i++) {
        char *t = files.s[i], *joined = NULL;
        if (dirs.n && !is_abs(t)) {
            size_t dl = strlen(dirs.s[0]);
            if (!(joined = malloc(dl + strlen(t) + 2)))
                rc = -ENOMEM;
            else
                sprintf(joined, "%s%s%s", dirs.s[0], dl && dirs.s[0][dl - 1] == '/' ? "" : "/", t);
        }
        rc = rc ? rc : fm_list_add(&j->out.targets, joined ? joined : t);
        free(joined);
    }
    if (rc == 0 && !files.n && nrfiles != (dirs.n ? dirs.n : 1) && !(nrfiles == 1 && dirs.n))
        rc = fm_refuse(j, "nrfiles", "nvbench lays out one scratch file per directory target");
    for (size_t i = 0; rc >= 0 && !files.n && i < dirs.n && i < (nrfiles ? nrfiles : 1); i++)
        rc = fm_list_add(&j->out.targets, dirs.s[i]);
    if (rc >= 0 && !files.n && !dirs.n && strcmp(j->engine, "null") != 0)
        rc = fm_list_add(&j->out.targets, "."); /* fio's file in the working directory */
    list_free(&files);
    list_free(&dirs);
    return rc < 0 ? rc : 0;
}

/* A target's length, measured, never opened (a FIFO opened for reading
 * waits for a writer); what names the need in the message. */
static int target_len(struct fm_job *j, const char *opt, const char *what, const char *path, uint64_t *len)
{
    char why[1024];
    if (nvb_target_length(path, len, why, sizeof why) < 0)
        return fm_err(j, opt, "%s and %s", what, why);
    return 0;
}

static int any_dir(const struct fm_job *j)
{
    for (size_t i = 0; i < j->out.targets.n; i++) {
        struct nvb__target_info ti;
        if (nvb__target_info(j->out.targets.s[i], &ti) == 0 && ti.kind == NVB__T_DIR)
            return 1;
    }
    return 0;
}

/* pct % of the length all targets share (fio: of the file's real size). */
static int share(struct fm_job *j, const char *opt, int pct, uint64_t *out)
{
    uint64_t len = 0, l;
    if (!j->out.targets.n || any_dir(j))
        return fm_err(j, opt, "is a share of the target: a file or a device, not %s",
                      j->out.targets.n ? "a directory" : "no target");
    for (size_t i = 0; i < j->out.targets.n; i++) {
        TRY(target_len(j, opt, "is a share of the target", j->out.targets.s[i], &l));
        if (i && l != len)
            return fm_err(j, opt, "is a share of targets of different lengths (%llu and %llu bytes)",
                          (unsigned long long)len, (unsigned long long)l);
        len = l;
    }
    *out = len / 100 * (uint64_t)pct + len % 100 * (uint64_t)pct / 100;
    return 0;
}

/* size, size=N%, filesize: per_target (UINT64_MAX: to each target's end)
 * and the bytes one job moves over its targets. */
static int region_size(struct fm_job *j, uint64_t bs, uint64_t *per_target, uint64_t *total)
{
    const char *sv, *fv = fm_val(j, "filesize");
    size_t nt = j->out.targets.n ? j->out.targets.n : 1;
    uint64_t fs = 0;
    *per_target = UINT64_MAX;
    *total = 0;
    if (fv && strchr(fv, '-'))
        TRY(fm_refuse(j, "filesize", "a range of file sizes: nvbench's targets of a job have one region size"));
    else if (fv)
        TRY(fm_size(j, "filesize", NULL, &fs));
    if (fm_has(j, "size", &sv)) {
        if (fm_pct(sv) >= 0)
            TRY(share(j, "size", fm_pct(sv), total));
        else if (sv && *sv && sv[strlen(sv) - 1] == '%')
            return fm_err(j, "size", "'%s' is not a share of the target (a whole percentage 0%% to 100%%)", sv);
        else
            TRY(fm_size(j, "size", NULL, total));
        *per_target = (fs ? fs : *total / nt) / bs * bs; /* fio divides size among the files */
        /* and moves no more than the files hold (fio 3.33: size=64k over 3 files moved 3 x 20480 bytes;
         * filesize=64k of 2 files with size=256k moved 128k) */
        if (!fs || *total / nt > *per_target)
            *total = *per_target * nt;
        return 0;
    }
    if (fs) { /* each file filesize bytes, the job all of them */
        *per_target = fs / bs * bs;
        *total = fs > UINT64_MAX / nt ? UINT64_MAX : fs * nt;
        return 0;
    }
    if (!j->out.targets.n || any_dir(j))
        return fm_err(j, "size", "is needed: fio and nvbench have no file to take it from");
    int timed = fm_flag(j, "time_based");
    TRY(timed);
    if (timed && !fm_has(j, "io_size", NULL) && !fm_has(j, "io_limit", NULL))
        return 0;
    uint64_t offset = get_u64(&j->out, "offset", 0);
    for (size_t i = 0; i < j->out.targets.n; i++) {
        uint64_t len;
        TRY(target_len(j, "size", "is not set", j->out.targets.s[i], &len));
        *total += (len > offset ? len - offset : 0) / bs * bs;
    }
    return 0;
}

/* Each target's region (nvbench's size), and the bytes one fio job moves
 * in *per_job (0: unbounded). */
static int region(struct fm_job *j, uint64_t *per_job)
{
    uint64_t bs = fm_get(&j->out, "bssplit") ? 1 : get_u64(&j->out, "bs", 4096), per_target, total, loops, off;
    *per_job = 0;
    if (!bs)
        return fm_err(j, "bs", "is 0: a block has at least one byte");
    if (j->offset_pct >= 0) { /* fio rounds the share up to a whole block (fio 3.33: 30% of 1 MiB at 315392) */
        TRY(share(j, "offset", j->offset_pct, &off));
        TRY(fm_setu(j, "offset", (off + bs - 1) / bs * bs, "offset"));
    }
    TRY(region_size(j, bs, &per_target, &total));
    const char *inc = fm_val(j, "offset_increment");
    if (j->numjobs > 1 && (!is_random(fm_get(&j->out, "rw")) || (inc && *inc))) {
        uint64_t inc_b = 0;
        if (inc && *inc)
            TRY(fm_size(j, "offset_increment", NULL, &inc_b));
        if (inc_b && inc_b == per_target && j->out.targets.n <= 1 && per_target <= UINT64_MAX / j->numjobs) {
            /* fio's clones on adjacent regions: nvbench's jobs on one region,
             * each starting at its own share of it */
            per_target *= j->numjobs;
        } else if (!inc_b) {
            /* fio's default: every clone starts at the job's offset and covers
             * its region (fio 3.33, numjobs=4 rw=write bs=4k size=1m: 1024
             * writes, each of the 256 offsets written 4 times) */
            TRY(fm_set(j, "seq_start", "same", "numjobs"));
        } else {
            TRY(fm_stripes(j, bs, inc_b, &per_target, total)); /* fiomap_offs.c */
        }
    }
    if (per_target != UINT64_MAX && (j->out.targets.n || strcmp(j->engine, "null") == 0))
        TRY(fm_setu(j, "size", per_target, "size"));
    if (fm_has(j, "io_size", NULL) || fm_has(j, "io_limit", NULL))
        TRY(fm_size(j, fm_has(j, "io_size", NULL) ? "io_size" : "io_limit", NULL, &total));
    TRY(fm_count(j, "loops", 1, &loops));
    total = total / bs * bs;
    if (loops && total > UINT64_MAX / loops)
        return fm_err(j, "loops", "%llu loops of %llu bytes are more than 2^64 - 1 bytes", (unsigned long long)loops,
                      (unsigned long long)total);
    *per_job = total * loops;
    return 0;
}

/* time_based runs for runtime; otherwise each job moves its bytes, within
 * runtime if set. */
static int bounds(struct fm_job *j, uint64_t per_job)
{
    uint64_t runtime = 0, ramp;
    char buf[32];
    const char *rv = fm_val(j, "runtime"), *tv = fm_val(j, "timeout"), *pv = fm_val(j, "ramp_time");
    const char *ropt = rv && *rv ? "runtime" : "timeout"; /* fio's alias of runtime */
    if (rv && *rv && tv && *tv && strcmp(rv, tv) != 0)
        return fm_err(j, "timeout", "is fio's other name of runtime: given as '%s' and runtime as '%s'", tv, rv);
    if ((rv && *rv) || (tv && *tv))
        TRY(fm_time(j, ropt, "s", &runtime));
    if (pv && *pv) {
        TRY(fm_time(j, "ramp_time", "s", &ramp));
        snprintf(buf, sizeof buf, "%lluns", (unsigned long long)ramp);
        TRY(fm_set(j, "ramp", buf, "ramp_time"));
    }
    snprintf(buf, sizeof buf, "%lluns", (unsigned long long)runtime);
    int timed = fm_flag(j, "time_based");
    TRY(timed);
    if (timed) {
        if (!runtime)
            return fm_err(j, "time_based", "without runtime fio runs until stopped; nvbench needs the runtime");
        return fm_set(j, "runtime", buf, ropt);
    }
    if (!per_job)
        return fm_err(j, "size", "the job moves no data (size 0)");
    if (j->numjobs && per_job > UINT64_MAX / j->numjobs)
        return fm_err(j, "numjobs", "%llu jobs of %llu bytes are more than 2^64 - 1 bytes",
                      (unsigned long long)j->numjobs, (unsigned long long)per_job);
    TRY(fm_setu(j, "io_limit", per_job * j->numjobs, "size"));
    return runtime ? fm_set(j, "runtime", buf, ropt) : 0;
}

/* fio's do_verify: a job that wrote verify blocks reads them back once it
 * is done: a workload of its own, run after it. */
static int verify_after(struct fm_job *j)
{
    static const char *const not_back[] = {"rate_iops", "rate_mode", "thinktime", "thinktime_blocks", "ramp", "runtime"};
    const char *v = fm_get(&j->out, "verify"), *rw = fm_get(&j->out, "rw"), *dv;
    int has_dv = fm_has(j, "do_verify", &dv), dov = has_dv && dv ? fm_flag(j, "do_verify") : 1, timed;
    TRY(dov);
    if (!v || strcmp(v, "1") != 0 || strcmp(rw, "read") == 0 || !dov)
        return 0;
    TRY(timed = fm_flag(j, "time_based"));
    /* random writes with fio's random map, size-bounded, write every block
     * of the region once a pass: a sequential read-back checks them all */
    const char *map = fm_get(&j->out, "random_map");
    int covers = strcmp(rw, "randwrite") == 0 && map && strcmp(map, "1") == 0 && !fm_has(j, "io_size", NULL) &&
                 !fm_has(j, "io_limit", NULL) && !fm_has(j, "number_ios", NULL);
    const int backlog = get_u64(&j->out, "verify_backlog", 0) != 0; /* checked as written: no read-back */
    if (!backlog && strcmp(rw, "write") != 0 && strcmp(rw, "randwrite") != 0) {
        TRY(fm_refuse(j, "verify", "the read-back of what a mixed job wrote: fio checks its reads against blocks it "
                                   "may not have written yet; nvbench reads back what rw=write or randwrite wrote, or "
                                   "set do_verify=0"));
        fm_del(&j->out, "verify"); /* left out: no verify pattern, no read-back, as without the option */
        return 0;
    }
    if (fm_get(&j->out, "seq_start")) {
        TRY(fm_refuse(j, "numjobs", "with verify: fio's %llu clones each write and verify the same blocks; nvbench "
                                    "verifies blocks one job writes (give offset_increment equal to size)",
                      (unsigned long long)j->numjobs));
        fm_del(&j->out, "verify"); /* left out: as verify would be with do_verify=0 */
        return 0;
    }
    if (backlog) /* the library checks the writes since the last check at the job's end, as fio's do_verify */
        return 0;
    if ((strcmp(rw, "write") != 0 && !covers) || timed || fm_get(&j->out, "runtime"))
        /* the writes may end before the region is written (a runtime, random
         * writes that skip blocks): each job reads back the blocks it wrote,
         * as fio's pieces of I/O logged, and no other */
        return fm_set(j, "verify_readback", "1", "do_verify");
    j->has_back = 1;
    for (size_t i = 0; i < j->out.nkv; i++) {
        const struct fm_kv *kv = &j->out.kv[i];
        int skip = 0;
        for (size_t k = 0; k < sizeof not_back / sizeof not_back[0]; k++)
            skip |= strcmp(kv->key, not_back[k]) == 0;
        if (!skip)
            TRY(wl_set(&j->back, kv->key, kv->val, kv->origin));
    }
    char fit[FM_NAME_MAX + 1];
    TRY(wl_set(&j->back, "rw", "read", "rw"));
    if (fm_get(&j->out, "zone_mode")) /* a run's zones start empty: fio's verify reads what was written */
        TRY(wl_set(&j->back, "read_beyond_wp", "1", "verify"));
    return wl_set(&j->back, "name", fm_fit_name(fm_get(&j->out, "name"), " verify", fit), "name");
}

/* ------------------------------------------------------------------ one job */

/* A new sequence each run (randrepeat=0): uniqueness, not secrecy. */
static uint64_t fresh_seed(const void *salt)
{
    uint64_t z = nvb__wall_ns() ^ (nvb__now_ns() << 17) ^ (uint64_t)(uintptr_t)salt;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* write_bw_log, write_lat_log, write_iops_log with log_avg_msec: nvbench's
 * time series at that interval (in the result, not in fio's log files). */
static int logs(struct fm_job *j)
{
    static const char *const names[] = {"write_bw_log", "write_lat_log", "write_iops_log"};
    const char *which = NULL, *avg = fm_val(j, "log_avg_msec");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        which = which ? which : fm_has(j, names[i], NULL) ? names[i] : NULL;
    uint64_t ms = 0;
    if (avg)
        TRY(fm_whole(j, "log_avg_msec", avg, "a whole number of milliseconds", &ms));
    if (!which)
        return 0;
    if (!ms) /* the logs are fio's output only: the I/O is the same */
        return fm_warn(j, "fio job section [%s]: %s without log_avg_msec: fio logs every I/O in files of its own; "
                          "nvbench's time series (key interval, 1 s unless set) is in the result, fio's log files are "
                          "not written", j->name, which);
    char buf[32];
    snprintf(buf, sizeof buf, "%llums", (unsigned long long)ms);
    TRY(fm_set(j, "interval", buf, "log_avg_msec"));
    return fm_warn(j, "fio job section [%s]: %s: the time series every %llu ms is in the result; fio's log files "
                      "are not written", j->name, which, (unsigned long long)ms);
}

/* io_submit_mode=offload: fio's threads submit each I/O when it is due,
 * whatever the device's completions, and its latency counts from there:
 * with a rate, nvbench's open loop (rate_mode=open). Without a rate the
 * I/O is the same, only fio's submitting thread differs. */
static int submit_mode(struct fm_job *j)
{
    const char *v = fm_val(j, "io_submit_mode");
    if (!fm_has(j, "io_submit_mode", NULL) || (v && strcmp(v, "inline") == 0))
        return 0;
    if (!v || strcmp(v, "offload") != 0)
        return fm_err(j, "io_submit_mode", "'%s': fio's modes are inline and offload", v ? v : "");
    if (fm_get(&j->out, "rate_mode"))
        return fm_set(j, "rate_mode", "open", "io_submit_mode");
    return fm_warn(j, "fio job section [%s]: io_submit_mode=offload without a rate: the same I/O, submitted by the "
                      "job's own thread rather than fio's offload threads", j->name);
}

/* blockalign: fio's default, the smallest block size, is nvbench's
 * alignment of random offsets (bs, or the smallest size of a bssplit). */
static int blockalign(struct fm_job *j)
{
    char one[NVB_FIOJOB_MAX_LINE + 1];
    const char *opt = fm_has(j, "blockalign", NULL) ? "blockalign" : fm_has(j, "ba", NULL) ? "ba" : NULL;
    const char *split = fm_get(&j->out, "bssplit");
    uint64_t want, least = get_u64(&j->out, "bs", 4096);
    if (!opt)
        return 0;
    if (!fm_val(j, opt))
        return fm_err(j, opt, "needs a value (option=value)");
    int rc = fm_one_value(j, opt, one, sizeof one);
    if (rc != 0)
        return rc < 0 ? rc : 0;
    TRY(fm_size(j, opt, one, &want));
    if (!is_random(fm_get(&j->out, "rw")))
        return 0; /* sequential offsets follow each other: no alignment to choose */
    for (const char *p = split; p && *p; p += strcspn(p, ":,"), p += *p != 0) {
        uint64_t size = strtoull(p, NULL, 10); /* the mapping wrote each size in bytes */
        least = p == split || size < least ? size : least;
    }
    if (want == least)
        return 0;
    if (split && !(fm_get(&j->out, "random_map") && !strcmp(fm_get(&j->out, "random_map"), "1")))
        return fm_setu(j, "blockalign", want, opt); /* a split's random offsets */
    rc = fm_refuse(j, opt, "random offsets at multiples of %llu bytes: nvbench's are multiples of %s (%llu)%s",
                   (unsigned long long)want, split ? "the map's unit, the smallest size" : "bs",
                   (unsigned long long)least, split ? " with fio's random map" : "");
    return rc < 0 ? rc : 0;
}

/* What depends on several options: engine defaults, the random map, the
 * seed, jobs, targets, region, bounds, the read-back. */
static int finish(struct fm_job *j)
{
    if (strcmp(j->engine, "io_uring") == 0 || strcmp(j->engine, "io_uring_cmd") == 0) {
        /* fio's default is off; nvbench's auto would register */
        if (!fm_has(j, "fixedbufs", NULL))
            TRY(fm_engine_opt(j, "fixedbufs", "0", "fixedbufs", 0));
        if (!fm_has(j, "registerfiles", NULL))
            TRY(fm_engine_opt(j, "registerfiles", "0", "regfiles", 0));
    }
    if (is_random(fm_get(&j->out, "rw"))) {
        /* fio's random map covers uniform offsets only: a skewed distribution
         * turns it off (fio 3.33: 235 distinct blocks of 1024 I/Os over 1024
         * blocks with zipf:1.2) */
        const char *dist = fm_get(&j->out, "random_distribution");
        int nomap = fm_flag(j, "norandommap");
        TRY(nomap);
        int keep = !((dist && strcmp(dist, "random") != 0) || nomap);
        TRY(fm_set(j, "random_map", keep ? "1" : "0", "norandommap"));
    }
    int repeat = fm_flag(j, "randrepeat");
    TRY(repeat);
    if (!fm_has(j, "randseed", NULL) && fm_has(j, "randrepeat", NULL) && !repeat)
        TRY(fm_setu(j, "seed", fresh_seed(j), "randrepeat"));
    TRY(fm_setu(j, "jobs", j->numjobs, "numjobs"));
    TRY(fm_rate_bytes(j));
    TRY(submit_mode(j));
    TRY(logs(j));
    TRY(fm_steady(j));
    TRY(fm_lat_target(j));
    TRY(blockalign(j));
    TRY(fm_zones(j));
    TRY(fm_continue(j));
    TRY(fm_errnos(j));
    TRY(targets(j));
    TRY(fm_file_create(j));
    uint64_t per_job;
    TRY(region(j, &per_job));
    TRY(bounds(j, per_job));
    TRY(fm_number_ios(j));
    TRY(fm_sprandom(j));
    return verify_after(j);
}

static int map_job(struct fm_job *j)
{
    uint64_t kb;
    j->offset_pct = -1;
    TRY(fm_count(j, "kb_base", 1024, &kb));
    if (kb != 1000 && kb != 1024)
        return fm_err(j, "kb_base", "is 1000 or 1024");
    j->kb_base = (unsigned)kb;
    TRY(engine(j));
    TRY(fm_count(j, "numjobs", 1, &j->numjobs));
    TRY(name(j));
    TRY(fm_set(j, "rw", "read", "rw"));         /* fio's default */
    TRY(fm_set(j, "direct", "0", "direct"));    /* fio's default */
    TRY(fm_options(j));
    return finish(j);
}

/* ------------------------------------------------------------------ steps */

static int map_add(struct nvb_fiomap *m, struct fm_wl *w, const char *section, int step,
                   const struct fm_list *targets)
{
    if (nvb__grow(&m->wl, &m->cap, m->n, sizeof *m->wl, 8) < 0)
        return -ENOMEM;
    struct fm_wl *to = &m->wl[m->n];
    *to = *w; /* moved: w no longer owns its lists */
    memset(w, 0, sizeof *w);
    m->n++;
    to->step = step;
    if (!(to->section = nvb__strdup(section)))
        return -ENOMEM;
    for (size_t i = 0; targets && i < targets->n; i++)
        TRY(fm_list_add(&to->targets, targets->s[i]));
    return 0;
}

/* The read-back shares its writer's targets, warnings and drops. */
static int copy_lists(struct fm_wl *to, const struct fm_wl *from)
{
    for (size_t i = 0; i < from->warnings.n; i++)
        TRY(fm_list_add(&to->warnings, from->warnings.s[i]));
    for (size_t i = 0; i < from->dropped.n; i++)
        TRY(fm_list_add(&to->dropped, from->dropped.s[i]));
    return 0;
}

static int wl_index(const struct fm_wl *w, const char *key)
{
    for (size_t i = 0; i < w->nkv; i++)
        if (strcmp(w->kv[i].key, key) == 0)
            return (int)i;
    return -1;
}

/* fio runs two sections of one name side by side; the job groups of one
 * run need names of their own: the second becomes 'name #2', with a
 * warning saying so. */
static int distinct_names(struct nvb_fiomap *m, size_t from, size_t to)
{
    for (size_t a = from; a < to; a++) {
        struct fm_kv *kv = &m->wl[a].kv[wl_index(&m->wl[a], "name")];
        char base[FM_NAME_MAX + 1], fit[FM_NAME_MAX + 1], sfx[32], s[400];
        snprintf(base, sizeof base, "%s", kv->val);
        const char *cur = base;
        for (unsigned k = 1;; ) {
            int taken = 0, seen = 0;
            for (size_t b = from; b < to; b++) {
                const char *other = fm_get(&m->wl[b], "name");
                taken |= b < a && strcmp(other, cur) == 0;
                seen |= b >= a && b != a && strcmp(other, cur) == 0;
            }
            if (!taken && !(k > 1 && seen))
                break;
            snprintf(sfx, sizeof sfx, " #%u", ++k);
            cur = fm_fit_name(base, sfx, fit);
        }
        if (cur == base)
            continue;
        char *nv = nvb__strdup(cur);
        if (!nv)
            return -ENOMEM;
        free(kv->val);
        kv->val = nv;
        char msg[600];
        snprintf(msg, sizeof msg, "fio job section [%s]: another job of this step has its name: its results are "
                 "named '%s'", fm_short(m->wl[a].section, 80, s, sizeof s), cur);
        TRY(fm_list_add(&m->wl[a].warnings, msg));
    }
    return 0;
}

/* Read-backs of a step's verify writers, waiting for the step to end. */
struct backs {
    struct fm_wl *wl;
    size_t        n, cap;
};

/* fio verifies when a writer is done, while the other jobs of its group
 * run on: the read-backs run once the whole step is done, a step of their
 * own, before the next step (a job beside the writer stays beside it). */
static int flush_backs(struct nvb_fiomap *m, struct backs *b, int *step, size_t *step_start)
{
    int rc = 0;
    if (!b->n)
        return 0;
    rc = distinct_names(m, *step_start, m->n);
    *step_start = m->n;
    ++*step;
    for (size_t i = 0; i < b->n; i++) {
        struct fm_list t = b->wl[i].targets;
        memset(&b->wl[i].targets, 0, sizeof t);
        char *section = b->wl[i].section;
        b->wl[i].section = NULL;
        rc = rc ? rc : map_add(m, &b->wl[i], section, *step, &t);
        free(section);
        list_free(&t);
        fm_wl_free(&b->wl[i]);
    }
    b->n = 0;
    return rc;
}

static int map_file(const struct nvb_fiojob *f, struct fm_job *proto, struct nvb_fiomap *m)
{
    int step = -1;
    size_t step_start = 0;
    struct backs b = {0};
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < nvb_fiojob_jobs(f); i++) {
        struct fm_job j = *proto;
        j.idx = i;
        j.name = nvb_fiojob_name(f, i);
        rc = map_job(&j);
        int wait = rc == 0 ? fm_wait_for(&j, m, step_start) : 0;
        rc = wait < 0 ? wait : rc;
        /* a job without a stonewall joins the step now running, a verify writer's too */
        if (rc == 0 && (step < 0 || nvb_fiojob_stonewall(f, i) > 0 || wait > 0)) {
            rc = step < 0 ? 0 : flush_backs(m, &b, &step, &step_start);
            rc = rc ? rc : step < 0 ? 0 : distinct_names(m, step_start, m->n);
            step++;
            step_start = m->n;
        }
        struct fm_list t = j.out.targets;
        memset(&j.out.targets, 0, sizeof t);
        if (rc == 0 && j.has_back)
            rc = copy_lists(&j.back, &j.out);
        if (rc == 0)
            rc = map_add(m, &j.out, j.name, step, &t);
        if (rc == 0 && j.has_back && nvb__grow(&b.wl, &b.cap, b.n, sizeof *b.wl, 4) < 0)
            rc = -ENOMEM;
        if (rc == 0 && j.has_back) {
            struct fm_wl *to = &b.wl[b.n++];
            *to = j.back; /* moved */
            memset(&j.back, 0, sizeof j.back);
            to->section = nvb__strdup(j.name);
            for (size_t k = 0; to->section && k < t.n; k++)
                rc = rc ? rc : fm_list_add(&to->targets, t.s[k]);
            rc = rc ? rc : to->section ? 0 : -ENOMEM;
        }
        list_free(&t);
        fm_wl_free(&j.out);
        fm_wl_free(&j.back);
    }
    if (rc == 0 && b.n)
        rc = flush_backs(m, &b, &step, &step_start);
    for (size_t i = 0; i < b.n; i++)
        fm_wl_free(&b.wl[i]);
    free(b.wl);
    return rc < 0 ? rc : distinct_names(m, step_start, m->n);
}

/* ------------------------------------------------------------------ API */

void nvb_fiomap_free(struct nvb_fiomap *m)
{
    for (size_t i = 0; m && i < m->n; i++)
        fm_wl_free(&m->wl[i]);
    if (m)
        free(m->wl);
    free(m);
}

int nvb_fiomap_new(const struct nvb_fiojob *f, const char *path, unsigned flags, struct nvb_fiomap **out, char *why,
                   size_t why_len)
{
    if (why && why_len)
        why[0] = 0;
    if (out)
        *out = NULL;
    if (!f || !out || (flags & ~NVB_FIOMAP_LENIENT)) {
        if (why && why_len)
            snprintf(why, why_len, "nvb_fiomap_new: no job file, no out, or unknown flags 0x%x", flags);
        return -EINVAL;
    }
    struct nvb_fiomap *m = calloc(1, sizeof *m);
    if (!m)
        return -ENOMEM;
    struct fm_job proto = {.f = f, .path = path ? path : "job file", .lenient = !!(flags & NVB_FIOMAP_LENIENT),
                           .why = why, .why_len = why_len};
    int rc = fm_exitall(f, &proto, m, map_file(f, &proto, m));
    if (rc < 0) {
        if (rc == -ENOMEM && why && why_len)
            snprintf(why, why_len, "out of memory mapping a job file");
        nvb_fiomap_free(m);
        return rc;
    }
    *out = m;
    return 0;
}

size_t nvb_fiomap_workloads(const struct nvb_fiomap *m) { return m ? m->n : 0; }

int nvb_fiomap_step(const struct nvb_fiomap *m, size_t w) { return m && w < m->n ? m->wl[w].step : -EINVAL; }

const char *nvb_fiomap_section(const struct nvb_fiomap *m, size_t w)
{
    return m && w < m->n ? m->wl[w].section : NULL;
}

static const struct fm_list *list_of(const struct fm_wl *w, enum nvb_fiomap_list list)
{
    switch (list) {
    case NVB_FIOMAP_TARGETS: return &w->targets;
    case NVB_FIOMAP_WARNINGS: return &w->warnings;
    case NVB_FIOMAP_DROPPED: return &w->dropped;
    default: return NULL;
    }
}

size_t nvb_fiomap_count(const struct nvb_fiomap *m, size_t w, enum nvb_fiomap_list list)
{
    if (!m || w >= m->n)
        return 0;
    if (list == NVB_FIOMAP_KEYS)
        return m->wl[w].nkv;
    const struct fm_list *l = list_of(&m->wl[w], list);
    return l ? l->n : 0;
}

const char *nvb_fiomap_item(const struct nvb_fiomap *m, size_t w, enum nvb_fiomap_list list, size_t k,
                            const char **value, const char **origin)
{
    if (value)
        *value = NULL;
    if (origin)
        *origin = NULL;
    if (!m || w >= m->n)
        return NULL;
    if (list == NVB_FIOMAP_KEYS) {
        if (k >= m->wl[w].nkv)
            return NULL;
        if (value)
            *value = m->wl[w].kv[k].val;
        if (origin)
            *origin = m->wl[w].kv[k].origin;
        return m->wl[w].kv[k].key;
    }
    const struct fm_list *l = list_of(&m->wl[w], list);
    return l && k < l->n ? l->s[k] : NULL;
}
