/* What the Windows engines share: see wio.h. */
#include "engines/win/wio.h"

#include <string.h>

#include "nvbench.h"

BOOL nvb__wio_issue(HANDLE h, const struct nvb__io *io, OVERLAPPED *ov, HANDLE ev)
{
    memset(ov, 0, sizeof *ov);
    ov->Offset = (DWORD)io->off;
    ov->OffsetHigh = (DWORD)(io->off >> 32);
    ov->hEvent = ev;
    return io->dir == NVB_WRITE ? WriteFile(h, io->buf, io->len, NULL, ov) : ReadFile(h, io->buf, io->len, NULL, ov);
}

int64_t nvb__wio_error(DWORD err)
{
    return err == ERROR_HANDLE_EOF ? 0 : nvb__win_errno(err);
}

int64_t nvb__wio_result(HANDLE h, OVERLAPPED *ov, BOOL wait)
{
    DWORD n = 0;
    if (GetOverlappedResult(h, ov, &n, wait))
        return (int64_t)n;
    return nvb__wio_error(GetLastError());
}

void nvb__wio_used_stack(const struct nvb__engine_ctx *ctx)
{
    if (!ctx->nfds || !ctx->used)
        return;
    struct nvb__win_stack st;
    nvb__win_stack_of(nvb__win_handle(ctx->fds[0]), &st);
    nvb__used_set(ctx->used, "stack", "%s", st.stack);
    /* "detected": the stack is the driver found on the disk; "none": no
     * driver was found, and only a front door's flag can say (stated) */
    nvb__used_set(ctx->used, "stack_source", "%s", strcmp(st.stack, "unknown") ? "detected" : "none");
    nvb__used_set(ctx->used, "stack_detail", "%s", st.detail);
    nvb__used_set(ctx->used, "disk_model", "%s", st.model);
    nvb__used_set(ctx->used, "disk_driver", "%s", st.driver);
    nvb__used_set(ctx->used, "disk_driver_version", "%s", st.driver_version);
}
