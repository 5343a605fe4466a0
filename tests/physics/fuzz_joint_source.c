/*
 * Fuzz target: the joint loader (the "joint" component's compiler, its load-time validation,
 * the spawn that finds `to` by name and places the joint, and the first steps of what got
 * through). Structure-aware like fuzz_body_source: the input's bytes choose, for up to six
 * entities, a body or none, a debug name from a small set (so `to` finds one, several or none),
 * and which joint fields appear with which values (types, names, awkward numbers: zero,
 * negatives, NaN-sized, huge, denormal spellings); every eighth input goes to the compiler as raw
 * text. A level either is refused with a message or spawns joints that simulate a few steps
 * without a crash, a sanitizer report or a body out of range.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ct_entity.h"
#include "ct_physics.h"
#include "ct_resource.h"
#include "ct_world.h"
#include "test_kernel.h"

static const ct_resource_api_v3 *resource;
static const ct_world_api_v1 *worlds;
static const ct_entity_api_v2 *entity;
static const ct_physics_api_v4 *physics;

static void shutdown_kernel(void) { test_kernel_shutdown(); }

static void boot(void)
{
    const char *paths[] = {CT_TEST_MODULE("entities", "ct_entities"),
                           CT_TEST_MODULE("transforms", "ct_transforms"),
                           CT_TEST_MODULE("physics", "ct_physics")};
    if (test_kernel_boot(paths, 3) != 0)
        abort();
    resource = test_kernel_api(CT_RESOURCE_API, 3);
    worlds = test_kernel_api(CT_WORLD_API, 1);
    entity = test_kernel_api(CT_ENTITY_API, 2);
    physics = test_kernel_api(CT_PHYSICS_API, 4);
    if (!resource || !worlds || !entity || !physics)
        abort();
    atexit(shutdown_kernel);
}

typedef struct reader {
    const uint8_t *p;
    size_t n, at;
} reader;

static uint8_t next(reader *r) { return r->at < r->n ? r->p[r->at++] : 0; }

static const char *const numbers[] = {"0",    "-1",   "0.001", "0.5",    "1",    "3",
                                      "1e4",  "1e5",  "1e39",  "-0",     "3.2",  "1e-40",
                                      "0.25", "-7.5", "100",   "999999", "1e-9", "-3.1"};

static void put(char *out, size_t room, size_t *len, const char *fmt, const char *a, const char *b,
                const char *c)
{
    const int k = snprintf(out + *len, room - *len, fmt, a, b, c);
    if (k > 0 && (size_t)k < room - *len)
        *len += (size_t)k;
}

static const char *number(reader *r)
{
    return numbers[next(r) % (sizeof numbers / sizeof numbers[0])];
}

static const char *const names[] = {"a", "b", "c", "a", "", "d"};

/* One entity's source from the input. */
static void entity_source(reader *r, char *out, size_t room, size_t *len)
{
    static const char *const types[] = {"fixed", "hinge", "ball", "slider", "distance", "rope"};
    const uint8_t present = next(r), more = next(r);
    put(out, room, len, "{ components = { transform = { position = [%s %s %s] } ", number(r),
        number(r), number(r));
    if (present & 1)
        put(out, room, len, "debug_name = { name = \"%s\" } %s%s", names[next(r) % 6], "", "");
    if (present & 2)
        put(out, room, len, "body = { kind = \"%s\" rotates = true %s%s} ",
            next(r) % 4 ? "dynamic" : "static", "", "");
    if (present & 4) {
        put(out, room, len, "joint = { type = \"%s\" %s%s", types[next(r) % 6], "", "");
        if (more & 1)
            put(out, room, len, "to = \"%s\" %s%s", names[next(r) % 6], "", "");
        if (more & 2)
            put(out, room, len, "anchor = [%s %s %s] ", number(r), number(r), number(r));
        if (more & 4)
            put(out, room, len, "axis = [%s %s %s] ", number(r), number(r), number(r));
        if (more & 8)
            put(out, room, len, "lower = %s upper = %s cone_angle = %s ", number(r), number(r),
                number(r));
        if (more & 16)
            put(out, room, len, "motor_speed = %s max_motor_force = %s %s", number(r), number(r),
                "");
        if (more & 32)
            put(out, room, len, "length = %s spring_hertz = %s spring_damping = %s ", number(r),
                number(r), number(r));
        if (more & 64)
            put(out, room, len, "anchor_b = [%s %s %s] ", number(r), number(r), number(r));
        if (more & 128)
            put(out, room, len, "collide = %s upper = %s %s", next(r) & 1 ? "true" : "1", number(r),
                "");
        put(out, room, len, "} %s%s%s", "", "", "");
    }
    put(out, room, len, "} }\n%s%s%s", "", "", "");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool booted;
    if (!booted) {
        boot();
        booted = true;
    }
    static char text[16384];
    size_t len = 0;
    if (size && data[0] % 8 == 7) {
        len = size - 1 < sizeof text - 1 ? size - 1 : sizeof text - 1;
        memcpy(text, data + 1, len);
    } else {
        reader r = {data, size, 0};
        const uint32_t count = 1u + next(&r) % 6u;
        put(text, sizeof text, &len, "entities = [\n%s%s%s", "", "", "");
        for (uint32_t k = 0; k < count; k++)
            entity_source(&r, text, sizeof text, &len);
        put(text, sizeof text, &len, "]\n%s%s%s", "", "", "");
    }
    text[len] = '\0';
    if (resource->load_source("level", "fuzz/joints", text, len) != 0)
        return 0;
    ct_world_o *w = worlds->create_world(&(ct_world_desc_t){.name = "fuzz"});
    ct_entity_t e[8];
    const int n =
        worlds->spawn_resource(w, resource->get("level", "fuzz/joints"), NULL, NULL, e, 8);
    for (int step = 0; step < 3; step++)
        physics->simulate(w, 1.0f / 60.0f);
    for (int k = 0; k < n && k < 8; k++) {
        float p[3];
        if (physics->position(w, e[k], p) == 0 &&
            !(fabsf(p[0]) <= CT_PHYSICS_MAX_POSITION && fabsf(p[1]) <= CT_PHYSICS_MAX_POSITION &&
              fabsf(p[2]) <= CT_PHYSICS_MAX_POSITION))
            abort(); /* a body left the ranges */
    }
    /* Half the bodies go first: their joints must go with them, and the rest still steps. */
    if (n > 1)
        entity->destroy_batch(e, (uint32_t)(n < 8 ? n : 8) / 2);
    physics->simulate(w, 1.0f / 60.0f);
    (void)physics->state_hash(w);
    worlds->destroy_world(w);
    if (n > 0)
        entity->destroy_batch(e, (uint32_t)(n < 8 ? n : 8));
    resource->unload("level", "fuzz/joints");
    return 0;
}
