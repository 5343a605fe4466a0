/* The editor's wire: WebSocket frames (RFC 6455, strict), HTTP requests, and the page's JSON
 * messages. Every refusal is asserted by its code (close code, HTTP status, ct_error), and the
 * good paths by the exact bytes or fields they produce. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/memory.h"
#include "editor/editor_http.h"
#include "editor/editor_message.h"
#include "editor/editor_pixels.h"
#include "editor/editor_ws.h"

static ct_allocator_t *alloc;

typedef struct got_t {
    uint32_t count;
    uint32_t opcode[8];
    char text[8][256];
    uint32_t length[8];
} got_t;

static bool on_message(void *ctx, uint32_t opcode, const uint8_t *payload, uint32_t length)
{
    got_t *g = ctx;
    if (g->count < 8) {
        g->opcode[g->count] = opcode;
        g->length[g->count] = length;
        snprintf(g->text[g->count], sizeof g->text[0], "%.*s", (int)(length < 255 ? length : 255),
                 (const char *)payload);
    }
    g->count++;
    return true;
}

/* A masked client frame: header + mask + masked payload into out; returns its size. */
static size_t client_frame(uint8_t *out, uint8_t b0, const void *payload, size_t n)
{
    static const uint8_t mask[4] = {0x37, 0xfa, 0x21, 0x3d};
    size_t h = 0;
    out[h++] = b0;
    if (n < 126) {
        out[h++] = (uint8_t)(0x80 | n);
    } else if (n <= 0xffff) {
        out[h++] = 0x80 | 126;
        out[h++] = (uint8_t)(n >> 8);
        out[h++] = (uint8_t)n;
    } else {
        out[h++] = 0x80 | 127;
        for (int i = 7; i >= 0; i--)
            out[h++] = (uint8_t)((uint64_t)n >> (8 * i));
    }
    memcpy(out + h, mask, 4);
    h += 4;
    for (size_t i = 0; i < n; i++)
        out[h + i] = ((const uint8_t *)payload)[i] ^ mask[i & 3];
    return h + n;
}

static int feed(editor_ws_reader_t *r, const uint8_t *data, size_t n, got_t *g, char *err)
{
    return editor_ws_reader__feed(r, data, n, on_message, g, err, 256);
}

static void ws_text_whole_and_byte_by_byte(void **state)
{
    (void)state;
    uint8_t buf[64];
    size_t n = client_frame(buf, 0x81, "Hello", 5);
    for (int split = 0; split < 2; split++) {
        editor_ws_reader_t r;
        editor_ws_reader__init(&r, alloc, 1024);
        got_t g = {0};
        char err[256];
        if (split) {
            for (size_t i = 0; i < n; i++)
                assert_int_equal(feed(&r, buf + i, 1, &g, err), 0);
        } else {
            assert_int_equal(feed(&r, buf, n, &g, err), 0);
        }
        assert_int_equal(g.count, 1);
        assert_int_equal(g.opcode[0], EDITOR_WS_TEXT);
        assert_string_equal(g.text[0], "Hello");
        assert_false(editor_ws_reader__partial(&r));
        editor_ws_reader__free(&r);
    }
}

static void ws_fragments_joined_with_ping_between(void **state)
{
    (void)state;
    uint8_t buf[128];
    size_t n = client_frame(buf, 0x01, "Hel", 3); /* text, not final */
    n += client_frame(buf + n, 0x89, "p", 1);     /* ping in between */
    n += client_frame(buf + n, 0x80, "lo", 2);    /* continuation, final */
    n += client_frame(buf + n, 0x82, "", 0);      /* an empty binary message */
    editor_ws_reader_t r;
    editor_ws_reader__init(&r, alloc, 1024);
    got_t g = {0};
    char err[256];
    assert_int_equal(feed(&r, buf, n, &g, err), 0);
    assert_int_equal(g.count, 3);
    assert_int_equal(g.opcode[0], EDITOR_WS_PING);
    assert_string_equal(g.text[0], "p");
    assert_int_equal(g.opcode[1], EDITOR_WS_TEXT);
    assert_string_equal(g.text[1], "Hello");
    assert_int_equal(g.opcode[2], EDITOR_WS_BINARY);
    assert_int_equal(g.length[2], 0);
    editor_ws_reader__free(&r);
}

static void ws_16_bit_length(void **state)
{
    (void)state;
    static uint8_t payload[300], buf[400];
    memset(payload, 'a', sizeof payload);
    size_t n = client_frame(buf, 0x81, payload, sizeof payload);
    editor_ws_reader_t r;
    editor_ws_reader__init(&r, alloc, 1024);
    got_t g = {0};
    char err[256];
    assert_int_equal(feed(&r, buf, n, &g, err), 0);
    assert_int_equal(g.count, 1);
    assert_int_equal(g.length[0], 300);
    editor_ws_reader__free(&r);
}

/* Each bad frame: the close code the reader answers with, and nothing delivered. */
static void expect_refused(const uint8_t *buf, size_t n, uint32_t max, int code)
{
    editor_ws_reader_t r;
    editor_ws_reader__init(&r, alloc, max);
    got_t g = {0};
    char err[256] = "";
    assert_int_equal(feed(&r, buf, n, &g, err), code);
    assert_int_equal(g.count, 0);
    assert_true(err[0] != 0);
    editor_ws_reader__free(&r);
}

static void ws_bad_frames_refused(void **state)
{
    (void)state;
    uint8_t buf[300];
    size_t n;
    /* unmasked */
    uint8_t unmasked[] = {0x81, 0x02, 'h', 'i'};
    expect_refused(unmasked, sizeof unmasked, 1024, 1002);
    /* RSV1 set */
    n = client_frame(buf, 0xc1, "hi", 2);
    expect_refused(buf, n, 1024, 1002);
    /* unknown opcode 3 */
    n = client_frame(buf, 0x83, "hi", 2);
    expect_refused(buf, n, 1024, 1002);
    /* a fragmented ping */
    n = client_frame(buf, 0x09, "p", 1);
    expect_refused(buf, n, 1024, 1002);
    /* a continuation with no message begun */
    n = client_frame(buf, 0x80, "x", 1);
    expect_refused(buf, n, 1024, 1002);
    /* a new text inside a fragmented one */
    n = client_frame(buf, 0x01, "a", 1);
    n += client_frame(buf + n, 0x81, "b", 1);
    expect_refused(buf, n, 1024, 1002);
    /* invalid UTF-8 in text (an overlong '/') */
    n = client_frame(buf, 0x81, "\xc0\xaf", 2);
    expect_refused(buf, n, 1024, 1007);
    /* a UTF-16 surrogate encoded in UTF-8 */
    n = client_frame(buf, 0x81, "\xed\xa0\x80", 3);
    expect_refused(buf, n, 1024, 1007);
    /* a message over the limit, refused at its header (before any payload) */
    uint8_t big[] = {0x81, 0x80 | 126, 0x01, 0x00, 1, 2, 3, 4};
    expect_refused(big, sizeof big, 200, 1009);
    /* a 16-bit length under 126 (not the shortest form) */
    uint8_t longform[] = {0x81, 0x80 | 126, 0x00, 0x05, 1, 2, 3, 4};
    expect_refused(longform, sizeof longform, 1024, 1002);
    /* a 64-bit length with its top bit set */
    uint8_t huge[] = {0x82, 0x80 | 127, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4};
    expect_refused(huge, sizeof huge, 1024, 1002);
    /* a close with a reserved status code (1005 may not be sent) */
    n = client_frame(buf, 0x88, "\x03\xed", 2);
    expect_refused(buf, n, 1024, 1002);
    /* a control frame over 125 bytes */
    static uint8_t long_ping[126];
    n = client_frame(buf, 0x89, long_ping, sizeof long_ping);
    expect_refused(buf, n, 1024, 1002);
}

static void ws_fragments_count_against_the_limit(void **state)
{
    (void)state;
    uint8_t buf[300], part[90];
    memset(part, 'x', sizeof part);
    size_t n = client_frame(buf, 0x01, part, 90);
    n += client_frame(buf + n, 0x00, part, 90);
    n += client_frame(buf + n, 0x80, part, 90); /* 270 > 200 */
    expect_refused(buf, n, 200, 1009);
}

static void ws_close_good(void **state)
{
    (void)state;
    uint8_t buf[64];
    size_t n = client_frame(buf, 0x88,
                            "\x03\xe8"
                            "bye",
                            5);
    editor_ws_reader_t r;
    editor_ws_reader__init(&r, alloc, 1024);
    got_t g = {0};
    char err[256];
    assert_int_equal(feed(&r, buf, n, &g, err), 0);
    assert_int_equal(g.count, 1);
    assert_int_equal(g.opcode[0], EDITOR_WS_CLOSE);
    assert_int_equal(g.length[0], 5);
    editor_ws_reader__free(&r);
}

static void ws_server_header_and_accept_key(void **state)
{
    (void)state;
    uint8_t h[10];
    assert_int_equal(editor_ws__header(h, EDITOR_WS_TEXT, 5), 2);
    assert_int_equal(h[0], 0x81);
    assert_int_equal(h[1], 5);
    assert_int_equal(editor_ws__header(h, EDITOR_WS_TEXT, 300), 4);
    assert_int_equal(h[1], 126);
    assert_int_equal(h[2] << 8 | h[3], 300);
    assert_int_equal(editor_ws__header(h, EDITOR_WS_BINARY, 70000), 10);
    assert_int_equal(h[1], 127);
    /* RFC 6455 section 1.3's example. */
    char accept[EDITOR_WS_ACCEPT_SIZE + 1];
    editor_ws__accept_key("dGhlIHNhbXBsZSBub25jZQ==", 24, accept);
    assert_string_equal(accept, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
    /* SHA-1 of "abc" (FIPS 180 example) */
    uint8_t d[20];
    editor_ws__sha1("abc", 3, d);
    assert_int_equal(d[0], 0xa9);
    assert_int_equal(d[19], 0x9d);
}

/* ---- HTTP ---- */

static int http(const char *text, editor_http_request_t *req, char *err)
{
    editor_http_reader_t r = {0};
    size_t used;
    return editor_http_reader__feed(&r, (const uint8_t *)text, strlen(text), &used, req, err, 256);
}

static void http_upgrade_request(void **state)
{
    (void)state;
    editor_http_request_t req;
    char err[256];
    const char *text =
        "GET /ws?token=abc&x=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUpgrade: websocket\r\n"
        "Connection: keep-alive, Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "Sec-WebSocket-Version: 13\r\nOrigin: http://127.0.0.1:8080\r\n\r\n";
    assert_int_equal(http(text, &req, err), 1);
    assert_string_equal(req.path, "/ws");
    assert_string_equal(req.query, "token=abc&x=1");
    assert_string_equal(req.host, "127.0.0.1:8080");
    assert_true(req.upgrade_websocket);
    assert_true(req.keep_alive);
    assert_string_equal(req.ws_key, "dGhlIHNhbXBsZSBub25jZQ==");
    assert_string_equal(req.origin, "http://127.0.0.1:8080");
    char token[16];
    assert_true(editor_http__query_value(req.query, "token", token, sizeof token));
    assert_string_equal(token, "abc");
    assert_false(editor_http__query_value(req.query, "tok", token, sizeof token));
}

static void http_pipelined_requests(void **state)
{
    (void)state;
    const char *text =
        "GET /a.js HTTP/1.1\r\nHost: x\r\n\r\nHEAD /b.css HTTP/1.0\r\nHost: x\r\n\r\n";
    editor_http_reader_t r = {0};
    editor_http_request_t req;
    char err[256];
    size_t used, n = strlen(text);
    assert_int_equal(editor_http_reader__feed(&r, (const uint8_t *)text, n, &used, &req, err, 256),
                     1);
    assert_string_equal(req.path, "/a.js");
    assert_false(req.head);
    assert_int_equal(
        editor_http_reader__feed(&r, (const uint8_t *)text + used, n - used, &used, &req, err, 256),
        1);
    assert_string_equal(req.path, "/b.css");
    assert_true(req.head);
    assert_false(req.keep_alive); /* HTTP/1.0 without keep-alive */
}

static void http_bad_requests_refused(void **state)
{
    (void)state;
    editor_http_request_t req;
    char err[256];
    static const struct {
        const char *text;
        int status;
    } cases[] = {
        {"POST / HTTP/1.1\r\nHost: x\r\n\r\n", 405},
        {"GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505},
        {"GET / FOO\r\nHost: x\r\n\r\n", 400},
        {"GET /../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n", 400},
        {"GET /a/%2e%2e/b HTTP/1.1\r\nHost: x\r\n\r\n", 400},
        {"GET //etc HTTP/1.1\r\nHost: x\r\n\r\n", 400},
        {"GET /.hidden HTTP/1.1\r\nHost: x\r\n\r\n", 400},
        {"GET http://x/ HTTP/1.1\r\nHost: x\r\n\r\n", 400},
        {"GET / HTTP/1.1\r\n\r\n", 400}, /* no Host */
        {"GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", 400},
        {"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n", 413},
        {"GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", 413},
        {"GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", 400},
        {"GET / HTTP/1.1\nHost: x\r\n\r\n", 400}, /* bare LF */
        {"GET / HTTP/1.1\r\nBad Name: x\r\nHost: x\r\n\r\n", 400},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        err[0] = 0;
        int got = http(cases[i].text, &req, err);
        if (got != cases[i].status)
            fail_msg("case %zu (%s): got %d, want %d", i, cases[i].text, got, cases[i].status);
        assert_true(err[0] != 0);
    }
    /* A header block past 8 KiB. */
    char *big = malloc(10000);
    strcpy(big, "GET / HTTP/1.1\r\nHost: x\r\nX: ");
    memset(big + strlen(big), 'a', 9000);
    big[29 + 9000] = 0;
    assert_int_equal(http(big, &req, err), 431);
    free(big);
}

/* ---- messages ---- */

static int decode(const char *json, editor_message_t *m, char *err)
{
    return editor_message__decode(json, strlen(json), m, err, 512);
}

static void message_ops_decoded(void **state)
{
    (void)state;
    editor_message_t m;
    char err[512];
    const char *json =
        "{\"type\":\"ops\",\"id\":7,\"commit\":true,\"ops\":["
        "{\"op\":\"set\",\"object\":\"0000000000000000000000000000f341\",\"key\":\"components."
        "transform.position\","
        "\"value\":{\"vec3\":[1,2,3]},\"base\":\"0001 alice\"},"
        "{\"op\":\"add\",\"object\":\"00000000000000000000000000000000\",\"key\":\"entities\","
        "\"item\":\"0000000000000000000000000000f341\"},"
        "{\"op\":\"set\",\"object\":\"0000000000000000000000000000f341\",\"key\":\"tags\","
        "\"value\":{\"set\":[\"0000000000000000000000000000000a\","
        "\"0000000000000000000000000000000b\"]}},"
        "{\"op\":\"set\",\"object\":\"0000000000000000000000000000f341\",\"key\":\"name\","
        "\"value\":null}]}";
    assert_int_equal(decode(json, &m, err), 0);
    assert_int_equal(m.kind, EDITOR_MSG_OPS);
    assert_true(m.has_id);
    assert_true(m.commit);
    assert_int_equal(m.num_ops, 4);
    assert_int_equal(m.ops[0].kind, CT_DM_OP_SET);
    assert_int_equal(m.ops[0].object.lo, 0xf341);
    assert_string_equal(m.ops[0].key, "components.transform.position");
    assert_int_equal(m.ops[0].value.type, CT_DM_VEC3);
    assert_true(m.ops[0].value.as.v[2] == 3.0);
    assert_string_equal(m.bases[0], "0001 alice");
    assert_int_equal(m.ops[1].kind, CT_DM_OP_ADD);
    assert_int_equal(m.ops[1].item.lo, 0xf341);
    assert_int_equal(m.ops[2].value.type, CT_DM_SET);
    assert_int_equal(m.ops[2].value.size, 2);
    assert_int_equal(m.ops[2].value.as.set[1].lo, 0xb);
    assert_int_equal(m.ops[3].value.type, CT_DM_NULL);
    editor_message__free(&m);
}

static void message_bad_input_refused(void **state)
{
    (void)state;
    static const struct {
        const char *json;
        const char *says; /* a part of the reason */
    } cases[] = {
        {"{\"type\":\"opz\"}", "did you mean 'ops'"},
        {"{\"type\":\"undo\",\"extra\":1}", "field of a 'undo' message 'extra' is unknown"},
        {"[1,2]", "must be a JSON object"},
        {"{\"type\":\"ops\"", "bad JSON"},
        {"{\"type\":\"ops\",\"ops\":[]}", "1..4096"},
        {"{\"type\":\"ops\",\"ops\":[{\"op\":\"sett\",\"object\":"
         "\"00000000000000000000000000000001\"}]}",
         "did you mean 'set'"},
        {"{\"type\":\"ops\",\"ops\":[{\"op\":\"create\",\"object\":\"123\"}]}", "32 hex digits"},
        {"{\"type\":\"ops\",\"ops\":[{\"op\":\"create\",\"object\":"
         "\"00000000000000000000000000000001\",\"key\":\"a\"}]}",
         "field 'key' is unknown"},
        {"{\"type\":\"ops\",\"ops\":[{\"op\":\"set\",\"object\":"
         "\"00000000000000000000000000000001\",\"key\":\"p\","
         "\"value\":{\"vec3\":[1,2]}}]}",
         "list of 3 numbers"},
        {"{\"type\":\"ops\",\"ops\":[{\"op\":\"set\",\"object\":"
         "\"00000000000000000000000000000001\",\"key\":\"p\","
         "\"value\":{\"vec4\":[1,2,3,4]}}]}",
         "value kind 'vec4' is unknown"},
        {"{\"type\":\"ops\",\"ops\":[{\"op\":\"set\",\"object\":"
         "\"00000000000000000000000000000001\",\"key\":\"\","
         "\"value\":1}]}",
         "1..255 bytes"},
        {"{\"type\":\"ops\",\"ops\":[{\"op\":\"set\",\"object\":"
         "\"00000000000000000000000000000001\",\"key\":\"p\"}]}",
         "needs a field 'value'"},
        {"{\"type\":\"hello\",\"user\":\"\"}", "1..32 bytes"},
        {"{\"type\":\"hello\",\"user\":\"a\\\"b\"}", "quotes"},
        {"{\"type\":\"pick\",\"x\":2,\"y\":0}", "[0, 1]"},
        {"{\"type\":\"camera\",\"zoom\":1e9}", "within +-100"},
        {"{\"type\":\"delete\",\"objects\":[]}", "1..4096"},
        {"{\"type\":\"undo\",\"id\":\"x\"}", "'id' must be a finite number"},
        {"{\"type\":\"ops\",\"ops\":[1]} trailing", "text after the object"},
        {"{\"type\":\"view\"}", "needs a field 'visible'"},
        {"{\"type\":\"view\",\"visible\":0}", "true or false"},
        {"{\"type\":\"view\",\"visble\":true}", "did you mean 'visible'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        editor_message_t m;
        char err[512] = "";
        int r = decode(cases[i].json, &m, err);
        if (r != CT_ERR_BAD_DATA || !strstr(err, cases[i].says))
            fail_msg("case %zu (%s): got %d '%s', want '%s'", i, cases[i].json, r, err,
                     cases[i].says);
        assert_null(m.root);
        assert_null(m.ops);
    }
}

static void message_hello_camera_pick(void **state)
{
    (void)state;
    editor_message_t m;
    char err[512];
    assert_int_equal(decode("{\"type\":\"hello\",\"user\":\"alice\",\"session\":\"abc\"}", &m, err),
                     0);
    assert_string_equal(m.user, "alice");
    assert_string_equal(m.session, "abc");
    editor_message__free(&m);
    assert_int_equal(decode("{\"type\":\"camera\",\"orbit\":[3,-4],\"zoom\":-1.5}", &m, err), 0);
    assert_true(m.orbit[0] == 3 && m.orbit[1] == -4 && m.zoom == -1.5);
    editor_message__free(&m);
    assert_int_equal(decode("{\"type\":\"pick\",\"x\":0.25,\"y\":1}", &m, err), 0);
    assert_true(m.x == 0.25 && m.y == 1);
    editor_message__free(&m);
    assert_int_equal(
        decode("{\"type\":\"reparent\",\"object\":\"00000000000000000000000000000002\","
               "\"parent\":\"00000000000000000000000000000000\"}",
               &m, err),
        0);
    assert_int_equal(m.num_objects, 1);
    assert_int_equal(m.objects[0].lo, 2);
    assert_true(m.has_parent && ct_guid_is_root(m.parent));
    editor_message__free(&m);
    assert_int_equal(decode("{\"type\":\"view\",\"visible\":false}", &m, err), 0);
    assert_int_equal(m.kind, EDITOR_MSG_VIEW);
    assert_false(m.visible);
    editor_message__free(&m);
    assert_int_equal(decode("{\"type\":\"view\",\"visible\":true}", &m, err), 0);
    assert_true(m.visible);
    editor_message__free(&m);
}

/* ---- frame pixels: the rectangle that changed, and the message a page gets ---- */

static void pixels_changed_rectangle(void **state)
{
    (void)state;
    enum { W = 8, H = 6 };
    uint8_t a[W * H * 4], b[W * H * 4];
    for (size_t i = 0; i < sizeof a; i++)
        a[i] = (uint8_t)(i * 7);
    memcpy(b, a, sizeof a);
    uint32_t x = 9, y = 9, w = 9, h = 9;
    editor_pixels__changed(a, b, W, H, &x, &y, &w, &h);
    assert_true(x == 0 && y == 0 && w == 0 && h == 0);
    b[(3 * W + 5) * 4 + 3] ^= 1; /* only the alpha of (5, 3) */
    editor_pixels__changed(a, b, W, H, &x, &y, &w, &h);
    assert_true(x == 5 && y == 3 && w == 1 && h == 1);
    b[(1 * W + 1) * 4] ^= 0x80; /* and (1, 1): the box spans both */
    editor_pixels__changed(a, b, W, H, &x, &y, &w, &h);
    assert_true(x == 1 && y == 1 && w == 5 && h == 3);
    b[(5 * W + 7) * 4 + 1] ^= 2; /* the last pixel of the last row */
    editor_pixels__changed(a, b, W, H, &x, &y, &w, &h);
    assert_true(x == 1 && y == 1 && w == 7 && h == 5);
    memcpy(b, a, sizeof a);
    b[0] ^= 1; /* the first pixel alone */
    editor_pixels__changed(a, b, W, H, &x, &y, &w, &h);
    assert_true(x == 0 && y == 0 && w == 1 && h == 1);
}

static void pixels_kind_for_a_page(void **state)
{
    (void)state;
    editor_pixels_t p = {.width = 4, .height = 2, .serial = 7, .has_change = true};
    assert_int_equal(editor_pixels__kind(&p, 0), EDITOR_PIXELS_WHOLE);  /* a new page */
    assert_int_equal(editor_pixels__kind(&p, 6), EDITOR_PIXELS_CHANGE); /* has the one before */
    assert_int_equal(editor_pixels__kind(&p, 7), EDITOR_PIXELS_SAME);   /* has these */
    assert_int_equal(editor_pixels__kind(&p, 5), EDITOR_PIXELS_WHOLE);  /* missed one */
    p.has_change = false; /* the size changed, or the first of the thread's */
    assert_int_equal(editor_pixels__kind(&p, 6), EDITOR_PIXELS_WHOLE);
    p.serial = 0; /* drawn on the main thread: never patched */
    assert_int_equal(editor_pixels__kind(&p, 0), EDITOR_PIXELS_WHOLE);
}

static uint32_t get32(const uint8_t *p)
{
    return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* What the page does with a message (tools/editor/editor.js, drawPixels) on its canvas. */
static void page_draws(uint8_t *canvas, uint32_t width, const uint8_t *msg, size_t size)
{
    assert_true(size >= EDITOR_PIXELS_HEADER);
    assert_int_equal(get32(msg + 4), width);
    const uint32_t x = get32(msg + 12), y = get32(msg + 16), w = get32(msg + 20),
                   h = get32(msg + 24);
    assert_int_equal(size, EDITOR_PIXELS_HEADER + (size_t)w * h * 4);
    for (uint32_t r = 0; r < h; r++)
        memcpy(canvas + ((size_t)(y + r) * width + x) * 4,
               msg + EDITOR_PIXELS_HEADER + (size_t)r * w * 4, (size_t)w * 4);
}

static void pixels_messages_patch_the_page(void **state)
{
    (void)state;
    enum { W = 40, H = 24, N = W * H * 4 };
    static uint8_t frames[6][N], canvas[N], msg[EDITOR_PIXELS_HEADER + N];
    uint32_t seed = 12345;
    for (size_t i = 0; i < N; i++)
        frames[0][i] = (uint8_t)((seed = seed * 1103515245u + 12345u) >> 16);
    /* Each frame moves a box of changed pixels (frame 3 changes nothing). */
    for (int f = 1; f < 6; f++) {
        memcpy(frames[f], frames[f - 1], N);
        for (uint32_t y = 2u * f; f != 3 && y < 2u * f + 5; y++)
            for (uint32_t x = 5u * f; x < 5u * f + 3; x++)
                frames[f][(y * W + x) * 4 + (x + y) % 4] ^= 0x5a;
    }
    editor_pixels_t p = {.width = W, .height = H};
    /* Frame 0 goes whole to a new page; after it only rectangles; the canvas follows. */
    for (int f = 0; f < 6; f++) {
        p.rgba = frames[f];
        p.serial = (uint64_t)f + 1;
        p.has_change = f > 0;
        if (f)
            editor_pixels__changed(frames[f - 1], frames[f], W, H, &p.x, &p.y, &p.w, &p.h);
        const editor_pixels_kind kind = editor_pixels__kind(&p, (uint64_t)f);
        assert_int_equal(kind, f ? EDITOR_PIXELS_CHANGE : EDITOR_PIXELS_WHOLE);
        const size_t size = editor_pixels__size(&p, kind);
        editor_pixels__write(&p, kind, 100u + (uint32_t)f, msg);
        assert_int_equal(get32(msg), 100 + f);
        if (f == 1) /* rows 2..6 of columns 5..7 */
            assert_true(get32(msg + 12) == 5 && get32(msg + 16) == 2 && get32(msg + 20) == 3 &&
                        get32(msg + 24) == 5 && size == EDITOR_PIXELS_HEADER + 3 * 5 * 4);
        if (f == 3) /* nothing changed: an empty rectangle, the header alone */
            assert_int_equal(size, EDITOR_PIXELS_HEADER);
        page_draws(canvas, W, msg, size);
        assert_memory_equal(canvas, frames[f], N);
    }
    /* A page that has these pixels already gets the header saying so. */
    assert_int_equal(editor_pixels__size(&p, EDITOR_PIXELS_SAME), EDITOR_PIXELS_HEADER);
    editor_pixels__write(&p, EDITOR_PIXELS_SAME, 200, msg);
    assert_true(get32(msg) == 200 && get32(msg + 4) == W && get32(msg + 8) == H &&
                get32(msg + 20) == 0 && get32(msg + 24) == 0);
}

static int setup(void **state)
{
    (void)state;
    memory__init(0);
    alloc = memory__create(NULL, "test_editor_protocol");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    assert_int_equal(memory__destroy(alloc), 0); /* no leak */
    memory__shutdown();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ws_text_whole_and_byte_by_byte),
        cmocka_unit_test(ws_fragments_joined_with_ping_between),
        cmocka_unit_test(ws_16_bit_length),
        cmocka_unit_test(ws_bad_frames_refused),
        cmocka_unit_test(ws_fragments_count_against_the_limit),
        cmocka_unit_test(ws_close_good),
        cmocka_unit_test(ws_server_header_and_accept_key),
        cmocka_unit_test(http_upgrade_request),
        cmocka_unit_test(http_pipelined_requests),
        cmocka_unit_test(http_bad_requests_refused),
        cmocka_unit_test(message_ops_decoded),
        cmocka_unit_test(message_bad_input_refused),
        cmocka_unit_test(message_hello_camera_pick),
        cmocka_unit_test(pixels_changed_rectangle),
        cmocka_unit_test(pixels_kind_for_a_page),
        cmocka_unit_test(pixels_messages_patch_the_page),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
