/* WebSocket frames as editor_ws.h says: the strict reader, the server's header, the handshake. */
#include "editor/editor_ws.h"

#include <stdio.h>
#include <string.h>

#include "ct_array.h"
#include "ct_memory.h"

void editor_ws_reader__init(editor_ws_reader_t *r, ct_allocator_t *allocator, uint32_t max_message)
{
    memset(r, 0, sizeof *r);
    r->allocator = allocator;
    r->max_message = max_message;
    r->header_want = 2;
}

void editor_ws_reader__free(editor_ws_reader_t *r)
{
    if (r->message)
        ct_free(r->allocator, r->message, (size_t)r->message_capacity + 1);
    r->message = NULL;
    r->message_capacity = r->message_size = 0;
    r->message_opcode = 0;
}

bool editor_ws_reader__partial(const editor_ws_reader_t *r)
{
    return r->header_have > 0 || r->frame_length > r->frame_have || r->message_opcode != 0 ||
           (r->header_want > 2 && r->header_have == 0);
}

bool editor_ws__utf8_valid(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        uint32_t need, cp, min;
        if ((c & 0xe0) == 0xc0) {
            need = 1, cp = c & 0x1fu, min = 0x80;
        } else if ((c & 0xf0) == 0xe0) {
            need = 2, cp = c & 0x0fu, min = 0x800;
        } else if ((c & 0xf8) == 0xf0) {
            need = 3, cp = c & 0x07u, min = 0x10000;
        } else {
            return false;
        }
        if (n - i <= need)
            return false;
        for (uint32_t k = 1; k <= need; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return false;
            cp = (cp << 6) | (s[i + k] & 0x3fu);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        i += need + 1;
    }
    return true;
}

static int fail(char *err, size_t err_size, int code, const char *why)
{
    snprintf(err, err_size, "%s", why);
    return code;
}

static bool close_code_valid(uint32_t code)
{
    return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1011) ||
           (code >= 3000 && code <= 4999);
}

/* Checks a complete header; sets the frame's fields. Returns 0 or a close code. */
static int take_header(editor_ws_reader_t *r, char *err, size_t err_size)
{
    const uint8_t *h = r->header;
    r->fin = (h[0] & 0x80) != 0;
    r->opcode = h[0] & 0x0f;
    uint64_t len = h[1] & 0x7fu;
    const uint8_t *m = h + 2;
    if (len == 126) {
        len = (uint64_t)h[2] << 8 | h[3];
        if (len < 126)
            return fail(err, err_size, 1002,
                        "a 16-bit frame length below 126 (not the shortest form)");
        m = h + 4;
    } else if (len == 127) {
        len = 0;
        for (int i = 0; i < 8; i++)
            len = len << 8 | h[2 + i];
        if (len >> 63)
            return fail(err, err_size, 1002, "a 64-bit frame length with its top bit set");
        if (len <= 0xffff)
            return fail(err, err_size, 1002,
                        "a 64-bit frame length below 65536 (not the shortest form)");
        m = h + 10;
    }
    memcpy(r->mask, m, 4);
    r->frame_length = len;
    r->frame_have = 0;
    bool control = r->opcode >= 8;
    if (control && (!r->fin || len > 125)) {
        snprintf(err, err_size, "control frame (opcode %u) %s", (unsigned)r->opcode,
                 !r->fin ? "fragmented" : "longer than 125 bytes");
        return 1002;
    }
    if (control)
        return 0;
    if (r->opcode == 0 && !r->message_opcode)
        return fail(err, err_size, 1002, "a continuation frame outside a fragmented message");
    if (r->opcode != 0 && r->message_opcode)
        return fail(err, err_size, 1002,
                    "a new message inside a fragmented one (want a continuation)");
    uint64_t total = (uint64_t)r->message_size + len;
    if (total > r->max_message) {
        snprintf(err, err_size, "a message of %llu bytes or more (limit %u)",
                 (unsigned long long)total, (unsigned)r->max_message);
        return 1009;
    }
    if (r->opcode != 0)
        r->message_opcode = r->opcode;
    if (total > r->message_capacity) {
        /* Grow to what the frame needs (doubling), never past the limit (total is within it). */
        uint64_t cap = ct_array_capacity(r->message_capacity, (uint32_t)total, 256);
        if (cap == 0 || cap > r->max_message)
            cap = r->max_message;
        uint8_t *p = ct_realloc(r->allocator, r->message,
                                r->message ? (size_t)r->message_capacity + 1 : 0, (size_t)cap + 1);
        if (!p)
            return fail(err, err_size, 1011, "out of memory for a message");
        r->message = p;
        r->message_capacity = (uint32_t)cap;
    }
    return 0;
}

/* A frame's payload is complete: hands over a control message, or the data message if final. */
static int end_frame(editor_ws_reader_t *r, editor_ws_message_f on_message, void *ctx, bool *go,
                     char *err, size_t err_size)
{
    *go = true;
    if (r->opcode >= 8) {
        uint32_t n = (uint32_t)r->frame_length;
        r->control[n] = 0;
        if (r->opcode == EDITOR_WS_CLOSE && n) {
            uint32_t code = n >= 2 ? (uint32_t)r->control[0] << 8 | r->control[1] : 0;
            if (n == 1 || !close_code_valid(code))
                return fail(err, err_size, 1002, "a close frame with a bad status code");
            if (!editor_ws__utf8_valid(r->control + 2, n - 2))
                return fail(err, err_size, 1007, "a close reason that is not UTF-8");
        }
        r->messages++;
        *go = on_message(ctx, r->opcode, r->control, n);
        return 0;
    }
    r->message_size += (uint32_t)r->frame_length;
    if (!r->fin)
        return 0;
    uint32_t opcode = r->message_opcode, size = r->message_size;
    uint8_t empty = 0;
    uint8_t *payload = r->message ? r->message : &empty;
    payload[size] = 0;
    r->message_opcode = 0;
    r->message_size = 0;
    if (opcode == EDITOR_WS_TEXT && !editor_ws__utf8_valid(payload, size))
        return fail(err, err_size, 1007, "a text message that is not UTF-8");
    r->messages++;
    *go = on_message(ctx, opcode, payload, size);
    return 0;
}

int editor_ws_reader__feed(editor_ws_reader_t *r, const uint8_t *data, size_t n,
                           editor_ws_message_f on_message, void *ctx, char *err, size_t err_size)
{
    size_t i = 0;
    while (i < n || (r->header_want == 0 && r->frame_have == r->frame_length)) {
        if (r->header_want) {
            while (i < n && r->header_have < r->header_want) {
                r->header[r->header_have++] = data[i++];
                if (r->header_have == 2) {
                    uint8_t b0 = r->header[0], b1 = r->header[1];
                    if (b0 & 0x70)
                        return fail(err, err_size, 1002,
                                    "RSV bits set (no extension was negotiated)");
                    uint8_t op = b0 & 0x0f;
                    if (!(op <= 2 || (op >= 8 && op <= 10))) {
                        snprintf(err, err_size, "unknown opcode %u", (unsigned)op);
                        return 1002;
                    }
                    if (!(b1 & 0x80))
                        return fail(err, err_size, 1002, "an unmasked frame (clients must mask)");
                    uint32_t len7 = b1 & 0x7fu;
                    r->header_want = 2 + (len7 == 126 ? 2 : len7 == 127 ? 8 : 0) + 4;
                }
            }
            if (r->header_have < r->header_want)
                return 0;
            int rc = take_header(r, err, err_size);
            if (rc)
                return rc;
            r->header_want = 0;
            r->header_have = 0;
        }
        uint8_t *dst = r->opcode >= 8 ? r->control : r->message;
        if (r->opcode < 8 && r->frame_length)
            dst += r->message_size;
        while (i < n && r->frame_have < r->frame_length) {
            dst[r->frame_have] = data[i++] ^ r->mask[r->frame_have & 3];
            r->frame_have++;
        }
        if (r->frame_have < r->frame_length)
            return 0;
        bool go;
        int rc = end_frame(r, on_message, ctx, &go, err, err_size);
        r->header_want = 2;
        r->frame_length = r->frame_have = 0;
        if (rc)
            return rc;
        if (!go)
            return 0;
    }
    return 0;
}

size_t editor_ws__header(uint8_t out[10], uint32_t opcode, uint64_t length)
{
    out[0] = (uint8_t)(0x80 | (opcode & 0x0f));
    if (length < 126) {
        out[1] = (uint8_t)length;
        return 2;
    }
    if (length <= 0xffff) {
        out[1] = 126;
        out[2] = (uint8_t)(length >> 8);
        out[3] = (uint8_t)length;
        return 4;
    }
    out[1] = 127;
    for (int i = 0; i < 8; i++)
        out[2 + i] = (uint8_t)(length >> (56 - 8 * i));
    return 10;
}

static uint32_t rol(uint32_t x, int k) { return x << k | x >> (32 - k); }

static void sha1_block(uint32_t h[5], const uint8_t *p)
{
    uint32_t w[80];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 80; i++)
        w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int i = 0; i < 80; i++) {
        uint32_t f, k;
        if (i < 20)
            f = (b & c) | (~b & d), k = 0x5a827999u;
        else if (i < 40)
            f = b ^ c ^ d, k = 0x6ed9eba1u;
        else if (i < 60)
            f = (b & c) | (b & d) | (c & d), k = 0x8f1bbcdcu;
        else
            f = b ^ c ^ d, k = 0xca62c1d6u;
        uint32_t t = rol(a, 5) + f + e + k + w[i];
        e = d, d = c, c = rol(b, 30), b = a, a = t;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
}

void editor_ws__sha1(const void *data, size_t n, uint8_t digest[20])
{
    uint32_t h[5] = {0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u, 0xc3d2e1f0u};
    const uint8_t *p = data;
    size_t i = 0;
    for (; i + 64 <= n; i += 64)
        sha1_block(h, p + i);
    uint8_t tail[128] = {0};
    size_t rest = n - i;
    memcpy(tail, p + i, rest);
    tail[rest] = 0x80;
    size_t blocks = rest + 9 > 64 ? 2 : 1;
    uint64_t bits = (uint64_t)n * 8;
    for (int k = 0; k < 8; k++)
        tail[blocks * 64 - 1 - k] = (uint8_t)(bits >> (8 * k));
    for (size_t b = 0; b < blocks; b++)
        sha1_block(h, tail + 64 * b);
    for (int k = 0; k < 5; k++) {
        digest[4 * k] = (uint8_t)(h[k] >> 24);
        digest[4 * k + 1] = (uint8_t)(h[k] >> 16);
        digest[4 * k + 2] = (uint8_t)(h[k] >> 8);
        digest[4 * k + 3] = (uint8_t)h[k];
    }
}

void editor_ws__accept_key(const char *key, size_t key_len, char out[EDITOR_WS_ACCEPT_SIZE + 1])
{
    static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char joined[128 + sizeof guid];
    if (key_len > 128)
        key_len = 128; /* the reader refuses longer keys; this only keeps the buffer safe */
    memcpy(joined, key, key_len);
    memcpy(joined + key_len, guid, sizeof guid - 1);
    uint8_t d[21] = {0};
    editor_ws__sha1(joined, key_len + sizeof guid - 1, d);
    char *o = out;
    for (int i = 0; i < 21; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16 | (uint32_t)d[i + 1] << 8 | d[i + 2];
        *o++ = b64[v >> 18 & 63];
        *o++ = b64[v >> 12 & 63];
        *o++ = b64[v >> 6 & 63];
        *o++ = b64[v & 63];
    }
    out[EDITOR_WS_ACCEPT_SIZE - 1] = '='; /* 20 bytes: 27 characters and one pad */
    out[EDITOR_WS_ACCEPT_SIZE] = 0;
}
