/* Library-wide entry points that hold no state. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "platform/platform.h"

#ifndef NVB_VERSION_STRING
#define NVB_VERSION_STRING "0.0.0"
#endif

NVB_API const char *nvb_version(void) { return NVB_VERSION_STRING; }

NVB_API void nvb_free(void *p) { free(p); }

NVB_API const char *nvb_strerror(int err)
{
    if (err > 0)
        err = -err;
    switch (err) {
    case 0: return "success";
    case -ENOTSUP: return "not supported here";
    case -ECANCELED: return "cancelled";
    default: break;
    }
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
    /* static, thread-safe text (strerror() is neither) */
    const char *d = strerrordesc_np(-err);
    if (d)
        return d;
#else
    switch (err) {
    case -EPERM: return "operation not permitted";
    case -ENOENT: return "no such file or directory";
    case -EIO: return "input/output error";
    case -ENOMEM: return "out of memory";
    case -EACCES: return "permission denied";
    case -EBUSY: return "device or resource busy";
    case -EINVAL: return "invalid argument";
    case -ENOSPC: return "no space left on device";
    case -ERANGE: return "value out of range";
    case -ENOSYS: return "function not implemented";
    /* the rest of what the library returns, for C runtimes without
     * strerrordesc_np (mingw's msvcrt among them) */
    case -EBADF: return "bad file descriptor";
    case -EEXIST: return "file exists";
    case -ENODEV: return "no such device";
    case -ENOTDIR: return "not a directory";
    case -EISDIR: return "is a directory";
    case -EROFS: return "read-only file system";
    case -ENAMETOOLONG: return "file name too long";
    case -EFBIG: return "file too large";
    case -EMFILE: return "too many open files";
    case -EAGAIN: return "resource temporarily unavailable";
    case -EINTR: return "interrupted";
    case -ETIMEDOUT: return "timed out";
    case -EOVERFLOW: return "value too large";
    case -ENXIO: return "no such device or address";
    case -ESTALE: return "stale file handle";
    default: break;
    }
#endif
    return "unknown error";
}

/* What a target's length is, without opening it (a FIFO opened for reading
 * waits for a writer; a tape rewinds): stat-like facts only. */
NVB_API int nvb_target_length(const char *path, uint64_t *bytes, char *why, size_t whylen)
{
    if (why && whylen)
        why[0] = '\0';
    if (!path || !*path || !bytes)
        return -EINVAL;
    *bytes = 0;
    struct nvb__target_info ti;
    int rc = nvb__target_info(path, &ti);
    if (rc < 0) {
        if (why && whylen)
            snprintf(why, whylen, "target '%s' cannot be examined (%s)", path, strerror(-rc));
        return rc;
    }
    switch (ti.kind) {
    case NVB__T_FILE:
    case NVB__T_BLOCK:
        *bytes = ti.size;
        return 0;
    case NVB__T_CHAR:
        /* a passthrough node: its namespace's length is the engine's to find */
        return 0;
    case NVB__T_DIR:
        if (why && whylen)
            snprintf(why, whylen, "target '%s' is a directory: it has no length of its own", path);
        return -EISDIR;
    default:
        if (why && whylen)
            snprintf(why, whylen, "target '%s' is neither a file nor a device (a FIFO or a socket): "
                     "not storage, and not opened", path);
        return -EINVAL;
    }
}
