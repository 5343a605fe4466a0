/*
 * Fuzz target: restoring a rollback snapshot (physics_snapshot.c, ct_physics_api_v4
 * restore_snapshot). A world of crates on a floor, two balls on a joint, a point mass and, in a
 * closed box of 2 cm walls, bullets at 250 m/s is saved three times: while the crates fall
 * (contacts found anew, poses written), once they rest (recycled contacts whose poses are
 * shared, impulses in every contact), and on a step after which a sweep's hit is pending (the
 * snapshot's list of sweep pairs is not empty). Each input damages a copy of one of them (its
 * first byte cuts or grows it and says whether the header's size follows; its second picks the
 * snapshot, and with its high bit removes or doubles a byte, which shifts the packed numbers
 * after it; the rest are (offset, xor) edits), so the packed reader sees real contents with
 * faults in them. A restore either refuses (and the world is as it was) or is followed by steps
 * without a crash, a sanitizer report or a body out of range; the good snapshots then always
 * restore. The seeds (fuzz_seeds/snapshot) aim edits at each part of the three: the header's
 * counts, bodies, contact heads and flags, poses, impulses, the sweep pairs at the end.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ct_entity.h"
#include "ct_physics.h"
#include "ct_world.h"
#include "physics_bullets.h"
#include "test_kernel.h"

static const ct_world_api_v1 *worlds;
static const ct_entity_api_v2 *entity;
static const ct_physics_api_v4 *physics;
static ct_world_o *world;
static ct_entity_t bodies[32];
static uint32_t num_bodies;
static uint8_t *good[3];
static uint32_t good_size[3];

static void shutdown_kernel(void)
{
    for (int k = 0; k < 3; k++)
        free(good[k]);
    worlds->destroy_world(world);
    entity->destroy_batch(bodies, num_bodies);
    test_kernel_shutdown();
}

static ct_entity_t add(const ct_rigid_body_desc_t *d)
{
    const ct_entity_t e = entity->create();
    if (physics->add_rigid_body(world, e, d) != 0)
        abort();
    bodies[num_bodies++] = e;
    return e;
}

static void boot(void)
{
    const char *paths[] = {CT_TEST_MODULE("entities", "ct_entities"),
                           CT_TEST_MODULE("transforms", "ct_transforms"),
                           CT_TEST_MODULE("physics", "ct_physics")};
    if (test_kernel_boot(paths, 3) != 0)
        abort();
    worlds = test_kernel_api(CT_WORLD_API, 1);
    entity = test_kernel_api(CT_ENTITY_API, 2);
    physics = test_kernel_api(CT_PHYSICS_API, 4);
    if (!worlds || !entity || !physics)
        abort();
    world = worlds->create_world(&(ct_world_desc_t){.name = "fuzz"});
    add(&(ct_rigid_body_desc_t){.kind = CT_BODY_STATIC,
                                .shape = CT_BODY_BOX,
                                .half_extents = {20, 0.5f, 20},
                                .position = {0, -0.5f, 0}});
    for (int k = 0; k < 8; k++)
        add(&(ct_rigid_body_desc_t){.kind = CT_BODY_DYNAMIC,
                                    .shape = k % 3 ? CT_BODY_BOX : CT_BODY_CAPSULE,
                                    .half_extents = {0.5f, 0.5f, 0.5f},
                                    .radius = 0.3f,
                                    .half_height = 0.3f,
                                    .mass = 1.0f + (float)k,
                                    .friction = 0.5f,
                                    .position = {0.4f * (float)(k % 3), 0.6f + 1.1f * (float)k, 0},
                                    .angular_velocity = {0.2f * (float)k, 0, 0.5f}});
    const ct_entity_t a = add(&(ct_rigid_body_desc_t){.kind = CT_BODY_DYNAMIC,
                                                      .shape = CT_BODY_SPHERE,
                                                      .radius = 0.2f,
                                                      .mass = 1,
                                                      .position = {6, 4, 0}});
    const ct_joint_desc_t ball = {.type = CT_JOINT_BALL, .anchor = {5, 4, 0}, .axis = {1, 0, 0}};
    ct_physics_joint_t j;
    if (physics->add_joint(world, a, (ct_entity_t){0}, &ball, &j) != 0)
        abort();
    /* The bullets' box, 4 m wide, away from the crates, and eight bullets in it. */
    const float walls[6][6] = {
        {2, 0.01f, 2, 40, -0.01f, 0}, {2, 0.01f, 2, 40, 4.01f, 0}, {2, 2, 0.01f, 40, 2, -2.01f},
        {2, 2, 0.01f, 40, 2, 2.01f},  {0.01f, 2, 2, 37.99f, 2, 0}, {0.01f, 2, 2, 42.01f, 2, 0},
    };
    for (int k = 0; k < 6; k++)
        add(&(ct_rigid_body_desc_t){.kind = CT_BODY_STATIC,
                                    .shape = CT_BODY_BOX,
                                    .half_extents = {walls[k][0], walls[k][1], walls[k][2]},
                                    .position = {walls[k][3], walls[k][4], walls[k][5]},
                                    .restitution = 1,
                                    .friction = 0.5f});
    for (int k = 0; k < 8; k++) {
        const float turn = 0.8f * (float)k, c = cosf(turn), sn = sinf(turn);
        ct_rigid_body_desc_t d = room_bullet((uint32_t)k);
        const float at[3] = {40 + 1.2f * c, 1 + 0.25f * (float)k, 1.2f * sn};
        const float v[3] = {250 * sn, 60 - 15 * (float)k, 250 * c};
        memcpy(d.position, at, sizeof at);
        memcpy(d.velocity, v, sizeof v);
        add(&d);
    }
    const ct_entity_t point = entity->create();
    bodies[num_bodies++] = point;
    const ct_point_mass_desc_t pm = {.mass = 2, .position = {0, 10, 0}, .velocity = {1, 0, 0}};
    if (physics->add_point_mass(world, point, &pm) != 0)
        abort();
    /* good[0] after 30 steps, good[1] after 180, good[2] after the first step that leaves a
     * sweep pair pending (the header's 12th word counts them). */
    for (int step = 1; step <= 180; step++) {
        physics->simulate(world, 1.0f / 60.0f);
        const uint32_t size = physics->snapshot_size(world);
        uint8_t *snap = malloc(size + 64);
        if (!snap || physics->save_snapshot(world, snap, size) != size)
            abort();
        uint32_t reported;
        memcpy(&reported, snap + 44, sizeof reported);
        const int which = step == 30 ? 0 : step == 180 ? 1 : !good[2] && reported ? 2 : -1;
        if (which < 0) {
            free(snap);
            continue;
        }
        good[which] = snap;
        good_size[which] = size;
    }
    if (!good[2])
        abort(); /* no sweep pair pending in 180 steps: the scene no longer makes one */
    atexit(shutdown_kernel);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!physics)
        boot();
    uint8_t buf[32768];
    const uint8_t pick = size > 1 ? data[1] : 0;
    /* Bits 0 and 6 pick the snapshot (the fourth choice is the first again). */
    static const uint32_t of_pick[4] = {0, 1, 2, 0};
    const uint32_t which = of_pick[(pick & 1u) | (pick >> 5 & 2u)];
    const uint32_t gs = good_size[which];
    if (gs + 64 > sizeof buf)
        abort();
    memcpy(buf, good[which], gs);
    memset(buf + gs, 0, 64);
    uint32_t len = gs;
    if (pick & 128u) {
        /* One byte past the header (bits 2-5 say where) removed or doubled (bit 1): every packed
         * number after it shifts. */
        const uint32_t at = 56u + (uint32_t)(pick >> 2 & 15u) * (gs - 56u) / 16u;
        if (pick & 2u) {
            memmove(buf + at + 1, buf + at, gs - at);
            len++;
        } else if (at < gs) {
            memmove(buf + at, buf + at + 1, gs - at - 1);
            len--;
        }
    }
    const uint8_t how = size ? data[0] : 0;
    if (how & 1u)
        len -= (uint32_t)(how >> 2) % (len < 48 ? 1u : 48u);
    else if (how & 2u)
        len += (uint32_t)(how >> 2) % 64u;
    if (!(how & 128u))
        memcpy(buf + 8, &len, sizeof len); /* the header's size, so the contents get read */
    for (size_t k = 2; k + 2 < size; k += 3) {
        const uint32_t at = ((uint32_t)data[k] << 8 | data[k + 1]) % len;
        buf[at] ^= data[k + 2];
    }
    const uint64_t before = physics->state_hash(world);
    if (physics->restore_snapshot(world, buf, len) != 0) {
        if (physics->state_hash(world) != before)
            abort(); /* a refusal changed the world */
    } else {
        for (int step = 0; step < 3; step++)
            physics->simulate(world, 1.0f / 60.0f);
        for (uint32_t k = 0; k + 1 < num_bodies; k++) {
            float p[3];
            if (physics->position(world, bodies[k], p) == 0 &&
                !(fabsf(p[0]) <= CT_PHYSICS_MAX_POSITION &&
                  fabsf(p[1]) <= CT_PHYSICS_MAX_POSITION && fabsf(p[2]) <= CT_PHYSICS_MAX_POSITION))
                abort(); /* a body left the ranges */
        }
    }
    for (int k = 0; k < 3; k++)
        if (physics->restore_snapshot(world, good[k], good_size[k]) != 0)
            abort();
    return 0;
}
