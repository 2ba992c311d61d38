/*
 * The one PRNG of the library (internal): splitmix64 (Steele, Lea and
 * Flood, 2014). Each user keeps its own 64-bit state, so two runs, jobs or
 * fault injectors never share a stream; the sequence is part of what
 * verify=1 writes, so it must not change.
 */
#ifndef NVB_UTIL_RAND_H
#define NVB_UTIL_RAND_H

#include <stdint.h>

static inline uint64_t nvb__splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#endif
