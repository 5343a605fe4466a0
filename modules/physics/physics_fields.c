/*
 * Force fields: the component "force_field", whose force on the bodies inside a sphere is an
 * expression (ct_expr.h) of where they are, how they move and the time: a tornado, an
 * explosion, a whirlwind written as data.
 *
 *   force_field = { radius = 6
 *                   force = "r = sqrt(x*x + z*z) + 0.5; fx = -z / r * 40; fy = 60 - 8 * y; fz = x / r * 40" }
 *
 * The expression sets fx fy fz (newtons) and reads x y z (the body relative to the field's
 * entity), vx vy vz (its velocity), d (its distance from the centre), t (the field's age in
 * seconds) and dt. Every step, before the bodies move, each field finds the bodies in its sphere
 * (overlap_sphere, at most 4096), gathers them into arrays, evaluates the force for all of them
 * in one batch (ct_expr_api_v1.eval_batch) and adds each force (add_force). Static bodies, and
 * forces that are not finite or past +-1e12 N (the first of these logged, once a field), are
 * skipped.
 *
 * The compiler checks the fields (radius in (0, 1e4], force a string of at most 479 bytes that
 * compiles: errors name the file, entity and field with the expression's line:column and a
 * caret); the checked source is compiled again when the field spawns, and a compiled field's
 * radius is checked again when its level or unit loads (an edited blob is refused). Without
 * ct.expr loaded the component still compiles nothing: fields are refused at compile and at spawn
 * (logged).
 * Fields live in this file's own per-world manager; a hot reload of physics keeps them (the
 * component registry keeps managers) and points the type at the new code.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ct_expr.h"
#include "physics_internal.h"

#include "ct_array.h"

#define FIELD_SOURCE_BYTES 480u
/* A field's largest radius (m), checked at compile and again at load. */
#define FIELD_MAX_RADIUS 1e4f
#define FIELD_MAX_BODIES 4096u

enum { IN_X, IN_Y, IN_Z, IN_VX, IN_VY, IN_VZ, IN_D, IN_T, IN_DT, NUM_INPUTS };
static const char *const input_names[NUM_INPUTS] = {"x",  "y", "z", "vx", "vy",
                                                    "vz", "d", "t", "dt"};
static const char *const output_names[3] = {"fx", "fy", "fz"};

typedef struct field_desc_t {
    float radius;
    char force[FIELD_SOURCE_BYTES];
} field_desc_t;

typedef struct field_t {
    ct_entity_t entity;
    float radius, age;
    /* 1 once a force past the ranges was skipped and logged (in what was the padding before
     * program: a hot reload keeps the managers, and every member before it where it was). */
    uint32_t told;
    ct_expr_program_o *program;
} field_t;

typedef struct fields_manager_t {
    ct_allocator_t *a;
    ct_world_o *world;
    field_t *fields;
    uint32_t n, cap;
} fields_manager_t;

static uint64_t fields_type_id;

static ct_expr_program_o *compile_force(const char *src, ct_expr_error_t *err)
{
    if (!physics__m.expr) {
        snprintf(err->text, sizeof err->text, "ct.expr is not loaded");
        return NULL;
    }
    return physics__m.expr->compile(src,
                                    &(ct_expr_desc_t){.inputs = input_names,
                                                      .num_inputs = NUM_INPUTS,
                                                      .outputs = output_names,
                                                      .num_outputs = 3},
                                    err);
}

static void *create_manager(void *user_data, ct_world_o *world, ct_allocator_t *a)
{
    (void)user_data;
    fields_manager_t *m = ct_alloc(a, sizeof *m);
    if (m)
        *m = (fields_manager_t){.a = a, .world = world};
    return m;
}

static void destroy_manager(void *user_data, void *manager)
{
    (void)user_data;
    fields_manager_t *m = manager;
    for (uint32_t i = 0; i < m->n; i++)
        physics__m.expr->destroy(m->fields[i].program);
    if (m->fields)
        ct_free(m->a, m->fields, m->cap * sizeof *m->fields);
    ct_free(m->a, m, sizeof *m);
}

static int compile_field(void *user_data, const ct_data_o *src, void *out, ct_compile_ctx_o *ctx)
{
    (void)user_data;
    static const ct_field_t known[] = {{"radius", CT_DATA_NUMBER, 0}, {"force", CT_DATA_STRING, 0}};
    const ct_resource_api_v6 *res = physics__m.resource;
    if (!res->check_fields(ctx, src, "force_field", known, 2))
        return CT_ERR_BAD_DATA;
    field_desc_t d;
    memset(&d, 0, sizeof d);
    const double radius = physics__m.data->number(physics__m.data->get(src, "radius"), 1.0);
    if (!(radius > 0 && radius <= FIELD_MAX_RADIUS)) {
        res->compile_error(ctx, "force_field.radius: %g is not in (0, 1e4]", radius);
        return CT_ERR_BAD_DATA;
    }
    d.radius = (float)radius;
    const char *force = physics__m.data->string(physics__m.data->get(src, "force"), NULL);
    if (!force || strlen(force) >= FIELD_SOURCE_BYTES) {
        res->compile_error(ctx, "force_field.force: an expression of at most %u bytes is required",
                           FIELD_SOURCE_BYTES - 1);
        return CT_ERR_BAD_DATA;
    }
    ct_expr_error_t err;
    ct_expr_program_o *p = compile_force(force, &err);
    if (!p) {
        res->compile_error(ctx, "force_field.force: %s", err.text);
        return CT_ERR_BAD_DATA;
    }
    physics__m.expr->destroy(p);
    memcpy(d.force, force, strlen(force));
    memcpy(out, &d, sizeof d);
    return 0;
}

static void spawn(void *manager, const ct_spawn_context_t *ctx, uint32_t n,
                  const uint32_t *entity_index, const void *data)
{
    fields_manager_t *m = manager;
    if (m->n + n > m->cap) {
        const uint32_t cap = ct_array_capacity(m->cap, m->n + n, 8);
        field_t *grown = !cap ? NULL
                              : m->a->realloc(m->a, m->fields, m->cap * sizeof *grown,
                                              cap * sizeof *grown, __FILE__, __LINE__);
        if (!grown) {
            physics__m.component->spawn_failed(ctx, CT_ERR_NOMEM);
            return;
        }
        m->fields = grown;
        m->cap = cap;
    }
    for (uint32_t k = 0; k < n; k++) {
        field_desc_t d;
        memcpy(&d, (const uint8_t *)data + (size_t)k * sizeof d, sizeof d);
        d.force[FIELD_SOURCE_BYTES - 1] = '\0';
        ct_expr_error_t err;
        ct_expr_program_o *p = compile_force(d.force, &err);
        if (!p) {
            PHYSICS_LOG(CT_LOG_ERROR, "force_field: entity %u: %s",
                        ctx->entity_lookup[entity_index[k]].id, err.text);
            continue;
        }
        m->fields[m->n++] = (field_t){ctx->entity_lookup[entity_index[k]], d.radius, 0.0f, 0, p};
    }
}

static void destroyed(void *manager, const ct_entity_t *entities, uint32_t n)
{
    fields_manager_t *m = manager;
    for (uint32_t i = 0; i < m->n;) {
        bool dead = false;
        for (uint32_t k = 0; k < n && !dead; k++)
            dead = m->fields[i].entity.id == entities[k].id;
        if (dead) {
            physics__m.expr->destroy(m->fields[i].program);
            m->fields[i] = m->fields[--m->n];
        } else {
            i++;
        }
    }
}

static const ct_component_type_t field_type = {
    .name = "force_field",
    .spawn_order = CT_SPAWN_ORDER_FORCE_FIELD,
    .create_manager = create_manager,
    .destroy_manager = destroy_manager,
    .instance_size = sizeof(field_desc_t),
    .compile = compile_field,
    .spawn = spawn,
    .destroyed = destroyed,
};

/* A compiled instance read back at load: the radius the compiler allows, a terminated source
 * (the expression is compiled again at spawn, which names what it refuses). */
static bool validate_field(void *user_data, const void *instance, char *why, size_t why_size)
{
    (void)user_data;
    field_desc_t d;
    memcpy(&d, instance, sizeof d);
    if (!(d.radius > 0.0f && d.radius <= FIELD_MAX_RADIUS)) {
        snprintf(why, why_size, "force_field.radius (%g is not in (0, 1e4])", (double)d.radius);
        return false;
    }
    if (!memchr(d.force, '\0', sizeof d.force)) {
        snprintf(why, why_size, "force_field.force (not an expression of at most %u bytes)",
                 FIELD_SOURCE_BYTES - 1);
        return false;
    }
    return true;
}

/* The layout of a compiled force field (see physics__register_components). */
#define FORCE_FIELD_FORMAT 1

int physics__fields_register(void)
{
    physics__m.resource->declare_format("component.force_field", FORCE_FIELD_FORMAT);
    fields_type_id = physics__m.component->register_type(&field_type);
    if (!fields_type_id)
        return CT_ERR_CONFLICT;
    physics__m.component->set_validate(fields_type_id, validate_field);
    return 0;
}

/* After a hot reload: the registered type (and its managers) runs this code from now on. */
bool physics__fields_rebind(void)
{
    fields_type_id = physics__m.component->type_id("force_field");
    if (!physics__m.component->replace_type(&field_type))
        return false;
    physics__m.component->set_validate(fields_type_id, validate_field);
    return true;
}

void physics__fields_unregister(void)
{
    if (fields_type_id)
        physics__m.component->unregister_type(fields_type_id);
    fields_type_id = 0;
}

/* The scratch of one field's batch: the inputs and the forces, per body. */
static struct {
    ct_entity_t bodies[FIELD_MAX_BODIES];
    float in[NUM_INPUTS][FIELD_MAX_BODIES];
    float force[3][FIELD_MAX_BODIES];
} scratch;

void physics__fields_apply(ct_world_o *w, physics__body_manager *bodies, float dt)
{
    fields_manager_t *m = fields_type_id ? physics__m.component->manager(w, fields_type_id) : NULL;
    if (!m || !physics__m.expr)
        return;
    for (uint32_t f = 0; f < m->n; f++) {
        field_t *field = &m->fields[f];
        float c[3];
        /* A field whose transform is not finite finds nothing, as before, and is not refused
         * (logged) at every step. */
        if (!physics__m.transform->world_position(w, field->entity, c) || !v3_finite(v3_load(c)))
            continue;
        uint32_t n =
            physics__api_v2.overlap_sphere(w, c, field->radius, scratch.bodies, FIELD_MAX_BODIES);
        n = n < FIELD_MAX_BODIES ? n : FIELD_MAX_BODIES;
        uint32_t k = 0;
        for (uint32_t i = 0; i < n; i++) {
            float p[3], v[3];
            const uint32_t b = physics__bodies_find(&bodies->scene.bodies, scratch.bodies[i]);
            if (b == UINT32_MAX || bodies->scene.bodies.kind[b] == CT_BODY_STATIC ||
                physics__api_v2.position(w, scratch.bodies[i], p) ||
                physics__api_v2.velocity(w, scratch.bodies[i], v))
                continue;
            scratch.bodies[k] = scratch.bodies[i];
            const float x = p[0] - c[0], y = p[1] - c[1], z = p[2] - c[2];
            scratch.in[IN_X][k] = x, scratch.in[IN_Y][k] = y, scratch.in[IN_Z][k] = z;
            scratch.in[IN_VX][k] = v[0], scratch.in[IN_VY][k] = v[1], scratch.in[IN_VZ][k] = v[2];
            scratch.in[IN_D][k] = sqrtf(x * x + y * y + z * z);
            scratch.in[IN_T][k] = field->age;
            scratch.in[IN_DT][k] = dt;
            k++;
        }
        if (k) {
            const float *in[NUM_INPUTS];
            for (uint32_t i = 0; i < NUM_INPUTS; i++)
                in[i] = scratch.in[i];
            physics__m.expr->eval_batch(
                field->program, in,
                (float *const[]){scratch.force[0], scratch.force[1], scratch.force[2]}, k);
            for (uint32_t i = 0; i < k; i++) {
                const float force[3] = {scratch.force[0][i], scratch.force[1][i],
                                        scratch.force[2][i]};
                if (v3_within(v3_load(force), CT_PHYSICS_MAX_FORCE))
                    physics__api_v2.add_force(w, scratch.bodies[i], force);
                else if (v3_finite(v3_load(force)) && !field->told) {
                    field->told = 1;
                    PHYSICS_LOG(CT_LOG_WARNING,
                                "force_field: world %p, entity %u: force (%g, %g, %g) on entity "
                                "%u skipped: past +-1e12 N (forces past it, or not finite, are "
                                "skipped; logged once a field)",
                                (void *)w, field->entity.id, (double)force[0], (double)force[1],
                                (double)force[2], scratch.bodies[i].id);
                }
            }
        }
        field->age += dt;
    }
}
