/* The BVH reader against CMU motion capture and a boxing clip from Debian's assimp-testmodels
 * (channel orders ZXY and ZYX, End Sites, a Frames: count that disagrees with the file), a small
 * hand-made file (two roots, position channels off the root, channels in odd orders) and broken
 * variations of it, each refused naming the line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "bvh.h"
#include "ct_math.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char err[512];

static ct_bvh_t *load(const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/BVH/%s", ASSIMP_MODELS, rel);
    ct_bvh_t *b = ct_bvh_load_file(path, NULL, err, sizeof err);
    if (!b)
        fail_msg("%s", err);
    return b;
}

static void cmu_01_01(void **state)
{
    (void)state;
    ct_bvh_t *b = load("01_01.bvh");
    assert_int_equal(b->num_joints, 31);
    assert_int_equal(b->num_frames, 2752);
    assert_int_equal(b->declared_frames, 2752);
    assert_null(b->warning);
    assert_float_equal(b->frame_time, 0.0083333f, 1e-9);
    assert_string_equal(b->joints[0].name, "Hips");
    assert_int_equal(b->joints[0].parent, -1);
    assert_int_equal(b->joints[0].num_channels, 6);
    assert_int_equal(b->joints[0].channels[3], CT_BVH_ZROTATION);
    assert_int_equal(b->joints[0].channels[4], CT_BVH_YROTATION); /* ZYX on the CMU files */
    assert_int_equal(b->num_channels, 6 + 30 * 3);
    uint32_t end_sites = 0;
    for (uint32_t j = 0; j < b->num_joints; j++) {
        end_sites += b->joints[j].has_end_site;
        if (j)
            assert_true(b->joints[j].parent >= 0 && (uint32_t)b->joints[j].parent < j);
    }
    assert_int_equal(end_sites, 7);
    /* The first values of the first and the last frame, as written in the file. */
    assert_float_equal(b->frames[0], 9.3722f, 1e-6);
    assert_float_equal(b->frames[9], -17.0f, 0);
    const float *last = b->frames + (size_t)(b->num_frames - 1) * b->num_channels;
    assert_float_equal(last[b->num_channels - 1], -0.9244f, 1e-6);
    ct_bvh_free(b);

    b = load("01_03.bvh");
    assert_int_equal(b->num_joints, 31);
    assert_int_equal(b->num_frames, 4511);
    ct_bvh_free(b);
}

static void boxing_frames_disagree(void **state)
{
    (void)state;
    ct_bvh_t *b = load("Boxing_Toes.bvh");
    assert_int_equal(b->num_joints, 21);
    assert_float_equal(b->frame_time, 0.01f, 1e-9);
    assert_int_equal(b->declared_frames, 3069);
    assert_int_equal(b->num_frames, 3070);
    assert_non_null(b->warning);
    assert_non_null(strstr(b->warning, "3069"));
    assert_int_equal(b->joints[0].channels[4], CT_BVH_XROTATION); /* ZXY on this file */
    ct_bvh_free(b);
}

static const char *small_path = SOURCE_DIR "/bvh_seeds/two_roots.bvh";

static void hand_made(void **state)
{
    (void)state;
    ct_bvh_t *b = ct_bvh_load_file(small_path, NULL, err, sizeof err);
    if (!b)
        fail_msg("%s", err);
    assert_int_equal(b->num_joints, 4);
    assert_int_equal(b->num_channels, 12);
    assert_int_equal(b->num_frames, 3); /* the blank line is skipped */
    assert_int_equal(b->joints[3].parent, -1);
    assert_int_equal(b->joints[2].parent, 0);
    assert_true(b->joints[2].has_end_site && b->joints[2].end_site[1] == -8.0f);

    double t[3], q[4], want[4];
    /* Frame 1, root: position 1 2 3 (scaled), rotation Z0 X90 Y0 about moving axes. */
    ct_bvh_local_pose(b, 1, 0, 0.5, t, q);
    assert_float_equal(t[0], 0.5, 1e-12);
    assert_float_equal(t[2], 1.5, 1e-12);
    assert_float_equal(q[0], sin(M_PI / 4), 1e-9);
    /* Frame 1, Leg: Xrotation 30 then Xposition 1.5 added to its offset 2. */
    ct_bvh_local_pose(b, 1, 2, 1.0, t, q);
    assert_float_equal(t[0], 3.5, 1e-6);
    assert_float_equal(q[0], sin(M_PI / 12), 1e-7);
    /* Frame 2, Spine: Y179 X0 Z0 in file order is YXZ intrinsic. */
    ct_bvh_local_pose(b, 2, 1, 1.0, t, q);
    ct_quat_from_euler((const double[3]){179 * M_PI / 180, 0, 0}, CT_EULER_YXZ, CT_EULER_INTRINSIC,
                       want);
    for (int i = 0; i < 4; i++)
        assert_float_equal(q[i], want[i], 1e-7);
    ct_bvh_free(b);
}

/* The small file with one piece replaced must be refused naming `want` (and a line). */
static void broken(const char *from, const char *to, const char *want)
{
    FILE *f = fopen(small_path, "rb");
    char text[4096], edited[4096];
    const size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *at = strstr(text, from);
    assert_non_null(at);
    snprintf(edited, sizeof edited, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    ct_bvh_t *b = ct_bvh_parse(edited, strlen(edited), "small.bvh", NULL, err, sizeof err);
    if (b)
        fail_msg("accepted with \"%s\" -> \"%s\"", from, to);
    if (!strstr(err, "small.bvh:") || !strstr(err, want))
        fail_msg("\"%s\" -> \"%s\": message \"%s\" lacks \"%s\"", from, to, err, want);
}

static void broken_files(void **state)
{
    (void)state;
    broken("HIERARCHY", "HIERARCHIE", "expected \"HIERARCHY\"");
    broken("MOTION", "MOTON", "unexpected \"MOTON\"");
    broken("Zrotation Xrotation Yrotation", "Zrotation Wrotation Yrotation", "\"Wrotation\"");
    broken("CHANNELS 2 Xrotation Xposition", "CHANNELS 2 Xrotation Xrotation", "appears twice");
    broken("CHANNELS 1", "CHANNELS 7", "0 to 6");
    broken("OFFSET 0 10 0", "OFFSET 0 nan 0", "not a finite number");
    broken("OFFSET 0 10 0", "OFFSET 0 1e999 0", "not a finite number");
    broken("30 1.5  -90", "30 1.5", "frame 1 has 11 values");
    broken("30 1.5  -90", "30 1.5 -90 7", "frame 1 has 13 values");
    broken("30 1.5  -90", "30 x -90", "not a finite number");
    broken("Frame Time: 0.5", "Frame Time: 0", "Frame Time");
    broken("Frames: 3", "Frames: -3", "Frames:");
    broken("\t\t}\n\t}\n\tJOINT Leg", "\t\t}\n\tJOINT Leg", "unexpected \"ROOT\"");
    broken("ROOT Prop", "JOINT Prop", "unexpected \"JOINT\"");
    broken("End Site\n\t\t{\n\t\t\tOFFSET 0 5 0\n\t\t}", "End Site\n\t\t{\n\t\t\tOFFSET 0 5 0",
           "unexpected \"ROOT\" inside a joint"); /* the braces no longer pair up */
    broken("0 0 0 90 0 0  0 0 0  0 0  0\n1 2 3 0 90 0  0 0 45  30 1.5  -90\n\n10 20 30 0 0 90  "
           "179 0 0  0 0  180\n",
           "", "no frames");
    /* The line number points at the bad frame: line 34 of the file. */
    broken("30 1.5  -90", "30 1.5", "small.bvh:34:");
}

static void limits(void **state)
{
    (void)state;
    /* 300 nested joints: deeper than the 256 allowed, refused without recursion. */
    static char text[300 * 40 + 200];
    size_t n = (size_t)snprintf(text, sizeof text, "HIERARCHY\nROOT r\n{\nCHANNELS 1 Xrotation\n");
    for (int i = 0; i < 300; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "JOINT j%d\n{\n", i);
    assert_null(ct_bvh_parse(text, n, "deep.bvh", NULL, err, sizeof err));
    assert_non_null(strstr(err, "deeper than 256"));
    /* Cut anywhere, the file is refused or read, never overrun (ASan watches). */
    FILE *f = fopen(small_path, "rb");
    const size_t len = fread(text, 1, sizeof text, f);
    fclose(f);
    uint32_t accepted = 0;
    for (size_t cut = 0; cut < len; cut++) {
        ct_bvh_t *b = ct_bvh_parse(text, cut, "cut.bvh", NULL, err, sizeof err);
        accepted += b != NULL;
        ct_bvh_free(b);
    }
    assert_true(accepted > 0 && accepted < len);
}

/* Issue 28: memory follows the text, not its newlines times the channels. 64 joints of 6
 * channels, then 256 KiB of blank lines and one frame: the frame array was sized as one frame
 * per line (2.4 GB at this size with more joints); now at most about twice the text. */
static size_t live, peak;
static void *counting(ct_allocator_t *a, void *p, size_t old_size, size_t new_size, const char *f,
                      uint32_t l)
{
    (void)a, (void)f, (void)l;
    live = live - old_size + new_size;
    peak = live > peak ? live : peak;
    if (!new_size) {
        free(p);
        return NULL;
    }
    return realloc(p, new_size);
}

static void blank_lines_cost_nothing(void **state)
{
    (void)state;
    const size_t cap = 64 * 128 + (256u << 10) + 64 * 6 * 2 + 200;
    char *text = malloc(cap);
    size_t n = (size_t)snprintf(
        text, cap,
        "HIERARCHY\nROOT j0\n{\nOFFSET 0 0 0\n"
        "CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n");
    for (int i = 1; i < 64; i++)
        n += (size_t)snprintf(
            text + n, cap - n,
            "JOINT j%d\n{\nOFFSET 0 0 0\n"
            "CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n",
            i);
    for (int i = 0; i < 64; i++)
        n += (size_t)snprintf(text + n, cap - n, "}\n");
    n += (size_t)snprintf(text + n, cap - n, "MOTION\nFrames: 1\nFrame Time: 0.1\n");
    const size_t text_size = n + (256u << 10) + 64 * 6 * 2;
    memset(text + n, '\n', 256u << 10);
    n += 256u << 10;
    for (int i = 0; i < 64 * 6; i++)
        text[n++] = '0', text[n++] = i + 1 < 64 * 6 ? ' ' : '\n';
    ct_allocator_t a = {.realloc = counting};
    live = peak = 0;
    ct_bvh_t *b = ct_bvh_parse(text, n, "blank.bvh", &a, err, sizeof err);
    if (!b)
        fail_msg("%s", err);
    assert_int_equal(b->num_frames, 1);
    assert_int_equal(b->num_channels, 384);
    print_message("peak %zu bytes for %zu bytes of text\n", peak, text_size);
    assert_true(peak < 4 * text_size);
    ct_bvh_free(b);
    assert_int_equal(live, 0);
    free(text);
}

/* Issue 28: a FIFO where a BVH should be is refused at once (the reader blocked on it). */
static void a_fifo_is_refused(void **state)
{
    (void)state;
    char dir[] = "/tmp/ct-bvh-fifo-XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/walk.bvh", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_null(ct_bvh_load_file(path, NULL, err, sizeof err));
    assert_non_null(strstr(err, "walk.bvh"));
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cmu_01_01),
        cmocka_unit_test(boxing_frames_disagree),
        cmocka_unit_test(hand_made),
        cmocka_unit_test(broken_files),
        cmocka_unit_test(limits),
        cmocka_unit_test(blank_lines_cost_nothing),
        cmocka_unit_test(a_fifo_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
