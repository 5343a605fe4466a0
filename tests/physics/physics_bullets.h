/* The bullets that fly about in the closed rooms of test_physics_rollback and fuzz_snapshot, and
 * Jolt's high-speed compound that test_physics_ccd and bench_physics fire: one description for
 * the tests that use the core (physics_fixture.h), those that boot the kernel and the bench, so
 * only the public ct_physics.h is needed. */
#ifndef PHYSICS_BULLETS_H
#define PHYSICS_BULLETS_H

#include <stdint.h>

#include "ct_physics.h"

/* Bullet k: for odd k a ball of radius 5 cm, for even k a box of 20 x 10 x 10 cm (long along x);
 * 0.1 kg, friction 0.5, restitution 0.9, not turned, at rest at the origin (the caller places it
 * and gives it its speed). */
static inline ct_rigid_body_desc_t room_bullet(uint32_t k)
{
    return (ct_rigid_body_desc_t){.kind = CT_BODY_DYNAMIC,
                                  .shape = k % 2 ? CT_BODY_SPHERE : CT_BODY_BOX,
                                  .radius = 0.05f,
                                  .half_extents = {0.1f, 0.05f, 0.05f},
                                  .mass = 0.1f,
                                  .friction = 0.5f,
                                  .restitution = 0.9f,
                                  .rotation = {0, 0, 0, 1}};
}

/* The parts of Jolt's HighSpeedTest compound: a capsule of radius 0.125 and half height 0.5 whose
 * centre is 0.5 m up the compound's y, and a box of half extents 0.5 x 0.125 x 0.125 0.5 m along
 * its x. */
static inline void jolt_compound_parts(ct_compound_child_t parts[2])
{
    parts[0] = (ct_compound_child_t){.shape = CT_BODY_CAPSULE,
                                     .radius = 0.125f,
                                     .half_height = 0.5f,
                                     .position = {0.0f, 0.5f, 0.0f}};
    parts[1] = (ct_compound_child_t){.shape = CT_BODY_BOX,
                                     .half_extents = {0.5f, 0.125f, 0.125f},
                                     .position = {0.5f, 0.0f, 0.0f}};
}

#endif
