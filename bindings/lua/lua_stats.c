/*
 * nvb.stats: the library's statistics of repeated runs (nvb_stats_*), so a
 * Lua program prints the digits Python and C print for the same runs.
 *
 *   nvb.stats.mean_interval(values, domain [, confidence]) -> table
 *   nvb.stats.ratio(a, b, domain [, confidence])            -> table
 *   nvb.stats.t_critical(df [, confidence])                 -> number
 *
 * values, a, b: sequences of numbers (a hole or a NaN: a run without the
 * figure, left out); domain: "positive", "share" or "real"; confidence:
 * default 0.95. The table: value (the mean, or the ratio of the means), low,
 * high (nil with why set), df, mean_a, mean_b, n_a, n_b, sd, method ("t",
 * "log", "logit"), why (nil, "n<2", ...). Misuse (not a table, an unknown
 * domain) raises; a refused confidence returns nil, message, errno.
 */
#include "lua_module.h"

static int domain_of(lua_State *L, int arg)
{
    static const char *const names[] = { "positive", "share", "real", NULL };
    static const int codes[] = { NVB_DOMAIN_POSITIVE, NVB_DOMAIN_SHARE, NVB_DOMAIN_REAL };
    return codes[luaL_checkoption(L, arg, NULL, names)];
}

/* The numbers of the sequence at arg, in a userdata left on the stack. */
static double *numbers(lua_State *L, int arg, size_t *n)
{
    luaL_checktype(L, arg, LUA_TTABLE);
    *n = (size_t)luaL_len(L, arg);
    double *x = lua_newuserdatauv(L, (*n ? *n : 1) * sizeof *x, 0);
    for (size_t i = 0; i < *n; i++) {
        lua_geti(L, arg, (lua_Integer)i + 1);
        int ok;
        x[i] = lua_isnil(L, -1) ? NAN : (double)lua_tonumberx(L, -1, &ok);
        if (!lua_isnil(L, -1) && !ok)
            luaL_error(L, "nvb.stats: value %d of argument #%d is not a number", (int)i + 1, arg);
        lua_pop(L, 1);
    }
    return x;
}

static void set_number(lua_State *L, const char *k, double v)
{
    if (isnan(v))
        return; /* nil: no such figure */
    lua_pushnumber(L, v);
    lua_setfield(L, -2, k);
}

static int push_estimate(lua_State *L, int rc, const struct nvb_estimate *e)
{
    static const char *const methods[] = { "t", "log", "logit" };
    if (rc < 0) {
        lua_pushnil(L);
        lua_pushstring(L, nvb_strerror(rc));
        lua_pushinteger(L, -rc);
        return 3;
    }
    lua_createtable(L, 0, 11);
    set_number(L, "value", e->value);
    set_number(L, "low", e->low);
    set_number(L, "high", e->high);
    set_number(L, "df", e->df);
    set_number(L, "mean_a", e->mean_a);
    set_number(L, "mean_b", e->mean_b);
    set_number(L, "sd", e->sd);
    lua_pushinteger(L, (lua_Integer)e->n_a);
    lua_setfield(L, -2, "n_a");
    lua_pushinteger(L, (lua_Integer)e->n_b);
    lua_setfield(L, -2, "n_b");
    lua_pushstring(L, methods[e->method >= 0 && e->method < 3 ? e->method : 0]);
    lua_setfield(L, -2, "method");
    if (e->why) {
        lua_pushstring(L, nvb_stats_why(e->why));
        lua_setfield(L, -2, "why");
    }
    return 1;
}

static int l_mean_interval(lua_State *L)
{
    int domain = domain_of(L, 2);
    double conf = luaL_optnumber(L, 3, 0.95);
    size_t n;
    const double *x = numbers(L, 1, &n);
    struct nvb_estimate e;
    return push_estimate(L, nvb_stats_mean_interval(x, n, domain, conf, &e), &e);
}

static int l_ratio(lua_State *L)
{
    int domain = domain_of(L, 3);
    double conf = luaL_optnumber(L, 4, 0.95);
    size_t na, nb;
    const double *a = numbers(L, 1, &na);
    const double *b = numbers(L, 2, &nb);
    struct nvb_estimate e;
    return push_estimate(L, nvb_stats_ratio(a, na, b, nb, domain, conf, &e), &e);
}

static int l_t_critical(lua_State *L)
{
    double t, df = luaL_checknumber(L, 1), conf = luaL_optnumber(L, 2, 0.95);
    int rc = nvb_stats_t_critical(df, conf, &t);
    if (rc < 0) {
        lua_pushnil(L);
        lua_pushstring(L, nvb_strerror(rc));
        lua_pushinteger(L, -rc);
        return 3;
    }
    lua_pushnumber(L, t);
    return 1;
}

void push_stats_table(lua_State *L)
{
    static const luaL_Reg funcs[] = {
        {"mean_interval", l_mean_interval},
        {"ratio", l_ratio},
        {"t_critical", l_t_critical},
        {NULL, NULL},
    };
    luaL_newlib(L, funcs);
}
