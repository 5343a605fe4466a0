/*
 * Fuzz target: the argument checking of physics' Lua bindings (modules Physics and Actor), as a
 * careless or hostile script calls them. Structure-aware: the input's bytes write a Lua chunk of
 * up to 12 protected calls, each a Physics or Actor function with arguments mostly of the kind it
 * wants (a world, an entity, numbers, the tables of fields, points, children, indices and
 * heights) and now and then anything else: wrong types, NaN, infinities, huge, negative and
 * fractional numbers, missing or extra fields, a destroyed world or entity, a strict table whose
 * every read raises, tables of 10^6 entries. The world holds a dynamic box (E1), a static floor
 * (E2), an entity without a body (E3) and a destroyed one (E4). A call may raise a Lua error; it
 * must never crash, hang, leak, corrupt memory, or leave a body out of the world's ranges.
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "fuzz_level_source.h"
#include "fuzz_stream.h"
#include "lua/lua_env.h"

/* Helpers the chunks call for what would be long to write out: point clouds, flat and repeated
 * points, long arrays, heights, triangle indices, children, a strict table. */
static const char prelude[] =
    "fz = {}\n"
    "function fz.big(n) local t = {} for i = 1, n do t[i] = (i % 7) * 0.25 end return t end\n"
    "function fz.cloud(n, s) local t = {} for i = 1, n do local a = i * 2.399963\n"
    "  t[#t + 1] = math.cos(a) * s t[#t + 1] = ((i * 0.618) % 1 - 0.5) * s\n"
    "  t[#t + 1] = math.sin(a) * s end return t end\n"
    "function fz.flat(n) local t = {} for i = 1, n do t[#t + 1] = i % 3 t[#t + 1] = 0\n"
    "  t[#t + 1] = math.floor(i / 3) end return t end\n"
    "function fz.same(n) local t = {} for i = 1, 3 * n do t[i] = 0.5 end return t end\n"
    "function fz.tris(n, v) local t = {} for i = 1, 3 * n do t[i] = (i * 7) % v + 1 end\n"
    "  return t end\n"
    "function fz.kids(n, shape) local t = {} for i = 1, n do t[i] = {shape = shape,\n"
    "  half_extents = {0.5, 0.5, 0.5}, radius = 0.5, half_height = 0.5,\n"
    "  points = fz.cloud(8, 1), position = {i, 0, 0}} end return t end\n"
    "function fz.strict() return setmetatable({}, {__index = function(_, k)\n"
    "  error('strict: ' .. tostring(k)) end}) end\n"
    "fz.calls, fz.returned = 0, 0\n"
    "function fz.call(f, ...) fz.calls = fz.calls + 1 local ok, v = pcall(f, ...)\n"
    "  if ok then fz.returned = fz.returned + 1 if type(v) == 'number' then J = v end\n"
    "  elseif fz.show then print(v) end end\n";

typedef struct chunk {
    char text[32768];
    size_t len;
} chunk;

static void emit(chunk *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const int k = vsnprintf(c->text + c->len, sizeof c->text - c->len, fmt, ap);
    va_end(ap);
    if (k > 0 && (size_t)k < sizeof c->text - c->len)
        c->len += (size_t)k;
}

#define PICK(r, list) ((list)[fuzz_stream_next(r) % (sizeof(list) / sizeof((list)[0]))])

static const char *const awkward[] = {
    "0",     "-0",   "1e-40",  "1e-6",   "1e30", "1e300",  "-1e300",  "0/0",
    "1/0",   "-1/0", "3.4e38", "3.5e38", "2^32", "2^32-1", "2^53+1",  "65536",
    "65537", "1e5",  "100001", "1e4",    "64",   "65",     "1.5",     "-7",
    "1e9",   "1e15", "1e16",   "-(0/0)", "2^31", "-2^31",  "4194304", "4194305"};
static const char *const plain[] = {"0", "1", "0.5", "2", "-1", "0.3", "10", "-0.25", "3", "0.7"};

/* A number: mostly a plain one, one in four an awkward one. */
static void number(chunk *c, fuzz_stream *r)
{
    const uint8_t b = fuzz_stream_next(r);
    emit(c, "%s", b % 4 == 3 ? PICK(r, awkward) : PICK(r, plain));
}

static void any(chunk *c, fuzz_stream *r, int depth);

static void vec(chunk *c, fuzz_stream *r, uint32_t n)
{
    const uint8_t b = fuzz_stream_next(r);
    const uint32_t count = b % 8 == 0 && n ? n - 1 : b % 8 == 1 ? n + 1 : n;
    emit(c, "{");
    for (uint32_t k = 0; k < count; k++) {
        if (fuzz_stream_next(r) % 16 == 0)
            any(c, r, 0);
        else
            number(c, r);
        emit(c, ", ");
    }
    emit(c, "}");
}

static void points(chunk *c, fuzz_stream *r)
{
    static const char *const counts[] = {"0", "1", "2", "3", "4", "5", "8", "20", "64", "65"};
    static const char *const spreads[] = {"1", "1", "0.3", "0", "1e-7", "1e4", "2e4", "1e5", "0/0"};
    switch (fuzz_stream_next(r) % 8) {
    case 0: emit(c, "fz.flat(%s)", PICK(r, counts)); break;
    case 1: emit(c, "fz.same(%s)", PICK(r, counts)); break;
    case 2:
        /* 10^6 numbers, now and then: the scratch of a long table must stay bounded. */
        emit(c, "fz.big(%s)", fuzz_stream_next(r) % 8 ? "195" : "1000000");
        break;
    case 3: vec(c, r, 3u * (fuzz_stream_next(r) % 6u)); break;
    default: emit(c, "fz.cloud(%s, %s)", PICK(r, counts), PICK(r, spreads));
    }
}

static const char *const keys[] = {
    "kind",         "mass",           "friction",        "restitution",
    "position",     "rotation",       "shape",           "half_extents",
    "radius",       "half_height",    "points",          "anchor",
    "anchor_b",     "axis",           "lower",           "upper",
    "cone_angle",   "motor_speed",    "max_motor_force", "length",
    "spring_hertz", "spring_damping", "limit",           "motor",
    "collide",      "max_step",       "max_slope",       "step_down",
    "max_strength"};

/* The value of field key, mostly of the kind the bindings read it as. */
static void field_value(chunk *c, fuzz_stream *r, const char *key, int depth)
{
    static const char *const strings[] = {"'dynamic'", "'static'", "'kinematic'",
                                          "'box'",     "'sphere'", "'capsule'",
                                          "'hull'",    "'mesh'",   "''"};
    if (fuzz_stream_next(r) % 8 == 0) {
        any(c, r, depth - 1);
        return;
    }
    if (!strcmp(key, "kind") || !strcmp(key, "shape"))
        emit(c, "%s", PICK(r, strings));
    else if (!strcmp(key, "position") || !strcmp(key, "half_extents") ||
             !strncmp(key, "anchor", 6) || !strcmp(key, "axis"))
        vec(c, r, 3);
    else if (!strcmp(key, "rotation"))
        vec(c, r, 4);
    else if (!strcmp(key, "points"))
        points(c, r);
    else if (!strcmp(key, "limit") || !strcmp(key, "motor") || !strcmp(key, "collide"))
        emit(c, "%s", fuzz_stream_next(r) & 1 ? "true" : "false");
    else
        number(c, r);
}

/* A table of fields: a few keys, each with a value. */
static void fields(chunk *c, fuzz_stream *r, int depth)
{
    const uint32_t count = fuzz_stream_next(r) % 7u;
    emit(c, "{");
    for (uint32_t k = 0; k < count; k++) {
        const char *key = PICK(r, keys);
        emit(c, "%s = ", key);
        field_value(c, r, key, depth);
        emit(c, ", ");
    }
    emit(c, "}");
}

static void children(chunk *c, fuzz_stream *r, int depth)
{
    static const char *const shapes[] = {"'box'", "'sphere'", "'capsule'", "'hull'", "'mesh'"};
    static const char *const counts[] = {"0", "1", "2", "64", "65"};
    if (fuzz_stream_next(r) % 4 == 0) {
        emit(c, "fz.kids(%s, %s)", PICK(r, counts), PICK(r, shapes));
        return;
    }
    const uint32_t count = fuzz_stream_next(r) % 4u;
    emit(c, "{");
    for (uint32_t k = 0; k < count; k++) {
        emit(c, "{shape = %s, ", PICK(r, shapes));
        fields(c, r, depth);
        emit(c, "}, "); /* fields' own braces make a nested table: read as the child's array */
    }
    emit(c, "}");
}

static void entity(chunk *c, fuzz_stream *r)
{
    static const char *const entities[] = {"E1", "E2", "E3",  "E4", "E1",
                                           "E3", "0",  "1.5", "-1", "2^32"};
    emit(c, "%s", PICK(r, entities));
}

/* Any value at all. */
static void any(chunk *c, fuzz_stream *r, int depth)
{
    static const char *const others[] = {"nil",
                                         "true",
                                         "false",
                                         "W",
                                         "D",
                                         "J",
                                         "'x'",
                                         "'hinge'",
                                         "{}",
                                         "fz.strict()",
                                         "function() end",
                                         "print",
                                         "'1'",
                                         "setmetatable({}, {__len = function() return 2^40 end})"};
    switch (fuzz_stream_next(r) % (depth > 0 ? 8 : 5)) {
    case 0:
    case 1: emit(c, "%s", PICK(r, others)); break;
    case 2: number(c, r); break;
    case 3: entity(c, r); break;
    case 4: emit(c, "%s", PICK(r, awkward)); break;
    case 5: fields(c, r, depth - 1); break;
    case 6: points(c, r); break;
    default: vec(c, r, 3);
    }
}

/* The functions, each with the kinds of its arguments: w world, e entity, n number, j joint,
 * t fields, p points, c children, i indices, h heights, s a joint type, b a flag. */
static const struct {
    const char *name, *args;
} functions[] = {
    {"Physics.simulate", "wn"},
    {"Physics.overlap_sphere", "wnnnnn"},
    {"Physics.raycast", "wnnnnnnnn"},
    {"Physics.shape_cast", "wtnnnnnnn"},
    {"Physics.state_hash", "w"},
    {"Physics.set_gravity", "wnnn"},
    {"Physics.add_joint", "weest"},
    {"Physics.remove_joint", "wj"},
    {"Physics.joint_force", "wj"},
    {"Physics.joint_value", "wj"},
    {"Physics.set_joint_motor", "wjnn"},
    {"Physics.joint_of", "we"},
    {"Physics.add_character", "wet"},
    {"Physics.move_character", "wennnn"},
    {"Physics.set_character_settings", "wet"},
    {"Physics.character_settings", "we"},
    {"Physics.character_contacts", "we"},
    {"Physics.add_hull", "wept"},
    {"Physics.add_compound", "wect"},
    {"Physics.add_mesh", "wepit"},
    {"Physics.add_height_field", "wehnnnnt"},
    {"Actor.shape", "we"},
    {"Actor.set_velocity", "wennn"},
    {"Actor.velocity", "we"},
    {"Actor.add_force", "wennn"},
    {"Actor.teleport", "wennn"},
    {"Actor.position", "we"},
    {"Actor.set_collision_filter", "wenn"},
    {"Actor.sleeping", "we"},
    {"Actor.wake", "we"},
    {"Actor.rotation", "we"},
    {"Actor.set_rotation", "wennnn"},
    {"Actor.angular_velocity", "we"},
    {"Actor.set_angular_velocity", "wennn"},
    {"Actor.add_torque", "wennn"},
    {"Actor.add_impulse_at", "wennnnnn"},
    {"Actor.add_force_at", "wennnnnn"},
    {"Actor.set_sensor", "web"},
    {"Actor.is_sensor", "we"},
    {"Actor.sensor_contents", "we"},
    {"Actor.set_damping", "wenn"},
    {"Actor.damping", "we"},
    {"Entity.destroy", "e"},
};

static void argument(chunk *c, fuzz_stream *r, char kind)
{
    static const char *const types[] = {"'fixed'",  "'hinge'",    "'ball'",
                                        "'slider'", "'distance'", "'rope'"};
    static const uint32_t grids[][2] = {{2, 2}, {3, 2},         {4, 4},    {2, 3},
                                        {1, 2}, {65536, 65536}, {500, 200}};
    if (fuzz_stream_next(r) % 8 == 0) {
        any(c, r, 2);
        return;
    }
    switch (kind) {
    case 'w': emit(c, "W"); break;
    case 'e': entity(c, r); break;
    case 'j': emit(c, "J"); break;
    case 't': fields(c, r, 2); break;
    case 'p': points(c, r); break;
    case 'c': children(c, r, 2); break;
    case 'i': emit(c, "fz.tris(%u, %u)", fuzz_stream_next(r) % 40u, 1u + fuzz_stream_next(r) % 40u); break;
    case 'h': {
        /* the heights and the columns and rows the next two arguments give */
        const uint32_t *g = grids[fuzz_stream_next(r) % (sizeof grids / sizeof grids[0])];
        const uint64_t cells = (uint64_t)g[0] * g[1];
        emit(c, "fz.big(%u), %u, %u",
             (unsigned)(cells > 1000000u ? 1000000u : cells) + (fuzz_stream_next(r) % 8u == 0), g[0],
             g[1]);
        break;
    }
    case 's': emit(c, "%s", PICK(r, types)); break;
    case 'b': emit(c, "%s", fuzz_stream_next(r) & 1 ? "true" : "false"); break;
    default: number(c, r);
    }
}

static lua_State *L;
static bool show;

static void boot(void)
{
    fuzz_boot();
    L = lua_env__state();
    if (luaL_dostring(L, prelude))
        abort();
    /* FUZZ_LUA_SHOW=1 prints each chunk and every error a call raised: the messages as a
     * script's author reads them. */
    show = getenv("FUZZ_LUA_SHOW") != NULL;
    if (show && luaL_dostring(L, "fz.show = true"))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!L)
        boot();
    fuzz_stream r = fuzz_stream_of(data, size);
    static chunk c;
    c.len = 0;
    const uint32_t calls = 1u + fuzz_stream_next(&r) % 12u;
    for (uint32_t k = 0; k < calls; k++) {
        const uint32_t f = fuzz_stream_next(&r) % (sizeof functions / sizeof functions[0]);
        const char *args = functions[f].args;
        uint8_t b = fuzz_stream_next(&r);
        /* One call in eight gets an argument too few or too many. */
        size_t argc = strlen(args);
        if (b % 8 == 0 && argc)
            argc--;
        else if (b % 8 == 1)
            argc++;
        emit(&c, "fz.call(%s", functions[f].name);
        for (size_t a = 0; a < argc; a++) {
            emit(&c, ", ");
            argument(&c, &r, a < strlen(args) ? args[a] : 'n');
            if (a < strlen(args) && args[a] == 'h')
                a += 2; /* the grid wrote columns and rows */
        }
        emit(&c, ")\n");
        if (fuzz_stream_next(&r) % 4 == 0)
            emit(&c, "fz.call(Physics.simulate, W, 1 / 60)\n");
    }
    c.text[c.len] = '\0';
    if (show)
        fprintf(stderr, "%s", c.text);

    ct_world_o *w = fuzz_worlds->create_world(&(ct_world_desc_t){.name = "fuzz_lua"});
    ct_world_o *dead = fuzz_worlds->create_world(&(ct_world_desc_t){.name = "fuzz_lua_dead"});
    fuzz_worlds->destroy_world(dead);
    ct_entity_t e[4];
    fuzz_entity->create_batch(e, 4);
    const ct_rigid_body_desc_t box = {.kind = CT_BODY_DYNAMIC,
                                      .shape = CT_BODY_BOX,
                                      .half_extents = {0.5f, 0.5f, 0.5f},
                                      .mass = 1,
                                      .position = {0, 1, 0}};
    const ct_rigid_body_desc_t floor = {.kind = CT_BODY_STATIC,
                                        .shape = CT_BODY_BOX,
                                        .half_extents = {10, 0.5f, 10},
                                        .position = {0, -0.5f, 0}};
    if (fuzz_physics->add_rigid_body(w, e[0], &box) ||
        fuzz_physics->add_rigid_body(w, e[1], &floor))
        abort();
    fuzz_entity->destroy(e[3]);
    lua_pushlightuserdata(L, w);
    lua_setglobal(L, "W");
    lua_pushlightuserdata(L, dead);
    lua_setglobal(L, "D");
    for (int k = 0; k < 4; k++) {
        char name[4] = {'E', (char)('1' + k), 0};
        lua_pushnumber(L, e[k].id);
        lua_setglobal(L, name);
    }
    lua_pushnil(L);
    lua_setglobal(L, "J");
    if (luaL_loadbuffer(L, c.text, c.len, "fuzz_lua_physics") || lua_pcall(L, 0, 0, 0)) {
        fprintf(stderr, "fuzz_lua_physics: the chunk itself failed: %s\n%s\n", lua_tostring(L, -1),
                c.text);
        abort(); /* every call is protected: only the generator can make this happen */
    }
    for (int step = 0; step < 3; step++)
        fuzz_physics->simulate(w, 1.0f / 60.0f);
    for (int k = 0; k < 3; k++) {
        float p[3];
        if (fuzz_physics->position(w, e[k], p) == 0 &&
            !(fabsf(p[0]) <= CT_PHYSICS_MAX_POSITION && fabsf(p[1]) <= CT_PHYSICS_MAX_POSITION &&
              fabsf(p[2]) <= CT_PHYSICS_MAX_POSITION))
            abort(); /* a body left the ranges */
    }
    (void)fuzz_physics->state_hash(w);
    fuzz_worlds->destroy_world(w);
    fuzz_entity->destroy_batch(e, 3);
    lua_gc(L, LUA_GCCOLLECT, 0);
    return 0;
}
