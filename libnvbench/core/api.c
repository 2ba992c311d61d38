/* Library-wide entry points that hold no state. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

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
