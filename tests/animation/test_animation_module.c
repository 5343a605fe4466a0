/*
 * ct_animation.so in a booted kernel (entities, transforms, animation) with a project folder
 * holding CMU motion capture (01_01.bvh from Debian's assimp-testmodels, cut to 240 frames so the
 * sanitizer build stays quick) and the small hand-made BVH of tests/formats: skeleton and clip
 * resources compiled from SJSON naming their source, bad sources refused, a unit whose bones
 * become transforms under the entity, evaluate against the clip and against the raw mocap,
 * events (including across a loop), crossfade, a clip that does not fit, entity death, bad
 * arguments, and the Lua module.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "bvh.h"
#include "ct_animation.h"
#include "ct_entity.h"
#include "ct_lua.h"
#include "ct_resource.h"
#include "ct_transform.h"
#include "ct_world.h"
#include "test_kernel.h"

#define FRAMES 240
#define CMU_UNITS "0.056444"

static const ct_entity_api_v2 *entity;
static const ct_world_api_v1 *worlds;
static const ct_transform_api_v2 *tf;
static const ct_resource_api_v1 *resource;
static const ct_animation_api_v1 *anim;
static const ct_lua_api_v1 *lua;
static ct_world_o *world;
static char project[64];

/* Copies the header and the first `frames` frames of a BVH, with a matching Frames: line
 * (frames < 0: the whole file as it is). */
static void write_cut_bvh(const char *from, const char *to, int frames)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char line[8192];
    int after = -1;
    while (fgets(line, sizeof line, in) && (frames < 0 || after < frames)) {
        if (frames >= 0 && strncmp(line, "Frames:", 7) == 0)
            snprintf(line, sizeof line, "Frames: %d\n", frames);
        fputs(line, out);
        if (after >= 0)
            after++;
        if (strncmp(line, "Frame Time:", 11) == 0)
            after = 0;
    }
    fclose(in);
    fclose(out);
}

static void write_file(const char *rel, const char *text)
{
    test_project_write(project, rel, text);
}

static int boot(void **state)
{
    (void)state;
    test_project_make(project, sizeof project, "ct_animation");
    char path[256];
    snprintf(path, sizeof path, "%s/mocap", project);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/mocap/01_01.bvh", project);
    write_cut_bvh(ASSIMP_MODELS "/BVH/01_01.bvh", path, FRAMES);
    snprintf(path, sizeof path, "%s/mocap/two_roots.bvh", project);
    write_cut_bvh(FORMATS_DIR "/bvh_seeds/two_roots.bvh", path, -1);
    write_file("project.sjson", "frames = 0\n");
    snprintf(path, sizeof path, "%s/mocap/simple_skin.gltf", project);
    write_cut_bvh(ASSIMP_MODELS "/glTF2/simple_skin/simple_skin.gltf", path, -1);
    snprintf(path, sizeof path, "%s/mocap/recursive.gltf", project);
    write_cut_bvh(ASSIMP_MODELS "/glTF2/RecursiveNodes/RecursiveNodes.gltf", path, -1);

    const char *paths[] = {CT_TEST_MODULE("entities", "ct_entities"),
                           CT_TEST_MODULE("transforms", "ct_transforms"),
                           CT_TEST_MODULE("animation", "ct_animation")};
    kernel_desc_t desc = test_kernel_desc(paths, 3);
    desc.project_dir = project;
    const test_world_t *t = test_world_boot(&desc, "animation");
    entity = t->entity, worlds = t->worlds, resource = t->resource, lua = t->lua, world = t->world;
    tf = test_kernel_api(CT_TRANSFORM_API, 2);
    anim = test_kernel_api(CT_ANIMATION_API, 1);
    assert_non_null(tf);
    assert_non_null(anim);
    assert_null(test_kernel_api(CT_ANIMATION_API, 2));
    return 0;
}

static int shutdown(void **state)
{
    test_world_shutdown(state);
    assert_int_equal(test_project_remove(project), 0);
    return 0;
}

static int load(const char *type, const char *name, const char *source)
{
    return resource->load_source(type, name, source, strlen(source));
}

static void compiles_from_sources(void **state)
{
    (void)state;
    assert_int_equal(load("skeleton", "cmu", "source = \"mocap/01_01.bvh\" units = " CMU_UNITS), 0);
    assert_int_equal(load("clip", "walk",
                          "source = \"mocap/01_01.bvh\" units = " CMU_UNITS
                          " events = [ { time = 0.5 name = \"step\" } ]"),
                     0);
    assert_int_equal(load("clip", "walk_precise",
                          "source = \"mocap/01_01.bvh\" units = " CMU_UNITS
                          " mode = \"precision\""),
                     0);
    assert_int_equal(load("clip", "small", "source = \"mocap/two_roots.bvh\" units = \"cm\""), 0);
    const ct_animation_clip_o *walk = anim->clip("walk");
    assert_non_null(walk);
    assert_int_equal(anim->clip_bones(walk), 31);
    assert_float_equal(anim->clip_duration(walk), (FRAMES - 1) * 0.0083333f, 1e-4);

    /* Bad sources: each refused (the messages name the file and the field; see the log). */
    const char *bad[] = {
        "sorce = \"mocap/01_01.bvh\"",                      /* misspelt field */
        "units = 1",                                        /* no source */
        "source = \"mocap/missing.bvh\"",                   /* no such file */
        "source = \"../01_01.bvh\"",                        /* leaves the project */
        "source = \"/etc/passwd\"",                         /* absolute */
        "source = \"project.sjson\"",                       /* not a motion file */
        "source = \"mocap/01_01.bvh\" units = \"furlong\"", /* unknown unit */
        "source = \"mocap/01_01.bvh\" units = -1",          /* negative scale */
        "source = \"mocap/01_01.bvh\" mode = \"fast\"",     /* unknown mode */
        "source = \"mocap/01_01.bvh\" events = [ { time = 99 name = \"late\" } ]",
        "source = \"mocap/01_01.bvh\" events = [ { time = 0.1 name = \"a_name_longer_than_23\" } ]",
        "source = \"mocap/01_01.bvh\" events = [ { time = 0.1 nmae = \"x\" } ]",
        "source = \"mocap/01_01.bvh\" error_mm = 0",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (load("clip", "bad", bad[i]) == 0)
            fail_msg("accepted: %s", bad[i]);
    assert_int_not_equal(load("skeleton", "bad", "source = \"mocap/01_01.bvh\" skni = 0"), 0);
}

/* glTF: the skin's joints make the skeleton, its animation resampled makes the clip. */
static void compiles_from_gltf(void **state)
{
    (void)state;
    assert_int_equal(load("skeleton", "skin", "source = \"mocap/simple_skin.gltf\""), 0);
    assert_int_equal(load("clip", "skin_wave",
                          "source = \"mocap/simple_skin.gltf\" rate = 30 "
                          "mode = \"precision\""),
                     0);
    const ct_animation_clip_o *c = anim->clip("skin_wave");
    assert_non_null(c);
    assert_int_equal(anim->clip_bones(c), 2);
    assert_float_equal(anim->clip_duration(c), 5.5f, 1e-5);
    /* At 1 s the second joint (node 2) is turned 90 degrees about z (the file's key 2). */
    ct_transform_pose_t pose[2];
    assert_int_equal(anim->sample(c, 1.0f, pose, 2), 2);
    assert_float_equal(fabsf(pose[1].rotation[2]), 0.7071f, 2e-3);
    assert_float_equal(fabsf(pose[1].rotation[3]), 0.7071f, 2e-3);
    assert_float_equal(pose[0].position[1], 1.0f, 1e-4); /* node 1's translation */
    /* No such skin or animation; a broken file: refused. */
    assert_int_not_equal(load("skeleton", "bad", "source = \"mocap/simple_skin.gltf\" skin = 3"),
                         0);
    assert_int_not_equal(load("clip", "bad", "source = \"mocap/simple_skin.gltf\" animation = 1"),
                         0);
    assert_int_not_equal(load("skeleton", "bad", "source = \"mocap/recursive.gltf\""), 0);
}

/* A skinned glTF whose tip joint's scale goes from (1 1 1) to (2 3 z_end) over one second (a
 * LINEAR scale channel), its keys in a .bin beside it. No file of assimp-testmodels animates
 * scale, so the test writes one. */
static void write_scaled_gltf(const char *name, float z_end)
{
    const float bin[8] = {0, 1, 1, 1, 1, 2, 3, z_end};
    char rel[64], text[1400];
    snprintf(rel, sizeof rel, "mocap/%s.bin", name);
    char path[256];
    snprintf(path, sizeof path, "%s/%s", project, rel);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bin, sizeof bin, 1, f), 1);
    fclose(f);
    snprintf(text, sizeof text,
             "{\"asset\": {\"version\": \"2.0\"},"
             " \"nodes\": [{\"name\": \"root\", \"children\": [1]},"
             " {\"name\": \"tip\", \"translation\": [0, 1, 0]}],"
             " \"skins\": [{\"joints\": [0, 1]}],"
             " \"buffers\": [{\"uri\": \"%s.bin\", \"byteLength\": 32}],"
             " \"bufferViews\": [{\"buffer\": 0, \"byteOffset\": 0, \"byteLength\": 8},"
             " {\"buffer\": 0, \"byteOffset\": 8, \"byteLength\": 24}],"
             " \"accessors\": [{\"bufferView\": 0, \"componentType\": 5126, \"count\": 2,"
             " \"type\": \"SCALAR\", \"min\": [0], \"max\": [1]},"
             " {\"bufferView\": 1, \"componentType\": 5126, \"count\": 2, \"type\": \"VEC3\"}],"
             " \"animations\": [{\"channels\": [{\"sampler\": 0,"
             " \"target\": {\"node\": 1, \"path\": \"scale\"}}],"
             " \"samplers\": [{\"input\": 0, \"output\": 1, \"interpolation\": \"LINEAR\"}]}]}\n",
             name);
    snprintf(rel, sizeof rel, "mocap/%s.gltf", name);
    write_file(rel, text);
}

static void expect_scale(const float *got, float x, float y, float z, float tolerance)
{
    assert_float_equal(got[0], x, tolerance);
    assert_float_equal(got[1], y, tolerance);
    assert_float_equal(got[2], z, tolerance);
}

/* glTF scale channels become scale tracks (keys like translations'), sampled and played. */
static void gltf_scale_channels(void **state)
{
    (void)state;
    write_scaled_gltf("scaled", 4);
    assert_int_equal(load("skeleton", "scaled", "source = \"mocap/scaled.gltf\""), 0);
    assert_int_equal(load("clip", "grow",
                          "source = \"mocap/scaled.gltf\" rate = 30 "
                          "mode = \"precision\""),
                     0);
    assert_int_equal(load("clip", "grow_spec", "source = \"mocap/scaled.gltf\" rate = 30"), 0);
    ct_transform_pose_t pose[2];
    assert_int_equal(anim->sample(anim->clip("grow"), 0.5f, pose, 2), 2);
    expect_scale(pose[0].scale, 1, 1, 1, 1e-4f);
    expect_scale(pose[1].scale, 1.5f, 2, 2.5f, 1e-3f);
    assert_float_equal(pose[1].position[1], 1.0f, 1e-4); /* the motion is still there */
    assert_float_equal(pose[1].rotation[3], 1.0f, 1e-4);
    assert_int_equal(anim->sample(anim->clip("grow"), 1.0f, pose, 2), 2);
    expect_scale(pose[1].scale, 2, 3, 4, 1e-3f);
    assert_int_equal(anim->sample(anim->clip("grow_spec"), 0.25f, pose, 2), 2);
    expect_scale(pose[1].scale, 1.25f, 1.5f, 1.75f, 1e-2f);
    /* Beyond the spec format's -10..10: refused (precision range-reduces, so it takes it). */
    write_scaled_gltf("huge", 40);
    assert_int_not_equal(load("clip", "huge", "source = \"mocap/huge.gltf\" rate = 30"), 0);
    assert_int_equal(load("clip", "huge",
                          "source = \"mocap/huge.gltf\" rate = 30 "
                          "mode = \"precision\""),
                     0);
    assert_int_equal(anim->sample(anim->clip("huge"), 1.0f, pose, 2), 2);
    expect_scale(pose[1].scale, 2, 3, 40, 1e-2f);

    /* Played on bones: the tip's transform takes the scale; a clip without scale tracks (an arm
     * of the same hierarchy from BVH) puts the rest scale back. */
    assert_int_equal(load("clip", "arm",
                          "bvh = \"HIERARCHY\\nROOT a\\n{\\nOFFSET 0 0 0\\n"
                          "CHANNELS 1 Zrotation\\nJOINT b\\n{\\nOFFSET 0 1 0\\n}\\n}"
                          "\\nMOTION\\nFrames: 2\\nFrame Time: 1\\n0\\n90\\n\""),
                     0);
    assert_int_equal(load("unit", "scaled_dude",
                          "entities = [ { components = { transform = {} "
                          "animation = { skeleton = \"scaled\" "
                          "clip = \"grow\" } } } ]"),
                     0);
    const ct_entity_t e = worlds->spawn_unit(world, "scaled_dude", (const float[3]){0, 0, 0}, NULL);
    const ct_entity_t tip = anim->bone(world, e, 1);
    anim->evaluate(world, 0.5f);
    expect_scale(tf->local(world, tf->lookup(world, tip)).scale, 1.5f, 2, 2.5f, 1e-3f);
    assert_int_equal(anim->crossfade(world, e, "arm", 1.0f, NULL), 0);
    anim->evaluate(world, 0.5f); /* halfway: between (2 3 4) at 1 s and the rest scale */
    expect_scale(tf->local(world, tf->lookup(world, tip)).scale, 1.5f, 2, 2.5f, 1e-3f);
    anim->evaluate(world, 0.6f);
    expect_scale(tf->local(world, tf->lookup(world, tip)).scale, 1, 1, 1, 0);
    entity->destroy(e);
}

/* The clip's decoded pose stays close to the raw mocap (local rotations and translations). */
static void sample_matches_raw_mocap(void **state)
{
    (void)state;
    char path[256], err[256];
    snprintf(path, sizeof path, "%s/mocap/01_01.bvh", project);
    ct_bvh_t *bvh = ct_bvh_load_file(path, NULL, err, sizeof err);
    assert_non_null(bvh);
    const ct_animation_clip_o *clips[2] = {anim->clip("walk"), anim->clip("walk_precise")};
    /* Radians. Loose on purpose: tolerances follow the ACL metric, so a bone at the end of a
     * chain (a toe, a thumb) may turn further off than the hips, as long as points 3 cm from it
     * stay within the target. */
    const double limit[2] = {0.2, 0.02};
    for (int c = 0; c < 2; c++) {
        double worst = 0;
        for (uint32_t f = 0; f < bvh->num_frames; f += 7) {
            ct_transform_pose_t pose[31];
            assert_int_equal(anim->sample(clips[c], f * bvh->frame_time, pose, 31), 31);
            for (uint32_t j = 0; j < 31; j++) {
                double t[3], q[4], dot = 0;
                ct_bvh_local_pose(bvh, f, j, 0.056444, t, q);
                for (int k = 0; k < 4; k++)
                    dot += q[k] * pose[j].rotation[k];
                const double angle = 2 * acos(fmin(1.0, fabs(dot)));
                worst = angle > worst ? angle : worst;
                assert_true(fabs(t[0] - pose[j].position[0]) < 0.01);
            }
        }
        print_message("%s: worst local rotation error %.5f rad\n", c ? "precision" : "spec", worst);
        assert_true(worst < limit[c]);
        assert_true(worst > 0); /* it is compressed */
    }
    ct_transform_pose_t pose[31];
    assert_int_equal(anim->sample(clips[0], NAN, pose, 31), 0);
    assert_int_equal(anim->sample(clips[0], 0, pose, 30), 0);
    ct_bvh_free(bvh);
}

static ct_entity_t spawn_dude(float x)
{
    const ct_entity_t e = worlds->spawn_unit(world, "dude", (const float[3]){x, 0, 0}, NULL);
    assert_int_not_equal(e.id, 0);
    return e;
}

static void bones_follow_the_clip(void **state)
{
    (void)state;
    assert_int_equal(load("unit", "dude",
                          "entities = [ { components = { transform = {} "
                          "animation = { skeleton = \"cmu\" clip = \"walk\" "
                          "loop = true } } } ]"),
                     0);
    const ct_entity_t e = spawn_dude(5);
    assert_int_equal(anim->bone_count(world, e), 31);
    const ct_entity_t hips = anim->bone(world, e, 0);
    assert_int_not_equal(hips.id, 0);
    assert_int_equal(anim->bone(world, e, 31).id, 0);
    /* The root bone hangs under the entity, the others under their parents. */
    assert_int_equal(tf->parent(world, tf->lookup(world, hips)).i, tf->lookup(world, e).i);
    const uint32_t head = anim->bone_index(world, e, "Head");
    assert_true(head != UINT32_MAX && head > 0);
    float before[3], after[3];
    anim->evaluate(world, 0);
    assert_true(tf->world_position(world, anim->bone(world, e, head), before));
    anim->evaluate(world, 0.5f);
    assert_float_equal(anim->time(world, e), 0.5f, 1e-6);
    assert_true(tf->world_position(world, anim->bone(world, e, head), after));
    assert_true(fabsf(after[0] - before[0]) + fabsf(after[2] - before[2]) > 0.01f); /* it moved */
    /* Each bone's local pose is the clip's sample at the instance's time. */
    ct_transform_pose_t pose[31];
    assert_int_equal(anim->sample(anim->clip("walk"), 0.5f, pose, 31), 31);
    for (uint32_t b = 0; b < 31; b++) {
        const ct_transform_pose_t local =
            tf->local(world, tf->lookup(world, anim->bone(world, e, b)));
        assert_memory_equal(local.rotation, pose[b].rotation, sizeof pose[b].rotation);
        assert_memory_equal(local.position, pose[b].position, sizeof pose[b].position);
    }
    /* The character stands where it was spawned: hips world x = 5 + the clip's hips x. */
    float hp[3];
    assert_true(tf->world_position(world, hips, hp));
    assert_float_equal(hp[0], 5.0f + pose[0].position[0], 1e-4);
    entity->destroy(e);
}

static uint32_t count_events(const char *name, ct_entity_t e)
{
    uint32_t size, at = 0, n = 0;
    const void *s = anim->events(world, &size);
    for (const ct_animation_event_header_t *h; (h = ct_animation_event_next(s, size, &at));) {
        ct_animation_event_t ev;
        assert_int_equal(h->type, CT_ANIMATION_EVENT_MARKER);
        memcpy(&ev, h + 1, sizeof ev);
        n += strcmp(ev.name, name) == 0 && ev.entity == e.id;
    }
    return n;
}

static void events_and_loops(void **state)
{
    (void)state;
    const ct_entity_t e = spawn_dude(0);
    anim->evaluate(world, 0.4f);
    assert_int_equal(count_events("step", e), 0);
    anim->evaluate(world, 0.2f);
    assert_int_equal(count_events("step", e), 1);
    anim->evaluate(world, 0.2f);
    assert_int_equal(count_events("step", e), 0);
    /* Across the loop's end and back past 0.5 s in one step. */
    const float d = anim->clip_duration(anim->clip("walk"));
    assert_int_equal(anim->set_time(world, e, d - 0.1f), 0);
    anim->evaluate(world, 0.7f);
    assert_int_equal(count_events("step", e), 1);
    assert_float_equal(anim->time(world, e), 0.6f - 0.0f, 1e-3);
    /* Backwards, without looping: held at the start. */
    assert_int_equal(anim->play(world, e, "walk", &(ct_animation_play_t){-2.0f, false}), 0);
    assert_float_equal(anim->time(world, e), d, 1e-6);
    anim->evaluate(world, 0.5f);
    assert_float_equal(anim->time(world, e), d - 1.0f, 1e-4);
    anim->evaluate(world, 10.0f);
    assert_float_equal(anim->time(world, e), 0.0f, 0);
    entity->destroy(e);
}

static void crossfade_blends(void **state)
{
    (void)state;
    const ct_entity_t e = spawn_dude(0);
    assert_int_equal(anim->play(world, e, "walk", NULL), 0);
    anim->evaluate(world, 1.0f);
    const ct_transform_t head = tf->lookup(world, anim->bone(world, e, 0));
    const ct_transform_pose_t from = tf->local(world, head);
    assert_int_equal(anim->crossfade(world, e, "walk_precise", 1.0f, NULL), 0);
    anim->evaluate(world, 0.5f);
    const ct_transform_pose_t mid = tf->local(world, head);
    ct_transform_pose_t to[31], old[31];
    anim->sample(anim->clip("walk_precise"), 0.5f, to, 31);
    anim->sample(anim->clip("walk"), 1.5f, old, 31);
    for (int k = 0; k < 3; k++)
        assert_float_equal(mid.position[k], 0.5f * (to[0].position[k] + old[0].position[k]), 1e-4);
    assert_true(memcmp(&mid, &from, sizeof mid) != 0);
    anim->evaluate(world, 0.6f); /* the fade is over: only the new clip */
    const ct_transform_pose_t end = tf->local(world, head);
    anim->sample(anim->clip("walk_precise"), 1.1f, to, 31);
    assert_memory_equal(end.position, to[0].position, sizeof end.position);
    assert_int_equal(anim->crossfade(world, e, "walk", 0.0f, NULL), CT_ERR_INVALID);
    assert_int_equal(anim->crossfade(world, e, "walk", NAN, NULL), CT_ERR_INVALID);
    entity->destroy(e);
}

static void refusals(void **state)
{
    (void)state;
    const ct_entity_t e = spawn_dude(0);
    assert_int_equal(anim->play(world, e, "small", NULL), CT_ERR_INVALID); /* 4 bones, not 31 */
    assert_int_equal(anim->play(world, e, "nothing_here", NULL), CT_ERR_NOT_FOUND);
    assert_int_equal(anim->play(world, e, "walk", &(ct_animation_play_t){INFINITY, true}),
                     CT_ERR_INVALID);
    assert_int_equal(anim->set_time(world, e, NAN), CT_ERR_INVALID);
    const ct_entity_t plain = entity->create();
    assert_int_equal(anim->play(world, plain, "walk", NULL), CT_ERR_NOT_FOUND);
    assert_float_equal(anim->time(world, plain), -1.0f, 0);
    anim->evaluate(world, NAN); /* refused, logged, nothing moves */
    anim->evaluate(NULL, 0.1f);
    assert_null(anim->clip("no/such/clip"));
    /* A bone destroyed by someone else is left out; the rest still animate. */
    const ct_entity_t b3 = anim->bone(world, e, 3);
    entity->destroy(b3);
    anim->evaluate(world, 0.1f);
    /* The character's death takes its bones at the next evaluate. */
    const ct_entity_t b5 = anim->bone(world, e, 5);
    entity->destroy(e);
    assert_true(entity->alive(b5));
    anim->evaluate(world, 0.1f);
    assert_false(entity->alive(b5));
    assert_int_equal(anim->bone_count(world, e), 0);
    entity->destroy(plain);
}

/* Thousands of animated entities: each call finds its own instance (the map from entity to
 * instance), also after a third of them died in one batch (their bones go at the next evaluate;
 * the others keep their bones, clocks and links) and after new entities reuse the freed indices
 * (stale handles find nothing). */
static void many_instances_destroy_and_reuse(void **state)
{
    (void)state;
    enum { N = 3000, MORE = 1500 };
    assert_int_equal(load("skeleton", "small", "source = \"mocap/two_roots.bvh\" units = \"cm\""),
                     0);
    assert_int_equal(load("unit", "small_dude",
                          "entities = [ { components = { transform = {} "
                          "animation = { skeleton = \"small\" clip = \"small\" "
                          "loop = true } } } ]"),
                     0);
    static ct_entity_t e[N], bone0[N], dead[N], more[MORE];
    const float duration = anim->clip_duration(anim->clip("small"));
    uint32_t num_dead = 0;
    for (uint32_t i = 0; i < N; i++) {
        e[i] = worlds->spawn_unit(world, "small_dude", (const float[3]){0, 0, 0}, NULL);
        assert_int_equal(anim->bone_count(world, e[i]), 4);
        bone0[i] = anim->bone(world, e[i], 0);
        assert_int_equal(anim->set_time(world, e[i], duration * (float)(i % 97) / 97.0f), 0);
        if (i % 3 == 1)
            dead[num_dead++] = e[i];
    }
    entity->destroy_batch(dead, num_dead);
    anim->evaluate(world, 0);
    for (uint32_t i = 0; i < N; i++) {
        if (i % 3 == 1) {
            assert_int_equal(anim->bone_count(world, e[i]), 0);
            assert_float_equal(anim->time(world, e[i]), -1.0f, 0);
            assert_false(entity->alive(bone0[i]));
            continue;
        }
        assert_int_equal(anim->bone_count(world, e[i]), 4);
        assert_int_equal(anim->bone(world, e[i], 0).id, bone0[i].id);
        assert_true(entity->alive(bone0[i]));
        assert_int_equal(tf->parent(world, tf->lookup(world, bone0[i])).i,
                         tf->lookup(world, e[i]).i);
        assert_float_equal(anim->time(world, e[i]), duration * (float)(i % 97) / 97.0f, 1e-6);
    }
    uint32_t reused = 0;
    for (uint32_t i = 0; i < MORE; i++) {
        more[i] = worlds->spawn_unit(world, "small_dude", (const float[3]){0, 0, 0}, NULL);
        assert_int_equal(anim->bone_count(world, more[i]), 4);
        for (uint32_t k = 0; k < num_dead; k++)
            reused += ct_entity_index(dead[k]) == ct_entity_index(more[i]);
    }
    assert_true(reused > 0); /* the scenario really reused indices */
    for (uint32_t k = 0; k < num_dead; k++)
        assert_int_equal(anim->bone_count(world, dead[k]), 0);
    for (uint32_t i = 0; i < N; i += 3)
        assert_int_equal(anim->bone(world, e[i], 0).id, bone0[i].id);
    for (uint32_t i = 0; i < N; i++)
        if (i % 3 != 1)
            entity->destroy(e[i]);
    entity->destroy_batch(more, MORE);
    anim->evaluate(world, 0);
    assert_int_equal(anim->bone_count(world, e[0]), 0);
    assert_int_equal(anim->bone_count(world, more[MORE - 1]), 0);
    assert_false(entity->alive(bone0[N - 1]));
}

static void lua_module(void **state)
{
    (void)state;
    const ct_entity_t e = spawn_dude(0);
    assert_int_equal(
        lua->run_string(
            "function anim_test(w, e)\n"
            "  Animation.play(w, e, 'walk', {loop = true, speed = 1})\n"
            "  Animation.evaluate(w, 0.25)\n"
            "  assert(math.abs(Animation.time(w, e) - 0.25) < 1e-6)\n"
            "  Animation.set_time(w, e, 0.45)\n"
            "  Animation.evaluate(w, 0.1)\n"
            "  local ev = Animation.events(w)\n"
            "  assert(#ev == 1 and ev[1].name == 'step' and ev[1].entity == e, #ev)\n"
            "  Animation.crossfade(w, e, 'walk_precise', 0.5)\n"
            "  assert(Animation.bone(w, e, 'Head') ~= nil)\n"
            "  assert(Animation.bone(w, e, 'Tail') == nil)\n"
            "  assert(Animation.bone_count(w, e) == 31)\n"
            "  local cl = Animation.clips('walk', 'walk_precise')\n"
            "  assert(#cl == 2 and cl[1].name == 'walk' and cl[1].bones == 31 and cl[1].duration > "
            "0, #cl)\n"
            "  assert(not pcall(Animation.clips, 'nope'))\n"
            "  assert(Animation.bone(w, e, 1) == Animation.bone(w, e, 'Hips'))\n"
            "  assert(Animation.bone(w, e, 32) == nil and Animation.bone(w, e, 0) == nil)\n"
            "  for _, bad in ipairs({\n"
            "      function() Animation.play(w, e, 'walk', {speed = 0/0}) end,\n"
            "      function() Animation.set_time(w, e, 1/0) end,\n"
            "      function() Animation.evaluate(w, -1) end,\n"
            "      function() Animation.play(w, e, 'nope') end,\n"
            "      function() Animation.play(w, -3, 'walk') end,\n"
            "      function() Animation.time(nil, e) end,\n"
            "      function() Animation.crossfade(w, e, 'walk', 0) end }) do\n"
            "    assert(not pcall(bad))\n"
            "  end\n"
            "end\n",
            "anim_test"),
        0);
    test_lua_call("anim_test", world, &e, 1);
    entity->destroy(e);
    anim->evaluate(world, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(compiles_from_sources),
        cmocka_unit_test(compiles_from_gltf),
        cmocka_unit_test(gltf_scale_channels),
        cmocka_unit_test(sample_matches_raw_mocap),
        cmocka_unit_test(bones_follow_the_clip),
        cmocka_unit_test(events_and_loops),
        cmocka_unit_test(crossfade_blends),
        cmocka_unit_test(refusals),
        cmocka_unit_test(many_instances_destroy_and_reuse),
        cmocka_unit_test(lua_module),
    };
    return cmocka_run_group_tests(tests, boot, shutdown);
}
