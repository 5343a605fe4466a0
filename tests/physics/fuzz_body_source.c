/*
 * Fuzz target: the body loader (compile_body's checks, the spawn-time checks and the first steps
 * of whatever got through). Structure-aware, so it needs no seed files: the input's bytes choose,
 * for up to six entities, which body fields appear and with which values (shapes, kinds, lock
 * names, and numbers from a table of awkward ones: zero, negatives, NaN-sized, huge, denormal
 * spellings), and where each entity's transform puts it (v5: the sensor switch and the
 * collision filter's layer and mask, from whole 32-bit numbers and ones that are not); every
 * eighth input goes to the compiler as raw text instead. A level either is refused with a message or spawns bodies that simulate a
 * few steps (rotating or not) without a crash, a sanitizer report or a value out of range.
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
static const ct_physics_api_v5 *physics5;

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
    physics5 = test_kernel_api(CT_PHYSICS_API, 5);
    if (!resource || !worlds || !entity || !physics || !physics5)
        abort();
    atexit(shutdown_kernel);
}

typedef struct reader {
    const uint8_t *p;
    size_t n, at;
} reader;

static uint8_t next(reader *r) { return r->at < r->n ? r->p[r->at++] : 0; }

static const char *const numbers[] = {"0",    "-1",   "0.001", "0.5",    "1",    "3",
                                      "1e4",  "1e5",  "1e39",  "-0",     "2000", "1e-40",
                                      "0.25", "-7.5", "100",   "999999", "1e-9", "1e15"};

static void put(char *out, size_t room, size_t *len, const char *fmt, const char *a, const char *b,
                const char *c)
{
    const int k = snprintf(out + *len, room - *len, fmt, a, b, c);
    if (k > 0 && (size_t)k < room - *len)
        *len += (size_t)k;
}

/* Filters: whole 32-bit numbers, and what is not one. */
static const char *const filters[] = {"0",   "1",    "2", "4294967295", "4294967296", "-1",
                                      "0.5", "1e39", "3", "\"1\"",      "[1]",        "true"};

static const char *filter(reader *r)
{
    return filters[next(r) % (sizeof filters / sizeof filters[0])];
}

static const char *number(reader *r)
{
    return numbers[next(r) % (sizeof numbers / sizeof numbers[0])];
}

/* One entity's source from the input. */
static void entity_source(reader *r, char *out, size_t room, size_t *len)
{
    static const char *const kinds[] = {"dynamic", "static", "kinematic", "floating"};
    static const char *const shapes[] = {"box", "sphere", "capsule", "cone"};
    static const char *const axes[] = {"x", "y", "z", "rotate_x", "rotate_y", "rotate_z", "q"};
    static const char *const switches[] = {"true", "false", "1"};
    const uint8_t present = next(r), more = next(r);
    put(out, room, len, "{ components = { transform = { position = [%s %s %s] } body = { ",
        number(r), number(r), number(r));
    if (present & 1)
        put(out, room, len, "kind = \"%s\" %s%s", kinds[next(r) % 4], "", "");
    if (present & 2)
        put(out, room, len, "shape = \"%s\" %s%s", shapes[next(r) % 4], "", "");
    if (present & 4)
        put(out, room, len, "half_extents = [%s %s %s] ", number(r), number(r), number(r));
    if (present & 8)
        put(out, room, len, "radius = %s %s%s", number(r), "", "");
    if (present & 16)
        put(out, room, len, "half_height = %s mass = %s friction = %s ", number(r), number(r),
            number(r));
    if (present & 32)
        put(out, room, len, "rotates = %s %s%s", next(r) & 1 ? "true" : "false", "", "");
    if (present & 64)
        put(out, room, len, "angular_velocity = [%s %s %s] ", number(r), number(r), number(r));
    if (present & 128)
        put(out, room, len, "velocity = [%s %s %s] ", number(r), number(r), number(r));
    if (more & 1)
        put(out, room, len, "inertia = [%s %s %s] ", number(r), number(r), number(r));
    if (more & 2)
        put(out, room, len, "lock = [\"%s\" \"%s\"] restitution = %s ", axes[next(r) % 7],
            axes[next(r) % 7], number(r));
    if (more & 4)
        put(out, room, len, "lock = \"%s\" %s%s", axes[next(r) % 7], "", "");
    if (more & 8)
        put(out, room, len, "sensor = %s %s%s", switches[next(r) % 3], "", "");
    if (more & 16)
        put(out, room, len, "layer = %s mask = %s %s", filter(r), filter(r), "");
    if (more & 32)
        put(out, room, len, "mask = %s %s%s", filter(r), "", "");
    put(out, room, len, "} } }\n%s%s%s", "", "", "");
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
    if (resource->load_source("level", "fuzz/bodies", text, len) != 0)
        return 0;
    ct_world_o *w = worlds->create_world(&(ct_world_desc_t){.name = "fuzz"});
    ct_entity_t e[8];
    const int n =
        worlds->spawn_resource(w, resource->get("level", "fuzz/bodies"), NULL, NULL, e, 8);
    for (int step = 0; step < 3; step++)
        physics->simulate(w, 1.0f / 60.0f);
    for (int k = 0; k < n && k < 8; k++) {
        float p[3], q[4];
        if (physics->position(w, e[k], p) == 0 &&
            !(fabsf(p[0]) <= CT_PHYSICS_MAX_POSITION && fabsf(p[1]) <= CT_PHYSICS_MAX_POSITION &&
              fabsf(p[2]) <= CT_PHYSICS_MAX_POSITION))
            abort(); /* a body left the ranges */
        if (physics->rotation(w, e[k], q) == 0 &&
            !(fabsf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] - 1.0f) < 1e-3f))
            abort(); /* a rotation stopped being one */
        /* A sensor lists only bodies that are not (sensors never see each other). */
        ct_entity_t in[8];
        const uint32_t inside = physics5->sensor_contents(w, e[k], in, 8);
        if (inside && !physics5->is_sensor(w, e[k]))
            abort();
        for (uint32_t j = 0; j < inside && j < 8; j++)
            if (physics5->is_sensor(w, in[j]))
                abort();
    }
    (void)physics->state_hash(w);
    worlds->destroy_world(w);
    if (n > 0)
        entity->destroy_batch(e, (uint32_t)(n < 8 ? n : 8));
    resource->unload("level", "fuzz/bodies");
    return 0;
}
