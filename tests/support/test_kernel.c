#include "test_kernel.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plugins/registry.h"
#include "resources/resources_internal.h"

kernel_desc_t test_kernel_desc(const char *const *paths, uint32_t num_paths)
{
    kernel_desc_t desc;
    memset(&desc, 0, sizeof desc);
    desc.strict = true;
    desc.jobs = 2;
    for (uint32_t i = 0; i < num_paths && i < KERNEL_MAX_PATHS; i++)
        desc.plugin_paths[desc.num_plugin_paths++] = paths[i];
    return desc;
}

int test_kernel_boot(const char *const *paths, uint32_t num_paths)
{
    const kernel_desc_t desc = test_kernel_desc(paths, num_paths);
    return kernel__boot(&desc);
}

void *test_kernel_api(uint32_t api, uint32_t version)
{
    return registry__get_engine_api(api, version);
}

uint64_t test_kernel_shutdown(void) { return kernel__shutdown(); }

static test_world_t fixture;

const test_world_t *test_world_boot(const kernel_desc_t *desc, const char *world_name)
{
    assert_int_equal(kernel__boot(desc), 0);
    fixture = (test_world_t){
        .entity = test_kernel_api(CT_ENTITY_API, 2),
        .worlds = test_kernel_api(CT_WORLD_API, 1),
        .resource = test_kernel_api(CT_RESOURCE_API, 1),
        .lua = test_kernel_api(CT_LUA_API, 1),
    };
    assert_non_null(fixture.entity);
    assert_non_null(fixture.worlds);
    assert_non_null(fixture.resource);
    assert_non_null(fixture.lua);
    fixture.world = fixture.worlds->create_world(&(ct_world_desc_t){.name = world_name});
    assert_non_null(fixture.world);
    return &fixture;
}

int test_world_shutdown(void **state)
{
    (void)state;
    fixture.worlds->destroy_world(fixture.world);
    fixture = (test_world_t){0};
    assert_int_equal(test_kernel_shutdown(), 0);
    return 0;
}

void test_lua_call(const char *name, ct_world_o *world, const ct_entity_t *entities, uint32_t n)
{
    const ct_lua_api_v1 *lua = test_kernel_api(CT_LUA_API, 1);
    assert_non_null(lua);
    lua_State *L = lua->main_state();
    lua->push_light_userdata(L, world);
    for (uint32_t i = 0; i < n; i++)
        lua->push_number(L, entities[i].id);
    assert_int_equal(lua->call_global(name, (int)n + 1), 0);
}

test_blob_t test_blob_compile(const char *type, const char *source)
{
    test_blob_t b = {.type = resources__find_type(type)};
    assert_non_null(b.type);
    assert_int_equal(
        resources__compile_text(b.type, "bad.level", source, strlen(source), &b.blob, &b.size), 0);
    b.payload = b.blob + RESOURCES_HEADER_SIZE;
    b.payload_size = b.size - RESOURCES_HEADER_SIZE;
    char err[256] = "";
    void *loaded = b.type->load(b.type->user_data, b.payload, b.payload_size, err, sizeof err);
    if (!loaded)
        fail_msg("the unedited blob does not load: %s", err);
    b.type->unload(b.type->user_data, loaded);
    return b;
}

size_t test_blob_find(const test_blob_t *b, const void *bytes, size_t size)
{
    size_t at = 0;
    for (size_t k = 0; k + size <= b->payload_size; k += 4)
        if (memcmp(b->payload + k, bytes, size) == 0)
            at = k;
    assert_true(at != 0);
    return at;
}

void test_blob_refused(const test_blob_t *b, size_t at, float value, const char *const *words)
{
    uint8_t *copy = malloc(b->payload_size);
    assert_non_null(copy);
    memcpy(copy, b->payload, b->payload_size);
    memcpy(copy + at, &value, sizeof value);
    char err[256] = "";
    void *loaded = b->type->load(b->type->user_data, copy, b->payload_size, err, sizeof err);
    free(copy);
    if (loaded)
        fail_msg("a blob with %g at %zu loaded", (double)value, at);
    for (const char *const *w = words; *w; w++)
        if (!strstr(err, *w))
            fail_msg("%g at %zu: '%s' does not name %s", (double)value, at, err, *w);
}

void test_blob_free(test_blob_t *b)
{
    ct_free(resources__allocator(), b->blob, b->size);
    *b = (test_blob_t){0};
}

void test_project_make(char *dir, size_t size, const char *name)
{
    assert_true(snprintf(dir, size, "/tmp/%s_XXXXXX", name) < (int)size);
    assert_non_null(mkdtemp(dir));
}

void test_project_write(const char *dir, const char *rel, const char *text)
{
    char path[512];
    assert_true(snprintf(path, sizeof path, "%s/%s", dir, rel) < (int)sizeof path);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

int test_project_remove(const char *dir)
{
    char cmd[600];
    assert_true(snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir) < (int)sizeof cmd);
    return system(cmd);
}
