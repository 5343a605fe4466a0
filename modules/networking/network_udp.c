/*
 * network_udp.c: real sockets on a libuv loop of the module's own (see network_internal.h).
 */
#include "network_udp.h"

#include <uv.h>

struct net_udp_t {
    ct_allocator_t *a;
    uv_loop_t loop;
    uv_udp_t sock;
    net_node_t *node;
    uint32_t budget; /* datagrams left in this poll */
    uint32_t received;
    uint8_t buf[65536];
};

uint64_t net_udp_now(void) { return uv_hrtime() / 1000u; }

static void to_sockaddr(const net_addr_t *a, struct sockaddr_storage *ss)
{
    memset(ss, 0, sizeof *ss);
    if (a->family == 4) {
        struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
        s4->sin_family = AF_INET;
        s4->sin_port = htons(a->port);
        memcpy(&s4->sin_addr, a->ip, 4);
    } else {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons(a->port);
        memcpy(&s6->sin6_addr, a->ip, 16);
    }
}

static bool from_sockaddr(const struct sockaddr *sa, net_addr_t *a)
{
    memset(a, 0, sizeof *a);
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;
        a->family = 4;
        a->port = ntohs(s4->sin_port);
        memcpy(a->ip, &s4->sin_addr, 4);
        return true;
    }
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;
        a->family = 6;
        a->port = ntohs(s6->sin6_port);
        memcpy(a->ip, &s6->sin6_addr, 16);
        return true;
    }
    return false;
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    net_udp_t *u = h->data;
    *buf = uv_buf_init((char *)u->buf, sizeof u->buf);
}

static void on_recv(uv_udp_t *h, ssize_t n, const uv_buf_t *buf, const struct sockaddr *from,
                    unsigned flags)
{
    (void)buf;
    net_udp_t *u = h->data;
    net_addr_t addr;
    if (n < 0 || !from || !u->node || (flags & UV_UDP_PARTIAL) || !from_sockaddr(from, &addr))
        return;
    u->received++;
    net_node_receive(u->node, &addr, u->buf, (uint32_t)n, net_udp_now());
    if (u->budget && --u->budget == 0)
        uv_stop(&u->loop);
}

int net_udp_open(net_udp_t **out, ct_allocator_t *a, const net_addr_t *bind, net_node_t *node,
                 uint16_t *port)
{
    net_udp_t *u = ct_alloc(a, sizeof *u);
    if (!u)
        return CT_ERR_NOMEM;
    memset(u, 0, sizeof *u);
    u->a = a;
    u->node = node;
    struct sockaddr_storage ss;
    to_sockaddr(bind, &ss);
    int err = uv_loop_init(&u->loop);
    if (err) {
        ct_free(a, u, sizeof *u);
        return CT_ERR_IO;
    }
    uv_udp_init(&u->loop, &u->sock);
    u->sock.data = u;
    err = uv_udp_bind(&u->sock, (const struct sockaddr *)&ss, 0);
    if (!err)
        err = uv_udp_recv_start(&u->sock, on_alloc, on_recv);
    if (!err) {
        /* Generous kernel buffers: a burst of datagrams between two frames must not be dropped. */
        int size = 4 << 20;
        uv_send_buffer_size((uv_handle_t *)&u->sock, &size);
        size = 4 << 20;
        uv_recv_buffer_size((uv_handle_t *)&u->sock, &size);
        struct sockaddr_storage got;
        int len = sizeof got;
        net_addr_t bound;
        if (uv_udp_getsockname(&u->sock, (struct sockaddr *)&got, &len) == 0 &&
            from_sockaddr((struct sockaddr *)&got, &bound) && port)
            *port = bound.port;
    }
    if (err) {
        net_udp_close(u);
        return CT_ERR_IO;
    }
    *out = u;
    return 0;
}

void net_udp_close(net_udp_t *u)
{
    if (!u)
        return;
    uv_close((uv_handle_t *)&u->sock, NULL);
    uv_run(&u->loop, UV_RUN_NOWAIT);
    uv_loop_close(&u->loop);
    ct_free(u->a, u, sizeof *u);
}

void net_udp_set_node(net_udp_t *u, net_node_t *node) { u->node = node; }

void net_udp_rebind(net_udp_t *u)
{
    uv_udp_recv_stop(&u->sock);
    uv_udp_recv_start(&u->sock, on_alloc, on_recv);
}

void net_udp_send(void *user, const net_addr_t *to, const uint8_t *p, uint32_t n)
{
    net_udp_t *u = user;
    struct sockaddr_storage ss;
    to_sockaddr(to, &ss);
    const uv_buf_t buf = uv_buf_init((char *)p, n);
    /* A full socket buffer drops the datagram, as the network would: acks and resends cope. */
    (void)uv_udp_try_send(&u->sock, &buf, 1, (const struct sockaddr *)&ss);
}

uint32_t net_udp_poll(net_udp_t *u, uint32_t max_datagrams)
{
    const uint32_t before = u->received;
    u->budget = max_datagrams;
    /* libuv reads a few dozen datagrams per readiness event: go round while more come. */
    for (uint32_t last = UINT32_MAX; u->budget && u->received != last;) {
        last = u->received;
        uv_run(&u->loop, UV_RUN_NOWAIT);
    }
    return u->received - before;
}
