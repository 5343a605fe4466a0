/* What the kernel-free physics tests (test_physics_core, _rigid, _ccd, _shapes, each also built on
 * the plain C lanes or at -O0) share: a counting allocator that every test must leave empty, the
 * pool they hand to scenes (zero: serial; two_threads: the kernel's job service on two threads,
 * the one piece of the kernel they link), the small generator of their random scenes, and the
 * bodies, scenes and rollback steps more than one of them builds. One copy, compiled into each of
 * them with its own flags (physics_fixture.c). */
#ifndef PHYSICS_FIXTURE_H
#define PHYSICS_FIXTURE_H

#include "physics_internal.h"
#include "../support/test_alloc.h"

/* The allocator every scene and grid of a test uses; reset by setup, checked empty by teardown. */
extern test_alloc_t alloc;
/* What scene_init hands to scenes: zero (serial) until a test run sets it, e.g. to two_threads. */
extern physics__pool pool;
/* The job service on two threads, once physics_fixture_start has run. */
extern physics__pool two_threads;

/* cmocka's per-test setup (a fresh allocator) and teardown (asserts every block came back). */
int setup(void **state);
int teardown(void **state);

/* A scene on alloc with the current pool. */
void scene_init(physics__scene *s);
/* Entity 1 of s made the ground: a static box `half` m wide each way, 2 m thick, friction 0.6,
 * its top at y = 0. on_ground makes a scene (scene_init) with it, `sleeping` the scene's switch
 * (on by default). */
void add_ground(physics__scene *s, float half);
void on_ground(physics__scene *s, float half, bool sleeping);
/* The index of entity `id`'s body (failing the test when it has none). */
uint32_t at(const physics__scene *s, uint32_t id);
/* `steps` steps of 1/60 s, each one asserted to succeed. */
void run(physics__scene *s, int steps);

/* A dynamic cube of half size h at (x, y, z): mass 1, friction 0.6. */
ct_rigid_body_desc_t cube(float x, float y, float z, float h);
/* Entity `id` added to s as the rigid body d (asserted to succeed). */
void add(physics__scene *s, uint32_t id, ct_rigid_body_desc_t d);

/* The mesh of a height field of cols x rows samples (heights row by row), cells sx by sz m, from
 * the origin towards +x and +z (physics__height_field_mesh), built on alloc (asserted to build);
 * the body it is given to frees it. */
physics__mesh *height_field(const float *heights, uint32_t cols, uint32_t rows, float sx, float sz);
/* Entity `id` added to s as a static mesh (friction 0.5, the restitution given) of a wavy height
 * field of n x n cells of `cell` m, heights amp sin(0.6 x) cos(0.5 z) at sample (x, z), placed at
 * (x0, 0, z0). */
void add_wavy_mesh(physics__scene *s, uint32_t id, uint32_t n, float cell, float amp,
                   float restitution, float x0, float z0);
/* The shapes of Jolt's ConvexVsMesh, smaller, as entities first_id .. first_id + 195: 7 x 7
 * columns 3.5 m apart of a box (half extents 0.5, 0.75, 1), a ball (0.5), a capsule (radius 0.5,
 * half height 0.75) and a hull pyramid (a square of half diagonal 1, 1 high) from 4 m up, 2 m
 * apart; mass 1, friction 0.5, restitution 0.3. The pyramids share one hull
 * (physics__bodies_hull), as a game's would; add_shape_pile_copies gives each its own copy. */
void add_shape_pile(physics__scene *s, uint32_t first_id);
void add_shape_pile_copies(physics__scene *s, uint32_t first_id);

/* Continuous collision: one step of entity `id`'s body alone, as a step whose contacts missed what
 * is in its way (as a turning or deflected bullet's do): the step's events are cleared, the body
 * is put where its velocity takes it in 1/60 s, and the sweep (physics__ccd_begin / _end) brings
 * it back to what it hit. */
void swept_step(physics__scene *s, uint32_t id);
/* A closed room of six static boxes 2 cm thick (restitution 1, friction 0.5), entities first_id
 * .. first_id + 5 (the floor and ceiling, then the walls at -z and +z, then at -x and +x): each
 * wall's middle `half` m from the origin, `half` m wide each way. */
void add_room(physics__scene *s, uint32_t first_id, float half);
/* A thin plank at rest at the origin: a dynamic box 2 cm thick along x, 2 x 2 m, 20 kg, friction
 * 0.5, not turned. */
ct_rigid_body_desc_t thin_plank(void);
/* A thin board (1 x 0.02 x 0.3 m, 2 kg, friction 0.5) as entity `id` of s at (x, y, z), turned by
 * yaw about y and then tilted by `tilt` about its long (x) axis: what test_physics_ccd drops on a
 * pedestal and a rough mesh, and test_physics_mesh_rest onto height fields. */
void add_board(physics__scene *s, uint32_t id, float x, float y, float z, float yaw, float tilt);
/* The plank shot of test_physics_ccd, which test_physics_rollback saves: with no gravity, a
 * thin_plank (entity `plank`) lying still, asleep (alone it falls asleep in 40 steps) or woken by
 * the game, and a ball (entity `bullet`: radius 5 cm, 0.1 kg, friction 0.5) from (-0.3, 0.3, 0.2)
 * at 250 m/s along +x. s is made here (on alloc, its pool `with`) and left after the ball's first
 * step, a swept_step whose sweep hit the plank. */
void plank_shot(physics__scene *s, uint32_t bullet, uint32_t plank, bool asleep,
                physics__pool with);

/* Rollback: a snapshot of s (physics__snapshot_save, asserted whole) in a block of malloc's that
 * the caller frees; its size in *size. */
uint8_t *save_snapshot(physics__scene *s, uint32_t *size);
/* `steps` steps one at a time, the state hash after each into hashes[0 .. steps - 1]. */
void run_recording(physics__scene *s, int steps, uint64_t *hashes);
/* `steps` steps one at a time, each asserted to end on the hash run_recording gave. */
void run_matching(physics__scene *s, int steps, const uint64_t *hashes);
/* A rollback's round trip: `steps` steps recorded into hashes[0 .. steps - 1], snap (size bytes,
 * taken before them) restored, and the same steps asserted to end on the same hashes. */
void run_rolled_back(physics__scene *s, const uint8_t *snap, uint32_t size, int steps,
                     uint64_t *hashes);

/* Starts the job service on two threads and points two_threads at it: non-zero when it could not.
 * physics_fixture_stop ends it (after the last test). */
int physics_fixture_start(void);
void physics_fixture_stop(void);

/* Runs tests[0 .. n) as cmocka's group "serial" (pool zero), then as group "two threads" with pool
 * set to two_threads, leaving out of the second the tests named in `serial_only` (NULL-ended; NULL
 * for none): those that never hand the fixture's pool to what they build, or whose scene ends on
 * two threads on the bits it ends on serially, which would only do the serial group's work again. Without a second thread (PHYSICS_FIXTURE_NO_JOBS) the second group
 * would be the first again, serially, and is not run. How many tests failed. */
struct CMUnitTest;
int physics_fixture_run_groups(const struct CMUnitTest *tests, size_t n,
                               const char *const *serial_only);

/* A deterministic generator (xorshift): the same scenes on every run and every compiler. Its
 * state starts at 12345; a test may set it to start a scene of its own. */
extern uint32_t rng_state;
float frand(float lo, float hi);

#endif
