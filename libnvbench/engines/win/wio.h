/*
 * What the Windows engines (wsync, iocp, ioring) share (internal): the
 * overlapped ReadFile/WriteFile that wsync and iocp issue, what a finished
 * one transferred, and the storage stack under the targets that all three
 * report in engine_used. Built on Windows only (CMakeLists.txt,
 * NVB_ENGINES_WIN_SOURCES).
 */
#ifndef NVB_ENGINES_WIN_WIO_H
#define NVB_ENGINES_WIN_WIO_H

#include <stdint.h>

#include "core/engine.h"
#include "platform/win/win.h"

/* Issue io on h as an overlapped ReadFile or WriteFile at io->off,
 * completing into ov (zeroed here; its event is ev, or NULL). TRUE when it
 * completed at once; FALSE with GetLastError() ERROR_IO_PENDING when it is
 * under way, any other error when it failed at issue. */
BOOL nvb__wio_issue(HANDLE h, const struct nvb__io *io, OVERLAPPED *ov, HANDLE ev);

/* The result of an I/O from a Windows error: end of file is a transfer of
 * 0 bytes, as pread reports it; anything else -errno. */
int64_t nvb__wio_error(DWORD err);

/* The result of the overlapped I/O ov on h: bytes, or nvb__wio_error().
 * wait: block until it is finished (else it must be). */
int64_t nvb__wio_result(HANDLE h, OVERLAPPED *ov, BOOL wait);

/* Records in ctx->used the storage stack under the first target ("stack",
 * "stack_source", "stack_detail") and its first disk's "disk_model",
 * "disk_driver" and "disk_driver_version" ("" when unknown): nothing when
 * there is no target or no ctx->used. */
void nvb__wio_used_stack(const struct nvb__engine_ctx *ctx);

#endif
