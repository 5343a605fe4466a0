/*
 * Fuzz target: the entity resource loader (validation of the compiled layout). Every input is
 * loaded twice: as a raw payload, and spliced into a valid compiled level (the input's bytes are
 * XORed over it from an offset the input picks, and the result cut to a length it picks), so
 * mutations reach the deep fields without seed files. A load either refuses with a message or
 * returns a resource that spawns without reading out of bounds.
 */
#include <stdlib.h>
#include <string.h>

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

static const char source[] =
    "entities = [ { components = { debug_name = { name = \"a\" } }\n"
    "  children = [ { components = { debug_name = { name = \"b\" } } } { } ] }\n"
    "  { components = { debug_name = { name = \"c\" } } repeat = { count = 3 spacing = [1 0 0] } } "
    "]\n";

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
