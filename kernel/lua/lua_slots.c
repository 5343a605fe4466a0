/* Registered C functions and who owns them.
 *
 * Lua never holds a plugin's function pointer. It holds a trampoline that knows an index into the
 * kernel's slot table, and the slot holds the pointer: for the first 512 slots a C function of
 * its own per slot, past them a closure of one trampoline whose upvalue is the index. Unloading
 * a plugin disables its slots (a call raises instead of jumping into unmapped code) and a hot
 * reload swaps the pointers in place, so every reference Lua kept, in locals, tables or upvalues,
 * follows. */
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "ct_array.h"
#include "base/log.h"
#include "lua/lua_env.h"
#include "lua/lua_internal.h"
#include "plugins/registry.h"

/* Where a slot stands in the hot reload in progress. */
typedef enum lua_slot_phase {
    SLOT_LIVE = 0, /* no reload touches it */
    SLOT_OLD,      /* the reloading owner's, not registered again yet */
    SLOT_REPLACED, /* registered again by the new code; `previous` holds the old function */
    SLOT_ADDED,    /* first registered by the new code */
} lua_slot_phase;

/* What a slot calls: a plain lua_CFunction, or a closure with its context (ct_lua_api_v2). */
typedef struct lua_slot_fn_t {
    lua_CFunction fn;
    ct_lua_closure_f closure;
    void *ctx;
} lua_slot_fn_t;

typedef struct lua_slot_t {
    lua_slot_fn_t call;
    bool disabled;
    uint8_t phase; /* lua_slot_phase */
    bool previous_disabled;
    /* A type's slot lives in its metatable (`module` is the type name), a module's in a global
     * table. A disabled __gc does nothing rather than raise: the collector calls it, not a
     * script that could handle the error. */
    bool in_type;
    bool quiet_when_disabled;
    lua_slot_fn_t previous;
    ct_plugin_o *owner;
    char *module; /* "module\0name\0" in one block of names_size bytes */
    const char *name;
    size_t names_size;
} lua_slot_t;

static struct {
    lua_slot_t *items;
    uint32_t count;
    uint32_t capacity;
    ct_plugin_o *owner;
    bool reloading;
    ct_plugin_o *reload_owner;
    /* The first registration refused because another running plugin owns the name. */
    ct_plugin_o *clash_owner;
    char clash[256];
} slots;

#define lua_slots_misuse(fmt, ...)                                                                 \
    log__write(NULL, CT_LOG_ERROR, "%s:%d: " fmt, __FILE__, __LINE__, __VA_ARGS__)

/* Why slot i's function is not called: Lua and C nest too deeply, or its plugin is gone (a
 * disabled __gc does nothing rather than raise). Out of line: no call takes this way but a
 * refused one. */
__attribute__((noinline, cold)) static int lua_slots_refuse(lua_State *L, uint32_t i)
{
    const lua_slot_t *s = &slots.items[i];
    if (lua_env__stack_left() < LUA_STACK_RESERVE)
        return luaL_error(L, "C stack overflow: Lua and C call each other too deeply (%s.%s)",
                          s->module, s->name);
    return s->quiet_when_disabled
               ? 0
               : luaL_error(L, "plugin %s is not loaded", registry__plugin_name(s->owner));
}

/* What every slot's function does: call slot i's function unless it is refused. It stays this
 * small because it sits between Lua and each plugin call (bench/ measures it against a plain
 * lua_CFunction), and is written into each of the trampolines below. */
static inline int lua_slots_call(lua_State *L, uint32_t i)
{
    const lua_slot_t *s = &slots.items[i];
    if (lua_env__stack_left() < LUA_STACK_RESERVE || s->disabled)
        return lua_slots_refuse(L, i);
    return s->call.closure ? s->call.closure(L, s->call.ctx) : s->call.fn(L);
}

/* Slots past the fixed trampolines below: one closure whose upvalue is the slot's index. The
 * upvalue is reachable from scripts (debug.setupvalue), so it is checked, not trusted. */
static int l_lua_call_slot(lua_State *L)
{
    lua_Integer i = lua_tointeger(L, lua_upvalueindex(1));
    if (i < 0 || i >= (lua_Integer)slots.count)
        return luaL_error(L, "kernel function slot %d does not exist (its upvalue was changed)",
                          (int)i);
    return lua_slots_call(L, (uint32_t)i);
}

/* The first LUA_SLOTS_DIRECT slots each get a plain C function of their own that knows its index:
 * no upvalue to read through the Lua API (a call into LuaJIT) and nothing a script can change.
 * The index is made of base-8 digits in the name, so one macro writes them all. */
#define LUA_SLOTS_DIRECT 512u
#define LUA_SLOT_FN(a, b, c, d)                                                                    \
    static int l_lua_slot_##a##b##c##d(lua_State *L)                                               \
    {                                                                                              \
        return lua_slots_call(L, ((a)*512u) + ((b)*64u) + ((c)*8u) + (d));                         \
    }
#define LUA_SLOT_FN8(a, b, c)                                                                      \
    LUA_SLOT_FN(a, b, c, 0)                                                                        \
    LUA_SLOT_FN(a, b, c, 1) LUA_SLOT_FN(a, b, c, 2) LUA_SLOT_FN(a, b, c, 3)                        \
        LUA_SLOT_FN(a, b, c, 4) LUA_SLOT_FN(a, b, c, 5) LUA_SLOT_FN(a, b, c, 6)                    \
            LUA_SLOT_FN(a, b, c, 7)
#define LUA_SLOT_FN64(a, b)                                                                        \
    LUA_SLOT_FN8(a, b, 0)                                                                          \
    LUA_SLOT_FN8(a, b, 1) LUA_SLOT_FN8(a, b, 2) LUA_SLOT_FN8(a, b, 3) LUA_SLOT_FN8(a, b, 4)        \
        LUA_SLOT_FN8(a, b, 5) LUA_SLOT_FN8(a, b, 6) LUA_SLOT_FN8(a, b, 7)
#define LUA_SLOT_FN512(a)                                                                          \
    LUA_SLOT_FN64(a, 0)                                                                            \
    LUA_SLOT_FN64(a, 1) LUA_SLOT_FN64(a, 2) LUA_SLOT_FN64(a, 3) LUA_SLOT_FN64(a, 4)                \
        LUA_SLOT_FN64(a, 5) LUA_SLOT_FN64(a, 6) LUA_SLOT_FN64(a, 7)
LUA_SLOT_FN512(0)

#define LUA_SLOT_REF(a, b, c, d) l_lua_slot_##a##b##c##d,
#define LUA_SLOT_REF8(a, b, c)                                                                     \
    LUA_SLOT_REF(a, b, c, 0)                                                                       \
    LUA_SLOT_REF(a, b, c, 1) LUA_SLOT_REF(a, b, c, 2) LUA_SLOT_REF(a, b, c, 3)                     \
        LUA_SLOT_REF(a, b, c, 4) LUA_SLOT_REF(a, b, c, 5) LUA_SLOT_REF(a, b, c, 6)                 \
            LUA_SLOT_REF(a, b, c, 7)
#define LUA_SLOT_REF64(a, b)                                                                       \
    LUA_SLOT_REF8(a, b, 0)                                                                         \
    LUA_SLOT_REF8(a, b, 1) LUA_SLOT_REF8(a, b, 2) LUA_SLOT_REF8(a, b, 3) LUA_SLOT_REF8(a, b, 4)    \
        LUA_SLOT_REF8(a, b, 5) LUA_SLOT_REF8(a, b, 6) LUA_SLOT_REF8(a, b, 7)
#define LUA_SLOT_REF512(a)                                                                         \
    LUA_SLOT_REF64(a, 0)                                                                           \
    LUA_SLOT_REF64(a, 1) LUA_SLOT_REF64(a, 2) LUA_SLOT_REF64(a, 3) LUA_SLOT_REF64(a, 4)            \
        LUA_SLOT_REF64(a, 5) LUA_SLOT_REF64(a, 6) LUA_SLOT_REF64(a, 7)
static const lua_CFunction lua_slot_direct[LUA_SLOTS_DIRECT] = {LUA_SLOT_REF512(0)};

/* Pushes global table `module`, creating it when missing. Raw access, because registration runs
 * outside any protected call and a metamethod error there would abort. Returns false (pushing
 * nothing) when the global holds something other than a table. */
static bool lua_slots_push_module(lua_State *L, const char *module)
{
    lua_pushstring(L, module);
    lua_rawget(L, LUA_GLOBALSINDEX);
    if (lua_istable(L, -1))
        return true;
    bool missing = lua_isnil(L, -1);
    lua_pop(L, 1);
    if (!missing)
        return false;
    lua_newtable(L);
    lua_pushstring(L, module);
    lua_pushvalue(L, -2);
    lua_rawset(L, LUA_GLOBALSINDEX);
    return true;
}

/* Pushes the table a type's entry `name` goes in: the metatable named `type` for a metamethod
 * ("__gc"), its __index table for a method (both made when missing). Raw access, as above. */
static void lua_slots_push_type(lua_State *L, const char *type, const char *name)
{
    luaL_newmetatable(L, type);
    if (strncmp(name, "__", 2) == 0)
        return;
    lua_pushliteral(L, "__index");
    lua_rawget(L, -2);
    if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushliteral(L, "__index");
        lua_pushvalue(L, -2);
        lua_rawset(L, -4);
    }
    lua_remove(L, -2);
}

/* Stores the function on top of the stack as module.name (or in type `module`'s metatable) and
 * pops it. */
static int lua_slots_install(lua_State *L, bool in_type, const char *module, const char *name)
{
    if (in_type) {
        lua_slots_push_type(L, module, name);
    } else if (!lua_slots_push_module(L, module)) {
        lua_pop(L, 1);
        return CT_ERR_CONFLICT;
    }
    lua_pushstring(L, name);
    lua_pushvalue(L, -3);
    lua_rawset(L, -3);
    lua_pop(L, 2);
    return 0;
}

int lua_env__add_raw_function(const char *module, const char *name, lua_CFunction f)
{
    lua_State *L = lua_env__state();
    if (!L)
        return CT_ERR_INVALID;
    lua_pushcfunction(L, f);
    return lua_slots_install(L, false, module, name);
}

static uint32_t lua_slots_find(bool in_type, const char *module, const char *name)
{
    for (uint32_t i = 0; i < slots.count; i++) {
        const lua_slot_t *s = &slots.items[i];
        if (s->in_type == in_type && strcmp(s->module, module) == 0 && strcmp(s->name, name) == 0)
            return i;
    }
    return slots.count;
}

/* Makes room for one more slot and copies the names into it; the slot is counted only once Lua
 * holds its closure. Returns false when out of memory. */
static bool lua_slots_prepare(const char *module, const char *name)
{
    ct_allocator_t *a = lua_env__allocator();
    if (!ct_array_reserve_of(a, &slots.items, &slots.capacity, slots.count + 1, 32))
        return false;
    size_t module_size = strlen(module) + 1;
    size_t names_size = module_size + strlen(name) + 1;
    char *names = ct_alloc(a, names_size);
    if (!names)
        return false;
    memcpy(names, module, module_size);
    memcpy(names + module_size, name, names_size - module_size);
    slots.items[slots.count] = (lua_slot_t){
        .module = names,
        .name = names + module_size,
        .names_size = names_size,
    };
    return true;
}

static void lua_slots_free_names(lua_slot_t *s)
{
    ct_free(lua_env__allocator(), s->module, s->names_size);
}

/* Registers `call` as module.name (or as entry `name` of type `module`) in a slot of the current
 * owner. */
static void lua_slots_add(bool in_type, const char *module, const char *name, lua_slot_fn_t call)
{
    lua_State *L = lua_env__state();
    if (!L || !module || !name || (!call.fn && !call.closure)) {
        lua_slots_misuse("cannot register %s.%s: %s", module ? module : "(null)",
                         name ? name : "(null)", L ? "NULL argument" : "Lua is not initialised");
        return;
    }
    uint32_t i = lua_slots_find(in_type, module, name);
    bool added = i == slots.count;
    if (!added && !slots.items[i].disabled && slots.items[i].owner != slots.owner) {
        /* Two plugins behind one name would make the script's call depend on load order. */
        const char *holder = registry__plugin_name(slots.items[i].owner);
        log__write(NULL, CT_LOG_ERROR, "lua: %s cannot register %s.%s: %s registered it already",
                   registry__plugin_name(slots.owner), module, name, holder);
        if (!slots.clash_owner) {
            slots.clash_owner = slots.owner;
            snprintf(slots.clash, sizeof slots.clash,
                     "registers the Lua function %s.%s, which plugin '%s' registered already",
                     module, name, holder);
        }
        return;
    }
    if (added && !lua_slots_prepare(module, name)) {
        log__write(NULL, CT_LOG_ERROR, "lua: cannot register %s.%s: out of memory", module, name);
        return;
    }
    /* The closure is installed even for a known slot: a script may have replaced the module
     * table since, and registering again is how a plugin says "I am here". */
    if (i < LUA_SLOTS_DIRECT) {
        lua_pushcfunction(L, lua_slot_direct[i]);
    } else {
        lua_pushinteger(L, (lua_Integer)i);
        lua_pushcclosure(L, l_lua_call_slot, 1);
    }
    if (lua_slots_install(L, in_type, module, name) != 0) {
        log__write(NULL, CT_LOG_ERROR, "lua: cannot register %s.%s: global '%s' is not a table",
                   module, name, module);
        if (added)
            lua_slots_free_names(&slots.items[i]);
        return;
    }
    lua_slot_t *s = &slots.items[i];
    if (added) {
        slots.count++;
        bool in_reload = slots.reloading && slots.owner == slots.reload_owner;
        s->phase = in_reload ? SLOT_ADDED : SLOT_LIVE;
    } else if (s->phase == SLOT_OLD) {
        s->phase = SLOT_REPLACED;
    }
    s->call = call;
    s->in_type = in_type;
    s->quiet_when_disabled = in_type && strcmp(name, "__gc") == 0;
    s->owner = slots.owner;
    s->disabled = false;
}

void lua_env__add_function(const char *module, const char *name, lua_CFunction f)
{
    lua_slots_add(false, module, name, (lua_slot_fn_t){.fn = f});
}

void lua_env__add_closure(const char *module, const char *name, ct_lua_closure_f f, void *ctx)
{
    lua_slots_add(false, module, name, (lua_slot_fn_t){.closure = f, .ctx = ctx});
}

void lua_env__add_method(const char *type, const char *name, ct_lua_closure_f f, void *ctx)
{
    lua_slots_add(true, type, name, (lua_slot_fn_t){.closure = f, .ctx = ctx});
}

void lua_env__set_owner(ct_plugin_o *owner) { slots.owner = owner; }

bool lua_env__take_clash(ct_plugin_o *owner, char *why, size_t size)
{
    if (!slots.clash_owner || slots.clash_owner != owner)
        return false;
    snprintf(why, size, "%s", slots.clash);
    slots.clash_owner = NULL;
    return true;
}

void lua_env__disable_owner(ct_plugin_o *owner)
{
    for (uint32_t i = 0; i < slots.count; i++) {
        if (slots.items[i].owner == owner)
            slots.items[i].disabled = true;
    }
}

void lua_env__reload_begin(ct_plugin_o *owner)
{
    if (slots.reloading) {
        lua_slots_misuse("reload of %s begun while %s is reloading", registry__plugin_name(owner),
                         registry__plugin_name(slots.reload_owner));
        return;
    }
    slots.reloading = true;
    slots.reload_owner = owner;
    for (uint32_t i = 0; i < slots.count; i++) {
        lua_slot_t *s = &slots.items[i];
        if (s->owner != owner)
            continue;
        s->phase = SLOT_OLD;
        s->previous = s->call;
        s->previous_disabled = s->disabled;
    }
}

/* Ends the reload of `owner`; `keep_new` chooses which side of each changed slot survives. */
static void lua_slots_end_reload(ct_plugin_o *owner, bool keep_new)
{
    if (!slots.reloading || slots.reload_owner != owner) {
        lua_slots_misuse("no reload of %s to end", registry__plugin_name(owner));
        return;
    }
    for (uint32_t i = 0; i < slots.count; i++) {
        lua_slot_t *s = &slots.items[i];
        switch ((lua_slot_phase)s->phase) {
        case SLOT_LIVE: continue;
        case SLOT_OLD:
            /* The new code dropped it: its function lives in the library being unloaded. */
            if (keep_new)
                s->disabled = true;
            break;
        case SLOT_REPLACED:
            if (!keep_new) {
                s->call = s->previous;
                s->disabled = s->previous_disabled;
                s->owner = owner;
            }
            break;
        case SLOT_ADDED:
            if (!keep_new)
                s->disabled = true;
            break;
        }
        s->phase = SLOT_LIVE;
        s->previous = (lua_slot_fn_t){0};
    }
    slots.reloading = false;
    slots.reload_owner = NULL;
}

void lua_env__reload_commit(ct_plugin_o *owner) { lua_slots_end_reload(owner, true); }

void lua_env__reload_rollback(ct_plugin_o *owner) { lua_slots_end_reload(owner, false); }

void lua_env__slots_shutdown(void)
{
    for (uint32_t i = 0; i < slots.count; i++)
        lua_slots_free_names(&slots.items[i]);
    if (slots.items)
        ct_free(lua_env__allocator(), slots.items, slots.capacity * sizeof *slots.items);
    memset(&slots, 0, sizeof slots);
}
