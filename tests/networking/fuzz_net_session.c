/* Fuzz target: a hostile peer through a whole session. A host (peer 1) and an honest peer join
 * on the virtual network with the attacker, a joined peer of its own; then the input is a series
 * of operations: the attacker sends any session message (raw bytes, or a replication message
 * built from the input's fields, about objects that exist or not, at any counter) to the host or
 * the honest peer, the honest parties create, move, migrate and destroy their objects, time
 * passes, the attacker calls RPCs, leaves and comes back. After every operation the invariants
 * of the threat model (api/ct_network.h) must hold at the host and the honest peer:
 *   - only owners change their objects: an object an honest party created carries its creator's
 *     mark in every copy, and is owned by an honest party unless the host gave it away;
 *   - an honest object lives on at the host until its owner destroys it;
 *   - the attacker's live objects at the host stay within its quota, all in its own namespace
 *     or given to it by the host;
 *   - ids hold: a bound id's connection names it back, and no two ids share a connection;
 * and nothing leaks or crashes (ASan, UBSan, and with clang, float-cast-overflow).
 *
 * Input: [u8 op][operands...] repeated; every operand read past the end is 0. */
#include "net_test_support.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { HOST, HONEST, ATTACKER, PEERS };
#define MAX_OBJECTS 64
#define MARK 7 /* the script field an honest creator signs with its id */

typedef struct fz_peer_t {
    net_session_t s;
    vnet_sender_t sender;
} fz_peer_t;

static test_alloc_t alloc;
static vnet_t net;
static fz_peer_t peers[PEERS];
static bool up[PEERS]; /* initialised (the attacker joins after the others) */
/* Honest objects: id, creator, and whether the creator destroyed it (or saw it destroyed). */
static uint32_t honest_ids[256];
static uint8_t honest_gone[256];
static uint32_t num_honest;
/* Objects the host gave the attacker (it may change those). */
static uint32_t given[256];
static uint32_t num_given;

static void init_peer(int i, bool join)
{
    fz_peer_t *p = &peers[i];
    memset(p, 0, sizeof *p);
    p->sender = (vnet_sender_t){&net, (uint16_t)(43000 + i)};
    const net_session_desc_t d = {
        .node = {.a = &alloc.base,
                 .max_peers = 4,
                 .seed = 11 + (uint64_t)i,
                 .send = vnet_send,
                 .send_user = &p->sender},
        .mode = NET_MODE_PEER_TO_PEER,
        .host = i == HOST,
        .max_objects = MAX_OBJECTS,
        .tick_hz = 100,
    };
    if (net_session_init(&p->s, &d))
        abort();
    up[i] = true;
    bool known = false;
    for (uint32_t k = 0; k < net.num_nodes; k++)
        if (net.ports[k] == p->sender.port) {
            net.nodes[k] = &p->s.node;
            known = true;
        }
    if (!known)
        vnet_add(&net, &p->s.node, p->sender.port);
    if (join) {
        const net_addr_t h = net_addr_loopback4(43000);
        net_session_join(&p->s, &h, net.now);
    }
}

static void step(uint32_t ms)
{
    for (uint32_t t = 0; t < ms; t += 10) {
        net.now += 10000;
        vnet_pump(&net);
        for (int i = 0; i < PEERS; i++)
            if (up[i])
                net_session_tick(&peers[i].s, net.now);
    }
}

/* Operands: bytes of the input, 0 past its end. */
typedef struct fz_in_t {
    const uint8_t *p;
    size_t n, at;
} fz_in_t;

static uint8_t u8(fz_in_t *in) { return in->at < in->n ? in->p[in->at++] : 0; }
static uint32_t u32(fz_in_t *in)
{
    uint32_t v = 0;
    for (int k = 0; k < 4; k++)
        v = v << 8 | u8(in);
    return v;
}
static float f32(fz_in_t *in)
{
    const uint32_t bits = u32(in);
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* An object id worth trying: an honest one, one the attacker knows, or any. */
static uint32_t pick_id(fz_in_t *in)
{
    const uint8_t how = u8(in);
    if (how < 100 && num_honest)
        return honest_ids[how % num_honest];
    if (how < 150)
        return (uint32_t)(1 + how % 3) << 24 | (u8(in) % 8 + 1);
    return u32(in);
}

static void attacker_send(fz_in_t *in)
{
    fz_peer_t *a = &peers[ATTACKER];
    const uint8_t to = u8(in) & 1 ? peers[HONEST].s.my_id : 1;
    const int16_t conn = a->s.conn_of_id[to];
    if (conn < 0)
        return;
    uint8_t b[300];
    uint32_t len;
    bool reliable = true;
    const uint8_t how = u8(in);
    if (how < 64) { /* raw bytes */
        len = u8(in) % 64 + 1;
        for (uint32_t k = 0; k < len; k++)
            b[k] = u8(in);
        reliable = how & 1;
    } else { /* a well-formed replication message, any contents */
        net_obj_msg_t m = {.type = (uint8_t)(NET_R_CREATE + u8(in) % 7),
                           .origin = u8(in) % 4 ? a->s.my_id : u8(in),
                           .owner = u8(in) % 4 ? a->s.my_id : u8(in),
                           .id = pick_id(in),
                           .mig = u8(in) % 4,
                           .version = u8(in) + 1u,
                           .mask = (uint16_t)(u8(in) << 8 | u8(in))};
        if (!m.id)
            m.id = 1;
        for (uint32_t f = 0; f < NET_FIELDS; f++)
            m.fields[f] = u8(in) < 200 ? (float)(u8(in) % 9) : f32(in);
        if (m.type == NET_R_UPDATE && !m.mask)
            m.mask = 1;
        net_writer_t w = net_writer(b, sizeof b);
        net_obj_msg_write(&w, &m);
        len = w.n;
        reliable = m.type != NET_R_UPDATE;
    }
    net_node_send(&a->s.node, (uint32_t)conn, b, len, reliable, 0);
}

static void honest_act(fz_in_t *in)
{
    const int who = u8(in) & 1 ? HONEST : HOST;
    net_session_t *s = &peers[who].s;
    const uint8_t what = u8(in) % 4;
    if (what == 0 && num_honest < 256) {
        const float f[NET_FIELDS] = {(float)(u8(in) % 50), 0, 0, 0, 0, 0, 1, [MARK] = s->my_id};
        const uint32_t id = net_object_spawn(s, f, 0xffff);
        if (id) {
            honest_gone[num_honest] = 0;
            honest_ids[num_honest++] = id;
        }
        return;
    }
    if (!num_honest)
        return;
    const uint32_t k = u8(in) % num_honest;
    const net_object_t *o = net_object_find(s, honest_ids[k]);
    if (!o || o->owner != s->my_id)
        return;
    if (what == 1) {
        float f[NET_FIELDS];
        memcpy(f, o->fields, sizeof f);
        f[0] = (float)(u8(in) % 100);
        net_object_set(s, o->id, 1, f);
    } else if (what == 2) {
        if (net_object_destroy(s, o->id) == 0)
            honest_gone[k] = 1;
    } else if (who == HOST) {
        const uint8_t to = u8(in) % 3 == 0 ? peers[ATTACKER].s.my_id : peers[HONEST].s.my_id;
        if (to && net_object_migrate(s, o->id, to) == 0 && to == peers[ATTACKER].s.my_id &&
            num_given < 256)
            given[num_given++] = o->id;
    }
}

static bool was_given(uint32_t id)
{
    for (uint32_t i = 0; i < num_given; i++)
        if (given[i] == id)
            return true;
    return false;
}

static void check(void)
{
    const uint8_t attacker = peers[ATTACKER].s.my_id, honest = peers[HONEST].s.my_id;
    for (int who = HOST; who <= HONEST; who++) {
        const net_session_t *s = &peers[who].s;
        /* Ids: a bound id's connection names it back. */
        for (uint32_t id = 1; id < 256; id++)
            if (s->conn_of_id[id] >= 0 && s->id_of_conn[s->conn_of_id[id]] != id)
                abort();
        uint32_t attackers = 0;
        for (uint32_t i = 0; i < s->max_objects; i++) {
            const net_object_t *o = &s->objects[i];
            if (!o->id || !o->live)
                continue;
            bool is_honest = false;
            for (uint32_t k = 0; k < num_honest && !is_honest; k++)
                is_honest = honest_ids[k] == o->id;
            if (is_honest && !was_given(o->id)) {
                /* Only owners change their objects: the creator's mark stands, the owner is
                 * honest. */
                if (o->fields[MARK] != (float)(o->id >> 24) ||
                    (o->owner != 1 && o->owner != honest))
                    abort();
            }
            if (who == HOST && o->owner == attacker && attacker) {
                attackers++;
                if ((o->id >> 24) != attacker && !was_given(o->id))
                    abort();
            }
            for (uint32_t f = 0; f < NET_FIELDS; f++)
                if (!isfinite(o->fields[f]))
                    abort();
        }
        if (who == HOST && attackers > s->max_objects_per_peer + num_given)
            abort();
    }
    /* The host's own objects live on there until an honest owner destroys them (the attacker
     * can neither destroy nor take them unless the host gives them away). */
    for (uint32_t k = 0; k < num_honest; k++)
        if (honest_ids[k] >> 24 == 1 && !honest_gone[k] && !was_given(honest_ids[k]) &&
            !net_object_find(&peers[HOST].s, honest_ids[k]))
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    test_alloc_init(&alloc);
    vnet_init(&net);
    num_honest = num_given = 0;
    memset(up, 0, sizeof up);
    init_peer(HOST, false);
    init_peer(HONEST, true);
    step(200);
    init_peer(ATTACKER, true);
    step(300);
    fz_in_t in = {data, size, 0};
    for (uint32_t ops = 0; ops < 256 && in.at < in.n; ops++) {
        const uint8_t op = u8(&in) % 8;
        if (op <= 2) {
            attacker_send(&in);
        } else if (op <= 4) {
            honest_act(&in);
        } else if (op == 5) {
            step(10 * (u8(&in) % 20 + 1));
        } else if (op == 6) { /* an RPC or user message, any bytes */
            const int16_t conn = peers[ATTACKER].s.conn_of_id[1];
            uint8_t b[64] = {u8(&in) & 1 ? NET_RPC : NET_USER};
            const uint32_t len = u8(&in) % 63 + 1;
            for (uint32_t k = 1; k < len; k++)
                b[k] = u8(&in);
            if (conn >= 0)
                net_node_send(&peers[ATTACKER].s.node, (uint32_t)conn, b, len, true, 0);
        } else if (u8(&in) < 16) { /* the attacker leaves and joins again */
            net_session_free(&peers[ATTACKER].s);
            init_peer(ATTACKER, true);
        }
        step(20);
        check();
    }
    for (int i = 0; i < PEERS; i++)
        net_session_free(&peers[i].s);
    vnet_free(&net);
    net.num_nodes = 0;
    if (alloc.live_blocks || alloc.live_bytes)
        abort();
    return 0;
}
