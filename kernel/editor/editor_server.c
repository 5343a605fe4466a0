/* The editor's HTTP + WebSocket server on the console's transport (editor.h). */
#include "editor/editor_internal.h"

#include <cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <uv.h>

#include "base/log.h"
#include "ct_memory.h"

/* The largest static file served (the page and its scripts are far smaller). */
#define MAX_STATIC_FILE (4u << 20)

static struct {
    console_server_t server;
    bool running;
    bool loopback; /* bound to loopback: Host must name this machine */
    ct_allocator_t *allocator;
    char static_dir[PATH_MAX];
    uint8_t *frame;
    size_t frame_size;
} g_srv;

const char *editor_server__peer(const editor_conn_t *c) { return c->client->peer; }

uint32_t editor_server__port(void) { return (uint32_t)g_srv.server.port; }

static void conn_log(editor_conn_t *c, ct_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void conn_log(editor_conn_t *c, ct_log_level level, const char *fmt, ...)
{
    char text[600];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    console_server__log(c->client, level, text);
}

/* ---- static files ---- */

/* Where the page is: $CUTTLE_EDITOR_DIR, else installed beside the engine
 * (<datadir>/cuttle/editor, found from the program's path), else the source tree's tools/editor. */
static bool find_static_dir(char *out, size_t size)
{
    struct stat st;
    const char *env = getenv("CUTTLE_EDITOR_DIR");
    if (env && *env) {
        snprintf(out, size, "%s", env);
        return stat(out, &st) == 0 && S_ISDIR(st.st_mode);
    }
    char exe[PATH_MAX];
    size_t len = sizeof exe;
    if (uv_exepath(exe, &len) == 0) {
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = 0;
            int n = snprintf(out, size, "%s/%s", exe, CUTTLE_EDITOR_FROM_BINDIR);
            if (n > 0 && (size_t)n < size && stat(out, &st) == 0 && S_ISDIR(st.st_mode))
                return true;
        }
    }
    snprintf(out, size, "%s", CUTTLE_EDITOR_SOURCE_DIR);
    return stat(out, &st) == 0 && S_ISDIR(st.st_mode);
}

static const char *content_type(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (!dot)
        return "application/octet-stream";
    if (!strcmp(dot, ".html"))
        return "text/html; charset=utf-8";
    if (!strcmp(dot, ".js"))
        return "text/javascript; charset=utf-8";
    if (!strcmp(dot, ".css"))
        return "text/css; charset=utf-8";
    if (!strcmp(dot, ".png"))
        return "image/png";
    if (!strcmp(dot, ".svg"))
        return "image/svg+xml";
    if (!strcmp(dot, ".json"))
        return "application/json";
    return "application/octet-stream";
}

/* Sends a whole response: status line, headers, body (not for HEAD). */
static void respond(editor_conn_t *c, const editor_http_request_t *req, int status,
                    const char *type, const void *body, size_t size)
{
    char head[512];
    bool keep = req && req->keep_alive && status < 400;
    int n =
        snprintf(head, sizeof head,
                 "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                 "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n"
                 "Connection: %s\r\n\r\n",
                 status, editor_http__reason(status), type, size, keep ? "keep-alive" : "close");
    bool with_body = !(req && req->head) && size;
    size_t total = (size_t)n + (with_body ? size : 0);
    uint8_t *buf = ct_alloc(g_srv.allocator, total);
    if (!buf) {
        conn_log(c, CT_LOG_ERROR, "out of memory for a response; disconnected");
        console_server__close(c->client);
        return;
    }
    memcpy(buf, head, (size_t)n);
    if (with_body)
        memcpy(buf + n, body, size);
    console_server__send_raw(c->client, buf, total);
    ct_free(g_srv.allocator, buf, total);
    if (!keep) {
        c->closing = true;
        console_server__close(c->client);
    }
}

/* Refuses a request: a plain-text reason to the page and a log line with its address. */
static void refuse(editor_conn_t *c, const editor_http_request_t *req, int status, const char *why)
{
    conn_log(c, CT_LOG_WARNING, "HTTP %d: %s", status, why);
    char body[320];
    int n = snprintf(body, sizeof body, "%d %s: %s\n", status, editor_http__reason(status), why);
    respond(c, req, status, "text/plain; charset=utf-8", body, (size_t)n);
}

static void serve_file(editor_conn_t *c, const editor_http_request_t *req)
{
    const char *rel = strcmp(req->path, "/") == 0 ? "/index.html" : req->path;
    char path[PATH_MAX + EDITOR_HTTP_MAX_PATH];
    snprintf(path, sizeof path, "%s%s", g_srv.static_dir, rel);
    /* The reader already refused '..', '.'-segments, '%' and '\'; links out of the folder are
     * refused here by comparing the resolved path. */
    char real[PATH_MAX];
    struct stat st;
    size_t dir_len = strlen(g_srv.static_dir);
    if (!realpath(path, real) || stat(real, &st) != 0 || !S_ISREG(st.st_mode) ||
        strncmp(real, g_srv.static_dir, dir_len) != 0 || real[dir_len] != '/') {
        refuse(c, req, 404, "no such file in the editor's page");
        return;
    }
    if ((uint64_t)st.st_size > MAX_STATIC_FILE) {
        refuse(c, req, 500, "the file is larger than the editor serves");
        return;
    }
    FILE *f = fopen(real, "rb");
    size_t size = (size_t)st.st_size;
    uint8_t *data = f ? ct_alloc(g_srv.allocator, size ? size : 1) : NULL;
    if (!f || !data || fread(data, 1, size, f) != size) {
        if (data)
            ct_free(g_srv.allocator, data, size ? size : 1);
        if (f)
            fclose(f);
        refuse(c, req, 500, "the file could not be read");
        return;
    }
    fclose(f);
    respond(c, req, 200, content_type(real), data, size);
    ct_free(g_srv.allocator, data, size ? size : 1);
}

/* Whether Host names this machine when the server is on loopback (so a page of another site
 * cannot reach the editor through DNS rebinding). */
static bool host_allowed(const char *host)
{
    if (!g_srv.loopback)
        return true;
    char name[128];
    snprintf(name, sizeof name, "%s", host);
    char *colon = name[0] == '[' ? strstr(name, "]:") : strrchr(name, ':');
    if (colon)
        colon[name[0] == '[' ? 1 : 0] = 0;
    return !strcmp(name, "127.0.0.1") || !strcmp(name, "localhost") || !strcmp(name, "[::1]");
}

static void upgrade(editor_conn_t *c, const editor_http_request_t *req)
{
    if (strcmp(req->ws_version, "13") != 0) {
        refuse(c, req, 426, "WebSocket version 13 only");
        return;
    }
    size_t key_len = strlen(req->ws_key);
    if (key_len != 24) {
        refuse(c, req, 400, "a Sec-WebSocket-Key of 16 bytes (24 base64 characters) is needed");
        return;
    }
    /* A page of another origin must not drive the editor with the user's browser. */
    if (req->origin[0]) {
        char want[200];
        snprintf(want, sizeof want, "http://%s", req->host);
        if (strcmp(req->origin, want) != 0) {
            refuse(c, req, 403, "the page's Origin is not this editor");
            return;
        }
    }
    char accept[EDITOR_WS_ACCEPT_SIZE + 1];
    editor_ws__accept_key(req->ws_key, key_len, accept);
    char head[256];
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n",
                     accept);
    console_server__send_raw(c->client, head, (size_t)n);
    c->websocket = true;
    editor_ws_reader__init(&c->ws, g_srv.allocator, EDITOR_MAX_MESSAGE);
    conn_log(c, CT_LOG_INFO, "page connected");
}

static void on_request(editor_conn_t *c, const editor_http_request_t *req)
{
    if (!host_allowed(req->host)) {
        refuse(c, req, 403,
               "the Host header does not name this machine (the editor listens on loopback)");
        return;
    }
    if (g_srv.server.need_token) {
        char token[CONSOLE_MAX_TOKEN];
        if (!editor_http__query_value(req->query, "token", token, sizeof token) ||
            !console_server__token_matches(&g_srv.server, token, strlen(token))) {
            refuse(c, req, 401, "this editor wants its token: open /?token=T");
            return;
        }
    }
    if (!strcmp(req->path, "/ws")) {
        if (!req->upgrade_websocket)
            refuse(c, req, 426, "/ws is the editor's WebSocket: upgrade to it");
        else
            upgrade(c, req);
    } else if (req->upgrade_websocket) {
        refuse(c, req, 404, "the WebSocket is at /ws");
    } else if (!strcmp(req->path, "/frame.png")) {
        if (!editor_world__png() || !g_srv.frame)
            refuse(c, req, 503, "no frame has been rendered yet");
        else
            respond(c, req, 200, "image/png", g_srv.frame, g_srv.frame_size);
    } else {
        serve_file(c, req);
    }
}

/* ---- WebSocket ---- */

static void send_frame(editor_conn_t *c, uint32_t opcode, const void *payload, size_t len)
{
    if (!c->websocket || c->closing)
        return;
    uint8_t head[10];
    size_t h = editor_ws__header(head, opcode, len);
    uint8_t small[512];
    uint8_t *buf = h + len <= sizeof small ? small : ct_alloc(g_srv.allocator, h + len);
    if (!buf) {
        conn_log(c, CT_LOG_ERROR, "out of memory for a message; disconnected");
        console_server__close(c->client);
        return;
    }
    memcpy(buf, head, h);
    if (len)
        memcpy(buf + h, payload, len);
    console_server__send_raw(c->client, buf, h + len);
    if (buf != small)
        ct_free(g_srv.allocator, buf, h + len);
}

void editor_server__send(editor_conn_t *c, const char *json, size_t len)
{
    send_frame(c, EDITOR_WS_TEXT, json, len);
}

void editor_server__broadcast(const char *json, size_t len, const editor_conn_t *except)
{
    console_server_t *s = &g_srv.server;
    for (uint32_t i = 0; i < s->num_clients; i++) {
        editor_conn_t *c = s->clients[i]->service_data;
        if (c && c != except && c->user && !c->closing)
            editor_server__send(c, json, len);
    }
}

void editor_server__send_pixels(uint64_t frame, const editor_pixels_t *pixels)
{
    /* Each kind of message is written once, for the first page that needs it. */
    uint8_t *msg[3] = {NULL, NULL, NULL};
    size_t size[3] = {0, 0, 0};
    console_server_t *s = &g_srv.server;
    for (uint32_t i = 0; i < s->num_clients; i++) {
        editor_conn_t *c = s->clients[i]->service_data;
        if (!c || !c->pixels || c->hidden || !c->user || c->closing || c->pixels_sent == frame ||
            uv_stream_get_write_queue_size((uv_stream_t *)&c->client->tcp) != 0)
            continue;
        const editor_pixels_kind kind = editor_pixels__kind(pixels, c->pixels_serial);
        if (!msg[kind]) {
            size[kind] = editor_pixels__size(pixels, kind);
            msg[kind] = ct_alloc(g_srv.allocator, size[kind]);
            if (!msg[kind])
                break;
            editor_pixels__write(pixels, kind, frame, msg[kind]);
        }
        c->pixels_sent = frame;
        c->pixels_serial = pixels->serial;
        send_frame(c, EDITOR_WS_BINARY, msg[kind], size[kind]);
    }
    for (int k = 0; k < 3; k++)
        if (msg[k])
            ct_free(g_srv.allocator, msg[k], size[k]);
}

void editor_server__close(editor_conn_t *c, uint32_t code, const char *why)
{
    if (c->closing)
        return;
    conn_log(c, CT_LOG_WARNING, "WebSocket closed (%u): %s", (unsigned)code, why);
    uint8_t payload[125];
    size_t n = strlen(why);
    if (n > sizeof payload - 2)
        n = sizeof payload - 2;
    payload[0] = (uint8_t)(code >> 8);
    payload[1] = (uint8_t)code;
    memcpy(payload + 2, why, n);
    send_frame(c, EDITOR_WS_CLOSE, payload, n + 2);
    c->closing = true;
    console_server__close(c->client);
}

void editor_server__error(editor_conn_t *c, const editor_message_t *m, const char *fmt, ...)
{
    char why[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(why, sizeof why, fmt, args);
    va_end(args);
    conn_log(c, CT_LOG_WARNING, "%s", why);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", "error");
    cJSON_AddStringToObject(o, "error", why);
    if (m && m->has_id)
        cJSON_AddNumberToObject(o, "id", m->id);
    char *json = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (json) {
        editor_server__send(c, json, strlen(json));
        cJSON_free(json);
    }
}

static bool on_message(void *ctx, uint32_t opcode, const uint8_t *payload, uint32_t length)
{
    editor_conn_t *c = ctx;
    if (c->closing)
        return false;
    switch (opcode) {
    case EDITOR_WS_PING: send_frame(c, EDITOR_WS_PONG, payload, length); break;
    case EDITOR_WS_PONG: break;
    case EDITOR_WS_CLOSE:
        /* Echo the close, as the protocol asks, then hang up. */
        conn_log(c, CT_LOG_INFO, "page closed the connection");
        send_frame(c, EDITOR_WS_CLOSE, payload, length >= 2 ? 2 : 0);
        c->closing = true;
        console_server__close(c->client);
        return false;
    case EDITOR_WS_BINARY:
        editor_server__error(c, NULL, "binary messages are not accepted (send JSON text)");
        break;
    default: {
        editor_message_t m;
        char err[512];
        int r = editor_message__decode((const char *)payload, length, &m, err, sizeof err);
        if (r) {
            editor_server__error(c, NULL, "%s", err);
            break;
        }
        if (!c->user && m.kind != EDITOR_MSG_HELLO)
            editor_server__error(c, &m, "send {\"type\":\"hello\",\"user\":...} first");
        else
            editor_session__handle(c, &m);
        editor_message__free(&m);
    }
    }
    return !c->closing;
}

/* ---- the transport's callbacks ---- */

static bool on_bytes(console_server_t *s, console_client_t *client, const uint8_t *bytes, size_t n)
{
    (void)s;
    editor_conn_t *c = client->service_data;
    if (!c) {
        c = ct_alloc(g_srv.allocator, sizeof *c);
        if (!c) {
            console_server__log(client, CT_LOG_ERROR,
                                "out of memory for a connection; disconnected");
            console_server__close(client);
            return false;
        }
        memset(c, 0, sizeof *c);
        c->client = client;
        client->service_data = c;
    }
    while (n && !c->closing) {
        if (c->websocket) {
            char err[256];
            int code = editor_ws_reader__feed(&c->ws, bytes, n, on_message, c, err, sizeof err);
            if (code)
                editor_server__close(c, (uint32_t)code, err);
            break;
        }
        editor_http_request_t req;
        size_t used;
        char err[256];
        int r = editor_http_reader__feed(&c->http, bytes, n, &used, &req, err, sizeof err);
        bytes += used;
        n -= used;
        if (r == 1) {
            on_request(c, &req);
        } else if (r > 1) {
            refuse(c, NULL, r, err);
            c->closing = true;
            console_server__close(client);
        }
    }
    console_server__frame_begun(client, !c->closing &&
                                            (c->websocket ? editor_ws_reader__partial(&c->ws)
                                                          : editor_http_reader__partial(&c->http)));
    return !c->closing;
}

static void on_close(console_server_t *s, console_client_t *client)
{
    (void)s;
    editor_conn_t *c = client->service_data;
    if (!c)
        return;
    if (c->websocket)
        conn_log(c, CT_LOG_INFO, "page disconnected");
    editor_session__conn_closed(c);
    editor_ws_reader__free(&c->ws);
    client->service_data = NULL;
    ct_free(g_srv.allocator, c, sizeof *c);
}

static void unused_handler(console_server_t *s, console_client_t *c, const console_message_t *m)
{
    (void)s, (void)c, (void)m;
}

void editor_server__set_frame(const void *png, size_t size)
{
    if (g_srv.frame)
        ct_free(g_srv.allocator, g_srv.frame, g_srv.frame_size);
    g_srv.frame = size ? ct_alloc(g_srv.allocator, size) : NULL;
    g_srv.frame_size = g_srv.frame ? size : 0;
    if (g_srv.frame)
        memcpy(g_srv.frame, png, size);
}

int editor_server__start(const editor_options_t *o, uv_loop_t *loop, ct_allocator_t *allocator)
{
    memset(&g_srv, 0, sizeof g_srv);
    g_srv.allocator = allocator;
    char dir[PATH_MAX];
    if (!find_static_dir(dir, sizeof dir) || !realpath(dir, g_srv.static_dir)) {
        log__error("editor: the page's folder '%s' is missing (set CUTTLE_EDITOR_DIR, or install "
                   "the engine)",
                   dir);
        return CT_ERR_NOT_FOUND;
    }
    const char *token = o->token ? o->token : getenv("CUTTLE_EDITOR_TOKEN");
    console_server_desc_t desc = {
        .what = "editor",
        .bind = o->bind,
        .port = o->port,
        .token = token && *token ? token : NULL,
        .token_option = "--editor-token or CUTTLE_EDITOR_TOKEN",
        .handler = unused_handler,
        .on_close = on_close,
        .max_clients = EDITOR_MAX_CLIENTS,
        .on_bytes = on_bytes,
    };
    int r = console_server__start(&g_srv.server, loop, allocator, &desc);
    if (r)
        return r;
    g_srv.running = true;
    g_srv.loopback = console_server__is_loopback(o->bind ? o->bind : "127.0.0.1");
    return 0;
}

void editor_server__stop(void)
{
    if (g_srv.running)
        console_server__stop(&g_srv.server);
    g_srv.running = false;
    editor_server__set_frame(NULL, 0);
}
