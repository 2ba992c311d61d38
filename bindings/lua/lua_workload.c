/* nvbench.workload handles: keys, targets, validation. (the Lua module; lua_module.h) */
#include "lua_module.h"

/* ------------------------------------------------------------ workloads */

struct lworkload *to_workload(lua_State *L, int idx)
{
    struct lworkload *lw = luaL_checkudata(L, idx, WORKLOAD_MT);
    if (!lw->w)
        luaL_error(L, "attempt to use a closed nvbench workload");
    return lw;
}

static struct lworkload *to_idle_workload(lua_State *L, int idx)
{
    struct lworkload *lw = to_workload(L, idx);
    if (lw->busy)
        luaL_error(L, "nvbench workload is in use by a run in progress; it cannot change until the run returns");
    return lw;
}

/* A new, empty handle on the stack: allocated before the workload so that a
 * memory error can never leak the workload. */
struct lworkload *new_workload(lua_State *L)
{
    struct lworkload *lw = lua_newuserdatauv(L, sizeof *lw, 0);
    lw->w = NULL;
    lw->busy = 0;
    luaL_setmetatable(L, WORKLOAD_MT);
    int rc = nvb_workload_new(&lw->w);
    if (rc < 0)
        luaL_error(L, "nvbench: cannot create a workload: %s", nvb_strerror(rc));
    return lw;
}

/* Returns 0, the library's negative errno (message in nvb_workload_error),
 * or -EINVAL with the message in why (WHY_LEN bytes) for a NUL byte. */
static int add_targets(lua_State *L, struct nvb_workload *w, int idx, char *why)
{
    if (lua_type(L, idx) == LUA_TSTRING) {
        const char *t = c_string(L, idx, "target", why, WHY_LEN);
        return t ? nvb_workload_add_target(w, t) : -EINVAL;
    }
    if (!lua_istable(L, idx))
        return luaL_error(L, "nvbench: 'targets' must be a string or a list of strings (got %s)",
                          luaL_typename(L, idx));
    /* Raw access: no metamethod (user code) may run while apply_table
     * holds pointers to the spec's key strings. */
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, idx, i);
        if (lua_type(L, -1) != LUA_TSTRING)
            return luaL_error(L, "nvbench: targets[%d] must be a string (got %s)", (int)i, luaL_typename(L, -1));
        char what[32];
        snprintf(what, sizeof what, "targets[%d]", (int)i);
        const char *t = c_string(L, -1, what, why, WHY_LEN);
        int rc = t ? nvb_workload_add_target(w, t) : -EINVAL;
        lua_pop(L, 1);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sets every key of the table at idx on w, in sorted key order so that the
 * first bad key reported does not depend on table iteration order.
 * "targets" appends targets; the keys in `skip` (NULL-terminated) belong to
 * the caller. Returns 0 or the library's negative errno (message in
 * nvb_workload_error(w), or in why when a key or value holds a NUL byte). */
int apply_table(lua_State *L, struct nvb_workload *w, int idx, const char *const *skip, char *why)
{
    idx = lua_absindex(L, idx);
    size_t n = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING)
            return luaL_error(L, "nvbench: workload keys must be strings (got a %s key)", luaL_typename(L, -1));
        n++;
    }
    /* Key pointers stay valid: the table, which holds the strings, is on
     * the stack and is not modified here. */
    const char **names = lua_newuserdatauv(L, (n ? n : 1) * sizeof *names, 0);
    size_t i = 0;
    int rc = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (!rc && !c_string(L, -1, "workload key", why, WHY_LEN))
            rc = -EINVAL; /* finish the walk: lua_next needs its key back */
        if (i < n)
            names[i++] = lua_tostring(L, -1);
    }
    if (rc < 0) {
        lua_pop(L, 1); /* names */
        return rc;
    }
    qsort(names, i, sizeof *names, cmp_str);
    for (size_t k = 0; k < i && rc == 0; k++) {
        const char *key = names[k];
        int skipped = 0;
        for (const char *const *s = skip; s && *s; s++)
            if (!strcmp(*s, key))
                skipped = 1;
        if (skipped)
            continue;
        lua_pushstring(L, key);
        lua_rawget(L, idx);
        if (!strcmp(key, "targets")) {
            rc = add_targets(L, w, -1, why);
        } else {
            char buf[64];
            const char *v = value_string(L, -1, key, buf, sizeof buf, why);
            rc = v ? nvb_workload_set(w, key, v) : -EINVAL;
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1); /* names */
    return rc;
}

/* nvb.workload{key = value, targets = {...}} -> workload | nil, msg, errno */
int l_workload(lua_State *L)
{
    if (!lua_isnoneornil(L, 1))
        luaL_checktype(L, 1, LUA_TTABLE);
    struct lworkload *lw = new_workload(L);
    if (lua_istable(L, 1)) {
        lua_getfield(L, 1, "progress");
        if (!lua_isnil(L, -1))
            return luaL_error(L, "nvbench: 'progress' is an option of nvb.run, not a workload key");
        lua_pop(L, 1);
        char why[WHY_LEN] = "";
        int rc = apply_table(L, lw->w, 1, NULL, why);
        if (rc < 0)
            return push_fail(L, rc, why[0] ? why : nvb_workload_error(lw->w));
    }
    return 1;
}

/* w itself (the methods chain), or nil, message, errno: why when set, else
 * the workload's own message naming the key and the value refused. */
static int self_or_fail(lua_State *L, struct lworkload *lw, int rc, const char *why)
{
    if (rc < 0)
        return push_fail(L, rc, why[0] ? why : nvb_workload_error(lw->w));
    lua_settop(L, 1);
    return 1;
}

/* w:set(key, value) or w:set{...} -> w | nil, msg, errno */
static int w_set(lua_State *L)
{
    struct lworkload *lw = to_idle_workload(L, 1);
    char why[WHY_LEN] = "";
    int rc;
    if (lua_istable(L, 2)) {
        rc = apply_table(L, lw->w, 2, NULL, why);
    } else {
        const char *key = string_arg(L, 2, "workload key", why);
        luaL_argexpected(L, !lua_isnoneornil(L, 3), 3, "string, number or boolean");
        char buf[64];
        if (!key) {
            rc = -EINVAL;
        } else if (!strcmp(key, "targets")) {
            rc = add_targets(L, lw->w, 3, why);
        } else {
            const char *v = value_string(L, 3, key, buf, sizeof buf, why);
            rc = v ? nvb_workload_set(lw->w, key, v) : -EINVAL;
        }
    }
    return self_or_fail(L, lw, rc, why);
}

/* w:get(key) -> string | nil, msg, errno */
static int w_get(lua_State *L)
{
    struct lworkload *lw = to_workload(L, 1);
    char why[WHY_LEN];
    const char *key = string_arg(L, 2, "workload key", why);
    if (!key)
        return push_fail(L, -EINVAL, why);
    char buf[256];
    int rc = nvb_workload_get(lw->w, key, buf, sizeof buf);
    if (rc < 0)
        return push_get_fail(L, rc, "unknown key '%s'", key);
    lua_pushlstring(L, buf, (size_t)rc);
    return 1;
}

/* w:add_target(path) -> w | nil, msg, errno */
static int w_add_target(lua_State *L)
{
    struct lworkload *lw = to_idle_workload(L, 1);
    char why[WHY_LEN] = "";
    const char *t = string_arg(L, 2, "target", why);
    int rc = t ? nvb_workload_add_target(lw->w, t) : -EINVAL;
    return self_or_fail(L, lw, rc, why);
}

static int w_clear_targets(lua_State *L)
{
    struct lworkload *lw = to_idle_workload(L, 1);
    nvb_workload_clear_targets(lw->w);
    lua_settop(L, 1);
    return 1;
}

/* w:validate() -> true | nil, msg, errno. Creates and writes nothing. */
static int w_validate(lua_State *L)
{
    struct lworkload *lw = to_idle_workload(L, 1);
    int rc = nvb_workload_validate(lw->w);
    if (rc < 0)
        return push_fail(L, rc, nvb_workload_error(lw->w));
    lua_pushboolean(L, 1);
    return 1;
}

static int w_close(lua_State *L)
{
    struct lworkload *lw = luaL_checkudata(L, 1, WORKLOAD_MT);
    if (lw->busy)
        return luaL_error(L, "nvbench workload is in use by a run in progress; it cannot be closed until the run returns");
    nvb_workload_free(lw->w);
    lw->w = NULL;
    return 0;
}

static int w_gc(lua_State *L)
{
    struct lworkload *lw = luaL_checkudata(L, 1, WORKLOAD_MT);
    /* A running workload is on nvb.run's stack, so it cannot be collected;
     * should that ever change, leaking beats a use after free. */
    if (!lw->busy)
        nvb_workload_free(lw->w);
    lw->w = NULL;
    return 0;
}

static int w_tostring(lua_State *L)
{
    struct lworkload *lw = luaL_checkudata(L, 1, WORKLOAD_MT);
    if (!lw->w) {
        lua_pushliteral(L, "nvbench.workload (closed)");
        return 1;
    }
    char e[32] = "?", rw[32] = "?", bs[32] = "?", qd[32] = "?", jobs[32] = "?";
    nvb_workload_get(lw->w, "engine", e, sizeof e);
    nvb_workload_get(lw->w, "rw", rw, sizeof rw);
    nvb_workload_get(lw->w, "bs", bs, sizeof bs);
    nvb_workload_get(lw->w, "qd", qd, sizeof qd);
    nvb_workload_get(lw->w, "jobs", jobs, sizeof jobs);
    lua_pushfstring(L, "nvbench.workload (engine=%s rw=%s bs=%s qd=%s jobs=%s): %p", e, rw, bs, qd, jobs,
                    (void *)lw);
    return 1;
}

static const luaL_Reg workload_methods[] = {
    {"set", w_set},
    {"get", w_get},
    {"add_target", w_add_target},
    {"clear_targets", w_clear_targets},
    {"validate", w_validate},
    {"run", l_run},
    {"close", w_close},
    {NULL, NULL},
};

static const luaL_Reg workload_meta[] = {
    {"__gc", w_gc},
    {"__close", w_close},
    {"__tostring", w_tostring},
    {NULL, NULL},
};

void create_workload_meta(lua_State *L)
{
    luaL_newmetatable(L, WORKLOAD_MT);
    luaL_setfuncs(L, workload_meta, 0);
    luaL_newlibtable(L, workload_methods);
    luaL_setfuncs(L, workload_methods, 0);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}
