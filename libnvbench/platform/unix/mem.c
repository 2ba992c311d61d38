/* Aligned buffers (Linux). */
#include "platform/platform.h"
#include "platform/common.h"
#include "platform/unix/unix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <errno.h>
#include <linux/mempolicy.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
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

/* mbind(2) and get_mempolicy(2) by their system calls: no libnuma needed */
int nvb__mem_bind_node(void *p, size_t len, int node)
{
    unsigned long mask[16] = {0};
    const long page = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096;
    if (node < -1 || node >= (int)(sizeof mask * 8) || !p || !len)
        return -EINVAL;
    uintptr_t a = (uintptr_t)p & ~(uintptr_t)(page - 1), e = (uintptr_t)p + len;
    if (node < 0) /* back to the default policy */
        return syscall(SYS_mbind, (void *)a, (unsigned long)(e - a), MPOL_DEFAULT, NULL, 0ul, 0u) != 0 ? -errno : 0;
    mask[node / (8 * sizeof mask[0])] |= 1ul << (node % (8 * sizeof mask[0]));
    if (syscall(SYS_mbind, (void *)a, (unsigned long)(e - a), MPOL_PREFERRED, mask,
                (unsigned long)(sizeof mask * 8), MPOL_MF_MOVE) != 0)
        return -errno;
    return 0;
}

int nvb__mem_node_of(const void *p)
{
    int node = -1;
    if (syscall(SYS_get_mempolicy, &node, NULL, 0ul, p, MPOL_F_NODE | MPOL_F_ADDR) != 0)
        return -errno;
    return node;
}

/* The policy get_mempolicy(2) reports for the page at p: what mbind()
 * left on the real buffer, so placement can show the call was made. */
int nvb__mem_policy_of(const void *p, char *name, size_t len)
{
    static const char *const names[] = {"default", "preferred", "bind", "interleave", "local", "preferred_many",
                                        "weighted_interleave"};
    int mode = -1;
    if (syscall(SYS_get_mempolicy, &mode, NULL, 0ul, p, MPOL_F_ADDR) != 0)
        return -errno;
    mode &= 0xff; /* less the mode flags (MPOL_F_STATIC_NODES, ...) */
    if (mode >= 0 && mode < (int)(sizeof names / sizeof names[0]))
        snprintf(name, len, "%s", names[mode]);
    else
        snprintf(name, len, "mode %d", mode);
    return mode;
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
