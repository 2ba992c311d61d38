/*
 * What nvb_workload_key_info() answers about a key: the columns of the key
 * table (core/keys.c) and of the engines' option tables, looked up by name.
 */
#include <stddef.h>
#include <string.h>

#include "core/engine.h"
#include "core/internal.h"
#include "core/keys.h"

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

/* An engine option's columns: its type and its one line; the rest is the engine's docs. */
static const char *engine_key_info(const char *key, const char *field)
{
    static const char *const opt_types[] = {[NVB__OPT_BOOL] = "bool", [NVB__OPT_AUTOBOOL] = "autobool",
                                            [NVB__OPT_INT] = "int", [NVB__OPT_CPU] = "int"};
    const char *dot = strchr(key, '.');
    char ename[32];
    if (!dot || (size_t)(dot - key) >= sizeof ename)
        return NULL;
    memcpy(ename, key, (size_t)(dot - key));
    ename[dot - key] = 0;
    const struct nvb__engine *e = nvb__engine_find(ename);
    int oi = e ? nvb__engine_opt_index(e, dot + 1) : -1;
    if (oi < 0)
        return NULL;
    const struct nvb__optdef *od = &e->opts[oi];
    if (!strcmp(field, "type"))
        return opt_types[od->type];
    if (!strcmp(field, "group"))
        return "engine";
    if (!strcmp(field, "help") || !strcmp(field, "doc"))
        return or_empty(od->doc);
    if (!strcmp(field, "echo"))
        return key;
    if (!strcmp(field, "measures"))
        return "0"; /* the engine is the stack compared, not a difference in it */
    static const char *const none[] = {"unit", "fio", "range", "default"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        if (!strcmp(field, none[i]))
            return "";
    return NULL;
}

/* The columns nvb_workload_key_info() answers, in the order of its cols[]. */
static const char *const key_fields[] = {"type", "unit", "group", "fio", "help", "doc", "range", "default", "echo",
                                         "measures", NULL};

NVB_API const char *nvb_workload_key_field(size_t i)
{
    return i < sizeof key_fields / sizeof key_fields[0] ? key_fields[i] : NULL;
}

NVB_API const char *nvb_workload_key_info(const char *key, const char *field)
{
    if (!key || !field)
        return NULL;
    const struct keydef *k = NULL;
    for (size_t i = 0; i < nvb__nkeys && !k; i++)
        if (!strcmp(nvb__keys[i].name, key))
            k = &nvb__keys[i];
    if (!k)
        return engine_key_info(key, field);
    const struct {
        const char *field, *value;
    } cols[] = {
        {"type", nvb__ktype_names[k->type]}, {"unit", k->unit}, {"group", k->group}, {"fio", k->fio},
        {"help", k->help}, {"doc", k->doc ? k->doc : k->help}, {"range", k->range}, {"default", k->dflt},
        {"echo", k->echo ? k->echo : k->name}, {"measures", (k->flags & NVB__KEY_MEASURES) ? "1" : "0"},
    };
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        if (!strcmp(field, cols[i].field))
            return or_empty(cols[i].value);
    return NULL;
}
