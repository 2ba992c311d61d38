/*
 * Explaining a run's CPU (internal; docs/cpu.md): where the machine's CPU
 * time went by kind over the run's window (cpu.per_io_us, cpu.per_cpu),
 * and the facts of the machine that change storage figures (environment).
 * Kept apart from result.c: a result holds one struct nvb__explain, and
 * result.c, result_load.c and the sampler each make one call into here.
 */
#ifndef NVB_CORE_EXPLAIN_H
#define NVB_CORE_EXPLAIN_H

#include <stddef.h>
#include <stdint.h>

#include "platform/platform.h"

struct nvb_result;
struct nvb__json;
struct nvb__jv;

/* The machine's CPU time by kind over one window, in ns. */
struct nvb__kinds {
    uint64_t user, nice, system, irq, softirq, iowait, steal, idle;
};

struct nvb__explain {
    /* cpu.per_io_us and cpu.per_cpu: 0 absent (a result from before them:
     * nothing is written), 1 measured, 2 null with kinds_why */
    int      kinds_state;
    unsigned kinds_missing;      /* kinds the platform keeps no counter of (NVB__KB_*): null */
    char     kinds_why[256];
    uint64_t tick_ns;                /* the counters' step */
    struct nvb__kinds machine;
    int      ncpu;
    int     *cpu_id;
    struct nvb__kinds *cpu;
    /* environment: a JSON object (facts, each with value and source), owned;
     * NULL: absent */
    struct nvb__jv *env;
    /* interrupts (explain_irq.c): 0 absent, 1 measured (irq: the object
     * without per_io), 2 null with irq_why; irq_t0: /proc/interrupts at
     * the window's start, while running */
    int      irq_state;
    char     irq_why[192];
    char    *irq_t0;
    struct nvb__jv *irq;
    /* placement (explain_place.c): the job threads' CPUs read while they
     * are alive (jobs, until the tree is made), the tree; NULL absent */
    struct nvb__thread_place *jobs;
    int      njobs;
    struct nvb__place_seen *seen;    /* each job thread as sampled over the window */
    int      nseen;
    char     place_why[160];
    struct nvb__jv *place;
    /* cpus=local / an engine CPU's local: the node resolved and where it
     * came from (placement.local); local_set 0: none was asked for */
    int      local_set, local_node;
    char     local_src[160];
    /* cpu.counters (explain_cpu.c): 0 absent, 1 counted (perf: the counts
     * and why the hardware ones are not), 2 null with perf_why */
    int      perf_state;
    char     perf_why[200];
    struct nvb__perf_counts perf;
};
#define NVB__PLACE_MAX 4096

/* A job thread as the sampler saw it over the window (explain_place.c):
 * its migrations at the window's start and the CPUs it was on at each
 * sample (the window's edges and each interval's tick), the first
 * NVB__SEEN_CPUS distinct ones counted. */
#define NVB__SEEN_CPUS 8
struct nvb__place_seen {
    long     tid;
    long     mig0;       /* se.nr_migrations at the start, -1 unknown */
    unsigned samples;
    int      cpu[NVB__SEEN_CPUS];
    unsigned n[NVB__SEEN_CPUS];
    int      buf_node;   /* the node of its buffers' first page; -1 unknown */
    char     buf_policy[24]; /* that page's NUMA policy ("preferred", "default"); "" unknown */
};

void nvb__explain_free(struct nvb__explain *e);
/* The result's explanation, made on first use; NULL out of memory. */
struct nvb__explain *nvb__explain_of(struct nvb_result *r);

/* All of the above for a finished run (sampler.c, one call): the kinds
 * from a and b (either NULL when not read), the environment of its
 * targets' devices. 0 or -ENOMEM. */
int nvb__explain_run(struct nvb_result *r, const struct nvb__sys_sample *a, const struct nvb__sys_sample *b);
/* From the two whole-machine samples of the run's CPU window (sampler.c);
 * a and b may be NULL when they could not be read. 0 or -ENOMEM. */
int nvb__explain_cpu(struct nvb_result *r, const struct nvb__sys_sample *a, const struct nvb__sys_sample *b);
/* Once the process's own CPU times are in r: a warning when the machine's
 * counters (which hold the process's window) account for less busy time
 * than the process itself used, beyond their ticks' resolution. */
void nvb__explain_own_check(struct nvb_result *r);
/* The kinds of one window: b - a, counters that went back count 0. */
void nvb__kinds_delta(const struct nvb__cpu_times *a, const struct nvb__cpu_times *b, struct nvb__kinds *d);
uint64_t nvb__kinds_busy(const struct nvb__kinds *k);  /* user + nice + system + irq + softirq */
uint64_t nvb__kinds_total(const struct nvb__kinds *k); /* busy + iowait + steal + idle */

/* cpu.counters from the run's event counters: c the counts over the CPU
 * window, or NULL with why (they could not be opened or read). 0 or
 * -ENOMEM. */
int nvb__explain_perf(struct nvb_result *r, const struct nvb__perf_counts *c, const char *why);

/* Writers, inside "cpu" (per_io_us, per_cpu) and at the result's top level
 * (environment); they also answer nvb_result_get() for the numbers. */
void nvb__explain_emit_cpu(struct nvb__json *j, const struct nvb_result *r);
void nvb__explain_emit_top(struct nvb__json *j, const struct nvb_result *r);
/* Reading back what the writers wrote; 0, -EINVAL (why says which key),
 * -ENOMEM. */
int nvb__explain_load(const struct nvb__jv *root, struct nvb_result *r, char *why, size_t len);
int nvb__explain_load_cpu(const struct nvb__jv *root, struct nvb_result *r, char *why, size_t len);
/* result.c's key writer: the comma and the key, as every other member. */
void nvb__json_key(struct nvb__json *j, const char *key);

/* The environment of a run's targets (explain_env.c): root NULL the live
 * system, else a recorded tree (root/sys, root/proc). devs: block device
 * names (no /dev/), n of them; steal_pct: the run's (NaN when not
 * measured, steal_why says why). A JSON object text, malloc'd; NULL out of
 * memory. */
char *nvb__env_json(const char *root, const char *const *devs, size_t n, double steal_pct, const char *steal_why);

/* Interrupts (explain_irq.c). The text of root/proc/interrupts (root NULL:
 * live), malloc'd, or NULL. */
char *nvb__irq_read(const char *root);
/* The device queues' interrupts between two /proc/interrupts texts, for
 * block devices devs (their controllers from root's sysfs): a JSON object
 * text {cpus, devices: {dev: {controller, queues: [{irq, name, per_cpu,
 * count}], count, null_reason}}, per_cpu, count}, malloc'd; NULL with why. */
char *nvb__irq_json(const char *root, const char *t0, const char *t1, const char *const *devs, size_t n,
                    char *why, size_t whylen);
/* The window's edges (diskutil.c), the writer and the reader. */
void nvb__irq_begin(struct nvb_result *r);
void nvb__irq_end(struct nvb_result *r);
void nvb__irq_emit(struct nvb__json *j, const struct nvb_result *r);
int  nvb__irq_load(const struct nvb__jv *root, struct nvb_result *r);

/* Placement (explain_place.c): the jobs' CPUs while they are alive
 * (sampler.c, before they are let go), the tree after the environment. */
void nvb__place_jobs(struct nvb_result *r);
/* Where the job threads are now, at the window's start (start 1: the
 * counts begin again) or at one of its ticks (sampler.c). */
void nvb__place_sample(struct nvb_result *r, int start);
int  nvb__place_finish(struct nvb_result *r);
void nvb__place_emit(struct nvb__json *j, const struct nvb_result *r);
int  nvb__place_load(const struct nvb__jv *root, struct nvb_result *r);

/* cpus=local: the CPUs of the NUMA node of block device dev (root NULL:
 * live) into bits, *node its node, why where it came from (the device's
 * numa_node, or a machine's only node when sysfs gives the device none).
 * 0, or -ENOENT with why (no node, and more than one on the machine). */
int  nvb__node_cpus(const char *root, const char *dev, uint64_t *bits, int *node, char *why, size_t len);
/* For a run (job_setup.c): the node of the first target's device, or a
 * warning that the jobs are not pinned. 0 or negative errno. */
int  nvb__cpus_local(struct nvb_result *r, uint64_t *bits, int *node);
/* An engine option's CPU given as "local" (io_uring.sqpoll_cpu=local,
 * named key): the first CPU of the first target's device's node not in
 * taken (the jobs' CPUs), else the node's first; -1 with a warning naming
 * key and the reason when the node is unknown. */
int  nvb__cpu_local(struct nvb_result *r, const char *key, const uint64_t *taken);
/* Its choice: the first CPU of node not in taken, else node's first; -1: none. */
int  nvb__cpu_pick(const uint64_t *node, const uint64_t *taken);
/* The node of each job's buffers while they are alive (sampler.c), onto
 * the jobs' samples (by thread id). */
void nvb__place_buffers(struct nvb_result *r, const long *tids, void *const *bufs, unsigned n);

/* The environment's checks (explain_check.c): fn is called once per check
 * that applies, severity "warn" (also a warning of the run's result) or
 * "note" (doctor only); dev NULL for the machine's facts. Their count. */
typedef void (*nvb__check_fn)(void *arg, const char *severity, const char *fact, const char *dev, const char *msg,
                              const char *advice);
int  nvb__env_checks(const struct nvb__jv *env, nvb__check_fn fn, void *arg);
/* The "warn" checks of r's environment as r's warnings. */
void nvb__env_warn(struct nvb_result *r);
/* The placement object of jobs on root's machine (NULL: live) for devices
 * devs, calling warn for each job on another node than a device; a JSON
 * object text, malloc'd, or NULL out of memory. */
char *nvb__place_json(const char *root, const struct nvb__thread_place *jobs, int njobs, const char *allowed,
                      const char *const *devs, size_t ndev, nvb__check_fn warn, void *arg);
/* The same with what the sampler saw of each job (seen, nseen; matched by
 * tid): its migrations over the window, the CPU it was seen on most and
 * the number of samples. */
char *nvb__place_json_seen(const char *root, const struct nvb__thread_place *jobs, int njobs, const char *allowed,
                           const char *const *devs, size_t ndev, const struct nvb__place_seen *seen, int nseen,
                           nvb__check_fn warn, void *arg);

/* Jobs (place's jobs[]) on CPUs that took none of irq's interrupts while
 * others took some: one "warn" through warn naming them; their number. */
int  nvb__place_irq_check(const struct nvb__jv *place, const struct nvb__jv *irq, nvb__check_fn warn, void *arg);
/* The same on a run's result, as its warning (explain_irq.c's window end). */
void nvb__place_irq_warn(struct nvb_result *r);

#endif
