/*
 * The targets as the result lists them, and scratch files: a directory
 * target gets a file of the region's size, created only once everything
 * else checked out, held like any other target, laid out, and removed at
 * the end of the run.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/run.h"
#include "core/targetfs.h"

/* Laying out a scratch file: every block of bs the data the run writes
 * (core/data.h: fresh and incompressible unless data_compress and
 * data_dedupe say otherwise), or with verify=1 valid blocks (sequence 0) so
 * that reads before any write check out. It is written, never fallocated
 * alone, so the file has no holes. The caller's cancel handle and poll
 * hook are honoured between chunks: a Ctrl-C during a long layout stops
 * it. */
#define LAYOUT_CHUNK (1u << 20)
struct layout {
    struct run *r;
    const struct nvb_run_opts *o;
    int verify;
    uint64_t seed;
    uint32_t target, bs;
    uint64_t poll_ns, next_poll;
};

/* Chunks hold whole blocks and start on one. */
static void layout_gen(void *arg, void *chunk, uint64_t off, size_t len)
{
    const struct layout *l = arg;
    char *b = chunk;
    size_t k = 0;
    if (!l->verify) {
        for (; k < len; k += l->bs) /* a tail shorter than a block gets that block's first bytes */
            nvb__data_fill(&l->r->data, b + k, len - k < l->bs ? (uint32_t)(len - k) : l->bs, off + k, 0);
        return;
    }
    for (; k + l->bs <= len; k += l->bs)
        nvb__vblock_fill_pat(b + k, l->bs, l->seed, l->target, off + k, 0, &l->r->w->vpat);
    memset(b + k, 0, len - k); /* a tail shorter than a block is never read */
}

/* A scratch file this run created: held like any other target, so that
 * the layout and the jobs write the file that was created. */
static int hold_scratch(struct ptarget *pt, const struct nvb__target_info *ti, int level, char *err, size_t errlen)
{
    struct nvb__hold *h = &pt->hold;
    h->path = pt->file;
    h->file = pt->file;
    h->claim = NULL;
    h->kind = NVB__T_FILE;
    h->id_dev = ti->id_dev;
    h->id_ino = ti->id_ino;
    h->id_rdev = ti->id_rdev;
    h->level = level;
    err[0] = 0;
    return nvb__hold_take(h, 1, err, errlen);
}

static int layout_stop(void *arg)
{
    struct layout *l = arg;
    if (l->r->cancel && __atomic_load_n(&l->r->cancel->flag, __ATOMIC_RELAXED))
        return 1;
    if (l->o->poll) {
        uint64_t now = nvb__now_ns();
        if (now >= l->next_poll) {
            l->next_poll = now + l->poll_ns;
            if (l->o->poll(l->o->poll_arg)) {
                __atomic_store_n(&l->r->stop, 1, __ATOMIC_RELAXED);
                return 1;
            }
        }
    }
    return 0;
}

/* A scratch file in the directory target, removing first what killed runs left there. */
static int create_scratch(struct ptarget *pt, struct nvb_result *res, const struct nvb_run_opts *o, char *err,
                          size_t errlen)
{
    unsigned stale = 0;
    if (nvb__scratch_clean_stale(pt->path, &stale) == 0 && stale)
        nvb__result_warn(res, "removed %u scratch file%s in '%s' left by runs that were killed", stale,
                         stale == 1 ? "" : "s", pt->path);
    nvb__run_log(o, 2, "laying out a scratch file of %" PRIu64 " bytes in '%s'", pt->len, pt->path);
    int rc = nvb__scratch_create(pt->path, pt->len, pt->file, sizeof pt->file);
    if (rc < 0) {
        pt->file[0] = 0;
        snprintf(err, errlen, "cannot create a scratch file of %" PRIu64 " bytes in '%s': %s", pt->len,
                 pt->path, nvb_strerror(rc));
        nvb__result_seterr(res, rc, err);
    }
    return rc;
}

/* What the run's own file is called in a message: a scratch file is the
 * run's private file in a directory target (always removed), a created
 * target the user's missing file the run makes (kept once laid out). */
static const char *what_file(const struct ptarget *pt)
{
    return pt->create ? "the target this run created" : "scratch file";
}

/* A missing target with size set (plan_create): created now, exclusively
 * (an existing file or a symlink put there since planning is refused, not
 * followed), its identity taken from the creating descriptor. */
static int create_target(struct ptarget *pt, struct nvb_result *res, const struct nvb_run_opts *o, char *err,
                         size_t errlen)
{
    uint64_t size = pt->off + pt->len;
    nvb__run_log(o, 2, "creating target '%s' (%" PRIu64 " bytes) and laying it out", pt->path, size);
    struct nvb__target_info ci;
    int rc = nvb__file_create(pt->path, size, &ci);
    if (rc < 0) {
        char to[512];
        if (rc == -EEXIST && nvb__symlink_target(pt->path, to, sizeof to) >= 0)
            snprintf(err, errlen, "target '%s' appeared after it was found missing, as a symlink to '%s' (made by "
                     "someone else meanwhile): refusing to create or write through it", pt->path, to);
        else if (rc == -EEXIST)
            snprintf(err, errlen, "target '%s' appeared after it was found missing (named twice, or made by "
                     "someone else meanwhile): refusing to write into what was not checked", pt->path);
        else
            snprintf(err, errlen, "cannot create target '%s' (%" PRIu64 " bytes): %s", pt->path, size,
                     nvb_strerror(rc));
        nvb__result_seterr(res, rc, err);
        return rc;
    }
    pt->created = 1;
    pt->ti.id_dev = ci.id_dev;
    pt->ti.id_ino = ci.id_ino;
    /* planned on storage (targetfs.c); a directory on the way swapped since
     * for one on devtmpfs or sysfs is caught here, before any byte is
     * written, and the file made is removed by nvb__layout_remove */
    if ((rc = nvb__target_fs_check(pt->path, 0, &ci, err, errlen)) < 0) {
        nvb__result_seterr(res, rc, err);
        return rc;
    }
    return 0; /* what became of it is told once it is laid out, or by nvb__layout_remove */
}

/* Target t in the result; for a scratch directory, its file created, held
 * and laid out; a missing target with size set, created. */
static int layout_target(struct run *r, struct nvb_result *res, unsigned t, char *err, size_t errlen)
{
    const struct nvb_workload *w = r->w;
    const struct nvb_run_opts *o = r->opts;
    struct plan *p = r->p;
    struct ptarget *pt = &p->t[t];
    res->tg[t].path = nvb__strdup(pt->path);
    res->tg[t].region_off = pt->off;
    res->tg[t].region_len = pt->len;
    res->tg[t].lbs = pt->ti.lbs;
    res->tg[t].devf = pt->devf;
    res->tg[t].content.present = 1; /* filled by examine.c once laid out */
    snprintf(res->tg[t].dev, sizeof res->tg[t].dev, "%s", pt->ti.dev);
    static const char *const kinds[] = {"?", "file", "block", "dir", "char", "other"};
    snprintf(res->tg[t].kind, sizeof res->tg[t].kind, "%s",
             pt->create ? "file" : pt->scratch ? "scratch" : kinds[pt->ti.kind <= NVB__T_OTHER ? pt->ti.kind : 0]);
    if (!pt->scratch || (nvb__engine_flags(p->eng, p->eopts) & NVB__ENG_NO_FILES)) {
        res->tg[t].file = nvb__strdup(pt->file);
        return 0;
    }
    int rc = pt->create ? create_target(pt, res, o, err, errlen) : create_scratch(pt, res, o, err, errlen);
    if (rc < 0)
        return rc;
    /* the run's own file, private (scratch) or the created target, which
     * others may open once it exists: held as any target of this run */
    res->tg[t].file = nvb__strdup(pt->file);
    int level = pt->create ? nvb__plan_hold_level(p, res->verify_enabled) : NVB__HOLD_READ;
    struct nvb__target_info ti;
    if ((rc = nvb__target_info(pt->file, &ti)) == 0 && pt->create &&
        (ti.kind != NVB__T_FILE || ti.id_dev != pt->ti.id_dev || ti.id_ino != pt->ti.id_ino)) {
        rc = -ESTALE;
        snprintf(err, errlen, "target '%s' was replaced right after this run created it: refusing to write "
                 "into what was not checked", pt->path);
    }
    if (rc < 0 || (rc = hold_scratch(pt, &ti, level, err, errlen)) < 0) {
        if (!err[0] || (rc != -ESTALE && rc != -EBUSY))
            snprintf(err, errlen, "%s '%s': %s", what_file(pt), pt->file, nvb_strerror(rc));
        nvb__result_seterr(res, rc, err);
        return rc;
    }
    {
        pt->ti.lbs = ti.lbs;
        pt->ti.mem_align = ti.mem_align;
        res->tg[t].lbs = ti.lbs;
        if (w->direct && ti.lbs && w->bs % ti.lbs) {
            rc = -EINVAL;
            snprintf(err, errlen, "bs '%" PRIu64 "' is not a multiple of the logical block size %u of the "
                     "scratch file in '%s' (direct=1)", w->bs, ti.lbs, pt->path);
            nvb__result_seterr(res, rc, err);
            return rc;
        }
    }
    int fd = nvb__hold_reopen(&pt->hold, NVB__O_WRITE | (w->direct ? NVB__O_DIRECT : 0));
    if (fd < 0) {
        rc = fd;
        snprintf(err, errlen, "cannot open %s '%s': %s", what_file(pt), pt->file, nvb_strerror(rc));
        nvb__result_seterr(res, rc, err);
        return rc;
    }
    struct layout lay = {
        .r = r, .o = o, .verify = res->verify_enabled, .seed = w->seed, .target = t, .bs = (uint32_t)w->bs,
        .poll_ns = (o->poll_ms ? o->poll_ms : 100) * 1000000ull,
    };
    lay.next_poll = nvb__now_ns() + lay.poll_ns;
    /* whole blocks per chunk, so each chunk starts on a block */
    size_t chunk = w->bs >= LAYOUT_CHUNK ? (size_t)w->bs : LAYOUT_CHUNK / (size_t)w->bs * (size_t)w->bs;
    /* a created target: the whole file, so that nothing before the region is a hole either */
    rc = nvb__fill_file_cb(fd, pt->create ? pt->off + pt->len : pt->len, chunk, layout_gen, layout_stop, &lay);
    nvb__target_close(fd);
    if (rc == 0) {
        pt->laid_out = 1;
        if (pt->create)
            nvb__result_warn(res, "target '%s' did not exist: this run created it (%" PRIu64 " bytes, laid out "
                             "in full before the run) and leaves it in place", pt->path, pt->off + pt->len);
    }
    if (rc < 0) {
        snprintf(err, errlen, "cannot lay out %s '%s': %s", what_file(pt), pt->file, nvb_strerror(rc));
        nvb__result_seterr(res, rc, err);
        if (rc == -ECANCELED)
            res->cancelled = 1;
        return rc;
    }
    return 0;
}

int nvb__layout_targets(struct run *r, struct nvb_result *res, char *err, size_t errlen)
{
    struct plan *p = r->p;
    res->ntargets = p->nt;
    res->tg = calloc(p->nt, sizeof *res->tg);
    if (!res->tg) {
        nvb__result_seterr(res, -ENOMEM, "out of memory");
        return -ENOMEM;
    }
    for (unsigned t = 0; t < p->nt; t++) {
        int rc = layout_target(r, res, t, err, errlen);
        if (rc < 0)
            return rc;
    }
    return 0;
}

void nvb__layout_remove(struct plan *p, struct nvb_result *res)
{
    for (unsigned t = 0; t < p->nt; t++) {
        const struct ptarget *pt = &p->t[t];
        /* let go of a file before removing it: Windows refuses to delete a
         * file the hold has open (it shares no delete) */
        if (pt->create) { /* kept once laid out; a half-made file is removed, if it is still the one made */
            if (pt->created && !pt->laid_out) {
                nvb__hold_release(&p->t[t].hold, 1);
                int rc = nvb__file_remove_created(pt->path, &pt->ti);
                if (!res)
                    continue;
                if (rc == 0)
                    nvb__result_warn(res, "target '%s' did not exist: this run created it and removed it again "
                                     "(the run ended before it was laid out)", pt->path);
                else if (rc == -ESTALE)
                    nvb__result_warn(res, "target '%s' did not exist: this run created it, but the name is "
                                     "something else now (left alone); the half-made file may remain where "
                                     "the name pointed when it was made", pt->path);
                else
                    nvb__result_warn(res, "target '%s' did not exist: this run created it and could not remove "
                                     "it (%s): it is left in place, half laid out", pt->path, nvb_strerror(rc));
            }
        } else if (pt->scratch && pt->file[0] && strcmp(pt->file, pt->path)) {
            nvb__hold_release(&p->t[t].hold, 1);
            nvb__scratch_remove(pt->file);
        }
    }
}
