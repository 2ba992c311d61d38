/*
 * fiomap.h - the mapping of fio job files to workloads, shared by its
 * three files: fiomap.c (a job as a whole: engine, name, targets, region,
 * bounds, read-back, steps and the public API), fiomap_opt.c (the option
 * table: one handler per fio option) and fiomap_val.c (fio's values:
 * sizes, times, counts, flags, and the messages quoting them).
 */
#ifndef NVB_CORE_FIOMAP_H
#define NVB_CORE_FIOMAP_H

#include <stddef.h>
#include <stdint.h>

#include "nvbench.h"

/* Returns from the calling function with x's negative errno. */
#define TRY(x)                                                                                                     \
    do {                                                                                                           \
        int rc_ = (x);                                                                                             \
        if (rc_ < 0)                                                                                               \
            return rc_;                                                                                            \
    } while (0)

#define FM_NAME_MAX 63   /* bytes of the library's name key (workload.c, K_STRING) */
#define FM_MAX_CPUS 1024 /* the library's CPU set: CPUs 0 to 1023 (the 'cpus' key) */

struct fm_list {
    char **s;
    size_t n, cap;
};

struct fm_kv {
    char *key, *val, *origin;
};

/* One workload of the map: its keys in the order first set, targets,
 * warnings, the options a lenient mapping left out. */
struct fm_wl {
    char          *section;
    int            step;
    struct fm_kv  *kv;
    size_t         nkv, capkv;
    struct fm_list targets, warnings, dropped;
};

struct nvb_fiomap {
    struct fm_wl *wl;
    size_t        n, cap;
};

/* One job section being mapped. */
struct fm_job {
    const struct nvb_fiojob *f;
    size_t                   idx;   /* the job in f */
    const char              *name;  /* its section */
    const char              *path;  /* the job file, for messages */
    int                      lenient;
    unsigned                 kb_base;
    const char              *engine; /* fio's ioengine */
    uint64_t                 numjobs;
    struct fm_wl             out;    /* the workload */
    struct fm_wl             back;   /* its read-back (has_back) */
    int                      has_back;
    int                      offset_pct; /* offset=N%: of the target's length (-1: none) */
    char                    *why;
    size_t                   why_len;
};

/* ---- fiomap_val.c ---- */
/* Is option name set in the job (as a flag or with a value)? Its value
 * (NULL for a flag or when absent) in *value. */
int fm_has(const struct fm_job *j, const char *name, const char **value);
/* The value of name, NULL when absent or a bare flag. */
const char *fm_val(const struct fm_job *j, const char *name);
/* An error naming the option: -EINVAL, the message in j->why. */
int fm_err(struct fm_job *j, const char *opt, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* An option not honoured: an error, or (lenient) a warning and the option
 * listed as left out; then 1: the caller must not let it take effect. */
int fm_refuse(struct fm_job *j, const char *opt, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A warning of the workload (lenient drops, changed names). 0 or -ENOMEM. */
int fm_warn(struct fm_job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A value quoted in a message: at most most characters, then its length. */
const char *fm_short(const char *text, size_t most, char *buf, size_t len);
/* Digits 0-9, at most 2^63 - 1: 0 or an error naming opt. */
int fm_whole(struct fm_job *j, const char *opt, const char *v, const char *what, uint64_t *out);
/* The whole number of an option, or def when absent. */
int fm_count(struct fm_job *j, const char *opt, uint64_t def, uint64_t *out);
/* A fio size (of value, or of the option's when value is NULL). */
int fm_size(struct fm_job *j, const char *opt, const char *value, uint64_t *out);
/* A whole percentage 0-100 ('30%'): its number, or -1 when v is no such
 * share. */
int fm_pct(const char *v);
/* A fio time of the option in ns, a bare number in unit. */
int fm_time(struct fm_job *j, const char *opt, const char *unit, uint64_t *ns);
/* A flag: absent 0, bare 1, else its boolean value. 0/1 or an error. */
int fm_flag(struct fm_job *j, const char *opt);
/* A read,write[,trim] option with one value for all directions into buf:
 * 0, 1 (a lenient mapping left it out) or an error. */
int fm_one_value(struct fm_job *j, const char *opt, char *buf, size_t len);
/* fm_one_value's one value as a whole number (fm_whole): 0, 1 (a lenient
 * mapping left it out) or an error. */
int fm_one_whole(struct fm_job *j, const char *opt, const char *what, uint64_t *out);
/* The distinct CPUs of a list (0-3,6), each below FM_MAX_CPUS. */
int fm_cpu_count(struct fm_job *j, const char *opt, const char *v, unsigned *n);
/* text cut at a UTF-8 character so that text + suffix fits the name key,
 * into buf (at least FM_NAME_MAX + 1 bytes). */
const char *fm_fit_name(const char *text, const char *suffix, char *buf);
/* Text quoted in a message: control characters as \xNN. */
void fm_escape(const char *s, char *out, size_t len);

/* ---- fiomap.c ---- */
int fm_set(struct fm_job *j, const char *key, const char *val, const char *origin);
int fm_setu(struct fm_job *j, const char *key, uint64_t val, const char *origin);
const char *fm_get(const struct fm_wl *w, const char *key);
void fm_del(struct fm_wl *w, const char *key);
int fm_list_add(struct fm_list *l, const char *s);
void fm_wl_free(struct fm_wl *w);
/* An engine option (fixedbufs, hipri, sqthread_poll ...) as io_uring.KEY
 * or nvme.KEY; only_uring: io_uring has it, nvme does not. */
int fm_engine_opt(struct fm_job *j, const char *opt, const char *value, const char *key, int only_uring);

/* ---- fiomap_opt.c ---- */
/* Every option of the job in file order through its handler; options
 * without one are either the job's structure (read in fiomap.c) or
 * refused as having no equivalent. */
int fm_options(struct fm_job *j);
/* fio's wait_for against the map so far (the step now running starts at
 * step_start): 1 when the job starts a new step, 0 when not, or an error. */
/* steadystate and its options as nvbench's ss keys, after log_avg_msec. */
int fm_steady(struct fm_job *j);
/* sprandom=1: the plan bounds the job (fiomap_opt.c). */
int fm_sprandom(struct fm_job *j);
/* number_ios as the key ios (fiomap_ios.c), once the job's bounds are set. */
int fm_number_ios(struct fm_job *j);
/* continue_on_error=read, write or io after rw and verify are mapped. */
int fm_continue(struct fm_job *j);
/* latency_target (with latency_window, runtime, ramp_time) after iodepth:
 * qd=1 when fio's search cannot start before the job ends, else refused. */
int fm_lat_target(struct fm_job *j);
int fm_wait_for(struct fm_job *j, const struct nvb_fiomap *m, size_t step_start);

/* ---- fiomap_rate.c ---- */
/* rate (bytes per second per job, per direction) as rate_iops over all
 * jobs (and rate_period under one I/O a second), after bs, rw and numjobs. */
int fm_rate_bytes(struct fm_job *j);
/* ---- fiomap_errors.c: ignore_error ---- */
int fm_ignore_error(struct fm_job *j, const char *opt, const char *v);
/* continue_on_error's errnos (fio's lists) as continue_errnos, after fm_continue. */
int fm_errnos(struct fm_job *j);
/* ---- fiomap_exit.c: exitall and exit_what ---- */
/* The options' values checked (the handler of both). */
int fm_exit_opt(struct fm_job *j, const char *opt, const char *v);
/* Once the file is mapped (rc: map_file's, passed on when an error): the
 * library's exitall keys on every job when any sets exitall, and the jobs
 * fio would stop before they start left out. */
int fm_exitall(const struct nvb_fiojob *f, const struct fm_job *proto, struct nvb_fiomap *m, int rc);
/* ---- fiomap_host.c: options whose meaning depends on this machine ---- */
int fm_numa_cpu_nodes(struct fm_job *j, const char *opt, const char *v);
int fm_numa_mem_policy(struct fm_job *j, const char *opt, const char *v);
/* ---- fiomap_verify.c: verify's companions ---- */
int fm_verify_pattern(struct fm_job *j, const char *opt, const char *v);
int fm_verify_interval(struct fm_job *j, const char *opt, const char *v);
int fm_fill_device(struct fm_job *j, const char *opt, const char *v);
int fm_create_serialize(struct fm_job *j, const char *opt, const char *v);
int fm_verify_dump(struct fm_job *j, const char *opt, const char *v);
int fm_verify_backlog_batch(struct fm_job *j, const char *opt, const char *v);
int fm_verify_write_sequence(struct fm_job *j, const char *opt, const char *v);
int fm_verify_async(struct fm_job *j, const char *opt, const char *v);
int fm_create_on_open(struct fm_job *j, const char *opt, const char *v);
/* allow_file_create=0 against the job's targets (after they are known). */
int fm_file_create(struct fm_job *j);
/* ---- fiomap_data.c: what writes carry ---- */
int fm_dedupe_mode(struct fm_job *j, const char *opt, const char *v);
int fm_dedupe_set(struct fm_job *j, const char *opt, const char *v);
/* ---- fiomap_offs.c: offset patterns of sequential jobs ---- */
/* rw's ':N' modifier (mod) of the rw value rw, as seq_stride. */
int fm_rw_modifier(struct fm_job *j, const char *opt, const char *rw, const char *mod);
/* Handlers: rw_sequencer; zonesize, zonerange, zoneskip. */
int fm_h_rw_sequencer(struct fm_job *j, const char *opt, const char *v);
int fm_h_zone(struct fm_job *j, const char *opt, const char *v);
/* zonemode and the zone sizes against rw and bssplit, after the options. */
int fm_zones(struct fm_job *j);
/* offset_increment other than size with numjobs, after rw and size: the
 * region of numjobs x increment in *per_target, or refused. */
int fm_stripes(struct fm_job *j, uint64_t bs, uint64_t inc, uint64_t *per_target, uint64_t total);

#endif
