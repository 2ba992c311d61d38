/* The calling thread's I/O priority (Linux: ioprio_set, which glibc does not wrap). */
#include "platform/platform.h"

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

int nvb__ioprio_set(unsigned value)
{
#ifdef SYS_ioprio_set
    /* IOPRIO_WHO_PROCESS with 0: the calling thread */
    if (syscall(SYS_ioprio_set, 1, 0, (int)value) < 0)
        return -errno;
    return 0;
#else
    (void)value;
    return -ENOTSUP;
#endif
}
