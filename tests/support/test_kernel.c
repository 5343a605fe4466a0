#include "test_kernel.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plugins/registry.h"

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
