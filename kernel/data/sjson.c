/*
 * SJSON parser: the seed's simplified JSON (implicit root object, optional commas, bare keys,
 * `=` for `:`) plus `//` and block comments, producing cJSON trees.
 *
 * The input is a byte range that is not NUL-terminated: every read checks `p < end`. Line and
 * column are not tracked while scanning; the error path recomputes them from the start of the
 * text, since errors are rare and scanning stays a tight loop.
 *
 * Memory comes from malloc, not a kernel allocator: cJSON allocates its trees with malloc through
 * its global hooks, and the scratch buffer and whole-file reads follow it so that parsing works
 * the same with or without a booted kernel (tests, fuzzers, tools).
 */
#include "sjson.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deep enough for any real data, shallow enough that the recursive descent cannot exhaust the
 * stack on hostile input. */
#define SJSON_MAX_DEPTH 256

typedef struct parser_t {
    const char *text;
    const char *p;
    const char *end;
    const char *filename;
    char *err;
    size_t err_size;
    /* Decoded strings live on a stack in one growing buffer: a member's key stays at its offset
     * while the value (and any nested keys above it) is parsed, so no per-string allocation. */
    char *scratch;
    size_t scratch_top;
    size_t scratch_cap;
    uint32_t depth;
    bool failed;
} parser_t;

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static bool is_ident_start(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }

/* Bytes that may continue a number-like token: a number must not run into one of them. */
static bool is_number_char(char c) { return is_ident_char(c) || c == '.' || c == '+' || c == '-'; }

/* Records the first error only: later failures are consequences of it. The column counts UTF-8
 * characters (continuation bytes are skipped) so it matches what an editor shows. */
static void fail_at(parser_t *ps, const char *at, const char *fmt, ...)
{
    if (ps->failed)
        return;
    ps->failed = true;
    if (!ps->err || ps->err_size == 0)
        return;
    uint32_t line = 1, col = 1;
    for (const char *c = ps->text; c < at; c++) {
        if (*c == '\n') {
            line++;
            col = 1;
        } else if (((unsigned char)*c & 0xc0) != 0x80) {
            col++;
        }
    }
    int n = snprintf(ps->err, ps->err_size, "%s:%u:%u: ", ps->filename ? ps->filename : "<text>",
                     line, col);
    if (n < 0 || (size_t)n >= ps->err_size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ps->err + n, ps->err_size - (size_t)n, fmt, ap);
    va_end(ap);
}

/* Describes the byte at `at` for a message: a printable character, a hex byte, or the end. */
static const char *describe(const parser_t *ps, const char *at, char buf[16])
{
    if (at >= ps->end)
        return "end of file";
    unsigned char c = (unsigned char)*at;
    if (c >= 0x20 && c < 0x7f)
        snprintf(buf, 16, "'%c'", c);
    else
        snprintf(buf, 16, "byte 0x%02x", c);
    return buf;
}

static void fail_unexpected(parser_t *ps, const char *what)
{
    char buf[16];
    fail_at(ps, ps->p, "expected %s, found %s", what, describe(ps, ps->p, buf));
}

static void skip_space(parser_t *ps)
{
    while (ps->p < ps->end) {
        char c = *ps->p;
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            ps->p++;
        } else if (c == '/' && ps->end - ps->p >= 2 && ps->p[1] == '/') {
            while (ps->p < ps->end && *ps->p != '\n')
                ps->p++;
        } else if (c == '/' && ps->end - ps->p >= 2 && ps->p[1] == '*') {
            const char *start = ps->p;
            ps->p += 2;
            while (ps->end - ps->p >= 2 && !(ps->p[0] == '*' && ps->p[1] == '/'))
                ps->p++;
            if (ps->end - ps->p < 2) {
                fail_at(ps, start, "unterminated comment");
                ps->p = ps->end;
                return;
            }
            ps->p += 2;
        } else {
            return;
        }
    }
}

/* Reserves `n` bytes at the top of the scratch stack; returns the offset or SIZE_MAX. */
static size_t scratch_push(parser_t *ps, size_t n)
{
    if (ps->scratch_cap - ps->scratch_top < n) {
        size_t cap = ps->scratch_cap ? ps->scratch_cap : 256;
        while (cap - ps->scratch_top < n)
            cap *= 2;
        char *grown = realloc(ps->scratch, cap);
        if (!grown) {
            fail_at(ps, ps->p, "out of memory");
            return SIZE_MAX;
        }
        ps->scratch = grown;
        ps->scratch_cap = cap;
    }
    size_t off = ps->scratch_top;
    ps->scratch_top += n;
    return off;
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

/* Reads "\uXXXX" at `at`; false if the text there is anything else. */
static bool read_u_escape(const char *at, const char *end, uint32_t *out)
{
    if (end - at < 6 || at[0] != '\\' || at[1] != 'u')
        return false;
    uint32_t v = 0;
    for (int i = 2; i < 6; i++) {
        int h = hex_value(at[i]);
        if (h < 0)
            return false;
        v = v << 4 | (uint32_t)h;
    }
    *out = v;
    return true;
}

static char *put_utf8(char *o, uint32_t cp)
{
    if (cp < 0x80) {
        *o++ = (char)cp;
    } else if (cp < 0x800) {
        *o++ = (char)(0xc0 | cp >> 6);
        *o++ = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        *o++ = (char)(0xe0 | cp >> 12);
        *o++ = (char)(0x80 | (cp >> 6 & 0x3f));
        *o++ = (char)(0x80 | (cp & 0x3f));
    } else {
        *o++ = (char)(0xf0 | cp >> 18);
        *o++ = (char)(0x80 | (cp >> 12 & 0x3f));
        *o++ = (char)(0x80 | (cp >> 6 & 0x3f));
        *o++ = (char)(0x80 | (cp & 0x3f));
    }
    return o;
}

/* Decodes the escape at `*in` (a backslash inside a string whose closing quote was found, so
 * at least one byte follows) into `*out`, advancing both. */
static bool decode_escape(parser_t *ps, const char **in, char **out)
{
    const char *at = *in;
    static const char from[] = "\"\\/bfnrt";
    static const char to[] = "\"\\/\b\f\n\r\t";
    const char *simple = at[1] ? strchr(from, at[1]) : NULL;
    if (simple) {
        *(*out)++ = to[simple - from];
        *in = at + 2;
        return true;
    }
    if (at[1] != 'u') {
        char buf[16];
        fail_at(ps, at, "bad escape '\\' followed by %s", describe(ps, at + 1, buf));
        return false;
    }
    uint32_t cp;
    if (!read_u_escape(at, ps->end, &cp)) {
        fail_at(ps, at, "bad \\u escape: expected four hex digits");
        return false;
    }
    const char *next = at + 6;
    if (cp >= 0xdc00 && cp <= 0xdfff) {
        fail_at(ps, at, "bad \\u escape: low surrogate without a high surrogate before it");
        return false;
    }
    if (cp >= 0xd800 && cp <= 0xdbff) {
        uint32_t low;
        if (!read_u_escape(next, ps->end, &low) || low < 0xdc00 || low > 0xdfff) {
            fail_at(ps, at, "bad \\u escape: high surrogate without a low surrogate after it");
            return false;
        }
        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
        next += 6;
    }
    if (cp == 0) {
        /* cJSON strings are NUL-terminated: an embedded NUL would silently cut the string. */
        fail_at(ps, at, "\\u0000 is not allowed in strings");
        return false;
    }
    *out = put_utf8(*out, cp);
    *in = next;
    return true;
}

/* The length of the well-formed UTF-8 sequence at `p` (which starts with a byte >= 0x80), or 0
 * for an invalid one: stray continuation bytes, overlong forms, surrogates, beyond U+10FFFF, or
 * a sequence cut short by `end`. Names are hashed byte by byte, so one spelling per character. */
static size_t utf8_length(const char *p, const char *end)
{
    unsigned char c = (unsigned char)p[0];
    size_t n;
    unsigned char lo = 0x80, hi = 0xbf; /* allowed range of the second byte */
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        lo = c == 0xe0 ? 0xa0 : 0x80;
        hi = c == 0xed ? 0x9f : 0xbf;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        lo = c == 0xf0 ? 0x90 : 0x80;
        hi = c == 0xf4 ? 0x8f : 0xbf;
    } else {
        return 0;
    }
    if ((size_t)(end - p) < n)
        return 0;
    unsigned char second = (unsigned char)p[1];
    if (second < lo || second > hi)
        return 0;
    for (size_t i = 2; i < n; i++) {
        if (((unsigned char)p[i] & 0xc0) != 0x80)
            return 0;
    }
    return n;
}

/* Parses a quoted string at ps->p onto the scratch stack; returns its offset or SIZE_MAX. The
 * decoded text is never longer than the quoted source, which sizes the reservation. */
static size_t parse_string(parser_t *ps)
{
    const char *open = ps->p;
    const char *close = open + 1;
    while (close < ps->end && *close != '"') {
        if (*close == '\n') {
            fail_at(ps, open, "unterminated string (line ends before the closing '\"')");
            return SIZE_MAX;
        }
        /* An escape skips the byte after the backslash, but never past the end. */
        close += *close == '\\' && ps->end - close >= 2 ? 2 : 1;
    }
    if (close >= ps->end) {
        fail_at(ps, open, "unterminated string");
        return SIZE_MAX;
    }
    size_t off = scratch_push(ps, (size_t)(close - open));
    if (off == SIZE_MAX)
        return SIZE_MAX;
    char *o = ps->scratch + off;
    const char *in = open + 1;
    while (in < close) {
        if (*in == '\\') {
            if (!decode_escape(ps, &in, &o))
                return SIZE_MAX;
        } else if ((unsigned char)*in < 0x20) {
            fail_at(ps, in, "control character (byte 0x%02x) in string: escape it",
                    (unsigned char)*in);
            return SIZE_MAX;
        } else if ((unsigned char)*in < 0x80) {
            *o++ = *in++;
        } else {
            size_t n = utf8_length(in, close);
            if (n == 0) {
                fail_at(ps, in, "invalid UTF-8 (byte 0x%02x) in string", (unsigned char)*in);
                return SIZE_MAX;
            }
            memcpy(o, in, n);
            o += n;
            in += n;
        }
    }
    *o++ = '\0';
    ps->scratch_top = (size_t)(o - ps->scratch);
    ps->p = close + 1;
    return off;
}

static size_t parse_identifier(parser_t *ps)
{
    const char *start = ps->p;
    while (ps->p < ps->end && is_ident_char(*ps->p))
        ps->p++;
    size_t n = (size_t)(ps->p - start);
    size_t off = scratch_push(ps, n + 1);
    if (off == SIZE_MAX)
        return SIZE_MAX;
    memcpy(ps->scratch + off, start, n);
    ps->scratch[off + n] = '\0';
    return off;
}

static const char *skip_digits(const char *p, const char *end)
{
    while (p < end && is_digit(*p))
        p++;
    return p;
}

/* JSON's number grammar exactly: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, followed by a
 * delimiter. strtod then converts a NUL-terminated copy (the input is not terminated). */
static cJSON *parse_number(parser_t *ps)
{
    const char *start = ps->p, *q = ps->p, *end = ps->end;
    bool ok = true;
    if (q < end && *q == '-')
        q++;
    if (q < end && *q == '0')
        q++;
    else if (q < end && is_digit(*q))
        q = skip_digits(q, end);
    else
        ok = false;
    if (ok && q < end && *q == '.') {
        const char *frac = ++q;
        q = skip_digits(q, end);
        ok = q > frac;
    }
    if (ok && q < end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < end && (*q == '+' || *q == '-'))
            q++;
        const char *exp = q;
        q = skip_digits(q, end);
        ok = q > exp;
    }
    if (ok && q < end && is_number_char(*q))
        ok = false;
    if (!ok) {
        /* Show the whole malformed token, not just the part the grammar accepted. */
        const char *t = start;
        while (t < end && t - start < 32 && is_number_char(*t))
            t++;
        fail_at(ps, start, "bad number \"%.*s\"", (int)(t - start), start);
        return NULL;
    }
    size_t n = (size_t)(q - start);
    size_t off = scratch_push(ps, n + 1);
    if (off == SIZE_MAX)
        return NULL;
    char *copy = ps->scratch + off;
    memcpy(copy, start, n);
    copy[n] = '\0';
    char *stop;
    errno = 0;
    double v = strtod(copy, &stop);
    ps->scratch_top = off;
    if (stop != copy + n) {
        fail_at(ps, start, "bad number (the C locale's decimal point is required)");
        return NULL;
    }
    /* Underflow to zero or a denormal is fine; overflow to infinity is not representable. */
    if (isinf(v)) {
        fail_at(ps, start, "number out of range");
        return NULL;
    }
    ps->p = q;
    cJSON *item = cJSON_CreateNumber(v);
    if (!item)
        fail_at(ps, start, "out of memory");
    return item;
}

static cJSON *parse_word(parser_t *ps)
{
    const char *start = ps->p;
    while (ps->p < ps->end && is_ident_char(*ps->p))
        ps->p++;
    size_t n = (size_t)(ps->p - start);
    cJSON *item = NULL;
    if (n == 4 && memcmp(start, "true", 4) == 0)
        item = cJSON_CreateTrue();
    else if (n == 5 && memcmp(start, "false", 5) == 0)
        item = cJSON_CreateFalse();
    else if (n == 4 && memcmp(start, "null", 4) == 0)
        item = cJSON_CreateNull();
    else {
        int shown = n > 32 ? 32 : (int)n;
        fail_at(ps, start, "expected a value, found \"%.*s\"%s", shown, start,
                n > (size_t)shown ? "..." : "");
        return NULL;
    }
    if (!item)
        fail_at(ps, start, "out of memory");
    return item;
}

static cJSON *parse_value(parser_t *ps);

/* Object members until `close` ('}' or 0 for the implicit root, which ends at end of file).
 * Commas between members are optional; one comma may also follow the last member. */
static bool parse_members(parser_t *ps, cJSON *object, char close)
{
    for (;;) {
        skip_space(ps);
        if (ps->failed)
            return false;
        if (ps->p >= ps->end) {
            if (close == 0)
                return true;
            fail_unexpected(ps, "a key or '}'");
            return false;
        }
        if (close != 0 && *ps->p == close) {
            ps->p++;
            return true;
        }
        const char *key_at = ps->p;
        size_t key_off;
        if (*ps->p == '"')
            key_off = parse_string(ps);
        else if (is_ident_start(*ps->p))
            key_off = parse_identifier(ps);
        else {
            fail_unexpected(ps, close ? "a key or '}'" : "a key");
            return false;
        }
        if (key_off == SIZE_MAX)
            return false;
        skip_space(ps);
        if (ps->failed)
            return false;
        if (ps->p >= ps->end || (*ps->p != '=' && *ps->p != ':')) {
            char buf[16];
            fail_at(ps, ps->p, "expected '=' or ':' after key \"%s\", found %s",
                    ps->scratch + key_off, describe(ps, ps->p, buf));
            return false;
        }
        ps->p++;
        skip_space(ps);
        if (ps->failed)
            return false;
        cJSON *value = parse_value(ps);
        if (!value)
            return false;
        /* The scratch buffer may have moved while the value was parsed: re-derive the key. */
        const char *key = ps->scratch + key_off;
        /* A linear check, like cJSON's own lookups: objects in source data are small, and it
         * lets the error point at the second occurrence. */
        if (cJSON_GetObjectItemCaseSensitive(object, key)) {
            fail_at(ps, key_at, "duplicate key \"%s\"", key);
            cJSON_Delete(value);
            return false;
        }
        if (!cJSON_AddItemToObject(object, key, value)) {
            fail_at(ps, key_at, "out of memory");
            cJSON_Delete(value);
            return false;
        }
        ps->scratch_top = key_off;
        skip_space(ps);
        if (ps->p < ps->end && *ps->p == ',')
            ps->p++;
    }
}

static bool parse_elements(parser_t *ps, cJSON *array)
{
    for (;;) {
        skip_space(ps);
        if (ps->failed)
            return false;
        if (ps->p < ps->end && *ps->p == ']') {
            ps->p++;
            return true;
        }
        if (ps->p >= ps->end) {
            fail_unexpected(ps, "a value or ']'");
            return false;
        }
        cJSON *value = parse_value(ps);
        if (!value)
            return false;
        cJSON_AddItemToArray(array, value);
        skip_space(ps);
        if (ps->p < ps->end && *ps->p == ',')
            ps->p++;
    }
}

static cJSON *parse_container(parser_t *ps)
{
    const char *open = ps->p;
    if (++ps->depth > SJSON_MAX_DEPTH) {
        fail_at(ps, open, "nesting deeper than %d levels", SJSON_MAX_DEPTH);
        return NULL;
    }
    bool is_object = *open == '{';
    cJSON *item = is_object ? cJSON_CreateObject() : cJSON_CreateArray();
    if (!item) {
        fail_at(ps, open, "out of memory");
        return NULL;
    }
    ps->p++;
    bool ok = is_object ? parse_members(ps, item, '}') : parse_elements(ps, item);
    ps->depth--;
    if (!ok) {
        cJSON_Delete(item);
        return NULL;
    }
    return item;
}

static cJSON *parse_value(parser_t *ps)
{
    if (ps->p >= ps->end) {
        fail_unexpected(ps, "a value");
        return NULL;
    }
    char c = *ps->p;
    if (c == '{' || c == '[')
        return parse_container(ps);
    if (c == '"') {
        size_t off = parse_string(ps);
        if (off == SIZE_MAX)
            return NULL;
        cJSON *item = cJSON_CreateString(ps->scratch + off);
        ps->scratch_top = off;
        if (!item)
            fail_at(ps, ps->p, "out of memory");
        return item;
    }
    if (c == '-' || is_digit(c))
        return parse_number(ps);
    if (is_ident_start(c))
        return parse_word(ps);
    fail_unexpected(ps, "a value");
    return NULL;
}

cJSON *sjson__parse(const char *text, size_t len, const char *filename, char *err, size_t err_size)
{
    parser_t ps = {
        .text = text,
        .p = text,
        .end = text + len,
        .filename = filename,
        .err = err,
        .err_size = err_size,
    };
    if (err && err_size)
        err[0] = '\0';
    /* Editors on some platforms start UTF-8 files with a byte order mark; it carries no data. */
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        ps.p += 3;
    skip_space(&ps);
    cJSON *root = NULL;
    if (!ps.failed && ps.p < ps.end && (*ps.p == '{' || *ps.p == '[')) {
        /* Plain JSON: an explicit root object or array, and nothing after it. */
        root = parse_container(&ps);
        skip_space(&ps);
        if (root && !ps.failed && ps.p < ps.end) {
            char buf[16];
            fail_at(&ps, ps.p, "unexpected %s after the root value", describe(&ps, ps.p, buf));
        }
    } else if (!ps.failed) {
        root = cJSON_CreateObject();
        if (!root)
            fail_at(&ps, ps.p, "out of memory");
        else
            parse_members(&ps, root, 0);
    }
    free(ps.scratch);
    if (ps.failed) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

char *sjson__read_file(const char *path, size_t *len, char *err, size_t err_size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (err && err_size)
            snprintf(err, err_size, "%s: %s", path, strerror(errno));
        return NULL;
    }
    /* A read loop rather than a size query, so pipes and other unsized files work too. The
     * buffer keeps a NUL after the data for callers that want a C string. */
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    int error = buf ? 0 : ENOMEM;
    while (!error) {
        if (cap - n < 2) {
            char *grown = realloc(buf, cap * 2);
            if (!grown) {
                error = ENOMEM;
                break;
            }
            buf = grown;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) {
            if (ferror(f))
                error = errno ? errno : EIO;
            break;
        }
    }
    fclose(f);
    if (error) {
        free(buf);
        if (err && err_size)
            snprintf(err, err_size, "%s: %s", path, strerror(error));
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}
