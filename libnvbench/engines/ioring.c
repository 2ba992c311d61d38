/*
 * ioring: the Windows IoRing API (Windows 11 / Server 2022 build 22000
 * and later; writes from IORING_VERSION_3, Windows 11 22H2 / Server 2025).
 *
 * The API is looked up in KernelBase.dll at run time: mingw-w64 declares
 * it only for NTDDI_VERSION >= NTDDI_WIN10_CO, with no import library,
 * and a binary importing it would not load on Windows without it. The
 * types are declared here from Microsoft's documentation (ioringapi.h,
 * ntioring_x.h); the subset is what a read/write benchmark needs.
 *
 * Cost model as io_uring.c: submit() only builds entries in the user-mode
 * submission queue; reap() makes one SubmitIoRing() per call, which both
 * submits what was built and waits for the completions the runner needs;
 * completions are popped from the user-mode completion queue. Buffers and
 * file handles are registered by default (ioring.fixedbufs,
 * ioring.regfiles), so the kernel does not probe and lock the buffer nor
 * reference the handle per I/O.
 *
 * Under wine (8.0) KernelBase has no IoRing functions: probe() says so.
 */
#include "core/engine.h"

#include <errno.h>
#include <stdlib.h>

#include "nvbench.h"

enum { OPT_FIXEDBUFS, OPT_REGFILES, OPT_ENTRIES };

static const struct nvb__optdef ioring_opts[] = {
    [OPT_FIXEDBUFS] = { "fixedbufs", NVB__OPT_AUTOBOOL, -1, -1, 1,
        "register the I/O buffers (BuildIoRingRegisterBuffers; -1: try, fall back to plain addresses)" },
    [OPT_REGFILES] = { "regfiles", NVB__OPT_AUTOBOOL, -1, -1, 1,
        "register the target handles (BuildIoRingRegisterFileHandles; -1: try, fall back)" },
    [OPT_ENTRIES] = { "entries", NVB__OPT_INT, 0, 0, 65536,
        "submission queue size (0: qd rounded up to a power of two)" },
    { NULL, 0, 0, 0, 0, NULL },
};

#ifdef _WIN32
#include <stdio.h>
#include <string.h>

#include "engines/win/wio.h"

/* ---- the IoRing types, as documented ---- */
typedef struct nvb_hioring_ *HIORING_;
typedef enum { IORV_INVALID = 0, IORV_1 = 1, IORV_2 = 2, IORV_3 = 300 } ioring_version;
enum { IORING_FEATURE_UM_EMULATION_ = 1, IORING_FEATURE_SET_COMPLETION_EVENT_ = 2 };
typedef struct { ioring_version MaxVersion; UINT32 MaxSubmissionQueueSize, MaxCompletionQueueSize; int FeatureFlags; } ioring_caps;
typedef struct { int Required; int Advisory; } ioring_create_flags;
typedef struct { ioring_version IoRingVersion; ioring_create_flags Flags; UINT32 SubmissionQueueSize, CompletionQueueSize; } ioring_info;
typedef enum { REF_RAW = 0, REF_REGISTERED = 1 } ioring_ref_kind;
typedef struct { ioring_ref_kind Kind; union { HANDLE Handle; UINT32 Index; } u; } ioring_handle_ref;
typedef struct { UINT32 BufferIndex, Offset; } ioring_registered_buffer;
typedef struct { ioring_ref_kind Kind; union { void *Address; ioring_registered_buffer IndexAndOffset; } u; } ioring_buffer_ref;
typedef struct { void *Address; UINT32 Length; } ioring_buffer_info;
typedef struct { UINT_PTR UserData; HRESULT ResultCode; ULONG_PTR Information; } ioring_cqe;
_Static_assert(sizeof(ioring_handle_ref) == 16 && sizeof(ioring_buffer_ref) == 16, "IORING_*_REF are 16 bytes");
_Static_assert(sizeof(ioring_cqe) == 24, "IORING_CQE is 24 bytes");

typedef HRESULT(WINAPI *query_caps_fn)(ioring_caps *);
typedef HRESULT(WINAPI *create_fn)(ioring_version, ioring_create_flags, UINT32, UINT32, HIORING_ *);
typedef HRESULT(WINAPI *info_fn)(HIORING_, ioring_info *);
typedef HRESULT(WINAPI *close_fn)(HIORING_);
typedef HRESULT(WINAPI *submit_fn)(HIORING_, UINT32, UINT32, UINT32 *);
typedef HRESULT(WINAPI *pop_fn)(HIORING_, ioring_cqe *);
typedef HRESULT(WINAPI *read_fn)(HIORING_, ioring_handle_ref, ioring_buffer_ref, UINT32, UINT64, UINT_PTR, int);
typedef HRESULT(WINAPI *write_fn)(HIORING_, ioring_handle_ref, ioring_buffer_ref, UINT32, UINT64, int, UINT_PTR, int);
typedef HRESULT(WINAPI *reg_files_fn)(HIORING_, UINT32, const HANDLE *, UINT_PTR);
typedef HRESULT(WINAPI *reg_bufs_fn)(HIORING_, UINT32, const ioring_buffer_info *, UINT_PTR);

struct api {
    query_caps_fn caps;
    create_fn create;
    info_fn info;
    close_fn close;
    submit_fn submit;
    pop_fn pop;
    read_fn read;
    write_fn write;          /* NULL before IORING_VERSION_3 */
    reg_files_fn reg_files;
    reg_bufs_fn reg_bufs;
};

#define SYM(name) (void *)(void (*)(void))GetProcAddress(kb, name)

/* 0, or -ENOTSUP with why. Reads only: no state is kept between calls. */
static int load_api(struct api *a, char *why, size_t why_len)
{
    memset(a, 0, sizeof *a);
    HMODULE kb = GetModuleHandleW(L"kernelbase.dll");
    if (!kb) {
        nvb__why(why, why_len, "KernelBase.dll is not loaded (Windows 8 or later needed)");
        return -ENOTSUP;
    }
    a->caps = (query_caps_fn)SYM("QueryIoRingCapabilities");
    a->create = (create_fn)SYM("CreateIoRing");
    a->info = (info_fn)SYM("GetIoRingInfo");
    a->close = (close_fn)SYM("CloseIoRing");
    a->submit = (submit_fn)SYM("SubmitIoRing");
    a->pop = (pop_fn)SYM("PopIoRingCompletion");
    a->read = (read_fn)SYM("BuildIoRingReadFile");
    a->write = (write_fn)SYM("BuildIoRingWriteFile");
    a->reg_files = (reg_files_fn)SYM("BuildIoRingRegisterFileHandles");
    a->reg_bufs = (reg_bufs_fn)SYM("BuildIoRingRegisterBuffers");
    if (!a->caps || !a->create || !a->close || !a->submit || !a->pop || !a->read || !a->reg_files || !a->reg_bufs) {
        nvb__why(why, why_len, "the IoRing API is not in KernelBase.dll (it needs Windows 11 or Server 2022, "
                 "build 22000+%s)", nvb__win_is_wine() ? "; wine does not implement it" : "");
        return -ENOTSUP;
    }
    ioring_caps c;
    memset(&c, 0, sizeof c);
    HRESULT hr = a->caps(&c);
    if (FAILED(hr) || c.MaxVersion < IORV_1) {
        nvb__why(why, why_len, "QueryIoRingCapabilities: no usable IoRing version (HRESULT 0x%08lx)",
                 (unsigned long)hr);
        return -ENOTSUP;
    }
    return 0;
}

static int hr_errno(HRESULT hr)
{
    if (HRESULT_FACILITY(hr) == FACILITY_WIN32)
        return nvb__win_errno((DWORD)HRESULT_CODE(hr));
    if (hr == E_OUTOFMEMORY)
        return -ENOMEM;
    if (hr == E_INVALIDARG)
        return -EINVAL;
    if (hr == E_NOTIMPL)
        return -ENOTSUP;
    return -EIO;
}

struct ioring {
    struct api a;
    HIORING_ ring;
    const int *fds;
    unsigned nfds, qd;
    const uint64_t *wait_ns; /* bound of one wait (ctx->wait_ns, read at each wait) */
    int regfiles, fixedbufs;
    unsigned built;          /* entries built, not yet submitted */
    unsigned pending;        /* submitted, completion not yet popped */
    void *const *bufs;
};

static int ioring_probe(char *why, size_t why_len)
{
    struct api a;
    return load_api(&a, why, why_len);
}

static void ioring_teardown(void *state);

/* Submit the registration entries `built` (what BuildIoRingRegister*
 * answered) and wait for their completion: the registration's result. */
static HRESULT run_registration(struct ioring *r, HRESULT built)
{
    if (FAILED(built))
        return built;
    UINT32 sub = 0;
    HRESULT hr = r->a.submit(r->ring, 1, 5000, &sub);
    if (FAILED(hr))
        return hr;
    ioring_cqe cqe;
    hr = r->a.pop(r->ring, &cqe);
    if (hr != S_OK)
        return FAILED(hr) ? hr : E_FAIL;
    return cqe.ResultCode;
}

/* A registration's result hr for option opt (-1 tries and falls back, 1
 * requires): 1 registered, 0 not (the HRESULT recorded as "<key>_why"), or
 * -errno with ctx->why "ioring.<key>=1: registering the <what> failed". */
static int registered(const struct nvb__engine_ctx *ctx, int opt, const char *what, HRESULT hr)
{
    if (SUCCEEDED(hr))
        return 1;
    const char *key = ioring_opts[opt].name;
    if (ctx->opts[opt] == 1) {
        nvb__why(ctx->why, ctx->why_len, "ioring.%s=1: registering the %s failed (HRESULT 0x%08lx)", key, what,
                 (unsigned long)hr);
        return hr_errno(hr);
    }
    char why_key[32];
    snprintf(why_key, sizeof why_key, "%s_why", key);
    nvb__used_set(ctx->used, why_key, "HRESULT 0x%08lx", (unsigned long)hr);
    return 0;
}

/* Registered handles and buffers, as the options ask, and what was
 * registered in ctx->used. 0 or -errno with ctx->why. */
static int register_all(struct ioring *r, const struct nvb__engine_ctx *ctx)
{
    int rc = 0;
    if (ctx->opts[OPT_REGFILES] != 0 && r->nfds) {
        HANDLE *hs = calloc(r->nfds, sizeof *hs);
        for (unsigned t = 0; hs && t < r->nfds; t++)
            hs[t] = nvb__win_handle(r->fds[t]);
        rc = registered(ctx, OPT_REGFILES, "handles",
                        run_registration(r, hs ? r->a.reg_files(r->ring, r->nfds, hs, 0) : E_OUTOFMEMORY));
        free(hs);
        r->regfiles = rc > 0;
    }
    if (rc >= 0 && ctx->opts[OPT_FIXEDBUFS] != 0) {
        ioring_buffer_info *bi = calloc(r->qd, sizeof *bi);
        for (unsigned i = 0; bi && i < r->qd; i++) {
            bi[i].Address = ctx->bufs[i];
            bi[i].Length = (UINT32)ctx->buf_len;
        }
        rc = registered(ctx, OPT_FIXEDBUFS, "buffers",
                        run_registration(r, bi ? r->a.reg_bufs(r->ring, r->qd, bi, 0) : E_OUTOFMEMORY));
        free(bi);
        r->fixedbufs = rc > 0;
    }
    if (rc < 0)
        return rc;
    nvb__used_set(ctx->used, "regfiles", "%d", r->regfiles);
    nvb__used_set(ctx->used, "fixedbufs", "%d", r->fixedbufs);
    return 0;
}

static int ioring_setup(const struct nvb__engine_ctx *ctx, void **state)
{
    struct ioring *r = calloc(1, sizeof *r);
    if (!r) {
        nvb__why(ctx->why, ctx->why_len, "out of memory");
        return -ENOMEM;
    }
    int rc = load_api(&r->a, ctx->why, ctx->why_len);
    if (rc < 0) {
        free(r);
        return rc;
    }
    if (ctx->writes && !r->a.write) {
        free(r);
        nvb__why(ctx->why, ctx->why_len, "this Windows has IoRing reads only (BuildIoRingWriteFile needs "
                 "IORING_VERSION_3: Windows 11 22H2 / Server 2025)");
        return -ENOTSUP;
    }
    r->fds = ctx->fds;
    r->nfds = ctx->nfds;
    r->qd = ctx->qd ? ctx->qd : 1;
    r->wait_ns = ctx->wait_ns;
    r->bufs = ctx->bufs;
    ioring_caps caps;
    memset(&caps, 0, sizeof caps);
    r->a.caps(&caps);
    UINT32 entries = ctx->opts[OPT_ENTRIES] ? (UINT32)ctx->opts[OPT_ENTRIES] : 1;
    while (!ctx->opts[OPT_ENTRIES] && entries < r->qd + 2)
        entries <<= 1;
    ioring_create_flags fl = { 0, 0 };
    HRESULT hr = r->a.create(caps.MaxVersion, fl, entries, entries * 2, &r->ring);
    if (FAILED(hr)) {
        nvb__why(ctx->why, ctx->why_len, "CreateIoRing(version %d, %u entries) failed: HRESULT 0x%08lx",
                 (int)caps.MaxVersion, (unsigned)entries, (unsigned long)hr);
        r->ring = NULL;
        ioring_teardown(r);
        return hr_errno(hr);
    }
    nvb__used_set(ctx->used, "version", "%d", (int)caps.MaxVersion);
    nvb__used_set(ctx->used, "entries", "%u", (unsigned)entries);
    nvb__used_set(ctx->used, "um_emulation", "%d", (caps.FeatureFlags & IORING_FEATURE_UM_EMULATION_) ? 1 : 0);

    /* Registered handles and buffers: -1 tries and falls back. */
    rc = register_all(r, ctx);
    if (rc < 0) {
        ioring_teardown(r);
        return rc;
    }
    nvb__wio_used_stack(ctx);
    *state = r;
    return 0;
}

static int ioring_submit(void *state, struct nvb__io **ios, unsigned n)
{
    struct ioring *r = state;
    for (unsigned i = 0; i < n; i++) {
        struct nvb__io *io = ios[i];
        if (io->target >= r->nfds)
            return -EBADF;
        ioring_handle_ref fh;
        if (r->regfiles) {
            fh.Kind = REF_REGISTERED;
            fh.u.Index = io->target;
        } else {
            fh.Kind = REF_RAW;
            fh.u.Handle = nvb__win_handle(r->fds[io->target]);
        }
        ioring_buffer_ref bh;
        if (r->fixedbufs && io->buf == r->bufs[io->slot]) {
            bh.Kind = REF_REGISTERED;
            bh.u.IndexAndOffset.BufferIndex = io->slot;
            bh.u.IndexAndOffset.Offset = 0;
        } else {
            bh.Kind = REF_RAW;
            bh.u.Address = io->buf;
        }
        HRESULT hr = io->dir == NVB_WRITE ? r->a.write(r->ring, fh, bh, io->len, io->off, 0, (UINT_PTR)io, 0)
                                          : r->a.read(r->ring, fh, bh, io->len, io->off, (UINT_PTR)io, 0);
        if (FAILED(hr))
            return hr_errno(hr); /* a full queue here means the runner exceeded qd */
        r->built++;
    }
    return 0;
}

static unsigned pop_all(struct ioring *r, struct nvb__io **out, unsigned n, unsigned max)
{
    ioring_cqe cqe;
    while (n < max && r->a.pop(r->ring, &cqe) == S_OK) {
        struct nvb__io *io = (struct nvb__io *)cqe.UserData;
        if (!io)
            continue;
        r->pending--;
        if (SUCCEEDED(cqe.ResultCode))
            io->res = (int64_t)cqe.Information;
        else if (cqe.ResultCode == HRESULT_FROM_WIN32(ERROR_HANDLE_EOF))
            io->res = 0;
        else
            io->res = hr_errno(cqe.ResultCode);
        out[n++] = io;
    }
    return n;
}

static int ioring_reap(void *state, struct nvb__io **out, unsigned max, unsigned min)
{
    struct ioring *r = state;
    unsigned n = pop_all(r, out, 0, max);
    if (n >= min && !r->built)
        return (int)n;
    /* One call submits what submit() built and, when the runner needs
     * more completions than are there, waits for them. */
    unsigned want = n < min ? min - n : 0;
    if (want > r->pending + r->built)
        want = r->pending + r->built;
    UINT32 sub = 0;
    HRESULT hr = r->a.submit(r->ring, want, want ? nvb__win_wait_ms(nvb__wait_bound(r->wait_ns)) : 0, &sub);
    if (FAILED(hr) && hr != HRESULT_FROM_WIN32(WAIT_TIMEOUT))
        return hr_errno(hr);
    r->pending += r->built;
    r->built = 0;
    return (int)pop_all(r, out, n, max);
}

static void ioring_teardown(void *state)
{
    struct ioring *r = state;
    if (!r)
        return;
    if (r->ring) {
        /* I/O abandoned after a fatal error: let it finish before the
         * runner frees its buffers (bounded: 10 s). */
        if (r->pending + r->built) {
            UINT32 sub = 0;
            struct nvb__io *sink[64];
            if (SUCCEEDED(r->a.submit(r->ring, r->pending + r->built, 10000, &sub))) {
                r->pending += r->built;
                r->built = 0;
                while (r->pending && pop_all(r, sink, 0, 64))
                    ;
            }
        }
        r->a.close(r->ring);
    }
    free(r);
}

#endif /* _WIN32 */

NVB__ENGINE_DEFINE(ioring, NVB__ENG_SUBMIT_QUEUES, ioring_opts,
    "Windows IoRing (Windows 11 / Server 2022+): batched submission, registered buffers and handles",
    NVB__ENGINE_IF(NVB__WINDOWS,
        "Windows only (the IoRing API of Windows 11 / Server 2022+); io_uring is the Linux analogue",
        .probe = ioring_probe, NVB__ENGINE_OPS(ioring)));
