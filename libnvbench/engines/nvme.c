/*
 * NVMe passthrough through io_uring: NVMe Read/Write commands carried by
 * IORING_OP_URING_CMD to the namespace's generic character device
 * /dev/ngXnY (Linux 5.19+), bypassing the block layer's bio path,
 * scheduler and accounting. This is the Linux analogue of the "native"
 * NVMe stack of the published Windows comparison: the same queues, less
 * software between the application and them (the I/O Passthru paper,
 * FAST '24).
 *
 * Each command needs a 128-byte SQE (the 64-byte header plus the 80-byte
 * struct nvme_uring_cmd) and a 32-byte CQE, hence SETUP_SQE128|CQE32.
 * The engine otherwise follows io_uring.c's cost model: submit() only
 * fills SQEs, a batch's reserved at once and each made from its target's
 * and direction's template (engines/nvme_sqe.h); reap() makes one
 * io_uring_enter() per call; completions are read straight off the CQ
 * ring.
 *
 * What the runner guarantees: fds are /dev/ngXnY nodes opened without
 * O_DIRECT (a character device refuses it), bs and offsets are multiples of
 * the LBA size, and every target passed the destructive-write guard. What
 * the engine still checks itself, because a passthrough command is not
 * bound by the descriptor's open mode on kernels before 6.2 when the caller
 * has CAP_SYS_ADMIN: it never sends a write through a descriptor opened
 * read-only (the I/O completes with -EBADF, as pwrite would).
 *
 * Completion: cqe->res is 0 on success, -errno when the kernel failed the
 * command, or a positive NVMe status (SCT/SC, the DNR and More bits) when
 * the controller did. A status is -EIO for the runner; the engine keeps the
 * first and the count for a note in the result.
 *
 * Threading: like io_uring.c, setup() runs on the job thread that submits.
 */
#include "core/engine.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/nvme_sqe.h"
#include "engines/ring.h"
#include "nvbench.h"

enum {
    OPT_FIXEDBUFS,
    OPT_REGFILES,
    OPT_IOPOLL,
    OPT_ENTRIES,
    OPT_DEFER_TASKRUN,
};

static const struct nvb__optdef nvme_opts[] = {
    [OPT_FIXEDBUFS] = { "fixedbufs", NVB__OPT_AUTOBOOL, -1, -1, 1,
        "registered buffers with IORING_URING_CMD_FIXED (-1: when the kernel takes them, 6.1+; else plain addresses)" },
    [OPT_REGFILES] = { "regfiles", NVB__OPT_AUTOBOOL, -1, -1, 1,
        "register the generic-node descriptors (-1: try, fall back on failure)" },
    [OPT_IOPOLL] = { "iopoll", NVB__OPT_BOOL, 0, 0, 1,
        "busy-poll for completions (IORING_SETUP_IOPOLL); the controller needs poll queues (nvme poll_queues=N)" },
    [OPT_ENTRIES] = NVB__RING_OPT_ENTRIES,
    [OPT_DEFER_TASKRUN] = NVB__RING_OPT_DEFER_TASKRUN,
    { NULL, 0, 0, 0, 0, NULL },
};

#if NVB_HAVE_LIBURING
#include <dirent.h>
#include <inttypes.h>
#include <linux/nvme_ioctl.h>
#include <stdint.h>
#include <unistd.h>

#include "devices/nvme_ns.h"
#include "engines/nvme_pi.h"
#include "platform/platform.h"
#include "util/util.h"

struct nvt {                        /* one target */
    int      fd;
    uint32_t nsid;
    uint32_t lba_size;
    uint8_t  lba_shift;
    uint8_t  writable;
    uint8_t  zeroes;                /* a trim is a Write Zeroes command (write_zeroes=1) */
    struct nvb__pi_fmt pf;          /* metadata and protection information (engines/nvme_pi.c) */
};

struct nvme_eng {
    struct nvb__ring r;
    unsigned nt;
    struct nvt *t;
    void *const *bufs;
    size_t   buf_len;
    unsigned nbufs;                 /* registered buffers usable with URING_CMD_FIXED */
    uint64_t io_timeout_ns;         /* bound of the setup-time read (ctx->io_timeout_ns) */
    uint8_t *md;                    /* qd metadata buffers of md_stride bytes (slot i: md + i x md_stride), or NULL */
    size_t   md_stride;
    unsigned char regfiles;
    /* per target and direction (index target << 2 | dir): what each
     * command starts as (engines/nvme_sqe.h), made once the registrations
     * are known */
    struct nvb__nvme_tmpl *tmpl;
    uint16_t bmask;                 /* buf_index = slot & bmask: ~0 with registered buffers, else 0 */
    /* I/Os failed in submit() before reaching the ring (a write on a
     * read-only descriptor, a bad target, misalignment). */
    struct nvb__io **early;
    unsigned nearly, early_cap;
    /* NVMe status codes returned by the controller */
    uint64_t nstatus;
    uint64_t npi;                   /* of which end-to-end protection check errors (SCT 2, SC 0x82..0x84) */
    uint32_t first_status;
    uint64_t first_off;
    uint8_t  first_dir;
    uint16_t first_target;
};

static const char *uring_err_text(int err)
{
    if (err == -EINVAL)
        return "the kernel refused IORING_SETUP_SQE128|CQE32 (NVMe passthrough needs Linux 5.19 or later)";
    return nvb__uring_err_text(err);
}

/* Linux names the NVMe generic nodes ngXnY (5.13+); only those that exist
 * count, and one that can be opened at all says the engine can run here. */
static int generic_nodes(char *first, size_t len, int *openable)
{
    DIR *d = opendir("/dev");
    int n = 0;
    *openable = 0;
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        unsigned x, y;
        char tail;
        if (sscanf(e->d_name, "ng%un%u%c", &x, &y, &tail) != 2)
            continue;
        char p[300];
        snprintf(p, sizeof p, "/dev/%s", e->d_name);
        if (!n)
            snprintf(first, len, "%s", p);
        n++;
        if (!*openable) {
            int fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
            if (fd >= 0) {
                *openable = 1;
                snprintf(first, len, "%s", p);
                close(fd);
            }
        }
    }
    closedir(d);
    return n;
}

/*
 * Available when the kernel takes a passthrough ring and this machine has a
 * namespace generic node this process may open. The per-namespace questions
 * (is it formatted with metadata, does the kernel let this user send I/O
 * commands) are answered by setup(), with the namespace named.
 */
static int nvme_probe(char *why, size_t why_len)
{
    static const int ops[] = { IORING_OP_URING_CMD };
    int r = nvb__ring_probe(IORING_SETUP_SQE128 | IORING_SETUP_CQE32, ops, 1);
    if (r < 0) {
        nvb__why(why, why_len, "nvme: %s", uring_err_text(r));
        return r == -EINVAL ? -ENOTSUP : r;
    }
    if (!r) {
        nvb__why(why, why_len, "nvme: the kernel lacks IORING_OP_URING_CMD (needs Linux 5.19 or later)");
        return -ENOTSUP;
    }
    char first[300] = "";
    int openable;
    int n = generic_nodes(first, sizeof first, &openable);
    if (!n) {
        nvb__why(why, why_len, "nvme: no NVMe generic device (/dev/ng*) on this machine");
        return -ENOTSUP;
    }
    if (!openable) {
        nvb__why(why, why_len, "nvme: no permission to open the NVMe generic devices (%s, ...): passthrough "
                 "needs read/write access to them, and CAP_SYS_ADMIN before Linux 6.2", first);
        return -EACCES;
    }
    return 0;
}

/*
 * Whatever name a target has (/dev/nvmeXnY, a multipath head, a by-id
 * link, the generic node itself), jobs open the namespace's generic node;
 * its size and LBA size are the namespace's, and a writer claims its block
 * device. The node's identity is what the run's hold must find there.
 */
static int nvme_prepare_target(struct nvb__target_prep *t, char *err, size_t err_len)
{
    struct nvb__nvme_ns ns;
    char gm[512], b1[32];
    int rc = nvb__nvme_ns_find(t->path, &ns, gm, sizeof gm);
    if (rc < 0) {
        snprintf(err, err_len, "engine nvme: target %s", gm);
        return rc;
    }
    snprintf(t->file, t->file_len, "%s", ns.generic);
    snprintf(t->claim, t->claim_len, "%s", ns.block);
    struct nvb__target_info gi;
    if (nvb__target_info(t->file, &gi) == 0) {
        t->id_dev = gi.id_dev;
        t->id_ino = gi.id_ino;
        t->id_rdev = gi.id_rdev;
    }
    t->size = ns.size;
    t->lbs = ns.lba_size;
    if (!t->dev[0] && ns.block[0])
        snprintf(t->dev, t->dev_len, "%s", ns.block + (strncmp(ns.block, "/dev/", 5) ? 0 : 5));
    t->whole_blocks = "NVMe commands move whole blocks";
    if (ns.max_transfer && t->bs > ns.max_transfer) {
        snprintf(err, err_len, "bs '%s' is larger than the largest command namespace '%s' takes (%" PRIu64
                 " bytes, max_hw_sectors_kb): passthrough does not split I/O", nvb__fmt_size(t->bs, b1, sizeof b1),
                 t->path, ns.max_transfer);
        return -EINVAL;
    }
    return 0;
}

static void nvme_teardown(void *state)
{
    struct nvme_eng *e = state;
    if (!e)
        return;
    nvb__ring_exit(&e->r);
    free(e->md);
    free(e->t);
    free(e->tmpl);
    free(e->early);
    free(e);
}

/* A Read or Write's protection information and metadata (a format with
 * metadata only): PRACT/PRCHK (those of prchk_keep), the tags, the
 * metadata buffer md, which a host-generated write fills first. */
static void set_pi(struct io_uring_sqe *sqe, const struct nvt *t, int dir, const void *buf, uint32_t len,
                   uint8_t *md, uint32_t prchk_keep)
{
    const struct nvb__pi_fmt *f = &t->pf;
    struct nvme_uring_cmd *c = (struct nvme_uring_cmd *)sqe->cmd;
    const uint32_t nlb = len >> t->lba_shift;
    const uint64_t slba = ((uint64_t)c->cdw11 << 32) | c->cdw10;
    c->cdw12 |= f->cdw12 & (NVB__CDW12_PRACT | prchk_keep);
    c->cdw14 = f->reftag ? (uint32_t)slba : 0; /* the initial reference tag: the first block's LBA */
    c->cdw15 = f->cdw15;
    if (md && f->md_per_io) {
        if (dir == NVB_WRITE && f->host_gen)
            nvb__nvme_pi_fill(f, buf, nlb, slba, md);
        c->metadata = (uint64_t)(uintptr_t)md;
        c->metadata_len = nlb * f->ms;
    }
}

/* What a command of template tm (its target's format has metadata) adds
 * to the fill: PRACT on a Write Zeroes, else set_pi() with the slot's
 * metadata buffer. */
static void add_pi(const struct nvme_eng *e, struct io_uring_sqe *sqe, const struct nvb__nvme_tmpl *tm,
                   const struct nvb__io *io)
{
    const struct nvt *t = &e->t[io->target];
    if (tm->trim == 2) {
        ((struct nvme_uring_cmd *)sqe->cmd)->cdw12 |= t->pf.cdw12 & NVB__CDW12_PRACT;
        return;
    }
    set_pi(sqe, t, io->dir, io->buf, io->len, e->md ? e->md + (size_t)io->slot * e->md_stride : NULL, ~0u);
}

/* The ring is CQE32: every completion takes two CQE slots. */
#define CQE_SHIFT 1

/* One command at setup, waited for: a read of the first block of target
 * `ti`, with or without a registered buffer. It proves that this process may
 * send I/O commands and whether the kernel takes IORING_URING_CMD_FIXED.
 * Returns the command's cqe->res, or a negative errno from io_uring. */
static int probe_read(struct nvme_eng *e, unsigned ti, int fixed)
{
    const struct nvt *t = &e->t[ti];
    struct io_uring *ring = &e->r.ring;
    struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
    if (!sqe)
        return -EBUSY;
    struct nvb__nvme_tmpl tm;
    struct nvb__io io = { .buf = e->bufs[0], .len = t->lba_size, .target = (uint16_t)ti, .dir = NVB_READ };
    nvb__nvme_tmpl_make(&tm, e->regfiles ? (int)ti : t->fd, e->regfiles, fixed, t->nsid, t->lba_size, NVB_READ, 1);
    nvb__nvme_fill(sqe, &tm, 0, &io);
    /* no checks: block 0 may never have been written with these tags */
    if (t->pf.ms)
        set_pi(sqe, t, NVB_READ, e->bufs[0], t->lba_size, e->md, 0);
    sqe->user_data = 0;
    /* Wait (IOPOLL reaps only when asked) until the completion is there,
     * at most io_timeout: a device that does not answer fails the setup
     * (the runner keeps the buffer the read may still land in). */
    const uint64_t t0 = nvb__now_ns();
    int r = nvb__uring_submit_wait(ring, 1, nvb__wait_bound(e->r.wait_ns));
    if (r < 0 && r != -EINTR && r != -ETIME)
        return r;
    while (!io_uring_cq_ready(ring)) {
        if (e->io_timeout_ns && nvb__now_ns() - t0 >= e->io_timeout_ns)
            return -ETIMEDOUT;
        r = e->r.iopoll ? io_uring_get_events(ring) : nvb__uring_submit_wait(ring, 1, nvb__wait_bound(e->r.wait_ns));
        if (r < 0 && r != -EINTR && r != -EAGAIN && r != -ETIME)
            return r;
    }
    int res = nvb__ring_cqe(ring, *ring->cq.khead, CQE_SHIFT)->res;
    io_uring_cq_advance(ring, 1);
    return res;
}

static const char *status_text(uint32_t st)
{
    unsigned sct = (st >> 8) & 7, sc = st & 0xff;
    if (sct == 0) {
        switch (sc) {
        case 0x01: return "Invalid Command Opcode";
        case 0x02: return "Invalid Field in Command";
        case 0x04: return "Data Transfer Error";
        case 0x06: return "Internal Error";
        case 0x0b: return "Invalid Namespace or Format";
        case 0x80: return "LBA Out of Range";
        case 0x81: return "Capacity Exceeded";
        case 0x82: return "Namespace Not Ready";
        default: break;
        }
    } else if (sct == 2) {
        switch (sc) {
        case 0x80: return "Write Fault";
        case 0x81: return "Unrecovered Read Error";
        case 0x82: return "End-to-end Guard Check Error";
        case 0x83: return "End-to-end Application Tag Check Error";
        case 0x84: return "End-to-end Reference Tag Check Error";
        case 0x86: return "Access Denied";
        default: break;
        }
    }
    return "see the NVMe base specification";
}

/* Identify each target's namespace; fills e->t. 0 or -errno with ctx->why. */
static int identify_targets(const struct nvb__engine_ctx *ctx, struct nvme_eng *e)
{
    uint8_t *idb = NULL;
    if (posix_memalign((void **)&idb, 4096, 4096) != 0) {
        nvb__why(ctx->why, ctx->why_len, "nvme: out of memory");
        return -ENOMEM;
    }
    int rc = 0;
    for (unsigned i = 0; i < ctx->nfds && rc == 0; i++) {
        struct nvt *t = &e->t[i];
        t->fd = ctx->fds[i];
        int fl = fcntl(t->fd, F_GETFL);
        if (fl < 0) {
            rc = -errno;
            nvb__why(ctx->why, ctx->why_len, "nvme: target %u: bad descriptor: %s", i, nvb_strerror(rc));
            break;
        }
        t->writable = (fl & O_ACCMODE) != O_RDONLY;
        t->zeroes = ctx->zeroes != 0;
        int nsid = nvb__nvme_nsid(t->fd);
        if (nsid < 0) {
            rc = nsid == -ENOTTY || nsid == -EINVAL || nsid == -ENODEV ? -ENODEV : nsid;
            nvb__why(ctx->why, ctx->why_len, "nvme: target %u is not an NVMe namespace node (NVME_IOCTL_ID: %s); "
                     "the engine drives /dev/ngXnY", i, nvb_strerror(nsid));
            break;
        }
        t->nsid = (uint32_t)nsid;
        int r = nvb__nvme_identify_ns(t->fd, nsid, idb, 4096);
        struct nvb__idns id;
        if (r == 0)
            r = nvb__idns_parse(idb, 4096, &id);
        if (r < 0) {
            rc = r;
            nvb__why(ctx->why, ctx->why_len, "nvme: target %u (nsid %d): Identify Namespace failed: %s%s", i, nsid,
                     nvb_strerror(r), r == -EACCES || r == -EPERM
                         ? " (NVMe passthrough needs CAP_SYS_ADMIN before Linux 6.2)" : "");
            break;
        }
        /* With metadata the controller also moves ms bytes per block to
         * or from the metadata buffer; with PI it inserts or checks tags:
         * what the format allows for pi_act/pi_chk/md_per_io_size. */
        char pwhy[400];
        if ((r = nvb__nvme_pi_plan(&id, &ctx->pi, ctx->buf_len, &t->pf, pwhy, sizeof pwhy)) < 0) {
            rc = r;
            nvb__why(ctx->why, ctx->why_len, "nvme: target %u (nsid %d): %s", i, nsid, pwhy);
            break;
        }
        t->lba_size = id.lba_size;
        t->lba_shift = (uint8_t)__builtin_ctz(id.lba_size);
        if (ctx->buf_len && ctx->buf_len % id.lba_size) {
            rc = -EINVAL;
            nvb__why(ctx->why, ctx->why_len, "nvme: buffer size %zu is not a multiple of the LBA size %u of "
                     "target %u", ctx->buf_len, id.lba_size, i);
            break;
        }
    }
    free(idb);
    return rc;
}

/* The metadata buffers, one per slot, when a target's format moves
 * metadata; and what the commands carry, in the result's engine notes.
 * 0 or -ENOMEM with ctx->why. */
static int alloc_md(const struct nvb__engine_ctx *ctx, struct nvme_eng *e, unsigned qd)
{
    uint64_t most = 0;
    const struct nvb__pi_fmt *f = NULL;
    for (unsigned i = 0; i < e->nt; i++) {
        if (e->t[i].pf.ms && !f)
            f = &e->t[i].pf;
        if (e->t[i].pf.md_per_io > most)
            most = e->t[i].pf.md_per_io;
    }
    if (f)
        nvb__used_set(ctx->used, "protection", "metadata %u bytes per block, PI type %u%s%s%s%s%s%s",
                      (unsigned)f->ms, (unsigned)f->type, f->cdw12 & NVB__CDW12_PRACT ? ", PRACT" : "",
                      f->cdw12 & NVB__CDW12_PRCHK_GUARD ? ", check GUARD" : "",
                      f->cdw12 & NVB__CDW12_PRCHK_APPTAG ? ", check APPTAG" : "",
                      f->cdw12 & NVB__CDW12_PRCHK_REFTAG ? ", check REFTAG" : "",
                      f->host_gen ? ", PI of writes generated by nvbench" : "",
                      f->md_per_io ? ", metadata buffer per I/O" : ", no metadata transferred");
    if (!most)
        return 0;
    e->md_stride = (size_t)((most + 63) & ~(uint64_t)63);
    if (posix_memalign((void **)&e->md, 4096, e->md_stride * qd) != 0) {
        e->md = NULL;
        nvb__why(ctx->why, ctx->why_len, "nvme: out of memory for %u metadata buffers of %zu bytes", qd,
                 e->md_stride);
        return -ENOMEM;
    }
    memset(e->md, 0, e->md_stride * qd);
    return 0;
}

/* The ring: the cheapest completion model the kernel takes. 0 or -errno
 * with ctx->why. */
static int create_ring(const struct nvb__engine_ctx *ctx, struct nvme_eng *e, unsigned entries)
{
    int64_t iopoll = ctx->opts[OPT_IOPOLL], defer = ctx->opts[OPT_DEFER_TASKRUN];
    const unsigned base = IORING_SETUP_SQE128 | IORING_SETUP_CQE32 | (iopoll ? IORING_SETUP_IOPOLL : 0);
    const unsigned DEFER = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
    unsigned cand[2], ncand = 0;
    if (defer != 0)
        cand[ncand++] = DEFER;
    if (defer != 1)
        cand[ncand++] = 0;
    unsigned used_flags = 0;
    char fallback[160] = "";
    int r = nvb__ring_init(&e->r, ctx, entries, base, IORING_SETUP_NO_SQARRAY, cand, ncand, 0, &used_flags, fallback,
                           sizeof fallback);
    if (fallback[0])
        nvb__used_set(ctx->used, "setup_flags_why", "%s", fallback);
    if (r < 0) {
        nvb__why(ctx->why, ctx->why_len, "nvme: io_uring_queue_init(%u, SQE128|CQE32%s%s): %s", entries,
                 iopoll ? "|IOPOLL" : "", defer == 1 ? "|SINGLE_ISSUER|DEFER_TASKRUN" : "",
                 defer == 1 && r == -EINVAL ? "the kernel refused DEFER_TASKRUN (needs 6.1)" : uring_err_text(r));
        return r;
    }
    nvb__ring_used(&e->r, ctx, used_flags);
    return 0;
}

/*
 * One read per target before the run: it fails here, with the target
 * named, what would otherwise fail every I/O (no permission for I/O
 * commands, a namespace that is not ready), and it learns whether the
 * kernel takes registered buffers for passthrough (6.1+: older ones reject
 * the unknown uring_cmd_flags with -EINVAL). It reads into buffer 0, which
 * the runner has filled (fill=random or zero): it keeps what was there.
 * identify_targets() made every LBA size divide buf_len. 0 or -errno with
 * ctx->why.
 */
static int read_block0(const struct nvb__engine_ctx *ctx, struct nvme_eng *e)
{
    uint32_t maxlba = 0;
    for (unsigned i = 0; i < e->nt; i++)
        if (e->t[i].lba_size > maxlba)
            maxlba = e->t[i].lba_size;
    void *saved = malloc(maxlba);
    if (!saved) {
        nvb__why(ctx->why, ctx->why_len, "nvme: out of memory");
        return -ENOMEM;
    }
    memcpy(saved, e->bufs[0], maxlba);
    int r = 0;
    for (unsigned i = 0; i < e->nt && r == 0; i++) {
        int res = probe_read(e, i, i == 0 && e->nbufs);
        if (res == -EINVAL && i == 0 && e->nbufs) {
            if (ctx->opts[OPT_FIXEDBUFS] == 1) {
                r = -ENOTSUP;
                nvb__why(ctx->why, ctx->why_len, "nvme: fixedbufs=1: the kernel refuses IORING_URING_CMD_FIXED "
                         "(registered buffers for passthrough need Linux 6.1)");
                break;
            }
            io_uring_unregister_buffers(&e->r.ring);
            e->nbufs = 0;
            nvb__used_set(ctx->used, "fixedbufs_why", "the kernel refuses IORING_URING_CMD_FIXED (needs 6.1)");
            res = probe_read(e, i, 0);
        }
        if (res != 0) {
            r = res < 0 ? res : -EIO;
            if (res > 0)
                nvb__why(ctx->why, ctx->why_len, "nvme: target %u (nsid %u): a read of block 0 failed with NVMe "
                         "status 0x%x (%s)", i, e->t[i].nsid, (unsigned)res, status_text((uint32_t)res));
            else if (res == -ETIMEDOUT)
                nvb__why(ctx->why, ctx->why_len, "nvme: target %u (nsid %u): a read of block 0 did not complete "
                         "within io_timeout=%.3g s: the device does not answer", i, e->t[i].nsid,
                         (double)e->io_timeout_ns / 1e9);
            else
                nvb__why(ctx->why, ctx->why_len, "nvme: target %u (nsid %u): a read of block 0 failed: %s%s", i,
                         e->t[i].nsid, nvb_strerror(res), res == -EACCES || res == -EPERM
                             ? " (NVMe I/O passthrough needs CAP_SYS_ADMIN before Linux 6.2, and read access "
                               "to the node after)" : "");
        }
    }
    memcpy(e->bufs[0], saved, maxlba);
    free(saved);
    return r;
}

/* Every target's templates, now that the registrations are known: 0 or
 * -ENOMEM with ctx->why. */
static int make_templates(const struct nvb__engine_ctx *ctx, struct nvme_eng *e)
{
    e->tmpl = calloc((size_t)e->nt << 2, sizeof *e->tmpl);
    if (!e->tmpl) {
        nvb__why(ctx->why, ctx->why_len, "nvme: out of memory");
        return -ENOMEM;
    }
    e->bmask = e->nbufs ? (uint16_t)~0u : 0;
    for (unsigned i = 0; i < e->nt; i++) {
        const struct nvt *t = &e->t[i];
        for (int d = 0; d < 4; d++) {
            struct nvb__nvme_tmpl *tm = &e->tmpl[i << 2 | d];
            nvb__nvme_tmpl_make(tm, e->regfiles ? (int)i : t->fd, e->regfiles, e->nbufs != 0,
                                t->nsid, t->lba_size, d <= NVB_TRIM ? d : NVB_READ, t->writable);
            if (d == NVB_TRIM && t->zeroes) {
                tm->nvme_op = NVB__NVME_CMD_WRITE_ZEROES;
                tm->trim = 2;
            }
            /* a Read or Write on a format with metadata; a Write Zeroes
             * only for PRACT (the controller writes the blocks' PI) */
            tm->pi = t->pf.ms && (d != NVB_TRIM || (t->zeroes && (t->pf.cdw12 & NVB__CDW12_PRACT)));
        }
    }
    return 0;
}

static int nvme_setup(const struct nvb__engine_ctx *ctx, void **state)
{
    unsigned qd = ctx->qd ? ctx->qd : 1;
    unsigned entries;
    int r;

    if (!ctx->nfds) {
        nvb__why(ctx->why, ctx->why_len, "nvme: no targets");
        return -EINVAL;
    }
    if (!ctx->bufs || !ctx->buf_len) {
        nvb__why(ctx->why, ctx->why_len, "nvme: the runner gave no buffers");
        return -EINVAL;
    }
    if (nvb__ring_entries(ctx, "nvme", ctx->opts[OPT_ENTRIES], &entries) < 0)
        return -EINVAL;

    struct nvme_eng *e = calloc(1, sizeof *e);
    if (e) {
        e->t = calloc(ctx->nfds, sizeof *e->t);
        e->early = calloc(qd, sizeof *e->early);
    }
    if (!e || !e->t || !e->early) {
        nvme_teardown(e);
        nvb__why(ctx->why, ctx->why_len, "nvme: out of memory");
        return -ENOMEM;
    }
    e->r.ring.ring_fd = -1;
    e->nt = ctx->nfds;
    e->bufs = ctx->bufs;
    e->io_timeout_ns = ctx->io_timeout_ns;
    e->buf_len = ctx->buf_len;
    e->early_cap = qd;

    if ((r = identify_targets(ctx, e)) < 0 || (r = alloc_md(ctx, e, qd)) < 0 ||
        (r = create_ring(ctx, e, entries)) < 0)
        goto fail;
    /* identify_targets() gave target i the descriptor ctx->fds[i] */
    r = nvb__ring_register_files(&e->r, ctx, "nvme", ctx->opts[OPT_REGFILES], ctx->fds, e->nt);
    if (r < 0)
        goto fail;
    e->regfiles = (unsigned char)r;
    nvb__used_set(ctx->used, "regfiles", "%d", e->regfiles);
    r = nvb__ring_register_bufs(&e->r, ctx, "nvme", ctx->opts[OPT_FIXEDBUFS], qd);
    if (r < 0)
        goto fail;
    e->nbufs = r ? qd : 0;
    if ((r = read_block0(ctx, e)) < 0 || (r = make_templates(ctx, e)) < 0)
        goto fail;
    nvb__used_set(ctx->used, "fixedbufs", "%d", e->nbufs ? 1 : 0);
    nvb__used_set(ctx->used, "iopoll", "%d", e->r.iopoll);
    nvb__used_set(ctx->used, "nsid", "%u", e->t[0].nsid);
    nvb__used_set(ctx->used, "lba_size", "%u", e->t[0].lba_size);
    if (ctx->zeroes && ctx->trims)
        nvb__used_set(ctx->used, "trims", "NVMe Write Zeroes");

    *state = e;
    return 0;
fail:
    nvme_teardown(e);
    return r < 0 ? r : -EINVAL;
}

static void fail_early(struct nvme_eng *e, struct nvb__io *io, int err)
{
    io->res = err;
    e->early[e->nearly++] = io;
}

/* The batch's SQEs reserved once, each filled from its target's and
 * direction's template; an I/O the template or its extent refuses is
 * failed before the ring (reaped first). The runner's slot i always uses
 * ctx->bufs[i], within buf_len, which the registered buffers are. */
static int nvme_submit(void *state, struct nvb__io **ios, unsigned n)
{
    struct nvme_eng *e = state;
    if (__builtin_expect(e->r.outstanding + e->nearly + n > e->early_cap, 0))
        return -EOVERFLOW; /* more than qd in flight: a caller bug */
    int rc = nvb__ring_reserve(&e->r, n, 0);
    if (__builtin_expect(rc < 0, 0))
        return rc;
    struct io_uring_sq *sq = &e->r.ring.sq;
    struct io_uring_sqe *const sqes = sq->sqes;
    const struct nvb__nvme_tmpl *const tmpl = e->tmpl;
    const unsigned tail = sq->sqe_tail, mask = sq->ring_mask, nt = e->nt;
    const uint16_t bmask = e->bmask;
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++) {
        struct nvb__io *io = ios[i];
        /* (a target past the last is the runner's bug: failed, not read
         * out of the table) */
        const struct nvb__nvme_tmpl *t = &tmpl[(io->target < nt ? io->target : 0u) << 2 | (io->dir & 3u)];
        int err = nvb__nvme_check(t, io);
        if (__builtin_expect(err != 0 || io->target >= nt, 0)) {
            fail_early(e, io, io->target >= nt ? -EBADF : err);
            continue;
        }
        /* SQE128: every entry is two 64-byte slots */
        struct io_uring_sqe *sqe = &sqes[((tail + k++) & mask) << 1];
        nvb__nvme_fill(sqe, t, (uint16_t)(io->slot & bmask), io);
        if (__builtin_expect(t->pi, 0))
            add_pi(e, sqe, t, io);
    }
    sq->sqe_tail = tail + k;
    e->r.outstanding += k;
    return 0;
}

/* cqe->res: 0, -errno from the kernel, or a positive NVMe status. */
static inline void nvme_res(void *arg, struct nvb__io *io, int res)
{
    struct nvme_eng *e = arg;
    if (__builtin_expect(res == 0, 1)) {
        io->res = io->len; /* a command moves all of its blocks or fails */
    } else if (res < 0) {
        io->res = res;
    } else {
        unsigned sc = (unsigned)res & 0xff, sct = ((unsigned)res >> 8) & 7;
        e->npi += sct == 2 && sc >= 0x82 && sc <= 0x84;
        if (!e->nstatus++) {
            e->first_status = (uint32_t)res;
            e->first_off = io->off;
            e->first_dir = io->dir;
            e->first_target = io->target;
        }
        io->res = -EIO;
    }
}

static int nvme_reap(void *state, struct nvb__io **out, unsigned max, unsigned min)
{
    struct nvme_eng *e = state;
    unsigned got = 0;

    /* Early failures first: they never entered the ring. */
    while (e->nearly && got < max)
        out[got++] = e->early[--e->nearly];
    return nvb__ring_reap(&e->r, out, max, min, got, CQE_SHIFT, nvme_res, e);
}

static void nvme_note(void *state, char *msg, size_t len)
{
    struct nvme_eng *e = state;
    msg[0] = '\0';
    if (!e || !e->nstatus)
        return;
    unsigned st = e->first_status;
    char pi[80] = "";
    if (e->npi)
        snprintf(pi, sizeof pi, " (%llu of them end-to-end protection check errors)", (unsigned long long)e->npi);
    snprintf(msg, len, "%llu command%s completed with an NVMe error status (counted as EIO)%s; the first: status "
             "0x%x (SCT %u, SC 0x%02x: %s%s) on a %s of target %u at byte %llu",
             (unsigned long long)e->nstatus, e->nstatus > 1 ? "s" : "", pi, st, (st >> 8) & 7, st & 0xff,
             status_text(st), st & 0x4000 ? ", do not retry" : "", e->first_dir == NVB_WRITE ? "write" : "read",
             e->first_target, (unsigned long long)e->first_off);
}

#endif /* NVB_HAVE_LIBURING */

/* .abandon: closing a ring does not wait for its requests (the kernel
 * finishes them in the background): safe with I/O abandoned in flight. */
NVB__ENGINE_DEFINE(nvme, NVB__ENG_CHARDEV | NVB__ENG_TRIM | NVB__ENG_SUBMIT_QUEUES, nvme_opts,
    "NVMe passthrough: NVMe Read/Write (and Dataset Management deallocate for trims) commands through io_uring "
    "(IORING_OP_URING_CMD) on /dev/ngXnY, "
    "bypassing the block layer",
    NVB__ENGINE_IF(NVB_HAVE_LIBURING, "nvme: built without liburing (liburing-dev was not found at build time)",
        .probe = nvme_probe, NVB__ENGINE_OPS(nvme), .abandon = nvme_teardown, .note = nvme_note,
        .prepare_target = nvme_prepare_target));
