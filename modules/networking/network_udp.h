/*
 * network_udp.h: real sockets (network_udp.c) feeding a node.
 */
#ifndef NETWORK_UDP_H
#define NETWORK_UDP_H

#include "network_node.h"

/* ---- Real sockets (network_udp.c) ------------------------------------------------------------
 * A UDP socket on a libuv loop the module owns, stepped without blocking once per frame
 * (uv_run UV_RUN_NOWAIT): the kernel exposes no loop, and a loop of our own keeps the module's
 * I/O out of everyone else's way. Datagrams are read into one buffer per socket (no allocation)
 * and handed to the node; sends are uv_udp_try_send (synchronous, nothing queued). */

typedef struct net_udp_t net_udp_t;

/* Opens a socket bound to `bind` (port 0: any) for `node`; writes the bound port. */
int net_udp_open(net_udp_t **out, ct_allocator_t *a, const net_addr_t *bind, net_node_t *node,
                 uint16_t *port);
void net_udp_close(net_udp_t *u);
/* The node's transport: desc.send = net_udp_send, desc.send_user = the socket. */
void net_udp_send(void *user, const net_addr_t *to, const uint8_t *p, uint32_t n);
/* Reads what has arrived (bounded: at most `max_datagrams`). Returns the count. */
uint32_t net_udp_poll(net_udp_t *u, uint32_t max_datagrams);
/* Switches the node a socket feeds (the node is made after the socket when it needs its port). */
void net_udp_set_node(net_udp_t *u, net_node_t *node);
/* Microseconds of a monotonic clock. */
uint64_t net_udp_now(void);
/* After a hot reload: restarts receiving with this code's callbacks. */
void net_udp_rebind(net_udp_t *u);

#endif
