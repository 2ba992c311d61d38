/*
 * The environment of a run: the facts of the machine and of each target's
 * device that change storage figures (kernel, its command line, the block
 * queue's settings, the CPU governor, SMT, transparent hugepages, the
 * hypervisor), each with the file it came from, or null with the reason.
 * Read through the platform (nvb__text_read), so a recorded tree stands in
 * for the live system in tests. docs/cpu.md, "environment".
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/explain.h"
#include "core/internal.h"
#include "util/json.h"

struct env {
    const char *root;
    struct nvb__buf b;
    int first;
};

static void sep(struct env *e)
{
    if (!e->first)
        nvb__buf_putn(&e->b, ",", 1);
    e->first = 0;
}

/* One fact: {"value": v, "source": s} or {"value": null, "source": s,
 * "null_reason": why}. kind 's' writes v as a string, 'n' as a number
 * (when it is one; else as a string). */
static void fact_val(struct env *e, const char *key, const char *v, const char *src, const char *why)
{
    sep(e);
    nvb__json_write_str(&e->b, key);
    nvb__buf_puts(&e->b, ":{\"value\":");
    if (v) {
        char *end;
        long long n = strtoll(v, &end, 10);
        if (*v && !*end && end != v && (n != 0 || v[0] == '0') && strlen(v) < 16)
            nvb__buf_printf(&e->b, "%lld", n);
        else
            nvb__json_write_str(&e->b, v);
    } else {
        nvb__buf_puts(&e->b, "null");
    }
    nvb__buf_puts(&e->b, ",\"source\":");
    nvb__json_write_str(&e->b, src);
    if (!v) {
        nvb__buf_puts(&e->b, ",\"null_reason\":");
        nvb__json_write_str(&e->b, why);
    }
    nvb__buf_putn(&e->b, "}", 1);
}

/* The choice a sysfs list marks with brackets ("none [mq-deadline]"); the
 * text as is when it has none. */
static void bracketed(char *s)
{
    char *l = strchr(s, '['), *r = l ? strchr(l, ']') : NULL;
    if (l && r) {
        memmove(s, l + 1, (size_t)(r - l - 1));
        s[r - l - 1] = 0;
    }
}

/* A fact read from one file; why_missing: the reason when it is absent. */
static void fact_file(struct env *e, const char *key, const char *rel, int brackets, const char *why_missing)
{
    char v[1024], why[256];
    int rc = nvb__text_read(e->root, rel, v, sizeof v);
    if (rc == -ENOTSUP) {
        fact_val(e, key, NULL, rel, nvb__procfs_unavailable("environment"));
        return;
    }
    if (rc < 0) {
        if (rc == -ENOENT)
            snprintf(why, sizeof why, "%s", why_missing);
        else
            snprintf(why, sizeof why, "cannot read it: %s", strerror(-rc));
        fact_val(e, key, NULL, rel, why);
        return;
    }
    if (brackets)
        bracketed(v);
    fact_val(e, key, v, rel, NULL);
}

/* A word=value of the kernel command line, or NULL. */
static const char *cmdline_param(const char *cmd, const char *name, char *out, size_t len)
{
    size_t n = strlen(name);
    for (const char *p = cmd; p && *p;) {
        while (*p == ' ')
            p++;
        if (!strncmp(p, name, n) && p[n] == '=') {
            const char *v = p + n + 1, *end = strchr(v, ' ');
            size_t l = end ? (size_t)(end - v) : strlen(v);
            snprintf(out, len, "%.*s", (int)(l < len ? l : len - 1), v);
            return out;
        }
        p = strchr(p, ' ');
    }
    return NULL;
}

static void kernel_facts(struct env *e)
{
    fact_file(e, "kernel_release", "/proc/sys/kernel/osrelease", 0, "no /proc/sys/kernel/osrelease");
    fact_file(e, "kernel_cmdline", "/proc/cmdline", 0, "no /proc/cmdline");
    char cmd[4096], v[256];
    int rc = nvb__text_read(e->root, "/proc/cmdline", cmd, sizeof cmd);
    if (rc >= 0) {
        /* the kernel's defaults apply when the command line says nothing */
        const char *m = cmdline_param(cmd, "mitigations", v, sizeof v);
        fact_val(e, "mitigations", m ? m : "auto (the default: not on the command line)", "/proc/cmdline", NULL);
        const char *io = cmdline_param(cmd, "iommu", v, sizeof v);
        if (!io)
            io = cmdline_param(cmd, "intel_iommu", v, sizeof v);
        fact_val(e, "iommu", io ? io : "default (not on the command line)", "/proc/cmdline", NULL);
    } else {
        fact_val(e, "mitigations", NULL, "/proc/cmdline", "the kernel command line could not be read");
        fact_val(e, "iommu", NULL, "/proc/cmdline", "the kernel command line could not be read");
    }
    fact_file(e, "nvme_poll_queues", "/sys/module/nvme/parameters/poll_queues", 0,
              "the nvme driver is not loaded (no /sys/module/nvme)");
}

/* The platform's own facts (Windows: the power plan, the native NVMe
 * stack's opt-in), beside the files'. */
static void os_fact(void *arg, const char *key, const char *value, const char *src, const char *why)
{
    fact_val(arg, key, value, src, why);
}

static void cpu_facts(struct env *e)
{
    nvb__os_facts(os_fact, e);
    fact_file(e, "cpu_governor", "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", 0,
              "no cpufreq for CPU 0: no frequency-scaling driver (usual in a VM)");
    fact_file(e, "smt", "/sys/devices/system/cpu/smt/control", 0, "the kernel does not report SMT control");
    fact_file(e, "smt_active", "/sys/devices/system/cpu/smt/active", 0, "the kernel does not report SMT state");
    fact_file(e, "transparent_hugepages", "/sys/kernel/mm/transparent_hugepage/enabled", 1,
              "the kernel has no transparent hugepages");
    fact_file(e, "cpuidle_driver", "/sys/devices/system/cpu/cpuidle/current_driver", 0,
              "no cpuidle driver: C-states are not visible");
    /* the hypervisor: Xen says its type, others set the cpuinfo flag and
     * name themselves in DMI */
    char v[128];
    if (nvb__text_read(e->root, "/sys/hypervisor/type", v, sizeof v) > 0) {
        fact_val(e, "hypervisor", v, "/sys/hypervisor/type", NULL);
        return;
    }
    int rc = nvb__text_read(e->root, "/sys/class/dmi/id/sys_vendor", v, sizeof v);
    char *info = malloc(1 << 20);
    int flag = -1;
    if (info && nvb__text_read(e->root, "/proc/cpuinfo", info, 1 << 20) >= 0) {
        const char *f = strstr(info, "\nflags");
        flag = f && strstr(f, " hypervisor") && strstr(f, " hypervisor") < strchr(f + 1, '\n') ? 1 : 0;
    }
    free(info);
    if (flag == 1) {
        char s[192];
        snprintf(s, sizeof s, "yes%s%s", rc > 0 ? ": " : " (vendor not visible: no DMI)", rc > 0 ? v : "");
        fact_val(e, "hypervisor", s, rc > 0 ? "/proc/cpuinfo flags, /sys/class/dmi/id/sys_vendor" : "/proc/cpuinfo flags",
                 NULL);
    } else if (flag == 0) {
        fact_val(e, "hypervisor", "none", "/proc/cpuinfo flags (no hypervisor flag)", NULL);
    } else {
        fact_val(e, "hypervisor", NULL, "/proc/cpuinfo", "no /proc/cpuinfo to read the hypervisor flag from");
    }
}

static void dev_facts(struct env *e, const char *dev)
{
    static const struct {
        const char *key, *attr, *why;
        int brackets;
    } q[] = {
        {"scheduler", "queue/scheduler", "the device has no I/O scheduler setting", 1},
        {"nomerges", "queue/nomerges", "no nomerges setting", 0},
        {"iostats", "queue/iostats", "no iostats setting", 0},
        {"rq_affinity", "queue/rq_affinity", "no rq_affinity setting", 0},
        {"write_cache", "queue/write_cache", "no write_cache setting", 0},
        {"nr_requests", "queue/nr_requests", "no nr_requests setting", 0},
        {"read_ahead_kb", "queue/read_ahead_kb", "no read-ahead setting", 0},
        {"max_sectors_kb", "queue/max_sectors_kb", "no max_sectors_kb", 0},
        {"rotational", "queue/rotational", "no rotational flag", 0},
        {"numa_node", "device/numa_node", "the kernel gives the device no NUMA node", 0},
    };
    char base[160], rel[256];
    /* a partition's queue is its disk's: class/block/NAME/.. */
    snprintf(rel, sizeof rel, "/sys/class/block/%s/partition", dev);
    char t[32];
    int part = nvb__text_read(e->root, rel, t, sizeof t) >= 0;
    snprintf(base, sizeof base, "/sys/class/block/%s%s", dev, part ? "/.." : "");
    sep(e);
    nvb__json_write_str(&e->b, dev);
    nvb__buf_putn(&e->b, ":{", 2);
    int first = e->first;
    e->first = 1;
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
        snprintf(rel, sizeof rel, "%s/%s", base, q[i].attr);
        fact_file(e, q[i].key, rel, q[i].brackets, q[i].why);
    }
    e->first = first;
    nvb__buf_putn(&e->b, "}", 1);
}

char *nvb__env_json(const char *root, const char *const *devs, size_t n, double steal_pct, const char *steal_why)
{
    struct env e = {.root = root, .first = 1};
    nvb__buf_putn(&e.b, "{", 1);
    kernel_facts(&e);
    cpu_facts(&e);
    /* what the hypervisor took: the run's own measure of it */
    char st[32];
    if (steal_pct == steal_pct)
        snprintf(st, sizeof st, "%.3g %%", steal_pct);
    fact_val(&e, "steal", steal_pct == steal_pct ? st : NULL, "/proc/stat over the run (cpu.steal_pct)",
             steal_why ? steal_why : "not measured");
    sep(&e);
    nvb__buf_puts(&e.b, "\"devices\":{");
    e.first = 1;
    for (size_t i = 0; i < n; i++) {
        int dup = 0;
        for (size_t k = 0; k < i; k++)
            dup |= !strcmp(devs[k], devs[i]);
        if (devs[i] && devs[i][0] && !dup)
            dev_facts(&e, devs[i]);
    }
    nvb__buf_puts(&e.b, "}}");
    char *out = NULL;
    if (nvb__buf_take(&e.b, &out))
        return NULL;
    return out;
}

/* ------------------------------------------------------------ the result */

/* The environment of a finished run's targets (sampler.c), and the steal
 * the run saw (the hypervisor's share). */
static int env_of_run(struct nvb_result *r)
{
    struct nvb__explain *x = nvb__explain_of(r);
    if (!x)
        return -ENOMEM;
    const char **devs = calloc(r->ntargets ? r->ntargets : 1, sizeof *devs);
    if (!devs)
        return -ENOMEM;
    size_t n = 0;
    for (unsigned i = 0; i < r->ntargets; i++)
        if (r->tg[i].util.dev[0])
            devs[n++] = r->tg[i].util.dev;
    char *text = nvb__env_json(NULL, devs, n, r->cpu_valid ? r->steal_pct : NAN,
                               r->cpu_null_reason[0] ? r->cpu_null_reason : "not measured");
    free(devs);
    if (!text)
        return -ENOMEM;
    char why[128];
    int rc = nvb__json_parse(text, strlen(text), &x->env, why, sizeof why);
    free(text);
    if (rc == 0)
        nvb__env_warn(r);
    return rc;
}

int nvb__explain_run(struct nvb_result *r, const struct nvb__sys_sample *a, const struct nvb__sys_sample *b)
{
    int rc = nvb__explain_cpu(r, a, b);
    int rc2 = env_of_run(r);
    int rc3 = nvb__place_finish(r);
    return rc < 0 ? rc : rc2 < 0 ? rc2 : rc3;
}

void nvb__explain_emit_top(struct nvb__json *j, const struct nvb_result *r)
{
    nvb__irq_emit(j, r);
    nvb__place_emit(j, r);
    if (!r->ex || !r->ex->env)
        return;
    nvb__json_key(j, "environment");
    if (j->b)
        nvb__json_write(r->ex->env, j->b);
}

int nvb__explain_load(const struct nvb__jv *root, struct nvb_result *r, char *why, size_t len)
{
    int rc = nvb__explain_load_cpu(root, r, why, len);
    if (rc < 0 || (rc = nvb__irq_load(root, r)) < 0 || (rc = nvb__place_load(root, r)) < 0)
        return rc;
    const struct nvb__jv *env = nvb__json_get(root, "environment");
    if (!env)
        return 0;
    if (env->type != NVB__J_OBJ) {
        if (why && len)
            snprintf(why, len, "environment: expected an object");
        return -EINVAL;
    }
    struct nvb__explain *x = nvb__explain_of(r);
    if (!x || !(x->env = calloc(1, sizeof *x->env)))
        return -ENOMEM;
    return nvb__json_copy(x->env, env);
}
