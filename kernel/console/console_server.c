/* Listening, accepting, reading frames, writing replies, and every limit of console_server.h. */
#include "console/console_server.h"

#include <cJSON.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "ct_memory.h"

typedef struct write_req_t {
    uv_write_t req;
    console_client_t *client;
    size_t size; /* of data */
    uint8_t data[];
} write_req_t;

static bool timeouts_off(void)
{
    const char *v = getenv("CUTTLE_NO_TIMEOUTS");
    return v && *v && strcmp(v, "0") != 0;
}

bool console_server__is_loopback(const char *addr)
{
    struct sockaddr_in a4;
    struct sockaddr_in6 a6;
    if (uv_ip4_addr(addr, 0, &a4) == 0)
        return (ntohl(a4.sin_addr.s_addr) >> 24) == 127;
    if (uv_ip6_addr(addr, 0, &a6) == 0)
        return memcmp(&a6.sin6_addr, &in6addr_loopback, sizeof a6.sin6_addr) == 0;
    return false;
}

/* Whether the peer of a connection is on this machine's loopback (an IPv4-mapped IPv6 address
 * counts by its IPv4 part). Anything unknown is not loopback. */
static bool peer_is_loopback(const struct sockaddr_storage *peer)
{
    if (peer->ss_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)peer)->sin_addr.s_addr) >> 24) == 127;
    if (peer->ss_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)peer)->sin6_addr;
        if (IN6_IS_ADDR_V4MAPPED(a))
            return a->s6_addr[12] == 127;
        return memcmp(a, &in6addr_loopback, sizeof *a) == 0;
    }
    return false;
}

static bool test_remote(void)
{
    const char *v = getenv("CUTTLE_TEST_CONSOLE_REMOTE");
    return v && *v && strcmp(v, "0") != 0;
}

void console_server__log(console_client_t *c, ct_log_level level, const char *text)
{
    log__write(NULL, level, "%s: client %u (%s): %s", c->server->what, (unsigned)c->id, c->peer,
               text);
}

static void on_handle_closed(uv_handle_t *h)
{
    console_server_t *s = h->data;
    s->open_handles--;
}

static void on_client_closed(uv_handle_t *h)
{
    console_client_t *c = h->data;
    console_server_t *s = c->server;
    for (uint32_t i = 0; i < s->num_clients; i++)
        if (s->clients[i] == c) {
            s->clients[i] = s->clients[--s->num_clients];
            break;
        }
    if (s->desc.on_close)
        s->desc.on_close(s, c);
    console_reader__free(&c->reader);
    ct_free(s->allocator, c, sizeof *c);
    s->open_handles--;
}

static void close_now(console_client_t *c)
{
    if (uv_is_closing((uv_handle_t *)&c->tcp))
        return;
    c->closing = true;
    uv_close((uv_handle_t *)&c->tcp, on_client_closed);
}

static void on_shutdown(uv_shutdown_t *req, int status)
{
    (void)status;
    console_client_t *c = req->data;
    ct_free(c->server->allocator, req, sizeof *req);
    close_now(c);
}

void console_server__close(console_client_t *c)
{
    if (c->closing)
        return;
    c->closing = true;
    uv_shutdown_t *req = ct_alloc(c->server->allocator, sizeof *req);
    if (req) {
        req->data = c;
        if (uv_shutdown(req, (uv_stream_t *)&c->tcp, on_shutdown) == 0)
            return;
        ct_free(c->server->allocator, req, sizeof *req);
    }
    close_now(c);
}

static void on_written(uv_write_t *req, int status)
{
    write_req_t *w = (write_req_t *)req;
    console_client_t *c = w->client;
    ct_free(c->server->allocator, w, sizeof *w + w->size);
    if (status < 0 && status != UV_ECANCELED && !c->closing) {
        char text[128];
        snprintf(text, sizeof text, "write failed (%s); disconnected", uv_strerror(status));
        console_server__log(c, CT_LOG_WARNING, text);
        close_now(c);
    }
}

/* A write request of `total` bytes for c, or NULL when c is closing, does not read (more than
 * CONSOLE_MAX_QUEUED waits for it) or memory ran out: then c is closed (logged). */
static write_req_t *new_write(console_client_t *c, size_t total)
{
    if (c->closing)
        return NULL;
    size_t queued = uv_stream_get_write_queue_size((uv_stream_t *)&c->tcp);
    /* The queue limit is on what the client left unread before this reply: a reply itself may
     * be as large as a blob (CONSOLE_MAX_BLOB), or a --host node could never load one over a few
     * MiB (and lost the server for every later blob). */
    if (total > CONSOLE_MAX_BLOB + CONSOLE_HEADER_SIZE + 4 || queued > CONSOLE_MAX_QUEUED) {
        char text[160];
        snprintf(text, sizeof text, "not reading: %zu bytes queued (limit %u); disconnected",
                 queued, (unsigned)CONSOLE_MAX_QUEUED);
        console_server__log(c, CT_LOG_WARNING, text);
        close_now(c);
        return NULL;
    }
    write_req_t *w = ct_alloc(c->server->allocator, sizeof *w + total);
    if (!w) {
        console_server__log(c, CT_LOG_ERROR, "out of memory for a reply; disconnected");
        close_now(c);
        return NULL;
    }
    w->client = c;
    w->size = total;
    return w;
}

static void start_write(console_client_t *c, write_req_t *w)
{
    uv_buf_t buf = uv_buf_init((char *)w->data, (unsigned)w->size);
    if (uv_write(&w->req, (uv_stream_t *)&c->tcp, &buf, 1, on_written) != 0) {
        ct_free(c->server->allocator, w, sizeof *w + w->size);
        console_server__log(c, CT_LOG_WARNING, "cannot write; disconnected");
        close_now(c);
    }
}

void console_server__send_raw(console_client_t *c, const void *bytes, size_t n)
{
    write_req_t *w = new_write(c, n);
    if (!w)
        return;
    memcpy(w->data, bytes, n);
    start_write(c, w);
}

/* Queues header + json + bytes as one write. */
static void send_frame(console_client_t *c, uint32_t type, const char *json, size_t json_len,
                       const void *bytes, size_t size)
{
    size_t prefix = type == CONSOLE_FRAME_BINARY ? 4 : 0;
    size_t payload = prefix + json_len + size;
    size_t total = CONSOLE_HEADER_SIZE + payload;
    write_req_t *w = new_write(c, total);
    if (!w)
        return;
    console_frame__header(w->data, type, (uint32_t)payload);
    uint8_t *p = w->data + CONSOLE_HEADER_SIZE;
    if (prefix) {
        p[0] = (uint8_t)(json_len >> 24);
        p[1] = (uint8_t)(json_len >> 16);
        p[2] = (uint8_t)(json_len >> 8);
        p[3] = (uint8_t)json_len;
    }
    memcpy(p + prefix, json, json_len);
    if (size)
        memcpy(p + prefix + json_len, bytes, size);
    start_write(c, w);
}

void console_server__send(console_client_t *c, const char *json, size_t len)
{
    send_frame(c, CONSOLE_FRAME_JSON, json, len, NULL, 0);
}

void console_server__send_binary(console_client_t *c, const char *json, const void *bytes,
                                 size_t size)
{
    send_frame(c, CONSOLE_FRAME_BINARY, json, strlen(json), bytes, size);
}

void console_server__error(console_client_t *c, const console_message_t *m, bool fatal,
                           const char *fmt, ...)
{
    char why[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(why, sizeof why, fmt, args);
    va_end(args);
    char text[600];
    snprintf(text, sizeof text, "%s%s", why, fatal ? "; disconnected" : "");
    console_server__log(c, CT_LOG_WARNING, text);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", "error");
    cJSON_AddStringToObject(o, "error", why);
    cJSON_AddBoolToObject(o, "fatal", fatal);
    if (m && m->has_id)
        cJSON_AddNumberToObject(o, "id", m->id);
    char *json = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (json) {
        console_server__send(c, json, strlen(json));
        cJSON_free(json);
    }
    if (fatal)
        console_server__close(c);
}

bool console_server__token_matches(const console_server_t *s, const char *got, size_t got_len)
{
    const char *want = s->token;
    size_t n = strlen(want);
    unsigned diff = (unsigned)(n ^ got_len);
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned)(want[i] ^ (i < got_len ? got[i] : 0));
    return diff == 0;
}

static bool on_frame(void *ctx, uint32_t type, const uint8_t *payload, uint32_t length)
{
    console_client_t *c = ctx;
    if (c->closing)
        return false;
    if (type != CONSOLE_FRAME_JSON) {
        console_server__error(c, NULL, false,
                              "frame type %u is not accepted from clients (send "
                              "type 0, JSON)",
                              (unsigned)type);
        return true;
    }
    console_message_t m;
    char err[256];
    if (console_message__decode((const char *)payload, length, &m, err, sizeof err)) {
        console_server__error(c, NULL, false, "%s", err);
        return true;
    }
    if (m.kind == CONSOLE_MSG_AUTH) {
        if (c->server->need_token &&
            !console_server__token_matches(c->server, m.text, m.text_len)) {
            console_server__error(c, &m, true, "wrong token");
        } else {
            c->authed = true;
            char ok[96];
            int n = m.has_id ? snprintf(ok, sizeof ok,
                                        "{\"type\":\"auth\",\"ok\":true,\"id\":%.17g}", m.id)
                             : snprintf(ok, sizeof ok, "{\"type\":\"auth\",\"ok\":true}");
            console_server__send(c, ok, (size_t)n);
        }
    } else if (!c->authed) {
        console_server__error(c, &m, true,
                              "this server wants a token: send {\"type\":\"auth\","
                              "\"token\":...} first");
    } else {
        c->server->desc.handler(c->server, c, &m);
    }
    console_message__free(&m);
    return !c->closing;
}

static uint8_t read_buffer[64 * 1024]; /* one loop thread: every read is consumed at once */

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)h;
    (void)suggested;
    *buf = uv_buf_init((char *)read_buffer, sizeof read_buffer);
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
    console_client_t *c = stream->data;
    if (nread < 0) {
        uint64_t have, length;
        char text[160];
        if (console_reader__partial(&c->reader, &have, &length) && length)
            snprintf(text, sizeof text, "closed mid-frame (got %llu of %llu bytes)",
                     (unsigned long long)have, (unsigned long long)length);
        else if (console_reader__partial(&c->reader, &have, &length))
            snprintf(text, sizeof text, "closed mid-header (got %llu of 8 bytes)",
                     (unsigned long long)have);
        else
            snprintf(text, sizeof text, "%s%sdisconnected",
                     nread == UV_EOF ? "" : uv_strerror((int)nread), nread == UV_EOF ? "" : "; ");
        console_server__log(c, have ? CT_LOG_WARNING : CT_LOG_INFO, text);
        close_now(c);
        return;
    }
    if (c->server->desc.on_bytes) {
        c->server->desc.on_bytes(c->server, c, (const uint8_t *)buf->base, (size_t)nread);
        return;
    }
    char err[256];
    int rc = console_reader__feed(&c->reader, (const uint8_t *)buf->base, (size_t)nread, on_frame,
                                  c, err, sizeof err);
    if (rc) {
        console_server__error(c, NULL, true, "%s", err);
        return;
    }
    uint64_t have, length;
    if (!console_reader__partial(&c->reader, &have, &length))
        c->frame_began_ms = 0;
    else if (!c->frame_began_ms)
        c->frame_began_ms = uv_now(c->server->loop);
}

void console_server__frame_begun(console_client_t *c, bool begun)
{
    if (!begun)
        c->frame_began_ms = 0;
    else if (!c->frame_began_ms)
        c->frame_began_ms = uv_now(c->server->loop);
}

static void reject_extra(console_client_t *c)
{
    char why[64];
    snprintf(why, sizeof why, "too many clients (at most %u)", (unsigned)c->server->max_clients);
    if (c->server->desc.on_bytes) {
        /* The service's protocol is not ours to speak: log and close. */
        console_server__log(c, CT_LOG_WARNING, why);
        console_server__close(c);
    } else {
        console_server__error(c, NULL, true, "%s", why);
    }
}

static void on_connection(uv_stream_t *listener, int status)
{
    console_server_t *s = listener->data;
    if (status < 0) {
        log__warning("%s: accept failed: %s", s->what, uv_strerror(status));
        return;
    }
    console_client_t *c = ct_alloc(s->allocator, sizeof *c);
    if (!c) {
        log__error("%s: out of memory for a client", s->what);
        return;
    }
    memset(c, 0, sizeof *c);
    c->server = s;
    c->id = ++s->next_id;
    snprintf(c->peer, sizeof c->peer, "?");
    uv_tcp_init(s->loop, &c->tcp);
    c->tcp.data = c;
    s->open_handles++;
    if (uv_accept(listener, (uv_stream_t *)&c->tcp) != 0) {
        close_now(c);
        return;
    }
    struct sockaddr_storage peer;
    int len = sizeof peer;
    c->remote = true; /* until the peer is known to be loopback */
    if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&peer, &len) == 0) {
        c->remote = !peer_is_loopback(&peer);
        char host[48] = "?";
        int port;
        if (peer.ss_family == AF_INET6) {
            uv_ip6_name((struct sockaddr_in6 *)&peer, host, sizeof host);
            port = ntohs(((struct sockaddr_in6 *)&peer)->sin6_port);
        } else {
            uv_ip4_name((struct sockaddr_in *)&peer, host, sizeof host);
            port = ntohs(((struct sockaddr_in *)&peer)->sin_port);
        }
        snprintf(c->peer, sizeof c->peer, "%s:%d", host, port);
    }
    console_reader__init(&c->reader, s->allocator, CONSOLE_MAX_PAYLOAD);
    /* An on_bytes service authenticates in its own protocol. */
    c->authed = !s->need_token || s->desc.on_bytes;
    if (s->need_token && test_remote())
        c->remote = true;
    c->log_level = CT_LOG_INFO;
    c->connected_ms = uv_now(s->loop);
    uv_tcp_nodelay(&c->tcp, 1);
    /* Strangers (no token yet) share a few slots: the newest one takes the oldest one's. */
    console_client_t *oldest = NULL;
    uint32_t unauthed = 0;
    for (uint32_t i = 0; i < s->num_clients; i++) {
        console_client_t *o = s->clients[i];
        if (o->authed || o->closing)
            continue;
        unauthed++;
        if (!oldest || o->id < oldest->id)
            oldest = o;
    }
    if (!c->authed && oldest &&
        (unauthed >= CONSOLE_MAX_UNAUTHED || s->num_clients == s->max_clients)) {
        console_server__error(oldest, NULL, true, "no auth message before %u newer clients came",
                              (unsigned)CONSOLE_MAX_UNAUTHED);
        for (uint32_t i = 0; i < s->num_clients; i++)
            if (s->clients[i] == oldest) /* its slot is free now; the handle closes later */
                s->clients[i] = s->clients[--s->num_clients];
    }
    if (s->num_clients == s->max_clients) {
        reject_extra(c);
        return;
    }
    s->clients[s->num_clients++] = c;
    if (s->desc.on_bytes) {
        console_server__log(c, CT_LOG_DEBUG, "connected");
        uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
        return;
    }
    console_server__log(c, CT_LOG_INFO,
                        c->remote ? "connected (remote: scripts run sandboxed)" : "connected");
    /* The hello's size is the service's: a file server lists up to FILE_SERVER_MAX_FILES names. */
    const char *format = "{\"type\":\"hello\",\"engine\":\"cuttle\",\"service\":\"%s\",\"pid\":%d,"
                         "\"client\":%u,\"auth\":%s%s%s}";
    const char *extra = s->desc.hello ? s->desc.hello : "";
    int n = snprintf(NULL, 0, format, s->what, (int)getpid(), (unsigned)c->id,
                     s->need_token ? "true" : "false", *extra ? "," : "", extra);
    char *hello = n > 0 ? ct_alloc(s->allocator, (size_t)n + 1) : NULL;
    if (!hello) {
        console_server__log(c, CT_LOG_ERROR, "out of memory for the hello; disconnected");
        close_now(c);
        return;
    }
    snprintf(hello, (size_t)n + 1, format, s->what, (int)getpid(), (unsigned)c->id,
             s->need_token ? "true" : "false", *extra ? "," : "", extra);
    console_server__send(c, hello, (size_t)n);
    ct_free(s->allocator, hello, (size_t)n + 1);
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
}

/* Drops clients whose frame (or authentication) takes too long. */
static void on_timer(uv_timer_t *t)
{
    console_server_t *s = t->data;
    uint64_t now = uv_now(s->loop);
    for (uint32_t i = 0; i < s->num_clients; i++) {
        console_client_t *c = s->clients[i];
        if (c->closing)
            continue;
        uint64_t have, length;
        if (c->frame_began_ms && now - c->frame_began_ms > CONSOLE_FRAME_TIMEOUT_MS &&
            s->desc.on_bytes) {
            char text[96];
            snprintf(text, sizeof text,
                     "a request begun %u ms ago is still incomplete; disconnected",
                     (unsigned)CONSOLE_FRAME_TIMEOUT_MS);
            console_server__log(c, CT_LOG_WARNING, text);
            console_server__close(c);
        } else if (c->frame_began_ms && now - c->frame_began_ms > CONSOLE_FRAME_TIMEOUT_MS) {
            console_reader__partial(&c->reader, &have, &length);
            console_server__error(c, NULL, true,
                                  "a frame begun %u ms ago is still incomplete "
                                  "(got %llu of %llu bytes)",
                                  (unsigned)CONSOLE_FRAME_TIMEOUT_MS, (unsigned long long)have,
                                  (unsigned long long)(length ? length : CONSOLE_HEADER_SIZE));
        } else if (!c->authed && now - c->connected_ms > CONSOLE_FRAME_TIMEOUT_MS) {
            console_server__error(c, NULL, true, "no auth message within %u ms",
                                  (unsigned)CONSOLE_FRAME_TIMEOUT_MS);
        }
    }
}

static int listen_on(console_server_t *s, const char *bind, int port)
{
    struct sockaddr_storage addr;
    if (uv_ip4_addr(bind, port, (struct sockaddr_in *)&addr) != 0 &&
        uv_ip6_addr(bind, port, (struct sockaddr_in6 *)&addr) != 0) {
        log__error("%s: '%s' is not an IPv4 or IPv6 address", s->what, bind);
        return CT_ERR_INVALID;
    }
    uv_tcp_init(s->loop, &s->listener);
    s->listener.data = s;
    s->listening = true;
    s->open_handles++;
    int r = uv_tcp_bind(&s->listener, (const struct sockaddr *)&addr, 0);
    if (!r)
        r = uv_listen((uv_stream_t *)&s->listener, 64, on_connection);
    if (r) {
        log__error("%s: cannot listen on %s port %d: %s", s->what, bind, port, uv_strerror(r));
        return CT_ERR_IO;
    }
    struct sockaddr_storage name;
    int len = sizeof name;
    uv_tcp_getsockname(&s->listener, (struct sockaddr *)&name, &len);
    s->port = ntohs(name.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&name)->sin6_port
                                               : ((struct sockaddr_in *)&name)->sin_port);
    return 0;
}

int console_server__start(console_server_t *s, uv_loop_t *loop, ct_allocator_t *allocator,
                          const console_server_desc_t *desc)
{
    memset(s, 0, sizeof *s);
    /* libuv writes a stream with write(2), which raises SIGPIPE when the client has reset the
     * connection: one client's reset would kill the engine (exit 141). A failed write is an error
     * value (on_written) instead. Done here, not only in main, so every program that embeds the
     * kernel and serves a console or files is covered. A handler someone installed stays. */
    struct sigaction old;
    if (sigaction(SIGPIPE, NULL, &old) == 0 && old.sa_handler == SIG_DFL)
        signal(SIGPIPE, SIG_IGN);
    s->desc = *desc;
    s->loop = loop;
    s->allocator = allocator;
    snprintf(s->what, sizeof s->what, "%s", desc->what);
    s->max_clients = desc->max_clients ? desc->max_clients : CONSOLE_MAX_CLIENTS;
    if (s->max_clients > CONSOLE_SERVER_MAX_CLIENTS)
        s->max_clients = CONSOLE_SERVER_MAX_CLIENTS;
    const char *bind = desc->bind ? desc->bind : "127.0.0.1";
    if (desc->token) {
        if (!desc->token[0] || strlen(desc->token) >= CONSOLE_MAX_TOKEN) {
            log__error("%s: the token must be 1..%u bytes", s->what,
                       (unsigned)CONSOLE_MAX_TOKEN - 1);
            return CT_ERR_INVALID;
        }
        snprintf(s->token, sizeof s->token, "%s", desc->token);
        s->need_token = true;
    } else if (!console_server__is_loopback(bind)) {
        log__error("%s: listening on %s (not loopback) needs a token (%s)", s->what, bind,
                   desc->token_option ? desc->token_option
                                      : "--console-token or CUTTLE_CONSOLE_TOKEN");
        return CT_ERR_INVALID;
    }
    int r = listen_on(s, bind, desc->port);
    if (!r && !timeouts_off()) {
        uv_timer_init(loop, &s->timer);
        s->timer.data = s;
        s->timer_open = true;
        s->open_handles++;
        uv_timer_start(&s->timer, on_timer, 250, 250);
    }
    if (r)
        console_server__stop(s);
    return r;
}

void console_server__stop(console_server_t *s)
{
    while (s->num_clients) {
        console_client_t *c = s->clients[0];
        close_now(c); /* removed from the list when closed */
        s->clients[0] = s->clients[--s->num_clients];
    }
    if (s->listening)
        uv_close((uv_handle_t *)&s->listener, on_handle_closed);
    if (s->timer_open)
        uv_close((uv_handle_t *)&s->timer, on_handle_closed);
    s->listening = s->timer_open = false;
    /* Close callbacks run on the next turns of the loop; a few suffice, the bound is for safety. */
    for (int i = 0; i < 1000 && s->open_handles; i++)
        uv_run(s->loop, UV_RUN_NOWAIT);
}
