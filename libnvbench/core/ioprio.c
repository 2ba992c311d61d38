/*
 * I/O priorities (the ioprio_class, ioprio, cmdprio_pct, cmdprio_class and
 * cmdprio keys): a job's own priority, set on its thread before its
 * engine's setup (every engine's I/O then carries it, as the kernel gives
 * a request the priority of the thread that issues it), and a share of its
 * I/Os at another priority, set per I/O by the engines whose kernel
 * interface takes one (io_uring's sqe->ioprio, libaio's aio_reqprio).
 *
 * Values are the kernel's: class << 13 | level; class 0 (none) with a
 * level means best effort at that level. A class of real time needs
 * CAP_SYS_ADMIN or CAP_SYS_NICE: without them the job (ioprio_set) or each
 * such I/O (EPERM) fails, with the reason.
 *
 * cmdprio_bssplit (fio's) gives priorities by I/O size instead of one
 * share: per direction, entries SIZE/PCT (PCT percent of the I/Os of that
 * size at cmdprio_class/cmdprio) or SIZE/PCT/CLASS/LEVEL[/HINT] (at that
 * priority; HINT is the kernel's priority hint, a Command Duration Limits
 * descriptor 1-7, bits 3-12 of the value); the I/Os of a size without
 * entries, and the rest of a size's, get the job's priority.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/run.h"

#define PRIO_CLASS_SHIFT 13
#define PRIO_CLASS_RT 1
#define PRIO_CLASS_BE 2
#define PRIO_HINT_SHIFT 3

static uint16_t prio_value(unsigned cls, unsigned level)
{
    return (uint16_t)((cls ? cls : PRIO_CLASS_BE) << PRIO_CLASS_SHIFT | level);
}

/* The text up to the next c (cut there) or the end; *rest moves past it,
 * to NULL at the end. */
static char *cut(char **rest, char c)
{
    char *t = *rest, *at = strchr(t, c);
    if (at)
        *at++ = 0;
    *rest = at;
    return t;
}

static int split_bad(char *err, size_t errlen, const char *value, const char *item, const char *why)
{
    snprintf(err, errlen, "invalid value '%s' for key 'cmdprio_bssplit': entry '%s': %s (example: "
             "64k/100:1m/0,1m/50 or 64k/25/1/1:64k/75/3/2, fio's syntax)", value, item, why);
    return -EINVAL;
}

/* One entry, SIZE/PCT[/CLASS/LEVEL[/HINT]], into *e. */
static int split_entry(const char *value, char *item, struct nvb__prio_ent *e, char *err, size_t errlen)
{
    char copy[64];
    snprintf(copy, sizeof copy, "%s", item);
    char *f[5];
    unsigned nf = 0;
    for (char *rest = item; rest;)
        if (nf < 5)
            f[nf++] = cut(&rest, '/');
        else
            return split_bad(err, errlen, value, copy, "more than 5 fields");
    if (nf != 2 && nf != 4 && nf != 5)
        return split_bad(err, errlen, value, copy, "expected SIZE/PCT or SIZE/PCT/CLASS/LEVEL[/HINT]");
    uint64_t size, v[4] = {0, 0, 0, 0};
    static const uint64_t lo[4] = {0, 1, 0, 0}, hi[4] = {100, 3, 7, 7};
    static const char *const what[4] = {"a percent 0-100", "a class 1-3 (real time, best effort, idle)",
                                        "a level 0-7", "a hint 0-7 (0: none)"};
    if (nvb__parse_size(f[0], &size) || !size || size > UINT32_MAX)
        return split_bad(err, errlen, value, copy, "the size must be 1 byte to 4 GiB - 1");
    for (unsigned i = 1; i < nf; i++)
        if (nvb__parse_u64(f[i], &v[i - 1]) || v[i - 1] < lo[i - 1] || v[i - 1] > hi[i - 1])
            return split_bad(err, errlen, value, copy, what[i - 1]);
    e->len = (uint32_t)size;
    e->pct = (uint8_t)v[0];
    e->value = nf == 2 ? NVB__PRIO_FROM_CMD
                       : (uint16_t)(v[1] << PRIO_CLASS_SHIFT | v[3] << PRIO_HINT_SHIFT | v[2]);
    return 0;
}

int nvb__prio_split_parse(const char *value, struct nvb__prio_split *out, char *err, size_t errlen)
{
    struct nvb__prio_split ps = {{0, 0}, {{{0}}}};
    char buf[256];
    if (strlen(value) >= sizeof buf)
        return split_bad(err, errlen, value, "", "longer than 255 characters");
    snprintf(buf, sizeof buf, "%s", value);
    unsigned d = 0;
    for (char *lists = buf; lists; d++) { /* READS,WRITES; an empty list: none */
        char *p = cut(&lists, ',');
        if (d >= 2)
            return split_bad(err, errlen, value, p, "two lists at most (reads, writes): trims carry no priority");
        while (p && *p) {
            char *t = cut(&p, ':');
            if (ps.n[d] >= NVB__PRIO_SPLIT_MAX)
                return split_bad(err, errlen, value, t, "more than 32 entries in a direction");
            struct nvb__prio_ent *e = &ps.e[d][ps.n[d]];
            if (split_entry(value, t, e, err, errlen) < 0)
                return -EINVAL;
            unsigned sum = 0;
            for (unsigned i = 0; i <= ps.n[d]; i++)
                sum += ps.e[d][i].len == e->len ? ps.e[d][i].pct : 0;
            if (sum > 100)
                return split_bad(err, errlen, value, t, "the percents of one size add up to more than 100");
            ps.n[d]++;
        }
    }
    if (d == 1) { /* one list: reads and writes alike, as fio */
        ps.n[1] = ps.n[0];
        memcpy(ps.e[1], ps.e[0], sizeof ps.e[0]);
    }
    *out = ps;
    return 0;
}

int nvb__prio_plan(const struct nvb_workload *w, const struct plan *p, char *err, size_t errlen)
{
    if (w->cmdprio_pct && w->cmdprio_bssplit[0]) {
        snprintf(err, errlen, "cmdprio_pct '%u' with cmdprio_bssplit '%s': one or the other (fio refuses both "
                 "together too)", w->cmdprio_pct, w->cmdprio_bssplit);
        return -EINVAL;
    }
    if (w->cmdprio_bssplit[0] && !(nvb__engine_flags(p->eng, p->eopts) & NVB__ENG_PRIO)) {
        snprintf(err, errlen, "cmdprio_bssplit '%s': engine '%s' sets no priority per I/O (io_uring and libaio do)",
                 w->cmdprio_bssplit, p->eng->name);
        return -ENOTSUP;
    }
    if (w->cmdprio_pct && !(nvb__engine_flags(p->eng, p->eopts) & NVB__ENG_PRIO)) {
        snprintf(err, errlen, "cmdprio_pct '%u': engine '%s' sets no priority per I/O (io_uring and libaio do); "
                 "ioprio_class and ioprio give all of a job's I/O one priority on every engine", w->cmdprio_pct,
                 p->eng->name);
        return -ENOTSUP;
    }
    return 0;
}

/* cmdprio_bssplit for one job: the simple form's entries at
 * cmdprio_class (real time by default, as fio) and cmdprio. */
static void prio_split_job(const struct nvb_workload *w, struct nvb__prio *out, struct nvb__used *used)
{
    const uint16_t cmd = prio_value(w->cmdprio_class ? w->cmdprio_class : PRIO_CLASS_RT, w->cmdprio);
    out->split = w->psplit;
    out->split_on = 1;
    for (unsigned d = 0; d < 2; d++)
        for (unsigned i = 0; i < out->split.n[d]; i++)
            if (out->split.e[d][i].value == NVB__PRIO_FROM_CMD)
                out->split.e[d][i].value = cmd;
    nvb__used_set(used, "cmdprio", "by size (cmdprio_bssplit %s), class %u level %u for entries without their own",
                  w->cmdprio_bssplit, cmd >> PRIO_CLASS_SHIFT, w->cmdprio);
}

int nvb__prio_job(struct job *j, struct nvb__prio *out)
{
    const struct nvb_workload *w = j->run->w;
    *out = (struct nvb__prio){0};
    if (w->ioprio_class || w->ioprio) {
        out->dflt = prio_value(w->ioprio_class, w->ioprio);
        int rc = nvb__ioprio_set(out->dflt);
        if (rc < 0) {
            snprintf(j->why, sizeof j->why, "ioprio_class %u, ioprio %u: setting the job thread's I/O priority "
                     "failed: %s%s", w->ioprio_class, w->ioprio, nvb_strerror(rc),
                     rc == -EPERM ? " (the real-time class needs CAP_SYS_ADMIN or CAP_SYS_NICE)" : "");
            return rc;
        }
        nvb__used_set(&j->used, "ioprio", "class %u level %u", out->dflt >> PRIO_CLASS_SHIFT, w->ioprio);
    }
    if (w->cmdprio_pct) {
        /* fio's cmdprio_class default: real time */
        out->cmd = prio_value(w->cmdprio_class ? w->cmdprio_class : PRIO_CLASS_RT, w->cmdprio);
        out->cmd_pct = w->cmdprio_pct;
        nvb__used_set(&j->used, "cmdprio", "%u%% at class %u level %u", w->cmdprio_pct,
                      out->cmd >> PRIO_CLASS_SHIFT, w->cmdprio);
    }
    if (w->cmdprio_bssplit[0])
        prio_split_job(w, out, &j->used);
    out->rng = w->seed ^ 0x9e1f5a17c0de2026ull ^ (0xd1342543de82ef95ull * (j->idx + 1));
    return 0;
}
