/*
 * network_conn.h: one connection (network_conn.c): sequence numbers and acks, the reliable ordered
 * stream, unreliable messages, fragments, per-connection caps, message fates.
 */
#ifndef NETWORK_CONN_H
#define NETWORK_CONN_H

#include "network_wire.h"

/* ---- Connection --------------------------------------------------------------------------- */

/* What the layer above learns. Every callback has the connection's user pointer. */
typedef struct net_conn_events_t {
    void *user;
    /* A message, in order for reliable ones. `data` is valid during the call only. */
    void (*message)(void *user, uint32_t conn, const uint8_t *data, uint32_t len, bool reliable);
    /* The fate of a message sent with a non-zero token: delivered (acknowledged) or lost
     * (unreliable only; reliable messages are sent again until acknowledged). */
    void (*fate)(void *user, uint32_t conn, uint32_t token, bool delivered);
} net_conn_events_t;

typedef struct net_caps_t {
    uint32_t max_send_bytes;    /* queued reliable bytes not yet acknowledged */
    uint32_t max_send_messages; /* queued reliable messages not yet acknowledged */
    uint32_t max_recv_bytes;    /* out-of-order reliable bytes buffered */
    uint32_t max_message;       /* largest reliable message (fragments reassembled) */
    uint32_t bytes_per_second;  /* sending rate cap (0: none) */
} net_caps_t;

extern const net_caps_t net_default_caps;

typedef struct net_rel_t {
    uint32_t off, len; /* in the connection's send bytes */
    uint32_t token;
    uint16_t id;
    uint8_t frag_index;
    uint16_t frag_count; /* 0: not a fragment; up to NET_MAX_FRAGMENTS (256: not a byte) */
    uint8_t acked, in_flight, queued_resend;
} net_rel_t;

typedef struct net_sent_t {
    uint64_t sent_at;
    uint16_t seq;
    uint8_t live;      /* 1 in flight, 2 declared lost (a late ack still gives an RTT) */
    uint8_t eliciting; /* carries messages (the peer acknowledges it) */
    uint16_t num_refs;
    uint16_t bytes;
    uint64_t unreliable_mask; /* bit i: refs[i] is an unreliable token, else a reliable index */
    uint32_t refs[NET_MAX_REFS];
} net_sent_t;

typedef struct net_slot_t {
    uint8_t *data;
    uint32_t len, cap;
    uint16_t id;
    uint8_t used, frag_index, tag;
    uint16_t frag_count;
} net_slot_t;

typedef struct net_unrel_t {
    uint32_t off, len, token;
} net_unrel_t;

typedef struct net_stats_t {
    uint64_t packets_sent, packets_received, bytes_sent, bytes_received;
    uint64_t packets_lost, packets_duplicate, packets_too_old, packets_dropped_full;
    uint64_t reliable_resent, header_bytes_sent;
} net_stats_t;

typedef struct net_conn_t {
    ct_allocator_t *a;
    net_caps_t caps;
    net_conn_events_t ev;
    uint32_t index; /* passed to callbacks */

    /* Sending. */
    uint16_t next_seq;
    net_sent_t sent[NET_PACKET_RING];
    uint32_t in_flight_packets;
    net_rel_t *rel; /* ring of reliable messages, rel_cap a power of two */
    uint32_t rel_cap, rel_head, rel_tail, rel_next_new; /* absolute indices */
    uint32_t *resend;                                   /* ring of absolute indices */
    uint32_t resend_head, resend_tail;
    uint16_t next_rel_id;
    uint8_t *sbytes;
    uint32_t sbytes_len, sbytes_cap, sbytes_live;
    net_unrel_t *unrel;
    uint32_t unrel_n, unrel_cap, unrel_at;
    uint8_t *ubytes;
    uint32_t ubytes_len, ubytes_cap;
    double budget_bytes; /* token bucket for caps.bytes_per_second */
    uint64_t budget_at;

    /* Acknowledging. */
    bool received_any;
    uint16_t recv_latest;
    uint32_t recv_bits;
    uint32_t reported_once, reported_twice; /* bits told the peer in 1 and in 2 packets */
    uint8_t ack_sends_left;                 /* packets that must still carry the current ack news */
    bool ack_only_due;                      /* received eliciting packets not yet acknowledged */
    uint32_t unacked_received;              /* eliciting packets since our last ack went out */

    /* Receiving the reliable stream. */
    uint16_t recv_next_id;
    net_slot_t slots[NET_REL_WINDOW];
    uint32_t recv_buffered;
    uint8_t *assembly;
    uint32_t assembly_len, assembly_cap;
    uint16_t assembly_next, assembly_count; /* next fragment index expected (0: none begun) */

    /* Round-trip estimate, microseconds. */
    double srtt, rttvar;
    bool rtt_sampled;
    uint8_t rto_backoff; /* the timeout doubles per round of losses until an ack comes */
    uint64_t last_received_at, last_sent_at;

    net_stats_t stats;
    char error[160]; /* why the peer broke the protocol; "" while it has not */
} net_conn_t;

void net_conn_init(net_conn_t *c, ct_allocator_t *a, const net_caps_t *caps,
                   const net_conn_events_t *ev, uint32_t index, uint64_t now);
void net_conn_free(net_conn_t *c);
/* Queues a message. Reliable ones larger than NET_FRAGMENT are split into fragments.
 * Returns 0, CT_ERR_INVALID (too large, or an unreliable one over a packet) or CT_ERR_FULL
 * (a cap). `token` (0: none) comes back through events.fate. */
int net_conn_send(net_conn_t *c, const void *data, uint32_t len, bool reliable, uint32_t token);
/* Takes one received DATA packet (after its header was read into h, r at the messages).
 * Returns 0, or -1 when the peer broke the protocol (c->error says how). Packets that are
 * duplicates, too old or over a receive cap are dropped without effect (counted). */
int net_conn_receive(net_conn_t *c, const net_header_t *h, net_reader_t *r, uint64_t now);
/* Sends what is due: declares timed-out packets lost, then builds packets (resent reliable
 * messages first, then new ones inside the window, then this frame's unreliable ones) and hands
 * each to emit. `keepalive` sends an empty packet when nothing else goes. Unreliable messages
 * that found no room (window, rate cap) are lost (fate). Returns the packets sent. */
typedef void (*net_emit_f)(void *user, const uint8_t *packet, uint32_t len);
uint32_t net_conn_flush(net_conn_t *c, uint64_t now, bool keepalive, net_emit_f emit, void *user);
/* Whether so many packets came since our last ack that one should go now (the bitfield covers
 * only the last 33: a long burst must be acknowledged as it arrives). */
static inline bool net_conn_ack_due(const net_conn_t *c) { return c->unacked_received >= 16; }
/* Declares lost the packets in flight longer than the retransmission timeout. */
void net_conn_detect_losses(net_conn_t *c, uint64_t now);
/* Retransmission timeout, microseconds. */
uint64_t net_conn_rto(const net_conn_t *c);
/* Reliable messages queued and not yet acknowledged. */
static inline uint32_t net_conn_unacked(const net_conn_t *c) { return c->rel_tail - c->rel_head; }

#endif
