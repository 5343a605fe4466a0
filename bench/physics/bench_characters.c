/*
 * bench_characters.c: Jolt's CharacterVirtual scene (jrouwe/JoltPhysics, PerformanceTest/
 * CharacterVirtualScene.h) in bench_physics, built as Jolt builds it:
 *
 *   - a static triangle mesh of 100 x 100 cells of 0.5 m (20,000 triangles, two a cell split as
 *     Jolt's), heights 2 sin(20 x / 100) cos(20 z / 100), placed at (-25, 0, -25);
 *   - a pyramid of ten static boxes, half extents (w, 0.15, w) with w = 4 - 0.4 i, at
 *     (-4, -1 + 0.3 i, 0): stairs of 0.3 m;
 *   - a wall of ten static pillars, half extents (0.1, 2.5, 0.1), at (2, 1, 2 + 0.2 z);
 *   - 100 dynamic boxes of half size 0.25 and 1 kg at (4 x - 20, 5, 4 z - 20), with Jolt's
 *     default damping (0.05 linear and angular, bench_jolt_damping);
 *   - 100 characters on a 10 x 10 grid, feet at (4 x - 20, 2, 4 y - 20): upright capsules 1.35 m
 *     between their sphere centres, radius 0.3 (a kinematic body and its mover), stepping up
 *     0.4 m and keeping their feet 0.5 m down (Jolt's ExtendedUpdateSettings mWalkStairsStepUp
 *     and mStickToFloorStepDown) on slopes up to 50 degrees (Jolt's mMaxSlopeAngle), 70 kg
 *     pushing with at most 100 N (Jolt's mMass and mMaxStrength), colliding with each other
 *     (Jolt's CharacterVsCharacterCollisionSimple: each move sees the characters moved before it
 *     where their moves took them) and kept 2 cm from walls (Jolt's mCharacterPadding);
 *   - each frame each character gets Jolt's velocity: vertical speed kept in the air, zeroed on
 *     the ground, gravity's dt added either way; horizontal (5 + 0.5 s) times the direction to a
 *     target (4 x - 20, 5, 4 y - 20) with its y then dropped, where x, y and s come from Jolt's
 *     Hash<uint64> (FNV-1a over the 8 bytes) of a count that changes every 2 s; then the world
 *     steps 1/60 s. Default friction (Jolt's 0.2), gravity 9.81.
 *
 * Figures:
 *   physics.jolt_characters_steps_per_s   500 steps, steps per second of this thread's CPU time,
 *                               one thread, median of 3 rounds interleaved with Jolt's
 *   physics.jolt_peer_characters_steps_per_s   Jolt's own scene, 500 steps, by its process CPU
 *                               time, when CUTTLE_JOLT_BENCH names the harness (built outside this
 *                               repository; it prints "jolt CharacterVirtual: N steps, X steps/s by
 *                               CPU, ...")
 *   physics.jolt_characters_climbed   of 100 characters, each with its own flight of five 0.3 m
 *                               box stairs 0.5 m deep on a flat triangle-mesh floor (the same
 *                               character settings), walking up it at 2 m/s for 3 s: how many
 *                               stand on the landing (feet at 1.5 m within 1 cm) at the end. The
 *                               target: all
 *   physics.jolt_characters_on_top   in the Jolt scene, the characters that ever stood on the top
 *                               step of the pyramid (feet at 1.85 m): stairs climbed in the scene
 *                               itself (Jolt's scene asks nothing of it; informative)
 *   physics.jolt_characters_overlaps   in the Jolt scene, pairs of characters whose capsules were
 *                               more than 1 mm into each other after a step, summed over the
 *                               steps of the last round. The target: 0
 */
#include "bench_physics.h"

#include "physics_hull.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHAR_RADIUS 0.3f
#define CHAR_HALF_HEIGHT 0.675f
#define CHAR_FEET (CHAR_HALF_HEIGHT + CHAR_RADIUS) /* from the body's centre down to its feet */
#define CHAR_STEP_UP 0.4f
#define CHAR_STEP_DOWN 0.5f
#define CHAR_MASS 70.0f
#define CHAR_MAX_STRENGTH 100.0f
#define CHAR_MAX_SLOPE 0.8726646f /* 50 degrees */
#define CHAR_DT (1.0f / 60.0f)

physics__mesh *bench_sine_mesh(ct_allocator_t *a, int n, float cell, float max_height, float freq)
{
    const uint32_t nv = (uint32_t)((n + 1) * (n + 1)), nt = (uint32_t)(n * n * 2);
    float *vertices = malloc(sizeof(float) * 3 * nv);
    uint32_t *indices = malloc(sizeof(uint32_t) * 3 * nt);
    if (!vertices || !indices) {
        fprintf(stderr, "bench_sine_mesh: out of memory\n");
        exit(1);
    }
    for (int x = 0; x <= n; x++)
        for (int z = 0; z <= n; z++) {
            float *v = &vertices[3 * (z * (n + 1) + x)];
            v[0] = cell * (float)x;
            v[1] = max_height * sinf((float)x * freq / (float)n) * cosf((float)z * freq / (float)n);
            v[2] = cell * (float)z;
        }
    uint32_t *t = indices;
    for (int x = 0; x < n; x++)
        for (int z = 0; z < n; z++) {
            const uint32_t start = (uint32_t)((n + 1) * z + x), row = (uint32_t)n + 1u;
            *t++ = start, *t++ = start + row, *t++ = start + 1;
            *t++ = start + 1, *t++ = start + row, *t++ = start + row + 1;
        }
    physics__mesh *mesh = NULL;
    char reason[160];
    const char *bad =
        physics__mesh_build(a, vertices, nv, indices, nt, &mesh, reason, sizeof reason);
    free(vertices);
    free(indices);
    if (bad) {
        fprintf(stderr, "bench_sine_mesh: %s\n", bad);
        exit(1);
    }
    return mesh;
}

/* A static box with Jolt's default friction. */
static void static_box(physics__scene *s, uint32_t id, float x, float y, float z, float hx,
                       float hy, float hz)
{
    const ct_rigid_body_desc_t d = {.kind = CT_BODY_STATIC,
                                    .shape = CT_BODY_BOX,
                                    .half_extents = {hx, hy, hz},
                                    .friction = 0.2f,
                                    .position = {x, y, z},
                                    .rotation = {0, 0, 0, 1}};
    physics__bodies_add_rigid(&s->bodies, (ct_entity_t){id}, &d);
}

/* The static mesh body `id` of a sine mesh placed at (x, 0, z). */
static void static_mesh(physics__scene *s, uint32_t id, physics__mesh *mesh, float x, float z)
{
    const ct_rigid_body_desc_t d = {.kind = CT_BODY_STATIC,
                                    .shape = CT_BODY_MESH,
                                    .friction = 0.2f,
                                    .position = {x, 0.0f, z},
                                    .rotation = {0, 0, 0, 1}};
    physics__bodies_add_mesh(&s->bodies, (ct_entity_t){id}, &d, mesh);
}

/* A character as Jolt's scene makes them, feet at (x, y, z); returns its body. */
static uint32_t scene_character(physics__scene *s, uint32_t id, float x, float y, float z)
{
    const ct_rigid_body_desc_t d = {.kind = CT_BODY_KINEMATIC,
                                    .shape = CT_BODY_CAPSULE,
                                    .radius = CHAR_RADIUS,
                                    .half_height = CHAR_HALF_HEIGHT,
                                    .position = {x, y + CHAR_FEET, z},
                                    .rotation = {0, 0, 0, 1},
                                    .locks = CT_BODY_LOCK_ROTATION};
    physics__bodies_add_rigid(&s->bodies, (ct_entity_t){id}, &d);
    physics__characters_add(s, id, CHAR_STEP_UP, CHAR_MAX_SLOPE);
    physics__character_set(physics__characters_find(s, id),
                           &(ct_character_settings_t){.max_step = CHAR_STEP_UP,
                                                      .max_slope = CHAR_MAX_SLOPE,
                                                      .step_down = CHAR_STEP_DOWN,
                                                      .mass = CHAR_MASS,
                                                      .max_strength = CHAR_MAX_STRENGTH});
    return physics__bodies_find(&s->bodies, (ct_entity_t){id});
}

/* The characters of a scene and the game's state of each (Jolt's CharacterVirtual keeps its own
 * linear velocity; here the game does). */
typedef struct crowd {
    uint32_t n;
    uint32_t id[100];
    uint32_t grounded[100];
    float vy[100];         /* the vertical speed the game keeps */
    physics__v3 walk[100]; /* this frame's horizontal velocity */
} crowd;

/* One frame: each character moves (Jolt's vertical rule: kept in the air, zeroed on the ground
 * unless going up, gravity's dt added), then the world steps, and the characters stand still
 * until the next move (as simulate() leaves them). */
static void crowd_frame(physics__scene *s, crowd *c)
{
    for (uint32_t k = 0; k < c->n; k++) {
        const uint32_t i = physics__bodies_find(&s->bodies, (ct_entity_t){c->id[k]});
        physics__character *ch = physics__characters_find(s, c->id[k]);
        if (c->grounded[k] && c->vy[k] < 0.1f)
            c->vy[k] = 0.0f;
        c->vy[k] += s->gravity.y * CHAR_DT;
        const physics__v3 want = v3(c->walk[k].x, c->vy[k], c->walk[k].z);
        ct_character_state_t st;
        physics__character_move(s, i, ch, want, CHAR_DT, &st);
        c->grounded[k] = st.grounded;
    }
    physics__scene_step(s, CHAR_DT);
    for (uint32_t k = 0; k < c->n; k++)
        s->bodies.velocity[physics__bodies_find(&s->bodies, (ct_entity_t){c->id[k]})] = v3(0, 0, 0);
}

/* Jolt's Hash<uint64>: FNV-1a over the value's 8 bytes (little-endian). */
static uint64_t jolt_hash_u64(uint64_t v)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int k = 0; k < 8; k++) {
        h ^= (v >> (8 * k)) & 0xffu;
        h *= 0x100000001b3ull;
    }
    return h;
}

/* The scene into s; its characters into c. */
static void jolt_scene(physics__scene *s, crowd *c)
{
    physics__scene_init(s, ct_heap_allocator());
    static_mesh(s, 100000, bench_sine_mesh(s->a, 100, 0.5f, 2.0f, 20.0f), -25.0f, -25.0f);
    for (int i = 0; i < 10; i++) {
        const float width = 4.0f - 0.4f * (float)i;
        static_box(s, 100010 + (uint32_t)i, -4.0f, -1.0f + 0.3f * (float)i, 0.0f, width, 0.15f,
                   width);
    }
    for (int z = 0; z < 10; z++)
        static_box(s, 100020 + (uint32_t)z, 2.0f, 1.0f, 2.0f + 0.2f * (float)z, 0.1f, 2.5f, 0.1f);
    for (int x = 0; x < 10; x++)
        for (int z = 0; z < 10; z++) {
            const ct_rigid_body_desc_t d = {
                .kind = CT_BODY_DYNAMIC,
                .shape = CT_BODY_BOX,
                .half_extents = {0.25f, 0.25f, 0.25f},
                .mass = 1.0f,
                .friction = 0.2f,
                .rotation = {0, 0, 0, 1},
                .position = {4.0f * (float)x - 20.0f, 5.0f, 4.0f * (float)z - 20.0f}};
            physics__bodies_add_rigid(&s->bodies, (ct_entity_t){200000 + (uint32_t)(x * 10 + z)},
                                      &d);
        }
    bench_jolt_damping(s);
    memset(c, 0, sizeof *c);
    c->n = 100;
    for (uint32_t k = 0; k < 100; k++) {
        c->id[k] = k + 1;
        scene_character(s, c->id[k], 4.0f * (float)(k % 10) - 20.0f, 2.0f,
                        4.0f * (float)(k / 10) - 20.0f);
    }
}

/* The characters that stood on the pyramid's top step in the last run, and the pairs of them
 * found overlapping after its steps. */
static uint32_t last_on_top, last_overlaps;

/* Pairs of the crowd's capsules (all of one size, upright) more than 1 mm into each other. */
static uint32_t crowd_overlaps(const physics__scene *s, const crowd *c)
{
    physics__v3 p[100];
    for (uint32_t k = 0; k < c->n; k++)
        p[k] = s->bodies.position[physics__bodies_find(&s->bodies, (ct_entity_t){c->id[k]})];
    uint32_t n = 0;
    const float touch = 2.0f * CHAR_RADIUS - 0.001f;
    for (uint32_t a = 0; a < c->n; a++)
        for (uint32_t b = a + 1; b < c->n; b++) {
            /* The closest points of two upright segments: their heights' overlap. */
            const float dy = fmaxf(fabsf(p[a].y - p[b].y) - 2.0f * CHAR_HALF_HEIGHT, 0.0f);
            const float dx = p[a].x - p[b].x, dz = p[a].z - p[b].z;
            n += dx * dx + dy * dy + dz * dz < touch * touch;
        }
    return n;
}

/* One run of `steps` steps: ms of thread CPU per step. */
static double jolt_characters_run(int steps)
{
    physics__scene s;
    crowd c;
    jolt_scene(&s, &c);
    double cpu = 0.0, walked = 0.0;
    float time = 0.0f, highest = -INFINITY;
    uint32_t on_top[100] = {0}, overlaps = 0;
    physics__v3 last[100];
    for (uint32_t k = 0; k < 100; k++)
        last[k] = s.bodies.position[physics__bodies_find(&s.bodies, (ct_entity_t){c.id[k]})];
    for (int step = 0; step < steps; step++) {
        const double t0 = bench_cpu_ms();
        /* As Jolt's UpdateTest: the count changes every 2 s, and goes up by one a character. */
        time += CHAR_DT;
        uint64_t count = (uint64_t)(time / 2.0f) * 100u;
        for (uint32_t k = 0; k < 100; k++, count++) {
            const uint64_t h = jolt_hash_u64(count);
            const float tx = 4.0f * (float)(h % 10) - 20.0f,
                        tz = 4.0f * (float)(h / 10 % 10) - 20.0f;
            const float speed = 5.0f + 0.5f * (float)(h / 100 % 10);
            const physics__v3 at =
                s.bodies.position[physics__bodies_find(&s.bodies, (ct_entity_t){c.id[k]})];
            /* Jolt normalises the way to a target 5 m up, then drops its y. */
            physics__v3 d = v3(tx - at.x, 5.0f - (at.y - CHAR_FEET), tz - at.z);
            const float l = v3_len(d);
            d = l > 1e-6f ? v3_scale(d, 1.0f / l) : v3(0, 0, 0);
            c.walk[k] = v3(speed * d.x, 0.0f, speed * d.z);
        }
        crowd_frame(&s, &c);
        cpu += bench_cpu_ms() - t0;
        overlaps += crowd_overlaps(&s, &c);
        for (uint32_t k = 0; k < 100; k++) {
            const physics__v3 p =
                s.bodies.position[physics__bodies_find(&s.bodies, (ct_entity_t){c.id[k]})];
            walked += v3_len(v3_sub(p, last[k]));
            highest = f_max(highest, p.y - CHAR_FEET);
            /* The top step: 0.4 m square about (-4, 0) at 1.85 m. */
            if (fabsf(p.x + 4.0f) < 0.4f && fabsf(p.z) < 0.4f && p.y - CHAR_FEET > 1.84f)
                on_top[k] = 1;
            last[k] = p;
        }
    }
    uint32_t top = 0, under = 0;
    for (uint32_t k = 0; k < 100; k++) {
        top += on_top[k];
        /* Below the surface under it: a character that fell through the mesh. */
        const physics__v3 p = last[k];
        physics__v3 n;
        const uint32_t mesh = physics__bodies_find(&s.bodies, (ct_entity_t){100000});
        const float t = physics__ray_body(&s.bodies, mesh, v3(p.x, 100.0f, p.z), v3(0, -1, 0), &n);
        if (t != INFINITY && p.y - CHAR_FEET < 100.0f - t - 0.05f)
            under++;
    }
    fprintf(stderr,
            "  cuttle: %.1f m walked per character in %d steps, highest feet %.2f m, %u ever on "
            "the top step, %u under the mesh, %u overlapping pairs, %.3f ms/step of CPU\n",
            walked / 100.0, steps, (double)highest, top, under, overlaps, cpu / steps);
    last_on_top = top;
    last_overlaps = overlaps;
    physics__scene_free(&s);
    return cpu / steps;
}

/* All 100 climb: each character has its own flight of five 0.3 m box stairs 0.5 m deep up to a
 * 2 m landing, in a 10 x 10 grid of lanes on a flat triangle-mesh floor (100 x 100 cells of 1 m),
 * and walks up it at 2 m/s for 3 s: how many have their feet on the landing (1.5 m, within 1 cm)
 * at the end. */
static uint32_t characters_climb(void)
{
    physics__scene s;
    physics__scene_init(&s, ct_heap_allocator());
    static_mesh(&s, 100000, bench_sine_mesh(s.a, 100, 1.0f, 0.0f, 0.0f), -50.0f, -50.0f);
    crowd c;
    memset(&c, 0, sizeof c);
    c.n = 100;
    uint32_t id = 100001;
    for (uint32_t k = 0; k < 100; k++) {
        const float x0 = 8.0f * (float)(k % 10) - 40.0f, z = 2.5f * (float)(k / 10) - 12.5f;
        for (int st = 0; st < 5; st++) {
            const float top = 0.3f * (float)(st + 1);
            static_box(&s, id++, x0 + 2.25f + 0.5f * (float)st, 0.5f * top, z, 0.25f, 0.5f * top,
                       1.0f);
        }
        static_box(&s, id++, x0 + 5.5f, 0.75f, z, 1.0f, 0.75f, 1.0f); /* the landing */
        c.id[k] = k + 1;
        c.walk[k] = v3(2.0f, 0, 0);
        scene_character(&s, c.id[k], x0, 0.0f, z);
    }
    for (int step = 0; step < 180; step++)
        crowd_frame(&s, &c);
    uint32_t up = 0;
    for (uint32_t k = 0; k < 100; k++) {
        const float feet =
            s.bodies.position[physics__bodies_find(&s.bodies, (ct_entity_t){c.id[k]})].y -
            CHAR_FEET;
        up += feet > 1.49f && feet < 1.51f;
    }
    physics__scene_free(&s);
    return up;
}

void bench_jolt_characters(void)
{
    const int steps = getenv("CUTTLE_BENCH_STEPS") ? atoi(getenv("CUTTLE_BENCH_STEPS")) : 500;
    double ours[3], peer[3];
    uint32_t top = 0, overlaps = 0;
    for (int round = 0; round < 3; round++) {
        if (round >= bench_rounds()) {
            ours[round] = ours[0], peer[round] = peer[0];
            continue;
        }
        fprintf(stderr, "physics.jolt_characters_steps_per_s, round %d\n", round + 1);
        ours[round] = 1000.0 / jolt_characters_run(steps);
        top = last_on_top, overlaps = last_overlaps;
        peer[round] = bench_jolt_peer("CharacterVirtual", steps, NULL);
    }
    bench_report("physics.jolt_characters_steps_per_s", bench_median3(ours), "steps/s");
    if (peer[0] >= 0.0)
        bench_report("physics.jolt_peer_characters_steps_per_s", bench_median3(peer), "steps/s");
    bench_report("physics.jolt_characters_climbed", characters_climb(), "of 100");
    bench_report("physics.jolt_characters_on_top", top, "of 100");
    bench_report("physics.jolt_characters_overlaps", overlaps, "pairs");
}
