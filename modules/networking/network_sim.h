/*
 * network_sim.h: the seeded network conditioner (network_sim.c) that tests and the
 * debugging switches put between a node and its transport.
 */
#ifndef NETWORK_SIM_H
#define NETWORK_SIM_H

#include "network_wire.h"

/* ---- Network conditioner (network_sim.c) --------------------------------------------------
 * Applied to a node's outgoing datagrams, per connection (and to handshakes with the node's own
 * settings). Seeded; times are the node's clock (virtual in tests). */

typedef struct net_conditions_t {
    double loss;               /* probability a datagram is dropped, 0..1 */
    double burst_enter;        /* probability per datagram of entering a loss burst */
    double burst_exit;         /* probability per datagram of leaving it (all lost inside) */
    double duplicate;          /* probability a datagram is sent twice */
    double reorder;            /* probability a datagram is held back an extra latency */
    uint32_t latency_us;       /* one way */
    uint32_t jitter_us;        /* uniform in +-jitter */
    uint32_t bytes_per_second; /* link rate (0: unlimited); a queue over 1 s is tail-dropped */
} net_conditions_t;

static inline bool net_conditions_active(const net_conditions_t *c)
{
    return c->loss > 0 || c->burst_enter > 0 || c->duplicate > 0 || c->reorder > 0 ||
           c->latency_us || c->jitter_us || c->bytes_per_second;
}

typedef struct net_delayed_t {
    uint64_t due, order;
    net_addr_t to;
    uint32_t len, slot;
} net_delayed_t;

typedef struct net_conditioner_t {
    ct_allocator_t *a;
    uint64_t rng;
    uint64_t order;
    net_delayed_t *heap; /* by (due, order) */
    uint32_t num, cap, limit;
    uint8_t *bytes; /* cap slots of NET_MAX_DATAGRAM */
    uint32_t *free_slots;
    uint32_t num_free;
    uint64_t dropped, duplicated, delayed;
} net_conditioner_t;

typedef struct net_link_state_t {
    bool in_burst;
    uint64_t busy_until; /* the bandwidth cap's serialisation */
} net_link_state_t;

void net_conditioner_init(net_conditioner_t *q, ct_allocator_t *a, uint64_t seed, uint32_t limit);
void net_conditioner_free(net_conditioner_t *q);
/* Passes one datagram through the conditions: dropped, delayed into the queue or, with no
 * delay, handed to emit at once (possibly twice). */
void net_conditioner_push(net_conditioner_t *q, const net_conditions_t *c, net_link_state_t *link,
                          const net_addr_t *to, const uint8_t *p, uint32_t n, uint64_t now,
                          void (*emit)(void *user, const net_addr_t *to, const uint8_t *p,
                                       uint32_t n),
                          void *user);
/* Hands every datagram due by `now` to emit, in due order. */
void net_conditioner_release(net_conditioner_t *q, uint64_t now,
                             void (*emit)(void *user, const net_addr_t *to, const uint8_t *p,
                                          uint32_t n),
                             void *user);

#endif
