/*
 * network_node.h: an endpoint (network_node.c): connections by address, the stateless-cookie
 * handshake, keep-alive, timeouts, disconnect, the optional pre-shared key.
 */
#ifndef NETWORK_NODE_H
#define NETWORK_NODE_H

#include "network_conn.h"
#include "network_sim.h"

/* ---- Node (network_node.c) ---------------------------------------------------------------- */

enum { NET_PEER_FREE = 0, NET_PEER_CONNECTING, NET_PEER_CONNECTED, NET_PEER_CLOSED };

typedef struct net_peer_t {
    net_conn_t conn;
    net_addr_t addr;
    uint8_t state;
    bool initiator;
    uint64_t salt;
    uint8_t cookie[16];
    uint64_t started_at, next_attempt_at;
    net_conditions_t conditions;
    net_link_state_t link;
} net_peer_t;

/* What a traffic record is (network_log.h writes them): a datagram in, one out, or a service call. */
enum { NET_LOG_IN = 0, NET_LOG_OUT = 1, NET_LOG_SERVICE = 2 };

typedef struct net_node_events_t {
    void *user;
    void (*connected)(void *user, uint32_t peer);
    /* The peer is gone (reason says why); its index may be reused afterwards. */
    void (*disconnected)(void *user, uint32_t peer, const char *reason);
    void (*message)(void *user, uint32_t peer, const uint8_t *data, uint32_t len, bool reliable);
    void (*fate)(void *user, uint32_t peer, uint32_t token, bool delivered);
    /* A line for the log (warnings: protocol breaches, refused connections). */
    void (*log)(void *user, const char *line);
    /* Every datagram in and out, as plaintext, and every service call (addr NULL), for the
     * traffic log. */
    void (*traffic)(void *traffic_user, uint8_t what, const net_addr_t *addr, const uint8_t *p,
                    uint32_t n, uint64_t now);
    void *traffic_user;
} net_node_events_t;

typedef struct net_node_desc_t {
    ct_allocator_t *a;
    uint32_t max_peers;  /* default 64 */
    net_caps_t caps;     /* zero: net_default_caps */
    bool accept;         /* answer connect requests (a server or a session host) */
    const uint8_t *key;  /* NET_KEY_BYTES, or NULL: no encryption */
    uint64_t timeout_us; /* silence before a peer is dropped; default 10 s */
    bool no_timeouts;
    uint64_t seed; /* the conditioner's generator; non-zero also makes handshake salts
                              * and cookies reproducible (tests, replaying a traffic log) */
    /* The transport: sends one datagram (a socket, or the virtual network). */
    void (*send)(void *user, const net_addr_t *to, const uint8_t *p, uint32_t n);
    void *send_user;
    net_node_events_t ev;
} net_node_desc_t;

typedef struct net_node_stats_t {
    uint64_t datagrams_in, datagrams_out, bytes_in, bytes_out;
    uint64_t dropped_malformed, dropped_unknown, dropped_auth, challenges_sent, refused_full;
    uint64_t breaches;
} net_node_stats_t;

typedef struct net_node_t {
    net_node_desc_t d;
    net_peer_t **peers; /* d.max_peers, allocated when a connection is established or begun */
    uint8_t secret[16]; /* keys the handshake cookies */
    uint64_t rng;       /* salts, when seeded */
    net_conditions_t conditions; /* for traffic outside connections, and new connections */
    net_conditioner_t conditioner;
    net_link_state_t link;
    uint64_t now;
    net_node_stats_t stats;
} net_node_t;

int net_node_init(net_node_t *n, const net_node_desc_t *desc);
void net_node_free(net_node_t *n);
/* Begins a connection; returns the peer index or a negative ct_error. */
int net_node_connect(net_node_t *n, const net_addr_t *to, uint64_t now);
/* One datagram from the transport. Never allocates before a connection is established. */
void net_node_receive(net_node_t *n, const net_addr_t *from, const uint8_t *p, uint32_t len,
                      uint64_t now);
/* The same with a datagram already decrypted (replaying a traffic log). */
void net_node_receive_plain(net_node_t *n, const net_addr_t *from, const uint8_t *p, uint32_t len,
                            uint64_t now);
/* Handshake resends, keep-alive, timeouts, conditioner releases, then every connection's
 * packets. Call once per frame (or per tick). */
void net_node_service(net_node_t *n, uint64_t now);
int net_node_send(net_node_t *n, uint32_t peer, const void *data, uint32_t len, bool reliable,
                  uint32_t token);
/* Sends a disconnect and forgets the peer (reported through events.disconnected). */
void net_node_disconnect(net_node_t *n, uint32_t peer, const char *reason);
net_peer_t *net_node_peer(net_node_t *n, uint32_t peer); /* NULL unless connected */
void net_node_set_conditions(net_node_t *n, int peer, const net_conditions_t *c); /* -1: node */
/* After a hot reload: points the node's internal callbacks at this code. */
void net_node_rebind(net_node_t *n);

#endif
