/*
 * The transport the engine's TCP services share (the console, the file server, and the editor's
 * HTTP + WebSocket server in kernel/editor): listening, clients, framing, limits, the token,
 * errors. What a message means is up to the service's handler.
 *
 * A service that speaks another protocol (the editor) sets `on_bytes` in its desc: the server
 * then sends no hello, runs no console framing and no auth message, and hands it every byte read;
 * the service frames, authenticates (console_server__token_matches) and replies with
 * console_server__send_raw, under the same queue limit, client limit, and partial-frame timeout
 * (it marks a frame begun with console_server__frame_begun).
 *
 * Limits (each breach is an error frame to that client and a log line naming it):
 *   - a frame's payload: CONSOLE_MAX_PAYLOAD (1 MiB); more closes the connection;
 *   - bytes queued to a client that does not read: CONSOLE_MAX_QUEUED (4 MiB) left unread when a
 *     reply is due closes it (one reply may be up to CONSOLE_MAX_BLOB);
 *   - clients at once: CONSOLE_MAX_CLIENTS (32); the next is told so and closed; of them at most
 *     CONSOLE_MAX_UNAUTHED (8) not yet authenticated: a newcomer closes the oldest such one;
 *   - a frame begun must be complete within CONSOLE_FRAME_TIMEOUT_MS (10 s), and with a token,
 *     the first message must be a good "auth" within the same time;
 *   - CUTTLE_NO_TIMEOUTS=1 in the environment switches every timeout off (for debuggers).
 *
 * A client whose peer address is not loopback (127.0.0.0/8, ::1, or ::ffff:127.x.y.z) is marked
 * `remote`. For tests only, CUTTLE_TEST_CONSOLE_REMOTE=1 in the engine's environment also marks
 * remote every client of a server that wants a token (a loopback connection cannot be told
 * from a remote one otherwise on a machine with no other address).
 */
#ifndef CT_KERNEL_CONSOLE_SERVER_H
#define CT_KERNEL_CONSOLE_SERVER_H

#include <uv.h>

#include "console/console_frame.h"
#include "console/console_message.h"

#define CONSOLE_MAX_QUEUED (4u << 20)
#define CONSOLE_MAX_CLIENTS 32u
/* The most clients any service may allow at once (console_server_desc_t.max_clients). */
#define CONSOLE_SERVER_MAX_CLIENTS 128u
/* Clients that have not sent the token yet hold at most this many of the slots; a newcomer
 * past it closes the oldest of them, so idle strangers never lock the operators out. */
#define CONSOLE_MAX_UNAUTHED 8u
#define CONSOLE_FRAME_TIMEOUT_MS 10000u
#define CONSOLE_MAX_TOKEN 256u

typedef struct console_client_t console_client_t;
typedef struct console_server_t console_server_t;

/* Handles one decoded message from an authenticated client. */
typedef void (*console_handler_f)(console_server_t *server, console_client_t *client,
                                  const console_message_t *m);

typedef struct console_server_desc_t {
    const char *what;         /* "console" or "file server": the prefix of every log line */
    const char *bind;         /* NULL: 127.0.0.1 */
    int port;                 /* 0: any free port */
    const char *token;        /* NULL: none (allowed on loopback only) */
    const char *token_option; /* how a user gives the token, for the error; NULL: the console's */
    console_handler_f handler;
    void (*on_close)(console_server_t *server, console_client_t *client); /* may be NULL */
    const char *hello; /* extra JSON fields for the hello message, e.g. "\"project\":\"demo\"" */
    /* 0: CONSOLE_MAX_CLIENTS; at most CONSOLE_SERVER_MAX_CLIENTS. */
    uint32_t max_clients;
    /* Another protocol (see the top): every byte read from client c. Return false when the
     * connection is going away (the service closed it). `handler` is then not called. */
    bool (*on_bytes)(console_server_t *server, console_client_t *c, const uint8_t *bytes, size_t n);
} console_server_desc_t;

struct console_client_t {
    uv_tcp_t tcp;
    console_server_t *server;
    uint32_t id;
    char peer[64];
    console_reader_t reader;
    uint64_t connected_ms;
    uint64_t frame_began_ms; /* when the current partial frame began; 0: none */
    bool authed;
    bool closing;
    /* The peer is not a loopback address: its scripts run in a sandbox (console_script.c). */
    bool remote;
    /* The console service's subscriptions and pending step reply. */
    bool log_subscribed;
    bool profiler_subscribed;
    ct_log_level log_level;
    bool step_pending;
    bool step_has_id;
    double step_id;
    /* An on_bytes service's own state for this client (it frees it in on_close). */
    void *service_data;
};

struct console_server_t {
    console_server_desc_t desc;
    char what[32];
    char token[CONSOLE_MAX_TOKEN];
    bool need_token;
    uv_loop_t *loop;
    uv_tcp_t listener;
    uv_timer_t timer;
    bool listening, timer_open;
    int port;
    ct_allocator_t *allocator;
    uint32_t max_clients;
    console_client_t *clients[CONSOLE_SERVER_MAX_CLIENTS];
    uint32_t num_clients;
    uint32_t next_id;
    uint32_t open_handles; /* listener, timer and clients not yet closed */
};

/* Whether `addr` is a loopback address (127.0.0.0/8 or ::1). */
bool console_server__is_loopback(const char *addr);
/* Starts listening on `loop`. Returns 0 or a negative ct_error (logged, naming the address). */
int console_server__start(console_server_t *s, uv_loop_t *loop, ct_allocator_t *allocator,
                          const console_server_desc_t *desc);
/* Closes every client and the listener, and runs the loop until they are closed. */
void console_server__stop(console_server_t *s);

/* Sends one JSON frame; a client past CONSOLE_MAX_QUEUED is dropped (logged). */
void console_server__send(console_client_t *c, const char *json, size_t len);
/* Sends a type-1 frame: the JSON then `size` raw bytes. */
void console_server__send_binary(console_client_t *c, const char *json, const void *bytes,
                                 size_t size);
/* Sends {"type":"error","error":why[,"id":id]} and logs "<what>: client N (peer): why". With
 * `fatal` the connection is closed once the error is sent. */
void console_server__error(console_client_t *c, const console_message_t *m, bool fatal,
                           const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Closes the connection after what is queued is sent. */
void console_server__close(console_client_t *c);

/* on_bytes services: queues `n` bytes as they are (a client past CONSOLE_MAX_QUEUED is dropped,
 * logged); logs `text` at `level` naming the client; marks whether a frame (request) has begun
 * and not ended, for the partial-frame timeout. */
void console_server__send_raw(console_client_t *c, const void *bytes, size_t n);
void console_server__log(console_client_t *c, ct_log_level level, const char *text);
void console_server__frame_begun(console_client_t *c, bool begun);
/* Whether `got` is the server's token, compared in constant time (the token cannot be guessed
 * byte by byte from reply times). */
bool console_server__token_matches(const console_server_t *s, const char *got, size_t got_len);

#endif
