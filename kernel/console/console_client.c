/* Plain POSIX sockets and poll(): the tools that use this are single-threaded and block. */

#include "ct_heap.h"
#include "console/console_client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct console_frame_node_t {
    console_frame_node_t *next;
    uint32_t type, length;
    char *payload; /* taken from the reader (its allocator's, length + 1 bytes): never copied */
};

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int console_conn__parse_address(const char *text, char *host, size_t host_size, int *port)
{
    const char *colon = strrchr(text, ':');
    const char *port_text = colon ? colon + 1 : text;
    char *end;
    long p = strtol(port_text, &end, 10);
    if (*end || !*port_text || p < 1 || p > 65535)
        return -1;
    *port = (int)p;
    if (!colon) {
        snprintf(host, host_size, "127.0.0.1");
        return 0;
    }
    size_t n = (size_t)(colon - text);
    if (n >= 2 && text[0] == '[' && text[n - 1] == ']')
        text++, n -= 2;
    if (n == 0 || n >= host_size)
        return -1;
    memcpy(host, text, n);
    host[n] = '\0';
    return 0;
}

int console_conn__open(console_conn_t *c, const char *host, int port, uint32_t max_payload,
                       int timeout_ms)
{
    memset(c, 0, sizeof *c);
    c->fd = -1;
    snprintf(c->peer, sizeof c->peer, "%s:%d", host, port);
    console_reader__init(&c->reader, ct_heap_allocator(), max_payload);
    struct sockaddr_storage addr;
    socklen_t len;
    memset(&addr, 0, sizeof addr);
    struct sockaddr_in *a4 = (struct sockaddr_in *)&addr;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&addr;
    if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t)port);
        len = sizeof *a4;
    } else if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)port);
        len = sizeof *a6;
    } else {
        snprintf(c->error, sizeof c->error, "'%s' is not an IP address", host);
        return -1;
    }
    c->fd = socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (c->fd < 0) {
        snprintf(c->error, sizeof c->error, "socket: %s", strerror(errno));
        return -1;
    }
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(c->fd, (struct sockaddr *)&addr, len) != 0 && errno != EINPROGRESS) {
        snprintf(c->error, sizeof c->error, "cannot connect to %s: %s", c->peer, strerror(errno));
        console_conn__close(c);
        return -1;
    }
    struct pollfd p = {c->fd, POLLOUT, 0};
    int soerr = 0;
    socklen_t soerr_len = sizeof soerr;
    if (poll(&p, 1, timeout_ms) != 1 ||
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &soerr, &soerr_len) != 0 || soerr) {
        snprintf(c->error, sizeof c->error, "cannot connect to %s: %s", c->peer,
                 soerr ? strerror(soerr) : "timed out");
        console_conn__close(c);
        return -1;
    }
    return 0;
}

bool console_conn__set_allocator(console_conn_t *c, ct_allocator_t *a)
{
    if (c->reader.payload || c->first)
        return false;
    c->reader.allocator = a ? a : ct_heap_allocator();
    return true;
}

void console_conn__free(console_conn_t *c, char *payload, uint32_t length)
{
    if (payload)
        ct_free(c->reader.allocator, payload, (size_t)length + 1);
}

void console_conn__set_max_payload(console_conn_t *c, uint32_t max_payload)
{
    c->reader.max_payload = max_payload;
}

int console_conn__send_raw(console_conn_t *c, const void *bytes, size_t n)
{
    if (c->fd < 0)
        return -1; /* closed: conn->error says why */
    const uint8_t *p = bytes;
    int64_t deadline = now_ms() + 10000;
    while (n > 0) {
        ssize_t w = send(c->fd, p, n, MSG_NOSIGNAL);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
            continue;
        }
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && now_ms() < deadline) {
            struct pollfd pf = {c->fd, POLLOUT, 0};
            poll(&pf, 1, 100);
            continue;
        }
        snprintf(c->error, sizeof c->error, "send to %s failed: %s", c->peer,
                 w < 0 ? strerror(errno) : "timed out");
        return -1;
    }
    return 0;
}

int console_conn__send(console_conn_t *c, const char *json)
{
    size_t n = strlen(json);
    uint8_t header[CONSOLE_HEADER_SIZE];
    console_frame__header(header, CONSOLE_FRAME_JSON, (uint32_t)n);
    if (console_conn__send_raw(c, header, sizeof header))
        return -1;
    return console_conn__send_raw(c, json, n);
}

/* Queues the frame, keeping the reader's buffer (a file server's reply may be 256 MiB: a copy
 * would hold it twice). */
static bool on_frame(void *ctx, uint32_t type, const uint8_t *payload, uint32_t length)
{
    (void)payload;
    console_conn_t *c = ctx;
    console_frame_node_t *f = malloc(sizeof *f);
    if (!f)
        return false;
    f->next = NULL;
    f->type = type;
    f->length = length;
    f->payload = (char *)console_reader__take(&c->reader);
    if (c->last)
        c->last->next = f;
    else
        c->first = f;
    c->last = f;
    return true;
}

int console_conn__pump(console_conn_t *c)
{
    if (c->fd < 0)
        return -1;
    uint8_t buf[65536];
    for (;;) {
        ssize_t n = recv(c->fd, buf, sizeof buf, 0);
        if (n > 0) {
            char err[256];
            if (console_reader__feed(&c->reader, buf, (size_t)n, on_frame, c, err, sizeof err)) {
                snprintf(c->error, sizeof c->error, "from %s: %s", c->peer, err);
                close(c->fd);
                c->fd = -1;
                return -1;
            }
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (n < 0 && errno == EINTR)
            continue;
        snprintf(c->error, sizeof c->error, "%s closed the connection%s%s", c->peer,
                 n < 0 ? ": " : "", n < 0 ? strerror(errno) : "");
        return -1;
    }
}

int console_conn__recv(console_conn_t *c, int timeout_ms, uint32_t *type, char **payload,
                       uint32_t *length)
{
    int64_t deadline = now_ms() + timeout_ms;
    bool closed = false;
    for (;;) {
        if (c->first) {
            console_frame_node_t *f = c->first;
            c->first = f->next;
            if (!c->first)
                c->last = NULL;
            *type = f->type;
            *length = f->length;
            *payload = f->payload;
            free(f);
            return 1;
        }
        if (closed || c->fd < 0)
            return -1;
        /* A zero timeout still looks at the socket once. */
        int64_t left = deadline - now_ms();
        struct pollfd p = {c->fd, POLLIN, 0};
        int r = poll(&p, 1, left > 0 ? (int)left : 0);
        if (r < 0 && errno != EINTR)
            return -1;
        if (r > 0 && console_conn__pump(c) < 0)
            closed = true; /* frames already read are still handed out first */
        else if (r == 0 && left <= 0)
            return 0;
    }
}

void console_conn__close(console_conn_t *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    while (c->first) {
        console_frame_node_t *f = c->first;
        c->first = f->next;
        console_conn__free(c, f->payload, f->length);
        free(f);
    }
    c->last = NULL;
    console_reader__free(&c->reader);
}
