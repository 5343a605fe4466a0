/*
 * network_wire.h: the networking module's lowest layer (network_wire.c): the limits every layer
 * shares, the bounds-checked byte reader and writer, the packet header, the messages inside a DATA
 * packet, addresses, and two small helpers (growing an array, the seeded generator).
 */
#ifndef NETWORK_WIRE_H
#define NETWORK_WIRE_H

#include "ct_types.h"

#include <stdio.h>
#include <string.h>

/* ---- Limits ------------------------------------------------------------------------------ */

#define NET_MAX_DATAGRAM 1400u /* larger datagrams are dropped unread */
#define NET_MTU 1200u          /* the packets we build (before the key's 40 bytes) */
#define NET_ACK_BITS 32u       /* packets acknowledged besides the latest */
#define NET_PACKET_RING 1024u  /* sent packets remembered: bounds packets in flight */
#define NET_REL_WINDOW 1024u   /* reliable ids in flight and buffered out of order */
#define NET_MAX_REFS 48u       /* messages per packet */
#define NET_FRAGMENT 1024u     /* bytes of a reliable message per fragment */
#define NET_MAX_FRAGMENTS 256u /* so a message is at most 256 KB */
#define NET_MAX_MESSAGE (NET_FRAGMENT * NET_MAX_FRAGMENTS)
#define NET_KEY_BYTES 32u
#define NET_SEAL_OVERHEAD 40u   /* XChaCha20-Poly1305: 24-byte nonce + 16-byte tag */
#define NET_HANDSHAKE_BYTES 64u /* a connect request is padded to this; replies are smaller */

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

static inline net_writer_t net_writer(void *p, uint32_t cap)
{
    return (net_writer_t){p, 0, cap, false};
}
static inline net_reader_t net_reader(const void *p, uint32_t n)
{
    return (net_reader_t){p, n, 0, false};
}
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
    uint8_t frag_index;
    uint16_t frag_count; /* 2..NET_MAX_FRAGMENTS: the wire's byte holds count - 1 */
    uint32_t len;
    const uint8_t *data;
} net_msg_t;

/* Reads one message; false when malformed (a reason is written to *why). */
bool net_msg_read(net_reader_t *r, net_msg_t *m, const char **why);
void net_msg_write(net_writer_t *w, const net_msg_t *m);
/* Bytes net_msg_write needs. */
uint32_t net_msg_size(const net_msg_t *m);

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
static inline double net_rand01(uint64_t *s)
{
    return (double)(net_rand(s) >> 11) * (1.0 / 9007199254740992.0);
}

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

#endif
