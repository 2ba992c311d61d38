/*
 * What the two OS halves of the platform layer share (internal to
 * platform/, never included by core): the code that is the same on both
 * OSes lives once in platform/common.c and platform/fill.c, built for both;
 * what differs is asked of the OS half through the functions below.
 */
#ifndef NVB_PLATFORM_COMMON_H
#define NVB_PLATFORM_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "platform/platform.h"

/* ---- common.c ---- */
/* The alignment an aligned allocator is asked for: align rounded up to a
 * power of two of at least sizeof(void *), so callers may pass a device's
 * DMA alignment (which may be as small as 4) directly. */
size_t nvb__align_pow2(size_t align);
/* Appends tc to the growing array *arr of *n rows (room for *cap).
 * 0, or -ENOMEM with the array freed and *arr NULL. */
int nvb__thread_rows_push(struct nvb__thread_cpu **arr, int *n, int *cap, const struct nvb__thread_cpu *tc);

/* ---- fill.c: nvb__fill_file, nvb__fill_file_cb ---- */
/* The OS half of a fill (unix/file.c, win/file.c): a sink writing to fd.
 * open: 0 or -errno. write: all of [src, src+len) at off, 0 or -errno.
 * close: ends the fill, rc being how it went so far; makes the data
 * durable when rc is 0; frees the sink; returns rc or the flush's error. */
struct nvb__fill_sink;
int nvb__fill_sink_open(int fd, struct nvb__fill_sink **s);
int nvb__fill_sink_write(struct nvb__fill_sink *s, const char *src, size_t len, uint64_t off);
int nvb__fill_sink_close(struct nvb__fill_sink *s, int rc);

#endif
