/* nvbench.result handles: fields, JSON, closing. (the Lua module; lua_module.h) */
#include "lua_module.h"

/* ------------------------------------------------------------ results */

struct lresult *to_result(lua_State *L, int idx)
{
    struct lresult *lr = luaL_checkudata(L, idx, RESULT_MT);
    if (!lr->r)
        luaL_error(L, "attempt to use a closed nvbench result");
    return lr;
}

struct lresult *new_result(lua_State *L)
{
    /* One user value: the decoded JSON, filled on first field access. */
    struct lresult *lr = lua_newuserdatauv(L, sizeof *lr, 1);
    lr->r = NULL;
    luaL_setmetatable(L, RESULT_MT);
    return lr;
}

/* Pushes the result's JSON decoded to Lua tables, decoding once and caching
 * it in the handle's user value. */
static void push_decoded(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    struct lresult *lr = to_result(L, idx);
    if (lua_getiuservalue(L, idx, 1) == LUA_TTABLE)
        return;
    lua_pop(L, 1);
    struct lbuffer *b = new_buffer(L);
    int rc = nvb_result_json(lr->r, &b->p);
    if (rc < 0)
        luaL_error(L, "nvbench: cannot serialise the result: %s", nvb_strerror(rc));
    struct jdec d;
    if (json_decode(L, b->p, strlen(b->p), &d))
        luaL_error(L, "nvbench: the library's JSON did not decode (%s)", d.err);
    nvb_free(b->p);
    b->p = NULL;
    lua_remove(L, -2); /* the buffer */
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, idx, 1);
}

/* r:json() -> string | nil, msg, errno */
static int r_json(lua_State *L)
{
    struct lresult *lr = to_result(L, 1);
    struct lbuffer *b = new_buffer(L);
    int rc = nvb_result_json(lr->r, &b->p);
    if (rc < 0)
        return push_fail(L, rc, NULL);
    lua_pushstring(L, b->p);
    nvb_free(b->p);
    b->p = NULL;
    return 1;
}

/* r:get("read.lat_ns.p99") -> number | nil, msg, errno */
static int r_get(lua_State *L)
{
    struct lresult *lr = to_result(L, 1);
    char why[WHY_LEN];
    const char *path = string_arg(L, 2, "figure path", why);
    if (!path)
        return push_fail(L, -EINVAL, why);
    double v;
    int rc = nvb_result_get(lr->r, path, &v);
    if (rc < 0)
        return push_get_fail(L, rc, "no numeric figure at '%s' in the result", path);
    lua_pushnumber(L, (lua_Number)v);
    return 1;
}

/* r:table() -> the decoded JSON (shared with field access: do not modify) */
static int r_table(lua_State *L)
{
    push_decoded(L, 1);
    return 1;
}

static int r_close(lua_State *L)
{
    struct lresult *lr = luaL_checkudata(L, 1, RESULT_MT);
    nvb_result_free(lr->r);
    lr->r = NULL;
    lua_pushnil(L); /* drop the decoded copy too */
    lua_setiuservalue(L, 1, 1);
    return 0;
}

static int r_gc(lua_State *L)
{
    struct lresult *lr = luaL_checkudata(L, 1, RESULT_MT);
    nvb_result_free(lr->r);
    lr->r = NULL;
    return 0;
}

static int r_index(lua_State *L)
{
    luaL_checkudata(L, 1, RESULT_MT);
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) /* a method */
        return 1;
    lua_pop(L, 1);
    push_decoded(L, 1);
    lua_pushvalue(L, 2);
    lua_rawget(L, -2);
    return 1;
}

static int r_next(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 2);
    if (lua_next(L, 1))
        return 2;
    lua_pushnil(L);
    return 1;
}

/* pairs(r) walks the decoded JSON. */
static int r_pairs(lua_State *L)
{
    lua_pushcfunction(L, r_next);
    push_decoded(L, 1);
    lua_pushnil(L);
    return 3;
}

static int r_tostring(lua_State *L)
{
    struct lresult *lr = luaL_checkudata(L, 1, RESULT_MT);
    if (!lr->r) {
        lua_pushliteral(L, "nvbench.result (closed)");
        return 1;
    }
    const struct nvb_result *r = lr->r;
    /* The error message may come from a loaded file: shown, never obeyed. */
    const char *err = nvb_result_errno(r) && !nvb_result_cancelled(r) ? nvb_result_error(r) : "";
    char line[512], err_shown[256], trim[64] = "";
    shown(err_shown, sizeof err_shown, err, strlen(err));
    if (nvb_result_ios(r, NVB_TRIM)) /* r.trim: a workload that trims */
        snprintf(trim, sizeof trim, ", %.0f trim IOPS", nvb_result_iops(r, NVB_TRIM));
    snprintf(line, sizeof line, "nvbench.result: %.0f read IOPS, %.0f write IOPS%s, %.3f s%s%s%s",
             nvb_result_iops(r, NVB_READ), nvb_result_iops(r, NVB_WRITE), trim, nvb_result_duration(r),
             nvb_result_cancelled(r) ? ", cancelled" : "",
             *err ? ", error: " : "", err_shown);
    lua_pushstring(L, line);
    return 1;
}

static const luaL_Reg result_methods[] = {
    {"json", r_json},
    {"get", r_get},
    {"to_workload", l_result_workload},
    {"table", r_table},
    {"close", r_close},
    {NULL, NULL},
};

static const luaL_Reg result_meta[] = {
    {"__gc", r_gc},
    {"__close", r_gc},
    {"__tostring", r_tostring},
    {"__pairs", r_pairs},
    {NULL, NULL},
};

void create_result_meta(lua_State *L)
{
    luaL_newmetatable(L, RESULT_MT);
    luaL_setfuncs(L, result_meta, 0);
    luaL_newlibtable(L, result_methods);
    luaL_setfuncs(L, result_methods, 0);
    lua_pushcclosure(L, r_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}

/* The errno values this module returns, by name, for scripts and tests. */
