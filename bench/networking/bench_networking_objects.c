/*
 * bench_networking_objects: the "network" component at scale, through the public API a game
 * calls, in a booted kernel (entities, transforms, networking) hosting a session on 127.0.0.1
 * with nobody joined (nothing is sent; every figure is the engine's own work).
 *
 *   networking.owner_<N>_ns
 *       ct_network_api_v1.owner(world, e) for each of N replicated entities in a shuffled order:
 *       median per call over 21 passes. The call finds the entity's object (the component's
 *       entity -> object lookup) and reads the object's owner from the session.
 *   networking.destroy_batch_<N>_ms
 *       ct_entity_api_v2.destroy_batch of all N replicated entities at once, in a shuffled order:
 *       every component's destroy callback runs (the network component finds and drops each
 *       object, transforms remove theirs). Median of 5 fresh worlds and sessions.
 *   networking.join_<N>_ms
 *       The engine joins (ct_network_api_v1.start with `join`) a host that holds N objects (the
 *       networking core on its own socket in this process, 1000 Hz ticks on both sides): the
 *       time spent in the engine's frames from the start until all N objects are replica
 *       entities with transforms here (the host's own work and the time the datagrams wait
 *       are outside). Each replica's check that its object has no entity yet is part of it.
 *       Median of 5 fresh worlds and sessions.
 *
 * N is 1,000 and 10,000. Modules come from `--modules DIR` (default: this build's), so the same
 * program measures another build's modules.
 */
#include "../common/bench.h"
#include "../common/bench_kernel.h"

#include "ct_network.h"
#include "ct_transform.h"
#include "ct_world.h"
#include "net_test_support.h"
#include "plugins/registry.h"

#include <time.h>

static const ct_network_api_v1 *net;
static const ct_entity_api_v2 *entity;
static const ct_transform_api_v2 *tf;
static const ct_world_api_v1 *worlds;

/* A new world hosting a session, with n replicated entities in e. */
static ct_world_o *replicate_many(ct_entity_t *e, uint32_t n)
{
    ct_world_o *w = worlds->create_world(&(ct_world_desc_t){.name = "net"});
    if (!w || net->start(&(ct_network_desc_t){.host = 1, .world = w, .max_objects = 16384})) {
        fprintf(stderr, "bench_networking_objects: cannot host a session\n");
        exit(1);
    }
    for (uint32_t i = 0; i < n; i++) {
        e[i] = entity->create();
        const ct_transform_pose_t pose = {{(float)i, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
        if (!tf->create(w, e[i], &pose).i || net->replicate(w, e[i])) {
            fprintf(stderr, "bench_networking_objects: entity %u was not replicated\n", i);
            exit(1);
        }
    }
    return w;
}

static void end_world(ct_world_o *w)
{
    net->stop();
    worlds->destroy_world(w);
}

static void measure(uint32_t n, ct_entity_t *e, ct_entity_t *order)
{
    char name[64];
    double samples[21];
    ct_world_o *w = replicate_many(e, n);
    bench_shuffle_entities(e, order, n);
    uint32_t owned = 0;
    for (int rep = 0; rep < 21; rep++) {
        owned = 0;
        const double start = bench_now_ns();
        for (uint32_t i = 0; i < n; i++)
            owned += net->owner(w, order[i]) == 1;
        samples[rep] = (bench_now_ns() - start) / n;
    }
    if (owned != n) {
        fprintf(stderr, "bench_networking_objects: %u of %u entities found owned\n", owned, n);
        exit(1);
    }
    snprintf(name, sizeof name, "networking.owner_%u_ns", n);
    bench_report(name, bench_median(samples, 21), "ns",
                 "owner(world, e): entity -> object -> owner, shuffled");
    entity->destroy_batch(e, n);
    end_world(w);

    for (int rep = 0; rep < 5; rep++) {
        w = replicate_many(e, n);
        bench_shuffle_entities(e, order, n);
        const double start = bench_now_ns();
        entity->destroy_batch(order, n);
        samples[rep] = (bench_now_ns() - start) / 1e6;
        if (net->stats().objects != 0 || net->owner(w, e[0]) != 0) {
            fprintf(stderr, "bench_networking_objects: objects left after the batch\n");
            exit(1);
        }
        end_world(w);
    }
    snprintf(name, sizeof name, "networking.destroy_batch_%u_ms", n);
    bench_report(name, bench_median(samples, 5), "ms",
                 "all replicated entities destroyed in one batch");
}

/* The host: the networking core on its own socket, holding n objects before anyone joins. */
typedef struct join_host_t {
    test_alloc_t alloc;
    net_session_t s;
    net_udp_t *udp;
    uint16_t port;
} join_host_t;

static void host_open(join_host_t *h, uint32_t n)
{
    test_alloc_init(&h->alloc);
    const net_addr_t any = net_addr_loopback4(0);
    if (net_udp_open(&h->udp, &h->alloc.base, &any, NULL, &h->port)) {
        fprintf(stderr, "bench_networking_objects: the host has no socket\n");
        exit(1);
    }
    const net_session_desc_t d = {.node = {.a = &h->alloc.base,
                                           .max_peers = 4,
                                           .accept = true,
                                           .send = net_udp_send,
                                           .send_user = h->udp},
                                  .host = true,
                                  .max_objects = 16384,
                                  .tick_hz = 1000};
    if (net_session_init(&h->s, &d)) {
        fprintf(stderr, "bench_networking_objects: the host's session failed\n");
        exit(1);
    }
    net_udp_set_node(h->udp, &h->s.node);
    for (uint32_t i = 0; i < n; i++)
        if (!net_object_spawn(&h->s, (const float[NET_FIELDS]){(float)i, 0, 0, 0, 0, 0, 1},
                              0xffff)) {
            fprintf(stderr, "bench_networking_objects: the host could not make object %u\n", i);
            exit(1);
        }
}

static void host_close(join_host_t *h)
{
    net_session_free(&h->s);
    net_udp_close(h->udp);
}

static double join_ms(uint32_t n)
{
    join_host_t h;
    host_open(&h, n);
    ct_world_o *w = worlds->create_world(&(ct_world_desc_t){.name = "net-join"});
    char join[32];
    snprintf(join, sizeof join, "127.0.0.1:%u", h.port);
    double engine_ns = 0, start = bench_now_ns();
    if (!w || net->start(&(ct_network_desc_t){
                  .join = join, .world = w, .max_objects = 16384, .tick_hz = 1000})) {
        fprintf(stderr, "bench_networking_objects: cannot join the host\n");
        exit(1);
    }
    engine_ns += bench_now_ns() - start;
    uint32_t frames = 0;
    while (tf->count(w) < n) {
        if (++frames > 200000) {
            fprintf(stderr, "bench_networking_objects: %u of %u replicas after %u frames\n",
                    tf->count(w), n, frames);
            exit(1);
        }
        net_udp_poll(h.udp, 4096);
        net_session_tick(&h.s, net_udp_now());
        nanosleep(&(struct timespec){0, 20000}, NULL);
        start = bench_now_ns();
        kernel__frame(1.0 / 60);
        engine_ns += bench_now_ns() - start;
    }
    if (tf->count(w) != n || net->stats().objects != n) {
        fprintf(stderr, "bench_networking_objects: %u replicas of %u objects, not %u\n",
                tf->count(w), net->stats().objects, n);
        exit(1);
    }
    /* The replicas stay as entities after the session (their transforms go with the world). */
    net->stop();
    worlds->destroy_world(w);
    host_close(&h);
    return engine_ns / 1e6;
}

static void measure_join(uint32_t n)
{
    char name[64];
    double samples[5];
    for (int rep = 0; rep < 5; rep++)
        samples[rep] = join_ms(n);
    snprintf(name, sizeof name, "networking.join_%u_ms", n);
    bench_report(name, bench_median(samples, 5), "ms",
                 "engine frames while joining a host with N objects, until N replicas");
}

int main(int argc, char **argv)
{
    const char *const modules[] = {"entities/ct_entities.so", "transforms/ct_transforms.so",
                                   "networking/ct_networking.so"};
    bench_boot_modules(argc, argv, "bench_networking_objects", modules, 3);
    net = registry__get_engine_api(CT_NETWORK_API, 1);
    entity = registry__get_engine_api(CT_ENTITY_API, 2);
    tf = registry__get_engine_api(CT_TRANSFORM_API, 2);
    worlds = registry__get_engine_api(CT_WORLD_API, 1);
    if (!net || !entity || !tf || !worlds) {
        fprintf(stderr, "bench_networking_objects: setup failed\n");
        return 1;
    }
    static ct_entity_t e[10000], order[10000];
    measure(1000, e, order);
    measure(10000, e, order);
    measure_join(1000);
    measure_join(10000);
    kernel__shutdown();
    bench_print_table();
    return 0;
}
