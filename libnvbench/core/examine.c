/*
 * The targets as the run begins, after the hold and the scratch layout and
 * before the jobs: each one's cached pages written back and dropped
 * (invalidate=1), how much of it is still in the page cache (direct=0,
 * where a cached page makes a read a memory copy), and how much of a file
 * is holes (which the file system answers with zeros, never reading the
 * storage). Also what written blocks will carry (nvb__run_data).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/run.h"

/* At or above this share of the region cached, a run through the page
 * cache measures memory more than storage. */
#define CACHED_WARN_PCT 50.0
/* Below this share allocated, reads of a file hit holes for a noticeable
 * part of the figures. */
#define ALLOCATED_WARN_PCT 90.0

/* data_dedupe_set's working set: W blocks of the region (the first
 * target's), each job's share written first; global: one set of the
 * run's jobs (the group's, r->dd_parts), each its 1/n of W, as fio spreads
 * dedupe_global's set over its jobs. */
static int data_set(struct run *r)
{
    const struct nvb_workload *w = r->w;
    const uint64_t blocks = r->p->t[0].len / w->bs, set = blocks * w->data_dedupe_set / 100;
    const unsigned parts = w->data_dedupe_global ? (r->dd_parts ? r->dd_parts : r->p->jobs) : 1;
    const uint64_t share = set / parts ? set / parts : 1;
    return nvb__data_set(&r->data, share * (w->data_dedupe_global ? parts : 1), share,
                         w->data_dedupe_global ? r->dd_part0 * share : 0, w->data_dedupe_global, r->p->jobs);
}

int nvb__run_data(struct run *r, struct nvb_result *res)
{
    const struct nvb_workload *w = r->w;
    const struct plan *p = r->p;
    int layout = 0;
    for (unsigned t = 0; t < p->nt; t++)
        layout |= p->t[t].scratch;
    if (nvb__engine_flags(p->eng, p->eopts) & NVB__ENG_NO_FILES)
        layout = 0; /* the null engine writes nothing anywhere */
    r->scramble = p->writes && !(nvb__engine_flags(p->eng, p->eopts) & NVB__ENG_NO_FILES) && !w->verify && w->fill == NVB__FILL_RANDOM;
    /* a scratch file is laid out with this data unless verify=1 lays out its own blocks */
    if (!r->scramble && !(layout && !res->verify_enabled)) {
        if (w->data_compress || w->data_dedupe)
            nvb__result_warn(res, "data_compress=%u and data_dedupe=%u ignored: this run writes no data "
                             "(no writes, no scratch file to lay out)", w->data_compress, w->data_dedupe);
        return 0;
    }
    if (nvb__data_init(&r->data, (uint32_t)nvb__bs_largest(w), w->seed, w->data_compress, w->data_dedupe) < 0 ||
        (w->data_dedupe_set && data_set(r) < 0)) {
        nvb__result_seterr(res, -ENOMEM, "out of memory");
        return -ENOMEM;
    }
    return 0;
}

static void examine_cache(struct run *r, struct nvb_result *res, unsigned t, int fd)
{
    const struct nvb_workload *w = r->w;
    const struct ptarget *pt = &r->p->t[t];
    struct nvb__tcontent *c = &res->tg[t].content;
    if (w->invalidate) {
        int rc = nvb__cache_drop(fd, pt->off, pt->len);
        c->invalidated = rc == 0;
        if (rc == -ENOTSUP && !w->direct)
            nvb__result_warn(res, "target '%s': invalidate=1 does nothing here (no way to drop one file's cached "
                             "data on this system): what was cached stays cached (direct=0)", pt->path);
        else if (rc < 0 && rc != -ENOTSUP)
            nvb__result_warn(res, "target '%s': its cached pages could not be dropped (invalidate=1): %s", pt->path,
                             nvb_strerror(rc));
    }
    if (w->direct)
        return; /* O_DIRECT I/O does not go through the page cache */
    uint64_t cached = 0, examined = 0;
    if (nvb__cache_resident(fd, pt->off, pt->len, &cached, &examined) < 0 || !examined)
        return;
    c->cached_known = 1;
    c->cached_pct = 100.0 * (double)cached / (double)examined;
    c->cached_examined = examined;
    if (c->cached_pct < CACHED_WARN_PCT)
        return;
    if (!w->invalidate)
        nvb__result_warn(res, "target '%s': %.0f%% of its region was in the page cache as the run began "
                         "(direct=0, invalidate=0): reads of cached pages are memory copies, not storage I/O; "
                         "invalidate=1 drops them first", pt->path, c->cached_pct);
    else
        nvb__result_warn(res, "target '%s': %.0f%% of its region stayed in the page cache after invalidate=1 "
                         "(direct=0): a file system that keeps files in memory (tmpfs), or pages that other "
                         "processes map or lock; reads of cached pages are memory copies, not storage I/O",
                         pt->path, c->cached_pct);
}

static void examine_holes(struct run *r, struct nvb_result *res, unsigned t, int fd)
{
    const struct ptarget *pt = &r->p->t[t];
    struct nvb__tcontent *c = &res->tg[t].content;
    /* A file cut short since planning sized its region (another process
     * truncated it): what lies past its new end is not holes, it is gone;
     * its reads will fail. Said, and not measured as holes. */
    struct nvb__target_info now;
    if (!pt->scratch && nvb__target_info(pt->path, &now) == 0 && now.kind == NVB__T_FILE &&
        now.size < pt->off + pt->len) {
        nvb__result_warn(res, "target '%s' shrank after the run was planned: it is %" PRIu64 " bytes now, its "
                         "region was bytes %" PRIu64 " to %" PRIu64 " of %" PRIu64 "; I/O past its end fails, and "
                         "its holes are not measured (allocated_pct null)", pt->path, now.size, pt->off,
                         pt->off + pt->len, pt->ti.size);
        return;
    }
    uint64_t a = 0;
    if (nvb__file_allocated(fd, pt->off, pt->len, &a) < 0)
        return;
    c->allocated_known = 1;
    c->allocated_pct = 100.0 * (double)a / (double)pt->len;
    if (r->p->reads && c->allocated_pct < ALLOCATED_WARN_PCT)
        nvb__result_warn(res, "SPARSE TARGET: only %.1f%% of the region of '%s' is allocated; the rest is holes, "
                         "which the file system answers with zeros without reading the storage, so the reads "
                         "measure the file system, not the device. Fill the region first, e.g. a sequential "
                         "write pass over it (rw=write bs=1M) before reading", c->allocated_pct, pt->path);
    /* writes to holes or to unwritten extents (fallocate, as fio lays out
     * a file for a write-only job) make the file system allocate or
     * convert extents as they land: a first pass, not the steady state */
    if ((r->p->writes || r->p->trims) && c->allocated_pct < ALLOCATED_WARN_PCT)
        nvb__result_warn(res, "UNWRITTEN TARGET: only %.1f%% of the region of '%s' holds written data; the rest is "
                         "holes or unwritten (fallocated) extents, so the writes also cost the file system "
                         "allocating or converting extents as they land: they measure a first pass over the "
                         "file, not its steady state. Write the region once first (rw=write bs=1M) to measure "
                         "overwrites", c->allocated_pct, pt->path);
}

/* What caches the writes to a file target: its file system's mode and the
 * write cache of the disk under it. */
static void examine_write_cache(struct nvb_result *res, unsigned t, int fd)
{
    struct nvb__tcontent *c = &res->tg[t].content;
    struct nvb__wcache wc;
    if (nvb__file_write_cache(fd, &wc) < 0)
        return;
    c->wc_known = 1;
    snprintf(c->wc_fs, sizeof c->wc_fs, "%s", wc.fstype);
    snprintf(c->wc_fs_mode, sizeof c->wc_fs_mode, "%s", wc.fs_mode);
    snprintf(c->wc_disk, sizeof c->wc_disk, "%s", wc.disk);
    snprintf(c->wc_disk_mode, sizeof c->wc_disk_mode, "%s", wc.disk_mode);
}

void nvb__targets_examine(struct run *r, struct nvb_result *res)
{
    struct plan *p = r->p;
    if (nvb__engine_flags(p->eng, p->eopts) & (NVB__ENG_NO_FILES | NVB__ENG_CHARDEV))
        return; /* no files; or NVMe commands, which never go through the page cache */
    for (unsigned t = 0; t < p->nt; t++) {
        struct ptarget *pt = &p->t[t];
        int file = pt->scratch || pt->ti.kind == NVB__T_FILE;
        if (!file && pt->ti.kind != NVB__T_BLOCK)
            continue;
        int fd = nvb__hold_reopen(&pt->hold, 0);
        if (fd < 0) {
            nvb__result_warn(res, "target '%s': cannot open it to look at its page cache and holes: %s", pt->path,
                             nvb_strerror(fd));
            continue;
        }
        res->tg[t].content.examined = 1;
        res->tg[t].content.wc_present = 1;
        examine_cache(r, res, t, fd);
        if (file) {
            examine_holes(r, res, t, fd);
            examine_write_cache(res, t, fd);
        }
        nvb__target_close(fd);
    }
}
