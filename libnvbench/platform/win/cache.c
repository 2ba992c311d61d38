/*
 * A target's page cache and allocation (Windows): not available. Windows
 * has no call that drops one file's cached data or tells how much of it is
 * cached, and files are sparse there only when marked so
 * (FSCTL_SET_SPARSE): a run reports these as unknown (docs/api.md,
 * invalidate).
 */
#include "platform/platform.h"

#include <errno.h>
#include <string.h>

int nvb__cache_drop(int fd, uint64_t off, uint64_t len)
{
    (void)fd, (void)off, (void)len;
    return -ENOTSUP;
}

int nvb__cache_resident(int fd, uint64_t off, uint64_t len, uint64_t *resident, uint64_t *examined)
{
    (void)fd, (void)off, (void)len;
    *resident = *examined = 0;
    return -ENOTSUP;
}

int nvb__cache_resident_mincore(int fd, uint64_t off, uint64_t len, uint64_t *resident, uint64_t *examined)
{
    return nvb__cache_resident(fd, off, len, resident, examined);
}

int nvb__file_allocated(int fd, uint64_t off, uint64_t len, uint64_t *allocated)
{
    (void)fd, (void)off, (void)len;
    *allocated = 0;
    return -ENOTSUP;
}

int nvb__file_write_cache(int fd, struct nvb__wcache *wc)
{
    (void)fd;
    memset(wc, 0, sizeof *wc);
    return -ENOTSUP;
}
