/* The parts of the platform interface that are the same on both OSes
 * (see common.h): built for Linux and Windows alike. */
#include "platform/common.h"

#include <errno.h>
#include <stdlib.h>

size_t nvb__align_pow2(size_t align)
{
    size_t a = sizeof(void *);
    while (a < align && a <= (SIZE_MAX >> 1))
        a <<= 1;
    return a;
}

void nvb__sys_sample_free(struct nvb__sys_sample *s)
{
    free(s->cpu);
    free(s->cpu_id);
    s->cpu = NULL;
    s->cpu_id = NULL;
    s->ncpu = 0;
}

int nvb__thread_rows_push(struct nvb__thread_cpu **arr, int *n, int *cap, const struct nvb__thread_cpu *tc)
{
    if (*n == *cap) {
        int ncap = *cap ? *cap * 2 : 16;
        struct nvb__thread_cpu *na = realloc(*arr, (size_t)ncap * sizeof(**arr));
        if (!na) {
            free(*arr);
            *arr = NULL;
            return -ENOMEM;
        }
        *arr = na;
        *cap = ncap;
    }
    (*arr)[(*n)++] = *tc;
    return 0;
}
