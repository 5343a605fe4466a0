/*
 * bench_networking: the networking core over real sockets on 127.0.0.1 (libuv), with ENet
 * measured the same way in the same run as the yardstick.
 *
 *   net.reliable_100b_msgs_per_s      reliable ordered 100-byte messages, one client to one server
 *   net.enet_reliable_100b_msgs_per_s the same with ENet (reliable packets on one channel)
 *   net.reliable_1000b_mb_per_s       the same with 1000-byte messages, MB/s of payload
 *   net.enet_reliable_1000b_mb_per_s
 *   net.rtt_32b_us                    median round trip of a 32-byte reliable message echoed back
 *   net.enet_rtt_32b_us
 *   net.garbage_100k_per_s_cpu_pct    CPU time the server spends reading 100 000 garbage
 *                                     datagrams, as a share of one core-second
 *   net.garbage_allocations           allocations the server made meanwhile (should be 0)
 *   net.replication_1000_objects_64_clients_kbps
 *                                     KB/s each of 64 clients receives while the host moves
 *                                     1000 objects every tick at 20 Hz (virtual network, 10 s)
 *   net.header_bytes_per_packet       mean header size of the 100-byte run's packets
 * Both sides run in this one thread, polled in turn (no sleeping), so each figure includes both
 * ends' work. Benchmarks print; they never pass or fail.
 */
#include "../common/bench.h"

#include "net_test_support.h"

#include <arpa/inet.h>
#include <enet/enet.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static test_alloc_t alloc;

/* ---- Ours --------------------------------------------------------------------------------- */

typedef struct side_t {
    net_node_t node;
    net_udp_t *udp;
    uint16_t port;
    int peer;
    uint64_t received, bytes;
    bool echo;
} side_t;

static side_t server, client;

static void on_connected(void *user, uint32_t peer) { ((side_t *)user)->peer = (int)peer; }

static void on_message(void *user, uint32_t peer, const uint8_t *d, uint32_t len, bool reliable)
{
    side_t *s = user;
    s->received++;
    s->bytes += len;
    if (s->echo)
        net_node_send(&s->node, peer, d, len, reliable, 0);
}

static void side_open(side_t *s, bool accept)
{
    memset(s, 0, sizeof *s);
    s->peer = -1;
    const net_addr_t any = net_addr_loopback4(0);
    if (net_udp_open(&s->udp, &alloc.base, &any, NULL, &s->port)) {
        fprintf(stderr, "bench_networking: cannot open a UDP socket on 127.0.0.1\n");
        exit(1);
    }
    const net_node_desc_t d = {.a = &alloc.base,
                               .max_peers = 4,
                               .accept = accept,
                               .seed = 1,
                               .send = net_udp_send,
                               .send_user = s->udp,
                               .ev = {s, on_connected, NULL, on_message, NULL, NULL, NULL, NULL}};
    net_node_init(&s->node, &d);
    net_udp_set_node(s->udp, &s->node);
}

static void side_close(side_t *s)
{
    net_node_free(&s->node);
    net_udp_close(s->udp);
}

static void pump(void)
{
    const uint64_t now = net_udp_now();
    net_node_service(&client.node, now);
    net_udp_poll(server.udp, 4096);
    net_node_service(&server.node, net_udp_now());
    net_udp_poll(client.udp, 4096);
}

static void connect_pair(void)
{
    side_open(&server, true);
    side_open(&client, false);
    const net_addr_t to = net_addr_loopback4(server.port);
    net_node_connect(&client.node, &to, net_udp_now());
    for (int i = 0; i < 100000 && (client.peer < 0 || server.peer < 0); i++)
        pump();
}

/* Sends n reliable messages of `size` bytes; returns seconds until the server has them all. */
static double ours_reliable(uint32_t n, uint32_t size, double *header_bytes)
{
    connect_pair();
    uint8_t msg[1000] = {1};
    net_peer_t *p = net_node_peer(&client.node, (uint32_t)client.peer);
    const uint64_t headers = p->conn.stats.header_bytes_sent, packets = p->conn.stats.packets_sent;
    const double t0 = bench_now_ns();
    uint32_t sent = 0;
    for (uint64_t round = 0; server.received < n && round < 50000000; round++) {
        while (sent < n && net_conn_unacked(&p->conn) < 4 * NET_REL_WINDOW &&
               net_node_send(&client.node, (uint32_t)client.peer, msg, size, true, 0) == 0)
            sent++;
        pump();
    }
    const double seconds = (bench_now_ns() - t0) * 1e-9;
    if (header_bytes)
        *header_bytes = (double)(p->conn.stats.header_bytes_sent - headers) /
                        (double)(p->conn.stats.packets_sent - packets);
    if (server.received < n)
        fprintf(stderr, "bench_networking: only %llu of %u messages arrived\n",
                (unsigned long long)server.received, n);
    side_close(&client);
    side_close(&server);
    return seconds;
}

static double ours_rtt_us(uint32_t rounds)
{
    connect_pair();
    server.echo = true;
    double *samples = malloc(rounds * sizeof *samples);
    uint8_t msg[32] = {7};
    uint32_t got = 0;
    for (uint32_t r = 0; r < rounds; r++) {
        const uint64_t before = client.received;
        const double t0 = bench_now_ns();
        net_node_send(&client.node, (uint32_t)client.peer, msg, sizeof msg, true, 0);
        for (uint32_t spin = 0; client.received == before && spin < 1000000; spin++)
            pump();
        samples[got++] = (bench_now_ns() - t0) * 1e-3;
    }
    const double median = bench_median(samples, (int)got);
    free(samples);
    side_close(&client);
    side_close(&server);
    return median;
}

/* ---- Garbage ------------------------------------------------------------------------------ */

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double garbage_cpu_pct(uint32_t n, int64_t *allocations)
{
    side_open(&server, true);
    const int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(server.port)};
    inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
    uint64_t rng = 99;
    uint8_t d[256];
    double cpu = 0;
    const int64_t before = alloc.allocations;
    uint64_t read = 0;
    for (uint32_t sent = 0; sent < n;) {
        for (uint32_t k = 0; k < 200 && sent < n; k++, sent++) {
            const size_t len = 1 + net_rand(&rng) % 200;
            for (size_t i = 0; i < len; i++)
                d[i] = (uint8_t)net_rand(&rng);
            if (k % 4 == 0)
                d[0] = NET_PACKET_DATA;
            sendto(fd, d, len, 0, (struct sockaddr *)&to, sizeof to);
        }
        const double c0 = cpu_seconds();
        read += net_udp_poll(server.udp, 100000);
        net_node_service(&server.node, net_udp_now());
        cpu += cpu_seconds() - c0;
    }
    *allocations = alloc.allocations - before;
    close(fd);
    side_close(&server);
    if (read < n / 2)
        fprintf(stderr, "bench_networking: the server read only %llu of %u garbage datagrams\n",
                (unsigned long long)read, n);
    /* Scaled to the datagrams the server really read (the kernel may drop some). */
    return read ? cpu * ((double)n / (double)read) * 100.0 : 0;
}

/* ---- ENet --------------------------------------------------------------------------------- */

static ENetHost *enet_server, *enet_client;
static ENetPeer *enet_peer;
static uint64_t enet_received;

static void enet_pump(bool echo)
{
    ENetEvent e;
    enet_host_flush(enet_client);
    while (enet_host_service(enet_server, &e, 0) > 0) {
        if (e.type == ENET_EVENT_TYPE_RECEIVE) {
            if (echo)
                enet_peer_send(e.peer, 0,
                               enet_packet_create(e.packet->data, e.packet->dataLength,
                                                  ENET_PACKET_FLAG_RELIABLE));
            else
                enet_received++;
            enet_packet_destroy(e.packet);
        }
    }
    enet_host_flush(enet_server);
    while (enet_host_service(enet_client, &e, 0) > 0) {
        if (e.type == ENET_EVENT_TYPE_RECEIVE) {
            enet_received++;
            enet_packet_destroy(e.packet);
        }
    }
}

static bool enet_open(void)
{
    ENetAddress addr = {.host = 0, .port = 0};
    enet_address_set_host(&addr, "127.0.0.1");
    addr.port = 0;
    enet_server = enet_host_create(&addr, 4, 1, 0, 0);
    enet_client = enet_host_create(NULL, 1, 1, 0, 0);
    if (!enet_server || !enet_client)
        return false;
    ENetAddress bound;
    enet_socket_get_address(enet_server->socket, &bound);
    enet_address_set_host(&bound, "127.0.0.1");
    enet_peer = enet_host_connect(enet_client, &bound, 1, 0);
    for (int i = 0; i < 100000 && enet_peer->state != ENET_PEER_STATE_CONNECTED; i++)
        enet_pump(false);
    enet_received = 0;
    return enet_peer->state == ENET_PEER_STATE_CONNECTED;
}

static void enet_close(void)
{
    enet_host_destroy(enet_client);
    enet_host_destroy(enet_server);
}

static double enet_reliable(uint32_t n, uint32_t size)
{
    if (!enet_open())
        return 0;
    uint8_t msg[1000] = {1};
    uint32_t sent = 0;
    const double t0 = bench_now_ns();
    for (uint64_t round = 0; enet_received < n && round < 50000000; round++) {
        /* Keep as many in flight as ours may (4 windows), so both get the same chance. */
        for (uint32_t k = 0; k < 256 && sent < n && sent - enet_received < 4 * NET_REL_WINDOW;
             k++, sent++)
            enet_peer_send(enet_peer, 0, enet_packet_create(msg, size, ENET_PACKET_FLAG_RELIABLE));
        enet_pump(false);
    }
    const double seconds = (bench_now_ns() - t0) * 1e-9;
    if (enet_received < n)
        fprintf(stderr, "bench_networking: ENet delivered only %llu of %u\n",
                (unsigned long long)enet_received, n);
    enet_close();
    return seconds;
}

static double enet_rtt_us(uint32_t rounds)
{
    if (!enet_open())
        return 0;
    double *samples = malloc(rounds * sizeof *samples);
    uint8_t msg[32] = {7};
    for (uint32_t r = 0; r < rounds; r++) {
        const uint64_t before = enet_received;
        const double t0 = bench_now_ns();
        enet_peer_send(enet_peer, 0,
                       enet_packet_create(msg, sizeof msg, ENET_PACKET_FLAG_RELIABLE));
        for (uint32_t spin = 0; enet_received == before && spin < 1000000; spin++)
            enet_pump(true);
        samples[r] = (bench_now_ns() - t0) * 1e-3;
    }
    const double median = bench_median(samples, (int)rounds);
    free(samples);
    enet_close();
    return median;
}

/* ---- Replication bandwidth on the virtual network ----------------------------------------- */

#define CLIENTS 64
#define OBJECTS 1000

static double replication_kbps(void)
{
    static vnet_t net;
    static net_session_t s[CLIENTS + 1];
    static vnet_sender_t senders[CLIENTS + 1];
    vnet_init(&net);
    for (int i = 0; i <= CLIENTS; i++) {
        senders[i] = (vnet_sender_t){&net, (uint16_t)(42000 + i)};
        const net_session_desc_t d = {
            .node = {.a = &alloc.base,
                     .max_peers = i ? 2 : CLIENTS + 1,
                     .seed = (uint64_t)i + 1,
                     .send = vnet_send,
                     .send_user = &senders[i]},
            .mode = NET_MODE_CLIENT_SERVER,
            .host = i == 0,
            .max_objects = 1024,
            .tick_hz = 20,
            /* 256 KB/s at 20 Hz is 13107 bytes a tick; packet headers take about 1 %. */
            .update_budget = 12800,
        };
        net_session_init(&s[i], &d);
        vnet_add(&net, &s[i].node, senders[i].port);
    }
    const net_addr_t host = net_addr_loopback4(42000);
    for (int i = 1; i <= CLIENTS; i++)
        net_session_join(&s[i], &host, 0);
    for (int t = 0; t < 200; t++) {
        net.now += 10000;
        vnet_pump(&net);
        for (int i = 0; i <= CLIENTS; i++)
            net_session_tick(&s[i], net.now);
    }
    uint32_t ids[OBJECTS];
    for (int k = 0; k < OBJECTS; k++)
        ids[k] =
            net_object_spawn(&s[0], (const float[NET_FIELDS]){(float)k, 0, 0, 0, 0, 0, 1}, 0xffff);
    uint64_t bytes0 = 0;
    const int seconds = 10;
    for (int t = 0; t < seconds * 100 + 200; t++) {
        if (t == 200)
            for (int i = 1; i <= CLIENTS; i++)
                bytes0 += s[i].node.stats.bytes_in;
        if (t % 5 == 0)
            for (int k = 0; k < OBJECTS; k++) {
                const net_object_t *o = net_object_find(&s[0], ids[k]);
                float f[NET_FIELDS];
                memcpy(f, o->fields, sizeof f);
                f[0] += 0.1f;
                f[1] += 0.05f;
                f[2] -= 0.02f;
                net_object_set(&s[0], ids[k], 7, f);
            }
        net.now += 10000;
        vnet_pump(&net);
        for (int i = 0; i <= CLIENTS; i++)
            net_session_tick(&s[i], net.now);
    }
    uint64_t bytes = 0;
    for (int i = 1; i <= CLIENTS; i++)
        bytes += s[i].node.stats.bytes_in;
    for (int i = 0; i <= CLIENTS; i++)
        net_session_free(&s[i]);
    vnet_free(&net);
    return (double)(bytes - bytes0) / CLIENTS / seconds / 1024.0;
}

int main(int argc, char **argv)
{
    const char *quick = bench_arg(argc, argv, "--quick");
    const uint32_t n = quick ? 20000 : 300000;
    test_alloc_init(&alloc);
    if (enet_initialize() != 0) {
        fprintf(stderr, "bench_networking: ENet failed to initialise\n");
        return 1;
    }
    double header = 0;
    const double ours100 = ours_reliable(n, 100, &header);
    bench_report("net.reliable_100b_msgs_per_s", n / ours100, "msg/s",
                 "ours: reliable ordered 100 B, loopback");
    const double enet100 = enet_reliable(n, 100);
    bench_report("net.enet_reliable_100b_msgs_per_s", enet100 > 0 ? n / enet100 : 0, "msg/s",
                 "ENet: reliable 100 B, loopback");
    const double ours1000 = ours_reliable(n / 4, 1000, NULL);
    bench_report("net.reliable_1000b_mb_per_s", n / 4 * 1000.0 / ours1000 / 1e6, "MB/s",
                 "ours: reliable ordered 1000 B payload");
    const double enet1000 = enet_reliable(n / 4, 1000);
    bench_report("net.enet_reliable_1000b_mb_per_s",
                 enet1000 > 0 ? n / 4 * 1000.0 / enet1000 / 1e6 : 0, "MB/s",
                 "ENet: reliable 1000 B payload");
    bench_report("net.rtt_32b_us", ours_rtt_us(quick ? 500 : 5000), "us",
                 "ours: median ping-pong, 32 B reliable");
    bench_report("net.enet_rtt_32b_us", enet_rtt_us(quick ? 500 : 5000), "us",
                 "ENet: median ping-pong, 32 B reliable");
    int64_t allocations = 0;
    bench_report("net.garbage_100k_per_s_cpu_pct", garbage_cpu_pct(100000, &allocations), "%",
                 "server CPU for 100k garbage datagrams per second");
    bench_report("net.garbage_allocations", (double)allocations, "count",
                 "allocations while reading garbage");
    bench_report("net.header_bytes_per_packet", header, "B", "mean header, 100 B reliable run");
    bench_report("net.replication_1000_objects_64_clients_kbps", replication_kbps(), "KB/s",
                 "per client, 1000 moving objects at 20 Hz");
    enet_deinitialize();
    bench_print_table();
    return alloc.live_bytes == 0 ? 0 : 1;
}
