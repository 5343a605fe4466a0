/*
 * Fuzz target: collision meshes (modules/physics/physics_mesh_resource.c) from the project's
 * mesh resources, and the static bodies that name them. Structure-aware, so it needs no seed
 * files: the input's bytes make an OBJ file (vertices from a table of awkward numbers, faces,
 * lines and points whose indices may be zero, negative, out of range or repeated), or a glTF
 * (one eighth of the inputs: a mesh in a base64 buffer placed by nodes of awkward poses and
 * children), or, for every fourth input, are the OBJ file's text as they are, and sometimes the
 * mesh resource's own source instead. The collision mesh either is refused with a message, or
 * loads and a level whose static body names it spawns, with a ball and a box dropped on it that
 * simulate a few steps without a crash, a sanitizer report or a value out of range.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ct_entity.h"
#include "ct_physics.h"
#include "ct_resource.h"
#include "ct_world.h"
#include "fuzz_stream.h"
#include "test_kernel.h"

static const ct_resource_api_v1 *resource;
static const ct_world_api_v1 *worlds;
static const ct_entity_api_v2 *entity;
static const ct_physics_api_v4 *physics;
static char project[256];

static void shutdown_kernel(void)
{
    test_kernel_shutdown();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", project);
    if (system(cmd) != 0)
        fprintf(stderr, "fuzz_collision_mesh: could not remove %s\n", project);
}

static void write_file(const char *rel, const char *text, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", project, rel);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(text, 1, len, f) != len)
        abort();
    fclose(f);
}

static void boot(void)
{
    snprintf(project, sizeof project, "/tmp/cuttle_fuzz_mesh_XXXXXX");
    if (!mkdtemp(project))
        abort();
    char dir[300];
    snprintf(dir, sizeof dir, "%s/meshes", project);
    if (mkdir(dir, 0755))
        abort();
    write_file("project.sjson", "modules = []\n", 13);
    const char *paths[] = {CT_TEST_MODULE("entities", "ct_entities"),
                           CT_TEST_MODULE("transforms", "ct_transforms"),
                           CT_TEST_MODULE("physics", "ct_physics")};
    kernel_desc_t desc = test_kernel_desc(paths, 3);
    desc.project_dir = project;
    if (kernel__boot(&desc) != 0)
        abort();
    resource = test_kernel_api(CT_RESOURCE_API, 1);
    worlds = test_kernel_api(CT_WORLD_API, 1);
    entity = test_kernel_api(CT_ENTITY_API, 2);
    physics = test_kernel_api(CT_PHYSICS_API, 4);
    if (!resource || !worlds || !entity || !physics)
        abort();
    atexit(shutdown_kernel);
}

/* Coordinates: mostly plain ones (so most meshes build and get simulated), one in eight awkward. */
static const char *const plain[] = {"0",  "-1", "0.5", "1",    "3",    "2",   "-2",   "1.5",
                                    "-3", "4",  "-4",  "0.75", "-1.5", "2.5", "-2.5", "5"};
static const char *const awkward[] = {"1e4", "1e5",  "1e39",  "-0",   "2000", "1e-40",
                                      "nan", "1e-9", "0.001", "-7.5", "1e-4", "99999"};

static const char *number(fuzz_stream *r)
{
    const uint8_t k = fuzz_stream_next(r);
    return k % 8u ? plain[(k >> 3) % 16u] : awkward[(k >> 3) % 12u];
}

static void put(char *out, size_t room, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const int k = vsnprintf(out + *len, room - *len, fmt, ap);
    va_end(ap);
    if (k > 0 && (size_t)k < room - *len)
        *len += (size_t)k;
}

/* An OBJ of up to 16 vertices and 24 statements from the input. */
static size_t obj_text(fuzz_stream *r, char *out, size_t room)
{
    size_t len = 0;
    const uint32_t nv = 3u + fuzz_stream_next(r) % 14u, ns = 1u + fuzz_stream_next(r) % 24u;
    for (uint32_t k = 0; k < nv; k++)
        put(out, room, &len, "v %s %s %s\n", number(r), number(r), number(r));
    for (uint32_t k = 0; k < ns; k++) {
        const uint8_t what = fuzz_stream_next(r) % 8u;
        const char *kind = what < 6 ? "f" : what == 6 ? "l" : "p";
        const uint32_t corners = what < 6 ? 3u + (what == 5) : what == 6 ? 2u : 1u;
        put(out, room, &len, "%s", kind);
        for (uint32_t c = 0; c < corners; c++)
            put(out, room, &len, " %d",
                fuzz_stream_next(r) % 16u
                    ? (int)(1u + fuzz_stream_next(r) % nv)
                    : (int)(fuzz_stream_next(r) % (nv + 3u)) - (int)(fuzz_stream_next(r) % 3u) * (int)nv);
        put(out, room, &len, "\n");
    }
    return len;
}

static void base64(char *out, size_t room, size_t *len, const uint8_t *b, size_t n)
{
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t k = 0; k < n; k += 3) {
        const uint32_t v = (uint32_t)b[k] << 16 | (k + 1 < n ? (uint32_t)b[k + 1] << 8 : 0u) |
                           (k + 2 < n ? b[k + 2] : 0u);
        put(out, room, len, "%c%c%c%c", digits[v >> 18], digits[v >> 12 & 63],
            k + 1 < n ? digits[v >> 6 & 63] : '=', k + 2 < n ? digits[v & 63] : '=');
    }
}

/* A glTF of one mesh (up to 12 vertices, 8 triangles, in a base64 buffer) placed by up to 5
 * nodes whose children, meshes and poses (translations, rotations, scales, matrices of plain
 * and awkward numbers) come from the input: the scene walk and the node matrices of
 * physics_mesh_resource.c's gltf_gather. */
static size_t gltf_text(fuzz_stream *r, char *out, size_t room)
{
    const uint32_t nv = 3u + fuzz_stream_next(r) % 10u, ni = 3u * (1u + fuzz_stream_next(r) % 8u),
                   nn = 1u + fuzz_stream_next(r) % 5u;
    uint8_t buffer[12 * 12 + 2 * 24 + 2];
    for (uint32_t k = 0; k < 3u * nv; k++) {
        const float f = strtof(number(r), NULL);
        memcpy(buffer + 4u * k, &f, 4);
    }
    for (uint32_t k = 0; k < ni; k++) {
        const uint16_t i =
            (uint16_t)(fuzz_stream_next(r) % 16u ? fuzz_stream_next(r) % nv : fuzz_stream_next(r) % (nv + 3u));
        memcpy(buffer + 12u * nv + 2u * k, &i, 2);
    }
    const uint32_t bytes = 12u * nv + 2u * ni;
    size_t len = 0;
    put(out, room, &len,
        "{\"asset\": {\"version\": \"2.0\"}, \"scene\": 0, \"scenes\": [{\"nodes\": [0");
    for (uint32_t k = 1; k < nn; k++)
        if (fuzz_stream_next(r) % 4u == 0)
            put(out, room, &len, ", %u", k);
    put(out, room, &len, "]}], \"nodes\": [");
    for (uint32_t k = 0; k < nn; k++) {
        put(out, room, &len, "%s{", k ? ", " : "");
        const uint8_t what = fuzz_stream_next(r);
        if (what & 1)
            put(out, room, &len, "\"mesh\": %u, ", what & 2 ? 0u : fuzz_stream_next(r) % 3u);
        if (what & 4 && k + 1 < nn)
            put(out, room, &len, "\"children\": [%u], ", k + 1 + fuzz_stream_next(r) % (nn - k - 1));
        if (what & 8)
            put(out, room, &len, "\"translation\": [%s, %s, %s], ", number(r), number(r),
                number(r));
        if (what & 16)
            put(out, room, &len, "\"scale\": [%s, %s, %s], ", number(r), number(r), number(r));
        if (what & 32)
            put(out, room, &len, "\"rotation\": [%s, %s, %s, %s], ", number(r), number(r),
                number(r), number(r));
        if (what & 64) {
            put(out, room, &len, "\"matrix\": [");
            for (int m = 0; m < 16; m++)
                put(out, room, &len, "%s%s", m ? ", " : "",
                    fuzz_stream_next(r) % 4u ? (m % 5 == 0 ? "1"
                                         : m >= 12  ? number(r)
                                                    : "0")
                                      : number(r));
            put(out, room, &len, "], ");
        }
        put(out, room, &len, "\"name\": \"n%u\"}", k);
    }
    put(out, room, &len,
        "], \"meshes\": [{\"primitives\": [{\"attributes\": {\"POSITION\": 0}, "
        "\"indices\": 1, \"mode\": %u}]}], ",
        fuzz_stream_next(r) % 8u ? 4u : fuzz_stream_next(r) % 7u);
    put(out, room, &len,
        "\"accessors\": [{\"bufferView\": 0, \"componentType\": 5126, \"count\": %u, "
        "\"type\": \"VEC3\"}, {\"bufferView\": 1, \"componentType\": 5123, \"count\": %u, "
        "\"type\": \"SCALAR\"}], ",
        nv, ni);
    put(out, room, &len,
        "\"bufferViews\": [{\"buffer\": 0, \"byteLength\": %u}, {\"buffer\": 0, "
        "\"byteOffset\": %u, \"byteLength\": %u}], ",
        12u * nv, 12u * nv, 2u * ni);
    put(out, room, &len,
        "\"buffers\": [{\"byteLength\": %u, \"uri\": \"data:application/octet-stream;base64,",
        bytes);
    base64(out, room, &len, buffer, bytes);
    put(out, room, &len, "\"}]}\n");
    return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool booted;
    if (!booted) {
        boot();
        booted = true;
    }
    static char text[16384];
    fuzz_stream r = fuzz_stream_of(data, size);
    const uint8_t mode = fuzz_stream_next(&r);
    size_t len;
    if (mode % 8 == 5) {
        len = gltf_text(&r, text, sizeof text);
        write_file("meshes/f.gltf", text, len);
        /* the whole scene, or one mesh by its index (0, or one the file does not have) */
        const char *src = fuzz_stream_next(&r) % 2u   ? "source = \"meshes/f.gltf\"\n"
                          : fuzz_stream_next(&r) % 4u ? "source = \"meshes/f.gltf\" gltf_mesh = 0\n"
                                               : "source = \"meshes/f.gltf\" gltf_mesh = 1\n";
        write_file("meshes/f.mesh", src, strlen(src));
    } else {
        if (mode % 4 == 3) {
            len = size - 1 < sizeof text ? size - 1 : sizeof text;
            memcpy(text, data + 1, len);
        } else {
            len = obj_text(&r, text, sizeof text);
        }
        write_file("meshes/f.obj", text, len);
        if (mode % 16 == 15) /* the mesh resource's source itself, as the input has it */
            write_file("meshes/f.mesh", text, len);
        else
            write_file("meshes/f.mesh", "source = \"meshes/f.obj\"\n", 24);
    }
    static const char src[] = "mesh = \"meshes/f\"\n";
    if (resource->load_source("collision_mesh", "meshes/f", src, sizeof src - 1) != 0)
        return 0;
    char level[1024];
    snprintf(
        level, sizeof level,
        "entities = [\n"
        "  { components = { transform = { position = [%s 0 %s] }\n"
        "      body = { kind = \"static\" shape = { type = \"mesh\" mesh = \"meshes/f\" } } } }\n"
        "  { components = { transform = { position = [%s 2 %s] }\n"
        "      body = { shape = \"sphere\" radius = 0.5 rotates = true } } }\n"
        "  { components = { transform = { position = [%s 3 %s] }\n"
        "      body = { half_extents = [0.5 0.25 0.5] rotates = true } } }\n"
        "]\n",
        number(&r), number(&r), number(&r), number(&r), number(&r), number(&r));
    if (resource->load_source("level", "fuzz/mesh", level, strlen(level)) != 0) {
        resource->unload("collision_mesh", "meshes/f");
        return 0;
    }
    ct_world_o *w = worlds->create_world(&(ct_world_desc_t){.name = "fuzz"});
    ct_entity_t e[3];
    const int n = worlds->spawn_resource(w, resource->get("level", "fuzz/mesh"), NULL, NULL, e, 3);
    for (int step = 0; step < 5; step++)
        physics->simulate(w, 1.0f / 60.0f);
    for (int k = 0; k < n && k < 3; k++) {
        float p[3];
        if (physics->position(w, e[k], p) == 0 &&
            !(fabsf(p[0]) <= CT_PHYSICS_MAX_POSITION && fabsf(p[1]) <= CT_PHYSICS_MAX_POSITION &&
              fabsf(p[2]) <= CT_PHYSICS_MAX_POSITION))
            abort(); /* a body left the ranges */
    }
    (void)physics->state_hash(w);
    worlds->destroy_world(w);
    if (n > 0)
        entity->destroy_batch(e, (uint32_t)(n < 3 ? n : 3));
    resource->unload("level", "fuzz/mesh");
    resource->unload("collision_mesh", "meshes/f");
    return 0;
}
