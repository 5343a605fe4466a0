/*
 * obj.c: the OBJ reader (see obj.h). One pass over the lines collects the file's position,
 * texture and normal lists and the face corners; corners are then made unique with an open
 * addressing hash on (position, texture, normal) indices.
 */
#include "obj.h"

#include "ct_array.h"
#include "mesh_normals.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growable array of 4-byte items (floats or uint32). */
typedef struct obj_array {
    void *p;
    uint32_t n, cap;
} obj_array;

typedef struct obj_reader {
    ct_allocator_t *a;
    const char *name;
    uint32_t line;
    char *err;
    size_t err_size;
    obj_array v, vt, vn; /* 3, 2 and 3 floats per entry */
    obj_array corners;   /* 3 uint32 per corner: v, vt + 1, vn + 1 (0: none) */
} obj_reader;

static int fail(obj_reader *r, const char *fmt, ...)
{
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(r->err, r->err_size, "%s:%u: %s", r->name, r->line, what);
    return CT_ERR_BAD_DATA;
}

static bool push(obj_reader *r, obj_array *arr, const void *items, uint32_t count)
{
    if (count > UINT32_MAX - arr->n ||
        !ct_array_reserve(r->a, &arr->p, &arr->cap, arr->n + count, 4, 1024))
        return false;
    memcpy((char *)arr->p + (size_t)arr->n * 4, items, (size_t)count * 4);
    arr->n += count;
    return true;
}

static void drop(obj_reader *r, obj_array *arr)
{
    ct_free(r->a, arr->p, (size_t)arr->cap * 4);
    *arr = (obj_array){0};
}

/* A line copied into a NUL-terminated buffer so strtod/strtol cannot run past it. */
#define OBJ_LINE_MAX 4096

static const char *skip_space(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r')
        s++;
    return s;
}

/* Reads `want` numbers (and up to `optional` more, or fewer down to `least`), keeping `want`
 * of them: missing ones are 0. */
static int read_floats(obj_reader *r, const char *s, int want, int least, int optional,
                       obj_array *out)
{
    float f[4] = {0};
    int got = 0;
    for (s = skip_space(s); *s && got < want + optional; s = skip_space(s)) {
        char *end;
        const double d = strtod(s, &end);
        if (end == s)
            return fail(r, "'%.20s' is not a number", s);
        if (!isfinite(d) || fabs(d) > 3.0e38)
            return fail(r, "value %.20s is not a finite float", s);
        f[got++] = (float)d;
        s = end;
    }
    if (got < least || *s)
        return fail(r, least == want ? "expected %d numbers" : "expected %d to %d numbers", least,
                    want + optional);
    return push(r, out, f, (uint32_t)want) ? 0 : CT_ERR_NOMEM;
}

/* Resolves a 1-based (or negative, relative) index against a list of `count` entries. */
static int resolve(obj_reader *r, long idx, uint32_t count, const char *what, uint32_t *out)
{
    if (idx > 0 && (unsigned long)idx <= count) {
        *out = (uint32_t)idx - 1;
        return 0;
    }
    /* The magnitude in unsigned arithmetic: -LONG_MIN does not exist as a long. */
    const unsigned long back = idx < 0 ? 0ul - (unsigned long)idx : 0;
    if (idx < 0 && back <= count) {
        *out = count - (uint32_t)back;
        return 0;
    }
    return fail(r, "%s index %ld is out of range (the file has %u so far)", what, idx, count);
}

static int read_corner(obj_reader *r, const char **sp, uint32_t corner[3])
{
    const char *s = *sp;
    char *end;
    long idx[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
        if (k > 0) {
            if (*s != '/')
                break;
            s++;
            if (k == 1 && *s == '/')
                continue; /* v//vn */
        }
        idx[k] = strtol(s, &end, 10);
        if (end == s)
            return fail(r, "bad face corner '%.20s'", *sp);
        s = end;
    }
    if (*s && *s != ' ' && *s != '\t' && *s != '\r')
        return fail(r, "bad face corner '%.20s'", *sp);
    int e = resolve(r, idx[0], r->v.n / 3, "position", &corner[0]);
    corner[1] = corner[2] = 0;
    if (!e && idx[1]) {
        e = resolve(r, idx[1], r->vt.n / 2, "texture coordinate", &corner[1]);
        corner[1]++;
    }
    if (!e && idx[2]) {
        e = resolve(r, idx[2], r->vn.n / 3, "normal", &corner[2]);
        corner[2]++;
    }
    *sp = s;
    return e;
}

static int read_face(obj_reader *r, const char *s)
{
    uint32_t first[3], prev[3], c[3];
    uint32_t n = 0;
    for (s = skip_space(s); *s; s = skip_space(s), n++) {
        int e = read_corner(r, &s, c);
        if (e)
            return e;
        if (n == 0)
            memcpy(first, c, sizeof c);
        else if (n >= 2 && !(push(r, &r->corners, first, 3) && push(r, &r->corners, prev, 3) &&
                             push(r, &r->corners, c, 3)))
            return CT_ERR_NOMEM;
        memcpy(prev, c, sizeof c);
        if (r->corners.n / 3 > OBJ_MAX_INDICES)
            return fail(r, "more than %u face corners", OBJ_MAX_INDICES);
    }
    return n < 3 ? fail(r, "a face needs at least 3 corners, this one has %u", n) : 0;
}

/* True when the line's statement is `word` (followed by a blank or the line's end). */
static bool statement(const char *s, const char *word)
{
    const size_t n = strlen(word);
    return !strncmp(s, word, n) && (s[n] == ' ' || s[n] == '\t' || s[n] == '\r' || s[n] == '\0');
}

static int read_line(obj_reader *r, const char *line)
{
    const char *s = skip_space(line);
    if (statement(s, "v"))
        return read_floats(r, s + 1, 3, 3, 1, &r->v); /* an optional w is accepted and ignored */
    if (statement(s, "vt"))
        return read_floats(r, s + 2, 2, 1, 1, &r->vt); /* u [v [w]] */
    if (statement(s, "vn"))
        return read_floats(r, s + 2, 3, 3, 0, &r->vn);
    if (statement(s, "f"))
        return read_face(r, s + 1);
    return 0;
}

static uint32_t hash_corner(const uint32_t *c)
{
    uint64_t h = (uint64_t)c[0] * 0x9e3779b97f4a7c15ull ^ (uint64_t)c[1] * 0xc2b2ae3d27d4eb4full ^
                 (uint64_t)c[2] * 0x165667b19e3779f9ull;
    return (uint32_t)(h >> 32);
}

/* Makes corners unique into vertices. */
static int build_mesh(obj_reader *r, obj_mesh_t *m)
{
    const uint32_t num_corners = r->corners.n / 3;
    const uint32_t *corners = r->corners.p;
    uint32_t slots = 1024;
    while (slots < num_corners * 2u)
        slots *= 2;
    uint32_t *table = ct_alloc(r->a, (size_t)slots * sizeof *table); /* vertex + 1, 0 empty */
    m->indices = ct_alloc(r->a, (size_t)num_corners * sizeof *m->indices);
    uint32_t *first_corner = ct_alloc(r->a, (size_t)num_corners * sizeof *first_corner);
    int err = table && m->indices && first_corner ? 0 : CT_ERR_NOMEM;
    if (!err) {
        memset(table, 0, (size_t)slots * sizeof *table);
        m->num_indices = num_corners;
        for (uint32_t i = 0; i < num_corners; i++) {
            const uint32_t *c = &corners[3 * i];
            uint32_t s = hash_corner(c) & (slots - 1);
            while (table[s] && memcmp(&corners[3 * first_corner[table[s] - 1]], c, 12) != 0)
                s = (s + 1) & (slots - 1);
            if (!table[s]) {
                first_corner[m->num_vertices] = i;
                table[s] = ++m->num_vertices;
            }
            m->indices[i] = table[s] - 1;
        }
        if (m->num_vertices > OBJ_MAX_VERTICES)
            err = fail(r, "more than %u distinct vertices", OBJ_MAX_VERTICES);
    }
    if (!err) {
        m->positions = ct_alloc(r->a, (size_t)m->num_vertices * 3 * sizeof(float));
        m->normals = ct_alloc(r->a, (size_t)m->num_vertices * 3 * sizeof(float));
        m->uvs = ct_alloc(r->a, (size_t)m->num_vertices * 2 * sizeof(float));
        err = m->positions && m->normals && m->uvs ? 0 : CT_ERR_NOMEM;
    }
    if (!err) {
        const float *v = r->v.p, *vt = r->vt.p, *vn = r->vn.p;
        bool all_normals = true;
        for (uint32_t i = 0; i < m->num_vertices; i++) {
            const uint32_t *c = &corners[3 * first_corner[i]];
            memcpy(&m->positions[3 * i], &v[3 * c[0]], 3 * sizeof(float));
            if (c[1])
                memcpy(&m->uvs[2 * i], &vt[2 * (c[1] - 1)], 2 * sizeof(float));
            else
                m->uvs[2 * i] = m->uvs[2 * i + 1] = 0.0f;
            if (c[2])
                memcpy(&m->normals[3 * i], &vn[3 * (c[2] - 1)], 3 * sizeof(float));
            all_normals &= c[2] != 0;
        }
        m->has_normals = all_normals;
        if (!all_normals)
            mesh_smooth_normals(m->positions, m->num_vertices, m->indices, m->num_indices,
                                m->normals);
    }
    ct_free(r->a, table, table ? (size_t)slots * sizeof *table : 0);
    ct_free(r->a, first_corner, first_corner ? (size_t)num_corners * sizeof *first_corner : 0);
    return err;
}

void obj_free(obj_mesh_t *m, ct_allocator_t *a)
{
    if (m->positions)
        ct_free(a, m->positions, (size_t)m->num_vertices * 3 * sizeof(float));
    if (m->normals)
        ct_free(a, m->normals, (size_t)m->num_vertices * 3 * sizeof(float));
    if (m->uvs)
        ct_free(a, m->uvs, (size_t)m->num_vertices * 2 * sizeof(float));
    if (m->indices)
        ct_free(a, m->indices, (size_t)m->num_indices * sizeof *m->indices);
    *m = (obj_mesh_t){0};
}

int obj_read(const char *text, size_t len, const char *name, ct_allocator_t *a, obj_mesh_t *out,
             char *err, size_t err_size)
{
    obj_reader r = {.a = a, .name = name ? name : "(obj)", .err = err, .err_size = err_size};
    *out = (obj_mesh_t){0};
    if (err_size)
        err[0] = '\0';
    int e = 0;
    char line[OBJ_LINE_MAX];
    for (size_t at = 0; at < len && !e;) {
        const char *nl = memchr(text + at, '\n', len - at);
        const size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
        r.line++;
        if (n >= sizeof line) {
            e = fail(&r, "line longer than %d bytes", OBJ_LINE_MAX - 1);
            break;
        }
        memcpy(line, text + at, n);
        line[n] = '\0';
        if (strlen(line) != n)
            e = fail(&r, "NUL byte in the text");
        else
            e = read_line(&r, line);
        at += n + 1;
        if (r.v.n / 3 > OBJ_MAX_VERTICES)
            e = fail(&r, "more than %u positions", OBJ_MAX_VERTICES);
    }
    if (!e && r.corners.n == 0) {
        r.line = 0;
        e = CT_ERR_BAD_DATA;
        snprintf(err, err_size, "%s: no faces (an OBJ mesh needs 'f' lines)", r.name);
    }
    if (!e)
        e = build_mesh(&r, out);
    if (e == CT_ERR_NOMEM && err_size && !err[0])
        snprintf(err, err_size, "%s: out of memory", r.name);
    if (e)
        obj_free(out, a);
    drop(&r, &r.v), drop(&r, &r.vt), drop(&r, &r.vn), drop(&r, &r.corners);
    return e;
}
