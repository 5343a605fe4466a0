/* Fuzz target: what a page's connection runs on the bytes it sends: the HTTP reader (requests
 * split at an input-chosen point, as TCP may split them), then the WebSocket reader on the rest,
 * and the message decoder on every text message and on the whole input as a bare message. */
#include <stdint.h>
#include <stdio.h>

#include "base/memory.h"
#include "editor/editor_http.h"
#include "editor/editor_message.h"
#include "editor/editor_ws.h"

static bool on_message(void *ctx, uint32_t opcode, const uint8_t *payload, uint32_t length)
{
    (void)ctx;
    if (opcode == EDITOR_WS_TEXT) {
        editor_message_t m;
        char err[512];
        if (editor_message__decode((const char *)payload, length, &m, err, sizeof err) == 0)
            editor_message__free(&m);
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ct_allocator_t *a;
    if (!a) {
        memory__init(0);
        a = memory__create(NULL, "fuzz_editor");
    }
    size_t split = size ? data[0] % (size + 1) : 0;
    /* HTTP: feed the first part, then the rest, as a server would. */
    static editor_http_reader_t http;
    http.have = 0;
    editor_http_request_t req;
    char err[256];
    size_t used = 0, at = 0;
    int r = editor_http_reader__feed(&http, data, split, &used, &req, err, sizeof err);
    at = used;
    if (r == 0 && at < size) {
        r = editor_http_reader__feed(&http, data + at, size - at, &used, &req, err, sizeof err);
        at += used;
    }
    /* WebSocket on the bytes after the request (or on all of them if none completed). */
    editor_ws_reader_t ws;
    editor_ws_reader__init(&ws, a, 4096);
    const uint8_t *rest = r == 1 ? data + at : data;
    size_t n = r == 1 ? size - at : size;
    size_t half = n / 2;
    if (editor_ws_reader__feed(&ws, rest, half, on_message, NULL, err, sizeof err) == 0)
        editor_ws_reader__feed(&ws, rest + half, n - half, on_message, NULL, err, sizeof err);
    editor_ws_reader__partial(&ws);
    editor_ws_reader__free(&ws);
    on_message(NULL, EDITOR_WS_TEXT, data, (uint32_t)size);
    return 0;
}
