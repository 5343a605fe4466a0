/* Replication without a kernel: the seed post's arrival orders fed to a third peer, bad
 * replication messages, and the soak matrix: a host and three peers on the virtual network
 * creating, updating, migrating and destroying objects for 25 simulated seconds under each set
 * of conditions, then checked for convergence, exact reliable streams and no stale update. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "net_test_support.h"

static test_alloc_t alloc;

/* ---- The post's orders at a third peer X --------------------------------------------------
 * X is peer 4; A is 2, B is 3, the host 1. Connections 0, 1, 2 are A, the host and B. */

enum { A = 2, B = 3, HOST = 1, X = 4, CONN_A = 0, CONN_HOST = 1, CONN_B = 2 };
#define OBJ ((uint32_t)A << 24 | 1)

static void no_send(void *user, const net_addr_t *to, const uint8_t *p, uint32_t n)
{
    (void)user, (void)to, (void)p, (void)n;
}

static void third_peer(net_session_t *s)
{
    const net_session_desc_t d = {.node = {.a = &alloc.base, .max_peers = 4, .send = no_send}};
    assert_int_equal(net_session_init(s, &d), 0);
    s->my_id = X;
    s->joined = true;
    const uint8_t ids[3] = {A, HOST, B};
    for (uint32_t c = 0; c < 3; c++) {
        s->id_of_conn[c] = ids[c];
        s->conn_of_id[ids[c]] = (int16_t)c;
    }
}

static int feed(net_session_t *s, uint32_t conn, net_obj_msg_t m)
{
    uint8_t b[128];
    net_writer_t w = net_writer(b, sizeof b);
    m.id = OBJ;
    net_obj_msg_write(&w, &m);
    const char *why = NULL;
    return net__replication_receive(s, conn, s->id_of_conn[conn], b, w.n, &why);
}

static net_obj_msg_t C0(void)
{
    return (net_obj_msg_t){.type = NET_R_CREATE,
                           .origin = A,
                           .owner = A,
                           .mig = 0,
                           .version = 1,
                           .mask = 1,
                           .fields = {10}};
}
static net_obj_msg_t Ua(uint32_t v)
{
    return (net_obj_msg_t){.type = NET_R_UPDATE,
                           .origin = A,
                           .mig = 0,
                           .version = v,
                           .mask = 1,
                           .fields = {100.0f + (float)v}};
}
static net_obj_msg_t Mab1(void)
{
    return (net_obj_msg_t){.type = NET_R_MIGRATE,
                           .origin = B,
                           .owner = B,
                           .mig = 1,
                           .version = 1,
                           .mask = 1,
                           .fields = {20}};
}
static net_obj_msg_t Ub(uint32_t v)
{
    return (net_obj_msg_t){.type = NET_R_UPDATE,
                           .origin = B,
                           .mig = 1,
                           .version = v,
                           .mask = 1,
                           .fields = {200.0f + (float)v}};
}
static net_obj_msg_t D1(void)
{
    return (net_obj_msg_t){.type = NET_R_DESTROY, .origin = B, .mig = 1};
}
/* The host's word that B owns the object at 1 (with the host's copy of the state). */
static net_obj_msg_t Nab1(void)
{
    return (net_obj_msg_t){.type = NET_R_MIGRATE_NOTICE,
                           .origin = HOST,
                           .owner = B,
                           .mig = 1,
                           .version = 1,
                           .mask = 1,
                           .fields = {20}};
}

static void the_posts_order_M_Ub_Ub_D_C_Ua(void **state)
{
    (void)state;
    test_alloc_init(&alloc);
    net_session_t x;
    third_peer(&x);
    /* B's MIGRATE before the host's word is not believed (B is asked to send it again). */
    assert_int_equal(feed(&x, CONN_B, Mab1()), 0);
    assert_null(net_object_find(&x, OBJ));
    assert_int_equal(feed(&x, CONN_HOST, Nab1()), 0);
    assert_int_equal(feed(&x, CONN_B, Mab1()), 0);
    const net_object_t *o = net_object_find(&x, OBJ);
    assert_non_null(o);
    assert_int_equal(o->owner, B);
    assert_int_equal(o->mig, 1);
    assert_int_equal(feed(&x, CONN_B, Ub(2)), 0);
    assert_int_equal(feed(&x, CONN_B, Ub(3)), 0);
    assert_true(o->fields[0] == 203.0f);
    assert_int_equal(feed(&x, CONN_B, D1()), 0);
    assert_null(net_object_find(&x, OBJ));
    assert_int_equal(feed(&x, CONN_A, C0()), 0);
    assert_int_equal(feed(&x, CONN_A, Ua(2)), 0);
    assert_null(net_object_find(&x, OBJ));
    assert_int_equal(x.stats.migrations_applied, 1); /* the notice; B's announce says the same */
    assert_int_equal(x.stats.updates_applied, 2);
    assert_int_equal(x.stats.destroys_applied, 1);
    assert_int_equal(x.stats.stale_creates, 1);
    assert_int_equal(x.stats.stale_updates, 1);
    net_session_free(&x);
    assert_int_equal(alloc.live_bytes, 0);
}

/* Every order of C_0, the host's notice N_1, M_ab_1 and D_1 (B's M before its D, as B's stream
 * is ordered); what X refused and asked again for (B's M or D before the notice), B sends again. */
static void every_order_of_create_migrate_destroy(void **state)
{
    (void)state;
    test_alloc_init(&alloc);
    const int orders[12][4] = {{0, 1, 2, 3}, {0, 2, 1, 3}, {0, 2, 3, 1}, {1, 0, 2, 3},
                               {1, 2, 0, 3}, {1, 2, 3, 0}, {2, 0, 1, 3}, {2, 0, 3, 1},
                               {2, 1, 0, 3}, {2, 1, 3, 0}, {2, 3, 0, 1}, {2, 3, 1, 0}};
    for (int k = 0; k < 12; k++) {
        net_session_t x;
        third_peer(&x);
        for (int j = 0; j < 4; j++) {
            const int which = orders[k][j];
            const uint32_t conn = which == 0 ? CONN_A : which == 1 ? CONN_HOST : CONN_B;
            const net_obj_msg_t m = which == 0   ? C0()
                                    : which == 1 ? Nab1()
                                    : which == 2 ? Mab1()
                                                 : D1();
            assert_int_equal(feed(&x, conn, m), 0);
        }
        assert_int_equal(feed(&x, CONN_B, Mab1()), 0); /* sent again when asked */
        assert_int_equal(feed(&x, CONN_B, D1()), 0);
        assert_null(net_object_find(&x, OBJ));
        net_session_free(&x);
    }
    /* Without the destroy: whatever the order, B owns it at 1 with B's state, A's late updates
     * ignored. */
    for (int k = 0; k < 2; k++) {
        net_session_t x;
        third_peer(&x);
        if (k) {
            feed(&x, CONN_HOST, Nab1());
            feed(&x, CONN_B, Mab1());
            feed(&x, CONN_A, C0());
            feed(&x, CONN_A, Ua(5));
            feed(&x, CONN_B, Ub(2));
        } else {
            feed(&x, CONN_A, C0());
            feed(&x, CONN_A, Ua(5));
            feed(&x, CONN_B, Mab1()); /* before the notice: asked again */
            feed(&x, CONN_HOST, Nab1());
            feed(&x, CONN_A, Ua(6));
            feed(&x, CONN_B, Mab1());
            feed(&x, CONN_B, Ub(2));
        }
        const net_object_t *o = net_object_find(&x, OBJ);
        assert_non_null(o);
        assert_int_equal(o->owner, B);
        assert_int_equal(o->mig, 1);
        assert_true(o->fields[0] == 202.0f);
        net_session_free(&x);
    }
    /* Two migrations: M_bc_2 before M_ab_1 leaves C the owner. */
    net_session_t x;
    third_peer(&x);
    x.id_of_conn[3] = 5;
    x.conn_of_id[5] = 3;
    const net_obj_msg_t Mbc2 = {.type = NET_R_MIGRATE,
                                .origin = 5,
                                .owner = 5,
                                .mig = 2,
                                .version = 1,
                                .mask = 1,
                                .fields = {30}};
    net_obj_msg_t Nbc2 = Nab1();
    Nbc2.owner = 5, Nbc2.mig = 2, Nbc2.fields[0] = 30;
    feed(&x, CONN_HOST, Nbc2);
    feed(&x, 3, Mbc2);
    feed(&x, CONN_HOST, Nab1());
    feed(&x, CONN_B, Mab1());
    feed(&x, CONN_A, C0());
    feed(&x, CONN_B, Ub(4));
    const net_object_t *o = net_object_find(&x, OBJ);
    assert_int_equal(o->owner, 5);
    assert_int_equal(o->mig, 2);
    assert_true(o->fields[0] == 30.0f);
    net_session_free(&x);
    assert_int_equal(alloc.live_bytes, 0);
}

static void bad_replication_messages_are_breaches(void **state)
{
    (void)state;
    test_alloc_init(&alloc);
    net_session_t x;
    third_peer(&x);
    /* In another peer's name, an announce for someone else, an order not from the host. */
    net_obj_msg_t m = C0();
    assert_int_equal(feed(&x, CONN_B, m), -1);
    m.owner = B;
    assert_int_equal(feed(&x, CONN_A, m), -1);
    net_obj_msg_t order = {
        .type = NET_R_MIGRATE_ORDER, .origin = A, .owner = X, .mig = 1, .mask = 0};
    assert_int_equal(feed(&x, CONN_A, order), -1);
    /* Malformed bytes. */
    const uint8_t cases[][8] = {
        {NET_R_UPDATE, A, 1, 0, 1, 1, 0},                      /* truncated floats */
        {NET_R_CREATE, 0, 1, 0, A, 1, 0, 0},                   /* origin 0 */
        {NET_R_DESTROY, A, 0, 0},                              /* object id 0 */
        {NET_R_DESTROY, A, 1, 0, 9},                           /* trailing byte */
        {NET_R_UPDATE, A, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, /* over-long varint */
        {NET_R_UPDATE + 100, A, 1, 0},
    };
    const uint32_t lens[] = {7, 8, 4, 5, 8, 4};
    for (uint32_t k = 0; k < 6; k++) {
        const char *why = NULL;
        assert_int_equal(net__replication_receive(&x, CONN_A, A, cases[k], lens[k], &why), -1);
        assert_non_null(why);
    }
    uint8_t nan_update[32];
    net_writer_t w = net_writer(nan_update, sizeof nan_update);
    net_obj_msg_t u = Ua(2);
    u.id = OBJ;
    net_obj_msg_write(&w, &u);
    memset(nan_update + w.n - 4, 0xff, 4);
    const char *why = NULL;
    assert_int_equal(net__replication_receive(&x, CONN_A, A, nan_update, w.n, &why), -1);
    assert_string_equal(why, "a non-finite field value");
    net_session_free(&x);
    assert_int_equal(alloc.live_bytes, 0);
}

/* ---- The soak matrix ------------------------------------------------------------------------ */

#define PEERS 4
#define MAX_TRACKED 4096

typedef struct soak_peer_t {
    net_session_t s;
    vnet_sender_t sender;
    uint32_t next_in[PEERS + 1]; /* reliable user stream: next counter expected from each peer */
    uint32_t next_out[PEERS + 1];
    uint32_t bad_stream;
    uint32_t applied_max_mig[MAX_TRACKED];
} soak_peer_t;

static soak_peer_t peers[PEERS];
static vnet_t net;
/* The truth: who owns object (serial) at each counter, as the host decided. */
static uint8_t owner_at[MAX_TRACKED][64];
static uint32_t stale_applied;

static uint32_t serial_of(uint32_t id) { return (id >> 24) * 1000 + (id & 0xffffff); }

static void soak_applied(void *user, uint32_t object, uint8_t origin, uint32_t mig,
                         uint32_t version)
{
    (void)version;
    soak_peer_t *p = user;
    const uint32_t k = serial_of(object);
    if (k >= MAX_TRACKED || mig >= 64 || owner_at[k][mig] != origin || mig < p->applied_max_mig[k])
        stale_applied++;
    else
        p->applied_max_mig[k] = mig;
}

static void soak_message(void *user, uint8_t from, const uint8_t *d, uint32_t len)
{
    soak_peer_t *p = user;
    uint32_t v;
    if (len != 5 || d[0] != NET_USER) {
        p->bad_stream++;
        return;
    }
    memcpy(&v, d + 1, 4);
    if (v != p->next_in[from])
        p->bad_stream++;
    p->next_in[from] = v + 1;
}

static void soak_log(void *user, const char *line)
{
    soak_peer_t *p = user;
    print_message("  peer %u at %.2f s: %s\n", p->s.my_id, (double)net.now * 1e-6, line);
}

static void soak_left(void *user, uint8_t id, const char *reason)
{
    soak_peer_t *p = user;
    print_message("  peer %u at %.2f s: peer %u left: %s\n", p->s.my_id, (double)net.now * 1e-6, id,
                  reason);
}

static void soak_start(uint8_t mode, const net_conditions_t *c, uint64_t seed)
{
    test_alloc_init(&alloc);
    vnet_init(&net);
    memset(owner_at, 0, sizeof owner_at);
    stale_applied = 0;
    for (int i = 0; i < PEERS; i++) {
        soak_peer_t *p = &peers[i];
        memset(p, 0, sizeof *p);
        p->sender = (vnet_sender_t){&net, (uint16_t)(41000 + i)};
        const net_session_desc_t d = {
            .node = {.a = &alloc.base,
                     .max_peers = 8,
                     .seed = seed + (uint64_t)i,
                     .send = vnet_send,
                     .send_user = &p->sender,
                     .no_timeouts = false,
                     .ev = {.user = p, .log = soak_log}},
            .mode = mode,
            .host = i == 0,
            .max_objects = 2048,
            .ev = {.user = p, .applied = soak_applied, .message = soak_message, .left = soak_left},
        };
        assert_int_equal(net_session_init(&p->s, &d), 0);
        net_node_set_conditions(&p->s.node, -1, c);
        vnet_add(&net, &p->s.node, p->sender.port);
    }
    const net_addr_t host = net_addr_loopback4(41000);
    for (int i = 1; i < PEERS; i++)
        assert_int_equal(net_session_join(&peers[i].s, &host, 0), 0);
}

static void soak_step(uint64_t dt_us)
{
    net.now += dt_us;
    vnet_pump(&net);
    for (int i = 0; i < PEERS; i++)
        net_session_tick(&peers[i].s, net.now);
}

static void soak_finish(void)
{
    for (int i = 0; i < PEERS; i++)
        net_session_free(&peers[i].s);
    vnet_free(&net);
    assert_int_equal(alloc.live_bytes, 0);
}

static const net_session_t *session_of(uint8_t id)
{
    for (int i = 0; i < PEERS; i++)
        if (peers[i].s.my_id == id)
            return &peers[i].s;
    return NULL;
}

/* Every peer agrees with the owner about every object the host has ever known. */
static bool verbose;
#define WHY(...)                                                                                   \
    do {                                                                                           \
        if (verbose) {                                                                             \
            print_message(__VA_ARGS__);                                                            \
            ok = false;                                                                            \
            continue;                                                                              \
        }                                                                                          \
        return false;                                                                              \
    } while (0)
static bool converged(void)
{
    bool ok = true;
    const net_session_t *h = &peers[0].s;
    for (int i = 0; i < PEERS; i++) {
        const net_session_t *s = &peers[i].s;
        for (uint32_t k = 0; k < s->max_objects; k++) {
            const net_object_t *o = &s->objects[k];
            if (!o->id)
                continue;
            const net_object_t *ho = net_object_find(h, o->id);
            const net_object_t *mine = net_object_find(s, o->id);
            if (!ho != !mine)
                WHY("peer %d object %x: host %s it, peer %s\n", i, o->id, ho ? "has" : "lacks",
                    mine ? "has" : "lacks");
            if (!ho)
                continue;
            const net_object_t *own = net_object_find(session_of(ho->owner), o->id);
            if (!own || own->owner != ho->owner || mine->owner != ho->owner ||
                mine->mig != own->mig || memcmp(mine->fields, own->fields, sizeof own->fields))
                WHY("peer %d object %x: owner %u/%u mig %u/%u f0 %g/%g version %u/%u\n", i, o->id,
                    mine->owner, ho->owner, mine->mig, own ? own->mig : 99, mine->fields[0],
                    own ? own->fields[0] : -1, mine->version, own ? own->version : 0);
        }
    }
    for (int i = 0; i < PEERS; i++)
        for (int j = 0; j < PEERS; j++)
            if (i != j && peers[j].next_in[peers[i].s.my_id] != peers[i].next_out[peers[j].s.my_id])
                WHY("stream %d->%d: %u of %u\n", i, j, peers[j].next_in[peers[i].s.my_id],
                    peers[i].next_out[peers[j].s.my_id]);
    return ok;
}

static uint32_t soak_run(uint8_t mode, const net_conditions_t *c, uint64_t seed)
{
    soak_start(mode, c, seed);
    uint64_t rng = seed * 7 + 1;
    /* Join (bounded). */
    for (int t = 0; t < 2000 && !(peers[1].s.joined && peers[2].s.joined && peers[3].s.joined); t++)
        soak_step(10000);
    for (int t = 0; t < 500; t++)
        soak_step(10000);
    for (int i = 1; i < PEERS; i++)
        assert_true(peers[i].s.joined);
    uint32_t spawned = 0, migrations = 0, destroys = 0;
    /* 25 s of play at 100 steps per second, replication at every step. */
    for (int t = 0; t < 2500; t++) {
        for (int i = 0; i < PEERS; i++) {
            net_session_t *s = &peers[i].s;
            if (net_rand(&rng) % 10 == 0 && s->next_serial < 60) {
                const float f[NET_FIELDS] = {(float)t, (float)i, [6] = 1};
                const uint32_t id = net_object_spawn(s, f, 0xffff);
                assert_true(id != 0);
                owner_at[serial_of(id)][0] = s->my_id;
                spawned++;
            }
            /* Owners move their objects; now and then one is destroyed. */
            for (uint32_t k = 0; k < s->max_objects; k++) {
                const net_object_t *o = &s->objects[k];
                if (!o->id || !o->live || o->owner != s->my_id)
                    continue;
                const uint64_t r = net_rand(&rng);
                if (r % 8000 == 0) {
                    assert_int_equal(net_object_destroy(s, o->id), 0);
                    destroys++;
                } else if (r % 3 == 0) {
                    float f[NET_FIELDS];
                    memcpy(f, o->fields, sizeof f);
                    f[0] += 1;
                    f[NET_SCRIPT_FIELD0 + (r >> 8) % 9] = (float)(r % 1000);
                    assert_int_equal(net_object_set(s, o->id, 0xffff, f), 0);
                }
            }
            /* A reliable stream to every other peer (client-server: clients to the host). */
            for (uint8_t to = 1; to <= PEERS; to++) {
                if (to == s->my_id ||
                    (mode == NET_MODE_CLIENT_SERVER && s->my_id != 1 && to != 1) ||
                    (mode == NET_MODE_CLIENT_SERVER && s->my_id == 1))
                    continue;
                uint8_t m[5] = {NET_USER};
                memcpy(m + 1, &peers[i].next_out[to], 4);
                if (net_session_send(s, to, m, 5, true) == 0)
                    peers[i].next_out[to]++;
            }
        }
        /* The host migrates a random live object to a random peer. */
        if (net_rand(&rng) % 3 == 0) {
            net_session_t *h = &peers[0].s;
            uint32_t k = (uint32_t)(net_rand(&rng) % h->max_objects);
            for (uint32_t n = 0; n < h->max_objects && !(h->objects[k].id && h->objects[k].live);
                 n++)
                k = (k + 1) % h->max_objects;
            const net_object_t *o = &h->objects[k];
            const uint8_t to = (uint8_t)(1 + net_rand(&rng) % PEERS);
            if (o->id && o->live && o->mig < 62 && to != o->owner) {
                const uint32_t id = o->id, mig = o->mig;
                assert_int_equal(net_object_migrate(h, id, to), 0);
                owner_at[serial_of(id)][mig + 1] = to;
                migrations++;
            }
        }
        soak_step(10000);
    }
    /* Quiet: no more changes; everything settles within 60 s (bounded). */
    int t = 0;
    for (; t < 6000 && !converged(); t++)
        soak_step(10000);
    print_message("  spawned %u, migrated %u, destroyed %u; settled %.2f s after play\n", spawned,
                  migrations, destroys, t * 0.01);
    assert_true(spawned > 100);
    assert_true(migrations > 100);
    assert_true(destroys > 5);
    /* On failure, say what differs. */
    verbose = true;
    assert_true(converged());
    verbose = false;
    assert_int_equal(stale_applied, 0);
    uint64_t stale = 0, applied = 0;
    for (int i = 0; i < PEERS; i++) {
        assert_int_equal(peers[i].bad_stream, 0);
        assert_int_equal(peers[i].s.node.stats.breaches, 0);
        stale += peers[i].s.stats.stale_updates + peers[i].s.stats.stale_creates;
        applied += peers[i].s.stats.updates_applied;
    }
    assert_true(applied > 1000);
    soak_finish();
    return (uint32_t)stale;
}

static const net_conditions_t matrix[] = {
    {.loss = 0.25},
    {.duplicate = 0.25},
    {.latency_us = 1000000, .jitter_us = 100000},
    {.reorder = 0.25, .latency_us = 30000, .jitter_us = 10000},
    {.loss = 0.25,
     .duplicate = 0.25,
     .reorder = 0.1,
     .latency_us = 1000000,
     .jitter_us = 100000,
     .burst_enter = 0.005,
     .burst_exit = 0.3},
};

static void soak_peer_to_peer(void **state)
{
    (void)state;
    uint32_t stale = 0;
    for (uint32_t k = 0; k < sizeof matrix / sizeof matrix[0]; k++)
        stale += soak_run(NET_MODE_PEER_TO_PEER, &matrix[k], 100 + k);
    /* Reordering and migration really produced stale messages, and none was applied. */
    assert_true(stale > 0);
}

static void soak_client_server(void **state)
{
    (void)state;
    for (uint32_t k = 0; k < sizeof matrix / sizeof matrix[0]; k++)
        soak_run(NET_MODE_CLIENT_SERVER, &matrix[k], 200 + k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_posts_order_M_Ub_Ub_D_C_Ua),
        cmocka_unit_test(every_order_of_create_migrate_destroy),
        cmocka_unit_test(bad_replication_messages_are_breaches),
        cmocka_unit_test(soak_peer_to_peer),
        cmocka_unit_test(soak_client_server),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
