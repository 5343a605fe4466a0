/* Shared by the networking tests that compile the core directly: the counting allocator of
 * tests/support and a virtual network that carries datagrams between nodes by port, on a
 * virtual clock. */
#ifndef NET_TEST_SUPPORT_H
#define NET_TEST_SUPPORT_H

#include "network_log.h"
#include "network_rpc.h"
#include "network_session.h"
#include "network_udp.h"
#include "../support/test_alloc.h"

#include <stdlib.h>

/* ---- The virtual network ------------------------------------------------------------------ */

#define VNET_MAX_NODES 80
#define VNET_QUEUE 65536

typedef struct vnet_datagram_t {
    net_addr_t from, to;
    uint32_t len;
    uint8_t bytes[NET_MAX_DATAGRAM];
} vnet_datagram_t;

typedef struct vnet_t {
    net_node_t *nodes[VNET_MAX_NODES];
    uint16_t ports[VNET_MAX_NODES];
    uint32_t num_nodes;
    vnet_datagram_t *queue; /* a FIFO: datagrams sent during a step arrive at the next pump */
    uint32_t head, tail;
    uint64_t now;
} vnet_t;

typedef struct vnet_sender_t {
    vnet_t *net;
    uint16_t port;
} vnet_sender_t;

static inline void vnet_send(void *user, const net_addr_t *to, const uint8_t *p, uint32_t n)
{
    vnet_sender_t *s = user;
    vnet_t *v = s->net;
    if (v->tail - v->head == VNET_QUEUE || n > NET_MAX_DATAGRAM)
        return;
    vnet_datagram_t *d = &v->queue[v->tail++ % VNET_QUEUE];
    d->from = net_addr_loopback4(s->port);
    d->to = *to;
    d->len = n;
    memcpy(d->bytes, p, n);
}

static inline void vnet_init(vnet_t *v)
{
    memset(v, 0, sizeof *v);
    v->queue = malloc(sizeof *v->queue * VNET_QUEUE);
}

static inline void vnet_free(vnet_t *v) { free(v->queue); }

static inline void vnet_add(vnet_t *v, net_node_t *node, uint16_t port)
{
    v->nodes[v->num_nodes] = node;
    v->ports[v->num_nodes++] = port;
}

/* Delivers what is queued (bounded: what was there when called). */
static inline void vnet_pump(vnet_t *v)
{
    const uint32_t end = v->tail;
    while (v->head != end) {
        vnet_datagram_t *d = &v->queue[v->head++ % VNET_QUEUE];
        for (uint32_t i = 0; i < v->num_nodes; i++)
            if (v->ports[i] == d->to.port)
                net_node_receive(v->nodes[i], &d->from, d->bytes, d->len, v->now);
    }
}

#endif
