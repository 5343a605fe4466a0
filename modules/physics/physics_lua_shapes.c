/* physics_lua_shapes.c: the v5 shapes in Lua (module Physics; documented in api/ct_physics.h and
 * docs/lua/physics.lua):
 *
 *   Physics.add_hull(world, e, points, desc)             points {x1, y1, z1, x2, ...}
 *   Physics.add_compound(world, e, children, desc)       children { {shape = "box", half_extents =
 *       {x, y, z}, radius, half_height, points = {...}, position = {x, y, z}, rotation = {x, y, z,
 *       w}}, ... }
 *   Physics.add_mesh(world, e, vertices, indices, desc)  indices 1-based, three a triangle
 *   Physics.add_height_field(world, e, heights, columns, rows, cell_x, cell_z, desc)
 *   Actor.shape(world, e) -> "box" | "sphere" | "capsule" | "hull" | "compound" | "mesh"
 *
 * desc (optional) = {kind = "dynamic" | "static" | "kinematic", mass = 1, friction = 0.5,
 * restitution = 0, position = {x, y, z}, rotation = {x, y, z, w}}; meshes and height fields are
 * static whatever it says. The arrays are read into scratch from the plugin allocator, checked
 * (each must be numbers), and freed before any error is raised. */
#include "physics_internal.h"

#include "../common/lua_checks.h"

#include <stdlib.h>
#include <string.h>

#define L_API (physics__m.lua)

/* Scratch arrays of one call, freed together. */
typedef struct shapes__scratch {
    void *block[2 + CT_PHYSICS_MAX_COMPOUND_CHILDREN];
    size_t size[2 + CT_PHYSICS_MAX_COMPOUND_CHILDREN];
    uint32_t n;
    char why[128]; /* what shapes__array found wrong, with the values */
} shapes__scratch;

static void shapes__free(shapes__scratch *s)
{
    for (uint32_t k = 0; k < s->n; k++)
        ct_free(physics__m.allocator, s->block[k], s->size[k]);
    s->n = 0;
}

/* The table at idx (an absolute index) of numbers, at most max of them, into scratch. NULL (and
 * *why set) when it is no table, too long, holds something else, or memory ran out. */
static void *shapes__array(lua_State *L, int idx, bool whole, uint32_t max, uint32_t *count,
                           shapes__scratch *s, const char **why)
{
    if (L_API->type(L, idx) != CT_LUA_TABLE) {
        *why = "is not a table of numbers";
        return NULL;
    }
    const size_t n = L_API->length(L, idx);
    if (n > max) {
        snprintf(s->why, sizeof s->why, "has %zu numbers (at most %u)", n, max);
        *why = s->why;
        return NULL;
    }
    if (s->n == sizeof s->block / sizeof s->block[0]) {
        *why = "is one table too many";
        return NULL;
    }
    const size_t bytes = (n ? n : 1) * (whole ? sizeof(uint32_t) : sizeof(float));
    void *p = ct_alloc(physics__m.allocator, bytes);
    if (!p) {
        *why = "is too large (out of memory)";
        return NULL;
    }
    s->block[s->n] = p, s->size[s->n++] = bytes;
    for (size_t k = 0; k < n; k++) {
        const ct_lua_type t = L_API->get_index(L, idx, (int)k + 1);
        const double v = L_API->to_number(L, -1);
        if (t != CT_LUA_NUMBER || !(fabs(v) <= FLT_MAX) ||
            (whole && !(v >= 1.0 && v <= (double)UINT32_MAX && v == floor(v)))) {
            char got[32];
            snprintf(s->why, sizeof s->why, "holds something that is not %s: [%zu] is %s",
                     whole ? "a vertex number (1, 2, ...)" : "a finite number", k + 1,
                     check__got(L_API, L, -1, got, sizeof got));
            L_API->set_top(L, -2);
            *why = s->why;
            return NULL;
        }
        L_API->set_top(L, -2);
        if (whole)
            ((uint32_t *)p)[k] = (uint32_t)v - 1u; /* 1-based in Lua */
        else
            ((float *)p)[k] = (float)v;
    }
    *count = (uint32_t)n;
    return p;
}

/* The optional number field key of the table at idx into out. False when it is not a finite
 * number, with what it was in got[32]. */
static bool shapes__number(lua_State *L, int idx, const char *key, float *out, char *got)
{
    const ct_lua_type t = L_API->get_field(L, idx, key);
    const double v = L_API->to_number(L, -1);
    const bool ok = t <= CT_LUA_NIL || (t == CT_LUA_NUMBER && fabs(v) <= FLT_MAX);
    if (!ok) {
        char buf[32];
        snprintf(got, 32, "%s", check__got(L_API, L, -1, buf, sizeof buf));
    }
    L_API->set_top(L, -2);
    if (ok && t == CT_LUA_NUMBER)
        *out = (float)v;
    return ok;
}

/* The optional field key of the table at idx: n numbers into out. */
static bool shapes__vec(lua_State *L, int idx, const char *key, float *out, int n)
{
    const ct_lua_type t = L_API->get_field(L, idx, key);
    if (t <= CT_LUA_NIL) {
        L_API->set_top(L, -2);
        return true;
    }
    bool ok = t == CT_LUA_TABLE;
    for (int k = 0; ok && k < n; k++) {
        ok = L_API->get_index(L, -1, k + 1) == CT_LUA_NUMBER;
        out[k] = (float)L_API->to_number(L, -1);
        L_API->set_top(L, -2);
    }
    L_API->set_top(L, -2);
    return ok;
}

/* The desc at idx (absent: the defaults); NULL, or the field that is wrong and what it was (in
 * why[128]). */
static const char *shapes__desc(lua_State *L, int idx, uint32_t shape, ct_rigid_body_desc_t *d,
                                char *why)
{
    *d = (ct_rigid_body_desc_t){
        .kind = CT_BODY_DYNAMIC, .shape = shape, .mass = 1, .friction = 0.5f};
    const ct_lua_type t = L_API->type(L, idx);
    if (t <= CT_LUA_NIL)
        return NULL;
    if (t != CT_LUA_TABLE)
        return "desc (not a table of fields)";
    const ct_lua_type kt = L_API->get_field(L, idx, "kind");
    if (kt > CT_LUA_NIL) {
        /* Only a string is a name (a number would be turned into one on the stack). */
        const char *k = kt == CT_LUA_STRING ? L_API->to_string(L, -1, NULL) : NULL;
        d->kind = k && !strcmp(k, "static")      ? CT_BODY_STATIC
                  : k && !strcmp(k, "kinematic") ? CT_BODY_KINEMATIC
                  : k && !strcmp(k, "dynamic")   ? CT_BODY_DYNAMIC
                                                 : UINT32_MAX;
        if (d->kind == UINT32_MAX) {
            char got[32];
            snprintf(why, 128, "kind is %s%.40s%s, not \"dynamic\", \"static\" or \"kinematic\"",
                     k ? "\"" : "", k ? k : check__got(L_API, L, -1, got, sizeof got),
                     k ? "\"" : "");
        }
    }
    L_API->set_top(L, -2);
    if (d->kind == UINT32_MAX)
        return why;
    static const char *const numbers[] = {"mass", "friction", "restitution"};
    float *const into[] = {&d->mass, &d->friction, &d->restitution};
    for (int k = 0; k < 3; k++) {
        char got[32];
        if (!shapes__number(L, idx, numbers[k], into[k], got)) {
            snprintf(why, 128, "%s is %s, not a finite number", numbers[k], got);
            return why;
        }
    }
    if (!shapes__vec(L, idx, "position", d->position, 3))
        return "position (not {x, y, z})";
    if (!shapes__vec(L, idx, "rotation", d->rotation, 4))
        return "rotation (not {x, y, z, w})";
    return NULL;
}

/* Raises the error of a call's result (after the scratch is freed). */
static int shapes__result(lua_State *L, int err, const char *fn, ct_world_o *w, ct_entity_t e)
{
    if (err == CT_ERR_CONFLICT)
        return L_API->error(L, "%s: world %p, entity %u has a body already", fn, (void *)w, e.id);
    if (err == CT_ERR_INVALID)
        return L_API->error(L, "%s: world %p, entity %u: %s", fn, (void *)w, e.id,
                            physics__refusal);
    if (err)
        return L_API->error(L, "%s: world %p, entity %u: %s", fn, (void *)w, e.id,
                            physics__m.log->error_message(err));
    return 0;
}

static int shapes__bad(lua_State *L, shapes__scratch *s, const char *fn, int arg, const char *why)
{
    shapes__free(s);
    return L_API->error(L, "%s: argument %d %s", fn, arg, why);
}

static int l_physics_add_hull(lua_State *L)
{
    const char *fn = "Physics.add_hull";
    ct_world_o *w = physics__lua_world(L, fn);
    const ct_entity_t e = check__entity(L_API, L, 2, fn);
    ct_rigid_body_desc_t d;
    char why_desc[128];
    const char *bad = shapes__desc(L, 4, CT_BODY_HULL, &d, why_desc);
    if (bad)
        return L_API->error(L, "%s: argument 4: %s", fn, bad);
    shapes__scratch s = {0};
    uint32_t n = 0;
    const char *why = NULL;
    const float *points = shapes__array(L, 3, false, 3u * CT_PHYSICS_MAX_HULL_POINTS, &n, &s, &why);
    if (!points)
        return shapes__bad(L, &s, fn, 3, why);
    if (n % 3u)
        return shapes__bad(L, &s, fn, 3, "does not hold x y z triples");
    const int err = physics__api_v5.add_hull_body(w, e, &d, points, n / 3u);
    shapes__free(&s);
    return shapes__result(L, err, fn, w, e);
}

static int l_physics_add_compound(lua_State *L)
{
    static const char *const shapes[] = {"box", "sphere", "capsule", "hull"};
    const char *fn = "Physics.add_compound";
    ct_world_o *w = physics__lua_world(L, fn);
    const ct_entity_t e = check__entity(L_API, L, 2, fn);
    ct_rigid_body_desc_t d;
    char why_desc[128];
    const char *bad = shapes__desc(L, 4, CT_BODY_COMPOUND, &d, why_desc);
    if (bad)
        return L_API->error(L, "%s: argument 4: %s", fn, bad);
    if (L_API->type(L, 3) != CT_LUA_TABLE)
        return check__fail(L_API, L, 3, fn, "is not a table of children");
    const size_t count = L_API->length(L, 3);
    if (count == 0 || count > CT_PHYSICS_MAX_COMPOUND_CHILDREN)
        return L_API->error(L, "%s: argument 3 has %u children (1 to 64)", fn, (unsigned)count);
    /* Every field is read before any scratch is taken: reading one may run the script's __index,
     * which may raise (a strict table), and a raise past scratch would leak it. The hull children's
     * points tables wait in a table of their own, read afterwards through raw access only. */
    L_API->new_table(L, (int)count, 0);
    const int held = L_API->get_top(L);
    ct_compound_child_t children[CT_PHYSICS_MAX_COMPOUND_CHILDREN];
    for (size_t k = 0; k < count; k++) {
        ct_compound_child_t *c = &children[k];
        *c = (ct_compound_child_t){0};
        if (L_API->get_index(L, 3, (int)k + 1) != CT_LUA_TABLE)
            return L_API->error(L, "%s: argument 3 child %u is not a table of fields", fn,
                                (unsigned)k + 1);
        const int at = L_API->get_top(L);
        L_API->get_field(L, at, "shape");
        const char *name = L_API->to_string(L, -1, NULL);
        c->shape = UINT32_MAX;
        for (uint32_t x = 0; name && x < 4; x++)
            if (!strcmp(name, shapes[x]))
                c->shape = x;
        L_API->set_top(L, at);
        char got[32] = "";
        const char *wrong =
            c->shape == UINT32_MAX ? "shape (box, sphere, capsule or hull)"
            : !shapes__vec(L, at, "half_extents", c->half_extents, 3)
                ? "half_extents (not {x, y, z})"
            : !shapes__number(L, at, "radius", &c->radius, got) ? "radius is not a finite number"
            : !shapes__number(L, at, "half_height", &c->half_height, got)
                ? "half_height is not a finite number"
            : !shapes__vec(L, at, "position", c->position, 3) ? "position (not {x, y, z})"
            : !shapes__vec(L, at, "rotation", c->rotation, 4) ? "rotation (not {x, y, z, w})"
                                                              : NULL;
        if (!wrong && c->shape == CT_BODY_HULL) {
            L_API->get_field(L, at, "points");
            L_API->set_index(L, held, (int)k + 1);
        }
        L_API->set_top(L, at - 1);
        if (wrong)
            return L_API->error(L, "%s: argument 3 child %u: %s%s%s%s", fn, (unsigned)k + 1, wrong,
                                got[0] ? " (got " : "", got, got[0] ? ")" : "");
    }
    shapes__scratch s = {0};
    for (size_t k = 0; k < count; k++) {
        ct_compound_child_t *c = &children[k];
        if (c->shape != CT_BODY_HULL)
            continue;
        L_API->get_index(L, held, (int)k + 1);
        const char *why = NULL;
        uint32_t n = 0;
        c->points = shapes__array(L, L_API->get_top(L), false, 3u * CT_PHYSICS_MAX_HULL_POINTS, &n,
                                  &s, &why);
        c->point_count = n / 3u;
        L_API->set_top(L, held);
        const char *wrong = !c->points ? "points (a table of x y z triples)"
                            : n % 3u   ? "points (not triples)"
                                       : NULL;
        if (wrong) {
            char what[96];
            snprintf(what, sizeof what, "child %u: %s", (unsigned)k + 1, wrong);
            return shapes__bad(L, &s, fn, 3, what);
        }
    }
    const int err = physics__api_v5.add_compound_body(w, e, &d, children, (uint32_t)count);
    shapes__free(&s);
    return shapes__result(L, err, fn, w, e);
}

static int l_physics_add_mesh(lua_State *L)
{
    const char *fn = "Physics.add_mesh";
    ct_world_o *w = physics__lua_world(L, fn);
    const ct_entity_t e = check__entity(L_API, L, 2, fn);
    ct_rigid_body_desc_t d;
    char why_desc[128];
    const char *bad = shapes__desc(L, 5, CT_BODY_MESH, &d, why_desc);
    if (bad)
        return L_API->error(L, "%s: argument 5: %s", fn, bad);
    d.kind = CT_BODY_STATIC;
    shapes__scratch s = {0};
    uint32_t nv = 0, ni = 0;
    const char *why = NULL;
    const float *v = shapes__array(L, 3, false, 9u * CT_PHYSICS_MAX_MESH_TRIANGLES, &nv, &s, &why);
    if (!v)
        return shapes__bad(L, &s, fn, 3, why);
    const uint32_t *ix =
        shapes__array(L, 4, true, 3u * CT_PHYSICS_MAX_MESH_TRIANGLES, &ni, &s, &why);
    if (!ix)
        return shapes__bad(L, &s, fn, 4, why);
    if (nv % 3u || ni % 3u)
        return shapes__bad(L, &s, fn, nv % 3u ? 3 : 4, "does not hold triples");
    const int err = physics__api_v5.add_mesh_body(w, e, &d, v, nv / 3u, ix, ni / 3u);
    shapes__free(&s);
    return shapes__result(L, err, fn, w, e);
}

static int l_physics_add_height_field(lua_State *L)
{
    const char *fn = "Physics.add_height_field";
    ct_world_o *w = physics__lua_world(L, fn);
    const ct_entity_t e = check__entity(L_API, L, 2, fn);
    const double columns = check__range(L_API, L, 4, fn, 2.0, 65536.0),
                 rows = check__range(L_API, L, 5, fn, 2.0, 65536.0);
    const float cell_x = check__finite(L_API, L, 6, fn), cell_z = check__finite(L_API, L, 7, fn);
    ct_rigid_body_desc_t d;
    char why_desc[128];
    const char *bad = shapes__desc(L, 8, CT_BODY_MESH, &d, why_desc);
    if (bad)
        return L_API->error(L, "%s: argument 8: %s", fn, bad);
    if (columns != floor(columns) || rows != floor(rows))
        return L_API->error(L, "%s: columns and rows are whole numbers", fn);
    d.kind = CT_BODY_STATIC;
    shapes__scratch s = {0};
    uint32_t n = 0;
    const char *why = NULL;
    const float *h = shapes__array(L, 3, false, 3u * CT_PHYSICS_MAX_MESH_TRIANGLES, &n, &s, &why);
    if (!h)
        return shapes__bad(L, &s, fn, 3, why);
    if ((double)n != columns * rows)
        return shapes__bad(L, &s, fn, 3, "does not hold columns x rows heights");
    const int err = physics__api_v5.add_height_field_body(w, e, &d, h, (uint32_t)columns,
                                                          (uint32_t)rows, cell_x, cell_z);
    shapes__free(&s);
    return shapes__result(L, err, fn, w, e);
}

/* Actor.shape(world, e) -> "box" | "sphere" | "capsule" | "hull" | "compound" | "mesh": the kind
 * of e's body, however it was made (C, Lua, a level or a unit); an entity without a body raises. */
static int l_actor_shape(lua_State *L)
{
    static const char *const names[] = {"box", "sphere", "capsule", "hull", "compound", "mesh"};
    const char *fn = "Actor.shape";
    ct_world_o *w = physics__lua_world(L, fn);
    const ct_entity_t e = check__entity(L_API, L, 2, fn);
    const physics__body_manager *m =
        physics__m.component->manager(w, physics__m.state->type_id[PHYSICS_BODY_TYPE]);
    const uint32_t i = m ? physics__bodies_find(&m->scene.bodies, e) : UINT32_MAX;
    if (i == UINT32_MAX)
        return L_API->error(L, "%s: entity %u has no body in this world", fn, e.id);
    const uint32_t shape = m->scene.bodies.shape[i];
    const char *name = shape < sizeof names / sizeof names[0] ? names[shape] : "?";
    L_API->push_string(L, name, strlen(name));
    return 1;
}

void physics__register_lua_shapes(void)
{
    L_API->add_module_function("Actor", "shape", l_actor_shape);
    L_API->add_module_function("Physics", "add_hull", l_physics_add_hull);
    L_API->add_module_function("Physics", "add_compound", l_physics_add_compound);
    L_API->add_module_function("Physics", "add_mesh", l_physics_add_mesh);
    L_API->add_module_function("Physics", "add_height_field", l_physics_add_height_field);
}
