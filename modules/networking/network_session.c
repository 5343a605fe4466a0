/*
 * network_session.c: who is in the session and how messages find them.
 *
 * The host (peer 1) accepts joiners, gives each a free id (round robin, so an id comes back only
 * after every other one was given; with it the newest object serial of its namespace, so object
 * ids never repeat) and, in peer-to-peer mode, the addresses of the peers already there, and
 * tells those peers the joiner's id and address (PEER_JOINED). The joiner connects to each and
 * introduces itself with PEER_HELLO; a peer binds that connection to the id only when the host
 * announced the id at that address (waiting for the announcement if the hello came first) and
 * answers PEER_ACCEPT, after which both sides talk. So an outsider cannot claim an id on a peer.
 * A joiner tries a listed peer NET_INTRODUCE_TRIES times at most. In client-server mode clients
 * only ever talk to the host. Session messages are
 * checked here for their type and framing; replication and RPC check their own contents. A peer
 * that sends something it may not (an unknown type, a second hello, a welcome when it is not the
 * host) breaks the protocol and is disconnected, the reason naming it.
 */
#include "network_session.h"

static void breach(net_session_t *s, uint32_t conn, const char *why)
{
    char who[64] = "?", line[256];
    const net_peer_t *p = net_node_peer(&s->node, conn);
    if (p)
        net_addr_format(&p->addr, who, sizeof who);
    snprintf(line, sizeof line, "peer %u at %s broke the session protocol: %s; disconnected",
             s->id_of_conn[conn], who, why);
    s->node.stats.breaches++;
    if (s->node.d.ev.log)
        s->node.d.ev.log(s->node.d.ev.user, line);
    net_node_disconnect(&s->node, conn, why);
}

static bool bound(const net_session_t *s, uint32_t conn)
{
    const uint8_t id = s->id_of_conn[conn];
    return id && s->conn_of_id[id] == (int16_t)conn;
}

static void bind_peer(net_session_t *s, uint32_t conn, uint8_t id)
{
    s->id_of_conn[conn] = id;
    s->conn_of_id[id] = (int16_t)conn;
    net__replication_peer_joined(s, conn);
    if (s->ev.joined)
        s->ev.joined(s->ev.user, id);
}

static void on_connected(void *user, uint32_t conn)
{
    net_session_t *s = user;
    if ((int)conn == s->host_conn) {
        const uint8_t hello = NET_S_HELLO;
        net_node_send(&s->node, conn, &hello, 1, true, 0);
    }
}

static void on_disconnected(void *user, uint32_t conn, const char *reason)
{
    net_session_t *s = user;
    const uint8_t id = s->id_of_conn[conn];
    const bool was_bound = bound(s, conn);
    s->id_of_conn[conn] = 0;
    if ((int)conn == s->host_conn)
        s->host_conn = -1;
    if (!id)
        return;
    if (!was_bound) {
        /* An introduction that did not come through: try again while tries are left. */
        if (s->wanted[id] && (!s->tries_left[id] || !--s->tries_left[id]))
            s->wanted[id] = 0;
        else if (s->wanted[id])
            s->wanted[id] = 1;
        return;
    }
    s->conn_of_id[id] = -1;
    s->announced[id] = 0; /* the id is free until the host gives it again */
    net__replication_peer_left(s, id);
    if (s->ev.left)
        s->ev.left(s->ev.user, id, reason);
}

/* The host's next free id after the last one given (round robin), or 0 when all are taken. */
static uint8_t free_id(net_session_t *s)
{
    for (uint32_t n = 0; n < NET_MAX_PEER_ID - 1; n++) {
        const uint8_t id = (uint8_t)(2 + (s->next_id - 2 + n) % (NET_MAX_PEER_ID - 1));
        if (s->conn_of_id[id] < 0) {
            s->next_id = (uint8_t)(2 + (id - 1) % (NET_MAX_PEER_ID - 1));
            return id;
        }
    }
    return 0;
}

static void put_addr(net_writer_t *w, const net_addr_t *a)
{
    net_put_u8(w, a->family);
    net_put_u16(w, a->port);
    net_put_bytes(w, a->ip, 16);
}

static net_addr_t get_addr(net_reader_t *r)
{
    net_addr_t a = {.family = net_get_u8(r), .port = net_get_u16(r)};
    const uint8_t *ip = net_get_bytes(r, 16);
    if (ip)
        memcpy(a.ip, ip, 16);
    return a;
}

static void welcome(net_session_t *s, uint32_t conn)
{
    const uint8_t id = free_id(s);
    if (!id) {
        breach(s, conn, "the session has no peer id left");
        return;
    }
    s->addr_of_id[id] = net_node_peer(&s->node, conn)->addr;
    uint8_t b[8 + 255 * 20];
    net_writer_t w = net_writer(b, sizeof b);
    net_put_u8(&w, NET_S_WELCOME);
    net_put_u8(&w, id);
    net_put_u8(&w, s->mode);
    net_put_u32(&w, s->last_serial[id]);
    uint8_t n = 0;
    const uint32_t count_at = w.n;
    net_put_u8(&w, 0);
    for (uint32_t other = 2; s->mode == NET_MODE_PEER_TO_PEER && other < 256; other++) {
        if (other == id || s->conn_of_id[other] < 0)
            continue;
        net_put_u8(&w, (uint8_t)other);
        put_addr(&w, &s->addr_of_id[other]);
        n++;
        /* The peer already there learns the joiner's id and address from us, not from it. */
        uint8_t j[2 + 19];
        net_writer_t jw = net_writer(j, sizeof j);
        net_put_u8(&jw, NET_S_PEER_JOINED);
        net_put_u8(&jw, id);
        put_addr(&jw, &s->addr_of_id[id]);
        net_node_send(&s->node, (uint32_t)s->conn_of_id[other], j, jw.n, true, 0);
    }
    b[count_at] = n;
    net_node_send(&s->node, conn, b, w.n, true, 0);
    bind_peer(s, conn, id);
}

static void on_welcome(net_session_t *s, net_reader_t *r, uint64_t now, const char **why)
{
    const uint8_t id = net_get_u8(r), mode = net_get_u8(r);
    const uint32_t last_serial = net_get_u32(r);
    const uint8_t n = net_get_u8(r);
    if (r->bad || id < 2 || id > NET_MAX_PEER_ID || mode > NET_MODE_CLIENT_SERVER ||
        last_serial >= 0xffffff) {
        *why = "malformed welcome";
        return;
    }
    net_addr_t addrs[255];
    uint8_t ids[255];
    for (uint32_t k = 0; k < n; k++) {
        ids[k] = net_get_u8(r);
        addrs[k] = get_addr(r);
        if (r->bad || ids[k] < 2 || ids[k] > NET_MAX_PEER_ID || ids[k] == id ||
            (addrs[k].family != 4 && addrs[k].family != 6)) {
            *why = "malformed peer list in the welcome";
            return;
        }
    }
    s->my_id = id;
    s->mode = mode;
    s->joined = true;
    s->next_serial = last_serial;
    bind_peer(s, (uint32_t)s->host_conn, 1);
    (void)now;
    for (uint32_t k = 0; k < n; k++) {
        s->wanted[ids[k]] = 1;
        s->tries_left[ids[k]] = NET_INTRODUCE_TRIES;
        s->announced[ids[k]] = 1;
        s->addr_of_id[ids[k]] = addrs[k];
    }
}

/* Binds an introduced connection whose id the host announced at its address, and says so. */
static void accept_introduction(net_session_t *s, uint32_t conn, uint8_t id)
{
    bind_peer(s, conn, id);
    const uint8_t accept[2] = {NET_S_PEER_ACCEPT, s->my_id};
    net_node_send(&s->node, conn, accept, 2, true, 0);
}

static bool from_announced_addr(net_session_t *s, uint32_t conn, uint8_t id)
{
    const net_peer_t *p = net_node_peer(&s->node, conn);
    return p && s->announced[id] && net_addr_equal(&p->addr, &s->addr_of_id[id]);
}

/* A peer's PEER_HELLO naming `id`: bound when the host announced the id at this address, kept
 * waiting for the announcement when it has not yet, refused when the id is someone else's. */
static void on_peer_hello(net_session_t *s, uint32_t conn, uint8_t id, const char **why)
{
    const net_peer_t *p = net_node_peer(&s->node, conn);
    if (s->mode != NET_MODE_PEER_TO_PEER || s->is_host || !p || p->initiator ||
        s->id_of_conn[conn] || id < 2 || id > NET_MAX_PEER_ID || id == s->my_id) {
        *why = "a peer hello that is out of place or names an impossible id";
        return;
    }
    if (s->announced[id] && !from_announced_addr(s, conn, id)) {
        *why = "a peer hello naming an id the host gave to another address";
        return;
    }
    s->id_of_conn[conn] = id; /* waits for the host's word when it has not come yet */
    if (s->announced[id] && s->conn_of_id[id] < 0)
        accept_introduction(s, conn, id);
}

/* The host's word that `id` now belongs to `addr`: an old connection still holding the id is
 * dropped (its peer left and the id was given again), and a hello that was waiting is bound. */
static void on_peer_joined(net_session_t *s, uint32_t conn, net_reader_t *r, const char **why)
{
    const uint8_t id = net_get_u8(r);
    const net_addr_t addr = get_addr(r);
    if ((int)conn != s->host_conn || s->mode != NET_MODE_PEER_TO_PEER || !s->joined || r->bad ||
        net_left(r) || id < 2 || id > NET_MAX_PEER_ID || id == s->my_id ||
        (addr.family != 4 && addr.family != 6)) {
        *why = "a peer-joined notice out of place or malformed";
        return;
    }
    if (s->conn_of_id[id] >= 0 && !net_addr_equal(&s->addr_of_id[id], &addr))
        net_node_disconnect(&s->node, (uint32_t)s->conn_of_id[id],
                            "its id was given to a new peer");
    s->announced[id] = 1;
    s->addr_of_id[id] = addr;
    for (uint32_t c = 0; c < s->max_conns; c++)
        if (s->id_of_conn[c] == id && !bound(s, c) && from_announced_addr(s, c, id) &&
            !s->node.peers[c]->initiator && s->conn_of_id[id] < 0)
            accept_introduction(s, c, id);
}

static void on_peer_accept(net_session_t *s, uint32_t conn, uint8_t id, const char **why)
{
    const net_peer_t *p = net_node_peer(&s->node, conn);
    if (!p || !p->initiator || bound(s, conn) || !id || s->id_of_conn[conn] != id ||
        s->wanted[id] != 2 || s->conn_of_id[id] >= 0) {
        *why = "a peer accept out of place";
        return;
    }
    s->wanted[id] = 0;
    bind_peer(s, conn, id);
}

static void on_message(void *user, uint32_t conn, const uint8_t *d, uint32_t len, bool reliable)
{
    net_session_t *s = user;
    net_reader_t r = net_reader(d, len);
    const uint8_t type = net_get_u8(&r);
    const uint8_t from = s->id_of_conn[conn];
    const char *why = NULL;
    const bool is_bound = from && s->conn_of_id[from] == (int16_t)conn;
    switch (type) {
    case NET_S_HELLO:
        if (!s->is_host || is_bound || !reliable)
            why = "a hello to a peer that is not the host, or a second one";
        else
            welcome(s, conn);
        break;
    case NET_S_WELCOME:
        if ((int)conn != s->host_conn || s->joined || !reliable)
            why = "a welcome from a peer that is not our host, or a second one";
        else
            on_welcome(s, &r, s->node.now, &why);
        break;
    case NET_S_PEER_HELLO:
    case NET_S_PEER_ACCEPT: {
        const uint8_t id = net_get_u8(&r);
        if (r.bad || net_left(&r) || !reliable)
            why = "a malformed peer hello or accept";
        else if (type == NET_S_PEER_HELLO)
            on_peer_hello(s, conn, id, &why);
        else
            on_peer_accept(s, conn, id, &why);
        break;
    }
    case NET_S_PEER_JOINED:
        if (!reliable)
            why = "a peer-joined notice on the unreliable stream";
        else
            on_peer_joined(s, conn, &r, &why);
        break;
    case NET_R_CREATE:
    case NET_R_UPDATE:
    case NET_R_DESTROY:
    case NET_R_MIGRATE:
    case NET_R_MIGRATE_ORDER:
    case NET_R_MIGRATE_NOTICE:
    case NET_R_ANNOUNCE_AGAIN:
        if (!is_bound)
            why = "replication before the peer introduced itself";
        else if ((type == NET_R_UPDATE) == reliable)
            why = "a replication message on the wrong stream";
        else
            net__replication_receive(s, conn, from, d, len, &why);
        break;
    case NET_RPC:
    case NET_USER:
        if (!is_bound)
            why = "a message before the peer introduced itself";
        else if (s->ev.message)
            s->ev.message(s->ev.user, from, d, len);
        break;
    default: why = "unknown session message type";
    }
    if (why)
        breach(s, conn, why);
}

static void on_fate(void *user, uint32_t conn, uint32_t token, bool delivered)
{
    (void)conn;
    net__replication_fate(user, token, delivered);
}

void net_session_rebind(net_session_t *s)
{
    s->node.d.ev.connected = on_connected;
    s->node.d.ev.disconnected = on_disconnected;
    s->node.d.ev.message = on_message;
    s->node.d.ev.fate = on_fate;
    net_node_rebind(&s->node);
}

int net_session_init(net_session_t *s, const net_session_desc_t *d)
{
    memset(s, 0, sizeof *s);
    s->a = d->node.a;
    s->mode = d->mode;
    s->is_host = d->host;
    s->my_id = d->host ? 1 : 0;
    s->joined = d->host;
    s->next_id = 2;
    const uint32_t max_objects = d->max_objects ? d->max_objects : 16384;
    s->max_objects_per_peer = d->max_objects_per_peer ? d->max_objects_per_peer
                              : max_objects / 8 > 16  ? max_objects / 8
                                                      : 16;
    s->host_conn = -1;
    s->ev = d->ev;
    s->update_budget = d->update_budget;
    s->tick_us = 1000000u / (d->tick_hz ? d->tick_hz : 20);
    memset(s->conn_of_id, 0xff, sizeof s->conn_of_id);
    net_node_desc_t nd = d->node;
    /* Peers accept each other in peer-to-peer mode; clients accept nobody. */
    nd.accept = d->host || d->mode == NET_MODE_PEER_TO_PEER;
    nd.ev.user = s;
    nd.ev.connected = on_connected;
    nd.ev.disconnected = on_disconnected;
    nd.ev.message = on_message;
    nd.ev.fate = on_fate;
    if (!nd.max_peers)
        nd.max_peers = 64;
    if (nd.max_peers > 255)
        nd.max_peers = 255;
    s->max_conns = nd.max_peers;
    int err = net_node_init(&s->node, &nd);
    if (!err)
        err = net__replication_init(s, max_objects);
    if (err)
        net_session_free(s);
    return err;
}

void net_session_free(net_session_t *s)
{
    net__replication_free(s);
    net_node_free(&s->node);
}

int net_session_join(net_session_t *s, const net_addr_t *host, uint64_t now)
{
    if (s->is_host || s->host_conn >= 0)
        return CT_ERR_INVALID;
    const int conn = net_node_connect(&s->node, host, now);
    if (conn < 0)
        return conn;
    s->host_conn = conn;
    return 0;
}

/* Peer-to-peer joiners connect to the peers the welcome listed (again, if an attempt failed)
 * and introduce themselves once connected. */
static void introduce(net_session_t *s)
{
    for (uint32_t id = 2; id < 256; id++) {
        if (s->wanted[id] != 1 || s->conn_of_id[id] >= 0)
            continue;
        const int conn = net_node_connect(&s->node, &s->addr_of_id[id], s->node.now);
        if (conn >= 0)
            s->id_of_conn[conn] = (uint8_t)id; /* bound once the peer accepts our hello */
    }
    for (uint32_t c = 0; c < s->max_conns; c++) {
        const uint8_t id = s->id_of_conn[c];
        if (!id || (int)c == s->host_conn || s->wanted[id] != 1 || bound(s, c) ||
            !net_node_peer(&s->node, c) || !s->node.peers[c]->initiator)
            continue;
        const uint8_t hello[2] = {NET_S_PEER_HELLO, s->my_id};
        if (net_node_send(&s->node, c, hello, 2, true, 0) == 0)
            s->wanted[id] = 2;
    }
}

void net_session_tick(net_session_t *s, uint64_t now)
{
    s->node.now = now;
    if (s->joined && s->mode == NET_MODE_PEER_TO_PEER && !s->is_host)
        introduce(s);
    if (s->joined && now - s->last_tick >= s->tick_us) {
        s->last_tick = now;
        net__replication_send(s);
    }
    net_node_service(&s->node, now);
}

int net_session_send(net_session_t *s, uint8_t peer_id, const void *data, uint32_t len,
                     bool reliable)
{
    const int16_t conn = s->conn_of_id[peer_id];
    if (conn < 0)
        return CT_ERR_NOT_FOUND;
    return net_node_send(&s->node, (uint32_t)conn, data, len, reliable, 0);
}
