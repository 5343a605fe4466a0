/*
 * physics_body_shapes.c: the shapes of body sources written as objects (component "body",
 * format 5, laid out in physics_body_data.h): compiling them, checking compiled ones at load and
 * adding their bodies at spawn.
 *
 *   shape = { type = "mesh" mesh = "meshes/terrain" }                 (static only)
 *   shape = { type = "hull" points = [ [0 0 0] [1 0 0] [0 1 0] [0 0 1] ] }
 *   shape = { type = "compound" children = [
 *       { shape = { type = "box" half_extents = [0.8 0.05 0.5] } position = [0 0.75 0] }
 *       { shape = { type = "capsule" radius = 0.05 half_height = 0.3 } position = [0.7 0.35 0.4]
 *         rotation = [0 0 0 1] }
 *       { shape = { type = "hull" points = [ ... ] } } ] }
 *
 * A hull is 4 to 64 points in the body's frame; a compound 1 to PHYSICS_BODY_MAX_CHILDREN
 * children of the simple kinds (box with half_extents, sphere with radius, capsule with radius
 * and half_height: each 0.5 when left out) and hulls, each placed by position (default 0) and
 * rotation (x y z w of length 1, default none). A compound inside a compound is refused: its
 * children can be listed in the outer one, so nesting would only add a level of lookups to every
 * child test. As in C (add_hull_body, add_compound_body) the body's position is its centre of
 * mass: the entity sits where the shape's volume balances, and its transform follows that point.
 *
 * The compiler runs every check of add_hull_body and add_compound_body (degenerate, coplanar,
 * duplicate and non-finite points, sizes, rotations) and reports the source's own path
 * ("body.shape.children[2].shape.points (points 0 and 3 are duplicates ...)"). Loading runs them
 * again on the compiled bytes, so an edited blob is refused naming the field.
 */
#include "physics_body_data.h"
#include "physics_hull.h"
#include "physics_mesh_resource.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define RES (physics__m.resource)
#define DATA (physics__m.data)

/* ---- compiling ----------------------------------------------------------------------------- */

/* Reads `field` of src, an optional array of n numbers (check_fields made sure of the count and
 * that they are finite), into out. */
static void shapes__numbers(const ct_data_o *src, const char *field, float *out, int n)
{
    const ct_data_o *c = DATA->first_child(DATA->get(src, field));
    for (int k = 0; c && k < n; k++, c = DATA->next(c))
        out[k] = (float)DATA->number(c, 0.0);
}

static bool shapes__number(const ct_data_o *src, const char *field, float *out)
{
    const ct_data_o *v = DATA->get(src, field);
    if (v)
        *out = (float)DATA->number(v, 0.0);
    return true;
}

/* The points of a hull: an array of 4 to 64 [x y z] of finite numbers, written to xyz. */
static bool shapes__points(const ct_data_o *src, const char *what, float *xyz, uint32_t *count,
                           ct_compile_ctx_o *ctx)
{
    const ct_data_o *v = DATA->get(src, "points");
    const uint32_t n = v ? DATA->count(v) : 0;
    if (!v || n < 4 || n > CT_PHYSICS_MAX_HULL_POINTS) {
        RES->compile_error(ctx,
                           "%s.points: a hull needs 4 to %u points [x y z] that span a volume "
                           "(%u given)",
                           what, CT_PHYSICS_MAX_HULL_POINTS, n);
        return false;
    }
    uint32_t k = 0;
    for (const ct_data_o *p = DATA->first_child(v); p; p = DATA->next(p), k++) {
        bool ok = DATA->type(p) == CT_DATA_ARRAY && DATA->count(p) == 3;
        const ct_data_o *c = ok ? DATA->first_child(p) : NULL;
        for (int x = 0; ok && x < 3; x++, c = DATA->next(c)) {
            const double d = DATA->number(c, NAN);
            ok = DATA->type(c) == CT_DATA_NUMBER && isfinite(d) && isfinite((float)d);
            xyz[3 * k + (uint32_t)x] = (float)d;
        }
        if (!ok) {
            RES->compile_error(ctx, "%s.points[%u]: must be [x y z], three finite numbers", what,
                               k);
            return false;
        }
    }
    *count = n;
    return true;
}

/* Reports a refusal of the hull or compound checks under the source's path: "children[2].radius
 * (...)" of a compound is its children[2].shape.radius. */
static void shapes__report(ct_compile_ctx_o *ctx, const char *reason)
{
    const char *dot = strncmp(reason, "children[", 9) == 0 ? strstr(reason, "].") : NULL;
    if (dot && strncmp(dot + 2, "position", 8) != 0 && strncmp(dot + 2, "rotation", 8) != 0)
        RES->compile_error(ctx, "body.shape.%.*s.shape.%s", (int)(dot + 1 - reason), reason,
                           dot + 2);
    else
        RES->compile_error(ctx, "body.shape.%s", reason);
}

static const char *const child_types[] = {"box", "sphere", "capsule", "hull"};
static const uint32_t child_shapes[] = {CT_BODY_BOX, CT_BODY_SPHERE, CT_BODY_CAPSULE, CT_BODY_HULL};

/* One child of a compound: { shape = {...} position = [x y z] rotation = [x y z w] }. */
static bool shapes__child(const ct_data_o *src, uint32_t k, physics__body_child *c, float *xyz,
                          ct_compile_ctx_o *ctx)
{
    char what[64], shape_what[72];
    snprintf(what, sizeof what, "body.shape.children[%u]", k);
    snprintf(shape_what, sizeof shape_what, "%s.shape", what);
    static const ct_field_t fields[] = {{"shape", CT_DATA_OBJECT, 0},
                                        {"position", CT_DATA_ARRAY, 3},
                                        {"rotation", CT_DATA_ARRAY, 4}};
    if (DATA->type(src) != CT_DATA_OBJECT) {
        RES->compile_error(ctx,
                           "%s: must be { shape = {...} position = [x y z] rotation = "
                           "[x y z w] }",
                           what);
        return false;
    }
    if (!RES->check_fields(ctx, src, what, fields, 3))
        return false;
    const ct_data_o *shape = DATA->get(src, "shape");
    const char *type = shape ? DATA->string(DATA->get(shape, "type"), NULL) : NULL;
    uint32_t t = 0;
    while (type && t < 4 && strcmp(type, child_types[t]) != 0)
        t++;
    if (!type || t == 4) {
        const char *near = type ? RES->nearest_name(type, child_types, 4) : NULL;
        RES->compile_error(ctx,
                           "%s.type: a compound's child is a \"box\", \"sphere\", \"capsule\" or "
                           "\"hull\"%s%s%s%s",
                           shape_what,
                           type && strcmp(type, "compound") == 0
                               ? " (no compound in a compound: list its children here)"
                               : "",
                           near ? "; did you mean \"" : "", near ? near : "", near ? "\"?" : "");
        return false;
    }
    static const ct_field_t box[] = {{"type", CT_DATA_STRING, 0},
                                     {"half_extents", CT_DATA_ARRAY, 3}};
    static const ct_field_t sphere[] = {{"type", CT_DATA_STRING, 0}, {"radius", CT_DATA_NUMBER, 0}};
    static const ct_field_t capsule[] = {{"type", CT_DATA_STRING, 0},
                                         {"radius", CT_DATA_NUMBER, 0},
                                         {"half_height", CT_DATA_NUMBER, 0}};
    static const ct_field_t hull[] = {{"type", CT_DATA_STRING, 0}, {"points", CT_DATA_ARRAY, 0}};
    static const ct_field_t *const kinds[] = {box, sphere, capsule, hull};
    static const uint32_t num_fields[] = {2, 2, 3, 2};
    if (!RES->check_fields(ctx, shape, shape_what, kinds[t], num_fields[t]))
        return false;
    memset(c, 0, sizeof *c);
    c->shape = child_shapes[t];
    c->half_extents[0] = c->half_extents[1] = c->half_extents[2] = 0.5f;
    c->radius = c->half_height = 0.5f;
    c->rotation[3] = 1.0f;
    shapes__numbers(shape, "half_extents", c->half_extents, 3);
    shapes__number(shape, "radius", &c->radius);
    shapes__number(shape, "half_height", &c->half_height);
    shapes__numbers(src, "position", c->position, 3);
    shapes__numbers(src, "rotation", c->rotation, 4);
    if (c->shape != CT_BODY_HULL)
        return true;
    return shapes__points(shape, shape_what, xyz, &c->point_count, ctx);
}

/* Children as ct_compound_child_t (points pointing into xyz), for the checks and for spawning. */
static void shapes__children(const physics__body_child *in, uint32_t count, const float *xyz,
                             ct_compound_child_t *out)
{
    for (uint32_t k = 0; k < count; k++) {
        const physics__body_child *c = &in[k];
        out[k] = (ct_compound_child_t){.shape = c->shape,
                                       .radius = c->radius,
                                       .half_height = c->half_height,
                                       .points = c->shape == CT_BODY_HULL ? xyz : NULL,
                                       .point_count = c->point_count};
        memcpy(out[k].half_extents, c->half_extents, sizeof c->half_extents);
        memcpy(out[k].position, c->position, sizeof c->position);
        memcpy(out[k].rotation, c->rotation, sizeof c->rotation);
        xyz += 3u * c->point_count;
    }
}

static bool shapes__compile_mesh(const ct_data_o *shape, physics__body_head *head, uint8_t *tail,
                                 ct_compile_ctx_o *ctx)
{
    static const ct_field_t fields[] = {{"type", CT_DATA_STRING, 0}, {"mesh", CT_DATA_STRING, 0}};
    if (!RES->check_fields(ctx, shape, "body.shape", fields, 2))
        return false;
    const char *name = DATA->string(DATA->get(shape, "mesh"), NULL);
    if (!name || !name[0]) {
        RES->compile_error(ctx,
                           "body.shape.mesh: the name of a collision_mesh resource is required");
        return false;
    }
    const size_t len = strlen(name);
    if (len >= PHYSICS_MESH_NAME_SIZE) {
        RES->compile_error(ctx, "body.shape.mesh: '%s' is longer than %u bytes", name,
                           PHYSICS_MESH_NAME_SIZE - 1u);
        return false;
    }
    /* Noted in the reference index, so a rename is followed and a missing one is an error
     * naming the nearest. */
    if (!RES->reference(ctx, "body.shape.mesh", PHYSICS_MESH_RESOURCE_TYPE, name))
        return false;
    memcpy(tail, name, len + 1);
    head->desc.shape = CT_BODY_MESH;
    head->count = (uint32_t)len + 1u;
    return true;
}

static bool shapes__compile_hull(const ct_data_o *shape, physics__body_head *head, uint8_t *tail,
                                 ct_compile_ctx_o *ctx)
{
    static const ct_field_t fields[] = {{"type", CT_DATA_STRING, 0}, {"points", CT_DATA_ARRAY, 0}};
    float xyz[3 * CT_PHYSICS_MAX_HULL_POINTS];
    uint32_t n;
    if (!RES->check_fields(ctx, shape, "body.shape", fields, 2) ||
        !shapes__points(shape, "body.shape", xyz, &n, ctx))
        return false;
    physics__hull h;
    char why[128];
    const char *bad = physics__hull_build(&h, xyz, n, why, sizeof why);
    if (bad) {
        shapes__report(ctx, bad);
        return false;
    }
    memcpy(tail, xyz, 12u * n);
    head->desc.shape = CT_BODY_HULL;
    head->count = n;
    return true;
}

static bool shapes__compile_compound(const ct_data_o *shape, physics__body_head *head,
                                     uint8_t *tail, ct_compile_ctx_o *ctx)
{
    static const ct_field_t fields[] = {{"type", CT_DATA_STRING, 0},
                                        {"children", CT_DATA_ARRAY, 0}};
    if (!RES->check_fields(ctx, shape, "body.shape", fields, 2))
        return false;
    const ct_data_o *list = DATA->get(shape, "children");
    const uint32_t n = list ? DATA->count(list) : 0;
    if (n < 1 || n > PHYSICS_BODY_MAX_CHILDREN) {
        RES->compile_error(ctx, "body.shape.children: a compound has 1 to %u children (%u given)",
                           PHYSICS_BODY_MAX_CHILDREN, n);
        return false;
    }
    physics__body_child child[PHYSICS_BODY_MAX_CHILDREN];
    float xyz[3 * PHYSICS_BODY_MAX_CHILDREN * CT_PHYSICS_MAX_HULL_POINTS]; /* 12 kB */
    uint32_t k = 0, points = 0;
    for (const ct_data_o *c = DATA->first_child(list); c; c = DATA->next(c), k++) {
        if (!shapes__child(c, k, &child[k], xyz + 3u * points, ctx))
            return false;
        points += child[k].point_count;
    }
    ct_compound_child_t built[PHYSICS_BODY_MAX_CHILDREN];
    shapes__children(child, n, xyz, built);
    char why[160];
    const char *bad = physics__compound_children_error(built, n, why, sizeof why);
    if (bad) {
        shapes__report(ctx, bad);
        return false;
    }
    memcpy(tail, child, n * sizeof *child);
    memcpy(tail + n * sizeof *child, xyz, 12u * points);
    head->desc.shape = CT_BODY_COMPOUND;
    head->count = n;
    head->points = points;
    return true;
}

/* The bytes after the head that a shape of this count and points takes. */
static uint64_t shapes__tail_size(uint32_t shape, uint32_t count, uint32_t points)
{
    switch (shape) {
    case CT_BODY_MESH: return count;
    case CT_BODY_HULL: return 12ull * count;
    case CT_BODY_COMPOUND: return (uint64_t)count * sizeof(physics__body_child) + 12ull * points;
    default: return 0;
    }
}

bool physics__body_shape_compile(const ct_data_o *shape, physics__body_head *head, uint8_t *tail,
                                 ct_compile_ctx_o *ctx)
{
    static const char *const types[] = {"mesh", "hull", "compound"};
    const char *type = DATA->string(DATA->get(shape, "type"), NULL);
    bool ok;
    if (type && strcmp(type, "mesh") == 0) {
        ok = shapes__compile_mesh(shape, head, tail, ctx);
    } else if (type && strcmp(type, "hull") == 0) {
        ok = shapes__compile_hull(shape, head, tail, ctx);
    } else if (type && strcmp(type, "compound") == 0) {
        ok = shapes__compile_compound(shape, head, tail, ctx);
    } else {
        const bool simple = type && (strcmp(type, "box") == 0 || strcmp(type, "sphere") == 0 ||
                                     strcmp(type, "capsule") == 0);
        const char *near = type && !simple ? RES->nearest_name(type, types, 3) : NULL;
        RES->compile_error(ctx,
                           "body.shape.type: must be \"mesh\", \"hull\" or \"compound\"%s%s%s%s",
                           simple ? " (a box, sphere or capsule is a string: shape = \"box\", "
                                    "with its sizes on the body)"
                                  : "",
                           near ? "; did you mean \"" : "", near ? near : "", near ? "\"?" : "");
        return false;
    }
    if (ok)
        head->size = (uint32_t)(sizeof *head +
                                shapes__tail_size(head->desc.shape, head->count, head->points));
    return ok;
}

/* ---- checking compiled instances ----------------------------------------------------------- */

const char *physics__body_shape_error(const physics__body_head *head, const uint8_t *tail,
                                      char *why, size_t why_size)
{
    const uint32_t shape = head->desc.shape;
    const bool variable =
        shape == CT_BODY_MESH || shape == CT_BODY_HULL || shape == CT_BODY_COMPOUND;
    if (!variable && (head->count || head->points))
        return "shape (count and points on a box, sphere or capsule)";
    if (shape != CT_BODY_COMPOUND && head->points)
        return "shape.points (a count of compound points on another shape)";
    if (shape == CT_BODY_MESH && (head->count < 2 || head->count > PHYSICS_MESH_NAME_SIZE))
        return "shape.mesh (a name of 1 to 63 bytes)";
    if (shape == CT_BODY_HULL && (head->count < 4 || head->count > CT_PHYSICS_MAX_HULL_POINTS))
        return "shape.points (a hull has 4 to 64)";
    if (shape == CT_BODY_COMPOUND &&
        (head->count < 1 || head->count > PHYSICS_BODY_MAX_CHILDREN ||
         head->points > PHYSICS_BODY_MAX_CHILDREN * CT_PHYSICS_MAX_HULL_POINTS))
        return "shape.children (a compound has 1 to 16)";
    if ((uint64_t)head->size != sizeof *head + shapes__tail_size(shape, head->count, head->points))
        return "size (not what the shape's count and points take)";
    if (shape == CT_BODY_MESH) {
        char name[PHYSICS_MESH_NAME_SIZE], name_why[96];
        memcpy(name, tail, head->count);
        if (name[head->count - 1] != '\0' || strlen(name) != head->count - 1 ||
            RES->check_name(name, name_why, sizeof name_why))
            return "shape.mesh (not a resource name)";
    } else if (shape == CT_BODY_HULL) {
        float xyz[3 * CT_PHYSICS_MAX_HULL_POINTS];
        memcpy(xyz, tail, 12u * head->count);
        physics__hull h;
        char reason[128];
        const char *bad = physics__hull_build(&h, xyz, head->count, reason, sizeof reason);
        if (bad) {
            snprintf(why, why_size, "shape.%s", bad);
            return why;
        }
    } else if (shape == CT_BODY_COMPOUND) {
        physics__body_child child[PHYSICS_BODY_MAX_CHILDREN];
        memcpy(child, tail, head->count * sizeof *child);
        uint32_t points = 0;
        for (uint32_t k = 0; k < head->count; k++) {
            const bool hull = child[k].shape == CT_BODY_HULL;
            if (child[k].point_count > (hull ? CT_PHYSICS_MAX_HULL_POINTS : 0u))
                return "shape.children (a point count on a child that is no hull, or over 64)";
            points += child[k].point_count;
        }
        if (points != head->points)
            return "shape.points (the children's point counts do not add up)";
        float xyz[3 * PHYSICS_BODY_MAX_CHILDREN * CT_PHYSICS_MAX_HULL_POINTS]; /* 12 kB */
        memcpy(xyz, tail + head->count * sizeof *child, 12u * points);
        ct_compound_child_t built[PHYSICS_BODY_MAX_CHILDREN];
        shapes__children(child, head->count, xyz, built);
        char reason[160];
        const char *bad =
            physics__compound_children_error(built, head->count, reason, sizeof reason);
        if (bad) {
            snprintf(why, why_size, "shape.%s", bad);
            return why;
        }
    }
    return NULL;
}

/* ---- spawning ------------------------------------------------------------------------------ */

/* A mesh body: its collision mesh loaded for the time add_mesh_body takes to copy it (each body
 * builds its own tree). */
static int shapes__spawn_mesh(ct_world_o *w, ct_entity_t e, const ct_rigid_body_desc_t *d,
                              const char *name)
{
    if (RES->load(PHYSICS_MESH_RESOURCE_TYPE, name)) {
        PHYSICS_LOG(CT_LOG_ERROR,
                    "spawn body: world %p, entity %u: body.shape.mesh: collision mesh '%s' does "
                    "not load",
                    (void *)w, e.id, name);
        return CT_ERR_NOT_FOUND;
    }
    const physics__mesh_res *r = RES->get(PHYSICS_MESH_RESOURCE_TYPE, name);
    /* add_mesh_body logs what it refuses, naming the world and the entity. */
    const int err = r ? physics__api_v5.add_mesh_body(w, e, d, r->vertices, r->num_vertices,
                                                      r->indices, r->num_triangles)
                      : CT_ERR_NOT_FOUND;
    RES->unload(PHYSICS_MESH_RESOURCE_TYPE, name);
    return err;
}

int physics__body_shape_spawn(ct_world_o *world, ct_entity_t e, const ct_rigid_body_desc_t *desc,
                              const physics__body_head *head, const uint8_t *tail)
{
    /* Read with memcpy like every field of an instance: a blob promises only where each
     * instance starts (8-aligned), not the alignment of what is inside. */
    float xyz[3 * PHYSICS_BODY_MAX_CHILDREN * CT_PHYSICS_MAX_HULL_POINTS]; /* 12 kB */
    switch (desc->shape) {
    case CT_BODY_MESH: {
        char name[PHYSICS_MESH_NAME_SIZE];
        memcpy(name, tail, head->count);
        return shapes__spawn_mesh(world, e, desc, name);
    }
    case CT_BODY_HULL:
        memcpy(xyz, tail, 12u * head->count);
        return physics__api_v5.add_hull_body(world, e, desc, xyz, head->count);
    case CT_BODY_COMPOUND: {
        physics__body_child child[PHYSICS_BODY_MAX_CHILDREN];
        ct_compound_child_t built[PHYSICS_BODY_MAX_CHILDREN];
        memcpy(child, tail, head->count * sizeof *child);
        memcpy(xyz, tail + head->count * sizeof *child, 12u * head->points);
        shapes__children(child, head->count, xyz, built);
        return physics__api_v5.add_compound_body(world, e, desc, built, head->count);
    }
    default: return CT_ERR_INVALID;
    }
}
