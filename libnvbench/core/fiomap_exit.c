/*
 * fiomap_exit.c - fio's exitall and exit_what: the end of a job stops
 * others. In fio 3.33 exitall on any job turns the stop on for the whole
 * file (one switch for the process), and from then on the end of every
 * job stops what its own exit_what names: `group` (the default) the jobs
 * of its reporting group (a stonewall or new_group starts the next one),
 * `stonewall` every job running, `all` every job, so that the jobs of the
 * later steps never start. Measured with fio 3.33: a job without exitall
 * that ends first stops the rest of its group once another job has
 * exitall; jobs of a later step stopped that way report no I/O.
 *
 * Mapped after the whole file (fm_exitall): every job gets the library's
 * exitall key (`group` with exitall_group = fio's group number, or `step`),
 * and the jobs fio stops before they start are left out of the map with a
 * note on the job that stops them.
 */
#include "core/fiomap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EW_GROUP, EW_STONEWALL, EW_ALL };

static int what_of(const char *v)
{
    static const char *const names[] = {"group", "stonewall", "all"};
    for (int i = 0; v && i < 3; i++)
        if (!strcmp(v, names[i]))
            return i;
    return -1;
}

int fm_exit_opt(struct fm_job *j, const char *opt, const char *v)
{
    if (!strcmp(opt, "exitall")) {
        int t = fm_flag(j, opt);
        return t < 0 ? t : 0;
    }
    return what_of(v) < 0 ? fm_err(j, opt, "'%s': fio takes group, stonewall or all", v ? v : "") : 0;
}

/* Job i of the file, to read its options. */
static struct fm_job job_at(const struct nvb_fiojob *f, const struct fm_job *proto, size_t i)
{
    struct fm_job j = *proto;
    j.idx = i;
    j.name = nvb_fiojob_name(f, i);
    memset(&j.out, 0, sizeof j.out);
    return j;
}

/* What one job of the file became in the map, and how its end stops others. */
struct ejob {
    size_t   wl;      /* its workload in the map, m->n: none */
    unsigned gid;     /* fio's reporting group */
    int      what;    /* EW_* */
    int      drop;    /* fio stops it before it starts */
    int      keys;    /* it gets the exitall keys */
};

/* A key or a warning on workload w, through a job whose output it is. */
static int on_wl(const struct fm_job *proto, struct fm_wl *w, const char *name, const char *key, const char *val,
                 const char *origin, const char *warn)
{
    struct fm_job j = *proto;
    j.name = name;
    j.out = *w;
    int rc = key ? fm_set(&j, key, val, origin) : fm_warn(&j, "%s", warn);
    *w = j.out;
    return rc;
}

/* Each job's group, scope and workload; a job whose verify read-back is a
 * step of its own (fio reads back inside the job, before it ends) is
 * refused, lenient: its end stops nothing. */
static int exit_plan(const struct nvb_fiojob *f, const struct fm_job *proto, struct nvb_fiomap *m, struct ejob *e,
                     size_t n)
{
    unsigned gid = 0, prev = 0;
    for (size_t i = 0, at = 0; i < n; i++) {
        struct fm_job j = job_at(f, proto, i);
        int ng = fm_flag(&j, "new_group");
        TRY(ng);
        if ((nvb_fiojob_stonewall(f, i) > 0 || ng) && prev) {
            gid++;
            prev = 0;
        }
        prev++;
        e[i] = (struct ejob){.wl = m->n, .gid = gid, .what = fm_val(&j, "exit_what") ? what_of(fm_val(&j, "exit_what")) : EW_GROUP};
        for (size_t k = at; k < m->n && e[i].wl == m->n; k++)
            if (!strcmp(m->wl[k].section, j.name))
                e[i].wl = k;
        if (e[i].wl == m->n)
            continue;
        at = e[i].wl + 1;
        e[i].keys = 1;
        for (size_t k = at; k < m->n; k++) {
            if (strcmp(m->wl[k].section, j.name) || m->wl[k].step == m->wl[e[i].wl].step)
                continue;
            j.out = m->wl[e[i].wl];
            int rc = fm_refuse(&j, "exitall", "job [%s] reads back what it wrote as a step of its own, after its "
                               "step: fio reads back inside the job, before its end stops the others", j.name);
            m->wl[e[i].wl] = j.out;
            TRY(rc);
            e[i].keys = 0;
            break;
        }
    }
    return 0;
}

/* The jobs fio stops before they start: every job after the step of a
 * job with exit_what=all, and the jobs of a later step in the reporting
 * group of a job with exit_what=group. Left out, named on the job whose
 * end stops them. */
static int exit_drop(const struct fm_job *proto, struct nvb_fiomap *m, struct ejob *e, size_t n)
{
    for (size_t a = 0; a < n; a++) {
        if (e[a].wl == m->n || e[a].drop || !e[a].keys || e[a].what == EW_STONEWALL)
            continue;
        char names[600] = "";
        size_t len = 0;
        for (size_t b = a + 1; b < n; b++) {
            if (e[b].wl == m->n || e[b].drop || m->wl[e[b].wl].step <= m->wl[e[a].wl].step ||
                (e[a].what == EW_GROUP && e[b].gid != e[a].gid))
                continue;
            e[b].drop = 1;
            if (len < sizeof names - 100)
                len += (size_t)snprintf(names + len, sizeof names - len, "%s[%s]", len ? ", " : "",
                                        m->wl[e[b].wl].section);
        }
        if (!len)
            continue;
        char msg[1024];
        snprintf(msg, sizeof msg, "fio job section [%s]: exitall with exit_what=%s: fio stops %s when this job "
                 "ends, before they start: %s never run%s, left out here", m->wl[e[a].wl].section,
                 e[a].what == EW_ALL ? "all" : "group", e[a].what == EW_ALL ? "every later job" : "its group's later "
                 "jobs", names, strchr(names, ',') ? "" : "s");
        TRY(on_wl(proto, &m->wl[e[a].wl], m->wl[e[a].wl].section, NULL, NULL, NULL, msg));
    }
    return 0;
}

int fm_exitall(const struct nvb_fiojob *f, const struct fm_job *proto, struct nvb_fiomap *m, int rc)
{
    size_t n = nvb_fiojob_jobs(f);
    int any = 0;
    for (size_t i = 0; rc == 0 && i < n && !any; i++) {
        struct fm_job j = job_at(f, proto, i);
        any = fm_flag(&j, "exitall") == 1;
    }
    if (rc < 0 || !any)
        return rc;
    struct ejob *e = calloc(n ? n : 1, sizeof *e);
    if (!e)
        return -ENOMEM;
    rc = exit_plan(f, proto, m, e, n);
    rc = rc ? rc : exit_drop(proto, m, e, n);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        struct fm_wl *w = e[i].wl < m->n ? &m->wl[e[i].wl] : NULL;
        if (!w || e[i].drop || !e[i].keys)
            continue;
        char gid[16];
        snprintf(gid, sizeof gid, "%u", e[i].gid);
        struct fm_job j = job_at(f, proto, i);
        rc = on_wl(proto, w, w->section, "exitall", e[i].what == EW_GROUP ? "group" : "step",
                   fm_val(&j, "exit_what") ? "exit_what" : "exitall", NULL);
        if (rc == 0 && e[i].what == EW_GROUP)
            rc = on_wl(proto, w, w->section, "exitall_group", gid, "new_group", NULL);
    }
    /* the dropped jobs (and their read-backs) out of the map, the others in
     * their order, the steps numbered again without the emptied ones */
    size_t keep = 0;
    int step = -1, last = -1;
    unsigned char *drop = rc ? NULL : calloc(m->n ? m->n : 1, 1);
    rc = rc ? rc : drop ? 0 : -ENOMEM;
    for (size_t k = 0; rc == 0 && k < m->n; k++)
        for (size_t i = 0; i < n; i++)
            drop[k] |= e[i].drop && (e[i].wl == k || (!strcmp(m->wl[k].section, m->wl[e[i].wl].section) &&
                                                      m->wl[k].step > m->wl[e[i].wl].step));
    for (size_t k = 0; rc == 0 && k < m->n; k++) {
        if (drop[k]) {
            fm_wl_free(&m->wl[k]);
            continue;
        }
        step += m->wl[k].step != last;
        last = m->wl[k].step;
        m->wl[k].step = step;
        m->wl[keep++] = m->wl[k];
    }
    if (rc == 0)
        m->n = keep;
    free(drop);
    free(e);
    return rc;
}
