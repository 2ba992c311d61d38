/*
 * Pre-filling a file or device (nvb__fill_file, nvb__fill_file_cb), the
 * same on both OSes: the chunks and their order here, the writing and the
 * final flush in the OS half's sink (platform/common.h).
 */
#include "platform/common.h"

#include <errno.h>
#include <string.h>

#define FILL_CHUNK (1u << 20)
/* Buffers handed to direct (unbuffered) writes: page alignment satisfies
 * every device's memory alignment requirement. */
#define IO_ALIGN 4096u

/* The next piece of the file at off, left bytes before its end: *len bytes
 * (at most left) at the returned pointer, or NULL when the fill is to stop. */
typedef const char *(*piece_fn)(void *src, uint64_t off, uint64_t left, size_t *len);

static int fill(int fd, uint64_t size, piece_fn piece, void *src)
{
    struct nvb__fill_sink *s;
    int rc = nvb__fill_sink_open(fd, &s);
    if (rc < 0)
        return rc;
    for (uint64_t off = 0; off < size && rc == 0; ) {
        size_t len;
        const char *p = piece(src, off, size - off, &len);
        if (!p) {
            rc = -ECANCELED;
            break;
        }
        rc = nvb__fill_sink_write(s, p, len, off);
        off += len;
    }
    return nvb__fill_sink_close(s, rc);
}

/* nvb__fill_file: byte off of the file gets buf[off % buf_len]. */
struct pattern {
    const char *buf;
    size_t buf_len;
    const char *chunk; /* the pattern repeated, when it fits FILL_CHUNK; else NULL */
    size_t chunk_len;
    const volatile int *cancel;
};

static const char *pattern_piece(void *arg, uint64_t off, uint64_t left, size_t *len)
{
    struct pattern *p = arg;
    if (p->cancel && __atomic_load_n(p->cancel, __ATOMIC_RELAXED))
        return NULL;
    const char *src = p->chunk;
    uint64_t n = p->chunk_len;
    if (!src) { /* a long pattern is written from buf itself (page-aligned), in pieces */
        size_t in = (size_t)(off % p->buf_len);
        src = p->buf + in;
        n = p->buf_len - in;
        if (n > FILL_CHUNK)
            n = FILL_CHUNK;
    }
    *len = (size_t)(n < left ? n : left);
    return src;
}

int nvb__fill_file(int fd, uint64_t size, const void *buf, size_t buf_len, const volatile int *cancel)
{
    if (!buf || buf_len == 0)
        return -EINVAL;
    struct pattern p = {buf, buf_len, NULL, 0, cancel};
    /* A pattern up to 1 MiB is replicated into one aligned 1 MiB chunk so
     * each write is large. */
    char *chunk = NULL;
    if (buf_len <= FILL_CHUNK) {
        p.chunk_len = FILL_CHUNK / buf_len * buf_len;
        chunk = nvb__alloc_aligned(IO_ALIGN, p.chunk_len);
        if (!chunk)
            return -ENOMEM;
        for (size_t o = 0; o < p.chunk_len; o += buf_len)
            memcpy(chunk + o, buf, buf_len);
        p.chunk = chunk;
    }
    int rc = fill(fd, size, pattern_piece, &p);
    nvb__free_aligned(chunk);
    return rc;
}

/* nvb__fill_file_cb: each chunk written by the caller's generator. */
struct generated {
    void (*gen)(void *arg, void *chunk, uint64_t off, size_t len);
    int (*stop)(void *arg);
    void *arg;
    char *chunk;
    size_t chunk_len;
};

static const char *generated_piece(void *a, uint64_t off, uint64_t left, size_t *len)
{
    struct generated *g = a;
    if (g->stop && g->stop(g->arg))
        return NULL;
    *len = left < g->chunk_len ? (size_t)left : g->chunk_len;
    g->gen(g->arg, g->chunk, off, *len);
    return g->chunk;
}

int nvb__fill_file_cb(int fd, uint64_t size, size_t chunk_len,
                      void (*gen)(void *arg, void *chunk, uint64_t off, size_t len), int (*stop)(void *arg),
                      void *arg)
{
    if (!gen || chunk_len == 0)
        return -EINVAL;
    struct generated g = {gen, stop, arg, nvb__alloc_aligned(IO_ALIGN, chunk_len), chunk_len};
    if (!g.chunk)
        return -ENOMEM;
    int rc = fill(fd, size, generated_piece, &g);
    nvb__free_aligned(g.chunk);
    return rc;
}
