/* Real sockets on 127.0.0.1: a host and two peers, each on its own port, join a peer-to-peer
 * session through libuv, replicate objects and exchange reliable messages. Every loop is bounded
 * in count and in wall time (the machine is shared: no timing is asserted). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "net_test_support.h"

#include <time.h>

#define NODES 3

typedef struct node_t {
    net_session_t s;
    net_udp_t *udp;
    uint16_t port;
    uint32_t messages;
    uint32_t created;
} node_t;

static test_alloc_t alloc;
static node_t nodes[NODES];

static void on_message(void *user, uint8_t from, const uint8_t *d, uint32_t len)
{
    (void)from;
    node_t *n = user;
    if (len == 9 && d[0] == NET_USER && !memcmp(d + 1, "loopback", 8))
        n->messages++;
}

static void on_created(void *user, uint32_t object)
{
    (void)object;
    ((node_t *)user)->created++;
}

/* Pumps every node's socket and session for up to `ms` of wall time or until done() holds. */
static bool pump(uint32_t ms, bool (*done)(void))
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (uint32_t round = 0; round < 1000000; round++) {
        for (int i = 0; i < NODES; i++) {
            net_udp_poll(nodes[i].udp, 1024);
            net_session_tick(&nodes[i].s, net_udp_now());
        }
        if (done())
            return true;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 > ms)
            return false;
        nanosleep(&(struct timespec){0, 200000}, NULL);
    }
    return false;
}

static bool all_joined(void)
{
    for (int i = 1; i < NODES; i++)
        if (!nodes[i].s.joined)
            return false;
    /* and linked to each other */
    return nodes[1].s.conn_of_id[nodes[2].s.my_id] >= 0 &&
           nodes[2].s.conn_of_id[nodes[1].s.my_id] >= 0;
}

static bool replicated(void)
{
    for (int i = 0; i < NODES; i++)
        if (nodes[i].created < NODES - 1 || nodes[i].messages < NODES - 1)
            return false;
    const net_object_t *mine = NULL;
    for (uint32_t k = 0; k < nodes[1].s.max_objects && !mine; k++)
        if (nodes[1].s.objects[k].live && nodes[1].s.objects[k].owner == nodes[1].s.my_id)
            mine = &nodes[1].s.objects[k];
    const net_object_t *there = mine ? net_object_find(&nodes[2].s, mine->id) : NULL;
    return there && there->fields[0] == 42.0f;
}

static void three_nodes_on_three_ports(void **state)
{
    (void)state;
    test_alloc_init(&alloc);
    for (int i = 0; i < NODES; i++) {
        node_t *n = &nodes[i];
        memset(n, 0, sizeof *n);
        const net_addr_t any = net_addr_loopback4(0);
        assert_int_equal(net_udp_open(&n->udp, &alloc.base, &any, NULL, &n->port), 0);
        assert_true(n->port != 0);
        const net_session_desc_t d = {
            .node = {.a = &alloc.base, .max_peers = 8, .send = net_udp_send, .send_user = n->udp},
            .mode = NET_MODE_PEER_TO_PEER,
            .host = i == 0,
            .max_objects = 256,
            .ev = {.user = n, .message = on_message, .created = on_created},
        };
        assert_int_equal(net_session_init(&n->s, &d), 0);
        net_udp_set_node(n->udp, &n->s.node);
    }
    assert_true(nodes[0].port != nodes[1].port && nodes[1].port != nodes[2].port);
    const net_addr_t host = net_addr_loopback4(nodes[0].port);
    for (int i = 1; i < NODES; i++)
        assert_int_equal(net_session_join(&nodes[i].s, &host, net_udp_now()), 0);
    assert_true(pump(10000, all_joined));

    for (int i = 0; i < NODES; i++) {
        const float f[NET_FIELDS] = {(float)i, [6] = 1}; /* a valid pose: the identity rotation */
        assert_true(net_object_spawn(&nodes[i].s, f, 0xffff) != 0);
        for (int j = 0; j < NODES; j++)
            if (j != i)
                assert_int_equal(
                    net_session_send(&nodes[i].s, nodes[j].s.my_id, "\x15loopback", 9, true), 0);
    }
    for (uint32_t k = 0; k < nodes[1].s.max_objects; k++)
        if (nodes[1].s.objects[k].live)
            assert_int_equal(net_object_set(&nodes[1].s, nodes[1].s.objects[k].id, 1,
                                            (const float[NET_FIELDS]){42}),
                             0);
    assert_true(pump(10000, replicated));
    for (int i = 0; i < NODES; i++) {
        assert_int_equal(nodes[i].s.node.stats.breaches, 0);
        assert_true(nodes[i].s.node.stats.datagrams_in > 0);
    }
    for (int i = 0; i < NODES; i++) {
        net_session_free(&nodes[i].s);
        net_udp_close(nodes[i].udp);
    }
    assert_int_equal(alloc.live_bytes, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(three_nodes_on_three_ports),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
