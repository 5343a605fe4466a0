/* gltf_buffers.c: buffers (files, data URIs, the GLB chunk), buffer views and accessors, all
 * bounds-checked before anything reads through them. */
#include "gltf_internal.h"

#include "ct_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* External files larger than this are refused rather than read (a 1 GB mesh is not a mesh). */
#define GLTF_MAX_FILE ((size_t)1 << 30)

enum {
    GLTF_BYTE = 5120,
    GLTF_UNSIGNED_BYTE = 5121,
    GLTF_SHORT = 5122,
    GLTF_UNSIGNED_SHORT = 5123,
    GLTF_UNSIGNED_INT = 5125,
    GLTF_FLOAT = 5126,
};

static int base64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+' || c == '-')
        return 62;
    if (c == '/' || c == '_')
        return 63;
    return -1;
}

static bool decode_base64(gltf__reader *r, const char *text, const char *where, uint8_t **out,
                          size_t *size)
{
    size_t len = strlen(text);
    while (len && text[len - 1] == '=')
        len--;
    uint8_t *d = formats__alloc(&r->arena, len / 4 * 3 + 3);
    if (!d)
        return gltf__nomem(r, where);
    uint32_t acc = 0;
    size_t n = 0, bits = 0;
    for (size_t i = 0; i < len; i++) {
        const int v = base64_value((unsigned char)text[i]);
        if (v < 0)
            return gltf__fail(r, "%s: byte %zu of the base64 data is not base64", where, i);
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            d[n++] = (uint8_t)(acc >> bits);
        }
    }
    *out = d;
    *size = n;
    return true;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Percent-decodes a relative uri and checks that it stays inside the document's folder. */
static bool file_path(gltf__reader *r, const char *uri, const char *where, char **out)
{
    const size_t len = strlen(uri);
    char *p = formats__alloc(&r->arena, len + 1);
    if (!p)
        return gltf__nomem(r, where);
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (uri[i] == '%') {
            /* The terminating NUL is no hex digit, so neither read passes the end. */
            const int hi = hex_value(uri[i + 1]);
            const int lo = hi >= 0 ? hex_value(uri[i + 2]) : -1;
            if (lo < 0)
                return gltf__fail(r, "%s: bad percent escape in \"%s\"", where, uri);
            p[n++] = (char)(hi * 16 + lo);
            i += 2;
        } else {
            p[n++] = uri[i];
        }
    }
    p[n] = '\0';
    if (n == 0 || strlen(p) != n || p[0] == '/' || strchr(p, '\\') || strchr(p, ':'))
        return gltf__fail(r, "%s: \"%s\" is not a relative path inside the document's folder",
                          where, uri);
    /* Segments are copied down in place, leaving out "." and empty ones ("./a//b" is "a/b"), so
     * one file has one spelling in ct_gltf_t.files. */
    size_t kept = 0;
    for (const char *s = p; *s;) {
        const char *slash = strchr(s, '/');
        const size_t seg = slash ? (size_t)(slash - s) : strlen(s);
        if (seg == 2 && s[0] == '.' && s[1] == '.')
            return gltf__fail(r, "%s: \"%s\" reaches outside the document's folder", where, uri);
        if (seg && !(seg == 1 && s[0] == '.')) {
            if (kept)
                p[kept++] = '/';
            memmove(p + kept, s, seg);
            kept += seg;
        }
        s += seg + (slash ? 1 : 0);
    }
    if (kept == 0)
        return gltf__fail(r, "%s: \"%s\" names the document's folder, not a file", where, uri);
    p[kept] = '\0';
    *out = p;
    return true;
}

/* Notes a file read into doc->files, once. */
static void note_file(gltf__reader *r, const char *rel)
{
    for (uint32_t i = 0; i < r->doc->num_files; i++)
        if (strcmp(r->files[i], rel) == 0)
            return;
    r->files[r->doc->num_files++] = rel;
}

/* The reader's arena as an allocator for ct_file_read: a block lives until the arena is freed
 * (a block given back is left there). */
static void *arena_realloc(ct_allocator_t *a, void *p, size_t old_size, size_t new_size,
                           const char *file, uint32_t line)
{
    (void)old_size, (void)file, (void)line;
    return p || !new_size ? NULL : formats__alloc((formats__arena *)(void *)a->inst, new_size);
}

static bool read_file(gltf__reader *r, const char *rel, const char *where, const uint8_t **data,
                      size_t *size)
{
    if (!r->dir)
        return gltf__fail(r, "%s: external file \"%s\" cannot be read here (no folder given)",
                          where, rel);
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", r->dir, rel) >= sizeof path)
        return gltf__fail(r, "%s: the path of \"%s\" is too long", where, rel);
    ct_allocator_t arena = {(ct_allocator_o *)(void *)&r->arena, arena_realloc};
    char why[4200];
    size_t len;
    uint8_t *d = ct_file_read(path, &arena, GLTF_MAX_FILE, &len, why, sizeof why);
    if (!d) {
        /* ct_file_read's reason starts with the path, which `where` and `rel` say already. */
        const char *reason = why + strlen(path) + 2;
        if (strncmp(reason, "cannot open: ", 13) == 0)
            return gltf__fail(r, "%s: cannot open \"%s\": %s", where, rel, reason + 13);
        return gltf__fail(r, "%s: \"%s\": %s", where, rel, reason);
    }
    if (r->files)
        note_file(r, rel);
    *data = d;
    *size = len;
    return true;
}

bool gltf__read_uri(gltf__reader *r, const char *uri, const char *where, const uint8_t **data,
                    size_t *size, const char **path_out)
{
    if (strncmp(uri, "data:", 5) == 0) {
        const char *comma = strchr(uri, ',');
        if (!comma || comma - uri < 12 || strncmp(comma - 7, ";base64", 7) != 0)
            return gltf__fail(r, "%s: a data URI must be base64 (\"data:<type>;base64,...\")",
                              where);
        uint8_t *d = NULL;
        if (!decode_base64(r, comma + 1, where, &d, size))
            return false;
        *data = d;
        return true;
    }
    char *rel = NULL;
    if (!file_path(r, uri, where, &rel))
        return false;
    if (path_out) {
        *path_out = rel;
        *data = NULL;
        *size = 0;
        return true;
    }
    return read_file(r, rel, where, data, size);
}

bool gltf__read_buffers(gltf__reader *r)
{
    const cJSON *list;
    if (!gltf__top_count(r, "buffers", &r->num_buffers) ||
        !gltf__array(r, r->root, "buffers", "document", &list))
        return false;
    r->buffer_data = formats__alloc_array(&r->arena, r->num_buffers + 1u, sizeof *r->buffer_data);
    r->buffer_size = formats__alloc_array(&r->arena, r->num_buffers + 1u, sizeof *r->buffer_size);
    r->files = formats__alloc_array(&r->arena, r->num_buffers + 1u, sizeof *r->files);
    if (!r->buffer_data || !r->buffer_size || !r->files)
        return gltf__nomem(r, "buffers");
    r->doc->files = r->files;
    uint32_t i = 0;
    for (const cJSON *b = list ? list->child : NULL; b; b = b->next, i++) {
        char where[GLTF_WHERE];
        gltf__where(where, "buffers[%u]", i);
        if (!cJSON_IsObject(b))
            return gltf__fail(r, "%s: expected an object", where);
        uint32_t length;
        const char *uri;
        if (!gltf__uint(r, b, "byteLength", where, true, 0, INT32_MAX, &length) ||
            !gltf__string(r, b, "uri", where, NULL, &uri))
            return false;
        const uint8_t *data = NULL;
        size_t size = 0;
        char uri_where[GLTF_WHERE];
        gltf__where(uri_where, "%s.uri", where);
        if (uri) {
            if (!gltf__read_uri(r, uri, uri_where, &data, &size, NULL))
                return false;
        } else if (i == 0 && r->glb_bin) {
            data = r->glb_bin;
            size = r->glb_bin_size;
        } else {
            return gltf__fail(r, "%s: missing (only buffer 0 of a .glb may leave it out)",
                              uri_where);
        }
        if (size < length)
            return gltf__fail(r, "%s.byteLength: %u bytes declared, but the data holds %zu", where,
                              length, size);
        r->buffer_data[i] = data;
        r->buffer_size[i] = length;
    }
    return true;
}

bool gltf__read_views(gltf__reader *r)
{
    const cJSON *list;
    if (!gltf__top_count(r, "bufferViews", &r->num_views) ||
        !gltf__array(r, r->root, "bufferViews", "document", &list))
        return false;
    r->views = formats__alloc_array(&r->arena, r->num_views + 1u, sizeof *r->views);
    if (!r->views)
        return gltf__nomem(r, "bufferViews");
    uint32_t i = 0;
    for (const cJSON *v = list ? list->child : NULL; v; v = v->next, i++) {
        char where[GLTF_WHERE];
        gltf__where(where, "bufferViews[%u]", i);
        if (!cJSON_IsObject(v))
            return gltf__fail(r, "%s: expected an object", where);
        uint32_t buffer, offset, length, stride;
        if (!gltf__uint(r, v, "buffer", where, true, 0, INT32_MAX, &buffer) ||
            !gltf__uint(r, v, "byteOffset", where, false, 0, INT32_MAX, &offset) ||
            !gltf__uint(r, v, "byteLength", where, true, 0, INT32_MAX, &length) ||
            !gltf__uint(r, v, "byteStride", where, false, 0, 252, &stride))
            return false;
        if (buffer >= r->num_buffers)
            return gltf__fail(r, "%s.buffer: %u is out of range (the document has %u buffers)",
                              where, buffer, r->num_buffers);
        if (length == 0)
            return gltf__fail(r, "%s.byteLength: must be at least 1", where);
        if ((uint64_t)offset + length > r->buffer_size[buffer])
            return gltf__fail(r, "%s: bytes %u..%llu lie outside buffers[%u] (byteLength %zu)",
                              where, offset, (unsigned long long)offset + length, buffer,
                              r->buffer_size[buffer]);
        if (stride && (stride < 4 || stride % 4))
            return gltf__fail(r, "%s.byteStride: %u is not a multiple of 4 in 4..252", where,
                              stride);
        r->views[i] = (gltf__view){buffer, offset, length, stride};
    }
    return true;
}

static uint32_t component_size(uint32_t type)
{
    switch (type) {
    case GLTF_BYTE:
    case GLTF_UNSIGNED_BYTE: return 1;
    case GLTF_SHORT:
    case GLTF_UNSIGNED_SHORT: return 2;
    case GLTF_UNSIGNED_INT:
    case GLTF_FLOAT: return 4;
    default: return 0;
    }
}

static const struct {
    const char *name;
    uint32_t components, rows;
} accessor_types[] = {
    {"SCALAR", 1, 1}, {"VEC2", 2, 2}, {"VEC3", 3, 3},  {"VEC4", 4, 4},
    {"MAT2", 4, 2},   {"MAT3", 9, 3}, {"MAT4", 16, 4},
};

/* Byte offset of component k inside an element: matrix columns start on 4-byte boundaries. */
static size_t component_offset(const gltf__accessor *a, uint32_t k)
{
    const size_t cs = component_size(a->component_type);
    const size_t column = (a->rows * cs + 3) / 4 * 4;
    return a->rows == a->components ? k * cs : (k / a->rows) * column + (k % a->rows) * cs;
}

static bool read_accessor(gltf__reader *r, const cJSON *j, const char *where, gltf__accessor *a)
{
    uint32_t view, offset, type, count;
    const char *kind;
    const cJSON *norm = gltf__member(j, "normalized");
    if (!gltf__uint(r, j, "bufferView", where, false, UINT32_MAX, INT32_MAX, &view) ||
        !gltf__uint(r, j, "byteOffset", where, false, 0, INT32_MAX, &offset) ||
        !gltf__uint(r, j, "componentType", where, true, 0, UINT32_MAX, &type) ||
        !gltf__uint(r, j, "count", where, true, 0, INT32_MAX, &count) ||
        !gltf__string(r, j, "type", where, NULL, &kind))
        return false;
    if (norm && !cJSON_IsBool(norm))
        return gltf__fail(r, "%s.normalized: expected a boolean", where);
    const uint32_t cs = component_size(type);
    if (!cs)
        return gltf__fail(r,
                          "%s.componentType: %u is not one of 5120, 5121, 5122, 5123, 5125, "
                          "5126",
                          where, type);
    if (!kind)
        return gltf__fail(r, "%s.type: missing", where);
    *a = (gltf__accessor){.count = count, .component_type = type, .normalized = cJSON_IsTrue(norm)};
    for (size_t t = 0; t < sizeof accessor_types / sizeof accessor_types[0]; t++)
        if (strcmp(kind, accessor_types[t].name) == 0) {
            a->components = accessor_types[t].components;
            a->rows = accessor_types[t].rows;
        }
    if (!a->components)
        return gltf__fail(r, "%s.type: \"%s\" is not SCALAR, VEC2..4 or MAT2..4", where, kind);
    if (count == 0)
        return gltf__fail(r, "%s.count: must be at least 1", where);
    if (a->normalized && (type == GLTF_FLOAT || type == GLTF_UNSIGNED_INT))
        return gltf__fail(r, "%s.normalized: only byte and short components can be normalized",
                          where);
    if (gltf__member(j, "sparse"))
        return gltf__fail(r, "%s.sparse: sparse accessors are not supported", where);
    if (view == UINT32_MAX)
        return gltf__fail(r, "%s.bufferView: missing (zero-filled accessors are not supported)",
                          where);
    if (view >= r->num_views)
        return gltf__fail(r,
                          "%s.bufferView: %u is out of range (the document has %u buffer "
                          "views)",
                          where, view, r->num_views);
    const gltf__view *v = &r->views[view];
    const size_t element = component_offset(a, a->components - 1) + cs;
    a->stride = v->stride ? v->stride : element;
    if (v->stride && v->stride < element)
        return gltf__fail(r, "%s: elements of %zu bytes do not fit bufferViews[%u].byteStride %u",
                          where, element, view, v->stride);
    if ((offset + v->offset) % cs)
        return gltf__fail(r, "%s.byteOffset: %u is not aligned to its %u-byte components", where,
                          offset, cs);
    const uint64_t end = (uint64_t)offset + (uint64_t)a->stride * (count - 1u) + element;
    if (end > v->length)
        return gltf__fail(r,
                          "%s.count: %u elements of %zu bytes from byteOffset %u need %llu "
                          "bytes, but bufferViews[%u] has %zu",
                          where, count, element, offset, (unsigned long long)end, view, v->length);
    a->base = r->buffer_data[v->buffer] + v->offset + offset;
    return true;
}

bool gltf__read_accessors(gltf__reader *r)
{
    const cJSON *list;
    if (!gltf__top_count(r, "accessors", &r->num_accessors) ||
        !gltf__array(r, r->root, "accessors", "document", &list))
        return false;
    r->accessors = formats__alloc_array(&r->arena, r->num_accessors + 1u, sizeof *r->accessors);
    r->decoded = formats__alloc_array(&r->arena, r->num_accessors + 1u, sizeof *r->decoded);
    if (!r->accessors || !r->decoded)
        return gltf__nomem(r, "accessors");
    uint32_t i = 0;
    for (const cJSON *a = list ? list->child : NULL; a; a = a->next, i++) {
        char where[GLTF_WHERE];
        gltf__where(where, "accessors[%u]", i);
        if (!cJSON_IsObject(a))
            return gltf__fail(r, "%s: expected an object", where);
        if (!read_accessor(r, a, where, &r->accessors[i]))
            return false;
    }
    return true;
}

float gltf__component(const gltf__accessor *a, uint32_t i, uint32_t k)
{
    const uint8_t *p = a->base + (size_t)i * a->stride + component_offset(a, k);
    switch (a->component_type) {
    case GLTF_BYTE: {
        const float v = (float)(int8_t)p[0];
        return a->normalized ? fmaxf(v / 127.0f, -1.0f) : v;
    }
    case GLTF_UNSIGNED_BYTE: return a->normalized ? p[0] / 255.0f : p[0];
    case GLTF_SHORT: {
        int16_t s;
        memcpy(&s, p, 2);
        return a->normalized ? fmaxf(s / 32767.0f, -1.0f) : s;
    }
    case GLTF_UNSIGNED_SHORT: {
        uint16_t s;
        memcpy(&s, p, 2);
        return a->normalized ? s / 65535.0f : s;
    }
    case GLTF_UNSIGNED_INT: {
        uint32_t u;
        memcpy(&u, p, 4);
        return (float)u;
    }
    default: {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    }
}

uint32_t gltf__component_uint(const gltf__accessor *a, uint32_t i, uint32_t k)
{
    const uint8_t *p = a->base + (size_t)i * a->stride + component_offset(a, k);
    if (a->component_type == GLTF_UNSIGNED_BYTE)
        return p[0];
    if (a->component_type == GLTF_UNSIGNED_SHORT) {
        uint16_t s;
        memcpy(&s, p, 2);
        return s;
    }
    uint32_t u;
    memcpy(&u, p, 4);
    return u;
}

bool gltf__float_like(const gltf__accessor *a, bool allow_signed)
{
    if (a->component_type == GLTF_FLOAT)
        return true;
    if (!a->normalized)
        return false;
    return a->component_type == GLTF_UNSIGNED_BYTE || a->component_type == GLTF_UNSIGNED_SHORT ||
           (allow_signed && (a->component_type == GLTF_BYTE || a->component_type == GLTF_SHORT));
}

bool gltf__decode_floats(gltf__reader *r, uint32_t index, const char *where, float **out)
{
    const gltf__accessor *a = &r->accessors[index];
    if (r->decoded[index]) {
        *out = r->decoded[index]; /* read-only to every user: one decode serves them all */
        return true;
    }
    float *d = formats__alloc_array(&r->arena, (size_t)a->count * a->components, sizeof *d);
    if (!d)
        return gltf__nomem(r, where);
    for (uint32_t i = 0; i < a->count; i++)
        for (uint32_t k = 0; k < a->components; k++) {
            const float v = gltf__component(a, i, k);
            if (!isfinite(v))
                return gltf__fail(r, "%s: accessors[%u] element %u component %u is %s", where,
                                  index, i, k, isnan(v) ? "NaN" : "infinite");
            d[(size_t)i * a->components + k] = v;
        }
    r->decoded[index] = d;
    *out = d;
    return true;
}
