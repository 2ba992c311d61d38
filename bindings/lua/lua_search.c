/*
 * The latency-target search, from the library (nvb_search_*,
 * libnvbench/core/search.c), so nvbench.search only runs the probes the
 * library names and keeps no copy of the algorithm:
 *
 *   local h, msg = nvb.search_new(target, vary)   nil, message, errno when refused
 *   h:set(key, value)          start, max_qd, max_runs, rel_tol, direction; nil, message when refused
 *   h:next()                   the next probe's value (0: unthrottled), nil when over; raises on misuse
 *   h:measure(dir, ios, iops, lat_ns or nil, supported)   dir "read" or "write"
 *   h:points()                 { { value =, iops =, lat_ns = (nil: none), ok =, supported = }, ... }
 *   h:answer()                 the answer's index (1-based) or nil
 *   h:cut()                    true when max_runs cut the search
 *   h:target()                 percentile, bound_ns, strict
 */
#include "lua_module.h"

#define SEARCH_MT "nvbench.search"

struct lsearch {
    struct nvb_search *s;
};

static struct nvb_search *check(lua_State *L)
{
    struct lsearch *h = luaL_checkudata(L, 1, SEARCH_MT);
    if (!h->s)
        luaL_error(L, "nvbench.search: the search is closed");
    return h->s;
}

/* A string argument without NUL bytes (C would cut it there). */
static const char *text(lua_State *L, int idx, const char *what)
{
    size_t len;
    const char *s = luaL_checklstring(L, idx, &len);
    if (strlen(s) != len)
        luaL_error(L, "nvbench.search: %s contains a NUL byte", what);
    return s;
}

static int l_search_new(lua_State *L)
{
    const char *target = text(L, 1, "the target"), *vary = text(L, 2, "vary");
    struct lsearch *h = lua_newuserdatauv(L, sizeof *h, 0);
    h->s = NULL;
    luaL_setmetatable(L, SEARCH_MT);
    char why[512];
    int rc = nvb_search_create(target, vary, &h->s, why, sizeof why);
    return rc < 0 ? push_fail(L, rc, why) : 1;
}

static int l_set(lua_State *L)
{
    struct nvb_search *s = check(L);
    const char *key = text(L, 2, "the option");
    const char *value = luaL_tolstring(L, 3, NULL);
    int rc = nvb_search_set(s, key, value);
    if (rc < 0)
        return push_fail(L, rc, nvb_search_error(s));
    lua_pushboolean(L, 1);
    return 1;
}

static void push_value(lua_State *L, double v)
{
    if (v == floor(v) && fabs(v) < 9007199254740992.0)
        lua_pushinteger(L, (lua_Integer)v);
    else
        lua_pushnumber(L, v);
}

static int l_next(lua_State *L)
{
    struct nvb_search *s = check(L);
    double v;
    int rc = nvb_search_next(s, &v);
    if (rc < 0)
        return luaL_error(L, "nvbench.search: %s", nvb_search_error(s));
    if (rc == 0)
        lua_pushnil(L);
    else
        push_value(L, v);
    return 1;
}

static int l_measure(lua_State *L)
{
    struct nvb_search *s = check(L);
    static const char *const dirs[] = {"read", "write", NULL};
    int dir = luaL_checkoption(L, 2, NULL, dirs) == 0 ? NVB_READ : NVB_WRITE;
    lua_Integer ios = luaL_optinteger(L, 3, 0);
    double iops = luaL_optnumber(L, 4, 0);
    double lat = lua_isnoneornil(L, 5) ? NAN : luaL_checknumber(L, 5);
    int rc = nvb_search_measure(s, dir, ios > 0 ? (uint64_t)ios : 0, iops, lat, lua_toboolean(L, 6));
    if (rc < 0)
        return luaL_error(L, "nvbench.search: %s", nvb_search_error(s));
    return 0;
}

static int l_points(lua_State *L)
{
    struct nvb_search *s = check(L);
    size_t n = nvb_search_points(s);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        double f[5];
        static const char *const names[] = {"value", "iops", "lat_ns", "ok", "supported"};
        for (int k = 0; k < 5; k++)
            nvb_search_point(s, i, names[k], &f[k]);
        lua_createtable(L, 0, 5);
        push_value(L, f[0]);
        lua_setfield(L, -2, "value");
        lua_pushnumber(L, f[1]);
        lua_setfield(L, -2, "iops");
        if (!isnan(f[2])) {
            lua_pushnumber(L, f[2]);
            lua_setfield(L, -2, "lat_ns");
        }
        lua_pushboolean(L, f[3] != 0);
        lua_setfield(L, -2, "ok");
        lua_pushboolean(L, f[4] != 0);
        lua_setfield(L, -2, "supported");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int l_answer(lua_State *L)
{
    size_t i;
    if (nvb_search_answer(check(L), &i) == 0)
        lua_pushinteger(L, (lua_Integer)i + 1);
    else
        lua_pushnil(L);
    return 1;
}

static int l_cut(lua_State *L)
{
    lua_pushboolean(L, nvb_search_cut(check(L)));
    return 1;
}

static int l_target(lua_State *L)
{
    double bound;
    int strict;
    lua_pushstring(L, nvb_search_percentile(check(L), &bound, &strict));
    lua_pushnumber(L, bound);
    lua_pushboolean(L, strict);
    return 3;
}

static int l_gc(lua_State *L)
{
    struct lsearch *h = luaL_checkudata(L, 1, SEARCH_MT);
    struct nvb_search *s = h->s;
    h->s = NULL; /* closed: the __gc after a __close finds nothing to free */
    nvb_search_destroy(s);
    return 0;
}

static int l_tostring(lua_State *L)
{
    struct lsearch *h = luaL_checkudata(L, 1, SEARCH_MT);
    lua_pushfstring(L, "nvbench.search (%s)", h->s ? nvb_search_percentile(h->s, NULL, NULL) : "closed");
    return 1;
}

void push_search(lua_State *L)
{
    static const luaL_Reg methods[] = {
        {"set", l_set},     {"next", l_next}, {"measure", l_measure}, {"points", l_points},
        {"answer", l_answer}, {"cut", l_cut}, {"target", l_target},   {NULL, NULL},
    };
    if (luaL_newmetatable(L, SEARCH_MT)) {
        luaL_newlib(L, methods);
        lua_setfield(L, -2, "__index");
        lua_pushcfunction(L, l_gc);
        lua_setfield(L, -2, "__gc");
        lua_pushcfunction(L, l_gc);
        lua_setfield(L, -2, "__close");
        lua_pushcfunction(L, l_tostring);
        lua_setfield(L, -2, "__tostring");
    }
    lua_pop(L, 1);
    lua_pushcfunction(L, l_search_new);
    lua_setfield(L, -2, "search_new");
}
