/* The glTF reader against files nobody here wrote (Debian's assimp-testmodels): the Khronos
 * simple_skin and box samples in all three containers, and every deliberately broken file, each
 * of which must be refused with a message naming the file and the field. Small hand-made
 * documents cover the cases those files do not (GLB framing, paths, samplers, strides). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "gltf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MODELS ASSIMP_MODELS "/glTF2/"

static char err[512];

static ct_gltf_t *load(const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s%s", MODELS, rel);
    err[0] = '\0';
    return ct_gltf_load_file(path, NULL, err, sizeof err);
}

/* The file must be refused with a message holding every one of the given pieces. */
static void refused(const char *rel, const char *field, const char *what)
{
    ct_gltf_t *doc = load(rel);
    if (doc)
        fail_msg("%s was accepted", rel);
    const char *base = strrchr(rel, '/') + 1;
    if (!strstr(err, base) || !strstr(err, field) || !strstr(err, what))
        fail_msg("%s: message \"%s\" does not name \"%s\" and \"%s\"", rel, err, field, what);
    print_message("refused as expected: %s\n", err);
}

static ct_gltf_t *parse(const char *json)
{
    err[0] = '\0';
    return ct_gltf_parse(json, strlen(json), "inline.gltf", NULL, NULL, err, sizeof err);
}

static void parse_refused(const char *json, const char *field)
{
    ct_gltf_t *doc = parse(json);
    if (doc)
        fail_msg("accepted: %s", json);
    if (!strstr(err, "inline.gltf") || !strstr(err, field))
        fail_msg("message \"%s\" does not name %s", err, field);
}

static void simple_skin(void **state)
{
    (void)state;
    ct_gltf_t *doc = load("simple_skin/simple_skin.gltf");
    assert_non_null(doc);
    assert_int_equal(doc->num_nodes, 3);
    assert_int_equal(doc->nodes[0].parent, -1);
    assert_int_equal(doc->nodes[1].parent, 0);
    assert_int_equal(doc->nodes[2].parent, 1);
    assert_int_equal(doc->nodes[0].skin, 0);
    assert_int_equal(doc->nodes[0].mesh, 0);
    assert_true(doc->nodes[1].translation[1] == 1.0f);
    assert_int_equal(doc->num_scene_nodes, 1);
    assert_int_equal(doc->scene_nodes[0], 0);

    const ct_gltf_primitive_t *p = &doc->meshes[0].primitives[0];
    assert_int_equal(p->num_vertices, 10);
    assert_int_equal(p->num_indices, 24);
    assert_int_equal(p->mode, CT_GLTF_TRIANGLES);
    assert_true(p->positions[3 * 9 + 1] == 2.0f && p->positions[3 * 9 + 0] == 1.0f);
    assert_int_equal(p->indices[0], 0);
    assert_int_equal(p->indices[2], 3);
    assert_non_null(p->joints);
    assert_int_equal(p->joints[4 * 0 + 1], 1);
    assert_true(p->weights[4 * 3 + 0] == 0.75f && p->weights[4 * 3 + 1] == 0.25f);
    assert_null(p->normals);
    assert_int_equal(p->material, -1);

    const ct_gltf_skin_t *s = &doc->skins[0];
    assert_int_equal(s->num_joints, 2);
    assert_int_equal(s->joints[0], 1);
    assert_int_equal(s->joints[1], 2);
    assert_true(s->inverse_bind_matrices[12] == -0.5f && s->inverse_bind_matrices[13] == -1.0f);
    assert_true(s->inverse_bind_matrices[16 + 15] == 1.0f);

    const ct_gltf_animation_t *a = &doc->animations[0];
    assert_int_equal(a->num_channels, 1);
    assert_int_equal(a->channels[0].node, 2);
    assert_int_equal(a->channels[0].path, CT_GLTF_ROTATION);
    const ct_gltf_sampler_t *sa = &a->samplers[0];
    assert_int_equal(sa->num_keys, 12);
    assert_int_equal(sa->components, 4);
    assert_true(a->duration == 5.5f);
    float q[4];
    ct_gltf_sample(sa, CT_GLTF_ROTATION, 1.0f, q); /* exactly key 2: (0 0 .707 .707) normalised */
    assert_float_equal(q[2], sqrtf(0.5f), 1e-6);
    assert_float_equal(q[3], sqrtf(0.5f), 1e-6);
    ct_gltf_sample(sa, CT_GLTF_ROTATION, 0.25f, q); /* halfway from identity to 45 degrees */
    assert_float_equal(q[2], sinf(0.5f * 22.5f * 3.14159265f / 180.0f), 2e-3);
    ct_gltf_sample(sa, CT_GLTF_ROTATION, 99.0f, q); /* clamped to the last key */
    assert_float_equal(q[3], 1.0f, 1e-6);
    ct_gltf_free(doc);
}

/* TANGENT is read (AnimatedMorphCube has one per vertex: +x, w = 1); files without it have none. */
static void tangents(void **state)
{
    (void)state;
    ct_gltf_t *doc = load("glTF-Sample-Models/AnimatedMorphCube-glTF/AnimatedMorphCube.gltf");
    if (!doc)
        fail_msg("%s", err);
    const ct_gltf_primitive_t *p = &doc->meshes[0].primitives[0];
    assert_non_null(p->tangents);
    assert_int_equal(p->num_vertices, 24);
    assert_true(p->tangents[0] == 1.0f && p->tangents[1] == 0.0f && p->tangents[3] == 1.0f);
    ct_gltf_free(doc);
    doc = load("BoxTextured-glTF-Binary/BoxTextured.glb");
    assert_non_null(doc);
    assert_null(doc->meshes[0].primitives[0].tangents);
    ct_gltf_free(doc);
}

/* The same box as .gltf + .bin, as .gltf with data URIs and as .glb reads the same. */
static void box_three_containers(void **state)
{
    (void)state;
    const char *files[] = {"BoxTextured-glTF/BoxTextured.gltf",
                           "BoxTextured-glTF-Embedded/BoxTextured.gltf",
                           "BoxTextured-glTF-Binary/BoxTextured.glb"};
    float first_uv_sum = 0;
    for (int f = 0; f < 3; f++) {
        ct_gltf_t *doc = load(files[f]);
        if (!doc)
            fail_msg("%s", err);
        const ct_gltf_primitive_t *p = &doc->meshes[0].primitives[0];
        assert_int_equal(p->num_vertices, 24);
        assert_int_equal(p->num_indices, 36);
        assert_non_null(p->normals);
        assert_non_null(p->uvs);
        float uv_sum = 0;
        for (uint32_t i = 0; i < 2 * p->num_vertices; i++)
            uv_sum += p->uvs[i];
        if (f == 0)
            first_uv_sum = uv_sum;
        assert_true(uv_sum > 1.0f && uv_sum == first_uv_sum);
        for (uint32_t i = 0; i < p->num_indices; i++)
            assert_true(p->indices[i] < 24);
        assert_int_equal(p->material, 0);
        const ct_gltf_material_t *m = &doc->materials[0];
        assert_string_equal(m->name, "Texture");
        assert_true(m->base_color[0] == 1.0f && m->metallic == 0.0f && m->roughness == 1.0f);
        assert_int_equal(m->base_color_texture, 0);
        assert_int_equal(doc->textures[0].image, 0);
        const ct_gltf_image_t *im = &doc->images[0];
        /* The files read besides the document: the .bin of the first only (images are not read). */
        assert_int_equal(doc->num_files, f == 0 ? 1 : 0);
        if (f == 0)
            assert_string_equal(doc->files[0], "BoxTextured0.bin");
        if (f == 0)
            assert_string_equal(im->uri, "CesiumLogoFlat.png");
        else /* the PNG signature, from a data URI or the GLB chunk */
            assert_true(im->size > 8 && memcmp(im->data, "\x89PNG", 4) == 0);
        ct_gltf_free(doc);
    }
}

/* One file named three ways is read three times but listed once, spelt without "." or empty
 * segments, so a resource compiler can note it as a project path. */
static void files_read_are_listed_once(void **state)
{
    (void)state;
    static const char json[] =
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,\"uri\":\"BoxTextured0."
        "bin\"},"
        "{\"byteLength\":4,\"uri\":\"./BoxTextured0.bin\"},{\"byteLength\":4,\"uri\":\".//"
        "Box%54extured0.bin\"}]}";
    ct_gltf_t *doc = ct_gltf_parse(json, strlen(json), "inline.gltf", MODELS "BoxTextured-glTF",
                                   NULL, err, sizeof err);
    if (!doc)
        fail_msg("%s", err);
    assert_int_equal(doc->num_files, 1);
    assert_string_equal(doc->files[0], "BoxTextured0.bin");
    ct_gltf_free(doc);
    char path[16];
    assert_true(ct_gltf_file_path("models/a.gltf", "a.bin", path, sizeof path));
    assert_string_equal(path, "models/a.bin");
    assert_true(ct_gltf_file_path("a.gltf", "a.bin", path, sizeof path));
    assert_string_equal(path, "a.bin");
    assert_false(ct_gltf_file_path("models/deeper/a.gltf", "a.bin", path, sizeof path));
    parse_refused(
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,\"uri\":\"./\"}]}",
        "buffers[0].uri");
}

static void broken_files(void **state)
{
    (void)state;
    refused("IndexOutOfRange/IndexOutOfRange.gltf", "meshes[0].primitives[0].indices", "vertices");
    refused("IndexOutOfRange/AllIndicesOutOfRange.gltf", "meshes[0].primitives[0].indices",
            "vertices");
    refused("MissingBin/BoxTextured.gltf", "buffers[0].uri", "BoxTextured0.bin");
    refused("RecursiveNodes/RecursiveNodes.gltf", "nodes[", "cycle");
    refused("BoxWithInfinites-glTF-Binary/BoxWithInfinites.glb", "accessors[", "infinite");
    refused("wrongTypes/badArray.gltf", "meshes[0].primitives", "expected an array");
    refused("wrongTypes/badExtension.gltf", "extensions.KHR_texture_transform",
            "expected an object");
    refused("wrongTypes/badNumber.gltf", "normalTexture.scale", "expected a number");
    refused("wrongTypes/badObject.gltf", "materials[0].pbrMetallicRoughness", "expected an object");
    refused("wrongTypes/badString.gltf", "name", "expected a string");
    refused("wrongTypes/badUint.gltf", "baseColorTexture.index", "not an integer");
}

#define HEAD "{\"asset\":{\"version\":\"2.0\"},"
/* 24 bytes: three floats 1 2 3, then 0 0 0 (base64 of little-endian floats). */
#define BUF                                                                                        \
    "\"buffers\":[{\"byteLength\":24,\"uri\":\"data:application/octet-stream;base64,"              \
    "AACAPwAAAEAAAEBAAAAAAAAAAAAAAAAA\"}],"

static void hand_made_documents(void **state)
{
    (void)state;
    parse_refused("[1,2]", "top level");
    parse_refused("{\"asset\":{\"version\":\"2.0\"", "line 1");
    parse_refused("{}", "asset");
    parse_refused("{\"asset\":{\"version\":\"1.0\"}}", "asset.version");
    parse_refused(HEAD "\"extensionsRequired\":[\"KHR_draco_mesh_compression\"]}",
                  "KHR_draco_mesh_compression");
    parse_refused(HEAD "\"buffers\":[{\"byteLength\":4,\"uri\":\"../secret.bin\"}]}",
                  "buffers[0].uri");
    parse_refused(HEAD "\"buffers\":[{\"byteLength\":4,\"uri\":\"/etc/passwd\"}]}",
                  "buffers[0].uri");
    parse_refused(HEAD "\"buffers\":[{\"byteLength\":4,\"uri\":\"a.bin\"}]}", "buffers[0].uri");
    parse_refused(HEAD "\"buffers\":[{\"byteLength\":40,\"uri\":\"data:x;base64,AAAA\"}]}",
                  "buffers[0].byteLength");
    parse_refused(HEAD "\"buffers\":[{\"byteLength\":3,\"uri\":\"data:x;base64,A!AA\"}]}",
                  "buffers[0].uri");
    parse_refused(HEAD BUF "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":20,\"byteLength\":8}]}",
                  "bufferViews[0]");
    parse_refused(HEAD BUF "\"bufferViews\":[{\"buffer\":1,\"byteLength\":8}]}",
                  "bufferViews[0].buffer");
    parse_refused(HEAD BUF "\"bufferViews\":[{\"buffer\":0,\"byteLength\":24,\"byteStride\":6}]}",
                  "bufferViews[0].byteStride");
    /* Two VEC3 floats fit 24 bytes; three do not, nor does a stride that skips past the end. */
    parse_refused(HEAD BUF "\"bufferViews\":[{\"buffer\":0,\"byteLength\":24}],"
                           "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,"
                           "\"type\":\"VEC3\"}]}",
                  "accessors[0].count");
    parse_refused(HEAD BUF "\"bufferViews\":[{\"buffer\":0,\"byteLength\":24,\"byteStride\":16}],"
                           "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,"
                           "\"type\":\"VEC3\"}]}",
                  "accessors[0].count");
    parse_refused(HEAD BUF
                  "\"bufferViews\":[{\"buffer\":0,\"byteLength\":24}],"
                  "\"accessors\":[{\"bufferView\":0,\"byteOffset\":2,\"componentType\":5126,"
                  "\"count\":1,\"type\":\"VEC3\"}]}",
                  "accessors[0].byteOffset");
    parse_refused(HEAD BUF "\"bufferViews\":[{\"buffer\":0,\"byteLength\":24}],"
                           "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":1,"
                           "\"type\":\"VEC5\"}]}",
                  "accessors[0].type");
    parse_refused(HEAD "\"nodes\":[{\"children\":[0]}]}", "nodes[0].children[0]");
    parse_refused(HEAD "\"nodes\":[{\"children\":[1]},{},{\"children\":[1]}]}",
                  "nodes[2].children[0]");
    parse_refused(HEAD "\"nodes\":[{\"mesh\":0}]}", "nodes[0].mesh");
    parse_refused(HEAD "\"nodes\":[{\"rotation\":[0,0,0,2]}]}", "nodes[0].rotation");
    parse_refused(HEAD "\"nodes\":[{\"scale\":[1,1]}]}", "nodes[0].scale");
    parse_refused(HEAD "\"nodes\":[{\"matrix\":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1],"
                       "\"translation\":[1,2,3]}]}",
                  "nodes[0]");
    parse_refused(HEAD "\"scene\":1,\"scenes\":[{\"nodes\":[]}]}", "scene");

    /* A matrix is decomposed into TRS. */
    ct_gltf_t *doc = parse(HEAD "\"nodes\":[{\"matrix\":[2,0,0,0, 0,0,2,0, 0,-2,0,0, 5,6,7,1]}]}");
    if (!doc)
        fail_msg("%s", err);
    const ct_gltf_node_t *n = &doc->nodes[0];
    assert_true(n->has_matrix);
    assert_float_equal(n->scale[0], 2, 1e-6);
    assert_float_equal(n->scale[1], 2, 1e-6);
    assert_float_equal(n->translation[2], 7, 0);
    assert_float_equal(n->rotation[0], sqrtf(0.5f), 1e-6); /* 90 degrees about x */
    assert_float_equal(n->rotation[3], sqrtf(0.5f), 1e-6);
    ct_gltf_free(doc);
}

/* Issue 28: indices are read as integers. 0xFFFFFFFF read through float became index 0 and
 * passed the range check (indices over 2^24 were rounded). Three vertices, indices 0 1 0xFFFFFFFF. */
#define TRI_BUF                                                                                    \
    "\"buffers\":[{\"byteLength\":48,\"uri\":\"data:application/octet-stream;base64,"              \
    "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAEAAAD/////\"}],"                        \
    "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,"           \
    "\"byteLength\":12}],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,"     \
    "\"type\":\"VEC3\"},{\"bufferView\":1,\"componentType\":5125,\"count\":3,\"type\":\"SCALAR\"}" \
    "],"

static void indices_are_read_exactly(void **state)
{
    (void)state;
    parse_refused(HEAD TRI_BUF "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},"
                               "\"indices\":1}]}]}",
                  "element 2 is 4294967295");
}

/* Issue 28: primitives naming one accessor share one decoded array, and the vertex limit holds
 * over all primitives before anything is decoded (a small file naming one accessor from a
 * great many primitives made a copy for each). */
static void shared_accessors_decode_once_within_the_limit(void **state)
{
    (void)state;
    enum { FEW = 50, MANY = 90000 }; /* MANY x 198 vertices passes GLTF_MAX_VERTICES */
    const size_t cap = (size_t)MANY * 48 + 8192;
    char *json = malloc(cap);
    for (int round = 0; round < 2; round++) {
        const int n = round ? MANY : FEW;
        size_t at = (size_t)snprintf(json, cap,
                                     HEAD "\"buffers\":[{\"byteLength\":2376,\"uri\":"
                                          "\"data:application/octet-stream;base64,");
        for (int k = 0; k < 792; k++)
            at += (size_t)snprintf(json + at, cap - at, "AAAA");
        at += (size_t)snprintf(
            json + at, cap - at,
            "\"}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":2376}],"
            "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":198,"
            "\"type\":\"VEC3\"}],\"meshes\":[{\"primitives\":[");
        for (int k = 0; k < n; k++)
            at += (size_t)snprintf(json + at, cap - at, "%s{\"attributes\":{\"POSITION\":0}}",
                                   k ? "," : "");
        snprintf(json + at, cap - at, "]}]}");
        ct_gltf_t *doc = parse(json);
        if (!round) {
            if (!doc)
                fail_msg("%s", err);
            assert_int_equal(doc->meshes[0].num_primitives, FEW);
            for (int k = 1; k < FEW; k++)
                assert_ptr_equal(doc->meshes[0].primitives[k].positions,
                                 doc->meshes[0].primitives[0].positions);
            ct_gltf_free(doc);
        } else {
            assert_null(doc);
            assert_non_null(strstr(err, "more than 16777216 vertices"));
        }
    }
    free(json);
}

/* Issue 28: a FIFO where a glTF's .bin (or the .gltf itself) should be is refused at once. */
static void a_fifo_is_refused(void **state)
{
    (void)state;
    char dir[] = "/tmp/ct-gltf-fifo-XXXXXX", path[96];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/m.bin", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    static const char json[] = HEAD "\"buffers\":[{\"byteLength\":36,\"uri\":\"m.bin\"}]}";
    err[0] = '\0';
    assert_null(ct_gltf_parse(json, strlen(json), "fifo.gltf", dir, NULL, err, sizeof err));
    assert_non_null(strstr(err, "not a regular file"));
    assert_null(ct_gltf_load_file(path, NULL, err, sizeof err));
    unlink(path);
    rmdir(dir);
}

/* Key times 0 1, values 0 and 10 as a STEP and a LINEAR scalar (weights), and a CUBICSPLINE
 * with tangents. */
static void samplers(void **state)
{
    (void)state;
    /* floats: times 0 1 | values 0 10 | cubic: (in 0, v 0, out 30) (in 30, v 10, out 0) */
    static const float data[] = {0, 1, 0, 10, 0, 0, 30, 30, 10, 0};
    char b64[128], json[2048];
    static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const uint8_t *bytes = (const uint8_t *)data;
    size_t k = 0;
    for (size_t i = 0; i < sizeof data; i += 3) {
        const uint32_t v = (uint32_t)bytes[i] << 16 |
                           (uint32_t)(i + 1 < sizeof data ? bytes[i + 1] : 0) << 8 |
                           (i + 2 < sizeof data ? bytes[i + 2] : 0);
        b64[k++] = tbl[v >> 18], b64[k++] = tbl[(v >> 12) & 63];
        b64[k++] = i + 1 < sizeof data ? tbl[(v >> 6) & 63] : '=';
        b64[k++] = i + 2 < sizeof data ? tbl[v & 63] : '=';
    }
    b64[k] = '\0';
    snprintf(
        json, sizeof json,
        HEAD
        "\"nodes\":[{}],\"buffers\":[{\"byteLength\":40,\"uri\":\"data:x;base64,%s\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":40}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
        "{\"bufferView\":0,\"byteOffset\":8,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"}"
        ","
        "{\"bufferView\":0,\"byteOffset\":16,\"componentType\":5126,\"count\":6,\"type\":"
        "\"SCALAR\"}],"
        "\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"weights\"}"
        "},"
        "{\"sampler\":1,\"target\":{\"node\":0,\"path\":\"weights\"}},"
        "{\"sampler\":2,\"target\":{\"node\":0,\"path\":\"weights\"}}],"
        "\"samplers\":[{\"input\":0,\"output\":1,\"interpolation\":\"STEP\"},"
        "{\"input\":0,\"output\":1},{\"input\":0,\"output\":2,\"interpolation\":\"CUBICSPLINE\"}]}]"
        "}",
        b64);
    ct_gltf_t *doc = parse(json);
    if (!doc)
        fail_msg("%s", err);
    const ct_gltf_sampler_t *s = doc->animations[0].samplers;
    float v;
    ct_gltf_sample(&s[0], CT_GLTF_WEIGHTS, 0.9f, &v);
    assert_float_equal(v, 0, 0);
    ct_gltf_sample(&s[1], CT_GLTF_WEIGHTS, 0.25f, &v);
    assert_float_equal(v, 2.5f, 1e-6);
    /* Hermite at u = 0.5: 0.5 * 0 + 0.125 * 30 + 0.5 * 10 - 0.125 * 30 = 5; at 0.25:
     * h10 = 0.140625, h01 = 0.15625, h11 = -0.046875 -> 4.21875 + 1.5625 - 1.40625 */
    ct_gltf_sample(&s[2], CT_GLTF_WEIGHTS, 0.5f, &v);
    assert_float_equal(v, 5.0f, 1e-5);
    ct_gltf_sample(&s[2], CT_GLTF_WEIGHTS, 0.25f, &v);
    assert_float_equal(v, 4.375f, 1e-5);
    ct_gltf_free(doc);

    /* A cubic sampler needs three outputs per key; times must increase. */
    char *cubic = strstr(json, "\"output\":2");
    cubic[9] = '1';
    parse_refused(json, "animations[0].samplers[2].output");
}

static void glb_framing(void **state)
{
    (void)state;
    uint8_t glb[64] = "glTF";
    const char *json = "{\"asset\":{\"version\":\"2.0\"}}   ";
    const uint32_t len = (uint32_t)strlen(json);
    uint32_t header[5] = {0x46546c67u, 2, 20 + len, len, 0x4e4f534au};
    memcpy(glb, header, sizeof header);
    memcpy(glb + 20, json, len);
    ct_gltf_t *doc = ct_gltf_parse(glb, 20 + len, "x.glb", NULL, NULL, err, sizeof err);
    if (!doc)
        fail_msg("%s", err);
    ct_gltf_free(doc);
    header[2] = 21 + len; /* length disagrees with the size */
    memcpy(glb, header, sizeof header);
    assert_null(ct_gltf_parse(glb, 20 + len, "x.glb", NULL, NULL, err, sizeof err));
    assert_non_null(strstr(err, "GLB header"));
    header[2] = 20 + len, header[3] = len + 100; /* chunk past the end */
    memcpy(glb, header, sizeof header);
    assert_null(ct_gltf_parse(glb, 20 + len, "x.glb", NULL, NULL, err, sizeof err));
    assert_non_null(strstr(err, "GLB chunk 0"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(simple_skin),
        cmocka_unit_test(box_three_containers),
        cmocka_unit_test(tangents),
        cmocka_unit_test(files_read_are_listed_once),
        cmocka_unit_test(broken_files),
        cmocka_unit_test(hand_made_documents),
        cmocka_unit_test(samplers),
        cmocka_unit_test(glb_framing),
        cmocka_unit_test(indices_are_read_exactly),
        cmocka_unit_test(shared_accessors_decode_once_within_the_limit),
        cmocka_unit_test(a_fifo_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
