/*
 * ct_stream.h: the two-way serialization stream (seed: "Two way serialization function"). Header
 * only: a plugin or tool uses it without linking anything.
 *
 * One function per type reads, writes, measures and dumps it, because the stream says which it is
 * doing; the function just lists its fields in order:
 *
 *     static void serialize_body(ct_stream_t *s, body_t *b)
 *     {
 *         ct_stream_begin(s, "body");
 *         ct_stream_u32_range(s, "kind", &b->kind, 0, 3);   // checked on read
 *         ct_stream_f64(s, "mass", &b->mass);
 *         if (ct_stream_since(s, 2))                      // added in format version 2
 *             ct_stream_f64(s, "friction", &b->friction);
 *         else
 *             b->friction = 0.5;                          // the default older data gets
 *         ct_stream_end(s);
 *     }
 *
 *     ct_stream_t s;
 *     ct_stream_init_write(&s, 2);  serialize_body(&s, &b);   // s.data, s.size: the bytes
 *     ct_stream_init_read(&s, bytes, n, version_read_from_header);  serialize_body(&s, &b);
 *     ct_stream_init_measure(&s, 2);  ...  s.size is the byte count writing would produce
 *     ct_stream_init_dump(&s, 2);  ...  s.text is SJSON ("body = { kind = 1 mass = 10 ... }")
 *     ct_stream_free(&s);
 *
 * Encoding: little-endian fixed-width integers and IEEE doubles, byte strings as u32 length +
 * bytes. The format version is the caller's to store (a header field streamed first, then
 * ct_stream_set_version). Nothing else is framed: the reader trusts nothing, checks every length
 * against what is left, every ranged value against its range, and after the first failure every
 * call does nothing and reads zeros, so a function that streams a hostile blob finishes without
 * crashing and the caller checks `failed` once (error names the field and the byte offset).
 *
 * Memory: write and dump grow their buffers with realloc (free with ct_stream_free); read borrows
 * the input (ct_stream_bytes returns pointers into it, valid as long as the input).
 * Threads: a stream is one thread's.
 */
#ifndef CT_STREAM_H
#define CT_STREAM_H

#include "ct_types.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a stream does with each field: the same serialising function runs in every mode. */
typedef enum ct_stream_mode {
    CT_STREAM_WRITE = 1,
    CT_STREAM_READ = 2,
    CT_STREAM_MEASURE = 3,
    CT_STREAM_DUMP = 4,
} ct_stream_mode;

/* One serialisation in progress: made by a ct_stream_init_* function, fields added or read with
 * ct_stream_u8/u32/u64/f64/bytes, the first failure kept in `error`, freed with ct_stream_free. */
typedef struct ct_stream_t {
    uint32_t mode;    /* ct_stream_mode */
    uint32_t version; /* the format version being read or written */
    uint8_t *data;    /* WRITE: the bytes written (owned); READ: the input (borrowed) */
    size_t size;      /* bytes written / measured, or the input's size */
    size_t capacity;  /* WRITE: of data */
    size_t pos;       /* READ: bytes consumed */
    char *text;       /* DUMP: the SJSON so far, NUL-terminated (owned) */
    size_t text_size, text_capacity;
    uint32_t depth;  /* DUMP: nesting */
    uint32_t failed; /* nonzero after the first failure */
    char error[192]; /* the first failure: field, offset, why */
} ct_stream_t;

static inline void ct_stream__init(ct_stream_t *s, uint32_t mode, uint32_t version)
{
    memset(s, 0, sizeof *s);
    s->mode = mode;
    s->version = version;
}
/* A stream that writes format version v into a growing block it owns (data, size). */
static inline void ct_stream_init_write(ct_stream_t *s, uint32_t v)
{
    ct_stream__init(s, CT_STREAM_WRITE, v);
}
/* A stream that only counts the bytes a write would take (size). */
static inline void ct_stream_init_measure(ct_stream_t *s, uint32_t v)
{
    ct_stream__init(s, CT_STREAM_MEASURE, v);
}
/* A stream that writes the fields as readable SJSON text (text), for debugging. */
static inline void ct_stream_init_dump(ct_stream_t *s, uint32_t v)
{
    ct_stream__init(s, CT_STREAM_DUMP, v);
}
/* A stream that reads format version v from size bytes at data (borrowed; never read past). */
static inline void ct_stream_init_read(ct_stream_t *s, const void *data, size_t size, uint32_t v)
{
    ct_stream__init(s, CT_STREAM_READ, v);
    s->data = (uint8_t *)(uintptr_t)data;
    s->size = size;
}
/* Sets the format version (a reader does once it read the version from the data). */
static inline void ct_stream_set_version(ct_stream_t *s, uint32_t v) { s->version = v; }
/* Whether the stream reads (fields are filled in) rather than writes them out. */
static inline bool ct_stream_reading(const ct_stream_t *s) { return s->mode == CT_STREAM_READ; }

/* Frees what write and dump allocated (not a reader's input). */
static inline void ct_stream_free(ct_stream_t *s)
{
    if (s->mode == CT_STREAM_WRITE)
        free(s->data);
    free(s->text);
    s->data = NULL;
    s->text = NULL;
}

/* Records the first failure: "field 'name' at byte N: why". Always returns false. */
static inline bool ct_stream_fail(ct_stream_t *s, const char *name, const char *fmt, ...)
{
    if (s->failed)
        return false;
    s->failed = 1;
    int n = snprintf(s->error, sizeof s->error, "field '%s' at byte %zu: ", name ? name : "?",
                     s->mode == CT_STREAM_READ ? s->pos : s->size);
    if (n > 0 && (size_t)n < sizeof s->error) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->error + n, sizeof s->error - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return false;
}

/* Whether a field added in format `version` is in this stream (reading older data: no). */
static inline bool ct_stream_since(const ct_stream_t *s, uint32_t version)
{
    return s->version >= version;
}

static inline void ct_stream__text(ct_stream_t *s, const char *fmt, ...)
{
    if (s->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (s->text_size + (size_t)n + 1 > s->text_capacity) {
        size_t cap = s->text_capacity ? s->text_capacity : 256;
        while (cap < s->text_size + (size_t)n + 1)
            cap *= 2;
        char *grown = (char *)realloc(s->text, cap);
        if (!grown) {
            ct_stream_fail(s, "dump", "out of memory");
            return;
        }
        s->text = grown;
        s->text_capacity = cap;
    }
    va_start(ap, fmt);
    vsnprintf(s->text + s->text_size, (size_t)n + 1, fmt, ap);
    va_end(ap);
    s->text_size += (size_t)n;
}

static inline void ct_stream__indent(ct_stream_t *s)
{
    for (uint32_t i = 0; i < s->depth; i++)
        ct_stream__text(s, "  ");
}

/* Opens / closes a named group: nothing in binary, `name = {` ... `}` in a dump. */
static inline void ct_stream_begin(ct_stream_t *s, const char *name)
{
    if (s->mode != CT_STREAM_DUMP)
        return;
    ct_stream__indent(s);
    ct_stream__text(s, "%s = {\n", name);
    s->depth++;
}
static inline void ct_stream_end(ct_stream_t *s)
{
    if (s->mode != CT_STREAM_DUMP || s->depth == 0)
        return;
    s->depth--;
    ct_stream__indent(s);
    ct_stream__text(s, "}\n");
}

/* The raw transfer of n bytes: written, counted, or read (zeros after a failure). */
static inline bool ct_stream__raw(ct_stream_t *s, const char *name, void *p, size_t n)
{
    if (s->failed) {
        if (s->mode == CT_STREAM_READ)
            memset(p, 0, n);
        return false;
    }
    switch (s->mode) {
    case CT_STREAM_WRITE:
        if (s->size + n > s->capacity) {
            size_t cap = s->capacity ? s->capacity : 256;
            while (cap < s->size + n)
                cap *= 2;
            uint8_t *grown = (uint8_t *)realloc(s->data, cap);
            if (!grown)
                return ct_stream_fail(s, name, "out of memory");
            s->data = grown;
            s->capacity = cap;
        }
        memcpy(s->data + s->size, p, n);
        s->size += n;
        return true;
    case CT_STREAM_MEASURE: s->size += n; return true;
    case CT_STREAM_READ:
        if (s->size - s->pos < n) {
            memset(p, 0, n);
            return ct_stream_fail(s, name, "needs %zu bytes, %zu left (truncated)", n,
                                  s->size - s->pos);
        }
        memcpy(p, s->data + s->pos, n);
        s->pos += n;
        return true;
    default: return true;
    }
}

/* The field `name`, one byte: written from, or read into, *v. False once the stream failed. */
static inline bool ct_stream_u8(ct_stream_t *s, const char *name, uint8_t *v)
{
    if (s->mode == CT_STREAM_DUMP) {
        ct_stream__indent(s);
        ct_stream__text(s, "%s = %u\n", name, *v);
        return !s->failed;
    }
    return ct_stream__raw(s, name, v, 1);
}

/* As ct_stream_u8, 4 bytes little-endian. */
static inline bool ct_stream_u32(ct_stream_t *s, const char *name, uint32_t *v)
{
    if (s->mode == CT_STREAM_DUMP) {
        ct_stream__indent(s);
        ct_stream__text(s, "%s = %u\n", name, *v);
        return !s->failed;
    }
    uint8_t b[4] = {(uint8_t)*v, (uint8_t)(*v >> 8), (uint8_t)(*v >> 16), (uint8_t)(*v >> 24)};
    bool ok = ct_stream__raw(s, name, b, 4);
    if (s->mode == CT_STREAM_READ)
        *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return ok;
}

/* As ct_stream_u8, 8 bytes little-endian. */
static inline bool ct_stream_u64(ct_stream_t *s, const char *name, uint64_t *v)
{
    if (s->mode == CT_STREAM_DUMP) {
        ct_stream__indent(s);
        ct_stream__text(s, "%s = \"%016llx\"\n", name, (unsigned long long)*v);
        return !s->failed;
    }
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(*v >> (8 * i));
    bool ok = ct_stream__raw(s, name, b, 8);
    if (s->mode == CT_STREAM_READ) {
        *v = 0;
        for (int i = 0; i < 8; i++)
            *v |= (uint64_t)b[i] << (8 * i);
    }
    return ok;
}

/* As ct_stream_u8, a double as its 8 bytes (bit for bit, as ct_stream_u64). */
static inline bool ct_stream_f64(ct_stream_t *s, const char *name, double *v)
{
    if (s->mode == CT_STREAM_DUMP) {
        ct_stream__indent(s);
        ct_stream__text(s, "%s = %.17g\n", name, *v);
        return !s->failed;
    }
    uint64_t bits;
    memcpy(&bits, v, 8);
    bool ok = ct_stream_u64(s, name, &bits);
    if (s->mode == CT_STREAM_READ)
        memcpy(v, &bits, 8);
    return ok;
}

/* A u32 that must be in [lo, hi] when read (written as is). */
static inline bool ct_stream_u32_range(ct_stream_t *s, const char *name, uint32_t *v, uint32_t lo,
                                       uint32_t hi)
{
    if (!ct_stream_u32(s, name, v))
        return false;
    if (s->mode == CT_STREAM_READ && (*v < lo || *v > hi)) {
        uint32_t bad = *v;
        *v = lo;
        s->pos -= 4;
        ct_stream_fail(s, name, "%u is outside %u..%u", bad, lo, hi);
        s->pos += 4;
        return false;
    }
    return true;
}

/*
 * Bytes with a u32 length, at most `max`. Reading points *p into the input (borrowed) and sets
 * *len; writing takes *p and *len. Dumped as a quoted string when printable, else as hex.
 */
static inline bool ct_stream_bytes(ct_stream_t *s, const char *name, const void **p, uint32_t *len,
                                   uint32_t max)
{
    if (s->mode == CT_STREAM_DUMP) {
        ct_stream__indent(s);
        bool printable = true;
        for (uint32_t i = 0; i < *len; i++) {
            unsigned char c = ((const unsigned char *)*p)[i];
            printable = printable && c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
        }
        if (printable) {
            ct_stream__text(s, "%s = \"%.*s\"\n", name, (int)*len, (const char *)*p);
        } else {
            ct_stream__text(s, "%s = { hex = \"", name);
            for (uint32_t i = 0; i < *len; i++)
                ct_stream__text(s, "%02x", ((const unsigned char *)*p)[i]);
            ct_stream__text(s, "\" }\n");
        }
        return !s->failed;
    }
    if (!ct_stream_u32_range(s, name, len, 0, max))
        return false;
    if (s->mode == CT_STREAM_READ) {
        if (s->failed || s->size - s->pos < *len) {
            ct_stream_fail(s, name, "%u bytes, %zu left (truncated)", *len, s->size - s->pos);
            *len = 0;
            *p = "";
            return false;
        }
        *p = s->data + s->pos;
        s->pos += *len;
        return true;
    }
    if (*len && !ct_stream__raw(s, name, (void *)(uintptr_t)*p, *len))
        return false;
    return !s->failed;
}

#ifdef __cplusplus
}
#endif
#endif
