/*
 * Fuzz target: the body loader (compile_body's checks, the spawn-time checks and the first steps
 * of whatever got through). Structure-aware, so it needs no seed files: the input's bytes choose,
 * for up to six entities, which body fields appear and with which values (shapes, mesh shapes
 * naming collision meshes that do not load, kinds, lock
 * names, and numbers from a table of awkward ones: zero, negatives, NaN-sized, huge, denormal
 * spellings), and where each entity's transform puts it (v5: the sensor switch and the
 * collision filter's layer and mask, from whole 32-bit numbers and ones that are not; the
 * damping, linear_damping and angular_damping, from the numbers); every
 * eighth input goes to the compiler as raw text instead. v5 sources: hulls of 0 to 69 points
 * (whole, flat, on a line, duplicated, awkward numbers) and compounds of 0 to 18 children
 * (boxes, spheres, capsules, hulls, and the refused compound and mesh children), placed and
 * turned. The seed files (fuzz_seeds/body_source: raw text, first byte 7) are levels of a hull
 * rock, a compound table and their near misses. A level either is refused with a message or
 * spawns bodies that simulate a few steps (rotating or not) without a crash, a sanitizer report
 * or a value out of range.
 */
#include <math.h>
#include <stdlib.h>

#include "fuzz_level_source.h"
#include "test_kernel.h"

static const char *const numbers[] = {"0",    "-1",   "0.001", "0.5",    "1",    "3",
                                      "1e4",  "1e5",  "1e39",  "-0",     "2000", "1e-40",
                                      "0.25", "-7.5", "100",   "999999", "1e-9", "1e15"};

static const char *number(fuzz_reader *r)
{
    return fuzz_pick(r, numbers, sizeof numbers / sizeof numbers[0]);
}

/* Filters: whole 32-bit numbers, and what is not one. */
static const char *const filters[] = {"0",   "1",    "2", "4294967295", "4294967296", "-1",
                                      "0.5", "1e39", "3", "\"1\"",      "[1]",        "true"};

static const char *filter(fuzz_reader *r)
{
    return fuzz_pick(r, filters, sizeof filters / sizeof filters[0]);
}

/* A point of a hull: mostly a unit cube's corners scaled by a number, sometimes an awkward one
 * (so hulls come out whole, flat, on a line, duplicated or out of range). */
static void point_source(fuzz_reader *r, char *out, size_t room, size_t *len)
{
    static const char *const unit[] = {"0", "1", "-1", "0.5"};
    const uint8_t how = fuzz_next(r);
    if (how & 0x80)
        fuzz_put(out, room, len, "[%s %s %s] ", number(r), number(r), number(r));
    else
        fuzz_put(out, room, len, "[%s %s %s] ", unit[how & 3], unit[(how >> 2) & 3],
                 unit[(how >> 4) & 3]);
}

static void hull_source(fuzz_reader *r, char *out, size_t room, size_t *len)
{
    static const char *const keys[] = {"points", "pionts", "points", "points"};
    const uint32_t n = fuzz_next(r) % 70u; /* past 64 too */
    fuzz_put(out, room, len, "{ type = \"hull\" %s = [ %s%s", fuzz_pick(r, keys, 4), "", "");
    for (uint32_t k = 0; k < n; k++)
        point_source(r, out, room, len);
    fuzz_put(out, room, len, "] } %s%s%s", "", "", "");
}

/* shape = { type = "hull" ... } or a compound of up to 18 children (past the 16 allowed), each
 * a box, sphere, capsule, hull, or a compound or mesh (refused), placed and turned. */
static void shape_source(fuzz_reader *r, char *out, size_t room, size_t *len)
{
    fuzz_put(out, room, len, "shape = %s%s%s", "", "", "");
    if (!(fuzz_next(r) & 1)) {
        hull_source(r, out, room, len);
        return;
    }
    static const char *const rotations[] = {"[0 0 0 1]", "[0 0.7071068 0 0.7071068]",
                                            "[0 0 0 2]", "[0 0 0 0]", "[1 0 0]"};
    const uint32_t n = fuzz_next(r) % 19u;
    fuzz_put(out, room, len, "{ type = \"compound\" children = [ %s%s%s", "", "", "");
    for (uint32_t k = 0; k < n; k++) {
        const uint8_t kind = fuzz_next(r);
        fuzz_put(out, room, len, "{ shape = %s%s%s", "", "", "");
        switch (kind % 7) {
        case 0:
            fuzz_put(out, room, len, "{ type = \"box\" half_extents = [%s %s %s] } ", number(r),
                     number(r), number(r));
            break;
        case 1:
            fuzz_put(out, room, len, "{ type = \"sphere\" radius = %s } %s%s", number(r), "", "");
            break;
        case 2:
            fuzz_put(out, room, len, "{ type = \"capsule\" radius = %s half_height = %s } %s",
                     number(r), number(r), "");
            break;
        case 3:
        case 4:
            hull_source(r, out, room, len);
            break;
        case 5:
            fuzz_put(out, room, len, "{ type = \"compound\" children = [] } %s%s%s", "", "", "");
            break;
        default:
            fuzz_put(out, room, len, "{ type = \"mesh\" mesh = \"meshes/none\" } %s%s%s", "", "",
                     "");
        }
        if (kind & 8)
            fuzz_put(out, room, len, "position = [%s %s %s] ", number(r), number(r), number(r));
        if (kind & 16)
            fuzz_put(out, room, len, "rotation = %s %s%s", fuzz_pick(r, rotations, 5), "", "");
        fuzz_put(out, room, len, "} %s%s%s", "", "", "");
    }
    fuzz_put(out, room, len, "] } %s%s%s", "", "", "");
}

/* One entity's source from the input. */
static void entity_source(fuzz_reader *r, char *out, size_t room, size_t *len)
{
    static const char *const kinds[] = {"dynamic", "static", "kinematic", "floating"};
    static const char *const shapes[] = {"box", "sphere", "capsule", "cone"};
    static const char *const axes[] = {"x", "y", "z", "rotate_x", "rotate_y", "rotate_z", "q"};
    static const char *const switches[] = {"true", "false", "1"};
    const uint8_t present = fuzz_next(r), more = fuzz_next(r);
    fuzz_put(out, room, len, "{ components = { transform = { position = [%s %s %s] } body = { ",
             number(r), number(r), number(r));
    if (present & 1)
        fuzz_put(out, room, len, "kind = \"%s\" %s%s", kinds[fuzz_next(r) % 4], "", "");
    static const char *const meshes[] = {"meshes/none", "Meshes/Bad", "", "mesh"};
    static const char *const mesh_types[] = {"mesh", "box", "\"", "hull"};
    if ((present & 2) && (more & 64)) /* a hull or a compound (v5 sources) */
        shape_source(r, out, room, len);
    else if ((present & 2) && (more & 8)) /* a mesh body's shape (no such collision mesh loads) */
        fuzz_put(out, room, len, "shape = { type = \"%s\" mesh = \"%s\" } %s",
                 mesh_types[fuzz_next(r) % 4], meshes[fuzz_next(r) % 4], "");
    else if (present & 2)
        fuzz_put(out, room, len, "shape = \"%s\" %s%s", shapes[fuzz_next(r) % 4], "", "");
    if (present & 4)
        fuzz_put(out, room, len, "half_extents = [%s %s %s] ", number(r), number(r), number(r));
    if (present & 8)
        fuzz_put(out, room, len, "radius = %s %s%s", number(r), "", "");
    if (present & 16)
        fuzz_put(out, room, len, "half_height = %s mass = %s friction = %s ", number(r), number(r),
                 number(r));
    if (present & 32)
        fuzz_put(out, room, len, "rotates = %s %s%s", fuzz_next(r) & 1 ? "true" : "false", "", "");
    if (present & 64)
        fuzz_put(out, room, len, "angular_velocity = [%s %s %s] ", number(r), number(r), number(r));
    if (present & 128)
        fuzz_put(out, room, len, "velocity = [%s %s %s] ", number(r), number(r), number(r));
    if (more & 1)
        fuzz_put(out, room, len, "inertia = [%s %s %s] ", number(r), number(r), number(r));
    if (more & 2)
        fuzz_put(out, room, len, "lock = [\"%s\" \"%s\"] restitution = %s ", axes[fuzz_next(r) % 7],
                 axes[fuzz_next(r) % 7], number(r));
    if (more & 4)
        fuzz_put(out, room, len, "lock = \"%s\" %s%s", axes[fuzz_next(r) % 7], "", "");
    if (more & 8)
        fuzz_put(out, room, len, "sensor = %s %s%s", switches[fuzz_next(r) % 3], "", "");
    if (more & 16)
        fuzz_put(out, room, len, "layer = %s mask = %s %s", filter(r), filter(r), "");
    if (more & 32)
        fuzz_put(out, room, len, "mask = %s %s%s", filter(r), "", "");
    if (more & 128)
        fuzz_put(out, room, len, "linear_damping = %s angular_damping = %s %s", number(r),
                 number(r), "");
    fuzz_put(out, room, len, "} } }\n%s%s%s", "", "", "");
}

/* Every body the level spawned is still turned by a rotation and damped within the range; a
 * sensor lists only bodies that are not sensors (sensors never see each other), and what is not
 * a sensor lists nothing. */
static void rotations_hold(ct_world_o *w, const ct_entity_t *e, int n)
{
    static const ct_physics_api_v5 *p5;
    if (!p5 && !(p5 = test_kernel_api(CT_PHYSICS_API, 5)))
        abort();
    for (int k = 0; k < n && k < 8; k++) {
        float q[4];
        if (fuzz_physics->rotation(w, e[k], q) == 0 &&
            !(fabsf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] - 1.0f) < 1e-3f))
            abort(); /* a rotation stopped being one */
        float linear, angular;
        if (p5->damping(w, e[k], &linear, &angular) == 0 &&
            !(linear >= 0.0f && linear <= CT_PHYSICS_MAX_DAMPING && angular >= 0.0f &&
              angular <= CT_PHYSICS_MAX_DAMPING))
            abort(); /* a damping out of range got in */
        ct_entity_t in[8];
        const uint32_t inside = p5->sensor_contents(w, e[k], in, 8);
        if (inside && !p5->is_sensor(w, e[k]))
            abort();
        for (uint32_t j = 0; j < inside && j < 8; j++)
            if (p5->is_sensor(w, in[j]))
                abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const fuzz_level_desc desc = {"fuzz/bodies", entity_source, rotations_hold};
    return fuzz_level_run(&desc, data, size);
}
