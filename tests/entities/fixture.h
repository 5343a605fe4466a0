/* The entities suite's fixture: a kernel booted in-process with ct_entities.so, its APIs, and a
 * test component type ("probe") whose manager records what the module asks of it. */
#ifndef CT_TEST_ENTITIES_FIXTURE_H
#define CT_TEST_ENTITIES_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ct_data.h"
#include "ct_entity.h"
#include "ct_log.h"
#include "ct_lua.h"
#include "ct_memory.h"
#include "ct_resource.h"
#include "ct_world.h"
#include "test_kernel.h"

typedef struct fixture_t {
    const ct_entity_api_v2 *entity;
    const ct_component_api_v1 *component;
    const ct_component_api_v2 *component_v2;
    const ct_world_api_v0 *world_v0;
    const ct_world_api_v1 *world;
    const ct_debug_name_api_v1 *debug_name;
    const ct_resource_api_v1 *resource;
    const ct_lua_api_v1 *lua;
    const ct_log_api_v1 *log;
} fixture_t;

extern fixture_t fx;

/* Boots with ct_entities.so (strict as asked) and fills fx; asserts success. */
void fixture_boot(bool strict);
/* Shuts down and asserts that nothing leaked. */
void fixture_shutdown(void);
/* cmocka setup/teardown around each test: a strict boot, then fixture_shutdown. */
int fixture_setup(void **state);
int fixture_teardown(void **state);

/* The probe component (the lazy one looks at its first 256 instances only): 8 bytes per instance (a float `value` and a u32 `tag` from its source),
 * lazily collected (gc) when registered with lazy, else removed in the destroy callback. Its
 * manager keeps a plain array of (entity, value, tag) plus what the last spawn call saw. */
typedef struct probe_instance_t {
    ct_entity_t entity;
    float value;
    uint32_t tag;
} probe_instance_t;

typedef struct probe_manager_t {
    ct_allocator_t *a;
    probe_instance_t *items;
    uint32_t n, capacity;
    uint32_t spawn_calls;
    uint32_t destroyed_calls;
    ct_spawn_context_t last_ctx;
    uint32_t last_parent_index[16];
    uint32_t last_entity_index[16];
    uint32_t last_n;
    uint32_t collected; /* instances the lazy collection removed */
} probe_manager_t;

/* Registers "probe" (spawn_order 10); returns its id. */
uint64_t probe_register(bool lazy);

#endif
