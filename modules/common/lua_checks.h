/*
 * lua_checks.h: the argument checks of the modules' Lua bindings, one family with one behaviour.
 * A bad argument raises a Lua error that names the function and the argument, and says what was
 * wanted and what came:
 *
 *     Entity.destroy: argument 1 is not an entity id (got 1.5)
 *     Physics.add_body: argument 1 is not a world (got a number)
 *     Render.set_backend: argument 1 is "nul", not one of null, gl (did you mean "null"?)
 *
 * Nothing is turned into something else quietly: 1.5, -1 and 0 are not entity ids, a NaN is not a
 * number to store. A check that passes returns the value; one that fails does not return (the
 * error unwinds to the script's protected call, so call them before taking anything that would
 * need freeing).
 *
 * Every function takes the module's ct.lua v1 table and `fn`, the Lua name of the function being
 * checked ("Entity.destroy"). Worlds are light userdata and entities numbers holding the 32-bit
 * id, as api/ct_world.h says. Static inline functions: each module has its own copy.
 */
#ifndef CT_MODULES_LUA_CHECKS_H
#define CT_MODULES_LUA_CHECKS_H

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ct_lua.h"
#include "ct_types.h"

/* What a script passed, for a message: its number, or its type. */
static inline const char *check__got(const ct_lua_api_v1 *lua, lua_State *L, int idx, char *buf,
                                     size_t size)
{
    static const char *const names[] = {"nothing",    "nil",      "a boolean", "a light userdata",
                                        "a number",   "a string", "a table",   "a function",
                                        "a userdata", "a thread"};
    const ct_lua_type t = lua->type(L, idx);
    if (t == CT_LUA_NUMBER) {
        snprintf(buf, size, "%.17g", lua->to_number(L, idx));
        return buf;
    }
    const int i = (int)t + 1; /* CT_LUA_NONE is -1 */
    return i >= 0 && i < (int)(sizeof names / sizeof names[0]) ? names[i] : "a value";
}

/* Raises "fn: argument idx <wanted> (got ...)". */
static inline int check__fail(const ct_lua_api_v1 *lua, lua_State *L, int idx, const char *fn,
                              const char *wanted)
{
    char buf[32];
    return lua->error(L, "%s: argument %d %s (got %s)", fn, idx, wanted,
                      check__got(lua, L, idx, buf, sizeof buf));
}

/* The number at idx, or an error when it is no number (a numeric string is not one either). */
static inline double check__number(const ct_lua_api_v1 *lua, lua_State *L, int idx, const char *fn)
{
    if (lua->type(L, idx) != CT_LUA_NUMBER)
        check__fail(lua, L, idx, fn, "is not a number");
    return lua->to_number(L, idx);
}

/* As check__number, but nil or nothing at idx gives `fallback`. */
static inline double check__opt_number(const ct_lua_api_v1 *lua, lua_State *L, int idx,
                                       const char *fn, double fallback)
{
    return lua->type(L, idx) <= CT_LUA_NIL ? fallback : check__number(lua, L, idx, fn);
}

/* The entity at idx: a whole number from 1 to 2^32 - 1. A dead entity passes (handles tolerate
 * staleness; the call that uses it decides); 0, a fraction or a negative number does not. */
static inline ct_entity_t check__entity(const ct_lua_api_v1 *lua, lua_State *L, int idx,
                                        const char *fn)
{
    const double v = lua->type(L, idx) == CT_LUA_NUMBER ? lua->to_number(L, idx) : 0.0;
    if (!(v >= 1.0 && v <= (double)UINT32_MAX && v == (double)(uint32_t)v))
        check__fail(lua, L, idx, fn, "is not an entity id");
    return (ct_entity_t){(uint32_t)v};
}

/* The world at idx: a light userdata that is not NULL and, when `live` is given, that it calls
 * live (the entities module knows which worlds exist; other modules learn it from the call). */
static inline ct_world_o *check__world(const ct_lua_api_v1 *lua, lua_State *L, int idx,
                                       const char *fn, bool (*live)(const ct_world_o *))
{
    ct_world_o *w =
        lua->type(L, idx) == CT_LUA_LIGHTUSERDATA ? lua->to_light_userdata(L, idx) : NULL;
    if (!w)
        check__fail(lua, L, idx, fn, "is not a world");
    if (live && !live(w))
        lua->error(L, "%s: argument %d is not a live world (destroyed already?)", fn, idx);
    return w;
}

/* The number at idx when it is finite and within [lo, hi]. */
static inline double check__range(const ct_lua_api_v1 *lua, lua_State *L, int idx, const char *fn,
                                  double lo, double hi)
{
    const double v = check__number(lua, L, idx, fn);
    if (!(v >= lo && v <= hi)) {
        char wanted[96];
        snprintf(wanted, sizeof wanted, "is not a number in [%g, %g]", lo, hi);
        check__fail(lua, L, idx, fn, wanted);
    }
    return v;
}

/* The number at idx as a float, when it is finite and fits one. */
static inline float check__finite(const ct_lua_api_v1 *lua, lua_State *L, int idx, const char *fn)
{
    const double v = check__number(lua, L, idx, fn);
    if (!(fabs(v) <= FLT_MAX))
        check__fail(lua, L, idx, fn, "is not a finite number");
    return (float)v;
}

/* As check__finite, but nil or nothing at idx gives `fallback`. */
static inline float check__opt_finite(const ct_lua_api_v1 *lua, lua_State *L, int idx,
                                      const char *fn, float fallback)
{
    return lua->type(L, idx) <= CT_LUA_NIL ? fallback : check__finite(lua, L, idx, fn);
}

/* n numbers from arguments idx .. idx + n - 1, as floats (vectors travel as separate numbers, so
 * no table is made per call). Their range is the callee's: every C entry checks its own and
 * refuses naming the quantity (a NaN position, a velocity of 1e30), which says more than a check
 * here could. */
static inline void check__vec(const ct_lua_api_v1 *lua, lua_State *L, int idx, uint32_t n,
                              float *out, const char *fn)
{
    for (uint32_t k = 0; k < n; k++)
        out[k] = (float)check__number(lua, L, idx + (int)k, fn);
}

/* The index in names[0 .. count) of the string at idx; an error listing the names, and the
 * nearest one when `nearest` (the kernel's, ct_resource_api_v3.nearest_name) finds one close. */
static inline uint32_t check__enum(const ct_lua_api_v1 *lua, lua_State *L, int idx, const char *fn,
                                   const char *const *names, uint32_t count,
                                   const char *(*nearest)(const char *, const char *const *,
                                                          uint32_t))
{
    const char *s = lua->type(L, idx) == CT_LUA_STRING ? lua->to_string(L, idx, NULL) : NULL;
    for (uint32_t i = 0; s && i < count; i++)
        if (!strcmp(s, names[i]))
            return i;
    char known[256] = "";
    size_t at = 0;
    for (uint32_t i = 0; i < count && at < sizeof known; i++)
        at += (size_t)snprintf(known + at, sizeof known - at, "%s%s", i ? ", " : "", names[i]);
    const char *near = s && nearest ? nearest(s, names, count) : NULL;
    if (!s)
        return (uint32_t)check__fail(lua, L, idx, fn, "is not a name");
    return (uint32_t)lua->error(L, "%s: argument %d is \"%s\", not one of %s%s%s%s", fn, idx, s,
                                known, near ? " (did you mean \"" : "", near ? near : "",
                                near ? "\"?)" : "");
}

#endif
