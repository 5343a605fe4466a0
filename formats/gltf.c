/* gltf.c: the reader's entry points: files, the GLB container, the JSON root, and the order in
 * which the parts of a document are read (each part only refers to parts read before it or to
 * counts known up front). */
#include "gltf_internal.h"

#include "ct_file.h"
#include "ct_heap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GLB_MAGIC 0x46546c67u      /* "glTF" */
#define GLB_CHUNK_JSON 0x4e4f534au /* "JSON" */
#define GLB_CHUNK_BIN 0x004e4942u  /* "BIN\0" */
#define GLTF_MAX_DOCUMENT ((size_t)1 << 30)

/* The document and the arena that holds it, so ct_gltf_free finds the arena. */
typedef struct gltf__holder {
    ct_gltf_t doc;
    formats__arena arena;
} gltf__holder;

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Finds the JSON text and the BIN chunk of a .glb. */
static bool read_glb(gltf__reader *r, const uint8_t *b, size_t size, const char **json,
                     size_t *json_len)
{
    if (size < 20)
        return gltf__fail(r, "GLB header: %zu bytes is too short for a header and a chunk", size);
    if (le32(b + 4) != 2)
        return gltf__fail(r, "GLB header: version %u is not 2", le32(b + 4));
    if (le32(b + 8) != size)
        return gltf__fail(r, "GLB header: length says %u bytes, the file has %zu", le32(b + 8),
                          size);
    *json = NULL;
    uint32_t index = 0;
    for (size_t at = 12; at < size; index++) {
        if (size - at < 8)
            return gltf__fail(r, "GLB chunk %u: header cut short at byte %zu", index, at);
        const uint32_t len = le32(b + at), type = le32(b + at + 4);
        if (len > size - at - 8)
            return gltf__fail(r, "GLB chunk %u: length %u runs past the end of the file", index,
                              len);
        if (index == 0 && type != GLB_CHUNK_JSON)
            return gltf__fail(r, "GLB chunk 0: must be the JSON chunk");
        if (index == 0) {
            *json = (const char *)b + at + 8;
            *json_len = len;
        } else if (index == 1 && type == GLB_CHUNK_BIN) {
            /* Copied, so images in the chunk outlive the caller's bytes. */
            uint8_t *bin = formats__alloc(&r->arena, len + 1u);
            if (!bin)
                return gltf__nomem(r, "GLB chunk 1");
            memcpy(bin, b + at + 8, len);
            r->glb_bin = bin;
            r->glb_bin_size = len;
        } /* other chunks are skipped, as the specification asks */
        at += 8 + (size_t)len;
    }
    return true;
}

/* "line L, column C" of a byte offset, for JSON syntax errors. */
static void position_of(const char *text, size_t offset, int *line, int *column)
{
    *line = 1, *column = 1;
    for (size_t i = 0; i < offset; i++) {
        if (text[i] == '\n')
            (*line)++, *column = 1;
        else
            (*column)++;
    }
}

static bool check_asset(gltf__reader *r)
{
    const cJSON *asset, *required;
    const char *version = NULL;
    if (!gltf__object(r, r->root, "asset", "document", &asset))
        return false;
    if (!asset)
        return gltf__fail(r, "asset: missing (every glTF document has one)");
    if (!gltf__string(r, asset, "version", "asset", NULL, &version))
        return false;
    if (!version || strncmp(version, "2.", 2) != 0)
        return gltf__fail(r, "asset.version: \"%s\" is not glTF 2.x", version ? version : "");
    if (!gltf__array(r, r->root, "extensionsRequired", "document", &required))
        return false;
    for (const cJSON *e = required ? required->child : NULL; e; e = e->next)
        return gltf__fail(
            r, "extensionsRequired: %s%s%s is not supported", cJSON_IsString(e) ? "\"" : "",
            cJSON_IsString(e) ? e->valuestring : "an entry", cJSON_IsString(e) ? "\"" : "");
    return true;
}

static bool read_document(gltf__reader *r)
{
    ct_gltf_t *d = r->doc;
    return check_asset(r) && gltf__check_generic_fields(r) &&
           gltf__top_count(r, "nodes", &d->num_nodes) &&
           gltf__top_count(r, "meshes", &d->num_meshes) &&
           gltf__top_count(r, "materials", &d->num_materials) &&
           gltf__top_count(r, "textures", &d->num_textures) &&
           gltf__top_count(r, "images", &d->num_images) &&
           gltf__top_count(r, "skins", &d->num_skins) &&
           gltf__top_count(r, "animations", &d->num_animations) &&
           gltf__top_count(r, "samplers", &r->num_samplers) && gltf__read_buffers(r) &&
           gltf__read_views(r) && gltf__read_accessors(r) && gltf__read_materials(r) &&
           gltf__read_meshes(r) && gltf__read_skins(r) && gltf__read_nodes(r) &&
           gltf__read_scene(r) && gltf__read_animations(r);
}

ct_gltf_t *ct_gltf_parse(const void *bytes, size_t size, const char *name, const char *dir,
                         ct_allocator_t *a, char *err, size_t err_size)
{
    gltf__reader r = {.arena = {.allocator = a},
                      .name = name ? name : "(glTF)",
                      .dir = dir,
                      .err = err,
                      .err_size = err_size};
    if (err && err_size)
        err[0] = '\0';
    gltf__holder *h = formats__alloc(&r.arena, sizeof *h);
    if (!h) {
        gltf__nomem(&r, "document");
        return NULL;
    }
    r.doc = &h->doc;
    h->doc.name = formats__strndup(&r.arena, r.name, strlen(r.name));
    const char *json = bytes;
    size_t json_len = size;
    const bool glb = size >= 4 && le32(bytes) == GLB_MAGIC;
    bool ok = h->doc.name && (!glb || read_glb(&r, bytes, size, &json, &json_len));
    cJSON *root = NULL;
    if (!h->doc.name) {
        gltf__nomem(&r, "document");
    } else if (ok) {
        const char *end = NULL;
        root = cJSON_ParseWithLengthOpts(json, json_len, &end, false);
        if (!root) {
            int line, column;
            const size_t at =
                end && end >= json && end <= json + json_len ? (size_t)(end - json) : 0;
            position_of(json, at, &line, &column);
            ok = gltf__fail(&r, "line %d, column %d: not valid JSON", line, column);
        } else if (!cJSON_IsObject(root)) {
            ok = gltf__fail(&r, "document: the top level must be a JSON object");
        } else {
            r.root = root;
            ok = read_document(&r);
        }
    }
    cJSON_Delete(root);
    if (!ok) {
        formats__arena_free(&r.arena);
        return NULL;
    }
    h->arena = r.arena;
    return &h->doc;
}

ct_gltf_t *ct_gltf_load_file(const char *path, ct_allocator_t *a, char *err, size_t err_size)
{
    size_t len;
    uint8_t *bytes =
        ct_file_read(path, ct_heap_allocator(), GLTF_MAX_DOCUMENT, &len, err, err_size);
    if (!bytes)
        return NULL;
    /* External buffers live beside the document. */
    char dir[4096];
    const char *slash = strrchr(path, '/');
    const size_t dir_len = slash ? (size_t)(slash - path) : 1;
    if (dir_len >= sizeof dir) {
        ct_free(ct_heap_allocator(), bytes, len + 1);
        snprintf(err, err_size, "%s: path too long", path);
        return NULL;
    }
    memcpy(dir, slash ? path : ".", dir_len);
    dir[dir_len] = '\0';
    ct_gltf_t *doc = ct_gltf_parse(bytes, len, path, dir, a, err, err_size);
    ct_free(ct_heap_allocator(), bytes, len + 1);
    return doc;
}

bool ct_gltf_file_path(const char *document, const char *file, char *out, size_t out_size)
{
    const char *slash = strrchr(document, '/');
    const int folder = slash ? (int)(slash - document) + 1 : 0;
    const int n = snprintf(out, out_size, "%.*s%s", folder, document, file);
    return n >= 0 && (size_t)n < out_size;
}

void ct_gltf_free(ct_gltf_t *doc)
{
    if (!doc)
        return;
    formats__arena arena = ((gltf__holder *)doc)->arena;
    formats__arena_free(&arena);
}
