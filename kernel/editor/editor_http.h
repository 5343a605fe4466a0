/*
 * The editor's HTTP/1.1 request reader: just enough of the protocol for a page, its files, the
 * rendered frame and the WebSocket upgrade, strict and bounded, with no I/O of its own (the
 * server, the tests and the fuzz target share it).
 *
 * Accepted: `GET` or `HEAD`, an origin-form target (`/path?query`), `HTTP/1.1` or `HTTP/1.0`,
 * header lines `Name: value` (tokens for names, visible ASCII, spaces and tabs for values),
 * CRLF line ends, at most EDITOR_HTTP_MAX_HEADER bytes up to the blank line. Refused, each with
 * the status to answer and a reason: any other method (405), a request with a body
 * (Content-Length other than 0, Transfer-Encoding: 413), a target that is not a plain path
 * (400: no '%', '\', "..", "//", control bytes; 414 past EDITOR_HTTP_MAX_PATH), other versions
 * (505), headers too large (431), bare LF or folded lines (400), a missing or repeated Host
 * (400). Requests may follow each other on one connection (keep-alive, pipelined).
 */
#ifndef CT_KERNEL_EDITOR_HTTP_H
#define CT_KERNEL_EDITOR_HTTP_H

#include <stddef.h>

#include "ct_types.h"

#define EDITOR_HTTP_MAX_HEADER 8192u
#define EDITOR_HTTP_MAX_PATH 256u

typedef struct editor_http_request_t {
    bool head; /* HEAD: answer without the body */
    bool http10;
    bool keep_alive;        /* HTTP/1.1 unless "Connection: close"; 1.0 never */
    bool upgrade_websocket; /* "Upgrade: websocket" and "Connection: ... upgrade ..." */
    char path[EDITOR_HTTP_MAX_PATH];
    char query[512]; /* after '?', "" if none */
    char host[128];
    char origin[160];   /* "" when absent */
    char ws_key[64];    /* Sec-WebSocket-Key, "" when absent */
    char ws_version[8]; /* Sec-WebSocket-Version */
} editor_http_request_t;

typedef struct editor_http_reader_t {
    char buf[EDITOR_HTTP_MAX_HEADER];
    uint32_t have;
} editor_http_reader_t;

/* Feeds bytes; stops at the end of one request. Returns 1 with *req filled when a request is
 * complete, 0 when more bytes are needed, or the HTTP status to refuse with (400, 405, 413, 414,
 * 431, 505) with the reason in err (the connection cannot go on). *used says how many of the
 * `n` bytes were taken: the rest belong to the next request (or, after an upgrade, to the
 * WebSocket). */
int editor_http_reader__feed(editor_http_reader_t *r, const uint8_t *data, size_t n, size_t *used,
                             editor_http_request_t *req, char *err, size_t err_size);
/* Whether part of a request has arrived. */
bool editor_http_reader__partial(const editor_http_reader_t *r);
/* Finds `name=value` in a query string; copies value (no percent-decoding: values the editor
 * uses are plain). Returns whether found and it fit. */
bool editor_http__query_value(const char *query, const char *name, char *out, size_t out_size);
/* The standard reason phrase of a status ("Not Found"). */
const char *editor_http__reason(int status);

#endif
