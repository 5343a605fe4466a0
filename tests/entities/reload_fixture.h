/* The hot-reload tests of ct.entities, ct.transforms and ct.physics share this fixture: a kernel
 * booted in-process from copies of the modules in a temporary folder (a reload reads the plugin's
 * file again, and the tests put other builds in its place), one world, and a level spawned into it
 * with transforms and debug names. tests/transforms and tests/physics use it through
 * reload_fixture_dep; only the physics tests load ct_physics.so, so the others need not build
 * it. */
#ifndef CT_TEST_RELOAD_FIXTURE_H
#define CT_TEST_RELOAD_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ct_entity.h"
#include "ct_lua.h"
#include "ct_physics.h"
#include "ct_registry.h"
#include "ct_resource.h"
#include "ct_transform.h"
#include "ct_world.h"
#include "test_kernel.h"

/* A spawn of the test level: root at (1 2 3), its child one unit above, both with transforms, and
 * a loner with only a name. */
typedef struct reload_level_t {
    ct_entity_t root, child, loner;
} reload_level_t;

typedef struct reload_fixture_t {
    char dir[64];
    char entities_path[128];
    char transforms_path[128];
    char physics_path[128]; /* empty without physics */
    /* Taken once at boot: a reload must keep every table at its address. */
    const ct_entity_api_v2 *entity;
    const ct_component_api_v1 *component;
    const ct_world_api_v1 *world_api;
    const ct_debug_name_api_v1 *debug_name;
    const ct_transform_api_v2 *transform;
    const ct_resource_api_v1 *resource;
    const ct_lua_api_v1 *lua;
    const ct_registry_api_v1 *registry;
    const ct_physics_api_v2 *physics; /* NULL without physics */
    ct_world_o *world;
    reload_level_t level; /* spawned at boot */
    uint32_t live;        /* entities that should be alive */
    uint32_t checks;      /* reload_fixture_check calls, so each loads a level under a new name */
} reload_fixture_t;

extern reload_fixture_t rf;

/* cmocka setup and teardown. The teardown lets the modules destroy the world at shutdown and
 * asserts the kernel reports no leaks. */
int reload_fixture_boot(void **state);
/* The same with ct_physics.so loaded too. */
int reload_fixture_boot_with_physics(void **state);
int reload_fixture_shutdown(void **state);

/* Puts a copy of `built` at `path` the way a build does (a new file renamed over the old). */
void reload_fixture_install(const char *built, const char *path);
/* How many times plugin `name` was reloaded. */
uint32_t reload_fixture_reload_count(const char *name);
/* Checks everything the fixture made is intact and every way into the modules works: the tables
 * taken at boot, the level's entities, names and transforms, a new spawn of the loaded level and
 * of a level compiled now, entity destruction, and the Lua functions (including references
 * scripts took at boot and a script callback set at boot). Leaves no new entities behind. */
void reload_fixture_check(void);
/* Installs `other_layout` (a build of plugin `name` with another state layout) at `path`: its
 * reload is refused with CT_ERR_VERSION and the old code keeps running (reload_fixture_check);
 * then `built` installed again reloads. */
void reload_fixture_refuses_layout(const char *name, const char *other_layout, const char *path,
                                   const char *built);

#endif
