/* Issue 28: joined peers, outsiders and a host that attack a session, on the virtual network and
 * clock. A hostile peer speaks through its own real connection (so every layer below the
 * session checks it as usual) and sends what an honest one never would: destroys and migrations
 * of objects it does not own, creates in another peer's id namespace, destroys for ids not used
 * yet, poses out of range, more objects than its quota, a hello claiming a free id on a peer,
 * and (as host) a welcome listing addresses where nobody answers. Each case counts its hostile
 * inputs; the totals are printed per category. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "net_test_support.h"

static test_alloc_t alloc;
static vnet_t net;

typedef struct peer_t {
    net_session_t s;
    vnet_sender_t sender;
    bool used;
} peer_t;

#define MAX_PEERS 8
static peer_t peers[MAX_PEERS];
static uint32_t tried, handled; /* hostile inputs of the running test */

static void hostile(bool ok)
{
    tried++;
    handled += ok;
}

static void report(const char *category)
{
    print_message("  %s: %u of %u hostile inputs handled\n", category, handled, tried);
    assert_int_equal(handled, tried);
}

static void quiet(void *user, const char *line) { (void)user, (void)line; }

static peer_t *add_peer(int slot, uint8_t mode, bool host, uint32_t max_objects)
{
    peer_t *p = &peers[slot];
    memset(p, 0, sizeof *p);
    p->used = true;
    p->sender = (vnet_sender_t){&net, (uint16_t)(42000 + slot)};
    const net_session_desc_t d = {
        .node = {.a = &alloc.base,
                 .max_peers = 8,
                 .seed = 7 + (uint64_t)slot,
                 .send = vnet_send,
                 .send_user = &p->sender,
                 .ev = {.log = quiet}},
        .mode = mode,
        .host = host,
        .max_objects = max_objects,
    };
    assert_int_equal(net_session_init(&p->s, &d), 0);
    vnet_add(&net, &p->s.node, p->sender.port);
    if (!host) {
        const net_addr_t h = net_addr_loopback4(42000);
        assert_int_equal(net_session_join(&p->s, &h, net.now), 0);
    }
    return p;
}

static void step(uint32_t ms)
{
    for (uint32_t t = 0; t < ms; t += 10) {
        net.now += 10000;
        vnet_pump(&net);
        for (int i = 0; i < MAX_PEERS; i++)
            if (peers[i].used)
                net_session_tick(&peers[i].s, net.now);
    }
}

static void setup_net(void)
{
    test_alloc_init(&alloc);
    vnet_init(&net);
    memset(peers, 0, sizeof peers);
    tried = handled = 0;
}

/* Frees the peers and the network; vnet nodes are forgotten with them. */
static void teardown_net(void)
{
    for (int i = 0; i < MAX_PEERS; i++)
        if (peers[i].used)
            net_session_free(&peers[i].s);
    vnet_free(&net);
    assert_int_equal(alloc.live_bytes, 0);
}

static void remove_peer(peer_t *p)
{
    net_session_free(&p->s);
    p->used = false;
    for (uint32_t i = 0; i < net.num_nodes; i++)
        if (net.nodes[i] == &p->s.node) {
            net.nodes[i] = net.nodes[--net.num_nodes];
            net.ports[i] = net.ports[net.num_nodes];
        }
}

/* Sends a replication message from `from` to peer `to` through its real connection. */
static void send_obj(peer_t *from, uint8_t to, net_obj_msg_t m)
{
    uint8_t b[128];
    net_writer_t w = net_writer(b, sizeof b);
    net_obj_msg_write(&w, &m);
    const int16_t conn = from->s.conn_of_id[to];
    assert_true(conn >= 0);
    assert_int_equal(
        net_node_send(&from->s.node, (uint32_t)conn, b, w.n, m.type != NET_R_UPDATE, 0), 0);
}

static bool connected(const peer_t *a, const peer_t *b)
{
    return a->s.conn_of_id[b->s.my_id] >= 0 && b->s.conn_of_id[a->s.my_id] >= 0;
}

static const float pose[NET_FIELDS] = {1, 2, 3, 0, 0, 0, 1};

/* A host, a victim and an attacker, peer-to-peer, all linked; host and victim own one object. */
static void three_peers(uint32_t max_objects, uint32_t *host_obj, uint32_t *victim_obj)
{
    setup_net();
    add_peer(0, NET_MODE_PEER_TO_PEER, true, max_objects);
    add_peer(1, NET_MODE_PEER_TO_PEER, false, max_objects);
    step(500);
    add_peer(2, NET_MODE_PEER_TO_PEER, false, max_objects);
    step(1000);
    assert_true(connected(&peers[0], &peers[1]) && connected(&peers[0], &peers[2]) &&
                connected(&peers[1], &peers[2]));
    *host_obj = net_object_spawn(&peers[0].s, pose, 0xffff);
    *victim_obj = net_object_spawn(&peers[1].s, pose, 0xffff);
    assert_true(*host_obj && *victim_obj);
    step(1000);
    for (int i = 0; i < 3; i++)
        assert_non_null(net_object_find(&peers[i].s, *host_obj));
}

/* Item 3: destroying what it does not own, and tombstones for ids not used yet. */
static void a_peer_cannot_destroy_what_it_does_not_own(void **state)
{
    (void)state;
    uint32_t h, v;
    three_peers(256, &h, &v);
    peer_t *host = &peers[0], *victim = &peers[1], *attacker = &peers[2];
    /* Ids the victim will use next: destroyed before they exist. */
    for (uint32_t serial = 2; serial < 10; serial++) {
        const net_obj_msg_t d = {.type = NET_R_DESTROY,
                                 .origin = attacker->s.my_id,
                                 .id = (uint32_t)victim->s.my_id << 24 | serial};
        send_obj(attacker, host->s.my_id, d);
        send_obj(attacker, victim->s.my_id, d);
    }
    step(500);
    for (uint32_t serial = 2; serial < 10; serial++)
        assert_true(net_object_spawn(&victim->s, pose, 0xffff) != 0);
    step(1000);
    for (uint32_t serial = 2; serial < 10; serial++) {
        const uint32_t id = (uint32_t)victim->s.my_id << 24 | serial;
        hostile(net_object_find(&host->s, id) != NULL);
        hostile(net_object_find(&attacker->s, id) != NULL); /* it sees them too, honestly */
    }
    /* Destroying the host's and the victim's objects, at their counter and past it. */
    const uint8_t to[2] = {host->s.my_id, victim->s.my_id};
    for (int k = 0; k < 2; k++) {
        send_obj(attacker, to[k],
                 (net_obj_msg_t){.type = NET_R_DESTROY, .origin = attacker->s.my_id, .id = h});
        send_obj(
            attacker, to[k],
            (net_obj_msg_t){.type = NET_R_DESTROY, .origin = attacker->s.my_id, .id = v, .mig = 7});
    }
    step(500);
    for (int k = 0; k < 2; k++) {
        hostile(net_object_find(&peers[k].s, h) != NULL);
        hostile(net_object_find(&peers[k].s, v) != NULL);
    }
    hostile(host->s.node.stats.breaches >= 1); /* the destroy at the owner's counter is a breach */
    report("replication");
    teardown_net();
}

/* Item 4: migrations only on the host's word; creates only in the sender's own namespace. */
static void ownership_is_the_hosts_word(void **state)
{
    (void)state;
    uint32_t h, v;
    three_peers(256, &h, &v);
    peer_t *host = &peers[0], *victim = &peers[1], *attacker = &peers[2];
    const uint8_t me = attacker->s.my_id;
    const net_obj_msg_t grab_h = {.type = NET_R_MIGRATE,
                                  .origin = me,
                                  .owner = me,
                                  .id = h,
                                  .mig = 5,
                                  .version = 9,
                                  .mask = 1,
                                  .fields = {66}};
    net_obj_msg_t grab_v = grab_h;
    grab_v.id = v;
    send_obj(attacker, victim->s.my_id, grab_h);
    send_obj(attacker, victim->s.my_id, grab_v);
    net_obj_msg_t notice = grab_v;
    notice.type = NET_R_MIGRATE_NOTICE;
    send_obj(attacker, victim->s.my_id, notice);
    const net_obj_msg_t squat = {.type = NET_R_CREATE,
                                 .origin = me,
                                 .owner = me,
                                 .id = (uint32_t)victim->s.my_id << 24 | 77,
                                 .version = 1,
                                 .mask = 0x7f,
                                 .fields = {0, 0, 0, 0, 0, 0, 1}};
    send_obj(attacker, victim->s.my_id, squat);
    step(500);
    const net_object_t *hv = net_object_find(&victim->s, h), *vv = net_object_find(&victim->s, v);
    hostile(hv && hv->owner == host->s.my_id && hv->fields[0] == 1);
    hostile(vv && vv->owner == victim->s.my_id && vv->fields[0] == 1);
    hostile(vv && vv->owner == victim->s.my_id); /* the notice not from the host */
    hostile(!net_object_find(&victim->s, squat.id));
    /* The same at the host, which knows every counter it ordered: a breach. */
    const uint64_t breaches = host->s.node.stats.breaches;
    send_obj(attacker, host->s.my_id, grab_v);
    step(500);
    const net_object_t *vh = net_object_find(&host->s, v);
    hostile(vh && vh->owner == victim->s.my_id && host->s.node.stats.breaches == breaches + 1);
    report("replication");
    teardown_net();
}

/* Item 13 and 22: quotas and poses, checked on receipt. */
static void quotas_and_poses_hold(void **state)
{
    (void)state;
    uint32_t h, v;
    three_peers(256, &h, &v);
    peer_t *host = &peers[0], *attacker = &peers[2];
    const uint8_t me = attacker->s.my_id;
    /* A state that is not a pose: far away, or no rotation. */
    send_obj(attacker, host->s.my_id,
             (net_obj_msg_t){.type = NET_R_CREATE,
                             .origin = me,
                             .owner = me,
                             .id = (uint32_t)me << 24 | 100,
                             .version = 1,
                             .mask = 1,
                             .fields = {2e9f}});
    step(300);
    hostile(!net_object_find(&host->s, (uint32_t)me << 24 | 100) &&
            host->s.node.stats.breaches == 1);
    /* The attacker is gone from the host; the victim still takes its updates: out of range. */
    peer_t *victim = &peers[1];
    const uint32_t mine = net_object_spawn(&attacker->s, pose, 0xffff);
    step(500);
    assert_non_null(net_object_find(&victim->s, mine));
    send_obj(attacker, victim->s.my_id,
             (net_obj_msg_t){
                 .type = NET_R_UPDATE, .origin = me, .id = mine, .version = 50, .mask = 0x78});
    step(300);
    const net_object_t *there = net_object_find(&victim->s, mine);
    hostile(victim->s.node.stats.breaches == 1 && (!there || there->fields[6] == 1));
    report("replication");
    teardown_net();

    /* Quota: an honest-looking peer spawning without end (its own API does not stop it). */
    three_peers(256, &h, &v);
    host = &peers[0];
    attacker = &peers[2];
    uint32_t spawned = 0;
    for (int k = 0; k < 200; k++)
        spawned += net_object_spawn(&attacker->s, pose, 0xffff) != 0;
    step(2000);
    tried = handled = 0;
    uint32_t theirs = 0; /* the attacker's live objects at the host: at most the default quota,
                          * an eighth of max_objects */
    for (uint32_t k = 0; k < host->s.max_objects; k++)
        theirs += host->s.objects[k].live && host->s.objects[k].id >> 24 == attacker->s.my_id;
    hostile(spawned == 200 && theirs <= 256 / 8);
    uint32_t host_spawned = 0;
    for (int k = 0; k < 100; k++)
        host_spawned += net_object_spawn(&host->s, pose, 0xffff) != 0;
    hostile(host_spawned == 100);
    report("quota");
    teardown_net();
}

/* Item 5: an outsider that never joined through the host claims the id the host gives next. */
static void an_outsider_cannot_claim_a_peer_id(void **state)
{
    (void)state;
    setup_net();
    peer_t *host = add_peer(0, NET_MODE_PEER_TO_PEER, true, 64);
    peer_t *victim = add_peer(1, NET_MODE_PEER_TO_PEER, false, 64);
    step(1000);
    assert_true(connected(host, victim));
    /* The outsider: a node of its own that connects to the victim directly. */
    peer_t *outsider = &peers[5];
    memset(outsider, 0, sizeof *outsider);
    outsider->used = true;
    outsider->sender = (vnet_sender_t){&net, 42005};
    const net_session_desc_t d = {.node = {.a = &alloc.base,
                                           .max_peers = 4,
                                           .seed = 99,
                                           .send = vnet_send,
                                           .send_user = &outsider->sender},
                                  .mode = NET_MODE_PEER_TO_PEER};
    assert_int_equal(net_session_init(&outsider->s, &d), 0);
    vnet_add(&net, &outsider->s.node, 42005);
    const net_addr_t va = net_addr_loopback4(victim->sender.port);
    const int conn = net_node_connect(&outsider->s.node, &va, net.now);
    assert_true(conn >= 0);
    step(500);
    const uint8_t claimed = host->s.next_id; /* the id the next joiner gets */
    const uint8_t hello[2] = {NET_S_PEER_HELLO, claimed};
    assert_int_equal(net_node_send(&outsider->s.node, (uint32_t)conn, hello, 2, true, 0), 0);
    uint8_t user[3] = {NET_USER, 1, 2};
    net_node_send(&outsider->s.node, (uint32_t)conn, user, 3, true, 0);
    step(500);
    hostile(victim->s.conn_of_id[claimed] < 0);
    /* The real joiner gets that id and is bound at the victim; the outsider never is. */
    peer_t *joiner = add_peer(2, NET_MODE_PEER_TO_PEER, false, 64);
    step(1500);
    hostile(joiner->s.my_id == claimed && connected(joiner, victim));
    const int16_t bound = victim->s.conn_of_id[claimed];
    hostile(bound >= 0 && victim->s.node.peers[bound]->addr.port == joiner->sender.port);
    report("session");
    teardown_net();
}

/* Item 12: ids come back after joins and leaves, and object ids never repeat. */
static void peer_ids_are_reused_and_object_ids_never_repeat(void **state)
{
    (void)state;
    setup_net();
    peer_t *host = add_peer(0, NET_MODE_PEER_TO_PEER, true, 1024);
    peer_t *stay = add_peer(1, NET_MODE_PEER_TO_PEER, false, 1024);
    step(1000);
    static uint32_t seen[400];
    uint32_t num_seen = 0;
    for (int round = 0; round < 300; round++) {
        peer_t *j = add_peer(2, NET_MODE_PEER_TO_PEER, false, 1024);
        int t = 0;
        for (; t < 300 && !(j->s.joined && connected(j, stay)); t++)
            step(10);
        const bool joined = j->s.joined && connected(j, stay);
        uint32_t id = joined ? net_object_spawn(&j->s, pose, 0xffff) : 0;
        step(200);
        bool fresh = id != 0 && net_object_find(&host->s, id) && net_object_find(&stay->s, id);
        for (uint32_t k = 0; k < num_seen && fresh; k++)
            fresh = seen[k] != id;
        if (id && num_seen < 400)
            seen[num_seen++] = id;
        hostile(joined && fresh);
        if (!joined || !fresh)
            print_message("  round %d: joined %d id %x\n", round, joined, id);
        for (uint32_t c = 0; c < j->s.max_conns; c++)
            net_node_disconnect(&j->s.node, c, "leaving");
        net_node_service(&j->s.node, net.now);
        remove_peer(j);
        step(100);
        if (!joined)
            break;
    }
    report("session");
    teardown_net();
}

/* Item 23: a host whose welcome lists addresses where nobody answers. */
static uint32_t connects_to_nowhere;
static vnet_sender_t counted_sender;

static void counting_send(void *user, const net_addr_t *to, const uint8_t *p, uint32_t n)
{
    if (to->port >= 42100)
        connects_to_nowhere++;
    vnet_send(user, to, p, n);
}

static void fake_host_message(void *user, uint32_t conn, const uint8_t *d, uint32_t len,
                              bool reliable)
{
    net_node_t *node = user;
    (void)len, (void)reliable;
    if (d[0] != NET_S_HELLO)
        return;
    uint8_t b[8 + 5 * 20];
    net_writer_t w = net_writer(b, sizeof b);
    net_put_u8(&w, NET_S_WELCOME);
    net_put_u8(&w, 2);
    net_put_u8(&w, NET_MODE_PEER_TO_PEER);
    net_put_u32(&w, 0);
    net_put_u8(&w, 5);
    for (uint8_t k = 0; k < 5; k++) {
        net_put_u8(&w, (uint8_t)(3 + k));
        net_put_u8(&w, 4);
        net_put_u16(&w, (uint16_t)(42100 + k));
        const uint8_t ip[16] = {127, 0, 0, 1};
        net_put_bytes(&w, ip, 16);
    }
    net_node_send(node, conn, b, w.n, true, 0);
}

static void a_host_cannot_make_joiners_connect_forever(void **state)
{
    (void)state;
    setup_net();
    static net_node_t fake;
    static vnet_sender_t fake_sender;
    fake_sender = (vnet_sender_t){&net, 42000};
    const net_node_desc_t fd = {.a = &alloc.base,
                                .max_peers = 4,
                                .accept = true,
                                .seed = 5,
                                .send = vnet_send,
                                .send_user = &fake_sender,
                                .ev = {.user = &fake, .message = fake_host_message}};
    assert_int_equal(net_node_init(&fake, &fd), 0);
    vnet_add(&net, &fake, 42000);
    peer_t *j = &peers[1];
    memset(j, 0, sizeof *j);
    j->used = true;
    counted_sender = (vnet_sender_t){&net, 42001};
    const net_session_desc_t d = {.node = {.a = &alloc.base,
                                           .max_peers = 8,
                                           .seed = 3,
                                           .send = counting_send,
                                           .send_user = &counted_sender,
                                           .ev = {.log = quiet}},
                                  .mode = NET_MODE_PEER_TO_PEER};
    assert_int_equal(net_session_init(&j->s, &d), 0);
    vnet_add(&net, &j->s.node, 42001);
    const net_addr_t h = net_addr_loopback4(42000);
    assert_int_equal(net_session_join(&j->s, &h, net.now), 0);
    connects_to_nowhere = 0;
    for (int t = 0; t < 120; t++) {
        step(1000);
        net_node_service(&fake, net.now);
    }
    const uint32_t after_two_minutes = connects_to_nowhere;
    for (int t = 0; t < 120; t++) {
        step(1000);
        net_node_service(&fake, net.now);
    }
    print_message("  CONNECTs to nowhere: %u in 2 min, %u in 4 min\n", after_two_minutes,
                  connects_to_nowhere);
    hostile(j->s.joined && after_two_minutes > 0 && connects_to_nowhere == after_two_minutes);
    report("session");
    net_node_free(&fake);
    teardown_net();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_peer_cannot_destroy_what_it_does_not_own),
        cmocka_unit_test(ownership_is_the_hosts_word),
        cmocka_unit_test(quotas_and_poses_hold),
        cmocka_unit_test(an_outsider_cannot_claim_a_peer_id),
        cmocka_unit_test(peer_ids_are_reused_and_object_ids_never_repeat),
        cmocka_unit_test(a_host_cannot_make_joiners_connect_forever),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
