/*
 * network_node.c: an endpoint. Datagrams come in from a transport (a libuv socket or the tests'
 * virtual network) and go out through the conditioner to it.
 *
 * The handshake keeps a server stateless until the client proves it can receive at its address:
 *   client -> CONNECT   u32 magic, u64 salt, 16-byte cookie (zeros at first), zero padding to
 *                       NET_HANDSHAKE_BYTES (shorter requests are dropped)
 *   server -> CHALLENGE u64 salt, 16-byte cookie = SipHash-128(secret, address, salt, 10 s epoch)
 *   client -> CONNECT   the same with the cookie
 *   server -> ACCEPT    u64 salt: the connection exists from here on
 *   either -> DISCONNECT u64 salt, u8 reason
 * Every reply before ACCEPT is smaller than the request that caused it (no amplification),
 * and nothing is allocated for an address until its cookie checks out. DATA from an address
 * without a connection is dropped unanswered.
 *
 * With a pre-shared key every datagram is sealed with XChaCha20-Poly1305 (libsodium): a random
 * 24-byte nonce, then the ciphertext and its 16-byte tag. Datagrams that do not open are
 * dropped before any parsing.
 */
#include "network_node.h"

#include <arpa/inet.h>
#include <sodium.h>
#include <stdarg.h>

#define MAGIC 0x314e5443u /* "CTN1" */
#define CONNECT_RESEND_US 200000u
#define CONNECT_TIMEOUT_US 10000000u
#define KEEPALIVE_US 100000u
#define COOKIE_EPOCH_US 10000000u

enum { REASON_CLOSED = 0, REASON_FULL = 1, REASON_BREACH = 2, REASON_TIMEOUT = 3 };
static const char *const reason_names[] = {"closed by the peer", "the server is full",
                                           "the peer says we broke the protocol",
                                           "the peer timed us out"};

bool net_addr_equal(const net_addr_t *a, const net_addr_t *b)
{
    return a->family == b->family && a->port == b->port &&
           !memcmp(a->ip, b->ip, a->family == 4 ? 4 : 16);
}

void net_addr_format(const net_addr_t *a, char *out, size_t size)
{
    char ip[INET6_ADDRSTRLEN] = "?";
    inet_ntop(a->family == 4 ? AF_INET : AF_INET6, a->ip, ip, sizeof ip);
    snprintf(out, size, a->family == 4 ? "%s:%u" : "[%s]:%u", ip, a->port);
}

bool net_addr_parse(const char *text, uint16_t default_port, net_addr_t *out)
{
    char host[64];
    const char *colon = strrchr(text, ':');
    unsigned long port = default_port;
    size_t host_len = strlen(text);
    if (text[0] == '[') {
        const char *close = strchr(text, ']');
        if (!close)
            return false;
        host_len = (size_t)(close - text - 1);
        text++;
        colon = close[1] == ':' ? close + 1 : NULL;
        if (close[1] && !colon)
            return false;
    } else if (colon && strchr(text, ':') != colon) {
        colon = NULL; /* bare IPv6 */
    } else if (colon) {
        host_len = (size_t)(colon - text);
    }
    if (colon) {
        char *end;
        port = strtoul(colon + 1, &end, 10);
        if (*end || end == colon + 1 || port > 65535)
            return false;
    }
    if (host_len >= sizeof host)
        return false;
    memcpy(host, text, host_len);
    host[host_len] = 0;
    net_addr_t a = {.port = (uint16_t)port};
    if (inet_pton(AF_INET, host, a.ip) == 1)
        a.family = 4;
    else if (inet_pton(AF_INET6, host, a.ip) == 1)
        a.family = 6;
    else
        return false;
    *out = a;
    return true;
}

static void node_log(net_node_t *n, const char *fmt, ...)
{
    if (!n->d.ev.log)
        return;
    char line[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    n->d.ev.log(n->d.ev.user, line);
}

/* ---- Sending ------------------------------------------------------------------------------ */

static void transmit(void *user, const net_addr_t *to, const uint8_t *p, uint32_t len)
{
    net_node_t *n = user;
    n->stats.datagrams_out++;
    n->stats.bytes_out += len;
    n->d.send(n->d.send_user, to, p, len);
}

/* Seals (with a key), then passes the datagram through the conditions of its link. */
static void emit_to(net_node_t *n, net_peer_t *peer, const net_addr_t *to, const uint8_t *p,
                    uint32_t len)
{
    if (n->d.ev.traffic)
        n->d.ev.traffic(n->d.ev.traffic_user, NET_LOG_OUT, to, p, len, n->now);
    uint8_t sealed[NET_MAX_DATAGRAM];
    if (n->d.key) {
        if (len + NET_SEAL_OVERHEAD > sizeof sealed)
            return;
        randombytes_buf(sealed, crypto_aead_xchacha20poly1305_ietf_NPUBBYTES);
        unsigned long long out_len;
        crypto_aead_xchacha20poly1305_ietf_encrypt(sealed + 24, &out_len, p, len, NULL, 0, NULL,
                                                   sealed, n->d.key);
        p = sealed;
        len = (uint32_t)out_len + 24;
    }
    const net_conditions_t *c = peer ? &peer->conditions : &n->conditions;
    net_link_state_t *link = peer ? &peer->link : &n->link;
    if (net_conditions_active(c))
        net_conditioner_push(&n->conditioner, c, link, to, p, len, n->now, transmit, n);
    else
        transmit(n, to, p, len);
}

static void emit_packet(void *user, const uint8_t *p, uint32_t len)
{
    net_peer_t *peer = user;
    net_node_t *n = peer->conn.ev.user;
    emit_to(n, peer, &peer->addr, p, len);
}

static void send_connect(net_node_t *n, net_peer_t *peer)
{
    uint8_t b[NET_HANDSHAKE_BYTES] = {0};
    net_writer_t w = net_writer(b, sizeof b);
    net_put_u8(&w, NET_PACKET_CONNECT);
    net_put_u32(&w, MAGIC);
    net_put_u64(&w, peer->salt);
    net_put_bytes(&w, peer->cookie, 16);
    emit_to(n, peer, &peer->addr, b, sizeof b);
}

static void send_small(net_node_t *n, net_peer_t *peer, const net_addr_t *to, uint8_t kind,
                       uint64_t salt, const uint8_t *extra, uint32_t extra_len)
{
    uint8_t b[32];
    net_writer_t w = net_writer(b, sizeof b);
    net_put_u8(&w, kind);
    net_put_u64(&w, salt);
    net_put_bytes(&w, extra, extra_len);
    emit_to(n, peer, to, b, w.n);
}

/* ---- Peers -------------------------------------------------------------------------------- */

static void conn_message(void *user, uint32_t index, const uint8_t *d, uint32_t len, bool reliable)
{
    net_node_t *n = user;
    if (n->peers[index]->state == NET_PEER_CONNECTED && n->d.ev.message)
        n->d.ev.message(n->d.ev.user, index, d, len, reliable);
}

static void conn_fate(void *user, uint32_t index, uint32_t token, bool delivered)
{
    net_node_t *n = user;
    if (n->d.ev.fate)
        n->d.ev.fate(n->d.ev.user, index, token, delivered);
}

static net_peer_t *new_peer(net_node_t *n, const net_addr_t *addr, uint64_t now, int *index)
{
    for (uint32_t i = 0; i < n->d.max_peers; i++) {
        if (n->peers[i])
            continue;
        net_peer_t *p = ct_alloc(n->d.a, sizeof *p);
        if (!p)
            return NULL;
        memset(p, 0, sizeof *p);
        const net_conn_events_t ev = {n, conn_message, conn_fate};
        net_conn_init(&p->conn, n->d.a, &n->d.caps, &ev, i, now);
        p->addr = *addr;
        p->started_at = now;
        p->conditions = n->conditions;
        n->peers[i] = p;
        *index = (int)i;
        return p;
    }
    return NULL;
}

static void free_peer(net_node_t *n, uint32_t i)
{
    net_conn_free(&n->peers[i]->conn);
    ct_free(n->d.a, n->peers[i], sizeof *n->peers[i]);
    n->peers[i] = NULL;
}

static int find_peer(const net_node_t *n, const net_addr_t *addr)
{
    for (uint32_t i = 0; i < n->d.max_peers; i++)
        if (n->peers[i] && n->peers[i]->state != NET_PEER_CLOSED &&
            net_addr_equal(&n->peers[i]->addr, addr))
            return (int)i;
    return -1;
}

/* Closes peer i: tells the other side (unless it told us), reports, and frees it at the next
 * service (it may be inside one of its own callbacks now). */
static void close_peer(net_node_t *n, uint32_t i, uint8_t reason_code, bool tell, const char *why)
{
    net_peer_t *p = n->peers[i];
    if (!p || p->state == NET_PEER_CLOSED)
        return;
    const bool was_connected = p->state == NET_PEER_CONNECTED;
    if (tell)
        send_small(n, p, &p->addr, NET_PACKET_DISCONNECT, p->salt, &reason_code, 1);
    p->state = NET_PEER_CLOSED;
    if (n->d.ev.disconnected && (was_connected || p->initiator))
        n->d.ev.disconnected(n->d.ev.user, i, why);
}

/* ---- API ---------------------------------------------------------------------------------- */

int net_node_init(net_node_t *n, const net_node_desc_t *desc)
{
    if (sodium_init() < 0)
        return CT_ERR_INIT_FAILED;
    memset(n, 0, sizeof *n);
    n->d = *desc;
    if (!n->d.max_peers)
        n->d.max_peers = 64;
    if (!n->d.caps.max_message)
        n->d.caps = net_default_caps;
    if (!n->d.timeout_us)
        n->d.timeout_us = 10000000;
    n->peers = ct_alloc(n->d.a, n->d.max_peers * sizeof *n->peers);
    if (!n->peers)
        return CT_ERR_NOMEM;
    memset(n->peers, 0, n->d.max_peers * sizeof *n->peers);
    if (desc->seed) {
        n->rng = desc->seed * 0x9e3779b97f4a7c15ull | 1;
        for (uint32_t k = 0; k < sizeof n->secret; k++)
            n->secret[k] = (uint8_t)net_rand(&n->rng);
    } else {
        randombytes_buf(n->secret, sizeof n->secret);
    }
    net_conditioner_init(&n->conditioner, n->d.a, desc->seed, 4096);
    return 0;
}

void net_node_free(net_node_t *n)
{
    if (!n->peers)
        return;
    for (uint32_t i = 0; i < n->d.max_peers; i++)
        if (n->peers[i])
            free_peer(n, i);
    ct_free(n->d.a, n->peers, n->d.max_peers * sizeof *n->peers);
    n->peers = NULL;
    net_conditioner_free(&n->conditioner);
}

net_peer_t *net_node_peer(net_node_t *n, uint32_t i)
{
    return i < n->d.max_peers && n->peers[i] && n->peers[i]->state == NET_PEER_CONNECTED
               ? n->peers[i]
               : NULL;
}

int net_node_connect(net_node_t *n, const net_addr_t *to, uint64_t now)
{
    n->now = now;
    int i = find_peer(n, to);
    if (i >= 0)
        return i;
    net_peer_t *p = new_peer(n, to, now, &i);
    if (!p)
        return CT_ERR_FULL;
    p->state = NET_PEER_CONNECTING;
    p->initiator = true;
    if (n->rng)
        p->salt = net_rand(&n->rng);
    else
        randombytes_buf(&p->salt, sizeof p->salt);
    p->next_attempt_at = now + CONNECT_RESEND_US;
    send_connect(n, p);
    return i;
}

int net_node_send(net_node_t *n, uint32_t i, const void *data, uint32_t len, bool reliable,
                  uint32_t token)
{
    net_peer_t *p = net_node_peer(n, i);
    return p ? net_conn_send(&p->conn, data, len, reliable, token) : CT_ERR_STALE;
}

void net_node_disconnect(net_node_t *n, uint32_t i, const char *reason)
{
    if (i < n->d.max_peers)
        close_peer(n, i, REASON_CLOSED, true, reason);
}

void net_node_rebind(net_node_t *n)
{
    for (uint32_t i = 0; i < n->d.max_peers; i++)
        if (n->peers[i]) {
            n->peers[i]->conn.ev.message = conn_message;
            n->peers[i]->conn.ev.fate = conn_fate;
        }
}

void net_node_set_conditions(net_node_t *n, int i, const net_conditions_t *c)
{
    if (i < 0)
        n->conditions = *c;
    else if ((uint32_t)i < n->d.max_peers && n->peers[i])
        n->peers[i]->conditions = *c;
}

static void cookie_for(const net_node_t *n, const net_addr_t *from, uint64_t salt, uint64_t epoch,
                       uint8_t out[16])
{
    uint8_t in[sizeof *from + 16];
    memcpy(in, from, sizeof *from);
    memcpy(in + sizeof *from, &salt, 8);
    memcpy(in + sizeof *from + 8, &epoch, 8);
    crypto_shorthash_siphashx24(out, in, sizeof in, n->secret);
}

static void on_connect(net_node_t *n, const net_addr_t *from, net_reader_t *r, uint32_t len)
{
    const uint32_t magic = net_get_u32(r);
    const uint64_t salt = net_get_u64(r);
    const uint8_t *cookie = net_get_bytes(r, 16);
    if (!n->d.accept || r->bad || len != NET_HANDSHAKE_BYTES || magic != MAGIC) {
        n->stats.dropped_malformed++;
        return;
    }
    const int known = find_peer(n, from);
    if (known >= 0 && n->peers[known]->salt == salt) {
        if (!n->peers[known]->initiator)
            send_small(n, n->peers[known], from, NET_PACKET_ACCEPT, salt, NULL, 0);
        return;
    }
    const uint64_t epoch = n->now / COOKIE_EPOCH_US;
    uint8_t expected[16], previous[16];
    cookie_for(n, from, salt, epoch, expected);
    cookie_for(n, from, salt, epoch - 1, previous);
    if (sodium_memcmp(cookie, expected, 16) && sodium_memcmp(cookie, previous, 16)) {
        n->stats.challenges_sent++;
        send_small(n, NULL, from, NET_PACKET_CHALLENGE, salt, expected, 16);
        return;
    }
    /* A proven new connection from a known address replaces the old one (the peer restarted,
     * or gave up on a handshake we had completed). Both of us connecting to each other at once
     * is settled by the salts: the smaller one's connection stays. */
    if (known >= 0) {
        net_peer_t *old = n->peers[known];
        if (old->initiator && old->state == NET_PEER_CONNECTING && old->salt < salt)
            return;
        close_peer(n, (uint32_t)known, REASON_CLOSED, old->state == NET_PEER_CONNECTED,
                   "replaced by a new connection from the same address");
    }
    int i;
    net_peer_t *p = new_peer(n, from, n->now, &i);
    if (!p) {
        const uint8_t reason = REASON_FULL;
        n->stats.refused_full++;
        send_small(n, NULL, from, NET_PACKET_DISCONNECT, salt, &reason, 1);
        return;
    }
    p->salt = salt;
    p->state = NET_PEER_CONNECTED;
    send_small(n, p, from, NET_PACKET_ACCEPT, salt, NULL, 0);
    if (n->d.ev.connected)
        n->d.ev.connected(n->d.ev.user, (uint32_t)i);
}

void net_node_receive_plain(net_node_t *n, const net_addr_t *from, const uint8_t *d, uint32_t len,
                            uint64_t now)
{
    n->now = now;
    if (n->d.ev.traffic)
        n->d.ev.traffic(n->d.ev.traffic_user, NET_LOG_IN, from, d, len, now);
    net_reader_t r = net_reader(d, len);
    net_header_t h;
    if (!net_header_read(&r, &h)) {
        n->stats.dropped_malformed++;
        return;
    }
    if (h.kind == NET_PACKET_CONNECT) {
        on_connect(n, from, &r, len);
        return;
    }
    const int i = find_peer(n, from);
    if (i < 0) {
        n->stats.dropped_unknown++;
        return;
    }
    net_peer_t *p = n->peers[i];
    if (h.kind == NET_PACKET_DATA) {
        if (p->state != NET_PEER_CONNECTED) {
            n->stats.dropped_unknown++;
            return;
        }
        if (net_conn_receive(&p->conn, &h, &r, now) < 0) {
            char who[64];
            net_addr_format(&p->addr, who, sizeof who);
            n->stats.breaches++;
            node_log(n, "peer %s broke the protocol: %s; disconnected", who, p->conn.error);
            close_peer(n, (uint32_t)i, REASON_BREACH, true, p->conn.error);
        } else if (net_conn_ack_due(&p->conn)) {
            net_conn_flush(&p->conn, now, false, emit_packet, p);
        }
        return;
    }
    const uint64_t salt = net_get_u64(&r);
    if (r.bad || salt != p->salt) {
        n->stats.dropped_malformed++;
        return;
    }
    if (h.kind == NET_PACKET_CHALLENGE && p->state == NET_PEER_CONNECTING) {
        const uint8_t *cookie = net_get_bytes(&r, 16);
        if (cookie) {
            memcpy(p->cookie, cookie, 16);
            send_connect(n, p);
        }
    } else if (h.kind == NET_PACKET_ACCEPT && p->state == NET_PEER_CONNECTING) {
        p->state = NET_PEER_CONNECTED;
        p->conn.last_received_at = now;
        if (n->d.ev.connected)
            n->d.ev.connected(n->d.ev.user, (uint32_t)i);
    } else if (h.kind == NET_PACKET_DISCONNECT) {
        const uint8_t code = net_get_u8(&r);
        close_peer(n, (uint32_t)i, 0, false, !r.bad && code < 4 ? reason_names[code] : "closed");
    }
}

void net_node_receive(net_node_t *n, const net_addr_t *from, const uint8_t *d, uint32_t len,
                      uint64_t now)
{
    n->stats.datagrams_in++;
    n->stats.bytes_in += len;
    if (len == 0 || len > NET_MAX_DATAGRAM) {
        n->stats.dropped_malformed++;
        return;
    }
    if (!n->d.key) {
        net_node_receive_plain(n, from, d, len, now);
        return;
    }
    uint8_t plain[NET_MAX_DATAGRAM];
    unsigned long long plain_len;
    if (len <= NET_SEAL_OVERHEAD ||
        crypto_aead_xchacha20poly1305_ietf_decrypt(plain, &plain_len, NULL, d + 24, len - 24, NULL,
                                                   0, d, n->d.key) != 0) {
        n->stats.dropped_auth++;
        return;
    }
    net_node_receive_plain(n, from, plain, (uint32_t)plain_len, now);
}

void net_node_service(net_node_t *n, uint64_t now)
{
    n->now = now;
    if (n->d.ev.traffic)
        n->d.ev.traffic(n->d.ev.traffic_user, NET_LOG_SERVICE, NULL, NULL, 0, now);
    for (uint32_t i = 0; i < n->d.max_peers; i++) {
        net_peer_t *p = n->peers[i];
        if (!p)
            continue;
        if (p->state == NET_PEER_CLOSED) {
            free_peer(n, i);
            continue;
        }
        if (p->state == NET_PEER_CONNECTING) {
            if (!n->d.no_timeouts && now - p->started_at > CONNECT_TIMEOUT_US) {
                close_peer(n, i, 0, false, "timed out connecting");
            } else if (now >= p->next_attempt_at) {
                p->next_attempt_at = now + CONNECT_RESEND_US;
                send_connect(n, p);
            }
            continue;
        }
        if (!n->d.no_timeouts && now - p->conn.last_received_at > n->d.timeout_us) {
            char who[64];
            net_addr_format(&p->addr, who, sizeof who);
            node_log(n, "peer %s timed out (nothing for %.1f s); disconnected", who,
                     (double)(now - p->conn.last_received_at) * 1e-6);
            close_peer(n, i, REASON_TIMEOUT, true, "timed out");
            continue;
        }
        net_conn_flush(&p->conn, now, now - p->conn.last_sent_at >= KEEPALIVE_US, emit_packet, p);
    }
    net_conditioner_release(&n->conditioner, now, transmit, n);
}
