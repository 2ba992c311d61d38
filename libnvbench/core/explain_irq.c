/*
 * Where the interrupts landed: the interrupts of each target's device
 * queues over the run, per queue and per CPU, from /proc/interrupts read
 * at the device-utilisation window's edges (diskutil.c: the jobs' release
 * to their end). A device's queues are the lines named after its
 * controller (nvme0q1.., virtio1-req.0..), the controller being the block
 * device's sysfs device link. Polled queues (nvme poll_queues) take no
 * interrupt and have no line. docs/cpu.md, "interrupts".
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

#define IRQ_TEXT_MAX (8u << 20) /* /proc/interrupts of a 512-CPU machine is a few MiB */

char *nvb__irq_read(const char *root)
{
    char *buf = malloc(IRQ_TEXT_MAX);
    if (!buf)
        return NULL;
    int n = nvb__text_read(root, "/proc/interrupts", buf, IRQ_TEXT_MAX);
    if (n < 0 || (size_t)n >= IRQ_TEXT_MAX - 1) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* One line's counts: NULL when label is not a numbered line of text. */
struct line {
    char label[16], name[64];
    uint64_t *c;
};

static int header(const char *t, int *ids, int max)
{
    int n = 0;
    const char *nl = strchr(t, '\n');
    for (const char *p = strstr(t, "CPU"); p && (!nl || p < nl) && n < max; p = strstr(p + 3, "CPU"))
        ids[n++] = atoi(p + 3);
    return n;
}

/* The next numbered line from *pp; 0 at the end. */
static int next_line(const char **pp, int ncpu, struct line *l)
{
    for (const char *p = *pp; p && *p;) {
        const char *nl = strchr(p, '\n'), *end = nl ? nl : p + strlen(p);
        *pp = nl ? nl + 1 : end;
        while (*p == ' ')
            p++;
        const char *colon = memchr(p, ':', (size_t)(end - p));
        if (colon && colon > p && (size_t)(colon - p) < sizeof l->label && p[0] >= '0' && p[0] <= '9') {
            snprintf(l->label, sizeof l->label, "%.*s", (int)(colon - p), p);
            const char *q = colon + 1;
            for (int i = 0; i < ncpu; i++) {
                char *e;
                l->c[i] = strtoull(q, &e, 10);
                q = e;
            }
            /* the action's name: the last word */
            const char *last = end;
            while (last > q && (last[-1] == ' ' || last[-1] == '\r'))
                last--;
            const char *first = last;
            while (first > q && first[-1] != ' ')
                first--;
            snprintf(l->name, sizeof l->name, "%.*s", (int)(last - first), first);
            return 1;
        }
        p = *pp;
    }
    return 0;
}

/* name belongs to controller ctrl: it starts with ctrl and goes on with a
 * non-digit (nvme0q1 is nvme0's, nvme01q1 is not). */
static int of_ctrl(const char *name, const char *ctrl)
{
    size_t n = strlen(ctrl);
    return n && !strncmp(name, ctrl, n) && !(name[n] >= '0' && name[n] <= '9');
}

/* The controller of block device dev (nvme0 for nvme0n1 or a partition of
 * it), from its sysfs device link; "" when sysfs names none. */
static void ctrl_of(const char *root, const char *dev, char *ctrl, size_t len)
{
    char rel[192];
    ctrl[0] = 0;
    snprintf(rel, sizeof rel, "/sys/class/block/%s/device", dev);
    if (nvb__link_base(root, rel, ctrl, len) < 0) {
        /* a partition: its disk's controller */
        snprintf(rel, sizeof rel, "/sys/class/block/%s/../device", dev);
        nvb__link_base(root, rel, ctrl, len);
    }
    if (!strncmp(ctrl, "nvme", 4) && strchr(ctrl + 4, 'n'))
        *strchr(ctrl + 4, 'n') = 0; /* nvme0n1 (a multipath head's path): the controller nvme0 */
}

/* Controller ctrl's queues between the samples t0 and t1 into b as JSON
 * rows (irq, name, per_cpu, count), their counts added to cpu_tot; *q: how
 * many; returns their total. c0, c1: nc counters of scratch. */
static uint64_t queues(struct nvb__buf *b, const char *t0, const char *t1, int nc, const char *ctrl, uint64_t *c0,
                       uint64_t *c1, uint64_t *cpu_tot, int *q)
{
    uint64_t dev_tot = 0;
    struct line l1 = {.c = c1};
    for (const char *p = t1; next_line(&p, nc, &l1);) {
        if (!of_ctrl(l1.name, ctrl))
            continue;
        struct line l0 = {.c = c0};
        int found = 0;
        for (const char *p0 = t0; next_line(&p0, nc, &l0);)
            if (!strcmp(l0.label, l1.label) && !strcmp(l0.name, l1.name)) {
                found = 1;
                break;
            }
        if (!found)
            memset(c0, 0, (size_t)nc * sizeof *c0); /* a vector set up during the run */
        uint64_t qt = 0;
        nvb__buf_printf(b, "%s{\"irq\":", (*q)++ ? "," : "");
        nvb__json_write_str(b, l1.label);
        nvb__buf_puts(b, ",\"name\":");
        nvb__json_write_str(b, l1.name);
        nvb__buf_puts(b, ",\"per_cpu\":[");
        for (int i = 0; i < nc; i++) {
            uint64_t dlt = c1[i] >= c0[i] ? c1[i] - c0[i] : 0;
            qt += dlt;
            cpu_tot[i] += dlt;
            nvb__buf_printf(b, "%s%" PRIu64, i ? "," : "", dlt);
        }
        nvb__buf_printf(b, "],\"count\":%" PRIu64 "}", qt);
        dev_tot += qt;
    }
    return dev_tot;
}

char *nvb__irq_json(const char *root, const char *t0, const char *t1, const char *const *devs, size_t n,
                    char *why, size_t whylen)
{
    int ids[4096];
    int nc = header(t1, ids, 4096);
    if (nc <= 0 || header(t0, ids, 4096) != nc) {
        snprintf(why, whylen, "/proc/interrupts has no CPU columns, or their number changed during the run");
        return NULL;
    }
    uint64_t *c0 = calloc((size_t)nc, sizeof *c0), *c1 = calloc((size_t)nc, sizeof *c1);
    uint64_t *cpu_tot = calloc((size_t)nc, sizeof *cpu_tot);
    char(*ctrls)[64] = calloc(n ? n : 1, sizeof *ctrls);
    struct nvb__buf b = {0};
    if (!c0 || !c1 || !cpu_tot || !ctrls) {
        free(ctrls);
        free(c0);
        free(c1);
        free(cpu_tot);
        snprintf(why, whylen, "out of memory");
        return NULL;
    }
    uint64_t all = 0;
    nvb__buf_puts(&b, "{\"cpus\":[");
    for (int i = 0; i < nc; i++)
        nvb__buf_printf(&b, "%s%d", i ? "," : "", ids[i]);
    nvb__buf_puts(&b, "],\"devices\":{");
    int firstdev = 1;
    for (size_t d = 0; d < n; d++) {
        int dup = 0;
        for (size_t k = 0; k < d; k++)
            dup |= !strcmp(devs[k], devs[d]);
        if (dup || !devs[d][0])
            continue;
        char ctrl[64];
        ctrl_of(root, devs[d], ctrl, sizeof ctrl);
        nvb__buf_puts(&b, firstdev ? "" : ",");
        firstdev = 0;
        nvb__json_write_str(&b, devs[d]);
        nvb__buf_puts(&b, ":{\"controller\":");
        if (!ctrl[0]) {
            nvb__buf_puts(&b, "null,\"queues\":[],\"count\":null,\"null_reason\":\"no controller in sysfs for this "
                              "device (its device link)\"}");
            continue;
        }
        nvb__json_write_str(&b, ctrl);
        /* two targets on one controller (a disk and its partition): its
         * queues are listed and counted once, under the first */
        size_t seen = 0;
        while (seen < d && strcmp(ctrls[seen], ctrl))
            seen++;
        snprintf(ctrls[d], sizeof ctrls[d], "%s", ctrl);
        if (seen < d) {
            nvb__buf_puts(&b, ",\"queues\":[],\"count\":null,\"null_reason\":");
            char m[128];
            snprintf(m, sizeof m, "the controller's queues are counted under %s", devs[seen]);
            nvb__json_write_str(&b, m);
            nvb__buf_puts(&b, "}");
            continue;
        }
        nvb__buf_puts(&b, ",\"queues\":[");
        int q = 0;
        uint64_t dev_tot = queues(&b, t0, t1, nc, ctrl, c0, c1, cpu_tot, &q);
        all += dev_tot;
        nvb__buf_printf(&b, "],\"count\":%" PRIu64 ",\"null_reason\":", dev_tot);
        if (q)
            nvb__buf_puts(&b, "null}");
        else
            nvb__buf_puts(&b, "\"no interrupt line of this controller in /proc/interrupts (polled queues only, or "
                              "a device that takes none)\"}");
    }
    nvb__buf_puts(&b, "},\"per_cpu\":[");
    for (int i = 0; i < nc; i++)
        nvb__buf_printf(&b, "%s%" PRIu64, i ? "," : "", cpu_tot[i]);
    nvb__buf_printf(&b, "],\"count\":%" PRIu64 "}", all);
    free(ctrls);
    free(c0);
    free(c1);
    free(cpu_tot);
    char *out = NULL;
    if (nvb__buf_take(&b, &out))
        snprintf(why, whylen, "out of memory");
    return out;
}

/* ------------------------------------------------------------ the run */

static void irq_null(struct nvb__explain *x, const char *why)
{
    x->irq_state = 2;
    snprintf(x->irq_why, sizeof x->irq_why, "%s", why);
}

void nvb__irq_begin(struct nvb_result *r)
{
    struct nvb__explain *x = nvb__explain_of(r);
    if (!x)
        return;
    free(x->irq_t0);
    x->irq_t0 = nvb__irq_read(NULL);
}

void nvb__irq_end(struct nvb_result *r)
{
    struct nvb__explain *x = nvb__explain_of(r);
    if (!x)
        return;
    char *t1 = x->irq_t0 ? nvb__irq_read(NULL) : NULL;
    if (!x->irq_t0 || !t1) {
        free(x->irq_t0);
        x->irq_t0 = NULL;
        free(t1);
        const char *u = nvb__procfs_unavailable("interrupts");
        irq_null(x, u ? u : "/proc/interrupts could not be read (too large)");
        return;
    }
    const char **devs = calloc(r->ntargets ? r->ntargets : 1, sizeof *devs);
    size_t n = 0;
    for (unsigned i = 0; devs && i < r->ntargets; i++)
        if (r->tg[i].util.dev[0])
            devs[n++] = r->tg[i].util.dev;
    char why[192] = "out of memory";
    char *text = devs ? nvb__irq_json(NULL, x->irq_t0, t1, devs, n, why, sizeof why) : NULL;
    free(devs);
    free(t1);
    free(x->irq_t0);
    x->irq_t0 = NULL;
    char pw[128];
    if (!text || nvb__json_parse(text, strlen(text), &x->irq, pw, sizeof pw) < 0) {
        irq_null(x, why);
        free(text);
        return;
    }
    free(text);
    x->irq_state = 1;
    nvb__place_irq_warn(r); /* the placement is made by now (sampler.c, before the window's end here) */
}

/* Whether any target device's controller was counted: a loop or dm
 * device has none of its own (its I/O's interrupts are the backing
 * device's), and a 0 per I/O would read as "no interrupts". */
static int any_counted(const struct nvb__jv *irq)
{
    const struct nvb__jv *devs = nvb__json_get(irq, "devices");
    for (uint32_t i = 0; devs && devs->type == NVB__J_OBJ && i < devs->n; i++) {
        const struct nvb__jv *c = nvb__json_get(&devs->kid[i], "count");
        if (c && c->type == NVB__J_NUM)
            return 1;
    }
    return 0;
}

void nvb__irq_emit(struct nvb__json *j, const struct nvb_result *r)
{
    const struct nvb__explain *x = r->ex;
    if (!x || !x->irq_state)
        return;
    nvb__json_key(j, "interrupts");
    if (!j->b)
        return;
    struct nvb__buf *b = j->b;
    nvb__buf_puts(b, "{");
    uint64_t count = 0;
    int ok = x->irq_state == 1 && x->irq;
    for (uint32_t i = 0; ok && i < x->irq->n; i++) {
        nvb__json_write_str(b, x->irq->kid[i].key);
        nvb__buf_puts(b, ":");
        nvb__json_write(&x->irq->kid[i], b);
        nvb__buf_puts(b, ",");
    }
    if (ok)
        nvb__json_u64(nvb__json_get(x->irq, "count"), &count);
    const uint64_t ios = r->tot[0].ios + r->tot[1].ios + r->tot[NVB_TRIM].ios;
    /* the interrupts' window is the device utilisation's: with a ramp it
     * holds I/Os the result does not count */
    const char *why = !ok ? x->irq_why
                      : r->ramp_s > 0 ? "the interrupts' window (the jobs' release to their end) includes the ramp, "
                                        "whose I/Os the result does not count"
                      : !ios ? "no I/O completed: nothing to divide by"
                      : !any_counted(x->irq) ? "no target device has a controller of its own in sysfs (a loop, "
                                               "device-mapper or virtual device: the interrupts of its I/O are its "
                                               "backing device's)"
                             : NULL;
    if (why) {
        nvb__buf_puts(b, "\"per_io\":null,\"null_reason\":");
        nvb__json_write_str(b, why);
    } else {
        nvb__buf_printf(b, "\"per_io\":%.10g,\"null_reason\":null", (double)count / (double)ios);
    }
    nvb__buf_puts(b, "}");
}

int nvb__irq_load(const struct nvb__jv *root, struct nvb_result *r)
{
    const struct nvb__jv *in = nvb__json_get(root, "interrupts");
    if (!in || in->type != NVB__J_OBJ)
        return 0;
    struct nvb__explain *x = nvb__explain_of(r);
    if (!x)
        return -ENOMEM;
    if (!nvb__json_get(in, "devices")) {
        const struct nvb__jv *w = nvb__json_get(in, "null_reason");
        irq_null(x, w && w->type == NVB__J_STR ? w->s : "not measured");
        return 0;
    }
    /* kept as written, less what the writer derives again */
    struct nvb__jv *t = calloc(1, sizeof *t);
    if (!t || nvb__json_copy(t, in)) {
        free(t);
        return -ENOMEM;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        if (!strcmp(t->kid[i].key, "per_io") || !strcmp(t->kid[i].key, "null_reason")) {
            nvb__json_clear(&t->kid[i]);
            continue;
        }
        t->kid[k++] = t->kid[i];
    }
    t->n = k;
    x->irq = t;
    x->irq_state = 1;
    return 0;
}
