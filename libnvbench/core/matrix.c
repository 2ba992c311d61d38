/*
 * The matrix of runs (nvb_matrix_*): which runs a product of workload keys
 * or the seed matrix makes, in what order, how often, and the column label
 * each result is named by. The one copy of the plan: Python's
 * nvbench.matrix/seed_matrix, Lua's nvbench.matrix.product/seed and the C
 * example seed_matrix run the runs it lists and keep their own results.
 *
 * Order, and why: the whole product is swept once per repeat (repeat is the
 * outermost loop), so slow drifts of the device (heat, garbage collection)
 * spread over every cell instead of piling onto one; within a sweep the
 * first axis added varies slowest. The seed cells, when asked for, are the
 * first axis ("cell", the published order), so the engines compared in one
 * cell run back to back when "engine" is added last.
 *
 * The column label ("stack") of a run: its engine, then key=value for each
 * other axis that varies (more than one value) and is not rw, bs or cell
 * (those name the row, not the column); "" when no such axis varies.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

#define MAX_AXES 32

struct axis {
    char *key;
    char **values;
    size_t n;
};

struct nvb_matrix {
    struct axis axes[MAX_AXES];
    size_t naxes, repeat;
    char err[256];
};

/* The failure's message kept in the handle (the error getter's), and rc. */
#define fail(h, rc, ...) nvb__say((h)->err, sizeof (h)->err, (rc), __VA_ARGS__)

int nvb_matrix_create(struct nvb_matrix **out)
{
    if (!out)
        return -EINVAL;
    struct nvb_matrix *m = calloc(1, sizeof *m);
    if (!m)
        return -ENOMEM;
    m->repeat = 1;
    *out = m;
    return 0;
}

static void free_axis(struct axis *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->values[i]);
    free(a->values);
    free(a->key);
}

void nvb_matrix_destroy(struct nvb_matrix *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->naxes; i++)
        free_axis(&m->axes[i]);
    free(m);
}

const char *nvb_matrix_error(const struct nvb_matrix *m)
{
    return m ? m->err : "";
}

static const struct axis *find(const struct nvb_matrix *m, const char *key)
{
    for (size_t i = 0; i < m->naxes; i++)
        if (strcmp(m->axes[i].key, key) == 0)
            return &m->axes[i];
    return NULL;
}

int nvb_matrix_axis(struct nvb_matrix *m, const char *key, size_t n, const char *const *values)
{
    if (!m || !key || (n && !values))
        return -EINVAL;
    if (n == 0)
        return fail(m, -EINVAL, "axis '%s' is an empty list", key);
    if (find(m, key))
        return fail(m, -EINVAL, "axis '%s' is given twice", key);
    if (m->naxes == MAX_AXES)
        return fail(m, -E2BIG, "axis '%s': more than %d axes", key, MAX_AXES);
    for (size_t i = 0; i < n; i++)
        if (!values[i])
            return fail(m, -EINVAL, "axis '%s': value %zu is NULL", key, i);
    struct axis a = {.key = strdup(key), .values = calloc(n, sizeof(char *)), .n = 0};
    int ok = a.key && a.values;
    for (size_t i = 0; ok && i < n; i++, a.n++)
        ok = (a.values[i] = strdup(values[i])) != NULL;
    if (!ok) {
        free_axis(&a);
        return fail(m, -ENOMEM, "out of memory");
    }
    m->axes[m->naxes++] = a;
    return 0;
}

/* Does seed cell i answer to want: its key ("rand4k_read"), its workload
 * ("rand4k": both directions) or its label ("Random 4K read")? */
static int cell_is(size_t i, const char *want, size_t len)
{
    static const char *const names[] = {"key", "workload", "label"};
    for (size_t k = 0; k < 3; k++) {
        const char *v;
        if (nvb_seed_cell(i, names[k], &v) == 0 && strlen(v) == len && memcmp(v, want, len) == 0)
            return 1;
    }
    return 0;
}

int nvb_matrix_cells(struct nvb_matrix *m, const char *cells)
{
    if (!m)
        return -EINVAL;
    size_t total = nvb_seed_cells();
    int pick[64] = {0};
    if (total > 64)
        return -E2BIG;
    for (const char *s = cells ? cells : ""; *s;) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        while (len && (*s == ' ' || *s == '\t'))
            s++, len--;
        while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
            len--;
        int hit = 0;
        for (size_t i = 0; len && i < total; i++)
            if (cell_is(i, s, len))
                pick[i] = hit = 1;
        if (len && !hit) {
            char known[512] = "";
            for (size_t i = 0; i < total; i++) {
                const char *k = "";
                nvb_seed_cell(i, "key", &k);
                size_t at = strlen(known);
                snprintf(known + at, sizeof known - at, "%s%s", i ? ", " : "", k);
            }
            return fail(m, -EINVAL,
                        "unknown seed cell '%.*s' for cells (known: %s, or a cell name for both directions: "
                        "rand4k, ...)", (int)(len > 64 ? 64 : len), s, known);
        }
        s = end ? end + 1 : s + strlen(s);
    }
    const char *keys[64];
    size_t n = 0;
    int all = 1;
    for (size_t i = 0; i < total; i++)
        all &= !pick[i];
    for (size_t i = 0; i < total; i++)
        if (all || pick[i])
            nvb_seed_cell(i, "key", &keys[n++]);
    return nvb_matrix_axis(m, "cell", n, keys);
}

int nvb_matrix_set(struct nvb_matrix *m, const char *key, const char *value)
{
    if (!m || !key || !value)
        return -EINVAL;
    if (strcmp(key, "repeat") != 0)
        return fail(m, -EINVAL, "unknown matrix option '%s' (repeat)", key);
    char *end;
    unsigned long long v = strtoull(value, &end, 10);
    if (end == value || *end || value[0] == '-' || value[0] == '+' || v < 1 || v > 1000000)
        return fail(m, -EINVAL, "repeat must be a positive integer, not %s", value);
    m->repeat = (size_t)v;
    return 0;
}

size_t nvb_matrix_runs(const struct nvb_matrix *m)
{
    if (!m)
        return 0;
    size_t n = m->repeat;
    for (size_t i = 0; i < m->naxes; i++)
        n *= m->axes[i].n;
    return n;
}

size_t nvb_matrix_axes(const struct nvb_matrix *m)
{
    return m ? m->naxes : 0;
}

const char *nvb_matrix_axis_key(const struct nvb_matrix *m, size_t axis)
{
    return m && axis < m->naxes ? m->axes[axis].key : NULL;
}

static int stacked(const struct axis *a)
{
    return a->n > 1 && strcmp(a->key, "rw") != 0 && strcmp(a->key, "bs") != 0 && strcmp(a->key, "engine") != 0 &&
           strcmp(a->key, "cell") != 0;
}

int nvb_matrix_stacked(const struct nvb_matrix *m, size_t axis)
{
    if (!m || axis >= m->naxes)
        return -ERANGE;
    return stacked(&m->axes[axis]);
}

int nvb_matrix_pick(const struct nvb_matrix *m, size_t run, size_t axis, size_t *value)
{
    if (!m || !value)
        return -EINVAL;
    if (run >= nvb_matrix_runs(m) || axis > m->naxes)
        return -ERANGE;
    /* run = ((repeat * n0 + i0) * n1 + i1) ...: the last axis varies fastest */
    size_t rest = run;
    for (size_t a = m->naxes; a-- > 0;) {
        size_t i = rest % m->axes[a].n;
        rest /= m->axes[a].n;
        if (a == axis) {
            *value = i;
            return 0;
        }
    }
    *value = rest; /* axis == naxes: the repeat */
    return 0;
}

int nvb_matrix_value(const struct nvb_matrix *m, size_t run, size_t axis, const char **value)
{
    size_t i;
    int rc = value && axis < nvb_matrix_axes(m) ? nvb_matrix_pick(m, run, axis, &i) : -EINVAL;
    if (rc == 0)
        *value = m->axes[axis].values[i];
    return rc;
}

int nvb_matrix_stack(const struct nvb_matrix *m, size_t run, char *buf, size_t len)
{
    if (!m || !buf || !len)
        return -EINVAL;
    if (run >= nvb_matrix_runs(m))
        return -ERANGE;
    buf[0] = 0;
    size_t at = 0, any = 0;
    for (size_t a = 0; a < m->naxes; a++)
        any += stacked(&m->axes[a]);
    if (!any)
        return 0;
    const char *v;
    for (size_t a = 0; a < m->naxes; a++)
        if (strcmp(m->axes[a].key, "engine") == 0 && nvb_matrix_value(m, run, a, &v) == 0)
            at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s", v);
    for (size_t a = 0; a < m->naxes; a++) {
        if (!stacked(&m->axes[a]) || nvb_matrix_value(m, run, a, &v) != 0)
            continue;
        at += (size_t)snprintf(buf + (at < len ? at : len - 1), at < len ? len - at : 1, "%s%s=%s", at ? " " : "",
                               m->axes[a].key, v);
    }
    return at < len ? (int)at : -ENOSPC;
}
