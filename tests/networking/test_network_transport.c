/* The transport without a kernel, on the virtual network and clock: the header's sizes, the
 * handshake, the reliable stream under a harsh conditioner, fragments, unreliable fates, caps,
 * breaches, garbage (no allocation, no amplification), the pre-shared key and timeouts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "net_test_support.h"

#include <unistd.h>

static test_alloc_t alloc;
static vnet_t net;

/* One endpoint and what it saw. */
typedef struct endpoint_t {
    net_node_t node;
    vnet_sender_t sender;
    uint32_t connected, disconnected, unreliable, delivered_tokens, lost_tokens;
    int peer;
    uint32_t next_expected; /* reliable messages carry a running counter */
    uint32_t reliable, out_of_order;
    uint32_t big_len, big_ok;
    char reason[160];
    char log[320];
} endpoint_t;

static endpoint_t server, client;

static void ev_connected(void *user, uint32_t peer)
{
    endpoint_t *e = user;
    e->connected++;
    e->peer = (int)peer;
}

static void ev_disconnected(void *user, uint32_t peer, const char *reason)
{
    (void)peer;
    endpoint_t *e = user;
    e->disconnected++;
    snprintf(e->reason, sizeof e->reason, "%s", reason);
}

static void ev_message(void *user, uint32_t peer, const uint8_t *d, uint32_t len, bool reliable)
{
    (void)peer;
    endpoint_t *e = user;
    if (!reliable) {
        e->unreliable++;
        return;
    }
    if (len > 1000) {
        bool ok = true;
        for (uint32_t i = 0; i < len; i++)
            ok = ok && d[i] == (uint8_t)(i * 7);
        e->big_len = len;
        e->big_ok += ok;
        return;
    }
    uint32_t v;
    memcpy(&v, d, 4);
    e->out_of_order += v != e->next_expected;
    e->next_expected = v + 1;
    e->reliable++;
}

static void ev_fate(void *user, uint32_t peer, uint32_t token, bool delivered)
{
    (void)peer;
    (void)token;
    endpoint_t *e = user;
    if (delivered)
        e->delivered_tokens++;
    else
        e->lost_tokens++;
}

static void ev_log(void *user, const char *line)
{
    endpoint_t *e = user;
    snprintf(e->log, sizeof e->log, "%s", line);
}

static void endpoint_init(endpoint_t *e, uint16_t port, bool accept, const uint8_t *key)
{
    memset(e, 0, sizeof *e);
    e->peer = -1;
    e->sender = (vnet_sender_t){&net, port};
    const net_node_desc_t d = {
        .a = &alloc.base,
        .max_peers = 4,
        .accept = accept,
        .key = key,
        .seed = port,
        .send = vnet_send,
        .send_user = &e->sender,
        .ev = {e, ev_connected, ev_disconnected, ev_message, ev_fate, ev_log, NULL, NULL},
    };
    assert_int_equal(net_node_init(&e->node, &d), 0);
    vnet_add(&net, &e->node, port);
}

static int setup(void **state)
{
    (void)state;
    test_alloc_init(&alloc);
    vnet_init(&net);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    net_node_free(&server.node);
    net_node_free(&client.node);
    vnet_free(&net);
    assert_int_equal(alloc.live_blocks, 0);
    assert_int_equal(alloc.live_bytes, 0);
    return 0;
}

/* Advances the virtual clock by `ms` in 1 ms steps (bounded), servicing both nodes. */
static void run_ms(uint32_t ms)
{
    for (uint32_t t = 0; t < ms; t++) {
        net.now += 1000;
        vnet_pump(&net);
        net_node_service(&server.node, net.now);
        net_node_service(&client.node, net.now);
    }
}

static void connect_pair(const uint8_t *server_key, const uint8_t *client_key)
{
    endpoint_init(&server, 40001, true, server_key);
    endpoint_init(&client, 40002, false, client_key);
    const net_addr_t to = net_addr_loopback4(40001);
    assert_true(net_node_connect(&client.node, &to, net.now) >= 0);
    run_ms(50);
}

/* ---- Header ------------------------------------------------------------------------------ */

static void header_sizes_and_round_trip(void **state)
{
    (void)state;
    uint8_t b[16];
    const net_header_t cases[] = {
        {.kind = NET_PACKET_DATA, .seq = 0xbeef},
        {.kind = NET_PACKET_DATA,
         .seq = 7,
         .has_ack = true,
         .ack = 65535,
         .ack_bits = 0x5a,
         .ack_bytes = 1},
        {.kind = NET_PACKET_DATA,
         .seq = 9,
         .has_ack = true,
         .ack = 3,
         .ack_bits = 0xdeadbeef,
         .ack_bytes = 4},
    };
    const uint32_t sizes[] = {3, 6, 9};
    for (int i = 0; i < 3; i++) {
        net_writer_t w = net_writer(b, sizeof b);
        net_header_write(&w, &cases[i]);
        assert_int_equal(w.n, sizes[i]);
        net_reader_t r = net_reader(b, w.n);
        net_header_t h;
        assert_true(net_header_read(&r, &h));
        assert_int_equal(r.at, w.n);
        assert_int_equal(h.seq, cases[i].seq);
        assert_int_equal(h.has_ack, cases[i].has_ack);
        assert_int_equal(h.ack, cases[i].ack);
        assert_int_equal(h.ack_bits, cases[i].ack_bits);
        /* Every truncation is refused. */
        for (uint32_t n = 0; n < w.n; n++) {
            net_reader_t t = net_reader(b, n);
            assert_false(net_header_read(&t, &h));
        }
    }
    const uint8_t bad[] = {0x47, 0x40, 0x07};
    for (int i = 0; i < 3; i++) {
        net_reader_t r = net_reader(&bad[i], 1);
        net_header_t h;
        assert_false(net_header_read(&r, &h));
    }
}

/* A one-way stream: once the receiver's packets stop bringing news, the sender's header is 3
 * bytes (sequence only); the receiver's acks fit in 6. */
static void steady_state_header_is_small(void **state)
{
    (void)state;
    connect_pair(NULL, NULL);
    assert_int_equal(client.connected, 1);
    assert_int_equal(server.connected, 1);
    uint32_t v = 0;
    for (int frame = 0; frame < 200; frame++) {
        net_conn_t *c = &net_node_peer(&server.node, (uint32_t)server.peer)->conn;
        const uint64_t packets = c->stats.packets_sent, header = c->stats.header_bytes_sent;
        for (int k = 0; k < 4; k++, v++)
            assert_int_equal(net_node_send(&server.node, (uint32_t)server.peer, &v, 4, true, 0), 0);
        run_ms(16);
        if (frame > 100) {
            assert_int_equal(c->stats.packets_sent - packets, 1);
            assert_int_equal(c->stats.header_bytes_sent - header, 3);
        }
    }
    assert_int_equal(client.reliable, v);
    assert_int_equal(client.out_of_order, 0);
    net_conn_t *cc = &net_node_peer(&client.node, (uint32_t)client.peer)->conn;
    assert_true(cc->stats.header_bytes_sent <= 6 * cc->stats.packets_sent);
}

/* ---- Streams ------------------------------------------------------------------------------ */

static void reliable_stream_survives_a_harsh_network(void **state)
{
    (void)state;
    connect_pair(NULL, NULL);
    const net_conditions_t harsh = {.loss = 0.25,
                                    .duplicate = 0.25,
                                    .reorder = 0.1,
                                    .latency_us = 50000,
                                    .jitter_us = 20000,
                                    .burst_enter = 0.01,
                                    .burst_exit = 0.3};
    net_node_set_conditions(&server.node, server.peer, &harsh);
    net_node_set_conditions(&client.node, client.peer, &harsh);
    uint32_t v = 0;
    for (int frame = 0; frame < 600; frame++) {
        for (int k = 0; k < 20; k++, v++)
            assert_int_equal(net_node_send(&server.node, (uint32_t)server.peer, &v, 4, true, 0), 0);
        uint8_t u[32] = {1};
        net_node_send(&server.node, (uint32_t)server.peer, u, sizeof u, false, 1);
        run_ms(16);
    }
    run_ms(5000);
    assert_int_equal(client.reliable, v);
    assert_int_equal(client.out_of_order, 0);
    assert_int_equal(client.disconnected, 0);
    /* Unreliable ones: some lost, some delivered, every one accounted for once. */
    assert_true(client.unreliable > 300 && client.unreliable < 600 + 200);
    assert_int_equal(server.delivered_tokens + server.lost_tokens, 600);
    assert_true(server.lost_tokens > 50);
    const net_conn_t *c = &net_node_peer(&server.node, (uint32_t)server.peer)->conn;
    assert_true(c->stats.reliable_resent > 0);
    assert_true(server.node.conditioner.duplicated > 0);
    assert_int_equal(net_conn_unacked(c), 0);
}

static void fragments_reassemble_under_loss(void **state)
{
    (void)state;
    connect_pair(NULL, NULL);
    const net_conditions_t lossy = {
        .loss = 0.2, .reorder = 0.2, .latency_us = 10000, .jitter_us = 5000};
    net_node_set_conditions(&server.node, server.peer, &lossy);
    static uint8_t big[100000];
    for (uint32_t i = 0; i < sizeof big; i++)
        big[i] = (uint8_t)(i * 7);
    for (int k = 0; k < 3; k++)
        assert_int_equal(
            net_node_send(&server.node, (uint32_t)server.peer, big, sizeof big, true, 0), 0);
    uint32_t one = 0;
    assert_int_equal(net_node_send(&server.node, (uint32_t)server.peer, &one, 4, true, 0), 0);
    run_ms(8000);
    assert_int_equal(client.big_ok, 3);
    assert_int_equal(client.big_len, sizeof big);
    assert_int_equal(client.reliable, 1);
    /* Too large, empty, or an unreliable one over a packet: refused. */
    assert_int_equal(
        net_node_send(&server.node, (uint32_t)server.peer, big, NET_MAX_MESSAGE + 1, true, 0),
        CT_ERR_INVALID);
    assert_int_equal(net_node_send(&server.node, (uint32_t)server.peer, big, 0, true, 0),
                     CT_ERR_INVALID);
    assert_int_equal(net_node_send(&server.node, (uint32_t)server.peer, big, NET_MTU, false, 0),
                     CT_ERR_INVALID);
}

/* Issue 28: the largest message is 256 fragments, one more than a byte counts: it must arrive
 * as one message, not as 256 (the count was kept in a byte, so 256 read as "not a fragment"). */
static void the_largest_message_arrives_whole(void **state)
{
    (void)state;
    connect_pair(NULL, NULL);
    static uint8_t big[NET_MAX_MESSAGE];
    for (uint32_t i = 0; i < sizeof big; i++)
        big[i] = (uint8_t)(i * 7);
    assert_int_equal(
        net_node_send(&server.node, (uint32_t)server.peer, big, NET_MAX_MESSAGE, true, 0), 0);
    assert_int_equal(net_node_send(&server.node, (uint32_t)server.peer, big,
                                   NET_MAX_MESSAGE - NET_FRAGMENT + 1, true, 0),
                     0);
    run_ms(4000);
    assert_int_equal(client.big_ok, 2);
    assert_int_equal(client.big_len, NET_MAX_MESSAGE - NET_FRAGMENT + 1);
    assert_int_equal(client.reliable, 0);
    assert_int_equal(client.disconnected, 0);
}

static void send_caps_refuse_with_full(void **state)
{
    (void)state;
    connect_pair(NULL, NULL);
    net_peer_t *p = net_node_peer(&server.node, (uint32_t)server.peer);
    p->conn.caps.max_send_messages = 100;
    uint32_t v = 0;
    int err = 0, sent = 0;
    for (int k = 0; k < 200 && !err; k++, sent++)
        err = net_node_send(&server.node, (uint32_t)server.peer, &v, 4, true, 0);
    assert_int_equal(err, CT_ERR_FULL);
    assert_int_equal(sent, 101);
    run_ms(100);
    assert_int_equal(client.reliable, 100);
    assert_int_equal(net_node_send(&server.node, (uint32_t)server.peer, &v, 4, true, 0), 0);
}

/* ---- Bad peers ---------------------------------------------------------------------------- */

static void garbage_allocates_nothing_and_gets_no_reply(void **state)
{
    (void)state;
    connect_pair(NULL, NULL);
    const int64_t allocations = alloc.allocations;
    const uint64_t out = server.node.stats.bytes_out,
                   challenges = server.node.stats.challenges_sent;
    uint64_t rng = 42;
    const net_addr_t stranger = net_addr_loopback4(50000);
    uint64_t in = 0;
    for (int k = 0; k < 20000; k++) {
        uint8_t d[200];
        const uint32_t n = 1 + (uint32_t)(net_rand(&rng) % sizeof d);
        for (uint32_t i = 0; i < n; i++)
            d[i] = (uint8_t)net_rand(&rng);
        if (k % 4 == 0)
            d[0] = NET_PACKET_DATA;
        if (k % 8 == 1)
            d[0] = NET_PACKET_CONNECT;
        net_node_receive(&server.node, &stranger, d, n, net.now);
        in += n;
    }
    assert_int_equal(alloc.allocations, allocations);
    assert_int_equal(server.connected, 1);
    /* Only a well-formed connect request gets an answer, and it is smaller than the request. */
    assert_int_equal(server.node.stats.bytes_out, out);
    uint8_t req[NET_HANDSHAKE_BYTES] = {NET_PACKET_CONNECT, 0x43, 0x54, 0x4e, 0x31};
    net_node_receive(&server.node, &stranger, req, sizeof req, net.now);
    assert_int_equal(alloc.allocations, allocations);
    assert_int_equal(server.node.stats.challenges_sent, challenges + 1);
    assert_true(server.node.stats.bytes_out - out < sizeof req);
    /* A forged cookie earns another challenge, not a connection. */
    memset(req + 13, 0xab, 16);
    net_node_receive(&server.node, &stranger, req, sizeof req, net.now);
    assert_int_equal(alloc.allocations, allocations);
    assert_int_equal(server.node.stats.challenges_sent, challenges + 2);
    /* An over-long datagram is dropped unread. */
    static uint8_t huge[NET_MAX_DATAGRAM + 1];
    net_node_receive(&server.node, &stranger, huge, sizeof huge, net.now);
    assert_true(server.node.stats.dropped_malformed + server.node.stats.dropped_unknown > 10000);
}

static void a_protocol_breach_disconnects_and_names_the_peer(void **state)
{
    (void)state;
    connect_pair(NULL, NULL);
    /* A reliable id far past the window, from the connected client's address. */
    uint8_t d[16];
    net_writer_t w = net_writer(d, sizeof d);
    net_header_write(&w, &(net_header_t){.kind = NET_PACKET_DATA, .seq = 500});
    net_msg_write(
        &w,
        &(net_msg_t){.tag = NET_MSG_RELIABLE, .id = 5000, .len = 2, .data = (const uint8_t *)"hi"});
    const net_addr_t from = net_addr_loopback4(40002);
    net_node_receive(&server.node, &from, d, w.n, net.now);
    assert_int_equal(server.disconnected, 1);
    assert_non_null(strstr(server.reason, "past the window"));
    assert_non_null(strstr(server.log, "peer 127.0.0.1:40002 broke the protocol"));
    assert_int_equal(server.node.stats.breaches, 1);
    run_ms(20);
    assert_int_equal(client.disconnected, 1);
    assert_non_null(strstr(client.reason, "broke the protocol"));
    /* Unknown message tags and fragments out of order are breaches too. */
    const uint8_t tags[] = {3, 0xff};
    for (int k = 0; k < 2; k++) {
        net_conn_t c;
        const net_conn_events_t ev = {&client, ev_message, ev_fate};
        net_conn_init(&c, &alloc.base, NULL, &ev, 0, 0);
        uint8_t p[8] = {tags[k], 0, 0, 1, 'x'};
        net_reader_t r = net_reader(p, 5);
        const net_header_t h = {.kind = NET_PACKET_DATA};
        assert_int_equal(net_conn_receive(&c, &h, &r, 0), -1);
        assert_non_null(strstr(c.error, "unknown message tag"));
        net_conn_free(&c);
    }
    net_conn_t c;
    const net_conn_events_t ev = {&client, ev_message, ev_fate};
    net_conn_init(&c, &alloc.base, NULL, &ev, 0, 0);
    w = net_writer(d, sizeof d);
    net_msg_write(&w, &(net_msg_t){.tag = NET_MSG_FRAGMENT,
                                   .id = 0,
                                   .frag_index = 1,
                                   .frag_count = 3,
                                   .len = 1,
                                   .data = (const uint8_t *)"x"});
    net_reader_t r = net_reader(d, w.n);
    assert_int_equal(net_conn_receive(&c, &(net_header_t){0}, &r, 0), -1);
    assert_non_null(strstr(c.error, "fragment 1 arrived where fragment 0 was due"));
    net_conn_free(&c);
}

static void a_pre_shared_key_seals_every_datagram(void **state)
{
    (void)state;
    uint8_t key[NET_KEY_BYTES], wrong[NET_KEY_BYTES];
    memset(key, 7, sizeof key);
    memset(wrong, 8, sizeof wrong);
    connect_pair(key, wrong);
    assert_int_equal(server.connected, 0);
    assert_true(server.node.stats.dropped_auth > 0);
    net_node_free(&server.node);
    net_node_free(&client.node);
    net.num_nodes = 0;
    connect_pair(key, key);
    assert_int_equal(server.connected, 1);
    uint32_t v = 0;
    assert_int_equal(net_node_send(&client.node, (uint32_t)client.peer, &v, 4, true, 0), 0);
    run_ms(20);
    assert_int_equal(server.reliable, 1);
    /* A flipped bit anywhere fails authentication. */
    const uint64_t auth = server.node.stats.dropped_auth;
    uint8_t d[64] = {0};
    const net_addr_t from = net_addr_loopback4(40002);
    net_node_receive(&server.node, &from, d, sizeof d, net.now);
    assert_int_equal(server.node.stats.dropped_auth, auth + 1);
}

static void timeouts_and_no_timeouts(void **state)
{
    (void)state;
    connect_pair(NULL, NULL);
    server.node.d.no_timeouts = true;
    /* The client goes silent (as if stopped in a debugger). */
    for (uint32_t t = 0; t < 30000; t++) {
        net.now += 1000;
        vnet_pump(&net);
        net.head = net.tail; /* nothing arrives */
        net_node_service(&server.node, net.now);
    }
    assert_int_equal(server.disconnected, 0);
    server.node.d.no_timeouts = false;
    net_node_service(&server.node, net.now);
    assert_int_equal(server.disconnected, 1);
    assert_string_equal(server.reason, "timed out");
    assert_non_null(strstr(server.log, "peer 127.0.0.1:40002 timed out"));
}

static FILE *traffic;

static void log_traffic(void *user, uint8_t what, const net_addr_t *addr, const uint8_t *p,
                        uint32_t n, uint64_t now)
{
    (void)user;
    net_log_write(traffic, what, addr, p, n, now);
}

/* The server logs every datagram; a fresh server with the same seed, fed the log, sends exactly
 * what the recorded one sent and delivers the same messages. */
static void traffic_log_replays_exactly(void **state)
{
    (void)state;
    char path[] = "/tmp/cuttle_net_log_XXXXXX";
    const int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    traffic = net_log_create(path);
    assert_non_null(traffic);
    endpoint_init(&server, 40001, true, NULL);
    server.node.d.ev.traffic = log_traffic;
    endpoint_init(&client, 40002, false, NULL);
    const net_addr_t to = net_addr_loopback4(40001);
    net_node_connect(&client.node, &to, net.now);
    const net_conditions_t lossy = {
        .loss = 0.2, .duplicate = 0.1, .latency_us = 20000, .jitter_us = 5000};
    net_node_set_conditions(&client.node, -1, &lossy);
    run_ms(100);
    uint32_t v = 0;
    for (int frame = 0; frame < 100; frame++) {
        for (int k = 0; k < 5; k++, v++)
            net_node_send(&client.node, (uint32_t)client.peer, &v, 4, true, 0);
        run_ms(16);
    }
    run_ms(2000);
    fclose(traffic);
    assert_int_equal(server.reliable, 500);

    endpoint_t replayed;
    memset(&replayed, 0, sizeof replayed);
    const net_node_desc_t d = {
        .a = &alloc.base,
        .max_peers = 4,
        .accept = true,
        .seed = 40001,
        .send = vnet_send,
        .send_user = &server.sender,
        .ev = {&replayed, ev_connected, ev_disconnected, ev_message, ev_fate, ev_log, NULL, NULL}};
    assert_int_equal(net_node_init(&replayed.node, &d), 0);
    FILE *f = fopen(path, "rb");
    uint32_t compared = 0;
    const char *why = NULL;
    assert_int_equal(net_log_replay(f, &replayed.node, &compared, &why), 0);
    fclose(f);
    assert_true(compared > 100);
    assert_int_equal(replayed.reliable, 500);
    assert_int_equal(replayed.out_of_order, 0);
    net_node_free(&replayed.node);

    /* The decoder names what it sees; a corrupt log is refused with a reason. */
    char line[512];
    uint8_t d1[32];
    net_writer_t w = net_writer(d1, sizeof d1);
    net_header_write(&w, &(net_header_t){.kind = NET_PACKET_DATA, .seq = 9});
    net_msg_write(&w, &(net_msg_t){.tag = NET_MSG_RELIABLE,
                                   .id = 4,
                                   .len = 1,
                                   .data = (const uint8_t[]){NET_S_HELLO}});
    net_log_describe(d1, w.n, line, sizeof line);
    assert_string_equal(line, "DATA seq 9 | r#4 1B HELLO");
    f = fopen(path, "r+b");
    fseek(f, 8 + 8, SEEK_SET);
    fputc(7, f); /* an unknown record kind */
    fseek(f, 0, SEEK_SET);
    net_node_init(&replayed.node, &d);
    assert_int_equal(net_log_replay(f, &replayed.node, &compared, &why), -1);
    assert_non_null(why);
    fclose(f);
    net_node_free(&replayed.node);
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(header_sizes_and_round_trip),
        cmocka_unit_test_setup_teardown(steady_state_header_is_small, setup, teardown),
        cmocka_unit_test_setup_teardown(reliable_stream_survives_a_harsh_network, setup, teardown),
        cmocka_unit_test_setup_teardown(fragments_reassemble_under_loss, setup, teardown),
        cmocka_unit_test_setup_teardown(the_largest_message_arrives_whole, setup, teardown),
        cmocka_unit_test_setup_teardown(send_caps_refuse_with_full, setup, teardown),
        cmocka_unit_test_setup_teardown(garbage_allocates_nothing_and_gets_no_reply, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_protocol_breach_disconnects_and_names_the_peer, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_pre_shared_key_seals_every_datagram, setup, teardown),
        cmocka_unit_test_setup_teardown(timeouts_and_no_timeouts, setup, teardown),
        cmocka_unit_test_setup_teardown(traffic_log_replays_exactly, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
