/*
 * Fuzz target: the character members v5 gained last, driven by the input through the C API as a
 * game (or an attacker's script) would: set_character_settings with awkward numbers,
 * move_character with awkward velocities and dt, a contact callback that accepts, vetoes, or does
 * what it must not (removes, teleports, adds or moves bodies, steps the world, changes the
 * settings, destroys the body it met, the character itself or the whole world), character_contacts
 * into lists too short or NULL, and shape_cast with awkward shapes and motions; the world steps
 * between moves. Structure-aware, so it needs no seed files: each input either is refused call by
 * call or moves the character, and every body stays finite and inside the world's ranges, without
 * a crash or a sanitizer report.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_level_source.h"

/* Mostly ordinary numbers, now and then an awkward one or raw float bits. */
static float next_float(fuzz_reader *r)
{
    static const float awkward[] = {0.0f,  -0.0f, 1e-3f,    1e4f,      -1e4f,  2e4f, 1e5f,
                                    3e38f, NAN,   INFINITY, -INFINITY, 1e-45f, 1.5f, 1e9f};
    const uint8_t b = fuzz_next(r);
    if (b < 14)
        return awkward[b];
    if (b < 18) {
        const uint32_t bits = (uint32_t)fuzz_next(r) | (uint32_t)fuzz_next(r) << 8 |
                              (uint32_t)fuzz_next(r) << 16 | (uint32_t)fuzz_next(r) << 24;
        float f;
        memcpy(&f, &bits, sizeof f);
        return f;
    }
    return ((float)b - 136.0f) / 16.0f; /* -7.4 .. 7.4 */
}

/* What the contact callback does (the input's choice for the run). */
typedef struct misuse {
    ct_world_o *w;
    ct_entity_t character, crate, spare;
    uint8_t mode;
    uint32_t calls;
    bool world_gone;
} misuse;

static bool contact(void *user_data, ct_world_o *w, const ct_character_contact_t *c)
{
    misuse *m = user_data;
    if (m->calls++ > 64)
        abort(); /* a move asks about each body once, at most CT_CHARACTER_MAX_CONTACTS */
    const ct_entity_t met = {c->body};
    const float v[3] = {1, 0, 0}, p[3] = {0, 3, 0};
    const ct_rigid_body_desc_t ball = {
        .kind = CT_BODY_DYNAMIC, .shape = CT_BODY_SPHERE, .radius = 0.2f, .mass = 1};
    const ct_character_settings_t set = {0.3f, 0.7f, 0.3f, 70.0f, 100.0f};
    ct_character_contact_t list[4];
    switch (m->mode % 12) {
    case 0: return true;
    case 1: return false;
    case 2: return (c->body & 1u) != 0;
    case 3: fuzz_physics->remove_body(w, met); break;
    case 4: fuzz_physics->teleport(w, m->character, p); break;
    case 5: fuzz_physics->move_character(w, m->character, v, 1.0f / 60.0f, NULL); break;
    case 6: fuzz_physics->add_rigid_body(w, m->spare, &ball); break;
    case 7: fuzz_physics->simulate(w, 1.0f / 60.0f); break;
    case 8: fuzz_physics_v5->set_character_settings(w, m->character, &set); break;
    case 9:
        /* Reading is allowed: the list of this move so far. */
        (void)fuzz_physics_v5->character_contacts(w, m->character, list, 4);
        (void)fuzz_physics->state_hash(w);
        break;
    case 10: fuzz_entity->destroy(m->calls & 1u ? met : m->crate); break;
    default:
        if (m->mode & 0x80) {
            fuzz_worlds->destroy_world(w);
            m->world_gone = true;
        } else {
            fuzz_entity->destroy(m->character);
        }
    }
    return true;
}

static bool in_range(const float p[3])
{
    return fabsf(p[0]) <= CT_PHYSICS_MAX_POSITION && fabsf(p[1]) <= CT_PHYSICS_MAX_POSITION &&
           fabsf(p[2]) <= CT_PHYSICS_MAX_POSITION;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_boot();
    fuzz_reader r = {data, size, 0};
    ct_world_o *w = fuzz_worlds->create_world(&(ct_world_desc_t){.name = "fuzz_character"});
    ct_entity_t e[6]; /* floor, stair, crate, other character, the character, spare */
    fuzz_entity->create_batch(e, 6);
    const ct_rigid_body_desc_t floor = {.kind = CT_BODY_STATIC,
                                        .shape = CT_BODY_BOX,
                                        .half_extents = {20, 0.5f, 20},
                                        .position = {0, -0.5f, 0}},
                               stair = {.kind = CT_BODY_STATIC,
                                        .shape = CT_BODY_BOX,
                                        .half_extents = {0.5f, 0.15f, 2},
                                        .position = {1.5f, 0.15f, 0}},
                               crate = {.kind = CT_BODY_DYNAMIC,
                                        .shape = CT_BODY_BOX,
                                        .half_extents = {0.3f, 0.3f, 0.3f},
                                        .mass = 5,
                                        .friction = 0.5f,
                                        .position = {-1, 0.3f, 0}};
    fuzz_physics->add_rigid_body(w, e[0], &floor);
    fuzz_physics->add_rigid_body(w, e[1], &stair);
    fuzz_physics->add_rigid_body(w, e[2], &crate);
    const ct_character_desc_t other = {.radius = 0.3f,
                                       .half_height = 0.5f,
                                       .max_step = 0.35f,
                                       .max_slope = 0.8f,
                                       .position = {0, 0.8f, 1.0f}};
    ct_character_desc_t self = other;
    self.position[2] = 0.0f;
    self.radius = next_float(&r);
    self.half_height = next_float(&r);
    if (fuzz_physics->add_character(w, e[3], &other) != 0 ||
        (fuzz_physics->add_character(w, e[4], &self) != 0 &&
         fuzz_physics->add_character(w, e[4], &other) != 0))
        abort(); /* the ordinary desc is always taken */
    ct_character_settings_t set;
    set.max_step = next_float(&r);
    set.max_slope = next_float(&r);
    set.step_down = next_float(&r);
    set.mass = next_float(&r);
    set.max_strength = next_float(&r);
    (void)fuzz_physics_v5->set_character_settings(w, e[4], &set);
    misuse m = {w, e[4], e[2], e[5], fuzz_next(&r), 0, false};
    const uint8_t with = fuzz_next(&r);
    if (with & 1)
        fuzz_physics_v5->set_character_contact_callback(w, e[4], contact, &m);
    const uint32_t rounds = 1u + fuzz_next(&r) % 24u;
    for (uint32_t k = 0; k < rounds && !m.world_gone; k++) {
        const float v[3] = {next_float(&r), next_float(&r), next_float(&r)};
        const uint8_t how = fuzz_next(&r);
        const float dt = how & 1 ? next_float(&r) : 1.0f / 60.0f;
        ct_character_state_t st;
        m.calls = 0;
        const int err = fuzz_physics->move_character(w, e[4], v, dt, how & 2 ? NULL : &st);
        if (m.world_gone)
            break;
        if (!err && !(how & 2) && !in_range(st.position))
            abort();
        ct_character_contact_t list[CT_CHARACTER_MAX_CONTACTS];
        const uint32_t room = how >> 2 & 7u;
        const uint32_t n =
            fuzz_physics_v5->character_contacts(w, e[4], how & 32 ? NULL : list, room);
        if (n > CT_CHARACTER_MAX_CONTACTS)
            abort();
        if (how & 64) {
            ct_rigid_body_desc_t shape = {
                .shape = fuzz_next(&r) % 5u,
                .radius = next_float(&r),
                .half_height = next_float(&r),
                .half_extents = {next_float(&r), next_float(&r), next_float(&r)}};
            const float from[3] = {next_float(&r), next_float(&r), next_float(&r)};
            const float motion[3] = {next_float(&r), next_float(&r), next_float(&r)};
            ct_physics_hit_t hit;
            if (fuzz_physics_v5->shape_cast(w, &shape, from, motion, UINT32_MAX, &hit) &&
                !(hit.distance >= 0.0f && hit.distance <= 1e6f))
                abort();
        }
        fuzz_physics->simulate(w, 1.0f / 60.0f);
        for (int b = 0; b < 6; b++) {
            float p[3];
            if (fuzz_physics->position(w, e[b], p) == 0 && !in_range(p))
                abort(); /* a body left the ranges */
        }
    }
    if (!m.world_gone) {
        (void)fuzz_physics->state_hash(w);
        fuzz_worlds->destroy_world(w);
    }
    fuzz_entity->destroy_batch(e, 6);
    return 0;
}
