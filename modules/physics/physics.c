/*
 * ct_physics.so: the plugin entry, the ct.physics v1-v5 tables, and the sync between bodies and
 * transforms (the rules are in api/ct_physics.h). The component types are in
 * physics_component.c.
 */
#include "physics_hull.h"
#include "physics_mesh_resource.h"

#include "ct_expr.h"
#include "ct_profiler.h"
#undef CT_PROFILER /* ct_profiler.h names its default table; this module keeps its own */
#define CT_PROFILER (physics__m.profiler)

#include "ct_memory.h"
#include "ct_module.h"
#include "ct_plugin.h"
#include "physics_layout.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

physics__module physics__m;

/* A call on w, which has no physics (or is no world: destroyed, say, by the script whose
 * table's __index a Lua binding read after checking it): logged, and kept as the refusal the Lua
 * error gives, where it would otherwise give the reason of an earlier call. */
static void no_physics(ct_world_o *w, const char *what)
{
    snprintf(physics__refusal, sizeof physics__refusal, "%p is not a world with physics",
             (void *)w);
    PHYSICS_LOG(CT_LOG_WARNING, "%s: %s", what, physics__refusal);
}

static physics__points *points_of(ct_world_o *w, const char *what)
{
    physics__point_manager *m =
        w ? physics__m.component->manager(w, physics__m.state->type_id[PHYSICS_POINT_TYPE]) : NULL;
    if (!m)
        no_physics(w, what);
    return m ? &m->points : NULL;
}

/* The scene's pool over ct.jobs (physics__pool); the context is the jobs table. */
static void jobs_parallel_for(void *ctx, uint32_t count, uint32_t grain, ct_range_f fn, void *user)
{
    const ct_jobs_api_v1 *jobs = ctx;
    jobs->parallel_for(count, grain, fn, user);
}

/* Every call on bodies comes through here, so this is where the scene's pool is pointed at this
 * copy of the code: the scene outlives a hot reload, jobs_parallel_for does not. */
static physics__body_manager *bodies_of(ct_world_o *w, const char *what)
{
    physics__body_manager *m =
        w ? physics__m.component->manager(w, physics__m.state->type_id[PHYSICS_BODY_TYPE]) : NULL;
    if (!m)
        no_physics(w, what);
    else {
        /* A pool of one thread is no pool: the step then takes its one-thread paths (the
         * rigid cache merge in one walk) instead of cutting its work into slices for nobody. */
        const uint32_t threads = physics__m.jobs ? physics__m.jobs->thread_count() : 1u;
        m->scene.pool = threads > 1
                            ? (physics__pool){jobs_parallel_for, (void *)physics__m.jobs, threads}
                            : (physics__pool){0};
    }
    return m;
}

/* What a vector argument must be (ct_physics.h, Ranges). */
typedef enum vec_kind {
    VEC_POSITION,
    VEC_VELOCITY,
    VEC_FORCE,
    VEC_GRAVITY,
    VEC_SPIN,
    VEC_TORQUE,
    VEC_IMPULSE, /* a force's range, named as add_impulse_at's argument */
    VEC_POINT    /* a position's range, named as the *_at calls' argument */
} vec_kind;

static const struct {
    const char *field, *range;
} vec_rules[] = {
    [VEC_POSITION] = {"position", "each coordinate within +-1e5 m"},
    [VEC_VELOCITY] = {"velocity", "at most 1e4 m/s"},
    [VEC_FORCE] = {"force", "each component within +-1e12 N"},
    [VEC_GRAVITY] = {"gravity", "each component within +-1e4 m/s^2"},
    [VEC_SPIN] = {"angular_velocity", "at most 1e3 rad/s"},
    [VEC_TORQUE] = {"torque", "each component within +-1e12 N m"},
    [VEC_IMPULSE] = {"impulse", "each component within +-1e12 N s"},
    [VEC_POINT] = {"point", "each coordinate within +-1e5 m"},
};

char physics__refusal[192];

/* Checks v against its range; when it is outside, logs (and keeps for the Lua error) a message
 * naming the call, the world, the entity (none for world-wide settings) and the field. */
static bool vec_ok(const float v[3], vec_kind kind, const char *what, ct_world_o *w, ct_entity_t e)
{
    if (v) {
        const physics__v3 x = v3_load(v);
        const bool ok =
            kind == VEC_POSITION || kind == VEC_POINT  ? v3_within(x, CT_PHYSICS_MAX_POSITION)
            : kind == VEC_VELOCITY                     ? v3_speed_ok(x)
            : kind == VEC_FORCE || kind == VEC_IMPULSE ? v3_within(x, CT_PHYSICS_MAX_FORCE)
            : kind == VEC_SPIN
                ? v3_within(x, CT_PHYSICS_MAX_ANGULAR_SPEED) &&
                      v3_dot(x, x) <= CT_PHYSICS_MAX_ANGULAR_SPEED * CT_PHYSICS_MAX_ANGULAR_SPEED
            : kind == VEC_TORQUE ? v3_within(x, CT_PHYSICS_MAX_TORQUE)
                                 : v3_within(x, CT_PHYSICS_MAX_GRAVITY);
        if (ok)
            return true;
    }
    char who[48] = "";
    if (e.id)
        snprintf(who, sizeof who, ", entity %u", e.id);
    snprintf(physics__refusal, sizeof physics__refusal, "%s (%g, %g, %g) refused: must be %s",
             vec_rules[kind].field, v ? (double)v[0] : 0.0, v ? (double)v[1] : 0.0,
             v ? (double)v[2] : 0.0, vec_rules[kind].range);
    if (!v)
        snprintf(physics__refusal, sizeof physics__refusal, "%s missing (NULL)",
                 vec_rules[kind].field);
    PHYSICS_LOG(CT_LOG_ERROR, "%s: world %p%s: %s", what, (void *)w, who, physics__refusal);
    return false;
}

/* A call on entity e refused: keeps why (printf-style) for the Lua error and logs it naming the
 * call, the world and the entity. */
static void refuse(const char *what, ct_world_o *w, ct_entity_t e, const char *why, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void refuse(const char *what, ct_world_o *w, ct_entity_t e, const char *why, ...)
{
    va_list args;
    va_start(args, why);
    vsnprintf(physics__refusal, sizeof physics__refusal, why, args);
    va_end(args);
    PHYSICS_LOG(CT_LOG_ERROR, "%s: world %p, entity %u: %s", what, (void *)w, e.id,
                physics__refusal);
}

/* Whether m's world is in the middle of one of its characters' moves (move_character), asking
 * the character's contact callback: the callback may read the world, but a call that would
 * change it (add, remove, move or push a body; a joint, a setting, a step, a restore) is refused
 * then, logged naming the call, the world, the entity and the character; true when refused.
 * Changed under its feet, the move read freed arrays and kept indices of bodies that had moved. */
static bool busy(const physics__body_manager *m, const char *what, ct_world_o *w, ct_entity_t e)
{
    if (!m || !m->moving)
        return false;
    refuse(what, w, e,
           "refused inside character %u's contact callback (a callback may read the world, not "
           "change it)",
           m->moving);
    return true;
}

/* A bad desc, or a dead entity: logged naming the world, the entity and the field. */
static bool desc_ok(const char *bad, const char *what, ct_world_o *w, ct_entity_t e)
{
    if (!bad && physics__m.entity->alive(e))
        return true;
    refuse(what, w, e, "%s", bad ? bad : "not alive");
    return false;
}

/* The start of every call that adds a body: w's bodies, when w has physics (a warning if not),
 * e is alive and its desc good (`bad`, what physics__*_desc_error said, NULL; a refusal naming
 * the field if not); else NULL. */
static physics__body_manager *adding(ct_world_o *w, ct_entity_t e, const char *bad,
                                     const char *what)
{
    physics__body_manager *m = bodies_of(w, what);
    return m && !busy(m, what, w, e) && desc_ok(bad, what, w, e) ? m : NULL;
}

/* ---- point masses (v1) -------------------------------------------------------------------- */

static int p_add(ct_world_o *w, ct_entity_t e, const ct_point_mass_desc_t *d)
{
    physics__points *p = points_of(w, "add_point_mass");
    if (!p)
        return CT_ERR_INVALID;
    char why[sizeof physics__refusal];
    if (!desc_ok(d ? physics__point_given(d, physics__point_desc_error(d), why, sizeof why)
                   : "desc (NULL)",
                 "add_point_mass", w, e))
        return CT_ERR_INVALID;
    return physics__points_add(p, e, d);
}

static int p_remove(ct_world_o *w, ct_entity_t e)
{
    physics__points *p = points_of(w, "remove_point_mass");
    return p && physics__points_remove(p, e) ? 0 : CT_ERR_NOT_FOUND;
}

/* Finds e's point mass; field_of picks one of its vectors. */
static physics__v3 *point_field(ct_world_o *w, ct_entity_t e, const char *what, int field)
{
    physics__points *p = points_of(w, what);
    const uint32_t i = p ? physics__points_find(p, e) : UINT32_MAX;
    if (i == UINT32_MAX)
        return NULL;
    physics__v3 *arrays[] = {p->position, p->velocity, p->acceleration};
    return &arrays[field][i];
}

static int p_get(ct_world_o *w, ct_entity_t e, float out[3], int field, const char *what)
{
    const physics__v3 *v = point_field(w, e, what, field);
    if (!v)
        return CT_ERR_NOT_FOUND;
    if (!out) {
        refuse(what, w, e, "out (NULL)");
        return CT_ERR_INVALID;
    }
    v3_store(*v, out);
    return 0;
}

static int p_set(ct_world_o *w, ct_entity_t e, const float in[3], int field, const char *what)
{
    physics__v3 *v = point_field(w, e, what, field);
    if (!v)
        return CT_ERR_NOT_FOUND;
    if (!vec_ok(in, field == 0 ? VEC_POSITION : VEC_VELOCITY, what, w, e))
        return CT_ERR_INVALID;
    *v = v3_load(in);
    return 0;
}

static int p_position(ct_world_o *w, ct_entity_t e, float out[3])
{
    return p_get(w, e, out, 0, "point_position");
}
static int p_set_position(ct_world_o *w, ct_entity_t e, const float v[3])
{
    return p_set(w, e, v, 0, "set_point_position");
}
static int p_velocity(ct_world_o *w, ct_entity_t e, float out[3])
{
    return p_get(w, e, out, 1, "point_velocity");
}
static int p_set_velocity(ct_world_o *w, ct_entity_t e, const float v[3])
{
    return p_set(w, e, v, 1, "set_point_velocity");
}

static int p_add_force(ct_world_o *w, ct_entity_t e, const float f[3])
{
    physics__points *p = points_of(w, "add_point_force");
    const uint32_t i = p ? physics__points_find(p, e) : UINT32_MAX;
    if (i == UINT32_MAX)
        return CT_ERR_NOT_FOUND;
    if (!vec_ok(f, VEC_FORCE, "add_point_force", w, e))
        return CT_ERR_INVALID;
    p->acceleration[i] = v3_add(p->acceleration[i], v3_scale(v3_load(f), 1.0f / p->mass[i]));
    return 0;
}

typedef struct points_job {
    physics__points *p;
    float dt;
} points_job;

static void points_range(void *user, uint32_t begin, uint32_t end)
{
    points_job *j = user;
    physics__points_simulate(j->p, begin, end, j->dt);
}

/* ---- bodies: sync with transforms, callbacks ---------------------------------------------- */

/* The rotation half of read_transforms, for bodies that rotate: a rotation the game gave the
 * transform (one that is not what physics wrote last) turns the body. A rotation that is not of
 * unit length (a script's scale of it) is normalised; one that is not finite is ignored. */
static void read_rotation(physics__body_manager *m, uint32_t i)
{
    physics__bodies *b = &m->scene.bodies;
    float r[4];
    if (!physics__m.transform->world_rotation(m->world, b->entity[i], r) ||
        !(isfinite(r[0]) && isfinite(r[1]) && isfinite(r[2]) && isfinite(r[3])))
        return;
    const physics__quat q = {r[0], r[1], r[2], r[3]};
    if (b->kind[i] == CT_BODY_DYNAMIC && memcmp(&q, &b->synced_rotation[i], sizeof q) == 0)
        return;
    if (memcmp(&q, &b->rotation[i], sizeof q) != 0) {
        physics__scene_wake(&m->scene, i);
        physics__scene_touched(&m->scene, i);
    }
    b->synced_rotation[i] = q;
    b->rotation[i] = quat_normalize(q);
    physics__bodies_extent(b, i);
}

/* Start of a step: the transform is the truth between steps (see ct_physics.h). A position
 * outside the ranges (NaN from a script's transform, say) never reaches a body: the body keeps
 * its own, and the world and first such entity are named whenever their number changes. */
static void read_transforms(physics__body_manager *m)
{
    physics__bodies *b = &m->scene.bodies;
    uint32_t bad = 0;
    ct_entity_t first = {0};
    for (uint32_t i = 0; i < b->n; i++) {
        float t[3];
        if (!physics__m.transform->world_position(m->world, b->entity[i], t))
            continue;
        const physics__v3 tp = v3_load(t);
        if (!v3_within(tp, CT_PHYSICS_MAX_POSITION)) {
            first = bad++ ? first : b->entity[i];
            continue;
        }
        if (b->kind[i] != CT_BODY_DYNAMIC || memcmp(&tp, &b->synced[i], sizeof tp) != 0) {
            if (memcmp(&tp, &b->position[i], sizeof tp) != 0) {
                physics__scene_wake(&m->scene, i);
                physics__scene_touched(&m->scene, i);
            }
            b->position[i] = b->synced[i] = tp;
        }
        if (b->rotates[i])
            read_rotation(m, i);
    }
    if (bad != m->bad_transforms && bad)
        PHYSICS_LOG(CT_LOG_WARNING,
                    "simulate: world %p: %u bodies' transforms hold a position "
                    "outside +-1e5 m or not finite (the first: entity %u); they keep their last "
                    "position",
                    (void *)m->world, bad, first.id);
    m->bad_transforms = bad;
}

/* End of a step: moved bodies write their transforms. Bodies that did not move (resting ones,
 * statics) are skipped, which keeps a settled scene cheap. */
static void write_transforms(physics__body_manager *m)
{
    physics__bodies *b = &m->scene.bodies;
    for (uint32_t i = 0; i < b->n; i++) {
        if (b->rotates[i] &&
            memcmp(&b->rotation[i], &b->synced_rotation[i], sizeof b->rotation[i]) != 0) {
            const physics__quat q = b->rotation[i];
            const float r[4] = {q.x, q.y, q.z, q.w};
            b->synced_rotation[i] = q;
            float back[4];
            if (physics__m.transform->set_world_rotation(m->world, b->entity[i], r) &&
                physics__m.transform->world_rotation(m->world, b->entity[i], back))
                b->synced_rotation[i] = (physics__quat){back[0], back[1], back[2], back[3]};
        }
        if (memcmp(&b->position[i], &b->synced[i], sizeof b->position[i]) == 0)
            continue;
        float p[3];
        v3_store(b->position[i], p);
        b->synced[i] = b->position[i];
        /* Remember what the transform really holds: under a parent the position goes through its
         * inverse matrix and may come back a bit different, which must not read as a teleport. */
        if (physics__m.transform->set_world_position(m->world, b->entity[i], p) &&
            physics__m.transform->world_position(m->world, b->entity[i], p))
            b->synced[i] = v3_load(p);
    }
}

/* Turns the step's events into on_collision and on_contact_ended callbacks for both entities. The world
 * drops those no script registered for. */
static void queue_callbacks(physics__body_manager *m)
{
    const physics__events *ev = &m->scene.events;
    uint32_t at = 0;
    for (const ct_physics_event_header_t *h;
         (h = ct_physics_event_next(ev->bytes, ev->size, &at));) {
        if (h->type == CT_PHYSICS_EVENT_CONTACT_ENDED) {
            ct_physics_contact_ended_event_t c;
            memcpy(&c, h + 1, sizeof c);
            const double a = c.a, b = c.b;
            physics__m.world->queue_callback(m->world, (ct_entity_t){c.a}, "on_contact_ended", &b,
                                             1);
            physics__m.world->queue_callback(m->world, (ct_entity_t){c.b}, "on_contact_ended", &a,
                                             1);
        }
        if (h->type == CT_PHYSICS_EVENT_SENSOR_ENTER || h->type == CT_PHYSICS_EVENT_SENSOR_LEAVE) {
            ct_physics_sensor_event_t c;
            memcpy(&c, h + 1, sizeof c);
            const double other = c.other;
            physics__m.world->queue_callback(
                m->world, (ct_entity_t){c.sensor},
                h->type == CT_PHYSICS_EVENT_SENSOR_ENTER ? "on_sensor_enter" : "on_sensor_leave",
                &other, 1);
        }
        if (h->type != CT_PHYSICS_EVENT_COLLISION)
            continue;
        ct_physics_collision_event_t c;
        memcpy(&c, h + 1, sizeof c);
        for (int side = 0; side < 2; side++) {
            const float s = side ? 1.0f : -1.0f; /* the normal pushes the receiver away */
            const double args[] = {side ? c.a : c.b, c.point[0],      c.point[1],      c.point[2],
                                   s * c.normal[0],  s * c.normal[1], s * c.normal[2], c.impulse};
            physics__m.world->queue_callback(m->world, (ct_entity_t){side ? c.b : c.a},
                                             "on_collision", args, 8);
        }
    }
}

/* A body whose search against a mesh was cut at PHYSICS_MESH_BUDGET this step (physics_mesh.c),
 * and not yet logged: logged, once a body (the least of them a step, so each in turn). */
static void mesh_cut_told(physics__body_manager *m)
{
    physics__bodies *b = &m->scene.bodies;
    physics__mesh_tally *tally = b->mesh_tally;
    if (!tally || atomic_load_explicit(&tally->cut, memory_order_relaxed) == UINT64_MAX)
        return;
    const uint64_t cut = atomic_exchange_explicit(&tally->cut, UINT64_MAX, memory_order_relaxed);
    const uint32_t i = physics__bodies_find(b, (ct_entity_t){(uint32_t)(cut >> 32)});
    if (i == UINT32_MAX)
        return;
    b->mesh_told[i] = 1;
    const physics__v3 h = b->half[i];
    PHYSICS_LOG(CT_LOG_WARNING,
                "simulate: world %p: entity %u: its shape (%g x %g x %g m) lies over more than %u "
                "triangles of the mesh of entity %u; only the %u reaching deepest into it are "
                "collided (logged once a body)",
                (void *)m->world, b->entity[i].id, 2.0 * (double)h.x, 2.0 * (double)h.y,
                2.0 * (double)h.z, PHYSICS_MESH_BUDGET, (uint32_t)cut, PHYSICS_MESH_DEEPEST);
}

static void simulate(ct_world_o *w, float dt)
{
    CT_PROFILE_SCOPE("physics.simulate");
    if (!f_within(dt, CT_PHYSICS_MIN_DT, CT_PHYSICS_MAX_DT)) {
        PHYSICS_LOG(CT_LOG_ERROR, "simulate: world %p: refused dt %g (must be within [1e-5, 1] s)",
                    (void *)w, (double)dt);
        return;
    }
    physics__points *p = points_of(w, "simulate");
    physics__body_manager *m = bodies_of(w, "simulate");
    if (!p || !m || busy(m, "simulate", w, (ct_entity_t){0}))
        return;
    physics__fields_apply(w, m, dt);
    points_job job = {p, dt};
    if (physics__m.jobs && p->n >= 65536)
        physics__m.jobs->parallel_for(p->n, 16384, points_range, &job);
    else
        points_range(&job, 0, p->n);

    /* A quiet world whose transforms nobody moved since the last step: nothing to read, step or
     * write (ct_transform_api_v4.changes; without it every transform is read). */
    const ct_transform_api_v4 *t4 = physics__m.transform_changes;
    if (m->scene.quiet && m->scene.quiet_bodies == m->scene.bodies.n && t4 &&
        t4->changes(w) == m->transform_changes) {
        physics__scene_step(&m->scene, dt);
        return;
    }
    /* Nobody moved a transform since the last step wrote them: the bodies hold what they say
     * (a world with one body awake among thousands asleep then skips thousands of reads). */
    if (!(t4 && t4->changes(w) == m->transform_changes))
        read_transforms(m);
    ct_profile_scope_t step = ct_profile_scope_begin(physics__m.profiler, "physics.step");
    const int err = physics__scene_step(&m->scene, dt);
    ct_profile_scope_end(&step);
    if (err)
        PHYSICS_LOG(CT_LOG_ERROR, "simulate: world %p: %s", (void *)w,
                    physics__m.log->error_message(err));
    const physics__step_report *r = &m->scene.report;
    if (r->escaped)
        PHYSICS_LOG(CT_LOG_WARNING,
                    "simulate: world %p: %u bodies reached the border of the "
                    "world (+-1e5 m) and stopped there (the first: entity %u)",
                    (void *)w, r->escaped, r->escaped_entity);
    if (r->pair_limit && m->scene.num_pairs) {
        /* The pair kept last is where the cut fell: in the pile, so the message can name it. */
        const physics__pair cut = m->scene.pairs[m->scene.num_pairs - 1];
        const physics__v3 at = m->scene.bodies.position[cut.a];
        PHYSICS_LOG(CT_LOG_WARNING,
                    "simulate: world %p: %u bodies make more than %u candidate pairs (bodies "
                    "piled into one spot? cut at entities %u and %u, position (%g, %g, %g)); the "
                    "rest were not collided this step",
                    (void *)w, m->scene.bodies.n, r->pair_limit, m->scene.bodies.entity[cut.a].id,
                    m->scene.bodies.entity[cut.b].id, (double)at.x, (double)at.y, (double)at.z);
    }
    if (r->child_limit)
        PHYSICS_LOG(CT_LOG_WARNING,
                    "simulate: world %p: the pairs of compound bodies ask for more than %u shape "
                    "tests of their children (compounds piled into one spot?); cut at entities %u "
                    "and %u: the rest were not collided this step",
                    (void *)w, r->child_limit, r->child_cut[0], r->child_cut[1]);
    mesh_cut_told(m);
    /* A character moves only as its last move_character said, for one step. */
    for (uint32_t k = 0; k < m->scene.characters.n; k++) {
        const uint32_t i =
            physics__bodies_find(&m->scene.bodies, (ct_entity_t){m->scene.characters.c[k].entity});
        if (i != UINT32_MAX)
            m->scene.bodies.velocity[i] = v3(0, 0, 0);
    }
    write_transforms(m);
    if (t4)
        m->transform_changes = t4->changes(w);
    queue_callbacks(m);
}

static int b_add(ct_world_o *w, ct_entity_t e, const ct_body_desc_t *d)
{
    char why[sizeof physics__refusal];
    const ct_rigid_body_desc_t r = d ? physics__rigid_of(d) : (ct_rigid_body_desc_t){0};
    physics__body_manager *m = adding(
        w, e,
        d ? physics__rigid_given(&r, physics__body_desc_error(d), why, sizeof why) : "desc (NULL)",
        "add_body");
    if (!m)
        return CT_ERR_INVALID;
    ct_body_desc_t placed = *d;
    float at[3];
    if (physics__m.transform->world_position(w, e, at) &&
        vec_ok(at, VEC_POSITION, "add_body: the transform's world position", w, e))
        memcpy(placed.position, at, sizeof at);
    else if (physics__m.transform->world_position(w, e, at))
        return CT_ERR_INVALID;
    const int err = physics__bodies_add(&m->scene.bodies, e, &placed);
    physics__scene_touched(&m->scene, m->scene.bodies.n - 1);
    return err;
}

static int b_remove(ct_world_o *w, ct_entity_t e)
{
    physics__body_manager *m = bodies_of(w, "remove_body");
    if (busy(m, "remove_body", w, e))
        return CT_ERR_INVALID;
    return m && physics__scene_remove(&m->scene, e) ? 0 : CT_ERR_NOT_FOUND;
}

/* The body a call on one entity found: its scene and its index there; or err CT_ERR_NOT_FOUND
 * (s and b NULL) when w has no physics (logged by bodies_of) or e has no body in it. Every
 * per-body call starts here, so that each of them reads as what it does to the body. */
typedef struct body_ref {
    physics__body_manager *m;
    physics__scene *s;
    physics__bodies *b;
    uint32_t i;
    int err;
} body_ref;

static body_ref find_body(ct_world_o *w, ct_entity_t e, const char *what)
{
    physics__body_manager *m = bodies_of(w, what);
    const uint32_t i = m ? physics__bodies_find(&m->scene.bodies, e) : UINT32_MAX;
    if (i == UINT32_MAX)
        return (body_ref){.err = CT_ERR_NOT_FOUND};
    return (body_ref){.m = m, .s = &m->scene, .b = &m->scene.bodies, .i = i};
}

/* find_body for a call that changes the body: CT_ERR_INVALID (logged) inside a character's
 * contact callback (busy). */
static body_ref changed_body(ct_world_o *w, ct_entity_t e, const char *what)
{
    body_ref r = find_body(w, e, what);
    if (!r.err && busy(r.m, what, w, e))
        r = (body_ref){.err = CT_ERR_INVALID};
    return r;
}

/* find_body for a call that reads the body into out (named `field`): CT_ERR_INVALID (logged
 * naming the call, the world, the entity and the field) when out is NULL, where the call wrote
 * through it (SIGSEGV). */
static body_ref read_body(ct_world_o *w, ct_entity_t e, const void *out, const char *field,
                          const char *what)
{
    body_ref r = find_body(w, e, what);
    if (!r.err && !out) {
        refuse(what, w, e, "%s (NULL)", field);
        r = (body_ref){.err = CT_ERR_INVALID};
    }
    return r;
}

/* Velocities and forces are for dynamic and kinematic bodies. */
static bool movable(body_ref r, const char *what, ct_world_o *w, ct_entity_t e)
{
    if (r.b->kind[r.i] != CT_BODY_STATIC)
        return true;
    refuse(what, w, e, "a static body does not move");
    return false;
}

/* The body of a call that pushes it (set a velocity, add a force or torque): found, v within
 * `kind`'s range and the body not static, then woken (which reads no velocity or force); else err
 * says why (CT_ERR_NOT_FOUND, or CT_ERR_INVALID, logged) and nothing changed. */
static body_ref pushed_body(ct_world_o *w, ct_entity_t e, const float v[3], vec_kind kind,
                            const char *what)
{
    body_ref r = changed_body(w, e, what);
    if (!r.err && (!vec_ok(v, kind, what, w, e) || !movable(r, what, w, e)))
        r.err = CT_ERR_INVALID;
    if (!r.err)
        physics__scene_wake(r.s, r.i);
    return r;
}

static int b_set_velocity(ct_world_o *w, ct_entity_t e, const float v[3])
{
    const body_ref r = pushed_body(w, e, v, VEC_VELOCITY, "set_velocity");
    if (!r.err)
        r.b->velocity[r.i] = v3_load(v);
    return r.err;
}

static int b_velocity(ct_world_o *w, ct_entity_t e, float out[3])
{
    const body_ref r = read_body(w, e, out, "out", "velocity");
    if (!r.err)
        v3_store(r.b->velocity[r.i], out);
    return r.err;
}

static int b_add_force(ct_world_o *w, ct_entity_t e, const float f[3])
{
    const body_ref r = pushed_body(w, e, f, VEC_FORCE, "add_force");
    if (!r.err)
        r.b->force[r.i] = v3_add(r.b->force[r.i], v3_load(f));
    return r.err;
}

static int b_position(ct_world_o *w, ct_entity_t e, float out[3])
{
    const body_ref r = read_body(w, e, out, "out", "position");
    if (!r.err)
        v3_store(r.b->position[r.i], out);
    return r.err;
}

static int b_teleport(ct_world_o *w, ct_entity_t e, const float p[3])
{
    const body_ref r = changed_body(w, e, "teleport");
    if (r.err)
        return r.err;
    if (!vec_ok(p, VEC_POSITION, "teleport", w, e))
        return CT_ERR_INVALID;
    r.b->position[r.i] = r.b->synced[r.i] = v3_load(p);
    physics__m.transform->set_world_position(w, e, p);
    physics__scene_wake(r.s, r.i);
    physics__scene_touched(r.s, r.i);
    return 0;
}

static void set_gravity(ct_world_o *w, const float g[3])
{
    physics__body_manager *m = bodies_of(w, "set_gravity");
    if (m && !busy(m, "set_gravity", w, (ct_entity_t){0}) &&
        vec_ok(g, VEC_GRAVITY, "set_gravity", w, (ct_entity_t){0})) {
        m->scene.gravity = v3_load(g);
        physics__scene_wake_all(&m->scene);
    }
}

static void gravity(ct_world_o *w, float out[3])
{
    physics__body_manager *m = bodies_of(w, "gravity");
    if (out)
        v3_store(m ? m->scene.gravity : v3(0, 0, 0), out);
    else
        PHYSICS_LOG(CT_LOG_ERROR, "gravity: world %p: out (NULL) refused", (void *)w);
}

/* The questions a ray or sphere query cannot ask: a NULL or not finite origin or centre, a NULL,
 * not finite or zero direction, a NaN or negative length, a not finite or negative radius. A ray
 * from far outside the world, or of infinite length, is a question (it meets nothing there). */
const char *physics__ray_error(const float o[3], const float d[3], float max_distance)
{
    if (!o || !v3_finite(v3_load(o)))
        return !o ? "origin (NULL)" : "origin (NaN or infinite)";
    if (!d || !v3_finite(v3_load(d)) || !(v3_len(v3_load(d)) > 0.0f))
        return !d ? "direction (NULL)" : "direction (NaN, infinite or zero)";
    return max_distance >= 0.0f ? NULL : "max_distance (NaN or negative)";
}

const char *physics__sphere_query_error(const float c[3], float r)
{
    if (!c || !v3_finite(v3_load(c)))
        return !c ? "center (NULL)" : "center (NaN or infinite)";
    return r >= 0.0f && isfinite(r) ? NULL : "radius (NaN, infinite or negative)";
}

/* A query that cannot be asked (`bad`, one of the errors above): logged naming the world. */
static bool query_ok(const char *bad, const char *what, ct_world_o *w)
{
    if (bad)
        PHYSICS_LOG(CT_LOG_ERROR, "%s: world %p: %s refused", what, (void *)w, bad);
    return !bad;
}

/* The room of a list's out (overlap_sphere, shapes, sensor_contents): max, or 0 when out is
 * NULL, which is for counting; asked for room there, the call is refused that (logged naming the
 * call, the world and the field) and only counts. Before, it wrote through NULL. */
static uint32_t list_room(const void *out, uint32_t max, const char *what, ct_world_o *w)
{
    if (out || !max)
        return max;
    PHYSICS_LOG(CT_LOG_ERROR, "%s: world %p: out (NULL with max %u: NULL is for counting, with "
                              "max 0) refused; counted only",
                what, (void *)w, max);
    return 0;
}

static uint32_t overlap_sphere_masked(ct_world_o *w, const float c[3], float r, uint32_t mask,
                                      ct_entity_t *out, uint32_t max)
{
    physics__body_manager *m = bodies_of(w, "overlap_sphere");
    if (!m || !query_ok(physics__sphere_query_error(c, r), "overlap_sphere", w))
        return 0;
    return physics__scene_overlap_sphere(&m->scene, v3_load(c), r, mask, out,
                                         list_room(out, max, "overlap_sphere", w));
}

static uint32_t overlap_sphere(ct_world_o *w, const float c[3], float r, ct_entity_t *out,
                               uint32_t max)
{
    return overlap_sphere_masked(w, c, r, UINT32_MAX, out, max);
}

static bool raycast_masked(ct_world_o *w, const float o[3], const float d[3], float max_t,
                           uint32_t mask, ct_physics_hit_t *out)
{
    physics__body_manager *m = bodies_of(w, "raycast");
    if (!m || !query_ok(out ? physics__ray_error(o, d, max_t) : "out (NULL)", "raycast", w))
        return false;
    return physics__scene_raycast(&m->scene, v3_load(o), v3_load(d), max_t, mask, out);
}

static bool raycast(ct_world_o *w, const float o[3], const float d[3], float max_t,
                    ct_physics_hit_t *out)
{
    return raycast_masked(w, o, d, max_t, UINT32_MAX, out);
}

/* Shape casts: the shape (shape, half_extents, radius, half_height and rotation of a desc; box,
 * sphere or capsule) swept from `from` by `motion`: ct_physics_api_v5's shape_cast and
 * Physics.shape_cast. */
const char *physics__shape_cast_error(const ct_rigid_body_desc_t *shape, const float from[3],
                                      const float motion[3])
{
    if (!shape || !from || !motion)
        return !shape ? "shape (NULL)" : !from ? "from (NULL)" : "motion (NULL)";
    if (shape->shape > CT_BODY_CAPSULE)
        return "shape (box, sphere or capsule)";
    const ct_rigid_body_desc_t d = {
        .kind = CT_BODY_STATIC,
        .shape = shape->shape,
        .half_extents = {shape->half_extents[0], shape->half_extents[1], shape->half_extents[2]},
        .radius = shape->radius,
        .half_height = shape->half_height,
        .rotation = {shape->rotation[0], shape->rotation[1], shape->rotation[2],
                     shape->rotation[3]}};
    const char *bad = physics__rigid_desc_error(&d);
    if (bad)
        return bad;
    if (!v3_within(v3_load(from), CT_PHYSICS_MAX_POSITION))
        return "from (each within +-1e5 m)";
    if (!v3_within(v3_load(motion), 2.0f * CT_PHYSICS_MAX_POSITION))
        return "motion (each within +-2e5 m)";
    return NULL;
}

bool physics__shape_cast(ct_world_o *w, const ct_rigid_body_desc_t *shape, const float from[3],
                         const float motion[3], uint32_t mask, ct_physics_hit_t *out)
{
    physics__body_manager *m = bodies_of(w, "shape_cast");
    const char *bad = physics__shape_cast_error(shape, from, motion);
    if (!m)
        return false;
    if (!bad && !out)
        bad = "out (NULL)";
    if (bad) {
        PHYSICS_LOG(CT_LOG_ERROR, "shape_cast: world %p: %s", (void *)w, bad);
        return false;
    }
    const float *q = shape->rotation;
    const physics__cast c = {.shape = shape->shape,
                             .half = v3_load(shape->half_extents),
                             .radius = shape->radius,
                             .half_height = shape->half_height,
                             .rotation =
                                 q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 0.0f
                                     ? quat_identity()
                                     : quat_normalize((physics__quat){q[0], q[1], q[2], q[3]})};
    return physics__scene_shape_cast(&m->scene, &c, v3_load(from), v3_load(motion), mask, out);
}

static const void *events(ct_world_o *w, uint32_t *size)
{
    physics__body_manager *m = bodies_of(w, "events");
    if (!size) {
        PHYSICS_LOG(CT_LOG_ERROR, "events: world %p: size (NULL) refused", (void *)w);
        return NULL;
    }
    *size = m ? m->scene.events.size : 0;
    return m ? m->scene.events.bytes : NULL;
}

static uint64_t state_hash(ct_world_o *w)
{
    physics__body_manager *m = bodies_of(w, "state_hash");
    physics__points *p = points_of(w, "state_hash");
    return m ? physics__state_hash(&m->scene, p, physics__m.entity->alive) : 0;
}

static uint32_t body_count(ct_world_o *w)
{
    physics__body_manager *m = bodies_of(w, "body_count");
    return m ? m->scene.bodies.n : 0;
}

static uint32_t point_mass_count(ct_world_o *w)
{
    physics__points *p = points_of(w, "point_mass_count");
    return p ? p->n : 0;
}

/* ---- v3: filters, user data, sleep -------------------------------------------------------- */

static int set_collision_filter(ct_world_o *w, ct_entity_t e, uint32_t layer, uint32_t mask)
{
    const body_ref r = changed_body(w, e, "set_collision_filter");
    if (r.err)
        return r.err;
    physics__sensor *sensor = physics__sensors_find(r.s, e.id);
    if (sensor) {
        /* A sensor's body keeps colliding with nothing: the filter is the one it sees with. */
        sensor->layer = layer;
        sensor->mask = mask;
        physics__scene_touched(r.s, r.i);
        return 0;
    }
    r.b->layer[r.i] = layer;
    r.b->mask[r.i] = mask;
    physics__scene_wake(r.s, r.i);
    return 0;
}

static int collision_filter(ct_world_o *w, ct_entity_t e, uint32_t *layer, uint32_t *mask)
{
    const body_ref r =
        read_body(w, e, layer && mask ? layer : NULL, "layer, mask", "collision_filter");
    if (r.err)
        return r.err;
    const physics__sensor *sensor = physics__sensors_find(r.s, e.id);
    *layer = sensor ? sensor->layer : r.b->layer[r.i];
    *mask = sensor ? sensor->mask : r.b->mask[r.i];
    return 0;
}

static int set_user_data(ct_world_o *w, ct_entity_t e, uint64_t data)
{
    const body_ref r = find_body(w, e, "set_user_data");
    if (!r.err)
        r.b->user_data[r.i] = data;
    return r.err;
}

static int user_data(ct_world_o *w, ct_entity_t e, uint64_t *out)
{
    const body_ref r = read_body(w, e, out, "out", "user_data");
    if (!r.err)
        *out = r.b->user_data[r.i];
    return r.err;
}

static bool sleeping(ct_world_o *w, ct_entity_t e)
{
    const body_ref r = find_body(w, e, "sleeping");
    return !r.err && r.b->asleep[r.i];
}

static int wake(ct_world_o *w, ct_entity_t e)
{
    const body_ref r = changed_body(w, e, "wake");
    if (!r.err)
        physics__scene_wake(r.s, r.i);
    return r.err;
}

static void set_sleeping(ct_world_o *w, bool enabled)
{
    physics__body_manager *m = bodies_of(w, "set_sleeping");
    if (!m || busy(m, "set_sleeping", w, (ct_entity_t){0}))
        return;
    m->scene.sleeping = enabled;
    if (!enabled)
        physics__scene_wake_all(&m->scene);
}

static uint32_t awake_count(ct_world_o *w)
{
    physics__body_manager *m = bodies_of(w, "awake_count");
    return m ? m->scene.report.awake : 0;
}

/* ---- v4: rigid bodies ----------------------------------------------------------------------- */

/* d placed at e's transform when it has one (its world position and rotation), else as it is;
 * false (logged as call `what`'s refusal) when that position is out of range. */
static bool rigid_placed(ct_world_o *w, ct_entity_t e, const ct_rigid_body_desc_t *d,
                         ct_rigid_body_desc_t *placed, const char *what)
{
    *placed = *d;
    float at[3], r[4];
    if (physics__m.transform->world_position(w, e, at)) {
        char call[64];
        snprintf(call, sizeof call, "%s: the transform's world position", what);
        if (!vec_ok(at, VEC_POSITION, call, w, e))
            return false;
        memcpy(placed->position, at, sizeof at);
        if (physics__m.transform->world_rotation(w, e, r) && isfinite(r[0]) && isfinite(r[1]) &&
            isfinite(r[2]) && isfinite(r[3]) && !(r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == 0))
            memcpy(placed->rotation, r, sizeof r);
    }
    return true;
}

/* A body of a built shape (compound, mesh) for e: CT_ERR_CONFLICT when e has a body already,
 * CT_ERR_INVALID (logged as call `what`'s refusal) when its transform is out of range, else 0
 * with d placed. */
static int placed_new(physics__body_manager *m, ct_world_o *w, ct_entity_t e,
                      const ct_rigid_body_desc_t *d, ct_rigid_body_desc_t *placed, const char *what)
{
    if (physics__bodies_find(&m->scene.bodies, e) != UINT32_MAX)
        return CT_ERR_CONFLICT;
    return rigid_placed(w, e, d, placed, what) ? 0 : CT_ERR_INVALID;
}

/* add_rigid_body, and the calls that add a body of a desc they make (add_character): refusals
 * are logged as call `what`'s, the one the game made. */
static int rigid_add(ct_world_o *w, ct_entity_t e, const ct_rigid_body_desc_t *d, const char *what)
{
    char why[sizeof physics__refusal];
    physics__body_manager *m = adding(
        w, e,
        d ? physics__rigid_given(d, physics__rigid_desc_error(d), why, sizeof why) : "desc (NULL)",
        what);
    if (!m)
        return CT_ERR_INVALID;
    ct_rigid_body_desc_t placed;
    if (!rigid_placed(w, e, d, &placed, what))
        return CT_ERR_INVALID;
    const int err = physics__bodies_add_rigid(&m->scene.bodies, e, &placed);
    physics__scene_touched(&m->scene, m->scene.bodies.n - 1);
    return err;
}

static int b_add_rigid(ct_world_o *w, ct_entity_t e, const ct_rigid_body_desc_t *d)
{
    return rigid_add(w, e, d, "add_rigid_body");
}

static bool quat_ok(const float q[4], const char *what, ct_world_o *w, ct_entity_t e)
{
    const float len = q ? sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) : 0.0f;
    if (q && fabsf(len - 1.0f) <= 1e-3f)
        return true;
    refuse(what, w, e, "rotation refused: must be x y z w of length 1 within 1e-3");
    return false;
}

static int b_rotation(ct_world_o *w, ct_entity_t e, float out[4])
{
    const body_ref r = read_body(w, e, out, "out", "rotation");
    if (!r.err) {
        const physics__quat q = r.b->rotation[r.i];
        out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
    }
    return r.err;
}

static int b_set_rotation(ct_world_o *w, ct_entity_t e, const float q[4])
{
    const body_ref r = changed_body(w, e, "set_rotation");
    if (r.err)
        return r.err;
    if (!quat_ok(q, "set_rotation", w, e))
        return CT_ERR_INVALID;
    r.b->rotation[r.i] = r.b->synced_rotation[r.i] =
        quat_normalize((physics__quat){q[0], q[1], q[2], q[3]});
    physics__bodies_classify(r.b, r.i);
    physics__m.transform->set_world_rotation(w, e, q);
    physics__scene_wake(r.s, r.i);
    physics__scene_touched(r.s, r.i);
    return 0;
}

static int b_angular_velocity(ct_world_o *w, ct_entity_t e, float out[3])
{
    const body_ref r = read_body(w, e, out, "out", "angular_velocity");
    if (!r.err)
        v3_store(r.b->angular[r.i], out);
    return r.err;
}

/* Zeroes what the locks of body i forbid. */
static physics__v3 locked(const physics__bodies *b, uint32_t i, physics__v3 v, uint32_t shift)
{
    const uint32_t l = (uint32_t)b->locks[i] >> shift;
    return v3(l & 1u ? 0.0f : v.x, l & 2u ? 0.0f : v.y, l & 4u ? 0.0f : v.z);
}

static int b_set_angular_velocity(ct_world_o *w, ct_entity_t e, const float v[3])
{
    const body_ref r = pushed_body(w, e, v, VEC_SPIN, "set_angular_velocity");
    if (!r.err)
        r.b->angular[r.i] = locked(r.b, r.i, v3_load(v), 3);
    return r.err;
}

static int b_add_torque(ct_world_o *w, ct_entity_t e, const float t[3])
{
    const body_ref r = pushed_body(w, e, t, VEC_TORQUE, "add_torque");
    if (!r.err)
        r.b->torque[r.i] = v3_add(r.b->torque[r.i], v3_load(t));
    return r.err;
}

static int b_add_force_at(ct_world_o *w, ct_entity_t e, const float f[3], const float p[3])
{
    const body_ref r = changed_body(w, e, "add_force_at");
    if (r.err)
        return r.err;
    if (!vec_ok(f, VEC_FORCE, "add_force_at", w, e) ||
        !vec_ok(p, VEC_POINT, "add_force_at", w, e) || !movable(r, "add_force_at", w, e))
        return CT_ERR_INVALID;
    physics__bodies *b = r.b;
    const uint32_t i = r.i;
    const physics__v3 force = v3_load(f), arm = v3_sub(v3_load(p), b->position[i]);
    b->force[i] = v3_add(b->force[i], force);
    b->torque[i] = v3_add(b->torque[i], v3_cross(arm, force));
    physics__scene_wake(r.s, i);
    return 0;
}

static int b_add_impulse_at(ct_world_o *w, ct_entity_t e, const float j[3], const float p[3])
{
    const body_ref r = changed_body(w, e, "add_impulse_at");
    if (r.err)
        return r.err;
    physics__bodies *b = r.b;
    const uint32_t i = r.i;
    if (!vec_ok(j, VEC_IMPULSE, "add_impulse_at", w, e) ||
        !vec_ok(p, VEC_POINT, "add_impulse_at", w, e))
        return CT_ERR_INVALID;
    if (b->kind[i] != CT_BODY_DYNAMIC) {
        refuse("add_impulse_at", w, e, "only a dynamic body takes impulses");
        return CT_ERR_INVALID;
    }
    physics__scene_wake(r.s, i);
    physics__bodies_impulse_at(b, i, v3_load(j), v3_load(p));
    return 0;
}

static int b_set_locks(ct_world_o *w, ct_entity_t e, uint32_t locks)
{
    const body_ref r = changed_body(w, e, "set_locks");
    if (r.err)
        return r.err;
    if (locks > CT_BODY_LOCK_ALL) {
        refuse("set_locks", w, e, "locks 0x%x refused: CT_BODY_LOCK_* bits only", locks);
        return CT_ERR_INVALID;
    }
    physics__bodies *b = r.b;
    const uint32_t i = r.i;
    b->locks[i] = (uint8_t)locks;
    b->velocity[i] = locked(b, i, b->velocity[i], 0);
    b->angular[i] = locked(b, i, b->angular[i], 3);
    physics__bodies_classify(b, i);
    physics__scene_wake(r.s, i);
    physics__scene_touched(r.s, i);
    return 0;
}

static int b_locks(ct_world_o *w, ct_entity_t e, uint32_t *out)
{
    const body_ref r = read_body(w, e, out, "out", "locks");
    if (!r.err)
        *out = r.b->locks[r.i];
    return r.err;
}

/* ---- v5: shapes -------------------------------------------------------------------------- */

static int b_add_hull(ct_world_o *w, ct_entity_t e, const ct_rigid_body_desc_t *d,
                      const float *points, uint32_t count)
{
    char why[sizeof physics__refusal];
    physics__body_manager *m = adding(
        w, e,
        d ? physics__rigid_given(d, physics__hull_desc_error(d), why, sizeof why) : "desc (NULL)",
        "add_hull_body");
    if (!m)
        return CT_ERR_INVALID;
    if (physics__bodies_find(&m->scene.bodies, e) != UINT32_MAX)
        return CT_ERR_CONFLICT;
    /* Built here, kept once: the bodies of one shape (a level's hundred rocks) share it. */
    physics__hull built;
    char reason[128];
    if (!desc_ok(physics__hull_build(&built, points, count, reason, sizeof reason), "add_hull_body",
                 w, e))
        return CT_ERR_INVALID;
    ct_rigid_body_desc_t placed;
    if (!rigid_placed(w, e, d, &placed, "add_hull_body"))
        return CT_ERR_INVALID;
    physics__hull *h = physics__bodies_hull(&m->scene.bodies, &built);
    if (!h)
        return CT_ERR_NOMEM;
    const int err = physics__bodies_add_hull(&m->scene.bodies, e, &placed, h);
    if (!err)
        physics__scene_touched(&m->scene, m->scene.bodies.n - 1);
    return err;
}

static int b_add_compound(ct_world_o *w, ct_entity_t e, const ct_rigid_body_desc_t *d,
                          const ct_compound_child_t *children, uint32_t count)
{
    char why[sizeof physics__refusal];
    physics__body_manager *m =
        adding(w, e,
               d ? physics__rigid_given(d, physics__compound_desc_error(d), why, sizeof why)
                 : "desc (NULL)",
               "add_compound_body");
    if (!m)
        return CT_ERR_INVALID;
    ct_rigid_body_desc_t placed;
    const int taken = placed_new(m, w, e, d, &placed, "add_compound_body");
    if (taken)
        return taken;
    physics__compound *c;
    char reason[160];
    if (!desc_ok(physics__compound_build(m->scene.bodies.a, children, count, &c, reason,
                                         sizeof reason),
                 "add_compound_body", w, e))
        return strstr(reason, "out of memory") ? CT_ERR_NOMEM : CT_ERR_INVALID;
    const int err = physics__bodies_add_compound(&m->scene.bodies, e, &placed, c);
    if (!err)
        physics__scene_touched(&m->scene, m->scene.bodies.n - 1);
    return err;
}

static int mesh_add(ct_world_o *w, ct_entity_t e, const ct_rigid_body_desc_t *d,
                    const float *vertices, uint32_t vertex_count, const uint32_t *indices,
                    uint32_t triangle_count, const char *what)
{
    const char *bad = !d                            ? "desc (NULL)"
                      : d->kind != CT_BODY_STATIC   ? "kind (a mesh body is static)"
                      : d->shape != CT_BODY_MESH    ? "shape (a mesh body is CT_BODY_MESH)"
                                                    : NULL;
    ct_rigid_body_desc_t r;
    if (!bad) {
        r = *d;
        r.shape = CT_BODY_SPHERE, r.radius = 1.0f;
        bad = physics__rigid_desc_error(&r);
    }
    char why[sizeof physics__refusal];
    if (d)
        bad = physics__rigid_given(d, bad, why, sizeof why);
    physics__body_manager *m = adding(w, e, bad, what);
    if (!m)
        return CT_ERR_INVALID;
    ct_rigid_body_desc_t placed;
    const int taken = placed_new(m, w, e, d, &placed, what);
    if (taken)
        return taken;
    physics__mesh *mesh;
    char reason[160];
    if (!desc_ok(physics__mesh_build(m->scene.bodies.a, vertices, vertex_count, indices,
                                     triangle_count, &mesh, reason, sizeof reason),
                 what, w, e))
        return strstr(reason, "out of memory") ? CT_ERR_NOMEM : CT_ERR_INVALID;
    const int err = physics__bodies_add_mesh(&m->scene.bodies, e, &placed, mesh);
    if (!err)
        physics__scene_touched(&m->scene, m->scene.bodies.n - 1);
    return err;
}

static int b_add_mesh(ct_world_o *w, ct_entity_t e, const ct_rigid_body_desc_t *d,
                      const float *vertices, uint32_t vertex_count, const uint32_t *indices,
                      uint32_t triangle_count)
{
    return mesh_add(w, e, d, vertices, vertex_count, indices, triangle_count, "add_mesh_body");
}

static int b_add_height_field(ct_world_o *w, ct_entity_t e, const ct_rigid_body_desc_t *d,
                              const float *heights, uint32_t columns, uint32_t rows, float cell_x,
                              float cell_z)
{
    physics__body_manager *m = bodies_of(w, "add_height_field_body");
    if (!m)
        return CT_ERR_INVALID;
    float *vertices;
    uint32_t *indices;
    const char *bad = physics__height_field_mesh(m->scene.bodies.a, heights, columns, rows, cell_x,
                                                 cell_z, &vertices, &indices);
    /* Only the heights here: the rest (a dead entity, a body already) is mesh_add's, after which
     * the arrays are freed whatever it said. Refusing a dead entity here leaked them. */
    if (bad) {
        refuse("add_height_field_body", w, e, "%s", bad);
        return strstr(bad, "out of memory") ? CT_ERR_NOMEM : CT_ERR_INVALID;
    }
    const uint32_t triangles = 2u * (columns - 1u) * (rows - 1u);
    const int err = mesh_add(w, e, d, vertices, columns * rows, indices, triangles,
                             "add_height_field_body");
    ct_free(m->scene.bodies.a, vertices, (size_t)columns * rows * 3u * sizeof *vertices);
    ct_free(m->scene.bodies.a, indices, (size_t)triangles * 3u * sizeof *indices);
    return err;
}

/* ---- v4: debug drawing ------------------------------------------------------------------ */

static uint32_t b_shapes(ct_world_o *w, uint32_t first, ct_physics_shape_t *out, uint32_t max)
{
    physics__body_manager *m = bodies_of(w, "shapes");
    if (!m)
        return 0;
    const physics__bodies *b = &m->scene.bodies;
    max = list_room(out, max, "shapes", w);
    const uint32_t end = first < b->n ? first + (max < b->n - first ? max : b->n - first) : first;
    for (uint32_t i = first; i < end; i++) {
        ct_physics_shape_t *o = &out[i - first];
        const physics__v3 h = b->half[i];
        const physics__quat q = b->rotation[i];
        const uint8_t shape = b->shape[i];
        *o = (ct_physics_shape_t){
            .entity = b->entity[i].id,
            .shape = shape,
            .kind = b->kind[i],
            .sleeping = b->asleep[i] ? 1u : 0u,
            .radius = shape == CT_BODY_BOX ? 0.0f : b->radius[i],
            .half_height = shape == CT_BODY_CAPSULE ? h.y - b->radius[i] : 0.0f,
            .rotation = {q.x, q.y, q.z, q.w},
        };
        if (shape == CT_BODY_BOX || shape == CT_BODY_HULL || shape == CT_BODY_COMPOUND ||
            shape == CT_BODY_MESH)
            v3_store(h, o->half_extents);
        v3_store(b->position[i], o->position);
    }
    return b->n;
}

/* ---- v4: joints ----------------------------------------------------------------------------- */

static int j_add(ct_world_o *w, ct_entity_t a, ct_entity_t b, const ct_joint_desc_t *d,
                 ct_physics_joint_t *out)
{
    physics__body_manager *m = bodies_of(w, "add_joint");
    if (!m || busy(m, "add_joint", w, a))
        return CT_ERR_INVALID;
    physics__bodies *bs = &m->scene.bodies;
    const uint32_t i = physics__bodies_find(bs, a);
    const uint32_t k = b.id ? physics__bodies_find(bs, b) : UINT32_MAX;
    char why[sizeof physics__refusal];
    const char *bad = !d ? "desc (NULL)"
                      : !out
                          ? "out (NULL)"
                          : physics__joint_given(d, physics__joint_desc_error(d), why, sizeof why);
    if (!bad && (i == UINT32_MAX || (b.id && k == UINT32_MAX))) {
        snprintf(physics__refusal, sizeof physics__refusal,
                 "%s (entity %u has no body in this world: never given one, removed or destroyed)",
                 i == UINT32_MAX ? "a" : "b", i == UINT32_MAX ? a.id : b.id);
        PHYSICS_LOG(CT_LOG_ERROR, "add_joint: world %p, entities %u and %u: %s", (void *)w, a.id,
                    b.id, physics__refusal);
        return CT_ERR_NOT_FOUND;
    }
    if (!bad && a.id == b.id)
        bad = "b (a body cannot be joined to itself)";
    if (!bad && bs->kind[i] != CT_BODY_DYNAMIC &&
        (k == UINT32_MAX || bs->kind[k] != CT_BODY_DYNAMIC))
        bad = "a, b (one of them must be dynamic)";
    if (bad) {
        snprintf(physics__refusal, sizeof physics__refusal, "%s refused", bad);
        PHYSICS_LOG(CT_LOG_ERROR, "add_joint: world %p, entities %u and %u: %s", (void *)w, a.id,
                    b.id, physics__refusal);
        return CT_ERR_INVALID;
    }
    uint32_t id = 0;
    const int err = physics__joints_add(&m->scene, k, i, d, &id);
    if (err)
        return err;
    physics__scene_wake(&m->scene, i);
    if (k != UINT32_MAX)
        physics__scene_wake(&m->scene, k);
    m->scene.quiet = false;
    out->id = id;
    return 0;
}

static physics__joint *joint_of(ct_world_o *w, ct_physics_joint_t j, const char *what,
                                physics__body_manager **m)
{
    *m = bodies_of(w, what);
    return *m ? physics__joints_find(&(*m)->scene, j.id) : NULL;
}

static int j_remove(ct_world_o *w, ct_physics_joint_t j)
{
    physics__body_manager *m = bodies_of(w, "remove_joint");
    if (busy(m, "remove_joint", w, (ct_entity_t){0}))
        return CT_ERR_INVALID;
    return m && physics__joints_remove(&m->scene, j.id) ? 0 : CT_ERR_NOT_FOUND;
}

static int j_force(ct_world_o *w, ct_physics_joint_t j, float force[3], float torque[3])
{
    physics__body_manager *m;
    const physics__joint *jt = joint_of(w, j, "joint_force", &m);
    if (!jt)
        return CT_ERR_NOT_FOUND;
    if (force)
        v3_store(jt->force, force);
    if (torque)
        v3_store(jt->torque, torque);
    return 0;
}

static int j_value(ct_world_o *w, ct_physics_joint_t j, float *out)
{
    physics__body_manager *m;
    const physics__joint *jt = joint_of(w, j, "joint_value", &m);
    if (!jt)
        return CT_ERR_NOT_FOUND;
    if (!out) {
        snprintf(physics__refusal, sizeof physics__refusal, "out (NULL)");
        PHYSICS_LOG(CT_LOG_ERROR, "joint_value: world %p, joint %u: out (NULL) refused", (void *)w,
                    j.id);
        return CT_ERR_INVALID;
    }
    *out = physics__joint_value(&m->scene, jt);
    return 0;
}

static int j_set_motor(ct_world_o *w, ct_physics_joint_t j, float speed, float max_force)
{
    physics__body_manager *m;
    physics__joint *jt = joint_of(w, j, "set_joint_motor", &m);
    if (!jt)
        return CT_ERR_NOT_FOUND;
    if (busy(m, "set_joint_motor", w, (ct_entity_t){jt->eb}))
        return CT_ERR_INVALID;
    const char *bad = jt->type != CT_JOINT_HINGE && jt->type != CT_JOINT_SLIDER
                          ? "joint (a motor is for hinges and sliders)"
                      : !f_within(speed, -CT_PHYSICS_MAX_SPEED, CT_PHYSICS_MAX_SPEED)
                          ? "motor_speed (within +-1e4)"
                      : !f_within(max_force, 0.0f, CT_PHYSICS_MAX_FORCE)
                          ? "max_motor_force (within [0, 1e12])"
                          : NULL;
    if (bad) {
        /* The entities as add_joint took them (the joint's eb is its a). */
        snprintf(physics__refusal, sizeof physics__refusal, "entities %u and %u: %s refused", jt->eb,
                 jt->ea, bad);
        PHYSICS_LOG(CT_LOG_ERROR, "set_joint_motor: world %p, joint %u, %s", (void *)w, j.id,
                    physics__refusal);
        return CT_ERR_INVALID;
    }
    jt->flags |= CT_JOINT_MOTOR;
    jt->motor_speed = speed;
    jt->motor_max = max_force;
    const uint32_t a = physics__bodies_find(&m->scene.bodies, (ct_entity_t){jt->ea});
    if (a != UINT32_MAX)
        physics__scene_wake(&m->scene, a);
    return 0;
}

static uint32_t j_count(ct_world_o *w)
{
    physics__body_manager *m = bodies_of(w, "joint_count");
    return m ? m->scene.joints.n : 0;
}

/* ---- v4: characters --------------------------------------------------------------------------- */

static int c_add(ct_world_o *w, ct_entity_t e, const ct_character_desc_t *d)
{
    const char *bad = !d ? "desc (NULL)"
                      : !f_within(d->max_step, 0.0f, CT_PHYSICS_MAX_SIZE)
                          ? "max_step (within [0, 1e4] m)"
                      : !f_within(d->max_slope, 0.0f, 1.5f) ? "max_slope (within [0, 1.5] rad)"
                                                            : NULL;
    /* Its capsule's fields are the body's, which rigid_add names. */
    char why[sizeof physics__refusal];
    if (d) {
        const physics__given_field fields[] = {{"max_step", 1, 'g', {d->max_step}},
                                               {"max_slope", 1, 'g', {d->max_slope}}};
        bad = physics__given(bad, fields, sizeof fields / sizeof fields[0], why, sizeof why);
    }
    physics__body_manager *m = adding(w, e, bad, "add_character");
    if (!m)
        return CT_ERR_INVALID;
    const ct_rigid_body_desc_t body = {.kind = CT_BODY_KINEMATIC,
                                       .shape = CT_BODY_CAPSULE,
                                       .radius = d->radius,
                                       .half_height = d->half_height,
                                       .position = {d->position[0], d->position[1], d->position[2]},
                                       .locks = CT_BODY_LOCK_ROTATION};
    if (physics__bodies_find(&m->scene.bodies, e) != UINT32_MAX)
        return CT_ERR_CONFLICT;
    int err = rigid_add(w, e, &body, "add_character");
    if (err)
        return err;
    /* Upright whatever the transform says. */
    physics__bodies *b = &m->scene.bodies;
    const uint32_t i = physics__bodies_find(b, e);
    b->rotation[i] = b->synced_rotation[i] = quat_identity();
    physics__bodies_classify(b, i);
    err = physics__characters_add(&m->scene, e.id, d->max_step, d->max_slope);
    if (err)
        physics__scene_remove(&m->scene, e);
    return err;
}

/* A move's watch over its world (c_move): destroy_bodies tells it when the character's contact
 * callback destroyed the world. The mover looks at the flag after each call of the callback and
 * returns from there, up through each of its functions, touching nothing of the freed scene
 * (physics__character_move_watched). */
typedef struct physics__move_guard {
    bool world_gone;
} physics__move_guard;

void physics__move_guard_world_gone(physics__move_guard *guard) { guard->world_gone = true; }

/* Removes the bodies of the entities destroyed during a move (destroyed_bodies left them). */
static void remove_dead(physics__body_manager *m)
{
    physics__bodies *b = &m->scene.bodies;
    m->dead = false;
    for (uint32_t i = 0; i < b->n;)
        if (physics__m.entity->alive(b->entity[i]))
            i++;
        else
            physics__scene_remove(&m->scene, b->entity[i]); /* another body takes index i */
}

static int c_move(ct_world_o *w, ct_entity_t e, const float v[3], float dt,
                  ct_character_state_t *out)
{
    physics__body_manager *m = bodies_of(w, "move_character");
    if (!m)
        return CT_ERR_NOT_FOUND;
    physics__character *c = physics__characters_find(&m->scene, e.id);
    const uint32_t i = physics__bodies_find(&m->scene.bodies, e);
    if (!c || i == UINT32_MAX)
        return CT_ERR_NOT_FOUND;
    if (busy(m, "move_character", w, e))
        return CT_ERR_INVALID;
    if (!vec_ok(v, VEC_VELOCITY, "move_character", w, e))
        return CT_ERR_INVALID;
    if (!f_within(dt, CT_PHYSICS_MIN_DT, CT_PHYSICS_MAX_DT)) {
        refuse("move_character", w, e, "dt %g refused: must be within [1e-5, 1] s", (double)dt);
        return CT_ERR_INVALID;
    }
    physics__move_guard guard = {.world_gone = false};
    m->moving = e.id;
    m->guard = &guard;
    const int err =
        physics__character_move_watched(&m->scene, i, c, v3_load(v), dt, &guard.world_gone, out);
    if (guard.world_gone) {
        /* (m and c went with the world; w and e are arguments, never changed here.) */
        PHYSICS_LOG(CT_LOG_ERROR,
                    "move_character: world %p, entity %u: the world was destroyed by the "
                    "character's contact callback; the move ended there",
                    (void *)w, e.id);
        return CT_ERR_STALE;
    }
    m->moving = 0;
    m->guard = NULL;
    if (m->dead)
        remove_dead(m);
    if (err)
        refuse("move_character", w, e, "the move would pass 1e4 m/s");
    return err;
}

/* ---- v5: character settings ------------------------------------------------------------------ */

static int c_set_settings(ct_world_o *w, ct_entity_t e, const ct_character_settings_t *d)
{
    physics__body_manager *m = bodies_of(w, "set_character_settings");
    if (!m)
        return CT_ERR_NOT_FOUND;
    physics__character *c = physics__characters_find(&m->scene, e.id);
    if (!c || physics__bodies_find(&m->scene.bodies, e) == UINT32_MAX)
        return CT_ERR_NOT_FOUND;
    if (busy(m, "set_character_settings", w, e))
        return CT_ERR_INVALID;
    if (!desc_ok(physics__character_settings_error(d), "set_character_settings", w, e))
        return CT_ERR_INVALID;
    physics__character_set(c, d);
    return 0;
}

static int c_settings(ct_world_o *w, ct_entity_t e, ct_character_settings_t *out)
{
    physics__body_manager *m = bodies_of(w, "character_settings");
    if (!m)
        return CT_ERR_NOT_FOUND;
    const physics__character *c = physics__characters_find(&m->scene, e.id);
    if (!c || physics__bodies_find(&m->scene.bodies, e) == UINT32_MAX)
        return CT_ERR_NOT_FOUND;
    if (!out) {
        PHYSICS_LOG(CT_LOG_ERROR, "character_settings: world %p, entity %u: out (NULL)", (void *)w,
                    e.id);
        return CT_ERR_INVALID;
    }
    *out = physics__character_settings(c);
    return 0;
}

/* ---- v5: character contacts ------------------------------------------------------------------ */

/* Character e's contact record in w, or NULL when e is no character (logged naming `fn` when w
 * has no physics). */
static physics__character_contacts *character_contacts_of(ct_world_o *w, ct_entity_t e,
                                                          const char *fn)
{
    physics__body_manager *m = bodies_of(w, fn);
    if (!m)
        return NULL;
    const physics__character *c = physics__characters_find(&m->scene, e.id);
    if (!c || physics__bodies_find(&m->scene.bodies, e) == UINT32_MAX)
        return NULL;
    return physics__character_contacts_of(&m->scene, c);
}

static int c_set_contact_callback(ct_world_o *w, ct_entity_t e, ct_character_contact_f fn,
                                  void *user_data)
{
    physics__character_contacts *cc =
        character_contacts_of(w, e, "set_character_contact_callback");
    if (!cc)
        return CT_ERR_NOT_FOUND;
    if (busy(bodies_of(w, "set_character_contact_callback"), "set_character_contact_callback", w,
             e))
        return CT_ERR_INVALID;
    cc->fn = fn;
    cc->user_data = fn ? user_data : NULL;
    cc->world = w;
    return 0;
}

static uint32_t c_contacts(ct_world_o *w, ct_entity_t e, ct_character_contact_t *out, uint32_t max)
{
    const physics__character_contacts *cc = character_contacts_of(w, e, "character_contacts");
    if (!cc)
        return 0;
    for (uint32_t k = 0; k < cc->n && k < max && out; k++)
        out[k] = cc->c[k];
    return cc->n;
}

/* ---- v4: snapshots -------------------------------------------------------------------------- */

static uint32_t s_size(ct_world_o *w)
{
    physics__body_manager *m = bodies_of(w, "snapshot_size");
    physics__points *p = m ? points_of(w, "snapshot_size") : NULL;
    return m ? physics__snapshot_size(&m->scene, p) : 0u;
}

static uint32_t s_save(ct_world_o *w, void *buffer, uint32_t size)
{
    physics__body_manager *m = bodies_of(w, "save_snapshot");
    physics__points *p = m ? points_of(w, "save_snapshot") : NULL;
    return m ? physics__snapshot_save(&m->scene, p, buffer, size) : 0u;
}

static int s_restore(ct_world_o *w, const void *buffer, uint32_t size)
{
    physics__body_manager *m = bodies_of(w, "restore_snapshot");
    physics__points *p = m ? points_of(w, "restore_snapshot") : NULL;
    if (!m || busy(m, "restore_snapshot", w, (ct_entity_t){0}))
        return CT_ERR_INVALID;
    const char *bad = NULL;
    const int err = physics__snapshot_restore_why(&m->scene, p, buffer, size, &bad);
    if (bad)
        PHYSICS_LOG(CT_LOG_ERROR, "restore_snapshot: world %p: refused: %s", (void *)w, bad);
    if (err)
        return err;
    /* Every transform says what physics says again: the next step reads no teleport. */
    physics__bodies *b = &m->scene.bodies;
    for (uint32_t i = 0; i < b->n; i++) {
        b->synced[i] = v3(NAN, NAN, NAN);
        if (b->rotates[i])
            b->synced_rotation[i] = (physics__quat){NAN, NAN, NAN, NAN};
    }
    write_transforms(m);
    return 0;
}

/* Designated initialisers: neighbours that share a signature (velocity / position) cannot be
 * swapped silently. The older tables are the prefixes of this one. */
#define PHYSICS_V1_MEMBERS                                                                         \
    .add_point_mass = p_add, .remove_point_mass = p_remove, .point_position = p_position,          \
    .set_point_position = p_set_position, .point_velocity = p_velocity,                            \
    .set_point_velocity = p_set_velocity, .add_point_force = p_add_force, .simulate = simulate
#define PHYSICS_V2_MEMBERS                                                                         \
    PHYSICS_V1_MEMBERS,                                                                            \
        .add_body = b_add, .remove_body = b_remove, .set_velocity = b_set_velocity,                \
        .velocity = b_velocity, .add_force = b_add_force, .position = b_position,                  \
        .teleport = b_teleport, .set_gravity = set_gravity, .gravity = gravity,                    \
        .overlap_sphere = overlap_sphere, .raycast = raycast, .events = events,                    \
        .state_hash = state_hash, .body_count = body_count, .point_mass_count = point_mass_count
#define PHYSICS_V3_MEMBERS                                                                         \
    PHYSICS_V2_MEMBERS, .set_collision_filter = set_collision_filter,                              \
                        .collision_filter = collision_filter, .set_user_data = set_user_data,      \
                        .user_data = user_data, .overlap_sphere_masked = overlap_sphere_masked,    \
                        .raycast_masked = raycast_masked, .sleeping = sleeping, .wake = wake,      \
                        .set_sleeping = set_sleeping, .awake_count = awake_count

#define PHYSICS_V4_MEMBERS                                                                         \
    PHYSICS_V3_MEMBERS, .add_rigid_body = b_add_rigid, .rotation = b_rotation,                     \
                        .set_rotation = b_set_rotation, .angular_velocity = b_angular_velocity,    \
                        .set_angular_velocity = b_set_angular_velocity, .add_torque = b_add_torque, \
                        .add_force_at = b_add_force_at, .add_impulse_at = b_add_impulse_at,        \
                        .set_locks = b_set_locks, .locks = b_locks, .shapes = b_shapes,            \
                        .add_joint = j_add, .remove_joint = j_remove, .joint_force = j_force,      \
                        .joint_value = j_value, .set_joint_motor = j_set_motor,                    \
                        .joint_count = j_count, .add_character = c_add, .move_character = c_move,  \
                        .snapshot_size = s_size, .save_snapshot = s_save,                          \
                        .restore_snapshot = s_restore

/* ---- sensors (v5, physics_sensors.c) ------------------------------------------------------ */

static int b_set_sensor(ct_world_o *w, ct_entity_t e, bool on)
{
    const body_ref r = changed_body(w, e, "set_sensor");
    if (r.err)
        return r.err;
    const int err = physics__sensors_set(r.s, r.i, on);
    if (err == CT_ERR_INVALID) {
        PHYSICS_LOG(CT_LOG_ERROR,
                    "set_sensor: world %p, entity %u: a dynamic body cannot be a sensor (make it "
                    "static or kinematic)",
                    (void *)w, e.id);
        snprintf(physics__refusal, sizeof physics__refusal,
                 "entity %u: a dynamic body cannot be a sensor", e.id);
    }
    return err;
}

static bool b_is_sensor(ct_world_o *w, ct_entity_t e)
{
    physics__body_manager *m = bodies_of(w, "is_sensor");
    return m && physics__sensors_find(&m->scene, e.id) != NULL &&
           physics__bodies_find(&m->scene.bodies, e) != UINT32_MAX;
}

static uint32_t b_sensor_contents(ct_world_o *w, ct_entity_t e, ct_entity_t *out, uint32_t max)
{
    physics__body_manager *m = bodies_of(w, "sensor_contents");
    if (!m || physics__bodies_find(&m->scene.bodies, e) == UINT32_MAX)
        return 0;
    return physics__sensors_inside(&m->scene, e.id, out,
                                   list_room(out, max, "sensor_contents", w));
}

/* ---- damping (v5) -------------------------------------------------------------------------- */

static int b_set_damping(ct_world_o *w, ct_entity_t e, float linear, float angular)
{
    const body_ref r = changed_body(w, e, "set_damping");
    if (r.err)
        return r.err;
    const char *bad = physics__bodies_set_damping(r.b, r.i, linear, angular);
    if (bad) {
        refuse("set_damping", w, e, "%s refused (%g, %g)", bad, (double)linear, (double)angular);
        return CT_ERR_INVALID;
    }
    return 0;
}

static int b_damping(ct_world_o *w, ct_entity_t e, float *linear, float *angular)
{
    const body_ref r = find_body(w, e, "damping");
    if (r.err)
        return r.err;
    if (linear)
        *linear = r.b->damping[r.i].linear;
    if (angular)
        *angular = r.b->damping[r.i].angular;
    return 0;
}

/* The newest table; one member a line, so that appending merges cleanly. */
static ct_physics_joint_t j_of(ct_world_o *w, ct_entity_t e)
{
    return (ct_physics_joint_t){physics__joint_of(w, e)};
}

const ct_physics_api_v5 physics__api_v5 = {
    PHYSICS_V4_MEMBERS,
    .add_hull_body = b_add_hull,
    .add_compound_body = b_add_compound,
    .add_mesh_body = b_add_mesh,
    .add_height_field_body = b_add_height_field,
    .joint_of = j_of,
    .set_sensor = b_set_sensor,
    .is_sensor = b_is_sensor,
    .sensor_contents = b_sensor_contents,
    .shape_cast = physics__shape_cast,
    .set_character_settings = c_set_settings,
    .character_settings = c_settings,
    .set_character_contact_callback = c_set_contact_callback,
    .character_contacts = c_contacts,
    .set_damping = b_set_damping,
    .damping = b_damping,
};
const ct_physics_api_v4 physics__api_v4 = {PHYSICS_V4_MEMBERS};

const ct_physics_api_v3 physics__api_v3 = {PHYSICS_V3_MEMBERS};
const ct_physics_api_v2 physics__api_v2 = {PHYSICS_V2_MEMBERS};
static const ct_physics_api_v1 api_v1 = {PHYSICS_V1_MEMBERS};

/* ---- plugin ------------------------------------------------------------------------------- */

static int start(void)
{
    int err = physics__register_components();
    if (err < 0)
        return err;
    if ((err = physics__fields_register()) < 0) {
        physics__unregister_components();
        return err;
    }
    if ((err = physics__joint_component_register()) < 0) {
        physics__fields_unregister();
        physics__unregister_components();
        return err;
    }
    if ((err = physics__mesh_res_register()) < 0) {
        physics__joint_component_unregister();
        physics__fields_unregister();
        physics__unregister_components();
        return err;
    }
    physics__register_lua();
    return 0;
}

static void stop(void)
{
    physics__mesh_res_unregister();
    physics__joint_component_unregister();
    physics__fields_unregister();
    physics__unregister_components();
}

/* Points the Lua functions (the kernel swaps them in place, or back if we refuse) and both
 * component types at this code. The API tables are the kernel's to swap. */
static int rebind(void)
{
    physics__register_lua();
    if (!physics__fields_rebind())
        return CT_ERR_VERSION;
    if (!physics__joint_component_rebind())
        return CT_ERR_VERSION;
    if (!physics__mesh_res_rebind())
        return CT_ERR_VERSION;
    return physics__rebind_components() ? 0 : CT_ERR_VERSION;
}

static const ct_api_ref_t provides[] = {
    CT_API_PROVIDE("ct.physics", 1, ct_physics_api_v1),
    CT_API_PROVIDE("ct.physics", 2, ct_physics_api_v2),
    CT_API_PROVIDE("ct.physics", 3, ct_physics_api_v3),
    CT_API_PROVIDE("ct.physics", 4, ct_physics_api_v4),
    CT_API_PROVIDE("ct.physics", 5, ct_physics_api_v5),
};

/* Managers allocate from the per-world allocator the component registry hands them; the plugin
 * allocator (ct.memory) holds the module's state and serves scratch for the Lua bindings. */
static const ct_module_api_t apis[] = {
    CT_MODULE_API(entity, 2, &physics__m.entity),
    CT_MODULE_API(component, 2, &physics__m.component),
    CT_MODULE_API(transform, 2, &physics__m.transform),
    CT_MODULE_API(world, 1, &physics__m.world),
    CT_MODULE_API(log, 1, &physics__m.log),
    CT_MODULE_API_NO_SLOT(memory, 1),
    CT_MODULE_API(lua, 1, &physics__m.lua),
    CT_MODULE_API(data, 1, &physics__m.data),
    CT_MODULE_API(resource, 6, &physics__m.resource),
    CT_MODULE_API_OPTIONAL(jobs, 1, &physics__m.jobs),
    CT_MODULE_API_OPTIONAL(transform, 4, &physics__m.transform_changes), /* v4: changes */
    CT_MODULE_API_OPTIONAL(expr, 1, &physics__m.expr),
    CT_MODULE_API_OPTIONAL(profiler, 1, &physics__m.profiler),
    CT_MODULE_API_OPTIONAL(debug_name, 1, &physics__m.debug_name), /* joints' `to` */
};

/* The old code may keep running (the new code can refuse), so a reload hands the state over as
 * is. */
static const ct_module_v3_t module = {
    .plugin = {CT_MODULE_V3_HOOKS, .name = "ct.physics", .version = {4, 0, 0, 0},
               .provides = provides, .num_provides = CT_ARRAY_COUNT(provides)},
    .apis = apis,
    .num_apis = CT_ARRAY_COUNT(apis),
    .module = {.self = &physics__m.self,
               .allocator = &physics__m.allocator,
               .state = &physics__m.state,
               .state_size = sizeof(physics__state),
               .layout_version = PHYSICS_LAYOUT_VERSION,
               .start = start,
               .stop = stop,
               .rebind = rebind},
};

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static const ct_api_table_t tables[] = {
        {CT_PHYSICS_API, 1, &api_v1},
        {CT_PHYSICS_API, 2, &physics__api_v2},
        {CT_PHYSICS_API, 3, &physics__api_v3},
        {CT_PHYSICS_API, 4, &physics__api_v4},
        {CT_PHYSICS_API, 5, &physics__api_v5},
    };
    return ct_module_v3_serve(&module, tables, CT_ARRAY_COUNT(tables), api, version);
}
