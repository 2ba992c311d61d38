/*
 * Engine registry, the probe cache, and small helpers shared by engines.
 *
 * The registry is a constant array: engines are not registered at run time
 * (no constructors, no mutable list), so two runs in one process cannot see
 * different sets. The only mutable state in this file is the probe cache,
 * which memoises a pure question ("does engine X work in this process?").
 *
 * Atomics, here as in the runner: GCC's __atomic builtins on plain ints,
 * not <stdatomic.h>. They apply to fields of ordinary structs shared with
 * code that needs no _Atomic type, and every compiler this builds with
 * (gcc, clang, mingw-w64 gcc) has them.
 */
#include "nvbench.h"
#include "core/engine.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define NVB__ENGINE_ENTRY(name) &nvb__engine_##name,
const struct nvb__engine *const nvb__engines[] = {
    NVB__ENGINE_TABLE(NVB__ENGINE_ENTRY)
    NULL,
};
#undef NVB__ENGINE_ENTRY

#define NENGINES ((int)(sizeof(nvb__engines) / sizeof(nvb__engines[0]) - 1))

const struct nvb__engine *nvb__engine_find(const char *name)
{
    int i = nvb__engine_index(name);
    return i < 0 ? NULL : nvb__engines[i];
}

int nvb__engine_index(const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; i < NENGINES; i++)
        if (strcmp(nvb__engines[i]->name, name) == 0)
            return i;
    return -1;
}

int nvb__engine_opt_index(const struct nvb__engine *e, const char *name)
{
    if (!e || !e->opts || !name)
        return -1;
    for (int i = 0; i < NVB__ENGINE_MAX_OPTS && e->opts[i].name; i++)
        if (strcmp(e->opts[i].name, name) == 0)
            return i;
    return -1;
}

void nvb__used_set(struct nvb__used *u, const char *key, const char *fmt, ...)
{
    if (!u || !key)
        return;
    unsigned i;
    for (i = 0; i < u->n; i++)
        if (strncmp(u->kv[i].key, key, sizeof(u->kv[i].key)) == 0)
            break;
    if (i == u->n) {
        /* A full table drops the entry: what was used is informational and
         * must never make a run fail. */
        if (u->n >= NVB__USED_MAX)
            return;
        snprintf(u->kv[i].key, sizeof(u->kv[i].key), "%s", key);
        u->n++;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(u->kv[i].val, sizeof(u->kv[i].val), fmt, ap);
    va_end(ap);
}

void nvb__why(char *why, size_t len, const char *fmt, ...)
{
    if (!why || !len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------ */
/* Probe cache                                                          */
/* ------------------------------------------------------------------ */

enum { PROBE_NONE = 0, PROBE_BUSY, PROBE_DONE };

struct probe_cache {
    int state;               /* PROBE_*, __atomic */
    int rc;
    char why[192];
};

static struct probe_cache probe_cache[NENGINES];

static void copy_why(char *dst, size_t len, const char *src)
{
    if (dst && len)
        snprintf(dst, len, "%s", src);
}

NVB_API int nvb_engine_count(void)
{
    return NENGINES;
}

NVB_API const char *nvb_engine_name(int i)
{
    if (i < 0 || i >= NENGINES)
        return NULL;
    return nvb__engines[i]->name;
}

NVB_API const char *nvb_engine_option(int engine, size_t i)
{
    if (engine < 0 || engine >= nvb_engine_count())
        return NULL;
    const struct nvb__engine *e = nvb__engines[engine];
    for (size_t k = 0; k <= i; k++)
        if (!e->opts || !e->opts[k].name)
            return NULL;
    return e->opts[i].name;
}

NVB_API int nvb_engine_probe(const char *engine, char *why, size_t why_len)
{
    if (!engine) {
        nvb__why(why, why_len, "no engine name given");
        return -EINVAL;
    }
    int i = nvb__engine_index(engine);
    if (i < 0) {
        nvb__why(why, why_len, "unknown engine '%s'", engine);
        return -ENOENT;
    }
    const struct nvb__engine *e = nvb__engines[i];
    struct probe_cache *c = &probe_cache[i];

    if (e->unavailable) {  /* a constant: nothing to probe or cache */
        nvb__why(why, why_len, "%s", e->unavailable);
        return -ENOTSUP;
    }

    if (__atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == PROBE_DONE) {
        copy_why(why, why_len, c->why);
        return c->rc;
    }

    /* One thread fills the cache; a thread that loses the race probes on its
     * own instead of waiting (probe() is thread-safe), so nobody blocks and
     * no lock is needed. rc/why are published by the release store. */
    int expected = PROBE_NONE;
    int owner = __atomic_compare_exchange_n(&c->state, &expected, PROBE_BUSY, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE);
    if (!owner && expected == PROBE_DONE) {
        copy_why(why, why_len, c->why);
        return c->rc;
    }

    char local[sizeof(c->why)];
    local[0] = '\0';
    int rc = e->probe ? e->probe(local, sizeof(local)) : 0;
    if (rc > 0)
        rc = -rc;
    if (rc == 0)
        local[0] = '\0';
    else if (!local[0])
        snprintf(local, sizeof(local), "engine %s is not usable here (error %d)", e->name, -rc);

    if (owner) {
        c->rc = rc;
        memcpy(c->why, local, sizeof(c->why));
        __atomic_store_n(&c->state, PROBE_DONE, __ATOMIC_RELEASE);
    }
    copy_why(why, why_len, local);
    return rc;
}

int nvb__engine_probe_ok(char *why, size_t why_len)
{
    (void)why;
    (void)why_len;
    return 0;
}

const struct nvb__optdef nvb__engine_no_opts[] = {
    { NULL, 0, 0, 0, 0, NULL },
};

/* ------------------------------------------------------------------ */
/* The ops of an engine compiled out (NVB__ENGINE_UNAVAILABLE)         */
/* ------------------------------------------------------------------ */

int nvb__unavailable_probe(char *why, size_t why_len)
{
    nvb__why(why, why_len, "built without this engine (nvb_engine_probe() says why)");
    return -ENOTSUP;
}

int nvb__unavailable_setup(const struct nvb__engine_ctx *ctx, void **state)
{
    (void)state;
    nvb__unavailable_probe(ctx->why, ctx->why_len);
    return -ENOTSUP;
}

int nvb__unavailable_submit(void *state, struct nvb__io **ios, unsigned n)
{
    (void)state;
    (void)ios;
    (void)n;
    return -ENOTSUP;
}

int nvb__unavailable_reap(void *state, struct nvb__io **out, unsigned max, unsigned min)
{
    (void)state;
    (void)out;
    (void)max;
    (void)min;
    return -ENOTSUP;
}

void nvb__unavailable_teardown(void *state) { (void)state; }
