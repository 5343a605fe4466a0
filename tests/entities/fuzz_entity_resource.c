/*
 * Fuzz target: the entity resource loader (validation of the compiled layout). Every input is
 * loaded twice: as a raw payload, and spliced into a valid compiled level (the input's bytes are
 * XORed over it from an offset the input picks, and the result cut to a length it picks), so
 * mutations reach the deep fields without seed files, among them a section of variable-size
 * instances (a test type registered here). A load either refuses with a message or
 * returns a resource that spawns without reading out of bounds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ct_data.h"
#include "ct_entity.h"

#include "ct_resource.h"
#include "ct_world.h"
#include "kernel.h"
#include "plugins/registry.h"
#include "resources/resources_internal.h"
#include "test_kernel.h"

static const ct_resource_type_t *level;
static const ct_world_api_v1 *world_api;
static ct_world_o *world;
static uint8_t *valid;
static uint64_t valid_size;

/* The first section is a variable-size type's (spawn order 10, before debug_name's), within
 * the first 256 bytes the splice reaches: instances of 8, 28 and 64 bytes. */
static const char source[] =
    "entities = [ { components = { debug_name = { name = \"a\" } fuzz_var = { n = 1 } }\n"
    "  children = [ { components = { debug_name = { name = \"b\" } fuzz_var = { n = 6 } } }\n"
    "  { components = { fuzz_var = { n = 15 } } } ] }\n"
    "  { components = { debug_name = { name = \"c\" } } repeat = { count = 3 spacing = [1 0 0] } } "
    "]\n";

/* "fuzz_var": variable-size instances (CT_COMPONENT_VARIABLE_SIZE, at most 64 bytes) of a u32
 * size and n u32 words, each word its index; the validator checks size and words, the spawner
 * reads every byte of every instance it walks (so a read past a bad size is caught by ASan). */
static int var_compile(void *user_data, const ct_data_o *src, void *out, ct_compile_ctx_o *ctx)
{
    (void)user_data, (void)ctx;
    const ct_data_api_v1 *d = test_kernel_api(CT_DATA_API, 1);
    const uint32_t n = (uint32_t)d->number(d->get(src, "n"), 0), size = 4 + 4 * n;
    memcpy(out, &size, 4);
    for (uint32_t k = 0; k < n; k++)
        memcpy((uint8_t *)out + 4 + 4 * k, &k, 4);
    return 0;
}

static bool var_validate(void *user_data, const void *instance, char *why, size_t why_size)
{
    (void)user_data;
    uint32_t size, w;
    memcpy(&size, instance, 4);
    for (uint32_t k = 0; 4 + 4 * k < size; k++) {
        memcpy(&w, (const uint8_t *)instance + 4 + 4 * k, 4);
        if (w != k || size % 4) {
            snprintf(why, why_size, "fuzz_var.word[%u]", k);
            return false;
        }
    }
    return true;
}

static uint64_t var_sum;
static void *var_create(void *user_data, ct_world_o *w, ct_allocator_t *a)
{
    (void)user_data, (void)w, (void)a;
    return &var_sum;
}
static void var_destroy(void *user_data, void *manager) { (void)user_data, (void)manager; }
static void var_destroyed(void *manager, const ct_entity_t *e, uint32_t n) { (void)manager, (void)e, (void)n; }
static void var_spawn(void *manager, const ct_spawn_context_t *ctx, uint32_t n,
                      const uint32_t *entity_index, const void *data)
{
    (void)manager, (void)ctx, (void)entity_index;
    for (uint32_t i = 0; i < n; i++, data = ct_component_next_instance(data)) {
        uint32_t size;
        memcpy(&size, data, 4);
        for (uint32_t k = 0; k < size; k++)
            var_sum += ((const uint8_t *)data)[k];
    }
}

static void shutdown_kernel(void)
{
    world_api->destroy_world(world);
    if (valid)
        ct_free(resources__allocator(), valid, valid_size + RESOURCES_HEADER_SIZE);
    test_kernel_shutdown();
}

static void boot(void)
{
    const char *paths[] = {CT_TEST_MODULE("entities", "ct_entities")};
    if (test_kernel_boot(paths, 1) != 0)
        abort();
    const ct_component_api_v2 *component = test_kernel_api(CT_COMPONENT_API, 2);
    const uint64_t var = component->register_type(&(ct_component_type_t){
        .name = "fuzz_var",
        .spawn_order = 10,
        .create_manager = var_create,
        .destroy_manager = var_destroy,
        .instance_size = CT_COMPONENT_VARIABLE_SIZE | 64u,
        .compile = var_compile,
        .spawn = var_spawn,
        .destroyed = var_destroyed,
    });
    if (!var || !component->set_validate(var, var_validate))
        abort();
    level = resources__find_type("level");
    world_api = test_kernel_api(CT_WORLD_API, 1);
    world = world_api->create_world(NULL);
    uint64_t blob_size;
    if (resources__compile_text(level, "fuzz.level", source, sizeof source - 1, &valid,
                                &blob_size) != 0)
        abort();
    valid_size = blob_size - RESOURCES_HEADER_SIZE;
    atexit(shutdown_kernel);
}

static void try_load(const uint8_t *payload, size_t size)
{
    char err[256];
    void *res = level->load(level->user_data, payload, size, err, sizeof err);
    if (!res)
        return;
    ct_entity_t out[16];
    int n = world_api->spawn_resource(world, res, NULL, NULL, out, 16);
    const ct_entity_api_v2 *entity = test_kernel_api(CT_ENTITY_API, 2);
    if (n > 0)
        entity->destroy_batch(out, (uint32_t)(n < 16 ? n : 16));
    level->unload(level->user_data, res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!level)
        boot();
    /* Exactly-sized copies, so any read past the end is caught under ASan. */
    uint8_t *raw = malloc(size ? size : 1);
    memcpy(raw, data, size);
    try_load(raw, size);
    free(raw);
    /* And at an odd address: the loader copies such a payload to an aligned place first. */
    uint8_t *odd = malloc(size + 1);
    memcpy(odd + 1, data, size);
    try_load(odd + 1, size);
    free(odd);

    if (size < 2)
        return 0;
    const uint8_t *payload = valid + RESOURCES_HEADER_SIZE;
    size_t at = data[0] % valid_size;
    size_t cut = valid_size - (data[1] % 4 == 0 ? data[1] % valid_size : 0);
    uint8_t *spliced = malloc(cut ? cut : 1);
    memcpy(spliced, payload, cut);
    for (size_t i = 2; i < size && at + i - 2 < cut; i++)
        spliced[at + i - 2] ^= data[i];
    try_load(spliced, cut);
    free(spliced);
    return 0;
}
