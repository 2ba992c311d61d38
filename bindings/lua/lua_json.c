/* JSON text to Lua values, through the library's own parser. (the Lua module; lua_module.h) */
#include "lua_module.h"

/* ------------------------------------------------------------ JSON decoding */

/* ------------------------------------------------------------ JSON
 * The library's one JSON parser (util/json.c: strict, bounded, the same
 * that reads results back) reads the text; this only turns its tree into
 * Lua values. null is pushed as nil: inside an object the key is then left
 * out (absent == null); inside an array it becomes NaN, because the library
 * writes null in arrays only for a number that is not finite. A number is a
 * Lua integer when its text is one that fits, else a float
 * (lua_stringtonumber's rule). */

/* The parsed tree while Lua code that can raise (a memory error) runs: a
 * userdata whose __gc frees it if an error cuts us short. */
struct ltree {
    struct nvb__jv *root;
};

int tree_gc(lua_State *L)
{
    struct ltree *t = luaL_checkudata(L, 1, TREE_MT);
    nvb__json_free(t->root);
    t->root = NULL;
    return 0;
}

static void jv_push(lua_State *L, const struct nvb__jv *v)
{
    switch (v->type) {
    case NVB__J_FALSE:
    case NVB__J_TRUE:
        lua_pushboolean(L, v->type == NVB__J_TRUE);
        return;
    case NVB__J_NUM:
        if (!lua_stringtonumber(L, v->s))
            lua_pushnumber(L, (lua_Number)NAN); /* the parser checked the grammar: not reached */
        return;
    case NVB__J_STR:
        lua_pushstring(L, v->s);
        return;
    case NVB__J_ARR:
        lua_createtable(L, (int)(v->n < INT32_MAX ? v->n : 0), 0);
        for (uint32_t i = 0; i < v->n; i++) {
            jv_push(L, &v->kid[i]);
            if (lua_isnil(L, -1)) {
                lua_pop(L, 1);
                lua_pushnumber(L, (lua_Number)NAN);
            }
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        return;
    case NVB__J_OBJ:
        lua_createtable(L, 0, (int)(v->n < INT32_MAX ? v->n : 0));
        for (uint32_t i = 0; i < v->n; i++) {
            lua_pushstring(L, v->kid[i].key);
            jv_push(L, &v->kid[i]);
            if (lua_isnil(L, -1))
                lua_pop(L, 2);
            else
                lua_rawset(L, -3);
        }
        return;
    default:
        lua_pushnil(L);
        return;
    }
}

/* Decodes s[0..len) and pushes the value; on malformed input pushes
 * nothing and returns -1 with the reason in d->err. */
int json_decode(lua_State *L, const char *s, size_t len, struct jdec *d)
{
    char why[160] = "";
    struct ltree *t = lua_newuserdatauv(L, sizeof *t, 0);
    t->root = NULL;
    luaL_setmetatable(L, TREE_MT);
    int rc = nvb__json_parse(s, len, &t->root, why, sizeof why);
    if (rc < 0) {
        lua_pop(L, 1);
        snprintf(d->err, sizeof d->err, "invalid JSON: %s", why[0] ? why : nvb_strerror(rc));
        return -1;
    }
    /* one slot per level, and the parser bounds the depth */
    luaL_checkstack(L, 2 * NVB__JSON_MAX_DEPTH + 8, "nvbench: JSON too deep");
    jv_push(L, t->root);
    lua_remove(L, -2); /* the tree's box: collected, and freed, later */
    return 0;
}

/* nvb.decode_json(text) -> value | nil, message, EINVAL */
int l_decode_json(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    struct jdec d;
    if (json_decode(L, s, len, &d))
        return push_fail(L, -EINVAL, d.err);
    return 1;
}
