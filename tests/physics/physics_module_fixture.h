/* What the physics tests that boot the kernel share (test_physics_sensors, _bad_input, _joints,
 * _character, _snapshot, _shapes_module, _joint_level, _module, _mesh_level, _fields): the
 * start-up with ct_entities, ct_transforms and ct_physics loaded, the tables they call, a log
 * capture for checking what a refusal names, and levels of one entity written to be refused.
 * The kernel-free tests have their own fixture (physics_fixture.h): they compile the module's
 * files and link no test kernel, so the two cannot be one file. */
#ifndef PHYSICS_MODULE_FIXTURE_H
#define PHYSICS_MODULE_FIXTURE_H

#include "base/log.h"
#include "ct_entity.h"
#include "ct_lua.h"
#include "ct_physics.h"
#include "ct_world.h"
#include "test_kernel.h"

/* The tables every test calls, set by physics_boot. */
extern const ct_entity_api_v2 *entity;
extern const ct_world_api_v1 *worlds;
extern const ct_lua_api_v1 *lua;
extern const ct_physics_api_v4 *p4;
extern const ct_physics_api_v5 *p5;

/* The kernel of the physics tests: ct_entities, ct_transforms and ct_physics, as
 * test_kernel_desc makes it (a test may add a project folder or a module before booting). */
kernel_desc_t physics_desc(void);

/* Boots `desc`, creates a world named `world_name` and sets the tables above, failing the test
 * when one is not served; test_world_shutdown is the matching teardown. physics_boot boots
 * physics_desc(). The answer stays valid until test_world_shutdown. */
const test_world_t *physics_boot_desc(const kernel_desc_t *desc, const char *world_name);
const test_world_t *physics_boot(const char *world_name);

/* A dynamic ball of radius r at (x, y, z): 1 kg, friction 0.5. */
ct_rigid_body_desc_t ball_desc(float x, float y, float z, float r);
/* A new entity with the rigid body d in w (through p4; failing the test if it is refused). */
ct_entity_t physics_body(ct_world_o *w, const ct_rigid_body_desc_t *d);
/* The corners of a unit cube about the origin (k = x | y << 1 | z << 2, bit set: + side). */
void unit_cube_points(float out[24]);
/* Defines the Lua function unit_cube(): a new table of unit_cube_points' 24 numbers, in order. */
void physics_lua_unit_cube(void);

/* Loads `source` as the resource `name` of `type` in the booted kernel: load_source's answer. */
int physics_load(const char *type, const char *name, const char *source);

/* Loads `source` as level `name` and spawns it into the booted world, its entities into e (at
 * most max): how many it made, failing the test when the load fails or makes none. */
int physics_spawn(const char *name, const char *source, ct_entity_t *e, int max);

/* A test's own set-up and teardown (cmocka_unit_test_setup_teardown(test, physics_test_begin,
 * physics_test_end)): what a test made through physics_body, physics_load and physics_spawn,
 * every entity that got a body in the booted world, and every world it created and left, is
 * destroyed or unloaded after it whether it passed or failed, and the log goes back to its own
 * sink; so a failing test leaves no bodies, worlds, levels or log capture to the tests after it
 * (a level left loaded was handed, unchanged, to the next test loading another source of the same
 * name). What the group's set-up made before the first test stays. */
int physics_test_begin(void **state);
int physics_test_end(void **state);
#define physics_test(f) cmocka_unit_test_setup_teardown(f, physics_test_begin, physics_test_end)

/* The log lines written while log__set_sink(capture, NULL) is in force, each ending in '\n'; a
 * test empties it (captured[0] = '\0') before what it checks. */
extern char captured[16384];
void capture(void *ctx, ct_log_level level, const char *tag, const char *text);

/* Compiles level `name` (e.g. "levels/bad_joint") of one entity named `entity` whose components
 * table holds `components` (printf-style), with `captured` emptied first: the load's answer. */
int physics_compile_level(const char *name, const char *entity, const char *components, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The same level must be refused, and what the log said (into `captured`: the caller routes the
 * log there) must name the level's file, the entity and each of `words` ('|' between them); else
 * the test fails. */
void physics_level_refused(const char *words, const char *name, const char *entity,
                           const char *components, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif
