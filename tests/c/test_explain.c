/* Explaining the CPU (docs/cpu.md): the machine's CPU by kind per I/O and
 * per CPU from /proc/stat, read from recorded trees (tests/data/explain)
 * and from this machine; the environment of a recorded two-node machine. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/cpu.h"
#include "core/explain.h"
#include "core/internal.h"
#include "nvbench.h"
#include "testutil.h"
#include "util/json.h"

#define TREES NVB_SOURCE_DIR "/tests/data/explain/"
#define TICK_NS 10000000ull /* USER_HZ 100, the recorded trees' */

static void sample(const char *tree, struct nvb__sys_sample *s)
{
    int rc = nvb__sys_sample_at(tree, s);
    ck_assert_msg(rc == 0, "%s: %d", tree, rc);
}


/* A result's text, read back and written again, is the same text. */
static void reads_back_the_same(const char *text)
{
    struct nvb_result *back = NULL;
    char why[256], *again = NULL;
    ck_assert_msg(nvb_result_parse(text, strlen(text), &back, why, sizeof why) == 0, "%s", why);
    ck_assert_int_eq(nvb_result_json(back, &again), 0);
    ck_assert_str_eq(text, again);
    nvb_free(again);
    nvb_result_free(back);
}
START_TEST(recorded_stat_is_parsed)
{
    struct nvb__sys_sample a;
    sample(TREES "two-node", &a);
    ck_assert_int_eq(a.ncpu, 4);
    ck_assert_uint_eq(a.tick_ns, TICK_NS);
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(a.cpu_id[i], i);
        ck_assert_uint_eq(a.cpu[i].user, (1000 + 100 * (uint64_t)i) * TICK_NS);
        ck_assert_uint_eq(a.cpu[i].softirq, 50 * TICK_NS);
    }
    ck_assert_uint_eq(a.total.system, 4 * 2000 * TICK_NS);
    nvb__sys_sample_free(&a);
    /* this VM's own text, with every line /proc/stat has after the CPUs */
    sample(TREES "vm/t0", &a);
    ck_assert_int_gt(a.ncpu, 0);
    ck_assert_uint_gt(a.total.user, 0);
    nvb__sys_sample_free(&a);
    ck_assert_int_eq(nvb__sys_sample_at(TREES "no-such-tree", &a), -ENOTSUP);
}
END_TEST

/* A result of `ios` I/Os whose CPU window is the two recorded samples. */
static struct nvb_result *result_of(const char *t0, const char *t1, uint64_t ios)
{
    struct nvb__sys_sample a, b;
    sample(t0, &a);
    sample(t1, &b);
    struct nvb_result *r = nvb__result_new();
    ck_assert_ptr_nonnull(r);
    r->tot[0].ios = ios;
    r->duration_s = 1;
    r->process_user_s = 0.1;
    r->process_sys_s = 0.2;
    ck_assert_int_eq(nvb__cpu_fill(r, &a, &b, 100000000, 200000000), 0);
    ck_assert_int_eq(nvb__explain_cpu(r, &a, &b), 0);
    nvb__sys_sample_free(&a);
    nvb__sys_sample_free(&b);
    return r;
}

static struct nvb__jv *json_of(const struct nvb_result *r, char **text)
{
    char why[128];
    struct nvb__jv *root = NULL;
    ck_assert_int_eq(nvb_result_json(r, text), 0);
    ck_assert_msg(nvb__json_parse(*text, strlen(*text), &root, why, sizeof why) == 0, "%s", why);
    return root;
}

static double num(const struct nvb__jv *o, const char *key)
{
    const struct nvb__jv *v = nvb__json_get(o, key);
    double d = NAN;
    ck_assert_msg(v, "no %s", key);
    if (v->type == NVB__J_NUM)
        nvb__json_dbl(v, &d);
    return d;
}

static const char *const KINDS[] = {"user", "system", "irq", "softirq", "iowait", "steal"};

/* the machine's counters count less busy time than the process used:
 * a warning says they lost time; within their ticks, none */
START_TEST(own_time_above_the_machines_warns)
{
    struct nvb_result *r = result_of(TREES "two-node", TREES "two-node-end", 10000);
    nvb__explain_own_check(r); /* own 0.3 s, the machine's busy 1.55 s */
    char *text;
    nvb__json_free(json_of(r, &text));
    ck_assert_ptr_null(strstr(text, "the counters lost time"));
    nvb_free(text);
    r->process_user_s = 1.4; /* 1.6 s: above 1.55 s, within the slack of 2 ticks x 4 CPUs (80 ms) */
    nvb__explain_own_check(r);
    nvb__json_free(json_of(r, &text));
    ck_assert_ptr_null(strstr(text, "the counters lost time"));
    nvb_free(text);
    r->process_user_s = 2.0; /* 2.2 s */
    nvb__explain_own_check(r);
    nvb__json_free(json_of(r, &text));
    ck_assert_ptr_nonnull(strstr(text, "account for 1550.0 ms of busy CPU over the run's window, less than this "
                                       "process's own 2200.0 ms: the counters lost time"));
    nvb_free(text);
    nvb_result_free(r);
}
END_TEST

/* Windows' shape: no iowait or steal counter. Those kinds are null, never
 * 0, in machine_ns, per_io_us and every per_cpu row, with the reason; the
 * others are figures; read back, the same text */
START_TEST(missing_kinds_are_null_with_the_reason)
{
    struct nvb_result *r = result_of(TREES "two-node", TREES "two-node-end", 10000);
    r->ex->kinds_missing = NVB__KB_IOWAIT | NVB__KB_STEAL;
    char *text;
    struct nvb__jv *root = json_of(r, &text);
    const struct nvb__jv *cpu = nvb__json_get(root, "cpu"), *pio = nvb__json_get(cpu, "per_io_us");
    ck_assert_int_eq(nvb__json_get(pio, "iowait")->type, NVB__J_NULL);
    ck_assert_int_eq(nvb__json_get(pio, "steal")->type, NVB__J_NULL);
    ck_assert_double_eq_tol(num(pio, "softirq"), 30, 1e-9);
    ck_assert_double_eq_tol(num(pio, "busy"), 155, 1e-9);
    const struct nvb__jv *why = nvb__json_get(pio, "missing_kinds_reason");
    ck_assert_ptr_nonnull(why);
    ck_assert_str_eq(why->s, "unavailable: this platform keeps no counter of iowait steal (Windows has no iowait "
                             "or steal time): null, never 0");
    ck_assert_int_eq(nvb__json_get(nvb__json_get(cpu, "machine_ns"), "iowait")->type, NVB__J_NULL);
    const struct nvb__jv *pc = nvb__json_get(cpu, "per_cpu");
    for (uint32_t i = 0; i < pc->n; i++) {
        ck_assert_int_eq(nvb__json_get(nvb__json_get(&pc->kid[i], "ns"), "steal")->type, NVB__J_NULL);
        ck_assert_int_eq(nvb__json_get(&pc->kid[i], "iowait")->type, NVB__J_NULL);
    }
    reads_back_the_same(text);
    /* a kind that every platform counts cannot be null */
    char *bad = strdup(text), *at = strstr(bad, "\"machine_ns\":{\"user\":");
    ck_assert_ptr_nonnull(at);
    at += strlen("\"machine_ns\":{\"user\":");
    memset(at, ' ', strspn(at, "0123456789"));
    memcpy(at, "null", 4);
    tu_refused_naming(bad, "machine_ns");
    free(bad);
    nvb__json_free(root);
    nvb_free(text);
    nvb_result_free(r);
}
END_TEST

START_TEST(kinds_per_io_from_recorded_window)
{
    struct nvb_result *r = result_of(TREES "two-node", TREES "two-node-end", 10000);
    char *text;
    struct nvb__jv *root = json_of(r, &text);
    const struct nvb__jv *cpu = nvb__json_get(root, "cpu"), *pio = nvb__json_get(cpu, "per_io_us");
    ck_assert_ptr_nonnull(pio);
    /* one tick (10 ms) over 10000 I/Os is 1 us per I/O: the deltas in
     * ticks read as us per I/O (mktrees.py) */
    ck_assert_double_eq_tol(num(pio, "user"), 50, 1e-9); /* nice counts as user */
    ck_assert_double_eq_tol(num(pio, "system"), 70, 1e-9);
    ck_assert_double_eq_tol(num(pio, "irq"), 5, 1e-9);
    ck_assert_double_eq_tol(num(pio, "softirq"), 30, 1e-9);
    ck_assert_double_eq_tol(num(pio, "iowait"), 5, 1e-9);
    ck_assert_double_eq_tol(num(pio, "steal"), 10, 1e-9);
    ck_assert_double_eq_tol(num(pio, "busy"), 155, 1e-9);
    ck_assert_double_eq_tol(num(pio, "resolution_us"), 1, 1e-9);
    ck_assert_double_eq_tol(num(pio, "own_user"), 10, 1e-9);
    ck_assert_double_eq_tol(num(pio, "own_system"), 20, 1e-9);
    ck_assert_int_eq(nvb__json_get(pio, "null_reason")->type, NVB__J_NULL);
    /* the softirq of CPU 2, which ran no job, is visible in its row; each
     * kind of the machine is the sum of the CPUs' */
    const struct nvb__jv *pc = nvb__json_get(cpu, "per_cpu");
    ck_assert_uint_eq(pc->n, 4);
    ck_assert_double_eq_tol(num(&pc->kid[2], "softirq"), 20, 1e-9);
    for (size_t k = 0; k < sizeof KINDS / sizeof KINDS[0]; k++) {
        double sum = 0;
        for (uint32_t i = 0; i < pc->n; i++)
            sum += num(&pc->kid[i], KINDS[k]);
        ck_assert_msg(fabs(sum - num(pio, KINDS[k])) < 1e-9, "%s: CPUs %g, machine %g", KINDS[k], sum,
                      num(pio, KINDS[k]));
    }
    /* nvb_result_get reaches them */
    ck_assert_double_eq_tol(tu_get(r, "cpu.per_io_us.softirq"), 30, 1e-9);
    ck_assert_double_eq_tol(tu_get(r, "cpu.per_cpu.2.softirq"), 20, 1e-9);
    /* read back, written again: the same text */
    reads_back_the_same(text);
    nvb__json_free(root);
    nvb_free(text);
    nvb_result_free(r);
}
END_TEST

/* The property the figures rest on, on this machine: over one window the
 * machine's kinds are the sum of its CPUs', and no
 * CPU's kinds (idle included) add up to more than the window plus the
 * counters' resolution (the rows and the total line agree to the ticks
 * between the kernel's two passes): a counter advances in whole ticks, so each of the
 * two reads may lag by up to a tick, 2 ticks per CPU. The window is
 * bracketed by clock reads on both sides of each /proc/stat read, so the
 * bound holds however the reads are delayed. They may add up to less: a
 * virtual CPU the host did not run, on a host that reports no steal, lost
 * that time from every kind (cpu.kinds_accounted_pct shows it; this VM
 * does that when its host is busy), so only the upper bound is a property. */
START_TEST(live_kinds_add_up)
{
    struct nvb__sys_sample a, b;
    struct timespec t[4];
    clock_gettime(CLOCK_MONOTONIC, &t[0]);
    if (nvb__sys_sample(&a) == -ENOTSUP)
        tu_skip("no /proc/stat here");
    clock_gettime(CLOCK_MONOTONIC, &t[1]);
    struct timespec nap = {0, 300000000};
    nanosleep(&nap, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t[2]);
    ck_assert_int_eq(nvb__sys_sample(&b), 0);
    clock_gettime(CLOCK_MONOTONIC, &t[3]);
#define NS(x) ((double)(x).tv_sec * 1e9 + (double)(x).tv_nsec)
    double outer = NS(t[3]) - NS(t[0]), tick = (double)b.tick_ns;
    ck_assert_int_eq(a.ncpu, b.ncpu);
    struct nvb__kinds m, sum = {0};
    nvb__kinds_delta(&a.total, &b.total, &m);
    for (int i = 0; i < b.ncpu; i++) {
        struct nvb__kinds k;
        nvb__kinds_delta(&a.cpu[i], &b.cpu[i], &k);
        double tot = (double)nvb__kinds_total(&k);
        ck_assert_msg(tot <= outer + 2 * tick, "cpu%d: kinds add up to %.0f ns, more than the window %.0f ns (tick %.0f)",
                      b.cpu_id[i], tot, outer, tick);
        sum.user += k.user, sum.nice += k.nice, sum.system += k.system, sum.irq += k.irq;
        sum.softirq += k.softirq, sum.iowait += k.iowait, sum.steal += k.steal, sum.idle += k.idle;
    }
    /* /proc/stat's total line is summed in a pass before the rows are
     * printed: the two differ by the ticks between, up to one per CPU in
     * each read (the result's machine figures are the rows' sum for that) */
    const double slack = 2.0 * b.ncpu * tick;
    const uint64_t *ks = &sum.user, *km = &m.user;
    for (int k = 0; k < 8; k++)
        ck_assert_msg(fabs((double)ks[k] - (double)km[k]) <= slack, "kind %d: rows %llu, total %llu", k,
                      (unsigned long long)ks[k], (unsigned long long)km[k]);
    nvb__sys_sample_free(&a);
    nvb__sys_sample_free(&b);
}
END_TEST

START_TEST(too_few_ticks_null_with_reason)
{
    /* the same tree at both ends: no tick in the window */
    struct nvb_result *r = result_of(TREES "two-node", TREES "two-node", 10);
    char *text;
    struct nvb__jv *root = json_of(r, &text);
    const struct nvb__jv *cpu = nvb__json_get(root, "cpu"), *pio = nvb__json_get(cpu, "per_io_us");
    for (size_t k = 0; k < sizeof KINDS / sizeof KINDS[0]; k++)
        ck_assert_msg(isnan(num(pio, KINDS[k])), "%s not null", KINDS[k]);
    const struct nvb__jv *why = nvb__json_get(pio, "null_reason");
    ck_assert(why && why->type == NVB__J_STR && strstr(why->s, "ticks"));
    ck_assert_uint_eq(nvb__json_get(cpu, "per_cpu")->n, 0);
    ck_assert_int_eq(nvb__json_get(cpu, "machine_ns")->type, NVB__J_NULL);
    reads_back_the_same(text);
    nvb__json_free(root);
    nvb_free(text);
    nvb_result_free(r);
}
END_TEST

static const struct nvb__jv *fact(const struct nvb__jv *o, const char *key, const char *src_part)
{
    const struct nvb__jv *f = nvb__json_get(o, key);
    ck_assert_msg(f, "no fact %s", key);
    const struct nvb__jv *src = nvb__json_get(f, "source");
    ck_assert_msg(src && src->type == NVB__J_STR && strstr(src->s, src_part), "%s: source %s", key,
                  src ? src->s : "none");
    return nvb__json_get(f, "value");
}

static void is_str(const struct nvb__jv *v, const char *want)
{
    ck_assert_msg(v && v->type == NVB__J_STR && !strcmp(v->s, want), "%s, not %s", v && v->type == NVB__J_STR ? v->s : "?",
                  want);
}

static void is_num(const struct nvb__jv *v, uint64_t want)
{
    uint64_t got;
    ck_assert_msg(v && !nvb__json_u64(v, &got) && got == want, "not %llu", (unsigned long long)want);
}

START_TEST(environment_of_recorded_two_node)
{
    const char *devs[] = {"nvme0n1p1", "nvme0n1", "sdz"};
    char *text = nvb__env_json(TREES "two-node", devs, 3, 1.5, NULL);
    ck_assert_ptr_nonnull(text);
    struct nvb__jv *env = NULL;
    char why[128];
    ck_assert_msg(nvb__json_parse(text, strlen(text), &env, why, sizeof why) == 0, "%s: %s", why, text);
    is_str(fact(env, "kernel_release", "/proc/sys/kernel/osrelease"), "6.8.0-45-generic");
    ck_assert(strstr(fact(env, "kernel_cmdline", "/proc/cmdline")->s, "nvme.poll_queues=4"));
    is_str(fact(env, "mitigations", "/proc/cmdline"), "off");
    is_str(fact(env, "iommu", "/proc/cmdline"), "on");
    is_num(fact(env, "nvme_poll_queues", "poll_queues"), 4);
    is_str(fact(env, "cpu_governor", "scaling_governor"), "performance");
    is_str(fact(env, "smt", "smt/control"), "on");
    is_num(fact(env, "smt_active", "smt/active"), 1);
    is_str(fact(env, "transparent_hugepages", "transparent_hugepage"), "always");
    is_str(fact(env, "cpuidle_driver", "cpuidle"), "intel_idle");
    is_str(fact(env, "hypervisor", "cpuinfo"), "none");
    is_str(fact(env, "steal", "/proc/stat"), "1.5 %");
    const struct nvb__jv *devices = nvb__json_get(env, "devices");
    /* a partition's queue is its disk's */
    const struct nvb__jv *disks[] = {nvb__json_get(devices, "nvme0n1p1"), nvb__json_get(devices, "nvme0n1")};
    for (int i = 0; i < 2; i++) {
        ck_assert_ptr_nonnull(disks[i]);
        is_str(fact(disks[i], "scheduler", "queue/scheduler"), "mq-deadline");
        is_num(fact(disks[i], "nomerges", "queue/nomerges"), 0);
        is_num(fact(disks[i], "iostats", "queue/iostats"), 1);
        is_num(fact(disks[i], "rq_affinity", "queue/rq_affinity"), 1);
        is_str(fact(disks[i], "write_cache", "queue/write_cache"), "write through");
        is_num(fact(disks[i], "nr_requests", "queue/nr_requests"), 1023);
        is_num(fact(disks[i], "read_ahead_kb", "queue/read_ahead_kb"), 128);
        is_num(fact(disks[i], "numa_node", "numa_node"), 1);
    }
    /* a device the tree does not have: each fact null, with its reason */
    const struct nvb__jv *sdz = nvb__json_get(devices, "sdz");
    ck_assert_ptr_nonnull(sdz);
    const struct nvb__jv *s = nvb__json_get(sdz, "scheduler");
    ck_assert_int_eq(nvb__json_get(s, "value")->type, NVB__J_NULL);
    ck_assert_int_eq(nvb__json_get(s, "null_reason")->type, NVB__J_STR);
    nvb__json_free(env);
    free(text);
    /* this VM: no cpufreq and no DMI in a tree without them: null, why */
    const char *none[] = {NULL};
    text = nvb__env_json(TREES "vm/t0", none, 0, NAN, "not a run");
    ck_assert_msg(nvb__json_parse(text, strlen(text), &env, why, sizeof why) == 0, "%s", why);
    const struct nvb__jv *g = nvb__json_get(env, "cpu_governor");
    ck_assert_int_eq(nvb__json_get(g, "value")->type, NVB__J_NULL);
    ck_assert(strstr(nvb__json_get(g, "null_reason")->s, "cpufreq"));
    nvb__json_free(env);
    free(text);
}
END_TEST

START_TEST(run_has_kinds_and_environment)
{
    char *file = tu_scratch("explain", 4 << 20);
    const char *kv[] = {"engine", "psync", "rw", "randread", "bs", "4k", "runtime", "300ms", "direct", "0", NULL};
    const char *tg[] = {file, NULL};
    struct nvb_workload *w = tu_workload(kv, tg);
    struct nvb_result *r = tu_run_ok(w);
    char *text;
    struct nvb__jv *root = json_of(r, &text);
    const struct nvb__jv *cpu = nvb__json_get(root, "cpu"), *pio = nvb__json_get(cpu, "per_io_us");
    ck_assert_ptr_nonnull(pio);
    const struct nvb__jv *nr = nvb__json_get(pio, "null_reason");
    if (nr->type == NVB__J_NULL) {
        double parts = num(pio, "user") + num(pio, "system") + num(pio, "irq") + num(pio, "softirq");
        ck_assert_msg(fabs(parts - num(pio, "busy")) <= 1e-9 * num(pio, "busy"), "parts %g busy %g", parts,
                      num(pio, "busy"));
        /* the per-CPU rows add up to the machine's, kind by kind */
        const struct nvb__jv *pc = nvb__json_get(cpu, "per_cpu");
        ck_assert_uint_gt(pc->n, 0);
        for (size_t k = 0; k < sizeof KINDS / sizeof KINDS[0]; k++) {
            double sum = 0;
            for (uint32_t i = 0; i < pc->n; i++)
                sum += num(&pc->kid[i], KINDS[k]);
            ck_assert_msg(fabs(sum - num(pio, KINDS[k])) <= 1e-9 * (1 + sum), "%s", KINDS[k]);
        }
        ck_assert(num(cpu, "kinds_accounted_pct") > 0);
    } else {
        ck_assert_int_eq(nr->type, NVB__J_STR); /* not measured: it says why */
    }
    const struct nvb__jv *env = nvb__json_get(root, "environment");
    ck_assert_ptr_nonnull(env);
    ck_assert_ptr_nonnull(nvb__json_get(nvb__json_get(env, "kernel_release"), "source"));
    ck_assert_ptr_nonnull(nvb__json_get(env, "devices"));
    nvb__json_free(root);
    nvb_free(text);
    nvb_result_free(r);
    nvb_workload_free(w);
    unlink(file);
    free(file);
}
END_TEST

static const struct nvb__jv *check_of(const struct nvb__jv *checks, const char *fact, const char *sev)
{
    for (uint32_t i = 0; i < checks->n; i++) {
        const struct nvb__jv *c = &checks->kid[i];
        if (!strcmp(nvb__json_get(c, "fact")->s, fact) && !strcmp(nvb__json_get(c, "severity")->s, sev))
            return c;
    }
    return NULL;
}

START_TEST(checks_of_recorded_two_node)
{
    const char *targets[] = {"nvme0n1"};
    char *text = NULL, why[128];
    ck_assert_int_eq(nvb_environment_json(TREES "two-node", targets, 1, &text), 0);
    struct nvb__jv *root = NULL;
    ck_assert_msg(nvb__json_parse(text, strlen(text), &root, why, sizeof why) == 0, "%s", why);
    const struct nvb__jv *checks = nvb__json_get(root, "checks");
    ck_assert_ptr_nonnull(checks);
    const struct nvb__jv *c = check_of(checks, "scheduler", "warn");
    ck_assert_msg(c, "no scheduler check: %s", text);
    ck_assert(strstr(nvb__json_get(c, "message")->s, "mq-deadline on nvme0n1"));
    ck_assert(strstr(nvb__json_get(c, "advice")->s, "none"));
    ck_assert_str_eq(nvb__json_get(c, "device")->s, "nvme0n1");
    /* performance governor, mitigations off, no hypervisor: nothing said */
    ck_assert_ptr_null(check_of(checks, "cpu_governor", "warn"));
    ck_assert_ptr_null(check_of(checks, "mitigations", "note"));
    ck_assert_ptr_null(check_of(checks, "hypervisor", "note"));
    ck_assert_ptr_nonnull(check_of(checks, "smt", "note"));
    ck_assert_ptr_nonnull(check_of(checks, "transparent_hugepages", "note"));
    /* the same warn checks become a run's warnings */
    struct nvb_result *r = nvb__result_new();
    struct nvb__explain *x = nvb__explain_of(r);
    ck_assert_int_eq(nvb__json_copy(x->env = calloc(1, sizeof *x->env), nvb__json_get(root, "environment")), 0);
    nvb__env_warn(r);
    int found = 0;
    for (size_t i = 0; i < nvb_result_warning_count(r); i++) {
        const char *w = nvb_result_warning(r, i);
        ck_assert_msg(!strstr(w, "SMT"), "a note became a warning: %s", w);
        found |= strstr(w, "environment: scheduler mq-deadline on nvme0n1") != NULL;
    }
    ck_assert(found);
    nvb_result_free(r);
    nvb__json_free(root);
    nvb_free(text);
    /* bad input */
    ck_assert_int_eq(nvb_environment_json(NULL, NULL, 0, NULL), -EINVAL);
    ck_assert_int_eq(nvb_environment_json(NULL, NULL, 1, &text), -EINVAL);
}
END_TEST

START_TEST(environment_of_this_machine)
{
    char *file = tu_scratch("explain-env", 1 << 20);
    const char *targets[] = {file};
    char *text = NULL, why[128];
    ck_assert_int_eq(nvb_environment_json(NULL, targets, 1, &text), 0);
    struct nvb__jv *root = NULL;
    ck_assert_msg(nvb__json_parse(text, strlen(text), &root, why, sizeof why) == 0, "%s", why);
    const struct nvb__jv *env = nvb__json_get(root, "environment");
    const struct nvb__jv *rel = nvb__json_get(nvb__json_get(env, "kernel_release"), "value");
    ck_assert(rel && rel->type == NVB__J_STR && rel->s[0]);
    ck_assert_ptr_nonnull(nvb__json_get(root, "checks"));
    nvb__json_free(root);
    nvb_free(text);
    unlink(file);
    free(file);
}
END_TEST

static uint64_t u(const struct nvb__jv *v)
{
    uint64_t x = 0;
    ck_assert_msg(v && nvb__json_u64(v, &x) == 0, "not a count");
    return x;
}

START_TEST(interrupts_of_recorded_two_node)
{
    char *t0 = nvb__irq_read(TREES "two-node"), *t1 = nvb__irq_read(TREES "two-node-end");
    ck_assert(t0 && t1);
    const char *devs[] = {"nvme0n1", "nvme0n1p1"};
    char why[192];
    char *text = nvb__irq_json(TREES "two-node", t0, t1, devs, 2, why, sizeof why);
    ck_assert_msg(text, "%s", why);
    struct nvb__jv *o = NULL;
    ck_assert_msg(nvb__json_parse(text, strlen(text), &o, why, sizeof why) == 0, "%s: %s", why, text);
    const struct nvb__jv *d = nvb__json_get(nvb__json_get(o, "devices"), "nvme0n1");
    ck_assert_ptr_nonnull(d);
    ck_assert_str_eq(nvb__json_get(d, "controller")->s, "nvme0");
    const struct nvb__jv *q = nvb__json_get(d, "queues");
    ck_assert_uint_eq(q->n, 5); /* nvme0q0..4, not nvme1q1 */
    static const uint64_t want[5] = {0, 1000, 200, 0, 57};
    uint64_t sum = 0;
    for (uint32_t i = 0; i < q->n; i++) {
        ck_assert_uint_eq(u(nvb__json_get(&q->kid[i], "count")), want[i]);
        sum += want[i];
    }
    ck_assert_uint_eq(u(nvb__json_get(d, "count")), sum);
    /* the partition is its disk's controller's; each queue's interrupts
     * counted once in the machine's figures */
    const struct nvb__jv *p1 = nvb__json_get(nvb__json_get(o, "devices"), "nvme0n1p1");
    ck_assert_str_eq(nvb__json_get(p1, "controller")->s, "nvme0");
    ck_assert_uint_eq(nvb__json_get(p1, "queues")->n, 0);
    const struct nvb__jv *pc = nvb__json_get(o, "per_cpu");
    ck_assert_uint_eq(pc->n, 4);
    /* per CPU: q4's 7 on CPU 2 show where a queue's vector was not its CPU's */
    ck_assert_uint_eq(u(&pc->kid[0]), 1000);
    ck_assert_uint_eq(u(&pc->kid[2]), 7);
    uint64_t cpus = 0;
    for (uint32_t i = 0; i < pc->n; i++)
        cpus += u(&pc->kid[i]);
    ck_assert_uint_eq(cpus, u(nvb__json_get(o, "count")));
    nvb__json_free(o);
    free(text);
    free(t0);
    free(t1);
}
END_TEST

START_TEST(interrupts_of_a_run_read_back)
{
    char *file = tu_scratch("explain-irq", 4 << 20);
    const char *kv[] = {"engine", "psync", "rw", "randread", "bs", "4k", "ios", "200", "direct", "1", NULL};
    const char *tg[] = {file, NULL};
    struct nvb_workload *w = tu_workload(kv, tg);
    struct nvb_result *r = tu_run_ok(w);
    char *text, *again = NULL, why[256];
    struct nvb__jv *root = json_of(r, &text);
    const struct nvb__jv *in = nvb__json_get(root, "interrupts");
    ck_assert_ptr_nonnull(in);
    const struct nvb__jv *jobs = nvb__json_get(nvb__json_get(root, "placement"), "jobs");
    ck_assert_msg(jobs && jobs->n == 1, "the run's one job in placement.jobs");
    const struct nvb__jv *per_io = nvb__json_get(in, "per_io");
    if (per_io->type == NVB__J_NULL)
        ck_assert_int_eq(nvb__json_get(in, "null_reason")->type, NVB__J_STR);
    /* the warning iff the job's CPU took none of the interrupts that came */
    const struct nvb__jv *cpus = nvb__json_get(in, "cpus"), *per = nvb__json_get(in, "per_cpu");
    const struct nvb__jv *c = nvb__json_get(&jobs->kid[0], "most_seen_cpu");
    if (cpus && per && c && c->type == NVB__J_NUM) {
        int away = 0;
        for (uint32_t k = 0; k < cpus->n; k++)
            away |= u(&cpus->kid[k]) == u(c) && u(&per->kid[k]) == 0 && u(nvb__json_get(in, "count")) > 0;
        int warned = 0;
        for (size_t k = 0; k < nvb_result_warning_count(r); k++)
            warned |= strstr(nvb_result_warning(r, k), "ran on a CPU that took none of the targets'") != NULL;
        ck_assert_int_eq(warned, away);
    }
    reads_back_the_same(text);
    nvb__json_free(root);
    nvb_free(text);
    nvb_result_free(r);
    nvb_workload_free(w);
    unlink(file);
    free(file);
}
END_TEST

/* A result whose targets have no controller of their own (a loop device's
 * interrupts are its backing device's): per_io is null with that reason,
 * not 0. The run's interrupts are replaced by such a loop device's. */
START_TEST(interrupts_without_a_controller_are_null)
{
    char *file = tu_scratch("explain-irq", 1 << 20);
    const char *kv[] = {"engine", "psync", "rw", "randread", "bs", "4k", "ios", "50", "direct", "0", NULL};
    const char *tg[] = {file, NULL};
    struct nvb_workload *w = tu_workload(kv, tg);
    struct nvb_result *r = tu_run_ok(w), *back = NULL;
    char *text = NULL, *again = NULL, why[256];
    ck_assert_int_eq(nvb_result_json(r, &text), 0);
    char *at = strstr(text, "\"interrupts\":{"), *end;
    ck_assert_ptr_nonnull(at);
    int depth = 0;
    for (end = strchr(at, '{');; end++) { /* the object's end: no brace inside its strings */
        depth += *end == '{' ? 1 : *end == '}' ? -1 : 0;
        if (!depth)
            break;
    }
    static const char loop[] = "\"interrupts\":{\"cpus\":[0],\"devices\":{\"loop9\":{\"controller\":null,\"queues\":[],"
                               "\"count\":null,\"null_reason\":\"no controller in sysfs\"}},\"per_cpu\":[0],\"count\":0,"
                               "\"per_io\":0,\"null_reason\":null}";
    size_t head = (size_t)(at - text), tail = strlen(end + 1);
    char *edited = malloc(head + sizeof loop + tail);
    ck_assert_ptr_nonnull(edited);
    memcpy(edited, text, head);
    memcpy(edited + head, loop, sizeof loop - 1);
    memcpy(edited + head + sizeof loop - 1, end + 1, tail + 1);
    ck_assert_msg(nvb_result_parse(edited, strlen(edited), &back, why, sizeof why) == 0, "%s", why);
    ck_assert_int_eq(nvb_result_json(back, &again), 0);
    ck_assert_msg(strstr(again, "\"per_io\":null,\"null_reason\":\"no target device has a controller of its own"),
                  "%.300s", strstr(again, "\"interrupts\""));
    free(edited);
    nvb_free(again);
    nvb_free(text);
    nvb_result_free(back);
    nvb_result_free(r);
    nvb_workload_free(w);
    unlink(file);
    free(file);
}
END_TEST

struct warns {
    int n;
    char last[256];
};

static void count_warn(void *arg, const char *sev, const char *fact, const char *dev, const char *msg,
                       const char *advice)
{
    struct warns *w = arg;
    (void)sev;
    (void)fact;
    (void)dev;
    (void)advice;
    w->n++;
    snprintf(w->last, sizeof w->last, "%s", msg);
}

START_TEST(placement_on_recorded_two_node)
{
    const struct nvb__thread_place jobs[] = {{101, 0, "nvb-job-0"}, {102, 3, "nvb-job-1"}};
    const char *devs[] = {"nvme0n1"};
    struct warns w = {0};
    char *text = nvb__place_json(TREES "two-node", jobs, 2, "0-3", devs, 1, count_warn, &w);
    ck_assert_ptr_nonnull(text);
    struct nvb__jv *o = NULL;
    char why[128];
    ck_assert_msg(nvb__json_parse(text, strlen(text), &o, why, sizeof why) == 0, "%s: %s", why, text);
    ck_assert_uint_eq(u(nvb__json_get(o, "nodes")), 2);
    ck_assert_uint_eq(u(nvb__json_get(nvb__json_get(nvb__json_get(o, "devices"), "nvme0n1"), "node")), 1);
    const struct nvb__jv *j = nvb__json_get(o, "jobs");
    ck_assert_uint_eq(u(nvb__json_get(&j->kid[0], "node")), 0);
    ck_assert_uint_eq(u(nvb__json_get(&j->kid[1], "node")), 1);
    /* one job off the device's node: one warning, naming both nodes */
    ck_assert_int_eq(w.n, 1);
    ck_assert_msg(strstr(w.last, "nvb-job-0 last ran on CPU 0 (node 0), the device nvme0n1 is on node 1"), "%s", w.last);
    nvb__json_free(o);
    free(text);
}
END_TEST

/* A job on a CPU that took none of the device's interrupts while another
 * took them: one warning naming the job, its CPU and the CPU that took
 * them; a job on the interrupts' CPU, or a run with none (polled), none. */
START_TEST(jobs_away_from_the_interrupts_warn)
{
    static const char place[] = "{\"jobs\":[{\"name\":\"nvb-job-0\",\"last_cpu\":1,\"most_seen_cpu\":0},"
                                "{\"name\":\"nvb-job-1\",\"last_cpu\":1,\"most_seen_cpu\":null}]}";
    static const char irq[] = "{\"cpus\":[0,1],\"per_cpu\":[0,404],\"count\":404}";
    static const char polled[] = "{\"cpus\":[0,1],\"per_cpu\":[0,0],\"count\":0}";
    static const char on_it[] = "{\"jobs\":[{\"name\":\"nvb-job-0\",\"last_cpu\":1,\"most_seen_cpu\":1}]}";
    struct nvb__jv *p = NULL, *i = NULL, *z = NULL, *q = NULL;
    char why[128];
    ck_assert_int_eq(nvb__json_parse(place, strlen(place), &p, why, sizeof why), 0);
    ck_assert_int_eq(nvb__json_parse(irq, strlen(irq), &i, why, sizeof why), 0);
    ck_assert_int_eq(nvb__json_parse(polled, strlen(polled), &z, why, sizeof why), 0);
    ck_assert_int_eq(nvb__json_parse(on_it, strlen(on_it), &q, why, sizeof why), 0);
    struct warns w = {0};
    ck_assert_int_eq(nvb__place_irq_check(p, i, count_warn, &w), 1); /* job 1: last CPU 1, which took them */
    ck_assert_int_eq(w.n, 1);
    ck_assert_str_eq(w.last, "job nvb-job-0 (CPU 0) ran on a CPU that took none of the targets' 404 device "
                             "interrupts (CPU 1 took them)");
    ck_assert_int_eq(nvb__place_irq_check(p, z, count_warn, &w), 0);
    ck_assert_int_eq(nvb__place_irq_check(q, i, count_warn, &w), 0);
    ck_assert_int_eq(w.n, 1);
    nvb__json_free(p);
    nvb__json_free(i);
    nvb__json_free(z);
    nvb__json_free(q);
}
END_TEST

/* What the sampler saw of each job: migrations over the window (the
 * count at the end less the one at the start), the CPU seen most, the
 * samples; a job it did not see, or a kernel without the count, null. */
START_TEST(placement_seen_on_recorded_two_node)
{
    struct nvb__thread_place jobs[] = {{101, 0, "nvb-job-0", 7}, {102, 3, "nvb-job-1", 4}, {103, 2, "nvb-job-2", -1}};
    struct nvb__place_seen seen[] = {
        {.tid = 101, .mig0 = 5, .samples = 3, .cpu = {1, 0}, .n = {1, 2}, .buf_node = 1, .buf_policy = "preferred"},
        {.tid = 103, .mig0 = -1, .samples = 2, .cpu = {2}, .n = {2}, .buf_node = -1}};
    const char *devs[] = {"nvme0n1"};
    char *text = nvb__place_json_seen(TREES "two-node", jobs, 3, "0-3", devs, 1, seen, 2, NULL, NULL);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(strstr(text, "\"last_cpu\":0,\"node\":0,\"migrations\":2,\"most_seen_cpu\":0,\"samples\":3,"
                               "\"buffer_node\":1,\"buffer_policy\":\"preferred\"}"),
                  "%s", text);
    /* null, each with why: not seen at the start; no count from the kernel */
    ck_assert_msg(strstr(text, "\"last_cpu\":3,\"node\":1,\"migrations\":null,\"migrations_null_reason\":\"the thread was "
                               "not seen at the window's start\",\"most_seen_cpu\":null,\"samples\":0,"
                               "\"buffer_node\":null,\"buffer_policy\":null}"),
                  "%s", text);
    ck_assert_msg(strstr(text, "\"last_cpu\":2,\"node\":1,\"migrations\":null,\"migrations_null_reason\":\"the kernel gives "
                               "no per-thread count: /proc/self/task/T/sched has no se.nr_migrations (CONFIG_SCHED_DEBUG)\","
                               "\"most_seen_cpu\":2,\"samples\":2,\"buffer_node\":null,\"buffer_policy\":null}"),
                  "%s", text);
    free(text);
}
END_TEST

/* A job pinned to one CPU: seen there at every sample, and (where the
 * kernel counts them) no migration over the window. */
START_TEST(pinned_job_is_seen_on_its_cpu)
{
    if (nvb__ncpus() < 2)
        return; /* one CPU: pinning shows nothing */
    char *file = tu_scratch("explain-pin", 1 << 20);
    const char *kv[] = {"engine", "psync", "rw", "randread", "bs", "4k", "runtime", "300ms", "direct", "0",
                        "cpus", "1", "interval", "100ms", NULL};
    const char *tg[] = {file, NULL};
    struct nvb_workload *w = tu_workload(kv, tg);
    struct nvb_result *r = tu_run_ok(w);
    char *text;
    struct nvb__jv *root = json_of(r, &text);
    const struct nvb__jv *jobs = nvb__json_get(nvb__json_get(root, "placement"), "jobs");
    ck_assert_msg(jobs && jobs->type == NVB__J_ARR && jobs->n == 1, "%s", text);
    const struct nvb__jv *j = &jobs->kid[0], *mig = nvb__json_get(j, "migrations");
    ck_assert_uint_eq(u(nvb__json_get(j, "most_seen_cpu")), 1);
    ck_assert_uint_eq(u(nvb__json_get(j, "last_cpu")), 1);
    ck_assert_uint_ge(u(nvb__json_get(j, "samples")), 2); /* the window's start and end */
    ck_assert_ptr_nonnull(mig);
    if (access("/proc/self/sched", R_OK) == 0)
        ck_assert_uint_eq(u(mig), 0);
    else
        ck_assert_int_eq(mig->type, NVB__J_NULL);
    reads_back_the_same(text);
    nvb__json_free(root);
    nvb_free(text);
    nvb_result_free(r);
    nvb_workload_free(w);
    unlink(file);
    free(file);
}
END_TEST

/* Buffers bound to a node: the pages are on it once touched; a node the
 * machine does not have is refused. */
START_TEST(buffers_bound_to_a_node)
{
    const size_t len = 1 << 20;
    char *p = nvb__alloc_aligned(4096, len);
    ck_assert_ptr_nonnull(p);
    int rc = nvb__mem_bind_node(p, len, 0);
    if (rc == -ENOSYS) { /* a kernel without NUMA: nothing to check */
        nvb__free_aligned(p);
        return;
    }
    ck_assert_int_eq(rc, 0);
    char pol[24];
    ck_assert_int_ge(nvb__mem_policy_of(p, pol, sizeof pol), 0);
    ck_assert_str_eq(pol, "preferred"); /* the call left its policy on the buffer */
    memset(p, 1, len);
    ck_assert_int_eq(nvb__mem_node_of(p), 0);
    ck_assert_int_eq(nvb__mem_node_of(p + len - 1), 0);
    if (access("/sys/devices/system/node/node63", F_OK) != 0)
        ck_assert_int_eq(nvb__mem_bind_node(p, len, 63), -EINVAL);
    ck_assert_int_eq(nvb__mem_bind_node(p, len, -1), 0); /* unbound before the free */
    ck_assert_int_ge(nvb__mem_policy_of(p, pol, sizeof pol), 0);
    ck_assert_str_eq(pol, "default");
    nvb__free_aligned(p);
    char *q = nvb__alloc_aligned(4096, len); /* never bound: the default policy */
    ck_assert_int_ge(nvb__mem_policy_of(q, pol, sizeof pol), 0);
    ck_assert_str_eq(pol, "default");
    nvb__free_aligned(q);
}
END_TEST

/* A run's placement.jobs[] with cpus=local (or without: 0), parsed. */
static struct nvb__jv *local_run(int local, char **text, int *warned)
{
    char *file = tu_scratch("explain-local", 1 << 20);
    const char *kv[] = {"engine", "psync", "rw", "randread", "bs", "4k", "runtime", "200ms", "direct", "0",
                        local ? "cpus" : NULL, "local", NULL};
    const char *tg[] = {file, NULL};
    struct nvb_workload *w = tu_workload(kv, tg);
    struct nvb_result *r = tu_run_ok(w);
    *warned = 0;
    for (size_t i = 0; i < nvb_result_warning_count(r); i++)
        *warned |= strstr(nvb_result_warning(r, i), "cpus=local") != NULL;
    struct nvb__jv *root = json_of(r, text);
    reads_back_the_same(*text);
    nvb_result_free(r);
    nvb_workload_free(w);
    unlink(file);
    free(file);
    return root;
}

/* cpus=local: the node it used is placement.local with its source, and
 * the job's real buffer carries mbind's policy (get_mempolicy on it) and
 * lies on that node; on a one-node machine whose device sysfs gives no
 * node (this VM) that is the only node, so the call is made here too.
 * Where no node can be had the warning says the jobs are not pinned. A
 * run without cpus=local leaves the buffers' policy at the default. */
START_TEST(cpus_local_binds_the_buffers)
{
    char *text;
    int warned;
    struct nvb__jv *root = local_run(1, &text, &warned);
    const struct nvb__jv *p = nvb__json_get(root, "placement"), *jobs = nvb__json_get(p, "jobs");
    const struct nvb__jv *dev = nvb__json_get(p, "devices"), *loc = nvb__json_get(p, "local");
    ck_assert_msg(jobs && jobs->n == 1 && dev && dev->n >= 1, "%s", text);
    const struct nvb__jv *node = nvb__json_get(&dev->kid[0], "node");
    const struct nvb__jv *bn = nvb__json_get(&jobs->kid[0], "buffer_node");
    const struct nvb__jv *pol = nvb__json_get(&jobs->kid[0], "buffer_policy");
    ck_assert_msg(bn && pol, "%s", text);
    ck_assert_int_eq(!loc, warned); /* a node used, or the warning: never both */
    if (!loc) {
        ck_assert_msg(strstr(text, "the jobs are not pinned (all CPUs) and their buffers not bound to a node"), "%s",
                      text);
    } else {
        const char *src = nvb__json_get(loc, "source")->s;
        if (node->type == NVB__J_NULL)
            ck_assert_msg(u(nvb__json_get(p, "nodes")) == 1 && strstr(src, "the machine's only node"), "%s", text);
        else
            ck_assert_uint_eq(u(nvb__json_get(loc, "node")), u(node));
        if (access("/proc/self/numa_maps", F_OK) == 0) { /* a kernel with NUMA policies */
            ck_assert_msg(pol->type == NVB__J_STR && !strcmp(pol->s, "preferred"), "%s", text);
            ck_assert_uint_eq(u(bn), u(nvb__json_get(loc, "node")));
        }
    }
    nvb__json_free(root);
    nvb_free(text);
    root = local_run(0, &text, &warned);
    p = nvb__json_get(root, "placement");
    pol = nvb__json_get(&nvb__json_get(p, "jobs")->kid[0], "buffer_policy");
    ck_assert_msg(!nvb__json_get(p, "local") && !warned, "%s", text);
    if (access("/proc/self/numa_maps", F_OK) == 0)
        ck_assert_msg(pol->type == NVB__J_STR && !strcmp(pol->s, "default"), "%s", text);
    nvb__json_free(root);
    nvb_free(text);
}
END_TEST

/* A one-node machine (a tree written here) whose device sysfs gives no
 * node: cpus=local takes the machine's only node and says so. */
START_TEST(cpus_local_on_one_node_tree)
{
    char root[] = "/tmp/nvb-onenode-XXXXXX", path[256];
    ck_assert_ptr_nonnull(mkdtemp(root));
    static const char *const files[][2] = {{"/sys/devices/system/node/node0/cpulist", "0-1\n"},
                                           {"/sys/class/block/vdz/device/numa_node", "-1\n"}};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "mkdir -p \"$(dirname '%s%s')\"", root, files[i][0]);
        ck_assert_int_eq(system(path), 0);
        snprintf(path, sizeof path, "%s%s", root, files[i][0]);
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fputs(files[i][1], f);
        fclose(f);
    }
    uint64_t bits[NVB__MAX_CPUS / 64] = {0};
    int node = -2;
    char why[192];
    ck_assert_msg(nvb__node_cpus(root, "vdz", bits, &node, why, sizeof why) == 0, "%s", why);
    ck_assert_int_eq(node, 0);
    ck_assert_uint_eq(bits[0], 0x3u);
    ck_assert_str_eq(why, "the machine's only node; sysfs gives vdz none");
    snprintf(path, sizeof path, "rm -rf '%s'", root);
    ck_assert_int_eq(system(path), 0);
}
END_TEST

START_TEST(cpus_local_picks_the_device_node)
{
    uint64_t bits[NVB__MAX_CPUS / 64];
    int node = -2;
    char why[192];
    /* the recorded two-node machine: nvme0n1 (and its partition) on node 1, CPUs 2-3 */
    const char *devs[] = {"nvme0n1", "nvme0n1p1"};
    for (int i = 0; i < 2; i++) {
        ck_assert_msg(nvb__node_cpus(TREES "two-node", devs[i], bits, &node, why, sizeof why) == 0, "%s", why);
        ck_assert_int_eq(node, 1);
        ck_assert_uint_eq(bits[0], 0xcu);
        ck_assert_msg(strstr(why, "the numa_node of nvme0n1"), "%s", why);
    }
    ck_assert_int_eq(nvb__node_cpus(TREES "two-node", "sdz", bits, &node, why, sizeof why), -ENOENT);
    ck_assert(strstr(why, "no NUMA node"));
    /* io_uring.sqpoll_cpu=local's choice on nvme0n1's node (CPUs 2-3): the
     * first CPU no job took, else the node's first; none: -1 */
    ck_assert_int_eq(nvb__node_cpus(TREES "two-node", "nvme0n1", bits, &node, why, sizeof why), 0);
    uint64_t taken[NVB__MAX_CPUS / 64] = {0}, none[NVB__MAX_CPUS / 64] = {0};
    ck_assert_int_eq(nvb__cpu_pick(bits, taken), 2);
    taken[0] = 0x5; /* jobs on CPUs 0 and 2 */
    ck_assert_int_eq(nvb__cpu_pick(bits, taken), 3);
    taken[0] = 0xc; /* jobs on both of the node's CPUs */
    ck_assert_int_eq(nvb__cpu_pick(bits, taken), 2);
    ck_assert_int_eq(nvb__cpu_pick(none, taken), -1);
    /* a run: pinned to the node's CPUs, or, where sysfs gives the device
     * no node (this VM's virtio disk), not pinned with a warning */
    char *file = tu_scratch("explain-local", 1 << 20);
    const char *kv[] = {"engine", "psync", "rw", "randread", "ios", "100", "cpus", "local", "direct", "0", NULL};
    const char *tg[] = {file, NULL};
    struct nvb_workload *w = tu_workload(kv, tg);
    struct nvb_result *r = tu_run_ok(w);
    int warned = 0;
    for (size_t i = 0; i < nvb_result_warning_count(r); i++)
        warned |= strstr(nvb_result_warning(r, i), "cpus=local") != NULL;
    ck_assert_uint_eq((uint64_t)tu_get(r, "read.ios"), 100);
    char *echo = NULL;
    ck_assert_int_eq(nvb_result_json(r, &echo), 0);
    ck_assert_msg(strstr(echo, "\"cpus\":\"local\""), "the echo keeps cpus=local");
    char dev[64], dwhy[192];
    uint64_t ticks;
    int known = nvb__disk_io_ticks(file, dev, sizeof dev, &ticks, dwhy, sizeof dwhy) == 0 &&
                nvb__node_cpus(NULL, dev, bits, &node, why, sizeof why) == 0;
    if (!known) {
        ck_assert_msg(warned, "no node for the device, and no cpus=local warning");
    } else {
        /* pinned: the job's CPU is one of the node's */
        struct nvb__jv *root = NULL;
        ck_assert_int_eq(nvb__json_parse(echo, strlen(echo), &root, why, sizeof why), 0);
        const struct nvb__jv *jobs = nvb__json_get(nvb__json_get(root, "placement"), "jobs");
        uint64_t cpu = u(nvb__json_get(&jobs->kid[0], "last_cpu"));
        ck_assert_msg(bits[cpu / 64] >> (cpu % 64) & 1, "job on CPU %llu, not on node %d", (unsigned long long)cpu,
                      node);
        ck_assert(!warned);
        nvb__json_free(root);
    }
    nvb_free(echo);
    nvb_result_free(r);
    nvb_workload_free(w);
    unlink(file);
    free(file);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("explain");
    TCase *tc = tcase_create("recorded");
    tcase_add_test(tc, recorded_stat_is_parsed);
    tcase_add_test(tc, kinds_per_io_from_recorded_window);
    tcase_add_test(tc, own_time_above_the_machines_warns);
    tcase_add_test(tc, missing_kinds_are_null_with_the_reason);
    tcase_add_test(tc, too_few_ticks_null_with_reason);
    tcase_add_test(tc, environment_of_recorded_two_node);
    tcase_add_test(tc, checks_of_recorded_two_node);
    tcase_add_test(tc, interrupts_of_recorded_two_node);
    tcase_add_test(tc, placement_on_recorded_two_node);
    tcase_add_test(tc, placement_seen_on_recorded_two_node);
    tcase_add_test(tc, jobs_away_from_the_interrupts_warn);
    tcase_add_test(tc, cpus_local_on_one_node_tree);
    suite_add_tcase(s, tc);
    tc = tcase_create("live");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, live_kinds_add_up);
    tcase_add_test(tc, run_has_kinds_and_environment);
    tcase_add_test(tc, environment_of_this_machine);
    tcase_add_test(tc, interrupts_of_a_run_read_back);
    tcase_add_test(tc, interrupts_without_a_controller_are_null);
    tcase_add_test(tc, cpus_local_picks_the_device_node);
    tcase_add_test(tc, pinned_job_is_seen_on_its_cpu);
    tcase_add_test(tc, buffers_bound_to_a_node);
    tcase_add_test(tc, cpus_local_binds_the_buffers);
    suite_add_tcase(s, tc);
    return tu_run_suite(s) ? 1 : 0;
}
