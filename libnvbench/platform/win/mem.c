/* Aligned buffers (Windows). */
#include "platform/platform.h"

#include <malloc.h>

/* _aligned_malloc takes any power of two; buffers for unbuffered I/O need
 * the sector size at most (4096 covers every device), and the runner asks
 * for at least a page. Such a block must be released with _aligned_free,
 * never free(). NULL for a zero size, like the Linux side. */
void *nvb__alloc_aligned(size_t align, size_t size)
{
    if (size == 0)
        return NULL;
    size_t a = sizeof(void *);
    while (a < align && a <= (SIZE_MAX >> 1))
        a <<= 1;
    return _aligned_malloc(size, a);
}

void nvb__free_aligned(void *p)
{
    if (p)
        _aligned_free(p);
}
