/*
 * The workload echo: the "workload" object of a result, written from the
 * key table and read back through it. Each key's name in the echo is part
 * of its table entry (workload.c), so the writer and the reader cannot
 * disagree: a workload set from its echo is the workload that ran, every
 * key at the value it had (reproduce commands, Python's run_command, Lua).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bindings.h"
#include "core/internal.h"
#include "util/json.h"

#define VALUE_MAX 2048 /* the longest value text: a random_distribution of 32 zones, a bssplit */

void nvb__workload_json(const struct nvb_workload *w, struct nvb__buf *b)
{
    char val[VALUE_MAX];
    const char *echo;
    enum nvb__echo_form form;
    size_t open = 0; /* length of the nested object's name now open, 0 when none */
    const char *group = NULL;
    nvb__buf_puts(b, "{");
    for (size_t i = 0; nvb__workload_echo_key(i, &echo, &form); i++) {
        int has = nvb__workload_echo_text(w, i, val, sizeof val);
        const char *dot = strchr(echo, '.');
        size_t glen = dot ? (size_t)(dot - echo) : 0;
        if (open && (glen != open || strncmp(echo, group, glen))) {
            nvb__buf_puts(b, "}");
            open = 0;
        }
        if (i)
            nvb__buf_puts(b, ",");
        if (dot && !open) {
            nvb__buf_printf(b, "\"%.*s\":{", (int)glen, echo);
            open = glen;
            group = echo;
        }
        nvb__json_write_str(b, dot ? dot + 1 : echo);
        nvb__buf_puts(b, ":");
        if (has <= 0) /* null, or a value past VALUE_MAX (none is): null rather than half a value */
            nvb__buf_puts(b, "null");
        else if (form == NVB__ECHO_STR)
            nvb__json_write_str(b, val);
        else
            nvb__buf_puts(b, val);
    }
    if (open)
        nvb__buf_puts(b, "}");
    nvb__buf_puts(b, ",\"targets\":[");
    for (size_t i = 0; i < w->ntargets; i++) {
        nvb__buf_puts(b, i ? "," : "");
        nvb__json_write_str(b, w->targets[i]);
    }
    nvb__buf_puts(b, "],\"engine_opts\":{");
    const char *k;
    for (size_t i = 0; (k = nvb__workload_engine_opt(w, i)); i++) {
        nvb__buf_puts(b, i ? "," : "");
        nvb__json_write_str(b, k);
        nvb__buf_puts(b, ":");
        nvb__json_write_str(b, w->eopts[i].text);
    }
    nvb__buf_puts(b, "}}");
}

const char *nvb__workload_target(const struct nvb_workload *w, size_t i)
{
    return w && i < w->ntargets ? w->targets[i] : NULL;
}

const char *nvb__workload_engine_opt(const struct nvb_workload *w, size_t i)
{
    return w && i < w->neopts ? w->eopts[i].key : NULL;
}

/* One member of the echo (path: its dotted name there) set as its key. */
static int read_key(struct nvb_workload *w, const char *path, const struct nvb__jv *v, char *why, size_t len)
{
    const char *echo, *key;
    enum nvb__echo_form form;
    size_t i;
    for (i = 0; (key = nvb__workload_echo_key(i, &echo, &form)); i++)
        if (!strcmp(echo, path))
            break;
    if (!key)
        return nvb__say(why, len, -EINVAL, "unknown key '%s' in the workload echo", path);
    if (v->type == NVB__J_NULL)
        return 0; /* left to the library (bssplit unset, fault.seed from seed) */
    int want = form == NVB__ECHO_STR ? NVB__J_STR : NVB__J_NUM;
    if (v->type != want)
        return nvb__say(why, len, -EINVAL, "'%s' in the workload echo (key '%s'): expected a %s", path, key,
                   want == NVB__J_STR ? "string" : "number");
    char text[VALUE_MAX], cur[VALUE_MAX];
    if (snprintf(text, sizeof text, "%s%s", v->s, form == NVB__ECHO_SECS ? "s" : "") >= (int)sizeof text)
        return nvb__say(why, len, -EINVAL, "'%s' in the workload echo (key '%s'): value too long", path, key);
    /* a string the workload holds already ("" for cpus and name) needs no setting, and "" is no CPU list */
    if (form == NVB__ECHO_STR && nvb_workload_get(w, key, cur, sizeof cur) >= 0 && !strcmp(cur, text))
        return 0;
    int rc = nvb_workload_set(w, key, text);
    if (rc)
        return nvb__say(why, len, rc, "'%s' in the workload echo: %s", path, nvb_workload_error(w));
    return 0;
}

static int read_member(struct nvb_workload *w, const struct nvb__jv *m, char *why, size_t len)
{
    if (!strcmp(m->key, "targets") || !strcmp(m->key, "engine_opts")) {
        int targets = m->key[0] == 't';
        if (m->type != (targets ? NVB__J_ARR : NVB__J_OBJ))
            return nvb__say(why, len, -EINVAL, "'%s' in the workload echo: expected an %s", m->key,
                       targets ? "array" : "object");
        for (uint32_t i = 0; i < m->n; i++) {
            const struct nvb__jv *v = &m->kid[i];
            if (v->type != NVB__J_STR || (!targets && !strchr(v->key, '.')))
                return nvb__say(why, len, -EINVAL, "'%s' in the workload echo: item %u is not %s", m->key, i,
                           targets ? "a path" : "an engine's option (\"engine.option\":\"value\")");
            int rc = targets ? nvb_workload_add_target(w, v->s) : nvb_workload_set(w, v->key, v->s);
            if (rc)
                return nvb__say(why, len, rc, "'%s' in the workload echo: %s", m->key, nvb_workload_error(w));
        }
        return 0;
    }
    if (m->type != NVB__J_OBJ)
        return read_key(w, m->key, m, why, len);
    for (uint32_t i = 0; i < m->n; i++) {
        char path[128];
        if (snprintf(path, sizeof path, "%s.%s", m->key, m->kid[i].key) >= (int)sizeof path)
            return nvb__say(why, len, -EINVAL, "unknown key '%s.%s' in the workload echo", m->key, m->kid[i].key);
        int rc = read_key(w, path, &m->kid[i], why, len);
        if (rc)
            return rc;
    }
    return 0;
}

NVB_API int nvb_workload_from_json(const char *json, size_t len, struct nvb_workload **out, char *why,
                                   size_t why_len)
{
    if (out)
        *out = NULL;
    if (!json || !out)
        return nvb__say(why, why_len, -EINVAL, "no text or no place for the workload");
    if (why && why_len)
        why[0] = 0;
    struct nvb__jv *root = NULL;
    char msg[200];
    int rc = nvb__json_parse(json, len, &root, msg, sizeof msg);
    if (rc)
        return nvb__say(why, why_len, rc, "the workload echo is not JSON: %s", msg);
    struct nvb_workload *w = NULL;
    if (root->type != NVB__J_OBJ)
        rc = nvb__say(why, why_len, -EINVAL, "the workload echo is not a JSON object");
    else
        rc = nvb_workload_new(&w);
    for (uint32_t i = 0; !rc && i < root->n; i++)
        rc = read_member(w, &root->kid[i], why, why_len);
    nvb__json_free(root);
    if (rc) {
        nvb_workload_free(w);
        return rc;
    }
    w->err[0] = 0;
    *out = w;
    return 0;
}

NVB_API int nvb_result_workload(const struct nvb_result *r, struct nvb_workload **out, char *why, size_t why_len)
{
    if (out)
        *out = NULL;
    if (!r || !out)
        return nvb__say(why, why_len, -EINVAL, "no result or no place for the workload");
    if (!r->wl && !r->wl_json)
        return nvb__say(why, why_len, -ENOENT, "the result records no workload");
    struct nvb__buf b = {0};
    if (r->wl)
        nvb__workload_json(r->wl, &b);
    else
        nvb__buf_puts(&b, r->wl_json);
    if (b.oom) {
        free(b.s);
        return nvb__say(why, why_len, -ENOMEM, "out of memory");
    }
    int rc = nvb_workload_from_json(b.s, b.len, out, why, why_len);
    free(b.s);
    return rc;
}
