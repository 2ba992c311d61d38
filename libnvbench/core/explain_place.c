/*
 * Placement: the CPU each job thread last ran on, the CPUs the process may
 * use, each target device's NUMA node and the CPUs of each node, and a
 * warning when a job ran on another node than its device (the cross-node
 * case that costs most on a two-socket machine). The jobs' CPUs are read
 * when the measured window closes, while they are alive (sampler.c).
 * "last_cpu" is the CPU a thread was last seen on, not where it spent most
 * time: the kernel keeps no per-CPU time per thread. docs/cpu.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/explain.h"
#include "core/internal.h"
#include "util/json.h"

#define MAX_NODES 64

static int node_of_cpu(const char *root, int cpu, int *nnodes)
{
    int found = -1;
    *nnodes = 0;
    for (int n = 0; n < MAX_NODES; n++) {
        char rel[96], list[1024];
        uint64_t bits[NVB__MAX_CPUS / 64];
        snprintf(rel, sizeof rel, "/sys/devices/system/node/node%d/cpulist", n);
        if (nvb__text_read(root, rel, list, sizeof list) < 0)
            continue;
        (*nnodes)++;
        memset(bits, 0, sizeof bits);
        if (cpu >= 0 && cpu < NVB__MAX_CPUS && nvb__parse_cpulist(list, bits, NVB__MAX_CPUS) >= 0 &&
            (bits[cpu / 64] >> (cpu % 64) & 1))
            found = n;
    }
    return found;
}

static int dev_node(const char *root, const char *dev)
{
    char rel[160], v[32];
    snprintf(rel, sizeof rel, "/sys/class/block/%s/device/numa_node", dev);
    if (nvb__text_read(root, rel, v, sizeof v) < 0) {
        snprintf(rel, sizeof rel, "/sys/class/block/%s/../device/numa_node", dev);
        if (nvb__text_read(root, rel, v, sizeof v) < 0)
            return -1;
    }
    return atoi(v); /* -1: the kernel does not know */
}

static const struct nvb__place_seen *seen_of(const struct nvb__place_seen *seen, int nseen, long tid)
{
    for (int i = 0; seen && i < nseen; i++)
        if (seen[i].tid == tid)
            return &seen[i];
    return NULL;
}

/* migrations over the window, the CPU seen most, the samples */
static void job_seen(struct nvb__buf *b, const struct nvb__thread_place *job, const struct nvb__place_seen *s)
{
    if (!s) {
        nvb__buf_puts(b, ",\"migrations\":null,\"migrations_null_reason\":\"the thread was not seen at the window's "
                         "start\",\"most_seen_cpu\":null,\"samples\":0,\"buffer_node\":null,\"buffer_policy\":null");
        return;
    }
    if (s->mig0 >= 0 && job->migrations >= s->mig0)
        nvb__buf_printf(b, ",\"migrations\":%ld", job->migrations - s->mig0);
    else if (s->mig0 < 0 || job->migrations < 0)
        nvb__buf_puts(b, ",\"migrations\":null,\"migrations_null_reason\":\"the kernel gives no per-thread count: "
                         "/proc/self/task/T/sched has no se.nr_migrations (CONFIG_SCHED_DEBUG)\"");
    else
        nvb__buf_puts(b, ",\"migrations\":null,\"migrations_null_reason\":\"the count at the window's end is below "
                         "the start's (another thread took the id)\"");
    int best = -1;
    for (int k = 0; k < NVB__SEEN_CPUS; k++)
        if (s->n[k] && (best < 0 || s->n[k] > s->n[best]))
            best = k;
    if (best >= 0)
        nvb__buf_printf(b, ",\"most_seen_cpu\":%d", s->cpu[best]);
    else
        nvb__buf_puts(b, ",\"most_seen_cpu\":null");
    nvb__buf_printf(b, ",\"samples\":%u", s->samples);
    if (s->buf_node >= 0)
        nvb__buf_printf(b, ",\"buffer_node\":%d", s->buf_node);
    else
        nvb__buf_puts(b, ",\"buffer_node\":null");
    nvb__buf_puts(b, ",\"buffer_policy\":");
    if (s->buf_policy[0])
        nvb__json_write_str(b, s->buf_policy);
    else
        nvb__buf_puts(b, "null");
}

char *nvb__place_json(const char *root, const struct nvb__thread_place *jobs, int njobs, const char *allowed,
                      const char *const *devs, size_t ndev, nvb__check_fn warn, void *arg)
{
    return nvb__place_json_seen(root, jobs, njobs, allowed, devs, ndev, NULL, -1, warn, arg);
}

char *nvb__place_json_seen(const char *root, const struct nvb__thread_place *jobs, int njobs, const char *allowed,
                           const char *const *devs, size_t ndev, const struct nvb__place_seen *seen, int nseen,
                           nvb__check_fn warn, void *arg)
{
    struct nvb__buf b = {0};
    int nnodes = 0;
    node_of_cpu(root, -1, &nnodes);
    nvb__buf_printf(&b, "{\"nodes\":%d,\"allowed_cpus\":", nnodes);
    if (allowed)
        nvb__json_write_str(&b, allowed);
    else
        nvb__buf_puts(&b, "null");
    nvb__buf_puts(&b, ",\"devices\":{");
    for (size_t d = 0; d < ndev; d++) {
        nvb__buf_puts(&b, d ? "," : "");
        nvb__json_write_str(&b, devs[d]);
        int node = dev_node(root, devs[d]);
        if (node >= 0)
            nvb__buf_printf(&b, ":{\"node\":%d}", node);
        else
            nvb__buf_puts(&b, ":{\"node\":null,\"null_reason\":\"sysfs gives the device no NUMA node\"}");
    }
    nvb__buf_puts(&b, "},\"jobs\":[");
    for (int i = 0; i < njobs; i++) {
        int nn, node = node_of_cpu(root, jobs[i].cpu, &nn);
        nvb__buf_printf(&b, "%s{\"tid\":%ld,\"name\":", i ? "," : "", jobs[i].tid);
        nvb__json_write_str(&b, jobs[i].name);
        nvb__buf_printf(&b, ",\"last_cpu\":%d,\"node\":", jobs[i].cpu);
        if (node >= 0)
            nvb__buf_printf(&b, "%d", node);
        else
            nvb__buf_puts(&b, "null");
        if (nseen >= 0) /* a run's (not a bare tree's, as the tests give) */
            job_seen(&b, &jobs[i], seen_of(seen, nseen, jobs[i].tid));
        nvb__buf_puts(&b, "}");
        for (size_t d = 0; warn && nnodes > 1 && node >= 0 && d < ndev; d++) {
            int dn = dev_node(root, devs[d]);
            if (dn < 0 || dn == node)
                continue;
            char msg[256];
            snprintf(msg, sizeof msg, "job %s last ran on CPU %d (node %d), the device %s is on node %d",
                     jobs[i].name, jobs[i].cpu, node, devs[d], dn);
            warn(arg, "warn", "placement", devs[d], msg,
                 "I/O across nodes costs CPU per I/O and latency: run the jobs on the device's node's CPUs (cpus=)");
        }
    }
    nvb__buf_puts(&b, "],\"null_reason\":null}");
    char *out = NULL;
    return nvb__buf_take(&b, &out) ? NULL : out;
}

/* ------------------------------------------------------------ the run */

void nvb__place_jobs(struct nvb_result *r)
{
    struct nvb__explain *x = nvb__explain_of(r);
    if (!x)
        return;
    free(x->jobs);
    x->njobs = 0;
    x->jobs = calloc(NVB__PLACE_MAX, sizeof *x->jobs);
    int n = x->jobs ? nvb__thread_places("nvb-job-", x->jobs, NVB__PLACE_MAX) : -ENOMEM;
    if (n < 0) {
        free(x->jobs);
        x->jobs = NULL;
        snprintf(x->place_why, sizeof x->place_why, "%s",
                 n == -ENOTSUP && nvb__procfs_unavailable("placement") ? nvb__procfs_unavailable("placement")
                                                                       : "the job threads' CPUs could not be read");
        return;
    }
    x->njobs = n;
    nvb__place_sample(r, 0); /* the window's end is a sample too */
}

static void to_warning(void *arg, const char *sev, const char *fact, const char *dev, const char *msg,
                       const char *advice)
{
    (void)sev;
    (void)fact;
    (void)dev;
    nvb__result_warn(arg, "placement: %s (%s)", msg, advice);
}

void nvb__place_sample(struct nvb_result *r, int start)
{
    struct nvb__explain *x = nvb__explain_of(r);
    struct nvb__thread_place now[256];
    if (!x)
        return;
    int n = nvb__thread_places("nvb-job-", now, 256);
    if (start) {
        free(x->seen);
        x->nseen = 0;
        x->seen = n > 0 ? calloc((size_t)n, sizeof *x->seen) : NULL;
        for (int i = 0; x->seen && i < n; i++)
            x->seen[x->nseen++] =
                (struct nvb__place_seen){.tid = now[i].tid, .mig0 = now[i].migrations, .buf_node = -1};
    }
    /* more job threads than kept here: those not kept have no samples */
    for (int i = 0; i < n; i++) {
        struct nvb__place_seen *s = (struct nvb__place_seen *)seen_of(x->seen, x->nseen, now[i].tid);
        if (!s)
            continue;
        s->samples++;
        for (int k = 0; k < NVB__SEEN_CPUS; k++)
            if (!s->n[k] || s->cpu[k] == now[i].cpu) {
                s->cpu[k] = now[i].cpu;
                s->n[k]++;
                break;
            }
    }
}

void nvb__place_buffers(struct nvb_result *r, const long *tids, void *const *bufs, unsigned n)
{
    struct nvb__explain *x = r->ex;
    for (unsigned i = 0; x && i < n; i++) {
        struct nvb__place_seen *s = (struct nvb__place_seen *)seen_of(x->seen, x->nseen, tids[i]);
        int node = bufs[i] ? nvb__mem_node_of(bufs[i]) : -1;
        if (!s)
            continue;
        s->buf_node = node >= 0 ? node : -1;
        if (!bufs[i] || nvb__mem_policy_of(bufs[i], s->buf_policy, sizeof s->buf_policy) < 0)
            s->buf_policy[0] = 0;
    }
}

/* placement.local: the node cpus=local (or an engine CPU's local) used and
 * its source, appended to the object text (which ends in '}'). */
static int add_local(char **text, const struct nvb__explain *x)
{
    struct nvb__buf b = {0};
    size_t n = strlen(*text);
    nvb__buf_printf(&b, "%.*s,\"local\":{\"node\":%d,\"source\":", (int)(n - 1), *text, x->local_node);
    nvb__json_write_str(&b, x->local_src);
    nvb__buf_puts(&b, "}}");
    free(*text);
    *text = NULL;
    return nvb__buf_take(&b, text) ? -ENOMEM : 0;
}

/* After the environment (nvb__explain_run): the tree and its warnings. */
int nvb__place_finish(struct nvb_result *r)
{
    struct nvb__explain *x = r->ex;
    if (!x)
        return 0;
    struct nvb__buf b = {0};
    char *text = NULL;
    if (!x->jobs) {
        if (!x->place_why[0])
            return 0;
        nvb__buf_puts(&b, "{\"null_reason\":");
        nvb__json_write_str(&b, x->place_why);
        nvb__buf_puts(&b, "}");
        if (nvb__buf_take(&b, &text))
            return -ENOMEM;
    } else {
        const char **devs = calloc(r->ntargets ? r->ntargets : 1, sizeof *devs);
        if (!devs)
            return -ENOMEM;
        size_t n = 0;
        for (unsigned i = 0; i < r->ntargets; i++) {
            int dup = 0;
            for (size_t k = 0; k < n; k++)
                dup |= !strcmp(devs[k], r->tg[i].util.dev);
            if (r->tg[i].util.dev[0] && !dup)
                devs[n++] = r->tg[i].util.dev;
        }
        char allowed[512];
        int ok = nvb__affinity_list(allowed, sizeof allowed) == 0;
        text = nvb__place_json_seen(NULL, x->jobs, x->njobs, ok ? allowed : NULL, devs, n, x->seen, x->nseen,
                                    to_warning, r);
        free(devs);
        if (text && x->local_set && add_local(&text, x) < 0)
            return -ENOMEM;
    }
    free(x->jobs);
    free(x->seen);
    x->jobs = NULL;
    x->seen = NULL;
    if (!text)
        return -ENOMEM;
    char why[128];
    int rc = nvb__json_parse(text, strlen(text), &x->place, why, sizeof why);
    free(text);
    return rc;
}

void nvb__place_emit(struct nvb__json *j, const struct nvb_result *r)
{
    if (!r->ex || !r->ex->place)
        return;
    nvb__json_key(j, "placement");
    if (j->b)
        nvb__json_write(r->ex->place, j->b);
}

int nvb__place_load(const struct nvb__jv *root, struct nvb_result *r)
{
    const struct nvb__jv *p = nvb__json_get(root, "placement");
    if (!p || p->type != NVB__J_OBJ)
        return 0;
    struct nvb__explain *x = nvb__explain_of(r);
    if (!x || !(x->place = calloc(1, sizeof *x->place)))
        return -ENOMEM;
    return nvb__json_copy(x->place, p);
}

/* ------------------------------------------------------------ jobs vs interrupts */

static long num_at(const struct nvb__jv *arr, uint32_t i)
{
    return arr && arr->type == NVB__J_ARR && i < arr->n && arr->kid[i].type == NVB__J_NUM ? atol(arr->kid[i].s) : -1;
}

/* Jobs on CPUs that took none of the targets' device interrupts while
 * other CPUs took them: each completion then reaches the job from another
 * CPU. One warning naming the jobs and the CPUs that took them. */
int nvb__place_irq_check(const struct nvb__jv *place, const struct nvb__jv *irq, nvb__check_fn warn, void *arg)
{
    const struct nvb__jv *jobs = nvb__json_get(place, "jobs"), *cpus = nvb__json_get(irq, "cpus");
    const struct nvb__jv *per = nvb__json_get(irq, "per_cpu"), *cnt = nvb__json_get(irq, "count");
    if (!jobs || jobs->type != NVB__J_ARR || !cpus || cpus->type != NVB__J_ARR || !cnt || cnt->type != NVB__J_NUM ||
        atol(cnt->s) <= 0)
        return 0;
    char names[160] = "", took[96] = "";
    size_t o = 0, t = 0;
    int n = 0;
    for (uint32_t i = 0; i < jobs->n; i++) {
        const struct nvb__jv *j = &jobs->kid[i], *c = nvb__json_get(j, "most_seen_cpu"), *nm = nvb__json_get(j, "name");
        if (!c || c->type != NVB__J_NUM)
            c = nvb__json_get(j, "last_cpu");
        if (!c || c->type != NVB__J_NUM)
            continue;
        for (uint32_t k = 0; k < cpus->n; k++)
            if (num_at(cpus, k) == atol(c->s) && num_at(per, k) == 0) {
                if (o + 40 < sizeof names)
                    o += (size_t)snprintf(names + o, sizeof names - o, "%s%s (CPU %s)", n ? ", " : "",
                                          nm && nm->type == NVB__J_STR ? nm->s : "?", c->s);
                n++;
            }
    }
    for (uint32_t k = 0; n && k < cpus->n && t + 12 < sizeof took; k++)
        if (num_at(per, k) > 0)
            t += (size_t)snprintf(took + t, sizeof took - t, "%s%ld", t ? ", " : "", num_at(cpus, k));
    if (!n)
        return 0;
    char msg[320];
    snprintf(msg, sizeof msg, "%s %s ran on a CPU that took none of the targets' %s device interrupts (CPU %s took them)",
             n > 1 ? "jobs" : "job", names, cnt->s, took);
    warn(arg, "warn", "placement", NULL, msg,
         "each completion reaches the job from another CPU: pin the jobs to the CPUs that take the device's "
         "interrupts (cpus=) or steer the interrupts to the jobs' CPUs (/proc/irq/N/smp_affinity)");
    return n;
}

/* After the interrupts' window closes (diskutil.c): the check on this run. */
void nvb__place_irq_warn(struct nvb_result *r)
{
    const struct nvb__explain *x = r->ex;
    if (x && x->place && x->irq_state == 1 && x->irq)
        nvb__place_irq_check(x->place, x->irq, to_warning, r);
}

/* ------------------------------------------------------------ cpus=local */

/* The machine's node when it has exactly one, else -1. */
static int only_node(const char *root)
{
    int found = -1, n = 0;
    for (int k = 0; k < MAX_NODES; k++) {
        char rel[96], list[1024];
        snprintf(rel, sizeof rel, "/sys/devices/system/node/node%d/cpulist", k);
        if (nvb__text_read(root, rel, list, sizeof list) >= 0 && n++ == 0)
            found = k;
    }
    return n == 1 ? found : -1;
}

int nvb__node_cpus(const char *root, const char *dev, uint64_t *bits, int *node, char *why, size_t len)
{
    *node = dev_node(root, dev);
    if (*node >= 0) {
        snprintf(why, len, "the numa_node of %s in sysfs", dev);
    } else if ((*node = only_node(root)) >= 0) {
        /* one node: the device can be on no other, and the buffers are
         * still bound, so a one-node machine runs the same calls */
        snprintf(why, len, "the machine's only node; sysfs gives %s none", dev);
    } else {
        snprintf(why, len, "sysfs gives %s no NUMA node", dev);
        return -ENOENT;
    }
    char rel[96], list[1024];
    snprintf(rel, sizeof rel, "/sys/devices/system/node/node%d/cpulist", *node);
    if (nvb__text_read(root, rel, list, sizeof list) < 0 || nvb__parse_cpulist(list, bits, NVB__MAX_CPUS) < 0) {
        snprintf(why, len, "node %d of %s has no CPU list in sysfs", *node, dev);
        return -ENOENT;
    }
    return 0;
}

/* The CPUs and node of the first target's device (name into dev), or
 * -ENOENT with why. */
static int target_node_cpus(const struct nvb_result *r, uint64_t *bits, int *node, char *dev, char *why, size_t len)
{
    uint64_t ticks;
    const char *path = r->ntargets ? (r->tg[0].file ? r->tg[0].file : r->tg[0].path) : NULL;
    if (!path) {
        snprintf(why, len, "no target to take a device's node from");
        return -ENOENT;
    }
    if (nvb__disk_io_ticks(path, dev, 64, &ticks, why, len) < 0 || nvb__node_cpus(NULL, dev, bits, node, why, len) < 0)
        return -ENOENT;
    return 0;
}

static void note_local(struct nvb_result *r, int node, const char *why)
{
    struct nvb__explain *x = nvb__explain_of(r);
    if (!x)
        return;
    x->local_set = 1;
    x->local_node = node;
    snprintf(x->local_src, sizeof x->local_src, "%s", why);
}

int nvb__cpus_local(struct nvb_result *r, uint64_t *bits, int *node_out)
{
    char name[64], why[192];
    int node;
    if (!r->ntargets) {
        nvb__result_warn(r, "cpus=local: no target to take a device's node from: the jobs are not pinned and "
                            "their buffers not bound");
        return -ENOENT;
    }
    if (target_node_cpus(r, bits, &node, name, why, sizeof why) < 0) {
        nvb__result_warn(r, "cpus=local: %s: the jobs are not pinned (all CPUs) and their buffers not bound to a node",
                         why);
        return -ENOENT;
    }
    *node_out = node;
    note_local(r, node, why);
    return 0;
}

int nvb__cpu_pick(const uint64_t *node, const uint64_t *taken)
{
    int first = -1;
    for (int c = 0; c < NVB__MAX_CPUS; c++) {
        if (!((node[c / 64] >> (c % 64)) & 1))
            continue;
        if (!((taken[c / 64] >> (c % 64)) & 1))
            return c;
        if (first < 0)
            first = c;
    }
    return first;
}

int nvb__cpu_local(struct nvb_result *r, const char *key, const uint64_t *taken)
{
    char name[64], why[192];
    uint64_t bits[NVB__MAX_CPUS / 64];
    int node;
    if (target_node_cpus(r, bits, &node, name, why, sizeof why) < 0) {
        nvb__result_warn(r, "%s=local: %s: the thread is not pinned (any CPU)", key, why);
        return -1;
    }
    int c = nvb__cpu_pick(bits, taken);
    note_local(r, node, why);
    if (c < 0)
        nvb__result_warn(r, "%s=local: node %d of %s lists no CPU: the thread is not pinned (any CPU)", key, node, name);
    return c;
}
