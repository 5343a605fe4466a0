/*
 * physics_internal.h: the physics module's private contract between its files.
 *
 * The core (map, points, bodies, broadphase, solver, events) knows nothing of the kernel: it
 * takes an allocator and plain arrays, so tests and the benchmark compile it directly. physics.c
 * binds it to worlds, entities and transforms; physics_component.c to component types and
 * resources; physics_lua.c to Lua.
 */
#ifndef PHYSICS_INTERNAL_H
#define PHYSICS_INTERNAL_H

#include "ct_data.h"
#include "ct_entity.h"
#include "ct_jobs.h"
#include "ct_log.h"
#include "ct_lua.h"
#include "ct_physics.h"
#include "ct_reload.h"
#include "ct_resource.h"
#include "ct_transform.h"
#include "ct_world.h"

#include <math.h>

/* ---- Vectors ----------------------------------------------------------------------------- */

typedef struct physics__v3 {
    float x, y, z;
} physics__v3;

static inline physics__v3 v3(float x, float y, float z) { return (physics__v3){x, y, z}; }
static inline physics__v3 v3_add(physics__v3 a, physics__v3 b)
{
    return v3(a.x + b.x, a.y + b.y, a.z + b.z);
}
static inline physics__v3 v3_sub(physics__v3 a, physics__v3 b)
{
    return v3(a.x - b.x, a.y - b.y, a.z - b.z);
}
static inline physics__v3 v3_scale(physics__v3 a, float s) { return v3(a.x * s, a.y * s, a.z * s); }
/* Plain comparisons rather than fminf/fmaxf: without -ffast-math those are library calls, and
 * these sit in the broadphase's inner loops. (NaN never reaches them: inputs are checked.) */
static inline float f_min(float a, float b) { return a < b ? a : b; }
static inline float f_max(float a, float b) { return a > b ? a : b; }
static inline physics__v3 v3_min(physics__v3 a, physics__v3 b)
{
    return v3(f_min(a.x, b.x), f_min(a.y, b.y), f_min(a.z, b.z));
}
static inline physics__v3 v3_max(physics__v3 a, physics__v3 b)
{
    return v3(f_max(a.x, b.x), f_max(a.y, b.y), f_max(a.z, b.z));
}
static inline float v3_dot(physics__v3 a, physics__v3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static inline physics__v3 v3_cross(physics__v3 a, physics__v3 b)
{
    return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline float v3_len(physics__v3 a) { return sqrtf(v3_dot(a, a)); }
static inline float v3_get(physics__v3 a, int k) { return k == 0 ? a.x : k == 1 ? a.y : a.z; }
static inline physics__v3 v3_load(const float p[3]) { return v3(p[0], p[1], p[2]); }
static inline void v3_store(physics__v3 a, float out[3])
{
    out[0] = a.x;
    out[1] = a.y;
    out[2] = a.z;
}
static inline bool v3_finite(physics__v3 a)
{
    return isfinite(a.x) && isfinite(a.y) && isfinite(a.z);
}
/* Quaternions (x, y, z, w), unit length: the rotations of v4 bodies. */
typedef struct physics__quat {
    float x, y, z, w;
} physics__quat;

static inline physics__quat quat_identity(void) { return (physics__quat){0, 0, 0, 1}; }
static inline physics__v3 quat_rotate(physics__quat q, physics__v3 v)
{
    const physics__v3 u = v3(q.x, q.y, q.z);
    const physics__v3 t = v3_scale(v3_cross(u, v), 2.0f);
    return v3_add(v3_add(v, v3_scale(t, q.w)), v3_cross(u, t));
}
static inline physics__v3 quat_unrotate(physics__quat q, physics__v3 v)
{
    return quat_rotate((physics__quat){-q.x, -q.y, -q.z, q.w}, v);
}
static inline physics__quat quat_normalize(physics__quat q)
{
    const float l = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    const float s = l > 0.0f ? 1.0f / l : 0.0f;
    return l > 0.0f ? (physics__quat){q.x * s, q.y * s, q.z * s, q.w * s} : quat_identity();
}
/* q advanced by the rotation vector w * h (the first-order step, normalised). */
static inline physics__quat quat_integrate(physics__quat q, physics__v3 w, float h)
{
    const float hx = 0.5f * h * w.x, hy = 0.5f * h * w.y, hz = 0.5f * h * w.z;
    const physics__quat d = {hx * q.w + hy * q.z - hz * q.y, hy * q.w + hz * q.x - hx * q.z,
                             hz * q.w + hx * q.y - hy * q.x, -hx * q.x - hy * q.y - hz * q.z};
    return quat_normalize((physics__quat){q.x + d.x, q.y + d.y, q.z + d.z, q.w + d.w});
}
static inline physics__quat quat_mul(physics__quat a, physics__quat b)
{
    return (physics__quat){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                           a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                           a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                           a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
/* The inverse of a unit quaternion. */
static inline physics__quat quat_conj(physics__quat q)
{
    return (physics__quat){-q.x, -q.y, -q.z, q.w};
}
static inline float quat_dot(physics__quat a, physics__quat b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}
static inline bool quat_is_identity(physics__quat q)
{
    return q.x == 0.0f && q.y == 0.0f && q.z == 0.0f && q.w == 1.0f;
}

/* Range checks of ct_physics.h's Ranges, written so that NaN fails them. */
static inline bool v3_within(physics__v3 a, float limit)
{
    return fabsf(a.x) <= limit && fabsf(a.y) <= limit && fabsf(a.z) <= limit;
}
static inline bool f_within(float x, float lo, float hi) { return x >= lo && x <= hi; }
static inline bool v3_speed_ok(physics__v3 v)
{
    return v3_within(v, CT_PHYSICS_MAX_SPEED) &&
           v3_dot(v, v) <= CT_PHYSICS_MAX_SPEED * CT_PHYSICS_MAX_SPEED;
}

/* ---- Worker pool -------------------------------------------------------------------------
 * The core splits its larger loops across threads through this pair, without knowing the
 * kernel: physics.c points it at ct.jobs, tests and the benchmark may do the same. A zero pool
 * runs everything on the calling thread. The work is cut into slices whose bounds depend only on
 * the data, never on the thread count, and each slice writes its own range, joined in slice
 * order: results are bit-identical with any pool or none. */

/* Calls fn(user_data, begin, end) on ranges covering [0, count), at most `grain` items each, on
 * any threads, and returns when all are done (ct_jobs_api_v1.parallel_for plus a context). */
typedef void (*physics__parallel_for_f)(void *ctx, uint32_t count, uint32_t grain, ct_range_f fn,
                                        void *user_data);

typedef struct physics__pool {
    physics__parallel_for_f parallel_for; /* NULL: serial */
    void *ctx;
    uint32_t threads; /* how many threads run its ranges, the caller's included (0: not known) */
} physics__pool;

/* ---- Timeline (physics_trace.c) ----------------------------------------------------------
 * A build with -DPHYSICS_TRACE_TIMELINE records when each thread runs what in a step (a build
 * for measuring; bench/physics/physics_timeline.py reads the file). Without it, PHYSICS_TRACE is
 * nothing. */
enum {
    PHYSICS_TRACE_STEP,        /* a: whether on a pool */
    PHYSICS_TRACE_STEP_END,
    PHYSICS_TRACE_SECTION,     /* a parallel section on the pool; a: 0 a pool run (with its
                                * function), 1 stages */
    PHYSICS_TRACE_SECTION_END, /* b: its count (a pool run) or stages */
    PHYSICS_TRACE_RANGE,       /* a pool run's range [a, b) on some thread */
    PHYSICS_TRACE_RANGE_END,
    PHYSICS_TRACE_JOIN,        /* a thread takes part in a stages section */
    PHYSICS_TRACE_PART_END,
    PHYSICS_TRACE_ARRIVE,      /* at stage a (b: its items; the caller's: its function) */
    PHYSICS_TRACE_ITEM,        /* stage a's item b */
    PHYSICS_TRACE_ITEM_END,
    PHYSICS_TRACE_DRAINED,     /* nothing left to claim in stage a: the wait starts */
    PHYSICS_TRACE_WAITED,      /* stage a finished: the wait ends */
    PHYSICS_TRACE_NAP,
    PHYSICS_TRACE_NAP_END,
};
#ifdef PHYSICS_TRACE_TIMELINE
void physics__trace(uint32_t kind, uint32_t a, uint32_t b, uint64_t fn);
void physics__trace_pool_run(physics__pool pool, uint32_t count, ct_range_f fn, void *user_data);
#define PHYSICS_TRACE(kind, a, b) physics__trace(kind, a, b, 0)
#define PHYSICS_TRACE_FN(kind, a, b, fn) physics__trace(kind, a, b, (uint64_t)(uintptr_t)(fn))
#else
#define PHYSICS_TRACE(kind, a, b) ((void)0)
#define PHYSICS_TRACE_FN(kind, a, b, fn) ((void)0)
#endif

/* Runs fn over the slices [0, count), one slice per range. */
static inline void physics__pool_run(physics__pool pool, uint32_t count, ct_range_f fn,
                                     void *user_data)
{
#ifdef PHYSICS_TRACE_TIMELINE
    physics__trace_pool_run(pool, count, fn, user_data);
    return;
#endif
    if (pool.parallel_for && count > 1)
        pool.parallel_for(pool.ctx, count, 1, fn, user_data);
    else
        fn(user_data, 0, count);
}

/* ---- Stages (physics_stages.c) ------------------------------------------------------------
 * Parallel sections that follow one another, given to the pool as one: each stage starts once
 * every item of the one before has finished (a barrier the threads meet at, instead of a join and
 * a new section). With no pool the stages run in order on the calling thread, each as one call of
 * its function over its whole range: the plain serial loop. Built anew for each run. */
typedef struct physics__stage {
    ct_range_f fn;
    void *user;     /* NULL: `data` below */
    uint32_t count; /* fn covers [0, count) */
    uint32_t grain; /* the items handed out are ranges of this many (count: one item) */
    _Alignas(16) unsigned char data[48]; /* a small job kept with the stage (user NULL) */
} physics__stage;

typedef struct physics__stages {
    physics__stage *stage;
    uint32_t n, cap;
    struct physics__stage_counter *counter;
    uint32_t cap_counter;
    struct physics__stage_claim *claim; /* the items' claims of a run, stage after stage */
    uint32_t cap_claim;
    uint32_t *cut; /* each item's first range (of `grain`), as the claims */
    uint32_t cap_cut;
    bool failed;   /* an add ran out of memory: the run reports it and runs nothing */
    uint32_t naps; /* waits at a stage's end that went to sleep (a busy machine), all runs */
    uint64_t runs; /* runs on the pool so far: the claims of the last one are told apart by it */
} physics__stages;

/* Appends a stage running fn over [0, count) in items of `grain` (0 or >= count: one item, run
 * by one thread together with the single-item stages right after it). fn gets `user`, or with
 * job_size > 0 a copy of the job `user` points at (at most sizeof data bytes) kept with the stage.
 * Nothing is added when count is 0; when memory runs out, physics__stages_run fails. */
void physics__stages_add(physics__stages *st, ct_allocator_t *a, ct_range_f fn, void *user,
                         size_t job_size, uint32_t count, uint32_t grain);
/* Runs the stages added since the last run, in order (see above), and forgets them. by_section:
 * each stage of several items is its own parallel section on the pool, and the single-item ones
 * run on the calling thread, as separate pool runs would do (for a pool that times its jobs: the
 * benchmark's serial share, physics__scene.pool_timed). */
int physics__stages_run(physics__stages *st, ct_allocator_t *a, physics__pool pool,
                        bool by_section);
void physics__stages_free(physics__stages *st, ct_allocator_t *a);

/* ---- u64 -> u32 hash map (physics_map.c) ---------------------------------------------------
 * Open addressing with linear probing, one allocation, power-of-two capacity kept under 50%
 * load. Maps entity ids to instance indices. */

#define PHYSICS_MAP_EMPTY UINT64_MAX

typedef struct physics__map_slot {
    uint64_t key;
    uint32_t value;
    uint32_t pad_;
} physics__map_slot;

typedef struct physics__map {
    ct_allocator_t *a;
    physics__map_slot *slots;
    uint32_t cap; /* power of two, or 0 */
    uint32_t count;
} physics__map;

/* Makes room for n keys (keeps the contents). 0 or CT_ERR_NOMEM. */
int physics__map_reserve(physics__map *m, uint32_t n);
/* The value slot of key, inserted with value `fresh` when absent (room must be reserved). */
uint32_t *physics__map_upsert(physics__map *m, uint64_t key, uint32_t fresh);
/* The value of key, or UINT32_MAX. */
uint32_t physics__map_get(const physics__map *m, uint64_t key);
void physics__map_remove(physics__map *m, uint64_t key);
void physics__map_free(physics__map *m);

/* ---- Structure-of-arrays buffers (physics_map.c) ------------------------------------------
 * Every manager keeps its arrays in one allocation. A field gives the offset of an array pointer
 * inside the owner struct and the element size; growing copies the first n elements of each
 * array into one new buffer and repoints them. */

typedef struct physics__soa_field {
    size_t offset;
    size_t size;
} physics__soa_field;

int physics__soa_grow(ct_allocator_t *a, void *owner, void **buffer, const physics__soa_field *f,
                      uint32_t num_fields, uint32_t n, uint32_t old_cap, uint32_t new_cap);
void physics__soa_free(ct_allocator_t *a, void **buffer, const physics__soa_field *f,
                       uint32_t num_fields, uint32_t cap);
#define PHYSICS_NUM_FIELDS(f) ((uint32_t)(sizeof f / sizeof f[0]))

/* Grows an array of `size`-byte elements to at least `need` (doubling from 256, contents
 * dropped: every user refills it). 0 or CT_ERR_NOMEM (the array is then as it was). */
int physics__reserve(ct_allocator_t *a, void **array, uint32_t *cap, uint32_t need, size_t size);
/* As physics__reserve, keeping the contents. */
int physics__reserve_keep(ct_allocator_t *a, void **array, uint32_t *cap, uint32_t need,
                          size_t size);
/* The same for structure-of-arrays buffers (physics__soa_grow), whose capacity doubles alike. */
int physics__reserve_soa(ct_allocator_t *a, void *owner, void **buffer, const physics__soa_field *f,
                         uint32_t num_fields, uint32_t *cap, uint32_t need);

/* ---- Point masses (physics_points.c): part 2's component ----------------------------------- */

typedef struct physics__points {
    ct_allocator_t *a;
    uint32_t n, cap;
    void *buffer; /* the one allocation behind the arrays below */
    ct_entity_t *entity;
    float *mass;
    physics__v3 *position;
    physics__v3 *velocity;
    physics__v3 *acceleration; /* force accumulator divided by mass; cleared by simulate */
    physics__map map;          /* entity id -> instance */
} physics__points;

int physics__points_reserve(physics__points *p, uint32_t n);
int physics__points_add(physics__points *p, ct_entity_t e, const ct_point_mass_desc_t *d);
/* Swap-erase; false if e has no point mass. */
bool physics__points_remove(physics__points *p, ct_entity_t e);
/* Instance of e, or UINT32_MAX. */
uint32_t physics__points_find(const physics__points *p, ct_entity_t e);
/* v += a dt; x += v dt; a = 0 for instances [begin, end). */
void physics__points_simulate(physics__points *p, uint32_t begin, uint32_t end, float dt);
void physics__points_free(physics__points *p);
/* Why a desc is bad ("mass", "position", ...), or NULL if it is fine. */
const char *physics__point_desc_error(const ct_point_mass_desc_t *d);

/* ---- Bodies (physics_bodies.c) ------------------------------------------------------------- */

/* A convex hull's corners, faces and edges, and a compound's children (physics_hull.h). */
typedef struct physics__hull physics__hull;
typedef struct physics__compound physics__compound;
typedef struct physics__mesh physics__mesh;
typedef struct physics__mesh_near physics__mesh_near;
typedef struct physics__mesh_tally physics__mesh_tally;

/* A body's damping (v5 set_damping), 1/s: dv/dt = -linear v, dw/dt = -angular w. */
typedef struct physics__damping {
    float linear, angular;
} physics__damping;

/* Velocity v after a step of h seconds under damping c (1/s): v / (1 + h c) (the factor:
 * physics__damping_factor), the implicit Euler
 * step of dv/dt = -c v (Box3D's and Box2D v3's Pade form, see set_damping in api/ct_physics.h).
 * Applied after the forces of that step, so a body falling with damping c keeps exactly g / c. */
static inline float physics__damping_factor(float c, float h)
{
    return 1.0f / (1.0f + h * c);
}

static inline physics__v3 physics__damped(physics__v3 v, float c, float h)
{
    return v3_scale(v, physics__damping_factor(c, h));
}

typedef struct physics__bodies {
    ct_allocator_t *a;
    uint32_t n, cap;
    void *buffer;
    ct_entity_t *entity;
    uint8_t *kind;  /* ct_body_kind */
    uint8_t *shape; /* ct_body_shape */
    physics__v3 *position;
    physics__v3 *velocity;
    physics__v3 *force;
    physics__v3 *half;   /* half extents; a sphere's radius in all three */
    physics__v3 *synced; /* position last written to / read from the transform */
    float *inv_mass;     /* 0 for static and kinematic */
    float *restitution;
    float *friction;
    uint32_t *layer,
        *mask; /* collision filter: a pair collides if each one's layer is in the other's mask */
    uint64_t *user_data;
    uint8_t *asleep;  /* dynamic bodies of a resting island: not moved, in the fixed grid */
    float *rest;      /* seconds a dynamic body has been slower than the sleep speed */
    uint32_t *island; /* a sleeping body's island: the entity id of one of its bodies */
    /* v4: rotation. A body "rotates" (needs the rigid solver, physics_rigid.c) when it is not a
     * v1-v3 body: rotation free on some axis, a rotation other than identity, a capsule, or a
     * linear lock. The others keep today's translation-only step, bit for bit. */
    physics__quat *rotation;
    physics__v3 *angular;     /* angular velocity, rad/s, world axes */
    physics__v3 *torque;      /* accumulated until the step */
    physics__v3 *inv_inertia; /* inverse principal moments, body axes (0 for static/kinematic) */
    physics__v3 *extent;      /* half extents of the world bounding box (= half when unrotated) */
    float *radius;            /* sphere and capsule */
    uint8_t *locks;           /* CT_BODY_LOCK_* */
    uint8_t *rotates;
    physics__quat *synced_rotation; /* rotation last written to / read from the transform */
    uint32_t num_rotating;          /* bodies with rotates set: the world uses the rigid solver */
    /* v5: damping (set_damping); {0, 0} unless set, and a body at {0, 0} is never scaled (its
     * velocities keep every bit). Only dynamic bodies are slowed. */
    physics__damping *damping;
    /* v5: the hull of a CT_BODY_HULL body (allocated from `a`), else NULL; bodies of one shape
     * share one, freed when the last of them goes. A hull body's `half` bounds its corners on
     * each axis. */
    physics__hull **hull;
    /* v5: the children of a CT_BODY_COMPOUND body (owned, from `a`), else NULL; `half` bounds
     * them. */
    physics__compound **compound;
    /* v5: the triangles of a CT_BODY_MESH body (owned, from `a`), else NULL. */
    physics__mesh **mesh;
    /* A list of one mesh's triangles near each body, by index (physics_mesh.c; not per body in the
     * arrays above, since a list is good for any body whose box it holds: a removal needs not
     * move it). num_near slots, from `a`; the serials given to meshes so far. */
    physics__mesh_near *near;
    uint32_t num_near, mesh_serial;
    /* What searches against meshes tell the owner (physics_hull.h), with the near slots; per body,
     * whether the owner has logged its search cut at PHYSICS_MESH_BUDGET (it logs each body
     * once). */
    physics__mesh_tally *mesh_tally;
    uint8_t *mesh_told;
    physics__map map;
    /* The hulls bodies use that physics__bodies_hull gave, each once: hull_map takes a hash of a
     * hull's shape (physics__hull.key) to its place in hulls[0 .. num_hulls). */
    physics__hull **hulls;
    uint32_t num_hulls, cap_hulls;
    physics__map hull_map;
} physics__bodies;

int physics__bodies_reserve(physics__bodies *b, uint32_t n);
int physics__bodies_add(physics__bodies *b, ct_entity_t e, const ct_body_desc_t *d);
bool physics__bodies_remove(physics__bodies *b, ct_entity_t e);
uint32_t physics__bodies_find(const physics__bodies *b, ct_entity_t e);
void physics__bodies_free(physics__bodies *b);
const char *physics__body_desc_error(const ct_body_desc_t *d);
/* v5: why a damping is bad ("linear_damping (must be ...)"), or NULL (NaN is outside). */
const char *physics__damping_error(float linear, float angular);
/* v5: body i's damping set (set_damping), or why not (physics__damping_error), leaving it. */
const char *physics__bodies_set_damping(physics__bodies *b, uint32_t i, float linear,
                                        float angular);
/* v4 bodies: why a desc is bad (the field and its range), or NULL; add one. */
const char *physics__rigid_desc_error(const ct_rigid_body_desc_t *d);
/* One field of a desc as its refusals name it (physics__given): the name the refusal's words
 * begin with ("radius", "lower, upper") and its n values, shown as numbers ('g'), whole numbers
 * ('u') or bits ('x'). */
typedef struct physics__given_field {
    const char *name;
    uint32_t n;
    char form;
    double v[4];
} physics__given_field;
/* A desc's refusal `bad` (what its *_desc_error said; NULL when the desc is good, which is
 * returned) with the value that came of the field it names, in out: "radius (must be within
 * [1e-3, 1e4] m), given 1e+30". bad as it is when it names none of the count fields. */
const char *physics__given(const char *bad, const physics__given_field *fields, uint32_t count,
                           char *out, size_t size);
/* physics__given over the fields of a rigid body's, a point mass's and a joint's desc. */
const char *physics__rigid_given(const ct_rigid_body_desc_t *d, const char *bad, char *out,
                                 size_t size);
const char *physics__point_given(const ct_point_mass_desc_t *d, const char *bad, char *out,
                                 size_t size);
const char *physics__joint_given(const ct_joint_desc_t *d, const char *bad, char *out, size_t size);
int physics__bodies_add_rigid(physics__bodies *b, ct_entity_t e, const ct_rigid_body_desc_t *d);
/* v5: the hull of b's bodies whose shape is built's, bit for bit (physics__hull_build made
 * it), or a copy of built from b->a that the next ones of that shape will share; NULL when out of
 * memory. A new copy is the caller's to give to physics__bodies_add_hull. */
physics__hull *physics__bodies_hull(physics__bodies *b, const physics__hull *built);
/* v5: a hull body (d->shape CT_BODY_HULL) using h, allocated from b->a: physics__bodies_hull's,
 * or one built in place. Any number of bodies may use one hull; the last of them to go frees it,
 * and so does an error when no body uses it. */
int physics__bodies_add_hull(physics__bodies *b, ct_entity_t e, const ct_rigid_body_desc_t *d,
                             physics__hull *h);
/* Why a hull or compound body's desc is bad (its sizes are not read), or NULL. */
const char *physics__hull_desc_error(const ct_rigid_body_desc_t *d);
const char *physics__compound_desc_error(const ct_rigid_body_desc_t *d);
/* Whether compound c has a child whose contacts' anchors turn (a capsule, a ball off the body's
 * centre), and the fastest (rad/s) any such child's axis or centre turns about the body's while
 * the body, turned q, spins at w (physics_compound.c; 0 with none). */
bool physics__compound_turns(const physics__compound *c, physics__quat q, physics__v3 w,
                             float *fastest);
/* Anchor r of compound c's body (from its centre, where a contact was found when the body was
 * turned `was`) as the body is turned now: moved with what carries it of the child it lies on
 * (physics_compound.c). */
physics__v3 physics__compound_turn_anchor(const physics__compound *c, physics__quat was,
                                          physics__quat now, physics__v3 r);
/* v5: a compound body (d->shape CT_BODY_COMPOUND), which takes c (freed on any error too). */
int physics__bodies_add_compound(physics__bodies *b, ct_entity_t e, const ct_rigid_body_desc_t *d,
                                 physics__compound *c);
/* v5: a static mesh body (d->shape CT_BODY_MESH), which takes m (freed on any error too). */
int physics__bodies_add_mesh(physics__bodies *b, ct_entity_t e, const ct_rigid_body_desc_t *d,
                             physics__mesh *m);
/* The principal moments of a solid box, sphere or capsule of mass m and even density. */
physics__v3 physics__shape_inertia(uint32_t shape, physics__v3 half_extents, float radius,
                                   float half_height, float m);
/* The rigid desc of a v1-v3 desc: rotation locked, no rotation. */
ct_rigid_body_desc_t physics__rigid_of(const ct_body_desc_t *d);
/* Recomputes whether body i rotates (and the count) after its locks, rotation or shape changed. */
void physics__bodies_classify(physics__bodies *b, uint32_t i);
/* The world inverse inertia of body i (symmetric 3x3, row major), locked axes zeroed. */
void physics__world_inv_inertia(const physics__bodies *b, uint32_t i, float out[9]);
/* The same for four bodies at once (body[k] into out[k], k < n; physics_lanes.h), with the same
 * bits: the rigid solver's gathering, every moving body every step. */
void physics__world_inv_inertia4(const physics__bodies *b, const uint32_t body[4], uint32_t n,
                                 float *out[4]);
/* That inverse inertia times v. */
physics__v3 physics__world_inv_inertia_times(const physics__bodies *b, uint32_t i, physics__v3 v);
/* Adds impulse (N s) at the world point `at` to dynamic body i's velocities, which stay within
 * their ranges and locks (the caller wakes it). */
void physics__bodies_impulse_at(physics__bodies *b, uint32_t i, physics__v3 impulse,
                                physics__v3 at);
/* The world bounding-box half extents of body i from its rotation, into extent[i]. */
void physics__bodies_extent(physics__bodies *b, uint32_t i);
/* Gives each of b's bodies a slot for a list of nearby triangles, each mesh its serial, and b its
 * mesh_tally, when b has meshes (physics_mesh.c; before a step's manifolds, on one thread).
 * Without slots (out of memory, or bodies added since) a mesh walks its tree for every body:
 * slower, the same contacts. physics__bodies_free frees them (physics__mesh_near_free). */
void physics__mesh_near_reserve(physics__bodies *b);
void physics__mesh_near_free(physics__bodies *b);

/* ---- Broadphase (physics_broadphase.c): the spatial hash -----------------------------------
 * The seed's pattern (grid coordinate -> hash -> the cell's items in one array), built by a
 * counting sort instead of insertions: every cell hashes to a bucket, and each bucket's items
 * lie contiguous in one array, in box order. Callers fill lo/hi (and `moving`) for n boxes after
 * physics__broadphase_resize, then build. Boxes larger than a few cells are kept out of the grid:
 * a few in a list tested against everything, many in a coarse grid of their own that every grid
 * box looks up. */

typedef struct physics__pair {
    uint32_t a, b; /* a < b */
} physics__pair;

typedef struct physics__cell {
    int32_t x, y, z;
} physics__cell;

/* One box in one bucket. The bounds are copied in so that finding pairs reads the buckets in
 * order rather than fetching every box's bounds from a random place. */
typedef struct physics__bp_item {
    physics__v3 lo, hi;
    uint32_t box;
    uint32_t moving;
} physics__bp_item;

/* A run of buckets whose pairs are found as one job (see BP_SLICE_ROOM). */
typedef struct physics__bp_slice {
    uint32_t room;  /* its first slot in `pairs`: its buckets' possible pairs lie before the next */
    uint32_t count; /* pairs it found */
    uint32_t first; /* its first bucket; the next slice's first ends it */
} physics__bp_slice;

/* What the build learns about a run of BP_SLICE_BOXES boxes, in one job: summed in slice order,
 * the parts give the same bits whichever threads made them. */
typedef struct physics__bp_part {
    double size_sum; /* the boxes' largest sides */
    physics__v3 center_lo, center_hi;
    physics__v3 grid_lo, grid_hi; /* of its boxes in the grid */
    physics__cell cells_lo, cells_hi;
    uint32_t items;     /* counted, then its first item */
    uint32_t num_large; /* its large boxes, listed from large[its first box] */
} physics__bp_part;

typedef struct physics__broadphase {
    ct_allocator_t *a;
    uint32_t level;     /* 0, or 1 for a coarse grid (which has no coarse grid of its own) */
    physics__pool pool; /* zero: serial. It points at code: owners set it before each build */
    uint32_t n, cap;
    void *buffer; /* lo, hi, moving, large, cells, cell_lo, cell_hi */
    physics__v3 *lo, *hi;
    uint8_t *moving; /* filled by the caller: pairs where neither box moves are skipped */
    uint32_t *large; /* boxes kept out of the grid */
    uint8_t *cells;  /* how many grid cells a box covers; 0 for a large box */
    physics__cell *cell_lo, *cell_hi; /* the build's scratch: the cells of lo and hi */
    uint32_t num_large;

    float cell, inv_cell;
    physics__v3 grid_lo, grid_hi; /* bounds of the boxes in the grid (clips ray walks) */
    /* Bucket k's boxes are item[bucket_start[k] .. bucket_start[k + 1]), ascending. Cells that
     * share a bucket share its range: users check the cell, not just the bucket. */
    uint32_t *bucket_start;           /* num_buckets + 1 entries */
    /* The build's scratch: per group of box slices, a count per bucket, then a place. */
    uint32_t *group_start;
    uint32_t cap_group_start;
    uint32_t num_buckets;             /* 0 before the first build */
    physics__cell cells_lo, cells_hi; /* the cells the grid's boxes cover */
    bool dense;            /* a bucket per cell within cells_lo..hi: x major, then y, then z */
    uint32_t dim_y, dim_z; /* dense: cells per row and per column */
    uint32_t bucket_shift; /* hashed: 64 - log2(num_buckets), a power of two */
    uint32_t cap_buckets;
    void *item_buffer; /* item, and the build's scratch item_bucket, item_box */
    physics__bp_item *item;
    uint32_t *item_bucket, *item_box;
    uint32_t num_items, cap_items;

    physics__bp_part *part; /* one per BP_SLICE_BOXES boxes */
    uint32_t cap_parts;
    physics__bp_slice *slice; /* num_slices + 1 entries: the last one's room is the total */
    uint32_t num_slices, cap_slices;

    /* The large boxes, when there are many, in a grid of their own with cells to their size
     * (box k there is large[k] here); NULL or unused (coarse_used false) when few. */
    struct physics__broadphase *coarse;
    bool coarse_used;
    physics__pair *pairs; /* output of physics__broadphase_pairs */
    uint32_t num_pairs, cap_pairs;
    uint32_t builds;    /* how many times it was built (tests check what reuses it) */
    uint32_t max_pairs; /* 0: no limit; else pairs past it are not looked for */
    uint32_t dropped;   /* the last physics__broadphase_pairs stopped at max_pairs */
    uint32_t *found;    /* output of physics__broadphase_overlap */
    uint32_t num_found, cap_found;
} physics__broadphase;

int physics__broadphase_resize(physics__broadphase *bp, uint32_t n);
/* Builds the grid. cell <= 0 derives the cell size from the boxes (their mean largest side). */
int physics__broadphase_build(physics__broadphase *bp, float cell);
/* Every overlapping pair (once, a < b, touching boxes count) into bp->pairs. */
int physics__broadphase_pairs(physics__broadphase *bp);
/* Every box overlapping [lo, hi] (once) into bp->found. */
int physics__broadphase_overlap(physics__broadphase *bp, physics__v3 lo, physics__v3 hi);
/* The same, calling fn(user, box) for each box found instead (a non-zero return stops the visit
 * and is returned); it changes nothing in the grid, so any threads may visit one at once. */
typedef int (*physics__found_f)(void *user, uint32_t box);
int physics__broadphase_visit(const physics__broadphase *bp, physics__v3 lo, physics__v3 hi,
                              physics__found_f fn, void *user);
/* physics__broadphase_visit for each of the boxes [lo[k], hi[k]], k in [first, last), in order,
 * calling fn(user, k, box) for each box found (a non-zero return stops the visits, as it stops
 * a visit). The same calls as a visit each; a grid of a few boxes tests them for every query in
 * one loop, instead of a call and a callback's frame each (the fixed grid of a level's one mesh,
 * asked by every moving box every step). */
typedef int (*physics__found_each_f)(void *user, uint32_t k, uint32_t box);
int physics__broadphase_visit_each(const physics__broadphase *bp, const physics__v3 *lo,
                                   const physics__v3 *hi, uint32_t first, uint32_t last,
                                   physics__found_each_f fn, void *user);
/* Walks the cells along origin + t dir (t in [0, max_t], dir normalised) in order and calls
 * hit(user, box, best) for boxes met, which returns the ray's distance to that box's shape or a
 * value > best. Stops once no cell ahead can hold anything nearer. Returns the best box or
 * UINT32_MAX; *t gets its distance. */
typedef float (*physics__ray_hit_f)(void *user, uint32_t box, float best);
uint32_t physics__broadphase_raycast(physics__broadphase *bp, physics__v3 origin, physics__v3 dir,
                                     float max_t, physics__ray_hit_f hit, void *user, float *t);
void physics__broadphase_free(physics__broadphase *bp);

/* ---- Events (physics_events.c) ------------------------------------------------------------ */

typedef struct physics__events {
    ct_allocator_t *a;
    uint8_t *bytes;
    uint32_t size, cap;
} physics__events;

/* Appends one [header][event] record (event padded to 4 bytes). 0 or CT_ERR_NOMEM. */
int physics__events_write(physics__events *s, uint32_t type, const void *event, uint32_t size);
/* Removes the first record of `type` whose event begins with entity ids a, b (a collision or
 * contact-ended event of that pair); whether there was one. */
bool physics__events_drop(physics__events *s, uint32_t type, uint32_t a, uint32_t b);
void physics__events_free(physics__events *s);

/* ---- Rigid bodies (physics_manifold.c, physics_rigid.c) ------------------------------------ */

#define PHYSICS_MANIFOLD_POINTS 4u
#define PHYSICS_MANIFOLD_MAX_CLIP 16u /* room while clipping, before the reduction to four */

typedef struct physics__manifold_point {
    physics__v3 point; /* world, midway between the surfaces */
    float sep;         /* negative: overlap */
    uint32_t id;       /* the features that made it (kept from step to step) */
} physics__manifold_point;

typedef struct physics__manifold_out {
    physics__v3 normal; /* from body a to body b */
    uint32_t count;
    physics__manifold_point p[PHYSICS_MANIFOLD_MAX_CLIP];
} physics__manifold_out;

/* The least separation of a manifold's points (INFINITY when it has none): how near two shapes
 * are, for the sweeps (physics_ccd.c) and a compound's deepest child pair (physics_compound.c). */
static inline float physics__manifold_least(const physics__manifold_out *m)
{
    float least = INFINITY;
    for (uint32_t q = 0; q < m->count; q++)
        least = f_min(least, m->p[q].sep);
    return least;
}

/* The manifold of bodies i and j (any shapes), points within margin (m) of touching. prefer_b:
 * two boxes' reference face was j's last step (see physics_manifold.c). */
void physics__manifold(const physics__bodies *b, uint32_t i, uint32_t j, float margin,
                       bool prefer_b, physics__manifold_out *m);
/* Keeps the four points of a manifold that hold the most (when it has more). */
void physics__manifold_reduce(physics__manifold_out *m);
/* How far apart bodies i and j are as posed (physics_distance.c: GJK on convex shapes and
 * compounds of them): a gap that is at most their true distance, along *normal (unit, from i to
 * j), INFINITY when it passes `far`. False, and nothing written, when it cannot tell: a mesh, a
 * compound of more than eight children, or shapes no further apart than `near` (touching ones
 * among them: their manifold measures how deep). */
bool physics__distance(const physics__bodies *b, uint32_t i, uint32_t j, float near, float far,
                       float *gap, physics__v3 *normal);
/* How two bodies close through a sweep's step (physics_ccd.c), for physics__distance_from: their
 * relative motion (i's against j's, m), each turn in the world's axes times the farthest its
 * surface is from its centre (a turn about the axis measured closes no gap along it), and the
 * gap `aim` a step may close a pair of parts to. */
typedef struct physics__closing {
    physics__v3 move, spin_i, spin_j;
    float aim;
} physics__closing;
/* The same, GJK starting from axis `hint` (unit, from i to j: the axis found for the two a moment
 * ago, which converges in fewer iterations than a guess from their centres) when each body is one
 * shape; a zero hint is no hint. Any hint gives a lower bound all the same. With `closing` and a
 * compound, every pair of parts is measured (none is left out for being further than the least)
 * and *step is the largest fraction of the step the sweep may advance keeping each pair's gap
 * along its own axis above closing->aim (INFINITY: every pair only opens); otherwise *step is
 * NAN. */
bool physics__distance_from(const physics__bodies *b, uint32_t i, uint32_t j, float near,
                            float far, physics__v3 hint, const physics__closing *closing,
                            float *step, float *gap, physics__v3 *normal);
/* The most manifolds one pair has: a body on a mesh gets one for each way the triangles it
 * touches face (a crease, a ridge, a peak; physics_mesh.c), every other pair one. Past this many
 * ways the shallowest are dropped: with 4, a 1 m board across a ridge of the scanned bunny
 * (test_physics_mesh_level's swept board 0) touched 5 or more, the deepest 4 were a steep flank
 * its end had dug into and the faces it rested on were dropped; it sank 3 mm, was pushed back
 * out, and rocked at 0.2 to 0.4 rad/s for as long as it ran. */
#define PHYSICS_MESH_MANIFOLDS 6u
/* The manifolds of bodies i and j into out[0 .. max) (max >= 1): how many were made, each with
 * points, deepest first (out[0] has no points when none was; the rest are not written past the
 * made ones). Only a pair with a mesh has more than one (a compound's: its children's), and
 * with max > 1 its first is not physics__manifold's (that one gathers the triangles of a wider
 * angle: physics_mesh.c; a compound's children merged). */
uint32_t physics__manifolds(const physics__bodies *b, uint32_t i, uint32_t j, float margin,
                            bool prefer_b, physics__manifold_out *out, uint32_t max);
/* The id bit of a point clipped against body b's face. */
#define PHYSICS_MANIFOLD_REFERENCE_B 0x8000u

/* One direction at one point of a rigid contact (or at its centre), with what the solver needs
 * precomputed: the anchors crossed with the direction, those turned by each body's inverse inertia
 * (the spin a unit impulse gives), the effective mass and the accumulated impulse. The anchors and
 * inertias are fixed for the step, so the inner loop has no matrix and no cross. */
typedef struct physics__rigid_row {
    physics__v3 ca, cb; /* ra x d, rb x d */
    physics__v3 ia, ib; /* Ia^-1 (ra x d), Ib^-1 (rb x d) */
    float mass, j;
} physics__rigid_row;

/* One point of a rigid contact: its normal row. */
typedef struct physics__rigid_point {
    physics__rigid_row n;
    float sep;    /* separation at detection */
    float max_jn; /* the largest normal impulse of the step (restitution needs one) */
    float rel_vn; /* normal relative velocity before the solve */
    float lever;  /* distance from the contact's centre: the twist friction it can hold */
    uint32_t id;
} physics__rigid_point;

/* A rigid contact: one manifold, as it is made and solved (the solver keeps it in a lane of its
 * blocks, physics_rigid_wide.c, or whole when it found no colour). Friction acts at the manifold's centre, as Box3D's does: two
 * tangent rows solved as one 2 x 2 block, within the cone of the summed normal impulses, and a
 * twist about the normal within the impulses times their lever arms. */
typedef struct physics__rigid_contact {
    uint64_t key; /* entity(a) << 32 | entity(b) */
    uint32_t a, b, count, cached;
    uint32_t pair; /* its manifold's slot: where its geometry is (physics__rigid.geo) */
    uint32_t passes; /* of its normal rows per solver pass: more for an impact (physics_rigid.c) */
    uint32_t turns;  /* 1: its anchors turn with the bodies every substep (a capsule's); 2: were
                      * turned once, to the step's start (physics_rigid.c, RIGID_ANCHORS_*) */
    physics__v3 normal, t1, t2;
    physics__v3 center_a;         /* the centre from a's centre (for the event's point) */
    physics__rigid_row f1, f2;    /* tangent rows at the centre (their masses unused) */
    float k11, k12, k22;          /* the inverse of the tangent block's 2 x 2 mass */
    physics__v3 twist_a, twist_b; /* Ia^-1 n, Ib^-1 n */
    float twist_mass, twist_j;
    float friction, restitution;
    float bias_rate, mass_scale, impulse_scale; /* the soft contact of this pair */
    /* The speeds along t1 and t2 that pull b's point at the centre back onto a's, where the two
     * were one point when the manifold was found: the friction's anchor (physics_rigid.c). */
    float anchor1, anchor2;
    physics__rigid_point p[PHYSICS_MANIFOLD_POINTS];
} physics__rigid_contact;

/* One point of a rigid contact as the step keeps it (physics__rigid_kept). */
typedef struct physics__rigid_kept_point {
    float sep;    /* separation at detection */
    float jn;     /* the normal impulse (the solver's, once it is done) */
    float max_jn; /* the largest normal impulse of the step (restitution needs one) */
    float rel_vn; /* normal relative velocity before the solve */
    uint32_t id;
} physics__rigid_kept_point;

/* What the step keeps of a rigid contact beside its solver block: what the passes after the
 * solve read (restitution, separations, the cache, events). Its rows are not kept: the anchors
 * are the manifold's (physics__rigid_geo, at slot `pair`) and the inertias the step's, so the
 * passes that need a row make it again, the same bits. 152 bytes where the whole contact has 568:
 * writing those for every contact was most of the contacts' making. */
typedef struct physics__rigid_kept {
    uint64_t key; /* entity(a) << 32 | entity(b) */
    uint32_t a, b, count;
    uint32_t pair;   /* its manifold's slot: where its geometry is (physics__rigid.geo) */
    uint32_t passes; /* of its normal rows per solver pass */
    uint32_t turns;  /* its anchors turn with the bodies (physics__rigid_contact) */
    float turned_sep; /* turning every substep: its deepest point's separation at the last */
    physics__v3 normal;
    physics__v3 center_a; /* the centre from a's centre (for the event's point) */
    float restitution;
    float f1, f2, twist; /* the friction and twist impulses (the solver's, once it is done) */
    physics__rigid_kept_point p[PHYSICS_MANIFOLD_POINTS];
} physics__rigid_kept;

/* A manifold as the rigid step keeps it from detection to its contact: what the contact reads
 * of physics__manifold_out (the points' positions are in physics__rigid_geo, from a's centre),
 * in 48 bytes instead of its 336 (room for the clipping's points): the contacts' walk over them
 * was a cache miss a manifold. */
typedef struct physics__rigid_manifold {
    physics__v3 normal;
    uint32_t count;
    float sep[PHYSICS_MANIFOLD_POINTS];
    uint32_t id[PHYSICS_MANIFOLD_POINTS];
} physics__rigid_manifold;

/* Where a rigid contact's manifold was found, for recycling it (physics_rigid.c): the bodies'
 * poses then, and the manifold's normal, its points from a's centre and their separations. While
 * the bodies stay close to that pose, the manifold is not found again: the points stay where they
 * were on the bodies and only their separations follow. The poses, the margin and the reference
 * face asked for are all physics__manifold read: from them a snapshot's restore finds the rest
 * again, bit for bit (physics__rigid_geo_find), so snapshots need not carry it. */
typedef struct physics__rigid_geo {
    physics__quat qa, qb;
    physics__v3 pa, pb; /* the centres; b's - a's is the offset the recycling follows */
    physics__v3 normal;
    physics__v3 ra[PHYSICS_MANIFOLD_POINTS];
    float sep[PHYSICS_MANIFOLD_POINTS];
    float margin;      /* the speculative margin it was found with */
    uint32_t prefer_b; /* the reference face asked for (physics__manifold's prefer_b) */
} physics__rigid_geo;

/* b's centre - a's centre when g was found. */
static inline physics__v3 physics__rigid_geo_d(const physics__rigid_geo *g)
{
    return v3_sub(g->pb, g->pa);
}

/* What a rigid contact remembers into the next step. Its impulses are kept in block floating
 * point (physics__rigid_quantise): the largest of the seven with 20 significant bits, the others
 * in steps of the same size. A warm start needs no more (the step's passes correct it by far
 * more), and it is what a snapshot stores of them, exactly, in a few bytes. */
typedef struct physics__rigid_cached {
    uint64_t key; /* with sub, the order of the cache */
    uint32_t count;
    uint8_t touching, asleep;
    uint16_t sub; /* which manifold of its pair (physics__manifolds): 0, 1, ... in a row */
    uint32_t id[PHYSICS_MANIFOLD_POINTS];
    float jn[PHYSICS_MANIFOLD_POINTS];
    float f1, f2; /* the centre's friction impulse along the tangents of geo.normal */
    float twist;
    physics__rigid_geo geo;
} physics__rigid_cached;

/* The significant bits a contact's largest cached impulse keeps. */
#define PHYSICS_IMPULSE_BITS 20
/* Impulses below this are dropped from the cache (they warm start nothing). */
#define PHYSICS_IMPULSE_TINY 1e-30f

/* The two friction directions of a contact with normal n (unit): Box3D's choice of seed axis. */
static inline void physics__rigid_tangents(physics__v3 n, physics__v3 *t1, physics__v3 *t2)
{
    const physics__v3 seed = fabsf(n.x) < 0.57f ? v3(1, 0, 0) : v3(0, 1, 0);
    const physics__v3 t = v3_cross(n, seed);
    *t1 = v3_scale(t, 1.0f / v3_len(t));
    *t2 = v3_cross(n, *t1);
}

/* The exponent e of the step 2^e that a contact's impulses are multiples of once quantised, from
 * the largest of them (> PHYSICS_IMPULSE_TINY). */
static inline int physics__impulse_exponent(float largest)
{
    int e;
    (void)frexpf(largest, &e);
    return e - PHYSICS_IMPULSE_BITS;
}

/* Rounds e's impulses to multiples of the step its largest one sets (all to zero when they are
 * tiny). Exact float operations only: the same bits on every machine. */
static inline void physics__rigid_quantise(physics__rigid_cached *e)
{
    float largest = f_max(f_max(fabsf(e->f1), fabsf(e->f2)), fabsf(e->twist));
    for (uint32_t q = 0; q < e->count && q < PHYSICS_MANIFOLD_POINTS; q++)
        largest = f_max(largest, fabsf(e->jn[q]));
    if (!(largest > PHYSICS_IMPULSE_TINY)) {
        e->f1 = e->f2 = e->twist = 0.0f;
        for (uint32_t q = 0; q < PHYSICS_MANIFOLD_POINTS; q++)
            e->jn[q] = 0.0f;
        return;
    }
    const int x = physics__impulse_exponent(largest);
    /* Scaling by 2^-x and back: multiplying by an exact power of two rounds as ldexpf does, bit
     * for bit, without its libm call (2% of a step of bodies on a mesh). largest > 1e-30 keeps x
     * within [-119, 108], so both powers are normal floats. */
    const union {
        uint32_t bits;
        float f;
    } up = {(uint32_t)(127 - x) << 23}, down = {(uint32_t)(127 + x) << 23};
    /* 0.0f + turns a rounded -0.0 into +0.0: a snapshot stores the multiples, not the sign. */
    e->f1 = 0.0f + rintf(e->f1 * up.f) * down.f;
    e->f2 = 0.0f + rintf(e->f2 * up.f) * down.f;
    e->twist = 0.0f + rintf(e->twist * up.f) * down.f;
    for (uint32_t q = 0; q < e->count && q < PHYSICS_MANIFOLD_POINTS; q++)
        e->jn[q] = 0.0f + rintf(e->jn[q] * up.f) * down.f;
}

/* The solver's state of one body during a rigid step (the world inverse inertia is in `inv_i`,
 * apart: the contacts' rows carry what they need of it). */
typedef struct physics__rigid_body {
    physics__v3 v, w;
    physics__v3 dp, dq; /* moved and turned (rotation vector) since the contacts were found */
    float inv_mass;
} physics__rigid_body;

typedef struct physics__rigid_inertia {
    float m[9]; /* world inverse inertia, row major */
} physics__rigid_inertia;

/* What the velocity pass of every substep of a step adds to a body, found once a step (the
 * gather) rather than in each of the RIGID_SUBSTEPS passes: the same operations on the same
 * values, so the same bits, at a quarter of the divisions (physics_rigid.c). */
typedef struct physics__rigid_drive {
    physics__v3 dv, dw;     /* gravity and force, torque: the change a substep */
    float damp_v, damp_w;   /* 1 / (1 + h c) of the linear and angular damping */
    float ix, iy, iz;       /* the principal moments (the gyroscopic term) */
    float ga, gb, gc;       /* h (Iz - Iy), h (Ix - Iz), h (Iy - Ix) */
    uint8_t flags;          /* RIGID_DRIVE_* */
} physics__rigid_drive;

#define PHYSICS_RIGID_COLOURS 24u

typedef struct physics__rigid {
    physics__rigid_manifold *narrow; /* per manifold slot: sorted pair k's first is slot k */
    physics__rigid_geo *geo;       /* per manifold slot: where its manifold was found, */
    /* per manifold slot, where that is: geo[slot] for a manifold found this step, its cached
     * contact's (in cache, until the step's end) for a recycled one, not copied */
    const physics__rigid_geo **geo_at;
    uint32_t cap_geo_at;
    /* Per manifold slot: what its bodies slid since it was found, at its centre (a recycled
     * manifold's, from the test that recycled it; zero for one found this step): its friction
     * anchor (physics_rigid.c), measured once a step. */
    physics__v3 *slid;
    uint32_t cap_narrow, cap_geo, cap_slid;
    /* When some pair may have several manifolds (multi: a mesh and a body not a compound), such
     * a pair's further ones take PHYSICS_MESH_MANIFOLDS - 1 slots from num_pairs + more[k] (more
     * is a running sum; more[num_pairs], their total). Kept apart, the first ones stay as dense
     * as the pairs: the walks over every pair read no more memory than with one a pair. */
    uint32_t *more;
    uint32_t cap_more, num_pairs;
    bool multi;
    /* Per sorted pair: how many manifolds it has (detection: in the low 4 bits, NARROW_ flags
     * above; then the kept ones). */
    uint8_t *made;
    uint32_t cap_made;
    uint32_t recycled; /* manifolds of the step recycled, not found again */
    uint32_t *kept;
    uint32_t cap_kept;
    physics__rigid_kept *contact; /* the step's contacts, in pair order */
    uint32_t num_contacts, cap_contacts;
    physics__rigid_cached *cache, *next_cache; /* last step's contacts, sorted by key */
    uint32_t num_cache, cap_cache, cap_next_cache;
    /* Some entry of the cache may be asleep (false only when the merge that wrote it wrote
     * none): only those are kept on past their step, so without any each slice of the next merge
     * knows where it writes without a count (physics_rigid.c). */
    bool cache_asleep;
    physics__rigid_body *body;
    physics__rigid_inertia *inv_i;
    uint32_t cap_body, cap_inv_i;
    physics__rigid_drive *drive; /* per body, this step */
    uint32_t cap_drive;
    bool bouncy;  /* some contact of the step has restitution */
    bool turns;   /* some contact of the step turns its anchors (physics_rigid.c) */
    /* The contacts in colours of blocks of four (physics_rigid_wide.c). */
    struct physics__rigid_block *block;
    uint32_t num_blocks, cap_blocks, num_colours;
    uint32_t colour_start[PHYSICS_RIGID_COLOURS + 1]; /* each colour's first block */
    uint32_t num_overflow; /* contacts that found no colour, solved one by one first */
    physics__rigid_contact *overflow_contact; /* those contacts, whole (lane_of finds them) */
    uint32_t cap_overflow_contact;
    uint32_t *colour_of;
    uint32_t cap_colour_of, cap_used;
    uint32_t *lanes; /* the contact of each block's lanes, four a block (padding: UINT32_MAX) */
    uint32_t cap_lanes;
    uint32_t *lane_of; /* per contact, its lane (4 x block + lane) or PHYSICS_WIDE_OVERFLOW | its
                        * place in overflow */
    uint32_t cap_lane_of;
    /* Per slice of SOLVER_SLICE_PAIRS contacts and colour: its contacts of that colour, then
     * where their lanes begin (the lanes are written a slice a job). */
    uint32_t *slice_lanes;
    uint32_t cap_slice_lanes;
    uint64_t *used; /* per body, a bit per colour it is used in */
    /* Where the body stages' items begin, and the end (physics_rigid.c, rigid__body_cuts). */
    uint32_t *body_cut;
    uint32_t num_body_items, cap_body_cut;
    physics__stages stages; /* the substeps' passes, one parallel section (physics_rigid.c) */
} physics__rigid;


/* ---- Joints (physics_joints.c) ------------------------------------------------------------
 * Kept in handle order (ids ascend, never reused), which is the order they are solved in. Bodies
 * are named by entity id and found at every step (instances move when bodies are removed). */

#define PHYSICS_JOINT_ROWS 6u /* scalar rows besides the blocks: see physics_joints.c */

typedef struct physics__joint {
    uint32_t id;
    uint32_t type, flags;
    /* B is the body joined (the API's a), A what it is joined to (the API's b): the joint's
     * coordinate and force are B's against A. */
    uint32_t ea, eb;            /* entity ids; ea 0: the world */
    uint32_t a, b;              /* body instances during a step; a UINT32_MAX: the world */
    physics__v3 la, lb;         /* anchors in each body's frame (the world's: world space) */
    physics__v3 axis_a, axis_b; /* the axis in each body's frame */
    physics__quat rest;         /* conj(qA) qB when added */
    float lower, upper, cone, motor_speed, motor_max, length, hertz, damping;
    physics__v3 lin_j, ang_j; /* accumulated impulses of the point and rotation blocks */
    float row_j[PHYSICS_JOINT_ROWS];
    physics__v3 force, torque; /* on B, last step */
} physics__joint;

typedef struct physics__joints {
    physics__joint *j;
    uint32_t n, cap;
    uint32_t next_id; /* the next handle (from 1) */
    /* The entity pairs (lower id << 32 | higher) whose contacts joints turn off, sorted: made by
     * physics__joints_begin for physics__contacts_order, again when keys_made is false (every
     * change of the joints clears it). */
    uint64_t *keys;
    uint32_t num_keys, cap_keys;
    bool keys_made;
    /* The step's batches (physics__joints_colour): joints of one batch share no body that moves,
     * so a batch is solved on any threads; batch t is order[start[t] .. start[t + 1]). */
    uint32_t *order, *batch, *start; /* order and batch: a joint each; start: a batch each, + 1 */
    uint64_t *used;                  /* per body: the batches it is in (colours or waves) */
    uint32_t num_batches;
    bool overflow; /* the last batch is the colours' overflow: its joints may share bodies */
    uint32_t cap_order, cap_batch, cap_start, cap_used;
} physics__joints;

/* ---- Character movers (physics_character.c) -------------------------------------------------
 * What a character keeps beside its kinematic capsule body, sorted by entity id. */
typedef struct physics__character {
    uint32_t entity;
    float max_step, cos_slope;
    uint32_t grounded, ground; /* at the last move: on walkable ground, and its entity (or 0) */
    uint32_t held; /* at the last move: something under it held it (ground or an edge) */
    physics__v3 normal;
    /* ct_character_settings_t's (max_slope kept as the angle too, to give it back unrounded). */
    float max_slope, step_down, mass, max_strength;
    uint32_t body; /* its body's index when last looked up (checked by entity before use) */
} physics__character;

/* What a character keeps outside snapshots (ct_physics_api_v5.set_character_contact_callback,
 * character_contacts): the game's callback, and the contacts of its last move. */
typedef struct physics__character_contacts {
    /* The character's entity: a restore_snapshot that brings back a character removed since
     * leaves its slot's record to another; a record of another entity is empty (no callback). */
    uint32_t entity;
    ct_character_contact_f fn;
    void *user_data;
    ct_world_o *world; /* passed to fn */
    uint32_t n;
    ct_character_contact_t c[CT_CHARACTER_MAX_CONTACTS];
} physics__character_contacts;

typedef struct physics__characters {
    physics__character *c;
    physics__character_contacts *contacts; /* one for each of c, in the same order */
    uint32_t n, cap, contacts_cap;
} physics__characters;

/* ---- Scene and step (physics_step.c, physics_contacts.c, physics_narrowphase.c,
 *      physics_graph.c, physics_solver.c) ------------------------------------------------------ */

/* Contacts are kept when the gap is under this (m) plus what the bodies can close in a step. */
#define SOLVER_MARGIN 0.02f
/* How far (m) a body's path may end from where its velocity at the start of the step took it
 * (gravity, damping, a light touch) and still lie in the box physics__scene_candidates widened for
 * the sweeps (physics_ccd.c): a body that went further is a stray, whose pairs are looked up. */
#define CCD_SHARE_SLACK 0.05f
/* Candidate pairs a step may collide: this many, or 64 per body if more, but never more than
 * SOLVER_MAX_PAIR_LIMIT. Past that (bodies piled into one spot) the rest are dropped and the owner
 * warns. The ceiling bounds a step's time and memory whatever the bodies do: a contact costs
 * about 1 kB through the step, so a million bodies dropped into one spot would have asked for
 * 64 million contacts (some 64 GB) under the per-body rule alone. */
#define SOLVER_MIN_PAIR_LIMIT 65536u
#define SOLVER_PAIRS_PER_BODY 64u
#define SOLVER_MAX_PAIR_LIMIT 1048576u
/* Shape tests of children a step may make: a pair with a compound asks for one per pair of their
 * children (up to 64 x 64, so a pile of compounds in one spot asked for thousands of times what a
 * pile of boxes does: 400 of 64 balls took 37 s for one step). Four times the pairs' ceiling, so
 * such a pile costs at most what four piles of simple bodies would; past it the rest of the pairs,
 * in entity-pair order, are dropped for the step and the owner warns. */
#define SOLVER_MAX_CHILD_TESTS (4u * SOLVER_MAX_PAIR_LIMIT)
/* Bodies, or boxes, are cut into jobs of this many for the pool. */
#define SOLVER_SLICE_BOXES 1024u
/* The shape tests of the sorted pairs, the contacts made of them, and the rows filled from those,
 * are cut into jobs of this many pairs. */
#define SOLVER_SLICE_PAIRS 256u
/* The slices of SOLVER_SLICE_PAIRS that n pairs (or contacts) make, the last one short. */
static inline uint32_t physics__pair_slices(uint32_t n)
{
    return (n + SOLVER_SLICE_PAIRS - 1) / SOLVER_SLICE_PAIRS;
}
/* The narrow phase's flags of a pair: keep it as a contact; it wakes a sleeping island; it hits
 * that island this step, which then wakes before the contacts are solved (physics__wake_hit). */
#define NARROW_KEEP 1u
#define NARROW_WAKE 2u
#define NARROW_HIT 4u
/* m/s: a body closing on a sleeping one faster than this, with the gap closed within the step,
 * hits it (NARROW_HIT). Slower, the island wakes at the end of the step, as any touch wakes it. */
#define NARROW_HIT_SPEED 0.1f

/* The contacts of a step, in entity-pair order: what detection finds and the step's end reads
 * (structure of arrays in one allocation). The solver works on rows instead (below). */
typedef struct physics__contacts {
    uint32_t n, cap;
    void *buffer;
    uint64_t *key;       /* entity(a) << 32 | entity(b) */
    uint32_t *a, *b;     /* body instances; entity(a) < entity(b) */
    physics__v3 *normal; /* from a to b */
    physics__v3 *point;
    float *sep_base;  /* separation minus dot(normal, pb - pa) at detection */
    float *target;    /* the normal relative velocity the solver aims for (at least) */
    float *speed;     /* closing speed before the solve */
    float *approach;  /* speculative contacts about to hit: the closing speed to bounce with */
    uint32_t *cached; /* the pair's entry in the previous step's cache, or UINT32_MAX */
    uint32_t *slot_a, *slot_b; /* the bodies' places in the compact arrays (physics__gathered) */
    uint32_t *row;             /* the contact's row; its colour while the rows are being ordered */
} physics__contacts;

/* The solver's rows: one per contact, holding only what the iterations read, in colour order.
 * Each contact takes the lowest colour that no other contact of its two bodies has (in
 * entity-pair order; a static body does not count), so the contacts of one colour share no body,
 * and a pass is a handful of colours one after the other: a pile of 10,000 bodies or a 100-row
 * pyramid needs about a dozen. Fewer than SOLVER_COLOR_MIN_ROWS contacts are put in waves
 * instead, which keeps entity-pair order (physics__graph_prepare).
 *
 * The rows are then put into blocks of PHYSICS_ROW_LANES, which the iterations solve side by
 * side, a row per lane (physics_lanes.h): each row, in that order, goes to the first block after
 * the last one that holds a row of its bodies and that has a lane free. A body's rows thus keep
 * their order, and the rows of a block share no body, so solving a block at once gives every bit
 * that solving the rows one after the other would; lanes left empty hold rows that change
 * nothing. Row q is lane q % PHYSICS_ROW_LANES of block q / PHYSICS_ROW_LANES. The order of the
 * rows, and so every bit of the result, depends only on the contacts, not on the threads. */
#define PHYSICS_ROW_LANES 4u

typedef struct physics__row_block {
    uint32_t slot_a[PHYSICS_ROW_LANES], slot_b[PHYSICS_ROW_LANES];
    float normal[3][PHYSICS_ROW_LANES];                       /* x, y, z of each lane's normal */
    float t1[3][PHYSICS_ROW_LANES], t2[3][PHYSICS_ROW_LANES]; /* friction directions */
    float inv_mass_a[PHYSICS_ROW_LANES], inv_mass_b[PHYSICS_ROW_LANES];
    float mass_n[PHYSICS_ROW_LANES]; /* 1 / (inv_mass_a + inv_mass_b) */
    float target[PHYSICS_ROW_LANES], friction[PHYSICS_ROW_LANES], sep_base[PHYSICS_ROW_LANES];
    float jn[PHYSICS_ROW_LANES], jt1[PHYSICS_ROW_LANES],
        jt2[PHYSICS_ROW_LANES]; /* accumulated impulses */
} physics__row_block;

typedef struct physics__rows {
    physics__row_block *block;
    uint32_t num_blocks, cap_blocks;
    uint32_t *contact; /* the contact of each row, UINT32_MAX for an empty lane */
    uint32_t cap_contact;
    /* The ordering's scratch: the colours' starts, then the rows in colour order, the blocks'
     * lanes taken and the first block at or after each that has a lane free. */
    uint32_t *scratch;
    uint32_t cap_scratch, num_colors;
} physics__rows;

/* The bodies that have contacts this step, gathered into compact arrays in the order the
 * contacts first name them, so that the iterations touch a small array and the bodies' own
 * arrays are read and written once. `slot` is indexed by body instance, the rest by slot. Slot
 * n, past the bodies', is the one the empty lanes of row blocks read and write. */
typedef struct physics__gathered {
    uint32_t n, cap;
    void *buffer;
    uint32_t *slot; /* UINT32_MAX: none yet */
    uint32_t *body;
    uint64_t *colors; /* the colours of the slot's contacts so far, one bit each (or its wave);
                       * then the last row block that uses the slot */
    physics__v3 *velocity;
    physics__v3 *position;
} physics__gathered;

/* The shape tests of a step, one entry per sorted candidate pair: made on any threads, then the
 * kept ones become contacts, each slice of pairs writing from its first contact on. */
typedef struct physics__narrow {
    uint32_t cap;
    void *buffer;
    physics__v3 *normal, *point;
    float *sep;
    uint8_t *flags; /* bit 0: keep it; bit 1: it wakes a sleeping island */
    uint32_t *kept; /* per slice: how many contacts it keeps, then its first contact */
    uint32_t cap_kept;
} physics__narrow;

/* What a contact remembers into the next step: warm starting and "did it just start". */
typedef struct physics__cached {
    uint64_t key; /* entity(a) << 32 | entity(b) */
    float jn, jt1, jt2;
    float approach; /* it was stopped at the surface: the speed it came in with, for the bounce */
    uint16_t touching; /* the shapes touched and pressed at the end of that step */
    uint16_t asleep;   /* both bodies sleep (or one is static): kept as is until one wakes */
} physics__cached;

/* A broadphase pair as the solver orders it: entity(a) < entity(b). */
typedef struct physics__keyed_pair {
    uint64_t key; /* entity(a) << 32 | entity(b) */
    uint32_t a, b;
} physics__keyed_pair;

/* Continuous collision (physics_ccd.c): where the bodies were at the start of the step. */
typedef struct physics__ccd {
    bool off;                      /* no sweeps (tests show what they prevent) */
    uint32_t hits;                 /* bodies the last step moved back to where they hit */
    physics__v3 *start;            /* per body: its position at the start of the step */
    physics__quat *start_rotation; /* and its rotation */
    physics__v3 *start_angular;    /* and its angular velocity */
    uint32_t cap_start, cap_start_rotation, cap_start_angular;
    uint8_t *fast;                    /* per body: swept this step */
    float *rank;                      /* per body: its travel this step over its thinnest half */
    struct physics__ccd_order *order; /* the fast bodies by rank, then entity */
    struct ccd__motion *motion;       /* per moving body: its motion through the step */
    physics__broadphase moving;       /* the paths of the bodies that moved (dynamic, kinematic) */
    uint32_t *moving_body;            /* box k of `moving` is body moving_body[k] */
    uint32_t cap_fast, cap_rank, cap_order, cap_motion, cap_moving_body;
    /* The moving bodies each fast body is swept against (physics_ccd.c): body i's are
     * listed[list_first[i] .. list_first[i + 1]), ascending. */
    uint32_t *list_first, *listed;
    physics__pair *list_pairs; /* scratch of the lists' counting sorts (2 x max) */
    uint32_t cap_list_first, cap_listed, cap_list_pairs;
    uint32_t list_limit; /* pairs past which the lists give way to a query per body (0: default) */
    /* The lists from the step's own grid of moving bodies (physics_ccd.c, ccd__list_shared):
     * `share` asks physics__scene_candidates to widen each moving box by its body's path as the
     * sweeps see it (its reach about where it starts and where its velocity takes it), keeping
     * the box the contacts use in share_lo/share_hi (by grid box); `shared` says s->bp holds such
     * boxes this step. Off (tests): every step builds a grid of paths of its own. */
    bool share, shared, no_share;
    physics__v3 *share_lo, *share_hi;
    uint32_t *grid_of;     /* per body: its box in s->bp, or UINT32_MAX */
    uint8_t *stray;        /* per body: its path left its widened box (or it has none) */
    physics__broadphase strays; /* the paths of the stray bodies */
    uint32_t *stray_body;       /* box k of `strays` is body stray_body[k] */
    uint32_t lists_shared;      /* steps whose lists came from the step's grid (tests) */
    uint32_t cap_share_lo, cap_share_hi, cap_grid_of, cap_stray, cap_stray_body;
    /* Sweep hits as collision events (physics_ccd.c, ccd__report): this step's hits, and the
     * pairs (sorted keys) a sweep reported as touching that no contact has taken over yet. */
    struct physics__ccd_hit *hit_event;
    uint64_t *reported, *next_reported;
    uint32_t num_hit_events, num_reported;
    uint32_t cap_hit_event, cap_reported, cap_next_reported;
} physics__ccd;

/* Sensors (physics_sensors.c): each with the filter it sees with and where its list of the bodies
 * inside it at the last step lies in `inside`; sorted by entity id. */
typedef struct physics__sensor {
    uint32_t entity;
    uint32_t layer, mask; /* its own collision filter (its body's is 0, 0) */
    uint32_t first, count;
} physics__sensor;

typedef struct physics__sensors {
    physics__sensor *s;
    uint32_t n, cap;
    uint32_t *inside, *next; /* entity ids of the bodies in each sensor, last step's and this one's */
    uint32_t cap_inside, cap_next;
} physics__sensors;

/* What a step tells its owner to log (the core does not log). */
typedef struct physics__step_report {
    uint32_t escaped; /* bodies stopped at the border of the world (CT_PHYSICS_MAX_POSITION) */
    uint32_t escaped_entity; /* the first of them */
    uint32_t pair_limit;     /* the step reached this many candidate pairs and dropped the rest */
    uint32_t child_limit;    /* the pairs' child tests reached this many, and the rest dropped */
    uint32_t child_cut[2];   /* the entities of the first pair dropped for it */
    uint32_t awake;          /* dynamic bodies simulated */
} physics__step_report;

typedef struct physics__scene {
    ct_allocator_t *a;
    /* Zero: serial. Copied into the broadphase at each build; the owner sets it before a step or
     * a query (it points at code, which a hot reload replaces). */
    physics__pool pool;
    /* The pool times each job (the benchmark's serial share): physics__stages_run by_section. */
    bool pool_timed;
    physics__bodies bodies;
    /* Two grids: `bp` holds the awake dynamic and the kinematic bodies and is rebuilt by every
     * step (queries after it reuse it); `fixed` holds static and sleeping bodies and is rebuilt
     * only when one of those changes. Their boxes are numbered apart: grid_body and fixed_body
     * give the body of each. */
    physics__broadphase bp, fixed;
    uint32_t *grid_body, *fixed_body;
    uint32_t cap_grid_body, cap_fixed_body;
    physics__v3 gravity;
    uint32_t velocity_iterations, position_iterations;
    bool bp_stale;        /* bodies changed since `bp` was built: rebuild before a query */
    bool fixed_stale;     /* a static or sleeping body changed: rebuild `fixed` */
    bool sleeping;        /* islands at rest go to sleep (default true) */
    uint32_t max_pairs;   /* per step; pairs past it are dropped (and reported) */
    uint32_t pair_ceiling; /* the most pairs a step ever collides: SOLVER_MAX_PAIR_LIMIT (tests
                            * lower it to reach it with fewer bodies) */
    physics__pair *pairs; /* the step's candidate pairs, as body indices */
    uint32_t num_pairs, cap_pairs;
    physics__pair *fixed_pairs; /* scratch: the moving boxes' pairs with fixed ones, by slice */
    uint32_t *fixed_count;      /* scratch: how many each slice found */
    uint32_t cap_fixed_pairs, cap_fixed_count;
    uint32_t *fill_first; /* scratch of a grid's fill: each slice of bodies' first box */
    uint32_t cap_fill_first;
    uint32_t *query; /* scratch of the queries */
    uint32_t cap_query;
    uint32_t *escaped; /* boxes of `bp` whose body ended the step outside them, ascending */
    uint32_t num_escaped, cap_escaped;
    uint32_t *islands; /* scratch of the sleep pass: union-find parents, then wake labels */
    float *island_rest;
    uint32_t cap_islands, cap_island_rest, num_wake;
    physics__cached *next_cache; /* the cache being written by a step */
    uint32_t cap_next_cache;
    bool woke; /* bodies woke or went since the last step: the sleeping contacts are checked */
    /* The last step ended with every dynamic body asleep and no kinematic body, and nothing was
     * added, moved, woken or removed since: the next step would change nothing, and is skipped
     * (a settled world costs next to nothing). Cleared by physics__scene_touched and the wakes. */
    bool quiet;
    uint32_t quiet_bodies; /* the body count when it became quiet */

    physics__narrow narrow;
    physics__contacts contacts;
    physics__rows rows;
    physics__gathered gathered;
    physics__cached *cache; /* last step's contacts, sorted by key */
    uint32_t num_cache, cap_cache;
    physics__keyed_pair *order; /* scratch of the step: pairs to sort, and as much again */
    uint32_t cap_order;
    /* The pair sort's scratch (physics_contacts.c): per slice of pairs, 256 digit counts, and
     * what its keys share (see contacts__sort_pairs). */
    uint32_t *sort_count;
    uint32_t cap_sort_count;
    physics__stages sort_stages; /* its passes, one parallel section */
    /* The cache merges' scratch (physics__merge_*): per slice of SOLVER_SLICE_PAIRS contacts, the
     * first old entry it walks, its first entry of the new cache and whether it ran out of memory
     * (three words); and the events each slice wrote (cap_merge_events, all initialised). */
    uint32_t *merge;
    uint32_t cap_merge, cap_merge_events;
    physics__events *merge_events;

    physics__rigid rigid;   /* the rigid solver's contacts and cache, when bodies rotate */
    physics__joints joints; /* any joint puts the world on the rigid solver */
    physics__characters characters;

    physics__ccd ccd;
    physics__sensors sensors;

    physics__events events;      /* this step's stream */
    physics__step_report report; /* of the last step */
} physics__scene;

/* A soft constraint's coefficients for a substep h (Box2D v3's b2MakeSoft): the spring of
 * `hertz` with damping ratio zeta, as a bias rate and the scales of the mass and of the impulse
 * already applied. Contacts and joints share it. */
static inline void physics__soft(float hertz, float zeta, float h, float *bias_rate,
                                 float *mass_scale, float *impulse_scale)
{
    const float omega = 2.0f * 3.14159265f * hertz;
    const float a1 = 2.0f * zeta + h * omega, a2 = h * omega * a1, a3 = 1.0f / (1.0f + a2);
    *bias_rate = omega / a1;
    *mass_scale = a2 * a3;
    *impulse_scale = a3;
}

/* Manifold `sub` of bodies i and j (physics__manifolds) found at g's poses, margin and reference
 * face, into m and g's normal, points and separations (what the rigid step's detection writes;
 * physics_rigid.c). view is a shallow copy of the bodies whose position, rotation and extent
 * arrays the caller owns: i's and j's entries there are overwritten with g's poses. */
void physics__rigid_geo_find(physics__bodies *view, uint32_t i, uint32_t j, uint32_t sub,
                             physics__rigid_geo *g, physics__manifold_out *m);
/* One step of a world with rotating bodies (physics_rigid.c). 0 or CT_ERR_NOMEM. */
int physics__rigid_step(physics__scene *s, float dt);
void physics__rigid_free(physics__scene *s);
/* The wide contact solver (physics_rigid_wide.c). The contacts are coloured (from the pairs and
 * the bodies' masses only) before they are made; physics__rigid_wide_prepare lays out the blocks
 * and adds the stage that gives each contact its lane; each contact, as it is made, writes its lane
 * (physics__rigid_wide_lane: no pass reads the contacts back into the blocks); the stage
 * physics__rigid_wide_seal adds then completes the blocks. Then, as stages added to r->stages
 * (run by the caller), the warm start or a pass (pushing or relaxing) of every contact, and the
 * blocks' impulses back into r->contact. */
#define PHYSICS_WIDE_WARM 0
#define PHYSICS_WIDE_PUSH 1
#define PHYSICS_WIDE_RELAX 2
/* A relaxing pass over the normals alone, the colours last to first (the end of a step). */
#define PHYSICS_WIDE_SETTLE 3
int physics__rigid_wide_reserve(physics__scene *s, uint32_t n);
void physics__rigid_wide_colour(physics__scene *s, const physics__keyed_pair *order, uint32_t m,
                                uint32_t n);
int physics__rigid_wide_prepare(physics__scene *s);
/* Contact ci (made, its warm start in it) into its lane, or whole into overflow_contact when it
 * found no colour (on any thread: each place is written by one contact). */
#define PHYSICS_WIDE_OVERFLOW 0x80000000u
void physics__rigid_wide_lane(physics__rigid *r, uint32_t ci, const physics__rigid_contact *c);
/* Contact ci's rows made again where its anchors turned to (physics_rigid.c): c's rows, masses,
 * separations and levers into its lane or overflow contact, its impulses kept. */
void physics__rigid_wide_rows(physics__rigid *r, uint32_t ci, const physics__rigid_contact *c);
void physics__rigid_wide_seal(physics__scene *s);
void physics__rigid_wide_pass(physics__scene *s, int mode, float inv_h, uint32_t order);
void physics__rigid_wide_finish(physics__scene *s);
void physics__rigid_wide_free(physics__scene *s);
/* One contact, one by one (physics_rigid.c): its warm start, and one pass. */
void physics__rigid_warm_contact(const physics__rigid_contact *c, physics__rigid_body *A,
                                 physics__rigid_body *B);
void physics__rigid_solve_contact(physics__rigid_contact *c, physics__rigid_body *A,
                                  physics__rigid_body *B, float inv_h, int mode, uint32_t order);
/* The point a resting manifold of `count` points solves `at`-th in a substep of point order
 * `order` (0 to 3, physics__rigid_step): bit 0 turns the order round, bit 1 starts from point 2.
 * Over four substeps each point of a four-point face comes first, second, third and last once.
 * (Fewer points: the same orders with the missing points left out, so a block of four lanes,
 * physics_rigid_wide.c, going through its largest count gives each lane the order its contact
 * alone would have.) */
static inline uint32_t physics__rigid_point_at(uint32_t order, uint32_t count, uint32_t at)
{
    const uint32_t start = order & 2u && count > 2u ? 2u : 0u;
    const uint32_t k = start + (order & 1u ? count - 1u - at : at);
    return k < count ? k : k - count;
}

/* Continuous collision (physics_ccd.c): the step's start poses, then after the step the fast
 * bodies swept from them against the fixed grid (see the file). 0 or CT_ERR_NOMEM. */
int physics__ccd_begin(physics__scene *s);
/* The farthest body i's surface reaches from its centre (what a sweep's path box is made of). */
float physics__ccd_reach(const physics__bodies *b, uint32_t i);
int physics__ccd_end(physics__scene *s, float dt);
void physics__ccd_free(physics__scene *s);

/* Sensors (physics_sensors.c, ct_physics_api_v5.set_sensor): make body i a sensor or not
 * (CT_ERR_INVALID for a dynamic body, CT_ERR_NOMEM); the record of an entity, or NULL; the bodies
 * inside a sensor at the last step (the count; at most max into out); the end of a step's pass
 * that writes the enter and leave events (0 or CT_ERR_NOMEM); free. An entity's body removed
 * (physics__scene_remove) drops its record, if it has one. */
int physics__sensors_set(physics__scene *s, uint32_t i, bool on);
physics__sensor *physics__sensors_find(physics__scene *s, uint32_t entity);
void physics__sensors_drop(physics__scene *s, uint32_t entity);
uint32_t physics__sensors_inside(physics__scene *s, uint32_t entity, ct_entity_t *out,
                                 uint32_t max);
int physics__sensors_detect(physics__scene *s);
void physics__sensors_free(physics__scene *s);

/* Joints (physics_joints.c). Why a desc is bad (the field and its range), or NULL. */
const char *physics__joint_desc_error(const ct_joint_desc_t *d);
/* What is wrong with joint j read from a snapshot, to be restored into a world of bodies b (the
 * desc's ranges on what it kept, its bodies there, its frames, finite impulses), or NULL. */
const char *physics__joint_restored_error(const physics__bodies *b, const physics__joint *j);
/* Adds a joint holding body instance b to a (a UINT32_MAX: the world) from their poses, desc's
 * anchor on b and anchor_b on a; *id gets its handle. 0 or CT_ERR_NOMEM. */
int physics__joints_add(physics__scene *s, uint32_t a, uint32_t b, const ct_joint_desc_t *d,
                        uint32_t *id);
/* The joint of a handle, or NULL. */
physics__joint *physics__joints_find(physics__scene *s, uint32_t id);
bool physics__joints_remove(physics__scene *s, uint32_t id);
/* Removes the joints of entity e (its body is going), waking their other bodies. */
void physics__joints_drop_entity(physics__scene *s, uint32_t e);
/* The same for a batch of entities in one pass over the joints (0, or CT_ERR_NOMEM with nothing
 * removed: each body's removal then drops its own). */
int physics__joints_drop_entities(physics__scene *s, const ct_entity_t *entities, uint32_t n);
/* The joint's coordinate (ct_physics_api_v4.joint_value) from the bodies' present poses. */
float physics__joint_value(const physics__scene *s, const physics__joint *j);
/* The rigid step's parts: finds the bodies (waking what a moving body is joined to); makes room
 * for the batches (0 or CT_ERR_NOMEM), then sorts the joints into them (one thread, beside the
 * gathering of the rigid solver's body states: physics_rigid.c); then adds to s->rigid.stages,
 * per substep, the warm start and the passes (mode PHYSICS_WIDE_WARM, _PUSH: soft, _RELAX:
 * rigid), and at the end the forces (PHYSICS_JOINTS_END). */
#define PHYSICS_JOINTS_END 3
int physics__joints_begin(physics__scene *s);
/* Drops the sorted pairs that joints keep apart from order[0 .. *count), in place. */
void physics__joints_filter_pairs(const physics__scene *s, physics__keyed_pair *order,
                                  uint32_t *count);
int physics__joints_colour_reserve(physics__scene *s);
void physics__joints_colour(physics__scene *s);
void physics__joints_stages(physics__scene *s, float h, int mode);
void physics__joints_free(physics__scene *s);

/* Characters (physics_character.c): add one for the body of `entity` (a kinematic capsule);
 * find, drop (its body is going), free. */
int physics__characters_add(physics__scene *s, uint32_t entity, float max_step, float max_slope);
physics__character *physics__characters_find(physics__scene *s, uint32_t entity);
void physics__characters_drop(physics__scene *s, uint32_t entity);
void physics__characters_free(physics__scene *s);
/* At the start of a step, each character goes where its last move said and stands still through
 * the step (as Jolt's CharacterVirtual puts its inner body): its solver contacts then push
 * nothing, the mover's bounded pushes are all the dynamic bodies get from it, and a box that
 * falls on it is stopped as by a wall. */
void physics__characters_place(physics__scene *s, float dt);
/* Character c's settings, why settings are bad (the field and its range) or NULL, and setting
 * them (checked by the caller). */
ct_character_settings_t physics__character_settings(const physics__character *c);
const char *physics__character_settings_error(const ct_character_settings_t *d);
void physics__character_set(physics__character *c, const ct_character_settings_t *settings);
/* What is wrong with character c read from a snapshot (its settings' ranges, the state of its
 * last move), or NULL. */
const char *physics__character_restored_error(const physics__character *c);
/* Plans character c's (body i's) motion by velocity over dt and gives the body the velocity that
 * makes it (ct_physics_api_v4.move_character). 0, or CT_ERR_INVALID when that velocity would be
 * out of range (nothing changed). */
int physics__character_move(physics__scene *s, uint32_t i, physics__character *c,
                            physics__v3 velocity, float dt, ct_character_state_t *out);
/* The same, watched: *world_gone (when world_gone is not NULL) turns true when the character's
 * contact callback destroyed the world, scene and all. The move then returns CT_ERR_STALE as soon
 * as that callback returns, reading and writing nothing of the scene after it. */
int physics__character_move_watched(physics__scene *s, uint32_t i, physics__character *c,
                                    physics__v3 velocity, float dt, const bool *world_gone,
                                    ct_character_state_t *out);
/* Character c's contact record (see physics__character_contacts), emptied first when it is
 * another entity's. */
physics__character_contacts *physics__character_contacts_of(physics__scene *s,
                                                            const physics__character *c);

/* Snapshots (physics_snapshot.c, ct_physics_api_v4.save_snapshot): the bytes one takes now (0
 * when past 4 GiB), save (0 when buffer is short), why a buffer cannot be restored into this
 * scene (or NULL), and restore (CT_ERR_INVALID, CT_ERR_NOMEM). p may be NULL (no point masses). */
uint32_t physics__snapshot_size(const physics__scene *s, const physics__points *p);
uint32_t physics__snapshot_save(const physics__scene *s, const physics__points *p, void *buffer,
                                uint32_t size);
const char *physics__snapshot_check(const physics__scene *s, const physics__points *p,
                                    const void *buffer, uint32_t size);
int physics__snapshot_restore(physics__scene *s, physics__points *p, const void *buffer,
                              uint32_t size);
/* As physics__snapshot_restore, with why it was refused (CT_ERR_INVALID) in *why (else NULL): the
 * snapshot read once, where a check then a restore read it twice. */
int physics__snapshot_restore_why(physics__scene *s, physics__points *p, const void *buffer,
                                  uint32_t size, const char **why);

/* Whether body i sits in the fixed grid. */
static inline bool physics__fixed(const physics__bodies *b, uint32_t i)
{
    return b->kind[i] == CT_BODY_STATIC || b->asleep[i];
}

/* The inverse mass the solver uses: a sleeping body does not move until it wakes. */
static inline float physics__inv_mass(const physics__bodies *b, uint32_t i)
{
    return b->asleep[i] ? 0.0f : b->inv_mass[i];
}

/* The shape tests of a step's sorted pairs (physics_narrowphase.c), then the contacts made of them
 * (physics_contacts.c): both are jobs over slices of SOLVER_SLICE_PAIRS pairs. */
typedef struct physics__narrow_job {
    physics__scene *s;
    const physics__keyed_pair *order;
    uint32_t count;
    float dt;
} physics__narrow_job;
void physics__narrow_range(void *user, uint32_t begin, uint32_t end);

/* Fills a grid with the bodies that belong to it (fixed ones, or the others) and builds it
 * (physics_step.c); fill_fixed does so for the fixed grid when it is stale. */
int physics__scene_fill(physics__scene *s, physics__broadphase *bp, uint32_t **body, uint32_t *cap,
                        bool fixed, float dt);
int physics__scene_fill_fixed(physics__scene *s);
/* Finds the contacts of this step's pairs (step 2), and at the end of the step remembers their
 * impulses and writes the events (step 5) (physics_contacts.c). With hit non-NULL, a step whose
 * pairs hit a sleeping island (NARROW_HIT) makes no contacts: *hit is set and the islands are
 * listed to wake (physics__islands_wake_listed), for the caller to wake and find again. */
int physics__contacts_collide(physics__scene *s, float dt, bool *hit);
int physics__contacts_remember(physics__scene *s);
/* The step's candidate pairs that may collide (their filters meet, one body moves), sorted by
 * entity pair, into *order (NULL when none) and their number into *count. 0 or CT_ERR_NOMEM. */
int physics__contacts_order(physics__scene *s, const physics__keyed_pair **order, uint32_t *count);
/* Room for n contacts in s->contacts (contents dropped). */
int physics__contacts_reserve(physics__scene *s, uint32_t n);
/* Asks for body i's island to wake at the end of the step. */
void physics__contacts_want_awake(physics__scene *s, uint32_t i);
/* A cache merge on the pool (physics_contacts.c; both steps' caches): this step's contacts and
 * the old cache, both sorted by key, cut into slices of SOLVER_SLICE_PAIRS contacts, each with the
 * old entries from its first contact's key up to the next slice's. The slices count what they
 * keep, then (after physics__merge_places) write it from their first place on, their events into
 * s->merge_events[t]; physics__merge_events joins those in order. The result is that of one walk
 * over both lists. begin: room for `slices` (0 or CT_ERR_NOMEM). */
int physics__merge_begin(physics__scene *s, uint32_t slices);
/* What a slice of the merge leaves in s->merge[3t + 2]: it ran out of memory (its events), it
 * wrote an entry of bodies that do not move (the rigid merge's). */
#define PHYSICS_MERGE_NOMEM 1u
#define PHYSICS_MERGE_ASLEEP 2u
/* The first of entries [lo, hi), sorted by a uint64_t key at their start, `stride` bytes apart,
 * whose key is not below `key`. */
uint32_t physics__merge_find(const void *entries, size_t stride, uint32_t lo, uint32_t hi,
                             uint64_t key);
/* Each slice's count (s->merge[3t + 1]) becomes its first place; returns the total. */
uint32_t physics__merge_places(physics__scene *s, uint32_t slices);
/* The slices' events into the step's stream, in order (CT_ERR_NOMEM when a slice ran out). */
int physics__merge_events(physics__scene *s, uint32_t slices);
/* Bodies past CT_PHYSICS_MAX_POSITION stop at the border (physics_step.c): every body, or body i
 * (one a sweep moved after the step held them all inside). */
void physics__scene_keep_inside(physics__scene *s);
void physics__scene_keep_body_inside(physics__scene *s, uint32_t i);
/* At the end of a step: whether the scene is now quiet (every dynamic body asleep, no kinematic). */
void physics__scene_settle(physics__scene *s);
void physics__contacts_free(physics__scene *s);
/* Gathers the bodies in contact, colours the contacts and fills the row blocks, warm started
 * (physics_graph.c). */
int physics__graph_prepare(physics__scene *s);
void physics__graph_free(physics__scene *s);
/* The velocity passes on the gathered velocities, and the position passes on the gathered
 * positions (physics_solver.c). */
void physics__solve_velocities(physics__scene *s, physics__v3 *v);
void physics__solve_positions(physics__scene *s, physics__v3 *p);

/* The lanes the solver's rows were compiled with (PHYSICS_LANES of physics_lanes.h): the tests
 * check that each build of them got the one it asked for. */
extern const char physics__solver_lanes[];

void physics__scene_init(physics__scene *s, ct_allocator_t *a);
void physics__scene_free(physics__scene *s);
/* One step of the bodies: forces, contacts, positions, events. 0 or CT_ERR_NOMEM (the step is
 * then abandoned: velocities moved, positions did not). A quiet scene (see `quiet`) only clears
 * its events. */
int physics__scene_step(physics__scene *s, float dt);
/* The candidate pairs of a step over dt (the first part of physics__scene_step; the benchmark
 * times it alone): into s->pairs, as body indices. */
int physics__scene_candidates(physics__scene *s, float dt);
/* Rebuilds the grids from current positions when stale. */
int physics__scene_refresh_grid(physics__scene *s);
/* A body was added, removed, moved or changed kind outside a step: the grids follow. Removing
 * (physics__scene_remove) also wakes what touched the body. */
void physics__scene_touched(physics__scene *s, uint32_t i);
bool physics__scene_remove(physics__scene *s, ct_entity_t e);
/* Wakes body i's island (and i); wake_all wakes every body (physics_islands.c). */
void physics__scene_wake(physics__scene *s, uint32_t i);
void physics__scene_wake_all(physics__scene *s);
/* The step's part: wakes the islands listed while colliding, then puts islands at rest to sleep.
 * moved: the rigid step's bodies, whose dp and dq are what the step moved and turned them (see
 * physics_islands.c), or NULL for the translation-only step. */
void physics__islands_wake_listed(physics__scene *s);
void physics__islands_sleep(physics__scene *s, float dt, const physics__rigid_body *moved);
/* Sorted entity ids of bodies overlapping the sphere into out (at most max); returns the total.
 * Queries see only bodies whose layer shares a bit with mask. */
uint32_t physics__scene_overlap_sphere(physics__scene *s, physics__v3 c, float r, uint32_t mask,
                                       ct_entity_t *out, uint32_t max);
/* The entity ids of the bodies whose world boxes meet [lo, hi] and whose layer shares a bit with
 * mask, sorted, in the scene's query scratch (valid until the next query); NULL and *n 0 when out
 * of memory. */
uint32_t *physics__scene_overlap_box(physics__scene *s, physics__v3 lo, physics__v3 hi,
                                     uint32_t mask, uint32_t *n);
bool physics__scene_raycast(physics__scene *s, physics__v3 origin, physics__v3 dir, float max_t,
                            uint32_t mask, ct_physics_hit_t *out);
/* A shape cast (physics_queries.c): a box, sphere or capsule (half, radius and half_height as a
 * body's desc reads them) turned by rotation, swept from `from` by `motion` without turning. */
typedef struct physics__cast {
    uint32_t shape; /* CT_BODY_BOX, CT_BODY_SPHERE or CT_BODY_CAPSULE */
    physics__v3 half;
    float radius, half_height;
    physics__quat rotation;
} physics__cast;
/* The first body (whose layer shares a bit with mask; sensors never) the shape meets on its way:
 * out gets its entity, the distance the shape went along motion (m; 0 when it starts touching),
 * a point where they touch and the hit body's normal there (pointing out of it, towards the
 * shape). Equal distances go to the lower entity id. False when it meets nothing, or out of
 * memory. */
bool physics__scene_shape_cast(physics__scene *s, const physics__cast *shape, physics__v3 from,
                               physics__v3 motion, uint32_t mask, ct_physics_hit_t *out);
/* The module's shape cast on a world (physics.c; what a ct_physics_api member would point at):
 * shape's shape, half_extents, radius, half_height and rotation are read (its other fields
 * ignored). physics__shape_cast_error names what is refused (NULL when nothing is);
 * physics__shape_cast logs it and returns false. */
const char *physics__shape_cast_error(const ct_rigid_body_desc_t *shape, const float from[3],
                                      const float motion[3]);
bool physics__shape_cast(ct_world_o *w, const ct_rigid_body_desc_t *shape, const float from[3],
                         const float motion[3], uint32_t mask, ct_physics_hit_t *out);
/* What a ray (raycast) or a sphere query (overlap_sphere) cannot ask, named by its field (physics.c:
 * "origin (NaN or infinite)"), or NULL: the C calls log it and find nothing, Lua raises it. */
const char *physics__ray_error(const float o[3], const float d[3], float max_distance);
const char *physics__sphere_query_error(const float c[3], float r);
/* Shape tests shared by queries and tests. */
bool physics__sphere_overlaps_body(const physics__bodies *b, uint32_t i, physics__v3 c, float r);
float physics__ray_body(const physics__bodies *b, uint32_t i, physics__v3 o, physics__v3 d,
                        physics__v3 *normal);
/* qsort order of uint32_t values. */
int physics__cmp_u32(const void *x, const void *y);
/* Whether an entity is alive (ct_entity_api_v2.alive); NULL counts every entity as alive. */
typedef bool (*physics__alive_f)(ct_entity_t e);
/* Digest of the live bodies then the live points, each in entity order (points may be NULL):
 * the instance order, and dead entities not yet collected, do not change it. */
uint64_t physics__state_hash(const physics__scene *s, const physics__points *p,
                             physics__alive_f alive);

/* ---- The module (physics.c, physics_lua.c) ------------------------------------------------ */

/* PHYSICS_LAYOUT_VERSION, the layout identity a reload compares, is made at build time from the
 * layouts of physics__state, physics__body_manager, physics__point_manager and every struct they
 * reach (physics_layout.h, by tools/abi/layout_id.py): a change there changes it, so there is no
 * number to bump. The module's entry file includes physics_layout.h. */

/* The two component types, in registration order. */
enum { PHYSICS_POINT_TYPE, PHYSICS_BODY_TYPE, PHYSICS_NUM_TYPES };

/* Everything the module changes while it runs (the managers belong to the worlds), in one block
 * from the plugin allocator that a hot reload hands to the new code. */
typedef struct physics__state {
    /* First in every layout, so any code can tell whether it may read the rest (ct_reload.h). */
    ct_reload_header_t header; /* sizeof(physics__state), PHYSICS_LAYOUT_VERSION */
    uint64_t type_id[PHYSICS_NUM_TYPES];
    /* The types as the running code registered them (its callbacks), to put back when a reload
     * is refused after some were already pointed at the new code. */
    ct_component_type_t registered[PHYSICS_NUM_TYPES];
} physics__state;

/* The services this copy of the code fetched (at init or reload), and the state. */
typedef struct physics__module {
    ct_plugin_o *self;
    const ct_log_api_v1 *log;
    const ct_entity_api_v2 *entity;
    const ct_component_api_v2 *component;
    const ct_transform_api_v2 *transform;
    const ct_world_api_v1 *world;
    const ct_lua_api_v1 *lua;
    const ct_data_api_v1 *data;
    const ct_resource_api_v6 *resource; /* v6: declare_format */
    ct_allocator_t *allocator;  /* the plugin's own: the state, and scratch outside any world */
    const ct_jobs_api_v1 *jobs; /* optional: NULL runs point masses on the calling thread */
    /* Optional (transforms v4): its change counter lets a world at rest skip reading every
     * body's transform (NULL: they are read at every step). */
    const ct_transform_api_v4 *transform_changes;
    const struct ct_expr_api_v1 *expr;         /* optional: force fields (physics_fields.c) */
    const struct ct_profiler_api_v1 *profiler; /* optional: scopes for the thread profiler */
    const ct_debug_name_api_v1 *debug_name;    /* optional: joints name the bodies they join */
    physics__state *state;
} physics__module;

extern physics__module physics__m;
/* The v2 table; v1 is its prefix. The Lua bindings call through it too. */
extern const ct_physics_api_v2 physics__api_v2;
extern const ct_physics_api_v3 physics__api_v3;
extern const ct_physics_api_v4 physics__api_v4;
extern const ct_physics_api_v5 physics__api_v5;

#define PHYSICS_LOG(level, ...) physics__m.log->write(physics__m.self, level, __VA_ARGS__)

/* The per-world managers of the two component types (physics_component.c). */
typedef struct physics__body_manager {
    ct_world_o *world;
    physics__scene scene;
    /* The world's transform change counter after the last step wrote its transforms
     * (physics__module.transform_changes): unchanged at the next step, nothing was moved. */
    uint64_t transform_changes;
    uint32_t bad_transforms; /* bodies whose transform was out of range at the last step */
    /* While a character of this world moves (move_character), its contact callback may read the
     * world but nothing may change it (physics.c, busy): `moving` is that character's entity id
     * (0: none moves). Entities the callback destroys keep their bodies until the move ends
     * (`dead`: physics_component.c, destroyed_bodies); a world it destroys ends the move (`guard`,
     * the move's, told by destroy_bodies). */
    uint32_t moving;
    bool dead;
    struct physics__move_guard *guard;
} physics__body_manager;

/* physics.c: the world of a move (move_character) was destroyed by the character's contact
 * callback: the move ends as soon as the callback returns, touching nothing of the world. */
void physics__move_guard_world_gone(struct physics__move_guard *guard);

/* physics_fields.c: the "force_field" component; apply adds its forces before a step. */
int physics__fields_register(void);
bool physics__fields_rebind(void);
void physics__fields_unregister(void);
void physics__fields_apply(ct_world_o *w, physics__body_manager *bodies, float dt);

/* physics_joint_component.c: the "joint" component (joints written in levels and units). */
int physics__joint_component_register(void);
bool physics__joint_component_rebind(void);
void physics__joint_component_unregister(void);
/* The id of the joint e's "joint" component made in w, or 0 (none, or gone with a body). */
uint32_t physics__joint_of(ct_world_o *w, ct_entity_t e);

/* The reason of the last refusal of an argument (main thread), for the Lua error. */
extern char physics__refusal[192];
/* The world at argument 1 of the Lua function fn (physics_lua.c): a live world with physics, or a
 * Lua error naming fn and the argument. Every binding takes its world here. */
ct_world_o *physics__lua_world(lua_State *L, const char *fn);

typedef struct physics__point_manager {
    physics__points points;
    uint64_t rng; /* for the random probes of gc */
} physics__point_manager;

/* Registers "point_mass" and "body" into the state. 0, or CT_ERR_CONFLICT (nothing stays
 * registered). */
int physics__register_components(void);
/* For a reload: points both registered types at this code's callbacks (all or nothing); false
 * when refused. */
bool physics__rebind_components(void);
void physics__unregister_components(void);
/* Registers the Lua modules, or on a reload registers them again (replacing the functions in
 * place): they hold no script state, so there is nothing to keep. */
void physics__register_lua(void);
/* The v5 shapes' functions (physics_lua_shapes.c), registered by physics__register_lua. */
void physics__register_lua_shapes(void);

#endif
