/* Aligned buffers (Windows). */
#include "platform/platform.h"
#include "platform/common.h"
#include "platform/win/win.h"

#include <errno.h>
#include <malloc.h>
#include <string.h>

/* _aligned_malloc takes any power of two; buffers for unbuffered I/O need
 * the sector size at most (4096 covers every device), and the runner asks
 * for at least a page. Such a block must be released with _aligned_free,
 * never free(). NULL for a zero size, like the Linux side. */
void *nvb__alloc_aligned(size_t align, size_t size)
{
    return size ? _aligned_malloc(size, nvb__align_pow2(align)) : NULL;
}

void nvb__free_aligned(void *p)
{
    if (p)
        _aligned_free(p);
}

/* Physical memory, or less where a job object this process runs in caps
 * its memory (the Windows counterpart of a control group limit). Bytes;
 * 0 when unknown. */
uint64_t nvb__mem_total(void)
{
    MEMORYSTATUSEX ms;
    ms.dwLength = sizeof ms;
    uint64_t phys = GlobalMemoryStatusEx(&ms) ? (uint64_t)ms.ullTotalPhys : 0;
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION li;
    memset(&li, 0, sizeof li);
    uint64_t cap = 0;
    if (QueryInformationJobObject(NULL, JobObjectExtendedLimitInformation, &li, sizeof li, NULL)) {
        DWORD f = li.BasicLimitInformation.LimitFlags;
        if (f & JOB_OBJECT_LIMIT_JOB_MEMORY)
            cap = (uint64_t)li.JobMemoryLimit;
        if ((f & JOB_OBJECT_LIMIT_PROCESS_MEMORY) && (!cap || li.ProcessMemoryLimit < cap))
            cap = (uint64_t)li.ProcessMemoryLimit;
    }
    return cap && (!phys || cap < phys) ? cap : phys;
}

/* Windows has no descriptor limit of this kind: handles are not capped
 * per process the way RLIMIT_NOFILE caps descriptors. */
int nvb__fd_budget(uint64_t *limit, uint64_t *open_now)
{
    (void)limit;
    (void)open_now;
    return -ENOTSUP;
}

/* NUMA placement of buffers is not done on Windows (docs/cpu.md). */
int nvb__mem_bind_node(void *p, size_t len, int node)
{
    (void)p;
    (void)len;
    (void)node;
    return -ENOTSUP;
}

int nvb__mem_node_of(const void *p)
{
    (void)p;
    return -ENOTSUP;
}

int nvb__mem_policy_of(const void *p, char *name, size_t len)
{
    (void)p;
    if (len)
        name[0] = 0;
    return -ENOTSUP;
}
