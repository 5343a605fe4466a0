#include "reload_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uv.h>

#include "plugins/loader.h"

reload_fixture_t rf;

static const char level_source[] =
    "entities = [\n"
    "  { components = { transform = { position = [1 2 3] } debug_name = { name = \"root\" } }\n"
    "    children = [ { components = { transform = { position = [0 1 0] }\n"
    "                                  debug_name = { name = \"child\" } } } ] }\n"
    "  { components = { debug_name = { name = \"loner\" } } }\n"
    "]\n";
#define LEVEL_ENTITIES 3

/* Scripts keep references to the bindings (locals, a callback) from before any reload. */
static const char script[] =
    "local World, Transform, Entity = World, Transform, Entity\n"
    "local world_position, run_callbacks = Transform.world_position, World.run_callbacks\n"
    "local pings = 0\n"
    "function reload_listen(w, e)\n"
    "  World.set_callback(w, e, 'ping', function(_, n) pings = pings + n end)\n"
    "end\n"
    "function reload_check(w, root, child)\n"
    "  assert(World.debug_name(w, root) == 'root' and World.debug_name(w, child) == 'child')\n"
    "  local x, y, z = world_position(w, child)\n"
    "  assert(x == 1 and y == 3 and z == 3, 'child at ' .. x .. ' ' .. y .. ' ' .. z)\n"
    "  Transform.set_local_position(w, root, 5, 2, 3)\n"
    "  assert(Transform.world_position(w, child) == 5)\n"
    "  Transform.set_local_position(w, root, 1, 2, 3)\n"
    "  local before = pings\n"
    "  World.queue_callback(w, root, 'ping', 1)\n"
    "  assert(run_callbacks(w) == 1 and pings == before + 1)\n"
    "  local e = Entity.create()\n"
    "  assert(Entity.alive(e))\n"
    "  Entity.destroy(e)\n"
    "  local other = World.create()\n"
    "  World.destroy(other)\n"
    "end\n";

void reload_fixture_install(const char *built, const char *path)
{
    char part[160];
    snprintf(part, sizeof part, "%s.part", path);
    uv_fs_t req;
    assert_int_equal(uv_fs_copyfile(NULL, &req, built, part, 0, NULL), 0);
    uv_fs_req_cleanup(&req);
    assert_int_equal(rename(part, path), 0);
}

uint32_t reload_fixture_reload_count(const char *name)
{
    ct_plugin_info_t info;
    assert_true(rf.registry->plugin_info(rf.registry->find_plugin(name), &info));
    assert_int_equal(info.plugin_api, 2); /* the modules' entries are ct_module.h's v2 hooks */
    return info.reload_count;
}

void reload_fixture_refuses_layout(const char *name, const char *other_layout, const char *path,
                                   const char *built)
{
    reload_fixture_install(other_layout, path);
    assert_int_equal(loader__reload(name), CT_ERR_VERSION);
    assert_int_equal(reload_fixture_reload_count(name), 0);
    reload_fixture_check();
    reload_fixture_install(built, path);
    assert_int_equal(loader__reload(name), 0);
    reload_fixture_check();
}

/* The level's entities are told apart by name: their order is the entities module's business. */
static reload_level_t spawn_level(const char *name)
{
    ct_entity_t e[LEVEL_ENTITIES];
    const void *level = rf.resource->get("level", name);
    assert_non_null(level);
    assert_int_equal(rf.world_api->spawn_resource(rf.world, level, NULL, NULL, e, LEVEL_ENTITIES),
                     LEVEL_ENTITIES);
    rf.live += LEVEL_ENTITIES;
    reload_level_t out = {{0}, {0}, {0}};
    for (int k = 0; k < LEVEL_ENTITIES; k++) {
        const char *n = rf.debug_name->name(rf.world, rf.debug_name->lookup(rf.world, e[k]));
        assert_non_null(n);
        ct_entity_t *slot = strcmp(n, "root") == 0    ? &out.root
                            : strcmp(n, "child") == 0 ? &out.child
                                                      : &out.loner;
        *slot = e[k];
    }
    return out;
}

static int boot(bool with_physics)
{
    memset(&rf, 0, sizeof rf);
    strcpy(rf.dir, "/tmp/cuttle-module-reload-XXXXXX");
    assert_non_null(mkdtemp(rf.dir));
    snprintf(rf.entities_path, sizeof rf.entities_path, "%s/ct_entities.so", rf.dir);
    snprintf(rf.transforms_path, sizeof rf.transforms_path, "%s/ct_transforms.so", rf.dir);
    reload_fixture_install(CT_TEST_MODULE("entities", "ct_entities"), rf.entities_path);
    reload_fixture_install(CT_TEST_MODULE("transforms", "ct_transforms"), rf.transforms_path);
    const char *paths[] = {rf.entities_path, rf.transforms_path, rf.physics_path};
    if (with_physics) {
        snprintf(rf.physics_path, sizeof rf.physics_path, "%s/ct_physics.so", rf.dir);
        reload_fixture_install(CT_TEST_MODULE("physics", "ct_physics"), rf.physics_path);
    }
    assert_int_equal(test_kernel_boot(paths, with_physics ? 3 : 2), 0);
    rf.entity = test_kernel_api(CT_ENTITY_API, 2);
    rf.component = test_kernel_api(CT_COMPONENT_API, 1);
    rf.world_api = test_kernel_api(CT_WORLD_API, 1);
    rf.debug_name = test_kernel_api(CT_DEBUG_NAME_API, 1);
    rf.transform = test_kernel_api(CT_TRANSFORM_API, 2);
    rf.resource = test_kernel_api(CT_RESOURCE_API, 1);
    rf.lua = test_kernel_api(CT_LUA_API, 1);
    rf.registry = test_kernel_api(CT_REGISTRY_API, 1);
    rf.physics = with_physics ? test_kernel_api(CT_PHYSICS_API, 2) : NULL;
    assert_true(rf.entity && rf.component && rf.world_api && rf.debug_name && rf.transform &&
                rf.resource && rf.lua && rf.registry && (rf.physics || !with_physics));
    rf.world = rf.world_api->create_world(&(ct_world_desc_t){.name = "reload"});
    assert_non_null(rf.world);
    assert_int_equal(
        rf.resource->load_source("level", "levels/boot", level_source, strlen(level_source)), 0);
    rf.level = spawn_level("levels/boot");
    assert_int_equal(rf.lua->run_string(script, "reload_script"), 0);
    lua_State *L = rf.lua->main_state();
    rf.lua->push_light_userdata(L, rf.world);
    rf.lua->push_number(L, rf.level.root.id);
    assert_int_equal(rf.lua->call_global("reload_listen", 2), 0);
    return 0;
}

int reload_fixture_boot(void **state)
{
    (void)state;
    return boot(false);
}

int reload_fixture_boot_with_physics(void **state)
{
    (void)state;
    return boot(true);
}

int reload_fixture_shutdown(void **state)
{
    (void)state;
    assert_int_equal(test_kernel_shutdown(), 0);
    assert_int_equal(remove(rf.entities_path), 0);
    assert_int_equal(remove(rf.transforms_path), 0);
    assert_true(!rf.physics_path[0] || remove(rf.physics_path) == 0);
    assert_int_equal(rmdir(rf.dir), 0);
    return 0;
}

static void check_tables(void)
{
    assert_ptr_equal(test_kernel_api(CT_ENTITY_API, 2), rf.entity);
    assert_ptr_equal(test_kernel_api(CT_COMPONENT_API, 1), rf.component);
    assert_ptr_equal(test_kernel_api(CT_WORLD_API, 1), rf.world_api);
    assert_ptr_equal(test_kernel_api(CT_DEBUG_NAME_API, 1), rf.debug_name);
    assert_ptr_equal(test_kernel_api(CT_TRANSFORM_API, 2), rf.transform);
    if (rf.physics)
        assert_ptr_equal(test_kernel_api(CT_PHYSICS_API, 2), rf.physics);
}

static void check_level(const reload_level_t *level)
{
    assert_true(rf.entity->alive(level->root) && rf.entity->alive(level->child) &&
                rf.entity->alive(level->loner));
    float p[3];
    assert_true(rf.transform->world_position(rf.world, level->root, p));
    assert_true(p[0] == 1 && p[1] == 2 && p[2] == 3);
    assert_true(rf.transform->world_position(rf.world, level->child, p));
    assert_true(p[0] == 1 && p[1] == 3 && p[2] == 3);
    const ct_transform_t t = rf.transform->lookup(rf.world, level->child);
    assert_int_equal(rf.transform->parent(rf.world, t).i,
                     rf.transform->lookup(rf.world, level->root).i);
    assert_int_equal(rf.transform->lookup(rf.world, level->loner).i, 0);
    const ct_entity_t named[LEVEL_ENTITIES] = {level->root, level->child, level->loner};
    const char *const names[LEVEL_ENTITIES] = {"root", "child", "loner"};
    for (int k = 0; k < LEVEL_ENTITIES; k++)
        assert_string_equal(
            rf.debug_name->name(rf.world, rf.debug_name->lookup(rf.world, named[k])), names[k]);
}

static void destroy_level(const reload_level_t *level)
{
    const ct_entity_t e[LEVEL_ENTITIES] = {level->root, level->child, level->loner};
    rf.entity->destroy_batch(e, LEVEL_ENTITIES);
    rf.live -= LEVEL_ENTITIES;
}

/* The loaded level spawns again, and one compiled and loaded now runs the compile, load and
 * spawn callbacks as they are now; destroying the entities runs the destroy callbacks, and
 * unloading the level the unload callback. */
static void check_new_spawns(void)
{
    reload_level_t again = spawn_level("levels/boot");
    check_level(&again);
    destroy_level(&again);
    char name[32];
    snprintf(name, sizeof name, "levels/check%u", rf.checks);
    assert_int_equal(rf.resource->load_source("level", name, level_source, strlen(level_source)),
                     0);
    reload_level_t fresh = spawn_level(name);
    check_level(&fresh);
    destroy_level(&fresh);
    rf.resource->unload("level", name);
    assert_null(rf.resource->get("level", name));
}

void reload_fixture_check(void)
{
    rf.checks++;
    check_tables();
    assert_int_equal(rf.entity->live_count(), rf.live);
    check_level(&rf.level);
    check_new_spawns();
    lua_State *L = rf.lua->main_state();
    rf.lua->push_light_userdata(L, rf.world);
    rf.lua->push_number(L, rf.level.root.id);
    rf.lua->push_number(L, rf.level.child.id);
    assert_int_equal(rf.lua->call_global("reload_check", 3), 0);
    assert_int_equal(rf.entity->live_count(), rf.live);
    assert_int_equal(rf.transform->count(rf.world), 2);
    assert_int_equal(rf.debug_name->count(rf.world), LEVEL_ENTITIES);
}
