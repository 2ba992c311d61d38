/*
 * The plan: a workload validated against this machine and its targets
 * before anything is created or written, the memory and descriptor
 * estimates, and the hold on the targets taken from the plan.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/run.h"
#include "core/offpat.h"
#include "core/iomode.h"
#include "core/targetfs.h"

#define DEFAULT_SCRATCH_SIZE (1ull << 30)
#define NULL_REGION (1ull << 30)
#ifdef _WIN32
#define PATH_SEP2 '\\'
#else
#define PATH_SEP2 0
#endif

/* plan_warn(): the planning steps' name for it */
#define plan_warn nvb__plan_warn
void nvb__plan_warn(struct plan *p, const char *fmt, ...)
{
    if (p->nwarn >= MAX_PLAN_WARN)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->warn[p->nwarn++], sizeof p->warn[0], fmt, ap);
    va_end(ap);
}

void nvb__plan_free(struct plan *p)
{
    if (p->t)
        for (unsigned i = 0; i < p->nt; i++)
            nvb__hold_release(&p->t[i].hold, 1);
    free(p->t);
    p->t = NULL;
}

#define FAIL(rc, ...) do { snprintf(err, errlen, __VA_ARGS__); return (rc); } while (0)

/* The engine, its options, and the workload's own consistency. */
/* What the blocks written hold against what the engine moves: data
 * content keys, verify's needs. */
static int plan_data(const struct nvb_workload *w, const struct plan *p, char *err, size_t errlen)
{
    if ((w->data_dedupe_set || w->data_dedupe_global) && !w->data_dedupe)
        FAIL(-EINVAL, "%s=%u needs data_dedupe: it says which blocks the duplicates repeat",
             w->data_dedupe_set ? "data_dedupe_set" : "data_dedupe_global",
             w->data_dedupe_set ? w->data_dedupe_set : (unsigned)w->data_dedupe_global);
    if (w->data_dedupe_global && !w->data_dedupe_set)
        FAIL(-EINVAL, "data_dedupe_global=1 shares a working set: it needs data_dedupe_set");
    if (w->data_compress || w->data_dedupe) {
        const char *k = w->data_compress ? "data_compress" : "data_dedupe";
        unsigned v = w->data_compress ? w->data_compress : w->data_dedupe;
        if (w->verify)
            FAIL(-EINVAL, "%s=%u needs verify=0: verify=1 writes blocks of its own format (a header and a checksum "
                 "over a stream from the seed)", k, v);
        if (w->fill == NVB__FILL_ZERO)
            FAIL(-EINVAL, "%s=%u needs fill=random: fill=zero writes zeros only", k, v);
    }
    if (w->verify && (nvb__engine_flags(p->eng, p->eopts) & ~p->eng->flags & NVB__ENG_NO_FILES))
        FAIL(-EINVAL, "verify=1 has nothing to check: engine %s moves no data with its options (io_uring.nop=1); "
             "drop verify or the option", p->eng->name);
    if (w->verify && !(nvb__engine_flags(p->eng, p->eopts) & NVB__ENG_NO_FILES) && w->bs < NVB__VHDR_SIZE)
        FAIL(-EINVAL, "verify=1 needs bs of at least %u bytes: each block starts with a %u-byte header (bs '%" PRIu64
             "')", NVB__VHDR_SIZE, NVB__VHDR_SIZE, w->bs);
    return 0;
}

static int plan_engine(const struct nvb_workload *w, struct plan *p, char *err, size_t errlen)
{
    char b1[32], b2[32];
    p->eng = nvb__engine_find(w->engine);
    if (!p->eng)
        FAIL(-EINVAL, "unknown engine '%s' for key 'engine'", w->engine);
    char why[256] = "";
    int rc = nvb_engine_probe(w->engine, why, sizeof why);
    if (rc < 0)
        FAIL(rc, "engine '%s' (key 'engine') is not available here: %s", w->engine, why[0] ? why : nvb_strerror(rc));
    int ei = nvb__engine_index(w->engine);
    unsigned nopt = 0;
    for (; p->eng->opts && p->eng->opts[nopt].name && nopt < NVB__ENGINE_MAX_OPTS; nopt++)
        p->eopts[nopt] = p->eng->opts[nopt].def;
    for (unsigned i = 0; i < w->neopts; i++) {
        const struct nvb__eopt *o = &w->eopts[i];
        if (o->engine != ei) {
            plan_warn(p, "option %s=%s ignored: the engine is %s", o->key, o->text, w->engine);
            continue;
        }
        p->eopts[o->opt] = o->value;
        p->eopts_set[o->opt] = o->value == NVB__OPT_LOCAL ? 2 : 1; /* 2: "local", resolved per job */
    }

    const int mixed = w->rw == NVB__RW_RANDRW || w->rw == NVB__RW_RW;
    if (w->rwmixtrim && !mixed)
        FAIL(-EINVAL, "rwmixtrim '%u' needs a mixed rw (randrw or rw), not rw=%s", w->rwmixtrim, nvb__rw_name(w->rw));
    p->reads = nvb__rw_reads(w->rw) && !(mixed && (w->rwmix == 0 || w->rwmixtrim == 100));
    p->writes = nvb__rw_writes(w->rw) && !(mixed && (w->rwmix == 100 || w->rwmixtrim == 100));
    p->prewrites = w->precondition > 0;
    p->trims = nvb__rw_trims(w->rw) || (mixed && w->rwmixtrim);
    if (p->trims && !(p->eng->flags & NVB__ENG_TRIM))
        FAIL(-ENOTSUP, "engine '%s' cannot trim (rw=%s%s): the engines that trim are psync, io_uring, nvme and null "
             "(key 'engine')", p->eng->name, nvb__rw_name(w->rw), w->rwmixtrim ? ", rwmixtrim" : "");
    if (p->trims && w->verify)
        FAIL(-EINVAL, "verify=1 needs rw with reads and writes to check, not rw=%s%s (a trim leaves no data to "
             "verify)", nvb__rw_name(w->rw), w->rwmixtrim ? " with rwmixtrim" : "");
    if (w->seq_start == NVB__SEQ_SAME && w->verify && p->writes && w->jobs > 1 && !nvb__rw_random(w->rw))
        FAIL(-EINVAL, "seq_start=same with verify=1: the %u jobs would write the same blocks, each check finding "
             "another's (use seq_start=staggered)", w->jobs);
    if (w->vpat.len && !w->verify)
        FAIL(-EINVAL, "verify_pattern '%s' is the payload of verification blocks: it needs verify=1", w->verify_pattern);
    if (w->verify_backlog && !(w->verify && p->writes))
        FAIL(-EINVAL, "verify_backlog=%llu checks the blocks a job wrote with verify=1 as it writes: it needs verify=1 "
             "and rw with writes (verify=%d, rw=%s)", (unsigned long long)w->verify_backlog, w->verify,
             nvb__rw_name(w->rw));
    if (w->verify_readback && !(w->verify && p->writes))
        FAIL(-EINVAL, "verify_readback=1 reads back the blocks a job wrote with verify=1: it needs verify=1 and rw "
             "with writes (verify=%d, rw=%s)", w->verify, nvb__rw_name(w->rw));
    p->jobs = w->jobs;
    p->qd = w->qd;
    if ((p->eng->flags & NVB__ENG_SYNC) && p->qd > 1) {
        plan_warn(p, "engine %s is synchronous: qd %u runs as qd 1 per job (use jobs for concurrency)",
                  p->eng->name, p->qd);
        p->qd = 1;
    }
    if ((p->eng->flags & NVB__ENG_SYNC_BUFFERED) && !w->direct && p->qd > 1) {
        plan_warn(p, "engine %s is synchronous with direct=0: the kernel completes buffered I/O inside the submit "
                  "call, one I/O after another, so qd %u runs as qd 1 per job (direct=1 for asynchronous I/O, or "
                  "jobs for concurrency)", p->eng->name, p->qd);
        p->qd = 1;
    }
    if ((rc = nvb__prio_plan(w, p, err, errlen)) < 0)
        return rc;
    if ((rc = nvb__bsmix_plan(w, !(nvb__engine_flags(p->eng, p->eopts) & NVB__ENG_NO_FILES), err, errlen)) < 0 ||
        (rc = nvb__dist_check(w, err, errlen)) < 0 || (rc = nvb__opat_check(w, err, errlen)) < 0)
        return rc;
    if (w->io_limit && w->ios)
        FAIL(-EINVAL, "set either io_limit (%" PRIu64 ") or ios (%" PRIu64 "), not both", w->io_limit, w->ios);
    if (w->io_limit && w->bssplit.set) {
        p->bytes_total = w->io_limit; /* a byte budget: the sizes drawn decide how many I/Os */
    } else if (w->io_limit) {
        if (w->io_limit % w->bs)
            FAIL(-EINVAL, "io_limit '%s' is not a multiple of bs '%s'", nvb__fmt_size(w->io_limit, b1, sizeof b1),
                 nvb__fmt_size(w->bs, b2, sizeof b2));
        p->ios_total = w->io_limit / w->bs;
    } else {
        p->ios_total = w->ios;
    }
    /* sprandom: the plan bounds the run (nvb__sprandom_plan, once the targets are known) */
    p->runtime_ns = ((p->ios_total || p->bytes_total || w->sprandom) && !w->runtime_set) ? 0 : w->runtime_ns;
    if (!p->runtime_ns && !p->ios_total && !p->bytes_total && !w->sprandom)
        FAIL(-EINVAL, "runtime '0' needs io_limit or ios to bound the run (key 'runtime')");
    if (w->ncpus_set) {
        for (unsigned c = 0; c < NVB__MAX_CPUS; c++)
            if (((w->cpus[c / 64] >> (c % 64)) & 1) && (int)c >= p->ncpus_online)
                FAIL(-EINVAL, "cpus '%s' names CPU %u, but %d CPUs are online (key 'cpus')", w->cpus_text, c,
                     p->ncpus_online);
    }
    return plan_data(w, p, err, errlen);
}

/* The engine's say on what jobs open (prepare_target(): nvme maps every
 * target to its namespace's generic node, with that namespace's size and
 * LBA size). */
static int plan_prepare(const struct nvb_workload *w, struct plan *p, struct ptarget *t, char *err, size_t errlen)
{
    struct nvb__target_prep tp = {
        .path = t->path, .bs = nvb__bs_largest(w),
        .file = t->file, .file_len = sizeof t->file,
        .claim = t->claim, .claim_len = sizeof t->claim,
        .dev = t->ti.dev, .dev_len = sizeof t->ti.dev,
        .size = t->ti.size, .lbs = t->ti.lbs,
        .id_dev = t->ti.id_dev, .id_ino = t->ti.id_ino, .id_rdev = t->ti.id_rdev,
    };
    int rc = p->eng->prepare_target(&tp, err, errlen);
    if (rc < 0)
        return rc;
    t->ti.size = tp.size;
    t->ti.lbs = tp.lbs;
    t->ti.id_dev = tp.id_dev;
    t->ti.id_ino = tp.id_ino;
    t->ti.id_rdev = tp.id_rdev;
    t->whole_blocks = tp.whole_blocks;
    return 0;
}

/* The region of a file, device or scratch directory, and its alignment. */
static int plan_region(const struct nvb_workload *w, struct plan *p, struct ptarget *t, char *err, size_t errlen)
{
    char b1[32];
    int rc;
    int chardev = (p->eng->flags & NVB__ENG_CHARDEV) != 0;
    if (t->create) { /* created by the run (plan_create) */
        t->off = w->offset;
        t->len = w->size;
        if (t->ti.lbs < 512)
            t->ti.lbs = 512;
    } else switch (t->ti.kind) {
    case NVB__T_DIR:
        rc = nvb__target_access(t->path, 1);
        if (rc < 0)
            FAIL(rc, "target directory '%s': cannot create a scratch file there: %s", t->path, nvb_strerror(rc));
        t->scratch = 1;
        t->off = 0;
        t->len = w->size ? w->size : DEFAULT_SCRATCH_SIZE;
        if (w->offset)
            plan_warn(p, "offset ignored for directory target '%s': the scratch file is the region", t->path);
        if (t->ti.lbs < 512)
            t->ti.lbs = 512;
        break;
    case NVB__T_CHAR:
        if (!chardev)
            FAIL(-EINVAL, "target '%s' is a character device: only engine nvme drives those (NVMe generic "
                 "nodes /dev/ngXnY)", t->path);
        /* fall through */
    case NVB__T_FILE:
    case NVB__T_BLOCK:
        rc = nvb__target_access(t->file, p->writes || p->prewrites || p->trims);
        if (rc < 0)
            FAIL(rc, "target '%s': no permission to open %s for %s: %s", t->path,
                 strcmp(t->file, t->path) ? t->file : "it",
                 p->trims ? "trimming" : p->writes || p->prewrites ? "writing" : "reading",
                 nvb_strerror(rc));
        if (t->ti.size == 0)
            FAIL(-EINVAL, "target '%s' is empty (size 0): nothing to %s", t->path,
                 p->trims ? "trim" : p->writes ? "write" : "read");
        if (w->offset >= t->ti.size)
            FAIL(-EINVAL, "offset '%" PRIu64 "' is beyond the end of target '%s' (%" PRIu64 " bytes)",
                 w->offset, t->path, t->ti.size);
        t->off = w->offset;
        t->len = w->size ? w->size : t->ti.size - w->offset;
        if (t->off + t->len > t->ti.size || t->off + t->len < t->off)
            FAIL(-EINVAL, "region offset %" PRIu64 " + size %" PRIu64 " exceeds target '%s' (%" PRIu64 " bytes)",
                 t->off, t->len, t->path, t->ti.size);
        break;
    default:
        FAIL(-EINVAL, "target '%s' is not a regular file, a block device or a directory", t->path);
    }
    if (w->direct || t->whole_blocks) {
        uint32_t lbs = t->ti.lbs ? t->ti.lbs : 512;
        const char *needs = t->whole_blocks ? t->whole_blocks : "direct=1";
        if (w->bs % lbs)
            FAIL(-EINVAL, "bs '%s' is not a multiple of the logical block size %u of target '%s' (%s)",
                 nvb__fmt_size(w->bs, b1, sizeof b1), lbs, t->path, needs);
        if (t->off % lbs)
            FAIL(-EINVAL, "offset '%" PRIu64 "' is not a multiple of the logical block size %u of target '%s' (%s)",
                 t->off, lbs, t->path, needs);
    }
    return nvb__bsmix_target(w, t->ti.lbs ? t->ti.lbs : 512, t->len, t->path,
                             w->direct || t->whole_blocks ? (t->whole_blocks ? t->whole_blocks : "direct=1") : NULL,
                             err, errlen);
}

/* A target that does not exist, with size given: the run creates it as a
 * file of offset + size bytes (as fio does), lays it out without holes
 * and keeps it (core/layout.c). Its directory must exist and be writable;
 * nothing is created here (nvb_workload_validate() plans too). */
static int plan_create(const struct nvb_workload *w, struct ptarget *t, char *err, size_t errlen)
{
    char dir[sizeof t->file];
    size_t n = strlen(t->path), cut = 0;
    for (size_t i = 0; i < n; i++)
        if (t->path[i] == '/' || (PATH_SEP2 && t->path[i] == PATH_SEP2))
            cut = i + 1;
    if (cut == n)
        FAIL(-ENOENT, "target '%s' does not exist", t->path);
    if (n >= sizeof dir)
        FAIL(-ENAMETOOLONG, "target '%s': the name is too long", t->path);
    snprintf(dir, sizeof dir, "%.*s", cut ? (int)cut : 1, cut ? t->path : ".");
    struct nvb__target_info di;
    int rc = nvb__target_info(dir, &di);
    if (rc < 0 || di.kind != NVB__T_DIR)
        FAIL(-ENOENT, "target '%s' does not exist, and it cannot be created: '%s' is not a directory%s%s", t->path,
             dir, rc < 0 ? ": " : "", rc < 0 ? nvb_strerror(rc) : "");
    if ((rc = nvb__target_access(dir, 1)) < 0)
        FAIL(rc, "target '%s' does not exist, and it cannot be created in '%s': %s", t->path, dir, nvb_strerror(rc));
    if (w->offset > UINT64_MAX - w->size)
        FAIL(-EINVAL, "offset '%" PRIu64 "' + size '%" PRIu64 "' overflows", w->offset, w->size);
    if (w->verify && w->offset % w->bs)
        FAIL(-EINVAL, "offset '%" PRIu64 "' is not a multiple of bs '%" PRIu64 "': a target the run creates "
             "with verify=1 is laid out in whole blocks from its start", w->offset, w->bs);
    snprintf(t->file, sizeof t->file, "%s", t->path);
    t->ti = di;
    t->ti.kind = NVB__T_FILE;
    t->ti.size = w->offset + w->size;
    t->ti.dev[0] = 0;
    t->ti.id_dev = t->ti.id_ino = t->ti.id_rdev = 0;
    t->scratch = t->create = 1;
    return 0;
}

static int plan_target(const struct nvb_workload *w, struct plan *p, struct ptarget *t, char *err, size_t errlen)
{
    int null = (nvb__engine_flags(p->eng, p->eopts) & NVB__ENG_NO_FILES) != 0;
    int rc;
    rc = nvb__target_info(t->path, &t->ti);
    char to[512];
    if (rc == -ENOENT && nvb__symlink_target(t->path, to, sizeof to) >= 0)
        FAIL(-ENOENT, "target '%s' is a dangling symlink: it points to '%s', which does not exist; a run "
             "creates no file through a symlink: create '%s' first, or name a path that is not a link",
             t->path, to, to);
    int fsrc = null ? 0 : nvb__target_fs_check(t->path, rc, &t->ti, err, errlen); /* not storage (targetfs.c) */
    if (fsrc < 0)
        return fsrc;
    if (rc == -ENOENT && w->size && !null && !(p->eng->flags & NVB__ENG_CHARDEV))
        return (rc = plan_create(w, t, err, errlen)) < 0 ? rc : plan_region(w, p, t, err, errlen);
    if (rc == -ENOENT)
        FAIL(rc, "target '%s' does not exist%s", t->path,
             null || (p->eng->flags & NVB__ENG_CHARDEV) ? "" : " (set size to have the run create it as a file of that size, as fio does)");
    if (rc == -ESTALE)
        FAIL(rc, "target '%s' changed while it was being examined (it names something else now); "
             "refusing to run on something that was not checked", t->path);
    if (rc < 0)
        FAIL(rc, "target '%s': %s", t->path, nvb_strerror(rc));
    snprintf(t->file, sizeof t->file, "%s", t->path);
    if (null) {
        uint64_t sz = t->ti.kind == NVB__T_FILE || t->ti.kind == NVB__T_BLOCK ? t->ti.size : 0;
        t->off = w->offset;
        t->len = w->size ? w->size : (sz > w->offset ? sz - w->offset : NULL_REGION);
        if (!t->ti.lbs)
            t->ti.lbs = 1;
        return nvb__bsmix_target(w, 1, t->len, t->path, NULL, err, errlen);
    }
    /* The destructive-write guard (devices/guard.c), and the device's
     * facts: a write smaller than the flash's indirection unit costs
     * the drive a read-modify-write. */
    /* precondition=N writes too, and a trim destroys data: the same guard as a write */
    const int writes = p->writes || p->prewrites || p->trims;
    char what[48];
    snprintf(what, sizeof what, p->prewrites ? "%s, precondition=%u" : "%s", nvb__rw_name(w->rw), w->precondition);
    if (t->ti.kind == NVB__T_FILE && writes) {
        /* a swap file, or the backing file of a loop device in use */
        char gm[1024];
        rc = nvb__file_check(t->path, gm, sizeof gm);
        if (rc < 0)
            FAIL(rc, "%s", gm);
    }
    if (t->ti.kind == NVB__T_BLOCK || t->ti.kind == NVB__T_CHAR) {
        char gm[1024];
        rc = nvb__device_check(t->path, writes, w->allow_destructive, what, &t->devf, gm, sizeof gm);
        if (rc < 0)
            FAIL(rc, "%s", gm);
        struct nvb__bsdir ws; /* every size a write has: bs, or bssplit's writes */
        nvb__bssplit_dir(&w->bssplit, NVB_WRITE, w->bs, &ws);
        for (unsigned k = 0; p->writes && k < ws.n; k++)
            if (nvb__iu_warning(&t->devf, ws.size[k], t->path, gm, sizeof gm)) {
                plan_warn(p, "%s", gm);
                break;
            }
    }
    if (p->eng->prepare_target && (rc = plan_prepare(w, p, t, err, errlen)) < 0)
        return rc;
    return plan_region(w, p, t, err, errlen);
}

static int plan_targets(const struct nvb_workload *w, struct plan *p, char *err, size_t errlen)
{
    int rc;
    int null = (nvb__engine_flags(p->eng, p->eopts) & NVB__ENG_NO_FILES) != 0;
    int chardev = (p->eng->flags & NVB__ENG_CHARDEV) != 0;
    if (chardev && !w->direct)
        plan_warn(p, "direct=0 ignored: engine %s sends commands to the device, never through the page cache",
                  p->eng->name);
    if (!w->ntargets && !null)
        FAIL(-EINVAL, "no targets: add a regular file, a block device or a directory");
    p->nt = w->ntargets ? w->ntargets : 1;
    p->t = calloc(p->nt, sizeof *p->t);
    if (!p->t)
        FAIL(-ENOMEM, "out of memory");
    for (unsigned i = 0; i < p->nt; i++)
        p->t[i].hold.fd = p->t[i].hold.claim_fd = p->t[i].hold.alias_fd = -1;
    if (!w->ntargets) { /* null engine without targets: one virtual region */
        p->t[0].path = "(null)";
        p->t[0].ti.kind = NVB__T_OTHER;
        p->t[0].ti.lbs = 1;
        p->t[0].len = w->size ? w->size : NULL_REGION;
        p->t[0].off = w->offset;
        snprintf(p->t[0].file, sizeof p->t[0].file, "(null)");
    }
    for (unsigned i = 0; i < w->ntargets; i++) {
        p->t[i].path = w->targets[i];
        if ((rc = plan_target(w, p, &p->t[i], err, errlen)) < 0)
            return rc;
    }
    for (unsigned i = 0; i < p->nt; i++) {
        /* I/O offsets become off_t: a region must end by 2^63 */
        const struct ptarget *t = &p->t[i];
        if (t->off + t->len < t->off || t->off + t->len > (1ull << 63))
            FAIL(-EINVAL, "region of target '%s' (offset %" PRIu64 " + size %" PRIu64 ") ends beyond 2^63 bytes, "
                 "past the largest file offset", t->path, t->off, t->len);
    }
    return 0;
}

/* What a target is: a file by its inode; a device by its number, however
 * it is named (/dev/disk/by-*, a symlink, a node made with mknod
 * elsewhere); a passthrough target (nvme) by its namespace's block device,
 * which another plan may name directly. */
struct ident {
    int kind;
    uint64_t a, b;
};

static struct ident ident_of(const struct plan *p, const struct ptarget *t)
{
    struct ident id = {t->ti.kind, t->ti.id_rdev, 0};
    if (t->ti.kind == NVB__T_FILE) {
        id.a = t->ti.id_dev;
        id.b = t->ti.id_ino;
        return id;
    }
    struct nvb__target_info ci;
    if (t->claim[0] && nvb__target_info(t->claim, &ci) == 0 && ci.kind == NVB__T_BLOCK) {
        id.kind = NVB__T_BLOCK;
        id.a = ci.id_rdev;
    } else if (p->eng->flags & NVB__ENG_CHARDEV) {
        id.kind = NVB__T_CHAR;
    }
    return id;
}

int nvb__plan_same_target(const struct plan *pa, const struct ptarget *a, const struct plan *pb,
                          const struct ptarget *b)
{
    /* a target still missing is known by its name only */
    if (a->create && b->create)
        return !strcmp(a->path, b->path);
    if (a->scratch || b->scratch)
        return 0;
    struct ident x = ident_of(pa, a), y = ident_of(pb, b);
    return x.kind == y.kind && x.a == y.a && x.b == y.b;
}

static int same_layer(const struct nvb__layer *x, const struct nvb__layer *y)
{
    if (x->file != y->file)
        return 0;
    if (x->file ? x->dev != y->dev || x->ino != y->ino : x->rdev != y->rdev)
        return 0;
    /* len 0: to the end */
    return (!y->len || x->off < y->off + y->len) && (!x->len || y->off < x->off + x->len);
}

/* "a -> /dev/loop3 -> f.dat": the first n+1 layers of l. */
static void chain(const struct nvb__layers *l, unsigned n, char *out, size_t len)
{
    size_t used = 0;
    out[0] = 0;
    for (unsigned i = 0; i <= n && used < len; i++) {
        int k = snprintf(out + used, len - used, "%s%s", i ? " -> " : "", l->l[i].name);
        if (k < 0)
            break;
        used += (size_t)k;
    }
}

int nvb__plan_share_data(const struct plan *pa, const struct ptarget *a, const struct plan *pb,
                         const struct ptarget *b, char *why, size_t len)
{
    why[0] = 0;
    if (nvb__plan_same_target(pa, a, pb, b))
        return 1;
    if (a->scratch || b->scratch)
        return 0;
    struct ident x = ident_of(pa, a), y = ident_of(pb, b);
    if ((x.kind != NVB__T_FILE && x.kind != NVB__T_BLOCK) || (y.kind != NVB__T_FILE && y.kind != NVB__T_BLOCK))
        return 0;
    struct nvb__layers *la = malloc(2 * sizeof *la);
    if (!la)
        return 0; /* the holds still refuse what shares a layer with a writer */
    struct nvb__layers *lb = la + 1;
    nvb__stack_layers(x.kind == NVB__T_FILE, x.a, x.b, x.kind == NVB__T_BLOCK ? x.a : 0, a->path, la);
    nvb__stack_layers(y.kind == NVB__T_FILE, y.a, y.b, y.kind == NVB__T_BLOCK ? y.a : 0, b->path, lb);
    int found = 0;
    for (unsigned i = 0; i < la->n && !found; i++)
        for (unsigned k = 0; k < lb->n && !found; k++) {
            if ((!i && !k) || !same_layer(&la->l[i], &lb->l[k]))
                continue;
            found = 1;
            char ca[512], cb[512];
            chain(la, i, ca, sizeof ca);
            chain(lb, k, cb, sizeof cb);
            if (!k)
                snprintf(why, len, "'%s' lies on '%s' (%s)", a->path, b->path, ca);
            else if (!i)
                snprintf(why, len, "'%s' lies on '%s' (%s)", b->path, a->path, cb);
            else
                snprintf(why, len, "both lie on %s (%s; %s)", la->l[i].name, ca, cb);
        }
    free(la);
    return found;
}

/* One target named twice in a run that writes or verifies (the same
 * name, a hard link, another node of one device, a partition listed
 * twice): its blocks would be written as two targets, by jobs that each
 * take the other's for their own, and verify would report the other's
 * writes as mismatches. Refused before anything is opened, as job groups
 * refuse it (groups.c); readers may name a target twice. */
static int plan_aliases(const struct nvb_workload *w, struct plan *p, char *err, size_t errlen)
{
    if ((nvb__engine_flags(p->eng, p->eopts) & NVB__ENG_NO_FILES) || nvb__plan_hold_level(p, w->verify) < NVB__HOLD_VERIFY)
        return 0;
    for (unsigned i = 0; i < p->nt; i++)
        for (unsigned k = i + 1; k < p->nt; k++) {
            const struct ptarget *a = &p->t[i], *b = &p->t[k];
            int created = a->create && b->create && !strcmp(a->path, b->path);
            if (created || nvb__plan_same_target(p, a, p, b))
                FAIL(-EINVAL, "targets %u '%s' and %u '%s' are the same %s: a run that %s names each target once "
                     "(its jobs would write one block as two targets%s)", i, a->path, k, b->path,
                     created || a->ti.kind == NVB__T_FILE ? "file" : "device",
                     p->writes || p->prewrites || p->trims ? "writes" : "verifies",
                     w->verify ? ", and verify would report each other's writes as mismatches" : "");
        }
    return 0;
}

/* What the run will take from the machine: memory and descriptors (core/budget.c). */
static int plan_budget(const struct nvb_workload *w, struct plan *p, char *err, size_t errlen)
{
    nvb__plan_need(w, p, &p->need);
    int rc = nvb__need_check(&p->need, p, err, errlen);
    if (rc < 0)
        return rc;
    if (p->ios_total && p->ios_total < p->jobs)
        plan_warn(p, "ios %" PRIu64 " is smaller than jobs %u: some jobs issue nothing", p->ios_total, p->jobs);
    return 0;
}
#undef FAIL

int nvb__plan_build(const struct nvb_workload *w, struct plan *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    p->ncpus_online = nvb__ncpus();
    int rc = plan_engine(w, p, err, errlen);
    if (rc == 0)
        rc = plan_targets(w, p, err, errlen);
    if (rc == 0)
        rc = plan_aliases(w, p, err, errlen);
    if (rc == 0)
        rc = nvb__iomode_check(w, p, err, errlen); /* uncached, atomic, fua */
    if (rc == 0)
        rc = nvb__pi_check(w, p, err, errlen); /* pi_act, pi_chk, md_per_io_size: core/pi.c */
    if (rc == 0)
        rc = nvb__zeroes_check(w, p, err, errlen); /* write_zeroes: core/iomode.c */
    if (rc == 0)
        rc = nvb__zbd_plan(w, p, err, errlen); /* zone_mode=zbd and its keys */
    if (rc == 0)
        rc = plan_budget(w, p, err, errlen);
    if (rc == 0)
        rc = nvb__ss_plan(w, p, err, errlen);
    if (rc == 0 && w->sprandom)
        rc = nvb__sprandom_plan(w, p, err, errlen);
    if (rc == 0 && w->precondition)
        rc = nvb__precond_plan(w, p, err, errlen);
    if (rc < 0)
        nvb__plan_free(p);
    return rc;
}

NVB_API int nvb_workload_validate(struct nvb_workload *w)
{
    if (!w)
        return -EINVAL;
    struct plan p;
    w->err[0] = 0;
    int rc = nvb__plan_build(w, &p, w->err, sizeof w->err);
    if (rc == 0)
        nvb__plan_free(&p);
    return rc;
}

/* e is held and is the file or device h names: a file by its inode, a
 * device by its number (another node for it is an alias). */
static int hold_same(const struct nvb__hold *e, const struct nvb__hold *h)
{
    return e->fd >= 0 && e->kind == h->kind &&
           (h->kind == NVB__T_FILE ? e->id_dev == h->id_dev && e->id_ino == h->id_ino : e->id_rdev == h->id_rdev);
}

int nvb__plan_hold_level(const struct plan *p, int verify)
{
    return p->writes || p->prewrites || p->trims ? NVB__HOLD_WRITE : verify ? NVB__HOLD_VERIFY : NVB__HOLD_READ;
}

int nvb__plan_hold(struct plan *p, int verify, const struct nvb_run_opts *o, char *err, size_t errlen)
{
    if (nvb__engine_flags(p->eng, p->eopts) & NVB__ENG_NO_FILES)
        return 0;
    int chardev = (p->eng->flags & NVB__ENG_CHARDEV) != 0;
    int level = nvb__plan_hold_level(p, verify);
    unsigned n = 0;
    for (unsigned t = 0; t < p->nt; t++) {
        struct ptarget *pt = &p->t[t];
        if (pt->scratch)
            continue;
        struct nvb__hold *h = &pt->hold;
        h->path = pt->path;
        h->file = pt->file;
        h->claim = pt->claim[0] ? pt->claim : NULL;
        h->kind = chardev ? NVB__T_CHAR : (int)pt->ti.kind;
        h->id_dev = pt->ti.id_dev;
        h->id_ino = pt->ti.id_ino;
        h->id_rdev = pt->ti.id_rdev;
        h->level = level;
        n++;
    }
    if (!n)
        return 0;
    /* Debug level: a test swaps a target from here to prove the hold
     * judges what it opens, not the name planning looked at. */
    nvb__run_log(o, 3, "opening %u target%s", n, n == 1 ? "" : "s");
    for (unsigned t = 0; t < p->nt; t++) {
        if (p->t[t].scratch)
            continue;
        /* a target named twice shares the first one's hold */
        struct nvb__hold *h = &p->t[t].hold;
        int rc = 0;
        for (unsigned k = 0; k < t && h->fd < 0; k++)
            if (!p->t[k].scratch && hold_same(&p->t[k].hold, h))
                rc = nvb__hold_share(&p->t[k].hold, h);
        /* job groups (groups.c): a target another group holds, or created
         * (held once laid out: two writers of it share that hold) */
        for (unsigned g = 0; g < p->nshare && h->fd < 0 && rc == 0; g++)
            for (unsigned k = 0; k < p->share[g]->nt && h->fd < 0 && rc == 0; k++)
                if ((!p->share[g]->t[k].scratch || p->share[g]->t[k].create) &&
                    hold_same(&p->share[g]->t[k].hold, h))
                    rc = nvb__hold_share(&p->share[g]->t[k].hold, h);
        if (rc == 0 && h->fd < 0)
            rc = nvb__hold_take(h, 1, err, errlen);
        if (rc < 0) {
            if (!err[0])
                snprintf(err, errlen, "target '%s': %s", p->t[t].path, nvb_strerror(rc));
            for (unsigned k = 0; k < t; k++)
                nvb__hold_release(&p->t[k].hold, 1);
            return rc;
        }
    }
    return 0;
}
