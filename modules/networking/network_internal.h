/*
 * network_internal.h: the networking module's private contract between its files.
 *
 * Layers, bottom up (each file one job):
 *   network_wire.c     bounds-checked byte reader/writer, varints, the packet header
 *   network_conn.c     one connection: sequence numbers and acks, the reliable ordered stream,
 *                      unreliable messages, fragments, per-connection caps, message fates
 *   network_node.c     an endpoint: connections by address, handshake (stateless cookie),
 *                      keep-alive, timeouts, disconnect, the optional pre-shared key (libsodium)
 *   network_sim.c      the seeded conditioner and the virtual network on a virtual clock
 *   network_session.c  peers and the host, client-server relay or peer-to-peer mesh
 *   network_replication.c  objects: CREATE [wait ack] UPDATE.. DESTROY, migration, stale rules
 *   network_rpc.c      RPC argument schemas, encoding, checked decoding
 *   network_log.c      the traffic log (write, read)
 *   network_udp.c      real sockets: a libuv loop the module owns, stepped each frame
 * The core (all of the above but network_udp.c) knows nothing of the kernel: it takes an
 * allocator and a clock in microseconds, so tests, fuzz targets and the benchmark compile it
 * directly. network.c, network_lua.c and network_component.c bind it to the engine.
 */
#ifndef NETWORK_INTERNAL_H
#define NETWORK_INTERNAL_H

#include "ct_types.h"

#include <stdio.h>
#include <string.h>

/* ---- Limits ------------------------------------------------------------------------------ */

#define NET_MAX_DATAGRAM 1400u   /* larger datagrams are dropped unread */
#define NET_MTU 1200u            /* the packets we build (before the key's 40 bytes) */
#define NET_ACK_BITS 32u         /* packets acknowledged besides the latest */
#define NET_PACKET_RING 1024u    /* sent packets remembered: bounds packets in flight */
#define NET_REL_WINDOW 1024u     /* reliable ids in flight and buffered out of order */
#define NET_MAX_REFS 48u         /* messages per packet */
#define NET_FRAGMENT 1024u       /* bytes of a reliable message per fragment */
#define NET_MAX_FRAGMENTS 256u   /* so a message is at most 256 KB */
#define NET_MAX_MESSAGE (NET_FRAGMENT * NET_MAX_FRAGMENTS)
#define NET_KEY_BYTES 32u
#define NET_SEAL_OVERHEAD 40u    /* XChaCha20-Poly1305: 24-byte nonce + 16-byte tag */
#define NET_HANDSHAKE_BYTES 64u  /* a connect request is padded to this; replies are smaller */

/* ---- Bytes ------------------------------------------------------------------------------- */

typedef struct net_writer_t {
    uint8_t *p;
    uint32_t n, cap;
    bool overflow; /* a write did not fit: the contents are not to be sent */
} net_writer_t;

typedef struct net_reader_t {
    const uint8_t *p;
    uint32_t n, at;
    bool bad; /* a read went past the end: every later read gives 0 */
} net_reader_t;

static inline net_writer_t net_writer(void *p, uint32_t cap) { return (net_writer_t){p, 0, cap, false}; }
static inline net_reader_t net_reader(const void *p, uint32_t n) { return (net_reader_t){p, n, 0, false}; }
static inline uint32_t net_left(const net_reader_t *r) { return r->bad ? 0 : r->n - r->at; }

void net_put_u8(net_writer_t *w, uint8_t v);
void net_put_u16(net_writer_t *w, uint16_t v);
void net_put_u32(net_writer_t *w, uint32_t v);
void net_put_u64(net_writer_t *w, uint64_t v);
void net_put_varint(net_writer_t *w, uint32_t v);
void net_put_f32(net_writer_t *w, float v);
void net_put_f64(net_writer_t *w, double v);
void net_put_bytes(net_writer_t *w, const void *p, uint32_t n);
uint8_t net_get_u8(net_reader_t *r);
uint16_t net_get_u16(net_reader_t *r);
uint32_t net_get_u32(net_reader_t *r);
uint64_t net_get_u64(net_reader_t *r);
/* At most 5 bytes; an over-long or overflowing encoding marks the reader bad. */
uint32_t net_get_varint(net_reader_t *r);
float net_get_f32(net_reader_t *r);
double net_get_f64(net_reader_t *r);
/* A pointer to the next n bytes (NULL and bad when fewer are left). */
const uint8_t *net_get_bytes(net_reader_t *r, uint32_t n);

/* Wrapping 16-bit sequence order. */
static inline bool net_seq_newer(uint16_t a, uint16_t b) { return (int16_t)(uint16_t)(a - b) > 0; }

/* ---- Packet header ------------------------------------------------------------------------
 * byte 0: bits 0-2 kind, bit 3 ack present, bits 4-5 ack bitfield bytes - 1, bits 6-7 zero.
 * DATA: u16 sequence; then, when acks are present, u16 latest sequence received and 1..4 bytes
 * of the bitfield (bit i: latest - 1 - i arrived). Bytes left out of the bitfield are ones the
 * sender already reported: they carry no news, never a loss. So a packet that has nothing new
 * to acknowledge costs 3 bytes, one with news 5 to 8. Handshake kinds have their own layouts
 * (network_node.c). */

enum {
    NET_PACKET_DATA = 0,
    NET_PACKET_CONNECT = 1,   /* client -> server, padded to NET_HANDSHAKE_BYTES */
    NET_PACKET_CHALLENGE = 2, /* server -> client: a cookie to echo */
    NET_PACKET_ACCEPT = 3,    /* server -> client: connected */
    NET_PACKET_DISCONNECT = 4,
    NET_PACKET_KINDS = 5,
};

typedef struct net_header_t {
    uint8_t kind;
    bool has_ack;
    uint16_t seq;
    uint16_t ack;
    uint32_t ack_bits;
    uint8_t ack_bytes; /* 1..4 when has_ack */
} net_header_t;

void net_header_write(net_writer_t *w, const net_header_t *h);
/* False (and nothing else changed) when the header is malformed. */
bool net_header_read(net_reader_t *r, net_header_t *h);

/* ---- Messages inside a DATA packet ---------------------------------------------------------
 * [tag u8][...]: tag 0 unreliable: varint length, bytes. Tag 1 reliable: u16 id, varint length,
 * bytes. Tag 2 fragment of a reliable message: u16 id, u8 index, u8 count - 1, varint length,
 * bytes. Any other tag breaks the protocol. */
enum { NET_MSG_UNRELIABLE = 0, NET_MSG_RELIABLE = 1, NET_MSG_FRAGMENT = 2 };

typedef struct net_msg_t {
    uint8_t tag;
    uint16_t id;
    uint8_t frag_index, frag_count;
    uint32_t len;
    const uint8_t *data;
} net_msg_t;

/* Reads one message; false when malformed (a reason is written to *why). */
bool net_msg_read(net_reader_t *r, net_msg_t *m, const char **why);
void net_msg_write(net_writer_t *w, const net_msg_t *m);
/* Bytes net_msg_write needs. */
uint32_t net_msg_size(const net_msg_t *m);

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
    uint32_t max_send_bytes;     /* queued reliable bytes not yet acknowledged */
    uint32_t max_send_messages;  /* queued reliable messages not yet acknowledged */
    uint32_t max_recv_bytes;     /* out-of-order reliable bytes buffered */
    uint32_t max_message;        /* largest reliable message (fragments reassembled) */
    uint32_t bytes_per_second;   /* sending rate cap (0: none) */
} net_caps_t;

extern const net_caps_t net_default_caps;

typedef struct net_rel_t {
    uint32_t off, len; /* in the connection's send bytes */
    uint32_t token;
    uint16_t id;
    uint8_t frag_index, frag_count; /* count 0: not a fragment */
    uint8_t acked, in_flight, queued_resend;
} net_rel_t;

typedef struct net_sent_t {
    uint64_t sent_at;
    uint16_t seq;
    uint8_t live;        /* 1 in flight, 2 declared lost (a late ack still gives an RTT) */
    uint8_t eliciting;   /* carries messages (the peer acknowledges it) */
    uint16_t num_refs;
    uint16_t bytes;
    uint64_t unreliable_mask; /* bit i: refs[i] is an unreliable token, else a reliable index */
    uint32_t refs[NET_MAX_REFS];
} net_sent_t;

typedef struct net_slot_t {
    uint8_t *data;
    uint32_t len, cap;
    uint16_t id;
    uint8_t used, frag_index, frag_count, tag;
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
    uint8_t ack_sends_left;      /* packets that must still carry the current ack news */
    bool ack_only_due;           /* received eliciting packets not yet acknowledged */
    uint32_t unacked_received;   /* eliciting packets since our last ack went out */

    /* Receiving the reliable stream. */
    uint16_t recv_next_id;
    net_slot_t slots[NET_REL_WINDOW];
    uint32_t recv_buffered;
    uint8_t *assembly;
    uint32_t assembly_len, assembly_cap;
    uint8_t assembly_next, assembly_count; /* next fragment index expected (0: none begun) */

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

/* ---- Small helpers ------------------------------------------------------------------------ */

/* Grows *p (elem bytes each, *cap elements) to hold at least `need`, doubling; false on failure
 * or when `need` passes `limit`. */
bool net_grow(ct_allocator_t *a, void **p, uint32_t *cap, uint32_t need, uint32_t elem,
              uint32_t limit);

/* xorshift64*, the one generator of the conditioner and the tests. */
static inline uint64_t net_rand(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545f4914f6cdd1dull;
}
static inline double net_rand01(uint64_t *s) { return (double)(net_rand(s) >> 11) * (1.0 / 9007199254740992.0); }

/* ---- Addresses ---------------------------------------------------------------------------- */

typedef struct net_addr_t {
    uint8_t family; /* 4 or 6 */
    uint8_t pad;
    uint16_t port;
    uint8_t ip[16];
} net_addr_t;

bool net_addr_equal(const net_addr_t *a, const net_addr_t *b);
/* "127.0.0.1:40001" or "[::1]:40001". */
void net_addr_format(const net_addr_t *a, char *out, size_t size);
/* Parses "127.0.0.1:40001", "[::1]:40001" or "::1" with `default_port`. False when malformed. */
bool net_addr_parse(const char *text, uint16_t default_port, net_addr_t *out);
static inline net_addr_t net_addr_loopback4(uint16_t port)
{
    return (net_addr_t){.family = 4, .port = port, .ip = {127, 0, 0, 1}};
}

/* ---- Network conditioner (network_sim.c) --------------------------------------------------
 * Applied to a node's outgoing datagrams, per connection (and to handshakes with the node's own
 * settings). Seeded; times are the node's clock (virtual in tests). */

typedef struct net_conditions_t {
    double loss;             /* probability a datagram is dropped, 0..1 */
    double burst_enter;      /* probability per datagram of entering a loss burst */
    double burst_exit;       /* probability per datagram of leaving it (all lost inside) */
    double duplicate;        /* probability a datagram is sent twice */
    double reorder;          /* probability a datagram is held back an extra latency */
    uint32_t latency_us;     /* one way */
    uint32_t jitter_us;      /* uniform in +-jitter */
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
    uint8_t *bytes;  /* cap slots of NET_MAX_DATAGRAM */
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
                          void (*emit)(void *user, const net_addr_t *to, const uint8_t *p, uint32_t n),
                          void *user);
/* Hands every datagram due by `now` to emit, in due order. */
void net_conditioner_release(net_conditioner_t *q, uint64_t now,
                             void (*emit)(void *user, const net_addr_t *to, const uint8_t *p, uint32_t n),
                             void *user);

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
    uint32_t max_peers;      /* default 64 */
    net_caps_t caps;         /* zero: net_default_caps */
    bool accept;             /* answer connect requests (a server or a session host) */
    const uint8_t *key;      /* NET_KEY_BYTES, or NULL: no encryption */
    uint64_t timeout_us;     /* silence before a peer is dropped; default 10 s */
    bool no_timeouts;
    uint64_t seed;           /* the conditioner's generator; non-zero also makes handshake salts
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
void net_node_receive_plain(net_node_t *n, const net_addr_t *from, const uint8_t *p,
                            uint32_t len, uint64_t now);
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

/* ---- Session: peers, host, modes (network_session.c) --------------------------------------
 * Peer ids are 1..NET_MAX_PEER_ID; the host is 1 and numbers the others as they join. In
 * peer-to-peer mode every peer connects to every other (the host's welcome lists them); in
 * client-server mode clients talk only to the host, which relays. Every session message starts
 * with its type byte. */

#define NET_MAX_PEER_ID 254u
#define NET_FIELDS 16u         /* floats per object: position 0-2, rotation 3-6, script 7-15 */
#define NET_SCRIPT_FIELD0 7u

enum { NET_MODE_PEER_TO_PEER = 0, NET_MODE_CLIENT_SERVER = 1 };

enum {
    NET_S_HELLO = 1,      /* joiner -> host */
    NET_S_WELCOME = 2,    /* host -> joiner: u8 your id, u8 mode, u8 n, n x (u8 id, u8 family, u16 port, 16 ip) */
    NET_S_PEER_HELLO = 3, /* joiner -> other peer (peer-to-peer): u8 my id */
    NET_R_CREATE = 10,    /* see network_replication.c */
    NET_R_UPDATE = 11,
    NET_R_DESTROY = 12,
    NET_R_MIGRATE = 13,
    NET_R_MIGRATE_ORDER = 14,
    NET_RPC = 20,         /* see network_rpc.c */
    NET_USER = 21,        /* the game's own bytes */
};

/* One replicated object's identity and state as a message carries it. */
typedef struct net_obj_msg_t {
    uint8_t type, origin, owner;
    uint32_t id, mig, version;
    uint16_t mask;
    float fields[NET_FIELDS];
} net_obj_msg_t;

/* Replication messages: write, and read with every count, id and value checked. */
void net_obj_msg_write(net_writer_t *w, const net_obj_msg_t *m);
bool net_obj_msg_read(net_reader_t *r, net_obj_msg_t *m, const char **why);

typedef struct net_object_t {
    uint32_t id;
    uint32_t mig;     /* migration counter: 0 at creation, +1 per migration (chosen by the host) */
    uint32_t version; /* the owner's change counter; on a replica, the newest update applied */
    uint8_t owner;
    uint8_t live;     /* 0: a tombstone (destroyed at counter `mig`), kept to refuse stale messages */
    uint16_t pad;
    uint32_t user;    /* the binding's word for the object (the component: its instance + 1);
                       * 0 when the slot is made, so a new session or a reused slot holds none */
    uint32_t field_version[NET_FIELDS];
    float fields[NET_FIELDS];
} net_object_t;

/* What a sender knows of one object at one connection. */
typedef struct net_sync_t {
    uint32_t acked_version;    /* the peer has everything up to this version */
    uint32_t inflight_version; /* newest update in flight (0: none) */
    uint32_t announced_mig;    /* counter of the create/migrate sent (UINT32_MAX: not yet) */
    uint8_t ready;             /* the announce was acknowledged: updates may go */
} net_sync_t;

typedef struct net_record_t {
    uint32_t token, object, id, version, mig;
    uint8_t conn, announce;
} net_record_t;

typedef struct net_session_events_t {
    void *user;
    void (*joined)(void *user, uint8_t peer_id);        /* a peer is here (for the host: ids) */
    void (*left)(void *user, uint8_t peer_id, const char *reason);
    void (*created)(void *user, uint32_t object);       /* a replica appeared */
    void (*destroyed)(void *user, uint32_t object);
    void (*owner_changed)(void *user, uint32_t object, uint8_t owner);
    /* An update or create was applied (the tests check it against the truth). */
    void (*applied)(void *user, uint32_t object, uint8_t origin, uint32_t mig, uint32_t version);
    /* RPC and user messages, already checked for their framing. */
    void (*message)(void *user, uint8_t from, const uint8_t *data, uint32_t len);
} net_session_events_t;

typedef struct net_session_stats_t {
    uint64_t creates_applied, updates_applied, destroys_applied, migrations_applied;
    uint64_t stale_creates, stale_updates, stale_destroys, stale_migrations;
    uint64_t updates_sent, announces_sent, update_bytes_sent;
} net_session_stats_t;

typedef struct net_session_t {
    ct_allocator_t *a;
    net_node_t node;
    uint8_t mode, my_id, next_id;
    bool is_host, joined;
    int host_conn;                       /* connection to the host (-1: none or we are it) */
    uint8_t id_of_conn[256];             /* 0: unknown yet */
    int16_t conn_of_id[256];             /* -1: not connected */
    net_addr_t addr_of_id[256];          /* where each peer listens (host; joiners: the welcome's) */
    uint8_t wanted[256];                 /* peer-to-peer: peers the welcome listed, linked until bound */
    uint32_t max_conns;

    /* Objects: a table with tombstones, found through an open-addressing map. */
    net_object_t *objects;
    net_sync_t *sync; /* objects x max_conns */
    uint32_t num_objects, max_objects, next_serial;
    uint32_t *map; /* 2 x max_objects, index + 1, 0 empty */
    uint32_t *tombstones; /* FIFO of tombstone indices, reused when the table is full */
    uint32_t tomb_head, tomb_tail;
    uint32_t *free_list;
    uint32_t num_free;

    net_record_t *records; /* fates of sent announces and updates, by token */
    uint32_t records_mask, next_token;
    uint32_t update_budget; /* bytes per connection per tick for updates (0: none) */
    uint32_t send_cursor;   /* where the next tick's round of updates starts */
    uint64_t tick_us, last_tick; /* replication rate */

    net_session_events_t ev;
    net_session_stats_t stats;
} net_session_t;

typedef struct net_session_desc_t {
    net_node_desc_t node; /* send/transport, key, caps, timeouts, seed; accept is set for you */
    uint8_t mode;
    bool host;
    uint32_t max_objects;   /* default 16384 (tombstones included) */
    uint32_t update_budget; /* bytes of updates per connection per tick (0: unlimited) */
    uint32_t tick_hz;       /* replication ticks per second; default 20 */
    net_session_events_t ev;
} net_session_desc_t;

int net_session_init(net_session_t *s, const net_session_desc_t *d);
void net_session_free(net_session_t *s);
/* Joins the session whose host listens at `host`. */
int net_session_join(net_session_t *s, const net_addr_t *host, uint64_t now);
/* Services the node (call every frame); replication traffic goes at the session's tick rate. */
void net_session_tick(net_session_t *s, uint64_t now);
/* Sends raw session bytes (first byte NET_RPC or NET_USER) to a peer id. */
int net_session_send(net_session_t *s, uint8_t peer_id, const void *data, uint32_t len, bool reliable);
/* After a hot reload: points the session's and its node's callbacks at this code. */
void net_session_rebind(net_session_t *s);

/* Objects (network_replication.c). Fields are NET_FIELDS floats; `mask` says which are given. */
uint32_t net_object_spawn(net_session_t *s, const float *fields, uint16_t mask);
int net_object_set(net_session_t *s, uint32_t id, uint16_t mask, const float *fields);
int net_object_destroy(net_session_t *s, uint32_t id);
/* Host only: gives the object to `owner` (itself included). */
int net_object_migrate(net_session_t *s, uint32_t id, uint8_t owner);
const net_object_t *net_object_find(const net_session_t *s, uint32_t id); /* live ones only */
/* The user word of the object's slot, live or tombstone; NULL when the id is unknown. */
uint32_t *net_object_user(net_session_t *s, uint32_t id);

/* Internal between session and replication. */
int net__replication_init(net_session_t *s, uint32_t max_objects);
void net__replication_free(net_session_t *s);
/* A replication message from connection `conn` (peer `from`); -1 with *why on a breach. */
int net__replication_receive(net_session_t *s, uint32_t conn, uint8_t from, const uint8_t *d,
                             uint32_t len, const char **why);
void net__replication_fate(net_session_t *s, uint32_t token, bool delivered);
void net__replication_send(net_session_t *s);
void net__replication_peer_joined(net_session_t *s, uint32_t conn);
void net__replication_peer_left(net_session_t *s, uint8_t peer_id);

/* ---- RPC (network_rpc.c) --------------------------------------------------------------------
 * A script declares a function with its argument schema; a call travels as
 *   [NET_RPC][u32 name hash][u8 argc][per argument: number f64 | boolean u8 0/1 | string varint
 *   length + bytes]
 * and is decoded against the receiver's own schema: the hash must name a declared function, the
 * count must match, every value must be of its declared type, finite, and strings within their
 * declared length. Nothing remote is ever loaded as code. */

#define NET_RPC_MAX_ARGS 16u
#define NET_RPC_MAX_FUNCTIONS 256u
#define NET_RPC_MAX_STRING 4096u

typedef enum net_rpc_type { NET_RPC_NUMBER = 1, NET_RPC_BOOLEAN = 2, NET_RPC_STRING = 3 } net_rpc_type;

typedef struct net_rpc_schema_t {
    char name[64];
    uint32_t hash;
    uint8_t argc;
    uint8_t types[NET_RPC_MAX_ARGS];
    uint16_t max_len[NET_RPC_MAX_ARGS]; /* strings */
    int lua_ref;                        /* the Lua function (module side) */
} net_rpc_schema_t;

typedef struct net_rpc_value_t {
    uint8_t type;
    bool boolean;
    double number;
    const uint8_t *string; /* into the message; valid while it is */
    uint32_t len;
} net_rpc_value_t;

typedef struct net_rpc_registry_t {
    net_rpc_schema_t fns[NET_RPC_MAX_FUNCTIONS];
    uint32_t n;
} net_rpc_registry_t;

typedef struct net_rpc_call_t {
    const net_rpc_schema_t *fn;
    net_rpc_value_t args[NET_RPC_MAX_ARGS];
} net_rpc_call_t;

uint32_t net_rpc_hash(const char *name);
/* Declares (or redeclares, for hot reload) a function. `spec` lists the arguments, e.g.
 * "number boolean string:32" (a string's default limit is 256 bytes). Returns the schema or NULL
 * with *why set. */
net_rpc_schema_t *net_rpc_declare(net_rpc_registry_t *r, const char *name, const char *spec,
                                  const char **why);
const net_rpc_schema_t *net_rpc_find(const net_rpc_registry_t *r, uint32_t hash);
/* Writes a call; false when the values do not fit the schema or the buffer. */
bool net_rpc_encode(const net_rpc_schema_t *fn, const net_rpc_value_t *args, uint32_t argc,
                    net_writer_t *w, const char **why);
/* Reads a call against the registry; false with *why when it does not match. */
bool net_rpc_decode(const net_rpc_registry_t *r, const uint8_t *d, uint32_t len,
                    net_rpc_call_t *out, const char **why);

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

/* ---- Traffic log (network_log.c) -------------------------------------------------------------
 * "CTNLOG1\n", then per record: u64 time (us), u8 what (NET_LOG_IN, _OUT, _SERVICE), u8 family,
 * u16 port, 16 bytes address, u32 length, the plaintext bytes. Service records (no datagram)
 * mark when the node was serviced, so a replay services it at the same times. */

enum { NET_LOG_IN = 0, NET_LOG_OUT = 1, NET_LOG_SERVICE = 2 };

typedef struct net_log_record_t {
    uint64_t time;
    uint8_t what;
    net_addr_t addr;
    uint32_t len;
    uint8_t data[NET_MAX_DATAGRAM];
} net_log_record_t;

FILE *net_log_create(const char *path);
void net_log_write(FILE *f, uint8_t what, const net_addr_t *addr, const uint8_t *p, uint32_t n,
                   uint64_t now);
/* Checks the file's header; false when it is not a traffic log. */
bool net_log_begin(FILE *f);
/* The next record; false at the end, or with *why when the file is corrupt. */
bool net_log_read(FILE *f, net_log_record_t *r, const char **why);
/* One line describing a datagram: header, then each message with its session type. */
void net_log_describe(const uint8_t *p, uint32_t n, char *out, size_t size);
/* Replays a log into `node` (made like the recorded one, with the same seed): feeds its
 * incoming datagrams and services it at the recorded times, and compares every datagram the
 * node sends with the recorded ones. Returns the number that differ (or -1 with *why when the
 * log is corrupt); *compared counts the datagrams compared. The node's traffic hook is used. */
int net_log_replay(FILE *f, net_node_t *node, uint32_t *compared, const char **why);

/* ---- The module (network.c, network_component.c, network_lua.c) -----------------------------
 * The engine side: one session per engine on a socket of our own, the "network" component that
 * ties entities to objects, and the Lua module. Kernel APIs arrive through get_engine_api. */

#include "ct_entity.h"
#include "ct_log.h"
#include "ct_lua.h"
#include "ct_memory.h"
#include "ct_network.h"
#include "ct_reload.h"
#include "ct_resource.h"
#include "ct_transform.h"
#include "network_replicas.h"

/* Bump when the state or manager layout changes: a reload across layouts is refused. */
#ifndef NETWORK_LAYOUT_VERSION
#define NETWORK_LAYOUT_VERSION 4u
#endif

#define NETWORK_SCRIPT_FIELDS (NET_FIELDS - NET_SCRIPT_FIELD0)

/* Everything that survives a hot reload, in one block of the plugin's allocator. */
typedef struct network__state_t {
    ct_reload_header_t header;
    bool running;
    bool timeouts_off;
    net_session_t session;
    net_udp_t *udp;
    uint16_t port;
    FILE *traffic;
    ct_world_o *world;
    uint64_t type_id;
    net_rpc_registry_t rpc;
    char fields[NETWORK_SCRIPT_FIELDS][32];
    uint32_t num_fields;
    /* RPC calls waiting for their peer's budget: [u8 from][u16 length][bytes]... */
    uint8_t *rpc_queue;
    uint32_t rpc_len, rpc_cap;
    uint32_t rpc_queued[256]; /* bytes per peer */
    uint8_t key[CT_NETWORK_KEY_BYTES];
    network__replicas_t replicas; /* network_replicas.c */
} network__state_t;

typedef struct network__module_t {
    ct_plugin_o *self;
    const ct_log_api_v1 *log;
    const ct_memory_api_v1 *memory;
    const ct_lua_api_v1 *lua;
    const ct_entity_api_v2 *entity;
    const ct_component_api_v1 *component;
    const ct_transform_api_v2 *transform;
    const ct_resource_api_v3 *resource; /* v3: check_fields */
    const struct ct_data_api_v1 *data;
    const struct ct_profiler_api_v1 *profiler; /* optional: scopes for the thread profiler */
    ct_allocator_t *a;
    network__state_t *state;
} network__module_t;

extern network__module_t network__m;

/* Per world: which entities are which objects (parallel arrays walked linearly, kept packed by
 * swap-and-pop), and the SDK's paged index from an entity to its instance + 1. The other way,
 * object -> instance + 1, is the `user` word of the object's slot in the session. */
typedef struct network__manager_t {
    ct_allocator_t *a;
    ct_world_o *world;
    uint32_t n, cap;
    ct_entity_t *entity;
    uint32_t *object;
    ct_entity_pages_t index;
} network__manager_t;

int network__start(const ct_network_desc_t *desc);
ct_network_stats_t network__stats(void);
void network__stop(void);
int network__replicate(ct_world_o *world, ct_entity_t e);
int network__migrate(ct_world_o *world, ct_entity_t e, uint8_t peer);
uint8_t network__owner(ct_world_o *world, ct_entity_t e);
/* The object of e in `world` (0: none). */
uint32_t network__object_of(ct_world_o *world, ct_entity_t e);
/* Script field index (0..8) of a declared name, or -1. */
int network__field_index(const char *name);

int network__register_component(void);
bool network__rebind_component(void);
void network__unregister_component(void);
network__manager_t *network__manager(ct_world_o *world);
/* Entities -> objects (owned ones), before replication sends; objects -> entities (replicas)
 * after it received. */
void network__gather(void);
void network__apply(void);
void network__replica_created(uint32_t object);
/* Before the session ends: every entity of its world stops being an object (replicas stay as
 * plain entities, owned ones stay unreplicated), so no later session aliases them. */
void network__unlink_all(void);

void network__register_lua(void);
/* Runs queued RPC calls, at most CT_NETWORK_RPC_BUDGET per peer. */
void network__dispatch_rpc(void);

#endif
