/* What the io_uring and nvme engines share: see uring_util.h. */
#include "core/engine.h"

#if NVB_HAVE_LIBURING
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "engines/uring_util.h"

const char *nvb__uring_err_text(int err)
{
    switch (err) {
    /* A seccomp filter may answer either errno (tests/c/test_engines.c
     * installs both), so ENOSYS alone does not prove an old kernel. */
    case -ENOSYS: return "the kernel has no io_uring (older than 5.1 or built without CONFIG_IO_URING), "
                         "or a seccomp/container policy hides it";
    case -EPERM:  return "io_uring is disabled or denied for this process (sysctl kernel.io_uring_disabled, "
                         "or a seccomp/container policy)";
    case -ENOMEM: return "cannot allocate the rings (RLIMIT_MEMLOCK too low on kernels before 5.12)";
    default:      return strerror(-err);
    }
}

/* Registered buffers are pinned and their pages charged to the user's
 * RLIMIT_MEMLOCK unless the process has CAP_IPC_LOCK: with both figures in
 * the message an ENOMEM says what to raise. Short enough for an
 * engine_used value (96 bytes with its prefix). */
void nvb__uring_memlock_hint(int r, size_t total, char *buf, size_t len)
{
    struct rlimit rl;
    buf[0] = '\0';
    if (r != -ENOMEM)
        return;
    if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) {
        snprintf(buf, len, " (RLIMIT_MEMLOCK too low? see ulimit -l)");
        return;
    }
    snprintf(buf, len, " (RLIMIT_MEMLOCK %llu KiB, buffers %llu KiB)", (unsigned long long)rl.rlim_cur >> 10,
             ((unsigned long long)total + 1023) >> 10);
}

#endif /* NVB_HAVE_LIBURING */
