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
#include <stdlib.h>

#include "fuzz_level_source.h"

static const char *const numbers[] = {"0",    "-1",   "0.001", "0.5",    "1",    "3",
                                      "1e4",  "1e5",  "1e39",  "-0",     "3.2",  "1e-40",
                                      "0.25", "-7.5", "100",   "999999", "1e-9", "-3.1"};

static const char *number(fuzz_reader *r)
{
    return fuzz_pick(r, numbers, sizeof numbers / sizeof numbers[0]);
}

static const char *const names[] = {"a", "b", "c", "a", "", "d"};

/* One entity's source from the input. */
static void entity_source(fuzz_reader *r, char *out, size_t room, size_t *len)
{
    static const char *const types[] = {"fixed", "hinge", "ball", "slider", "distance", "rope"};
    const uint8_t present = fuzz_next(r), more = fuzz_next(r);
    fuzz_put(out, room, len, "{ components = { transform = { position = [%s %s %s] } ", number(r),
             number(r), number(r));
    if (present & 1)
        fuzz_put(out, room, len, "debug_name = { name = \"%s\" } %s%s", names[fuzz_next(r) % 6], "",
                 "");
    if (present & 2)
        fuzz_put(out, room, len, "body = { kind = \"%s\" rotates = true %s%s} ",
                 fuzz_next(r) % 4 ? "dynamic" : "static", "", "");
    if (present & 4) {
        fuzz_put(out, room, len, "joint = { type = \"%s\" %s%s", types[fuzz_next(r) % 6], "", "");
        if (more & 1)
            fuzz_put(out, room, len, "to = \"%s\" %s%s", names[fuzz_next(r) % 6], "", "");
        if (more & 2)
            fuzz_put(out, room, len, "anchor = [%s %s %s] ", number(r), number(r), number(r));
        if (more & 4)
            fuzz_put(out, room, len, "axis = [%s %s %s] ", number(r), number(r), number(r));
        if (more & 8)
            fuzz_put(out, room, len, "lower = %s upper = %s cone_angle = %s ", number(r), number(r),
                     number(r));
        if (more & 16)
            fuzz_put(out, room, len, "motor_speed = %s max_motor_force = %s %s", number(r),
                     number(r), "");
        if (more & 32)
            fuzz_put(out, room, len, "length = %s spring_hertz = %s spring_damping = %s ",
                     number(r), number(r), number(r));
        if (more & 64)
            fuzz_put(out, room, len, "anchor_b = [%s %s %s] ", number(r), number(r), number(r));
        if (more & 128)
            fuzz_put(out, room, len, "collide = %s upper = %s %s", fuzz_next(r) & 1 ? "true" : "1",
                     number(r), "");
        fuzz_put(out, room, len, "} %s%s%s", "", "", "");
    }
    fuzz_put(out, room, len, "} }\n%s%s%s", "", "", "");
}

/* Half the bodies go first: their joints must go with them, and the rest still steps. */
static void half_destroyed(ct_world_o *w, const ct_entity_t *e, int n)
{
    if (n > 1)
        fuzz_entity->destroy_batch(e, (uint32_t)(n < 8 ? n : 8) / 2);
    fuzz_physics->simulate(w, 1.0f / 60.0f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const fuzz_level_desc desc = {"fuzz/joints", entity_source, half_destroyed};
    return fuzz_level_run(&desc, data, size);
}
