/*
 * The lossless SJSON reader (dm_sjson.h). Recursive descent over a byte range that is not
 * NUL-terminated; every read checks the end. Nodes go into one growing array; strings are decoded
 * only when asked (dm_sjson__decode), so parsing a 10,000-entity level allocates one array.
 */
#include "dm_sjson.h"

#include "ct_array.h"
#include "ct_heap.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DM_NONE UINT32_MAX
#define MAX_DEPTH 200

typedef struct ps_t {
    dm_sjson_t *js;
    const char *t;
    uint32_t p, len;
    const char *filename;
    char *err;
    size_t err_size;
    uint32_t depth;
    bool failed;
} ps_t;

void dm_sjson__where(const dm_sjson_t *js, uint32_t at, const char *filename, char *out,
                     size_t size)
{
    uint32_t line = 1, col = 1;
    for (uint32_t i = 0; i < at && i < js->len; i++) {
        if (js->text[i] == '\n') {
            line++;
            col = 1;
        } else if (((unsigned char)js->text[i] & 0xc0) != 0x80) {
            col++;
        }
    }
    snprintf(out, size, "%s:%u:%u", filename ? filename : "<text>", line, col);
}

static void fail(ps_t *ps, uint32_t at, const char *fmt, ...)
{
    if (ps->failed)
        return;
    ps->failed = true;
    if (!ps->err || !ps->err_size)
        return;
    char where[128];
    dm_sjson__where(ps->js, at, ps->filename, where, sizeof where);
    int n = snprintf(ps->err, ps->err_size, "%s: ", where);
    if (n < 0 || (size_t)n >= ps->err_size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ps->err + n, ps->err_size - (size_t)n, fmt, ap);
    va_end(ap);
}

static void skip_space(ps_t *ps)
{
    while (ps->p < ps->len) {
        char c = ps->t[ps->p];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',') {
            ps->p++;
        } else if (c == '/' && ps->p + 1 < ps->len && ps->t[ps->p + 1] == '/') {
            while (ps->p < ps->len && ps->t[ps->p] != '\n')
                ps->p++;
        } else if (c == '/' && ps->p + 1 < ps->len && ps->t[ps->p + 1] == '*') {
            uint32_t start = ps->p;
            ps->p += 2;
            while (ps->p + 1 < ps->len && !(ps->t[ps->p] == '*' && ps->t[ps->p + 1] == '/'))
                ps->p++;
            if (ps->p + 1 >= ps->len) {
                fail(ps, start, "unterminated comment");
                ps->p = ps->len;
                return;
            }
            ps->p += 2;
        } else {
            return;
        }
    }
}

static uint32_t new_node(ps_t *ps, uint8_t type, uint32_t parent)
{
    dm_sjson_t *js = ps->js;
    if (!ct_array_reserve_of(ct_heap_allocator(), &js->nodes, &js->capacity, js->count + 1, 64)) {
        fail(ps, ps->p, "out of memory");
        return DM_NONE;
    }
    uint32_t i = js->count++;
    js->nodes[i] = (dm_node_t){.type = type,
                               .start = ps->p,
                               .parent = parent,
                               .first = DM_NONE,
                               .last = DM_NONE,
                               .next = DM_NONE};
    if (parent != DM_NONE) {
        dm_node_t *pn = &js->nodes[parent];
        if (pn->last == DM_NONE)
            pn->first = i;
        else
            js->nodes[pn->last].next = i;
        pn->last = i;
        pn->count++;
    }
    return i;
}

static bool ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* A quoted string's extent; checks escapes and control bytes, decodes nothing. */
static bool scan_string(ps_t *ps)
{
    uint32_t open = ps->p++;
    while (ps->p < ps->len && ps->t[ps->p] != '"') {
        unsigned char c = (unsigned char)ps->t[ps->p];
        if (c == '\n' || c < 0x20) {
            fail(ps, ps->p,
                 c == '\n' ? "unterminated string (line ends before the closing '\"')"
                           : "control character in string: escape it");
            return false;
        }
        if (c == '\\') {
            if (ps->p + 1 >= ps->len)
                break;
            char e = ps->t[ps->p + 1];
            if (e == 'u') {
                for (uint32_t i = 2; i < 6; i++) {
                    char h = ps->p + i < ps->len ? ps->t[ps->p + i] : 0;
                    if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') ||
                          (h >= 'A' && h <= 'F'))) {
                        fail(ps, ps->p, "bad \\u escape: expected four hex digits");
                        return false;
                    }
                }
                ps->p += 6;
                continue;
            }
            if (!strchr("\"\\/bfnrt", e) || e == 0) {
                fail(ps, ps->p, "bad escape");
                return false;
            }
            ps->p += 2;
            continue;
        }
        ps->p++;
    }
    if (ps->p >= ps->len) {
        fail(ps, open, "unterminated string");
        return false;
    }
    ps->p++;
    return true;
}

static bool parse_value(ps_t *ps, uint32_t parent, uint32_t key_start, uint32_t key_end);

/* The plain decimal token [s, e) (an optional sign, digits, an optional '.' and digits) as the
 * double strtod would give, into *out; false for anything else (exponents, hex, too many digits),
 * which strtod reads. Exact: the digits as an integer below 2^53 and a power of ten up to 1e22
 * are both doubles, and one IEEE division of two doubles is correctly rounded (Clinger's fast
 * path). Most numbers in levels are like this, and strtod was a tenth of a level's reading. */
static bool plain_number(const char *t, uint32_t s, uint32_t e, double *out)
{
    static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    bool neg = t[s] == '-';
    if (t[s] == '-' || t[s] == '+')
        s++;
    uint64_t m = 0;
    uint32_t digits = 0, frac = 0;
    bool dot = false;
    for (uint32_t i = s; i < e; i++) {
        char c = t[i];
        if (c >= '0' && c <= '9') {
            if (m >= (1ull << 53) / 10)
                return false;
            m = m * 10 + (uint64_t)(c - '0');
            digits++;
            frac += dot;
        } else if (c == '.' && !dot) {
            dot = true;
        } else {
            return false;
        }
    }
    if (!digits || frac > 22)
        return false;
    double d = (double)m / pow10[frac];
    *out = neg ? -d : d;
    return true;
}

/* Members until `close` (or the end of text for the implicit root, close == 0). */
static bool parse_members(ps_t *ps, uint32_t obj, char close)
{
    for (;;) {
        skip_space(ps);
        if (ps->failed)
            return false;
        if (ps->p >= ps->len) {
            if (close) {
                fail(ps, ps->p, "expected '%c', found end of file", close);
                return false;
            }
            return true;
        }
        char c = ps->t[ps->p];
        if (close && c == close) {
            ps->p++;
            return true;
        }
        uint32_t ks = ps->p;
        if (c == '"') {
            if (!scan_string(ps))
                return false;
        } else if (ident_char(c)) {
            while (ps->p < ps->len && ident_char(ps->t[ps->p]))
                ps->p++;
        } else {
            fail(ps, ps->p, "expected a key, found '%c'", c);
            return false;
        }
        uint32_t ke = ps->p;
        skip_space(ps);
        if (ps->p >= ps->len || (ps->t[ps->p] != '=' && ps->t[ps->p] != ':')) {
            fail(ps, ps->p, "expected '=' or ':' after the key");
            return false;
        }
        ps->p++;
        skip_space(ps);
        if (!parse_value(ps, obj, ks, ke))
            return false;
    }
}

static bool parse_value(ps_t *ps, uint32_t parent, uint32_t key_start, uint32_t key_end)
{
    if (ps->p >= ps->len) {
        fail(ps, ps->p, "expected a value, found end of file");
        return false;
    }
    char c = ps->t[ps->p];
    uint32_t n;
    if (c == '{' || c == '[') {
        if (++ps->depth > MAX_DEPTH) {
            fail(ps, ps->p, "nested deeper than %d", MAX_DEPTH);
            return false;
        }
        if ((n = new_node(ps, c == '{' ? DM_J_OBJECT : DM_J_ARRAY, parent)) == DM_NONE)
            return false;
        ps->p++;
        bool ok;
        if (c == '{') {
            ok = parse_members(ps, n, '}');
        } else {
            ok = true;
            for (;;) {
                skip_space(ps);
                if (ps->failed)
                    return false;
                if (ps->p >= ps->len) {
                    fail(ps, ps->p, "expected ']', found end of file");
                    return false;
                }
                if (ps->t[ps->p] == ']') {
                    ps->p++;
                    break;
                }
                if (!parse_value(ps, n, 0, 0))
                    return false;
            }
        }
        ps->depth--;
        if (!ok)
            return false;
    } else if (c == '"') {
        if ((n = new_node(ps, DM_J_STRING, parent)) == DM_NONE || !scan_string(ps))
            return false;
    } else if (c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9')) {
        if ((n = new_node(ps, DM_J_NUMBER, parent)) == DM_NONE)
            return false;
        uint32_t s = ps->p;
        while (ps->p < ps->len && (ident_char(ps->t[ps->p]) || ps->t[ps->p] == '+' ||
                                   ps->t[ps->p] == '-' || ps->t[ps->p] == '.'))
            ps->p++;
        char buf[64];
        uint32_t len = ps->p - s;
        char *end = NULL;
        if (len < sizeof buf && plain_number(ps->t, s, ps->p, &ps->js->nodes[n].num)) {
            end = buf + len; /* read exactly, as strtod would */
        } else if (len < sizeof buf) {
            memcpy(buf, ps->t + s, len);
            buf[len] = 0;
            ps->js->nodes[n].num = strtod(buf, &end);
        }
        if (len >= sizeof buf || end != buf + len || len == 0) {
            fail(ps, s, "malformed number");
            return false;
        }
    } else if (ident_char(c)) {
        uint32_t s = ps->p;
        while (ps->p < ps->len && ident_char(ps->t[ps->p]))
            ps->p++;
        uint32_t len = ps->p - s;
        uint8_t type = len == 4 && !memcmp(ps->t + s, "true", 4)    ? DM_J_TRUE
                       : len == 5 && !memcmp(ps->t + s, "false", 5) ? DM_J_FALSE
                       : len == 4 && !memcmp(ps->t + s, "null", 4)  ? DM_J_NULL
                                                                    : 0;
        if (!type) {
            fail(ps, s, "expected a value, found a bare word");
            return false;
        }
        ps->p = s;
        if ((n = new_node(ps, type, parent)) == DM_NONE)
            return false;
        ps->p = s + len;
    } else {
        fail(ps, ps->p, "expected a value, found '%c'", c);
        return false;
    }
    ps->js->nodes[n].end = ps->p;
    ps->js->nodes[n].key_start = key_start;
    ps->js->nodes[n].key_end = key_end;
    return true;
}

bool dm_sjson__parse(dm_sjson_t *js, const char *text, size_t len, const char *filename, char *err,
                     size_t err_size)
{
    *js = (dm_sjson_t){.text = text, .len = (uint32_t)len};
    ps_t ps = {.js = js,
               .t = text,
               .len = (uint32_t)len,
               .filename = filename,
               .err = err,
               .err_size = err_size};
    if (err && err_size)
        err[0] = 0;
    if (len >= UINT32_MAX) {
        fail(&ps, 0, "text larger than 4 GiB");
        return false;
    }
    uint32_t root = new_node(&ps, DM_J_OBJECT, DM_NONE);
    if (root == DM_NONE)
        return false;
    skip_space(&ps);
    bool ok;
    /* A JSON file's root braces are explicit; SJSON's are implied. */
    if (ps.p < ps.len && text[ps.p] == '{') {
        js->nodes[root].start = ps.p++;
        ok = parse_members(&ps, root, '}');
        skip_space(&ps);
        if (ok && ps.p < ps.len) {
            fail(&ps, ps.p, "text after the root object");
            ok = false;
        }
    } else {
        js->nodes[root].start = 0;
        ok = parse_members(&ps, root, 0);
    }
    js->nodes[root].end = (uint32_t)len;
    return ok && !ps.failed;
}

void dm_sjson__free(dm_sjson_t *js)
{
    ct_free(ct_heap_allocator(), js->nodes, (size_t)js->capacity * sizeof *js->nodes);
    js->nodes = NULL;
    js->count = js->capacity = 0;
}

static int hexv(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : 0;
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

/* Decodes the token [s, e) into out (room for e - s + 1 bytes: decoding never lengthens): a
 * quoted string (escapes resolved; the scan checked them) or a bare word (copied). A \u0000
 * becomes U+FFFD: the model's strings hold no NUL. Returns the decoded length. */
static uint32_t decode_into(const char *t, uint32_t s, uint32_t e, char *out)
{
    bool quoted = e > s && t[s] == '"';
    if (quoted) {
        s++;
        e--;
    }
    char *o = out;
    if (!quoted || !memchr(t + s, '\\', e - s)) {
        memcpy(out, t + s, e - s);
        out[e - s] = 0;
        return e - s;
    }
    for (uint32_t i = s; i < e;) {
        if (!quoted || t[i] != '\\' || i + 1 >= e) {
            *o++ = t[i++];
            continue;
        }
        char c = t[i + 1];
        if (c != 'u') {
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
            const char *f = strchr(from, c);
            *o++ = f ? to[f - from] : c;
            i += 2;
            continue;
        }
        uint32_t cp = 0;
        for (int k = 2; k < 6 && i + (uint32_t)k < e; k++)
            cp = cp << 4 | (uint32_t)hexv(t[i + (uint32_t)k]);
        i += 6;
        if (cp >= 0xd800 && cp <= 0xdbff && i + 6 <= e && t[i] == '\\' && t[i + 1] == 'u') {
            uint32_t lo = 0;
            for (int k = 2; k < 6; k++)
                lo = lo << 4 | (uint32_t)hexv(t[i + (uint32_t)k]);
            if (lo >= 0xdc00 && lo <= 0xdfff) {
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                i += 6;
            }
        }
        if (cp == 0 || (cp >= 0xd800 && cp <= 0xdfff))
            cp = 0xfffd;
        o = put_utf8(o, cp);
    }
    *o = 0;
    return (uint32_t)(o - out);
}

static char *decode_span(const char *t, uint32_t s, uint32_t e, uint32_t *out_len)
{
    char *out = malloc((size_t)(e - s) + 1);
    if (!out)
        return NULL;
    uint32_t n = decode_into(t, s, e, out);
    if (out_len)
        *out_len = n;
    return out;
}

uint32_t dm_sjson__decode_to(const dm_sjson_t *js, uint32_t node, bool key, char *buf, size_t cap)
{
    const dm_node_t *n = &js->nodes[node];
    uint32_t s = key ? n->key_start : n->start, e = key ? n->key_end : n->end;
    if ((size_t)(e - s) + 1 > cap)
        return UINT32_MAX;
    return decode_into(js->text, s, e, buf);
}

char *dm_sjson__decode(const dm_sjson_t *js, uint32_t node, bool key, uint32_t *len)
{
    const dm_node_t *n = &js->nodes[node];
    return key ? decode_span(js->text, n->key_start, n->key_end, len)
               : decode_span(js->text, n->start, n->end, len);
}

bool dm_sjson__key_is(const dm_sjson_t *js, uint32_t node, const char *key)
{
    const dm_node_t *n = &js->nodes[node];
    size_t kl = strlen(key);
    const char *t = js->text + n->key_start;
    uint32_t len = n->key_end - n->key_start;
    if (len == kl && memcmp(t, key, kl) == 0)
        return true;
    if (len == kl + 2 && t[0] == '"' && memcmp(t + 1, key, kl) == 0)
        return true;
    if (len < 2 || t[0] != '"' || !memchr(t, '\\', len))
        return false;
    char *d = decode_span(js->text, n->key_start, n->key_end, NULL);
    bool eq = d && strcmp(d, key) == 0;
    free(d);
    return eq;
}

uint32_t dm_sjson__get(const dm_sjson_t *js, uint32_t obj, const char *key)
{
    if (js->nodes[obj].type != DM_J_OBJECT)
        return DM_NONE;
    for (uint32_t m = js->nodes[obj].first; m != DM_NONE; m = js->nodes[m].next) {
        if (dm_sjson__key_is(js, m, key))
            return m;
    }
    return DM_NONE;
}
