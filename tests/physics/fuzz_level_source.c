/* fuzz_level_source.c: the shared run of physics' level-component fuzz targets
 * (fuzz_level_source.h). */
#include "fuzz_level_source.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ct_resource.h"
#include "test_kernel.h"

static const ct_resource_api_v3 *resource;
static const ct_world_api_v1 *worlds;
const ct_world_api_v1 *fuzz_worlds;
const ct_entity_api_v2 *fuzz_entity;
const ct_physics_api_v4 *fuzz_physics;
const ct_physics_api_v5 *fuzz_physics_v5;

static void shutdown_kernel(void) { test_kernel_shutdown(); }

void fuzz_boot(void)
{
    static bool booted;
    if (booted)
        return;
    booted = true;
    const char *paths[] = {CT_TEST_MODULE("entities", "ct_entities"),
                           CT_TEST_MODULE("transforms", "ct_transforms"),
                           CT_TEST_MODULE("physics", "ct_physics")};
    if (test_kernel_boot(paths, 3) != 0)
        abort();
    resource = test_kernel_api(CT_RESOURCE_API, 3);
    fuzz_worlds = worlds = test_kernel_api(CT_WORLD_API, 1);
    fuzz_entity = test_kernel_api(CT_ENTITY_API, 2);
    fuzz_physics = test_kernel_api(CT_PHYSICS_API, 4);
    fuzz_physics_v5 = test_kernel_api(CT_PHYSICS_API, 5);
    if (!resource || !worlds || !fuzz_entity || !fuzz_physics || !fuzz_physics_v5)
        abort();
    atexit(shutdown_kernel);
}

uint8_t fuzz_next(fuzz_reader *r) { return r->at < r->n ? r->p[r->at++] : 0; }

const char *fuzz_pick(fuzz_reader *r, const char *const *list, size_t count)
{
    return list[fuzz_next(r) % count];
}

void fuzz_put(char *out, size_t room, size_t *len, const char *fmt, const char *a, const char *b,
              const char *c)
{
    const int k = snprintf(out + *len, room - *len, fmt, a, b, c);
    if (k > 0 && (size_t)k < room - *len)
        *len += (size_t)k;
}

int fuzz_level_run(const fuzz_level_desc *d, const uint8_t *data, size_t size)
{
    fuzz_boot();
    static char text[65536]; /* a compound of 18 hulls of 69 points is some 25 kB */
    size_t len = 0;
    if (size && data[0] % 8 == 7) {
        len = size - 1 < sizeof text - 1 ? size - 1 : sizeof text - 1;
        memcpy(text, data + 1, len);
    } else {
        fuzz_reader r = {data, size, 0};
        const uint32_t count = 1u + fuzz_next(&r) % 6u;
        fuzz_put(text, sizeof text, &len, "entities = [\n%s%s%s", "", "", "");
        for (uint32_t k = 0; k < count; k++)
            d->entity_source(&r, text, sizeof text, &len);
        fuzz_put(text, sizeof text, &len, "]\n%s%s%s", "", "", "");
    }
    text[len] = '\0';
    if (resource->load_source("level", d->resource, text, len) != 0)
        return 0;
    ct_world_o *w = worlds->create_world(&(ct_world_desc_t){.name = "fuzz"});
    ct_entity_t e[8];
    const int n = worlds->spawn_resource(w, resource->get("level", d->resource), NULL, NULL, e, 8);
    for (int step = 0; step < 3; step++)
        fuzz_physics->simulate(w, 1.0f / 60.0f);
    for (int k = 0; k < n && k < 8; k++) {
        float p[3];
        if (fuzz_physics->position(w, e[k], p) == 0 &&
            !(fabsf(p[0]) <= CT_PHYSICS_MAX_POSITION && fabsf(p[1]) <= CT_PHYSICS_MAX_POSITION &&
              fabsf(p[2]) <= CT_PHYSICS_MAX_POSITION))
            abort(); /* a body left the ranges */
    }
    if (d->after)
        d->after(w, e, n);
    (void)fuzz_physics->state_hash(w);
    worlds->destroy_world(w);
    if (n > 0)
        fuzz_entity->destroy_batch(e, (uint32_t)(n < 8 ? n : 8));
    resource->unload("level", d->resource);
    return 0;
}
