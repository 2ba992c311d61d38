/*
 * The environment's checks: which recorded facts change storage figures in
 * a way a reader should know, with the advice a benchmark usually takes.
 * One list, read by the result's warnings (severity "warn") and by
 * `nvbench doctor` (every check) through nvb_environment_json(). docs/cpu.md.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/explain.h"
#include "core/internal.h"
#include "util/json.h"

static const struct nvb__jv *val(const struct nvb__jv *o, const char *key)
{
    const struct nvb__jv *v = nvb__json_get(nvb__json_get(o, key), "value");
    return v && v->type != NVB__J_NULL ? v : NULL;
}

static const char *str(const struct nvb__jv *o, const char *key)
{
    const struct nvb__jv *v = val(o, key);
    return v && (v->type == NVB__J_STR || v->type == NVB__J_NUM) ? v->s : NULL;
}

static int is(const struct nvb__jv *o, const char *key, const char *want)
{
    const char *s = str(o, key);
    return s && !strcmp(s, want);
}

struct out {
    nvb__check_fn fn;
    void *arg;
    int n;
};

static void say(struct out *o, const char *sev, const char *fact, const char *dev, const char *fmt_msg,
                const char *advice)
{
    o->fn(o->arg, sev, fact, dev, fmt_msg, advice);
    o->n++;
}

/* A device's checks that are one fact at one value: what it means (%s:
 * the device) and the advice. */
static const struct {
    const char *fact, *value, *sev, *msg, *advice;
} plain[] = {
    {"rq_affinity", "0", "warn", "rq_affinity 0 on %s: completions run on whichever CPU took the interrupt",
     "1 (the default) or 2 completes on the submitting CPU's group or CPU"},
    {"nomerges", "0", "note", "nomerges 0 on %s: adjacent I/Os may be merged into one device command",
     "random workloads are unaffected; for sequential small blocks, nomerges=2 measures each I/O as issued"},
    {"iostats", "1", "note", "iostats 1 on %s: the block layer accounts every I/O (a little CPU per I/O)",
     "keep it for nvbench's device utilisation; 0 removes that cost and that figure"},
    {"write_cache", "write back", "note", "write cache on %s is write back: writes complete when cached",
     "compare write results only between devices with the same cache setting, or use fsync/fua workloads"},
};

static void device_checks(struct out *o, const char *dev, const struct nvb__jv *d)
{
    char msg[256], adv[320];
    const char *sched = str(d, "scheduler");
    int flash = !strncmp(dev, "nvme", 4) || is(d, "rotational", "0");
    if (sched && strcmp(sched, "none") && flash) {
        snprintf(msg, sizeof msg, "scheduler %s on %s (a flash device): it costs CPU per I/O and may reorder", sched,
                 dev);
        snprintf(adv, sizeof adv, "none is the usual choice for benchmarks: echo none > /sys/block/%s/queue/scheduler",
                 dev);
        say(o, "warn", "scheduler", dev, msg, adv);
    }
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        if (is(d, plain[i].fact, plain[i].value)) {
            snprintf(msg, sizeof msg, plain[i].msg, dev);
            say(o, plain[i].sev, plain[i].fact, dev, msg, plain[i].advice);
        }
}

int nvb__env_checks(const struct nvb__jv *env, nvb__check_fn fn, void *arg)
{
    struct out o = {fn, arg, 0};
    char msg[256];
    if (!env)
        return 0;
    const char *gov = str(env, "cpu_governor");
    if (gov && strcmp(gov, "performance")) {
        snprintf(msg, sizeof msg, "CPU governor %s: the clock follows the load, so CPU per I/O and latency vary", gov);
        say(&o, "warn", "cpu_governor", NULL, msg, "performance holds the clock: cpupower frequency-set -g performance");
    }
    const char *m = str(env, "mitigations");
    if (m && strcmp(m, "off")) {
        snprintf(msg, sizeof msg, "CPU vulnerability mitigations %s: each system call and interrupt costs more", m);
        say(&o, "note", "mitigations", NULL, msg, "compare only results with the same setting (nvbench compare warns)");
    }
    if (is(env, "smt_active", "1"))
        say(&o, "note", "smt", NULL, "SMT is on: two jobs on sibling threads share one core",
            "pin jobs to distinct cores (cpus=) or compare only like settings");
    if (is(env, "transparent_hugepages", "always"))
        say(&o, "note", "transparent_hugepages", NULL, "transparent hugepages always: khugepaged may use CPU during runs",
            "madvise is the usual setting");
    const char *hv = str(env, "hypervisor");
    if (hv && strncmp(hv, "none", 4)) {
        say(&o, "note", "hypervisor", NULL,
            "a virtual machine: the host's scheduling shows as steal (or as lost time where it reports none), and "
            "hardware counters are usually unavailable",
            "compare only with runs on the same kind of machine; watch cpu.per_io_us.steal and "
            "cpu.kinds_accounted_pct");
    }
    const struct nvb__jv *st = val(env, "steal");
    double steal = st && st->type == NVB__J_STR ? strtod(st->s, NULL) : 0;
    if (steal >= 1) {
        snprintf(msg, sizeof msg, "the hypervisor took %.3g %% of the CPU time during the run (steal)", steal);
        say(&o, "warn", "steal", NULL, msg, "run on a quieter host, or with dedicated vCPUs");
    }
    const struct nvb__jv *devs = nvb__json_get(env, "devices");
    for (uint32_t i = 0; devs && devs->type == NVB__J_OBJ && i < devs->n; i++)
        device_checks(&o, devs->kid[i].key, &devs->kid[i]);
    return o.n;
}

/* The warn checks of a run's environment as the result's warnings. */
static void to_warning(void *arg, const char *sev, const char *fact, const char *dev, const char *msg,
                       const char *advice)
{
    (void)fact;
    (void)dev;
    if (!strcmp(sev, "warn"))
        nvb__result_warn(arg, "environment: %s (%s)", msg, advice);
}

void nvb__env_warn(struct nvb_result *r)
{
    if (r->ex && r->ex->env)
        nvb__env_checks(r->ex->env, to_warning, r);
}

/* ------------------------------------------------ nvb_environment_json */

struct jl {
    struct nvb__buf *b;
    int first;
};

static void to_json(void *arg, const char *sev, const char *fact, const char *dev, const char *msg, const char *advice)
{
    struct jl *l = arg;
    nvb__buf_puts(l->b, l->first ? "{\"severity\":" : ",{\"severity\":");
    l->first = 0;
    nvb__json_write_str(l->b, sev);
    nvb__buf_puts(l->b, ",\"fact\":");
    nvb__json_write_str(l->b, fact);
    nvb__buf_puts(l->b, ",\"device\":");
    if (dev)
        nvb__json_write_str(l->b, dev);
    else
        nvb__buf_puts(l->b, "null");
    nvb__buf_puts(l->b, ",\"message\":");
    nvb__json_write_str(l->b, msg);
    nvb__buf_puts(l->b, ",\"advice\":");
    nvb__json_write_str(l->b, advice);
    nvb__buf_puts(l->b, "}");
}

/* A target as a block device name: a path on the live system through its
 * file system's (or its own) device, else the name as given. */
static void dev_name(const char *root, const char *t, char *out, size_t len)
{
    char why[160];
    uint64_t ticks;
    out[0] = 0;
    if (!root && t[0] == '/' && nvb__disk_io_ticks(t, out, len, &ticks, why, sizeof why) == 0)
        return;
    const char *base = strrchr(t, '/');
    snprintf(out, len, "%s", base ? base + 1 : t);
}

NVB_API int nvb_environment_json(const char *root, const char *const *targets, size_t n, char **json)
{
    if (!json)
        return -EINVAL;
    *json = NULL;
    if (n && !targets)
        return -EINVAL;
    char(*names)[64] = calloc(n ? n : 1, sizeof *names);
    const char **devs = calloc(n ? n : 1, sizeof *devs);
    if (!names || !devs) {
        free(names);
        free(devs);
        return -ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        if (!targets[i]) {
            free(names);
            free(devs);
            return -EINVAL;
        }
        dev_name(root, targets[i], names[i], sizeof names[i]);
        devs[i] = names[i];
    }
    char *text = nvb__env_json(root, devs, n, NAN, "not a run: doctor reads the machine, not a window of it");
    free(names);
    free(devs);
    if (!text)
        return -ENOMEM;
    struct nvb__jv *env = NULL;
    char why[128];
    int rc = nvb__json_parse(text, strlen(text), &env, why, sizeof why);
    if (rc < 0) {
        free(text);
        return rc;
    }
    struct nvb__buf b = {0};
    nvb__buf_puts(&b, "{\"environment\":");
    nvb__buf_puts(&b, text);
    nvb__buf_puts(&b, ",\"checks\":[");
    struct jl l = {&b, 1};
    nvb__env_checks(env, to_json, &l);
    nvb__buf_puts(&b, "]}");
    nvb__json_free(env);
    free(text);
    return nvb__buf_take(&b, json) ? -ENOMEM : 0;
}
