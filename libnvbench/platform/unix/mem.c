/* Aligned buffers (Linux). */
#include "platform/platform.h"
#include "platform/common.h"
#include "platform/unix/unix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <errno.h>
#include <sys/resource.h>
#include <unistd.h>

/* Returns NULL on failure (or for a zero size), like malloc. align is
 * rounded up to what posix_memalign accepts (nvb__align_pow2). */
void *nvb__alloc_aligned(size_t align, size_t size)
{
    void *p = NULL;
    if (size == 0 || posix_memalign(&p, nvb__align_pow2(align), size) != 0)
        return NULL;
    return p;
}

void nvb__free_aligned(void *p)
{
    free(p);
}

/* The cgroup v2 limit of this process ("max" or absent: none). */
static uint64_t cgroup_limit(void)
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f)
        return 0;
    char line[512], path[600] = "";
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "0::", 3)) {
            line[strcspn(line, "\n")] = 0;
            snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.max", line + 3);
            break;
        }
    fclose(f);
    return path[0] ? nvb__unix_read_u64(path) : 0;
}

uint64_t nvb__mem_total(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    uint64_t phys = pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz : 0;
    uint64_t cg = cgroup_limit();
    if (cg && (!phys || cg < phys))
        return cg;
    return phys;
}

int nvb__fd_budget(uint64_t *limit, uint64_t *open_now)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return -ENOTSUP;
    *limit = (uint64_t)rl.rlim_cur;
    *open_now = 3;
    DIR *d = opendir("/proc/self/fd");
    if (d) {
        uint64_t n = 0;
        struct dirent *e;
        while ((e = readdir(d)))
            n += e->d_name[0] != '.';
        closedir(d);
        *open_now = n ? n - 1 : 0; /* less the directory's own descriptor */
    }
    return 0;
}
