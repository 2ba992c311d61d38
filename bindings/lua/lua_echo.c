/*
 * A result's workload read back by the library (nvb_workload_from_json,
 * nvb_result_workload): every key under its own name, as it ran, from the
 * key table that also writes the echo. Lua keeps no map of the echo's
 * names of its own.
 */
#include "core/bindings.h"
#include "lua_module.h"

/* The keys of w as {{key, value}, ...} (the key table's order, then the
 * engine options set), and its targets as {path, ...}: two values pushed. */
static void push_lists(lua_State *L, const struct nvb_workload *w)
{
    char v[4096];
    const char *k;
    lua_newtable(L);
    lua_Integer n = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; (k = pass ? nvb__workload_engine_opt(w, i) : nvb__workload_key(i, NULL, NULL)); i++) {
            if (nvb_workload_get(w, k, v, sizeof v) < 0)
                continue; /* no key of the table is longer than v */
            lua_createtable(L, 2, 0);
            lua_pushstring(L, k);
            lua_rawseti(L, -2, 1);
            lua_pushstring(L, v);
            lua_rawseti(L, -2, 2);
            lua_rawseti(L, -2, ++n);
        }
    lua_newtable(L);
    for (size_t i = 0; (k = nvb__workload_target(w, i)); i++) {
        lua_pushstring(L, k);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

/* nvbench.workload_echo(text) -> keys, targets | nil, message, errno.
 * text: a result's "workload" object as JSON. */
int l_workload_echo(lua_State *L)
{
    size_t len;
    const char *json = luaL_checklstring(L, 1, &len);
    struct nvb_workload *w = NULL;
    char why[WHY_LEN] = "";
    int rc = nvb_workload_from_json(json, len, &w, why, sizeof why);
    if (rc)
        return push_fail(L, rc, why);
    /* w is freed by a userdata's __gc should a table allocation raise */
    struct lworkload *lw = new_workload(L);
    nvb_workload_free(lw->w);
    lw->w = w;
    push_lists(L, w);
    return 2;
}

/* result:to_workload() -> a workload (nvbench.workload) set as the run's was,
 * every key as it ran | nil, message, errno. */
int l_result_workload(lua_State *L)
{
    struct lresult *lr = to_result(L, 1);
    struct lworkload *lw = new_workload(L);
    struct nvb_workload *w = NULL;
    char why[WHY_LEN] = "";
    int rc = nvb_result_workload(lr->r, &w, why, sizeof why);
    if (rc)
        return push_fail(L, rc, why);
    nvb_workload_free(lw->w);
    lw->w = w;
    return 1;
}

/* The row of one key: {name = key, <column> = text, ...}, every column of
 * nvb_workload_key_info(). */
static void push_key_row(lua_State *L, const char *key)
{
    const char *field;
    lua_newtable(L);
    lua_pushstring(L, key);
    lua_setfield(L, -2, "name");
    for (size_t f = 0; (field = nvb_workload_key_field(f)); f++) {
        lua_pushstring(L, nvb_workload_key_info(key, field));
        lua_setfield(L, -2, field);
    }
}

/* nvbench.key_table([engines]) -> {{name = "bs", type = "size", help = ...}, ...}:
 * the library's key table in its order, each engine's options after it when
 * engines is true. Lua keeps no list of keys of its own. */
int l_key_table(lua_State *L)
{
    const int engines = lua_toboolean(L, 1);
    const char *k;
    lua_Integer n = 0;
    lua_newtable(L);
    for (size_t i = 0; (k = nvb_workload_key(i)); i++) {
        push_key_row(L, k);
        lua_rawseti(L, -2, ++n);
    }
    for (int e = 0; engines && e < nvb_engine_count(); e++)
        for (size_t i = 0; (k = nvb_engine_option(e, i)); i++) {
            lua_pushfstring(L, "%s.%s", nvb_engine_name(e), k);
            push_key_row(L, lua_tostring(L, -1));
            lua_remove(L, -2);
            lua_rawseti(L, -2, ++n);
        }
    return 1;
}
