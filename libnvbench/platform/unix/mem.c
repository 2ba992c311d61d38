/* Aligned buffers (Linux). */
#include "platform/platform.h"

#include <stdlib.h>

/* Returns NULL on failure (or for a zero size), like malloc. align is
 * rounded up to what posix_memalign accepts, so callers can pass a device's
 * dma alignment (which may be as small as 4) directly. */
void *nvb__alloc_aligned(size_t align, size_t size)
{
    if (size == 0)
        return NULL;
    size_t a = sizeof(void *);
    while (a < align && a <= (SIZE_MAX >> 1))
        a <<= 1;
    void *p = NULL;
    if (posix_memalign(&p, a, size) != 0)
        return NULL;
    return p;
}

void nvb__free_aligned(void *p)
{
    free(p);
}
