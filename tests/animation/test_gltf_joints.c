/*
 * The glTF skeleton importer against an independent evaluation: every joint's place in the
 * scene, in the rest pose and at several times of every animation, as the animation compiler
 * imports it (anim__bones_from_gltf, anim__raw_from_gltf at 30 Hz, bones composed parent first)
 * and as tests/animation/gltf/joint_positions.py computes it from the specification alone
 * (checked in as joint_positions.txt). Within 1e-4 m for every joint of:
 *   - walker.gltf (tests/animation/gltf/make_walker.py): the skeleton under an "Armature" node
 *     offset, turned and scaled 0.01, a scaled group node between two joints, the armature node
 *     itself animated, LINEAR, STEP and CUBICSPLINE keys;
 *   - assimp-testmodels' glTF2/simple_skin.
 * Before the importer placed joints through the nodes above them, the walker's joints landed up
 * to 95 m away (centimetres read as metres) and this test failed.
 * Also: a skeleton under a node that scales unevenly or mirrors is refused, naming the joint.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "animation_source.h"
#include "ct_heap.h"
#include "ct_math.h"

#define MAX_LINES 4096

typedef struct expected_t {
    char model[64], animation[64], joint[64];
    int frame;
    double p[3];
} expected_t;

static expected_t lines[MAX_LINES];
static uint32_t num_lines;

static void read_expected(void)
{
    FILE *f = fopen(GLTF_TEST_DIR "/joint_positions.txt", "r");
    assert_non_null(f);
    num_lines = 0;
    char buf[512];
    while (fgets(buf, sizeof buf, f) && num_lines < MAX_LINES) {
        expected_t *e = &lines[num_lines];
        if (sscanf(buf, "%63s %63s %d %63s %lf %lf %lf", e->model, e->animation, &e->frame,
                   e->joint, &e->p[0], &e->p[1], &e->p[2]) == 7)
            num_lines++;
    }
    fclose(f);
    assert_true(num_lines > 100);
}

/* World 3x4 matrices of bones from their local poses (parents come first). */
static void compose(uint32_t n, const int32_t *parent, const float (*t)[3], const float (*q)[4],
                    const float (*s)[3], double world[][3][4])
{
    for (uint32_t b = 0; b < n; b++) {
        const double qd[4] = {q[b][0], q[b][1], q[b][2], q[b][3]};
        double r[3][3], l[3][4];
        ct_mat3_from_quat(qd, r);
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++)
                l[i][j] = r[i][j] * (s ? s[b][j] : 1.0);
            l[i][3] = t[b][i];
        }
        if (parent[b] < 0) {
            memcpy(world[b], l, sizeof l);
            continue;
        }
        const double(*p)[4] = world[parent[b]];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 4; j++)
                world[b][i][j] = p[i][0] * l[0][j] + p[i][1] * l[1][j] + p[i][2] * l[2][j] +
                                 (j == 3 ? p[i][3] : 0);
    }
}

/* Compares one pose with the expected lines of (model, animation, frame); returns the largest
 * distance and counts the joints compared. */
static double compare(const char *model, const char *animation, int frame, uint32_t n,
                      const anim__bone_t *bones, double world[][3][4], uint32_t *compared)
{
    double worst = 0;
    for (uint32_t i = 0; i < num_lines; i++) {
        const expected_t *e = &lines[i];
        if (strcmp(e->model, model) || strcmp(e->animation, animation) || e->frame != frame)
            continue;
        uint32_t b = 0;
        while (b < n && strcmp(bones[b].name, e->joint))
            b++;
        assert_true(b < n);
        const double d = sqrt(pow(world[b][0][3] - e->p[0], 2) + pow(world[b][1][3] - e->p[1], 2) +
                              pow(world[b][2][3] - e->p[2], 2));
        if (d > 1e-4)
            print_message(
                "%s %s frame %d joint %s: %.6f %.6f %.6f, expected %.6f %.6f %.6f (%.3g m off)\n",
                model, animation, frame, e->joint, world[b][0][3], world[b][1][3], world[b][2][3],
                e->p[0], e->p[1], e->p[2], d);
        worst = fmax(worst, d);
        (*compared)++;
    }
    return worst;
}

static double check_model(const char *path, const char *model, uint32_t *compared)
{
    char err[512];
    ct_gltf_t *doc = ct_gltf_load_file(path, NULL, err, sizeof err);
    if (!doc)
        fail_msg("%s", err);
    static anim__bone_t bones[ANIM_MAX_BONES];
    static double world[ANIM_MAX_BONES][3][4];
    uint32_t n = 0;
    assert_int_equal(anim__bones_from_gltf(doc, 0, 1.0, bones, &n, err, sizeof err), 0);
    int32_t parent[ANIM_MAX_BONES];
    float t[ANIM_MAX_BONES][3], q[ANIM_MAX_BONES][4], s[ANIM_MAX_BONES][3];
    for (uint32_t b = 0; b < n; b++) {
        parent[b] = bones[b].parent;
        memcpy(t[b], bones[b].translation, sizeof t[b]);
        memcpy(q[b], bones[b].rotation, sizeof q[b]);
        memcpy(s[b], bones[b].scale, sizeof s[b]);
    }
    compose(n, parent, (const float(*)[3])t, (const float(*)[4])q, (const float(*)[3])s, world);
    double worst = compare(model, "-", 0, n, bones, world, compared);
    for (uint32_t a = 0; a < doc->num_animations; a++) {
        char label[64];
        snprintf(label, sizeof label, "%s",
                 doc->animations[a].name[0] ? doc->animations[a].name : "");
        if (!label[0])
            snprintf(label, sizeof label, "animation_%u", a);
        anim__raw_owned raw;
        assert_int_equal(
            anim__raw_from_gltf(doc, 0, a, 30.0f, 1.0, ct_heap_allocator(), &raw, err, sizeof err),
            0);
        assert_int_equal(raw.raw.num_bones, n);
        for (uint32_t f = 0; f < raw.raw.num_samples; f++) {
            const size_t i = (size_t)f * n;
            compose(n, raw.raw.parent, (const float(*)[3])raw.raw.translation[i],
                    (const float(*)[4])raw.raw.rotation[i],
                    raw.scale ? (const float(*)[3])raw.scale[i] : (const float(*)[3])s, world);
            worst = fmax(worst, compare(model, label, (int)f, n, bones, world, compared));
        }
        anim__raw_free(&raw);
    }
    ct_gltf_free(doc);
    return worst;
}

static void test_joints_match_the_independent_evaluation(void **state)
{
    (void)state;
    read_expected();
    uint32_t walker = 0, simple = 0;
    const double w = check_model(GLTF_TEST_DIR "/walker.gltf", "walker.gltf", &walker);
    const double s =
        check_model(ASSIMP_GLTF2 "/simple_skin/simple_skin.gltf", "simple_skin.gltf", &simple);
    print_message("walker: %u joint positions, worst %.3g m; simple_skin: %u, worst %.3g m\n",
                  walker, w, simple, s);
    /* Every line of the evaluation was compared: 9 joints x (rest + 7 Walk + 8 Idle frames). */
    assert_int_equal(walker, 9 * (1 + 5 + 7));
    assert_int_equal(simple, 2 * (1 + 10));
    assert_true(w < 1e-4);
    assert_true(s < 1e-4);
}

/* A joint under a node that scales unevenly (or mirrors) cannot be carried into rigid bones. */
static void test_uneven_armature_is_refused(void **state)
{
    (void)state;
    static const char *const docs[] = {
        "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"Armature\",\"scale\":[1,2,1],"
        "\"children\":[1]},"
        "{\"name\":\"Root\"}],\"skins\":[{\"joints\":[1]}]}",
        "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"Armature\",\"scale\":[-1,1,1],"
        "\"children\":[1]},"
        "{\"name\":\"Root\"}],\"skins\":[{\"joints\":[1]}]}",
    };
    static const char *const why[] = {"scale it unevenly", "mirror it"};
    for (int k = 0; k < 2; k++) {
        char err[512];
        ct_gltf_t *doc =
            ct_gltf_parse(docs[k], strlen(docs[k]), "uneven.gltf", NULL, NULL, err, sizeof err);
        if (!doc)
            fail_msg("%s", err);
        anim__bone_t bones[4];
        uint32_t n = 0;
        err[0] = 0;
        assert_int_equal(anim__bones_from_gltf(doc, 0, 1.0, bones, &n, err, sizeof err),
                         CT_ERR_BAD_DATA);
        assert_non_null(strstr(err, "joint 'Root'"));
        assert_non_null(strstr(err, why[k]));
        ct_gltf_free(doc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_joints_match_the_independent_evaluation),
        cmocka_unit_test(test_uneven_armature_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
