/* A blocking client of the console protocol (console_frame.h): connect, send, receive with a
 * timeout. Shared by cuttle-console, cuttle-run and the file client (--host). */
#ifndef CT_CONSOLE_CLIENT_H
#define CT_CONSOLE_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "console/console_frame.h"

typedef struct console_frame_node_t console_frame_node_t;

typedef struct console_conn_t {
    int fd;
    console_reader_t reader;
    console_frame_node_t *first, *last; /* frames read but not yet taken */
    char peer[80];
    char error[512]; /* why the connection failed or closed */
} console_conn_t;

/* Connects to host:port within timeout_ms. Returns 0 or -1 with conn->error set. `max_payload`
 * bounds what the server may send (CONSOLE_MAX_BLOB for file servers). */
int console_conn__open(console_conn_t *c, const char *host, int port, uint32_t max_payload,
                       int timeout_ms);
/* Bounds the payload of the frames that begin from now on (a frame whose header says more is
 * refused at once: nothing of it is buffered, conn->error says so and the connection closes). */
void console_conn__set_max_payload(console_conn_t *c, uint32_t max_payload);
/* Sends a JSON frame. Returns 0 or -1 (conn->error). */
int console_conn__send(console_conn_t *c, const char *json);
/* Sends raw bytes (tests: broken frames). */
int console_conn__send_raw(console_conn_t *c, const void *bytes, size_t n);
/* Frames that begin from now on are allocated from `a` (length + 1 bytes each; NULL: the C
 * heap, the default). Only between frames: false, and nothing changed, while a frame is partly
 * read or frames wait to be taken (and payloads already handed out must be freed first). The
 * file client receives a compiled blob this way straight into the resource allocator. */
bool console_conn__set_allocator(console_conn_t *c, ct_allocator_t *a);
/* Frees a payload console_conn__recv handed out (length as it said). */
void console_conn__free(console_conn_t *c, char *payload, uint32_t length);
/* Takes the next frame, waiting up to timeout_ms: 1 and the frame (free with console_conn__free,
 * or free() while the allocator is the heap), 0 on timeout, -1 when the connection closed or
 * failed (conn->error). The payload is NUL-terminated. A stream that broke the framing (an oversized or unknown frame) is closed:
 * what follows cannot be told apart from a frame. */
int console_conn__recv(console_conn_t *c, int timeout_ms, uint32_t *type, char **payload,
                       uint32_t *length);
/* Reads whatever the socket has without waiting; -1 when closed. */
int console_conn__pump(console_conn_t *c);
void console_conn__close(console_conn_t *c);
/* Splits "host:port", "[v6]:port" or "port" (host 127.0.0.1). Returns 0 or -1. */
int console_conn__parse_address(const char *text, char *host, size_t host_size, int *port);

#endif
