/*
 * cuttle-netlog: reads a traffic log written by the networking module (Network.start{
 * traffic_log = "..." }) and prints every datagram decoded, one line each:
 *     12.345678  out 127.0.0.1:40002  DATA seq 17 ack 9 bits 01 | r#4 41B CREATE obj 01000001 mig 0 from 1 v 1
 * With --replay it feeds the log's incoming datagrams to a fresh node made like the recorded one
 * (--seed N as the recorded node had, --accept for a host) and says whether every datagram the
 * node sends matches the recording. Exit status: 0 ok, 1 mismatch or corrupt log, 2 usage.
 */
#include "ct_heap.h"
#include "network_internal.h"

#include <stdlib.h>

static void discard(void *user, const net_addr_t *to, const uint8_t *p, uint32_t n)
{
    (void)user, (void)to, (void)p, (void)n;
}

static int replay(FILE *f, uint64_t seed, bool accept, const char *path)
{
    ct_allocator_t *heap = ct_heap_allocator();
    net_node_t node;
    const net_node_desc_t d = {.a = heap, .accept = accept, .seed = seed, .send = discard};
    if (net_node_init(&node, &d)) {
        fprintf(stderr, "cuttle-netlog: cannot make a node\n");
        return 1;
    }
    uint32_t compared = 0;
    const char *why = NULL;
    const int differ = net_log_replay(f, &node, &compared, &why);
    net_node_free(&node);
    if (differ < 0) {
        fprintf(stderr, "cuttle-netlog: %s: %s\n", path, why);
        return 1;
    }
    printf("replayed %s: %u datagrams sent, %d differ from the recording\n", path, compared,
           differ);
    return differ ? 1 : 0;
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    bool do_replay = false, accept = false;
    uint64_t seed = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--replay"))
            do_replay = true;
        else if (!strcmp(argv[i], "--accept"))
            accept = true;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else {
            path = NULL;
            break;
        }
    }
    if (!path) {
        fprintf(stderr, "usage: cuttle-netlog [--replay --seed N [--accept]] LOG\n");
        return 2;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cuttle-netlog: cannot open %s\n", path);
        return 1;
    }
    if (do_replay) {
        const int r = replay(f, seed, accept, path);
        fclose(f);
        return r;
    }
    if (!net_log_begin(f)) {
        fprintf(stderr, "cuttle-netlog: %s is not a traffic log\n", path);
        fclose(f);
        return 1;
    }
    static net_log_record_t rec;
    const char *why = NULL;
    char who[64], line[2048];
    uint64_t n = 0;
    while (net_log_read(f, &rec, &why)) {
        if (rec.what == NET_LOG_SERVICE)
            continue;
        net_addr_format(&rec.addr, who, sizeof who);
        net_log_describe(rec.data, rec.len, line, sizeof line);
        printf("%12.6f  %-3s %-22s %s\n", (double)rec.time * 1e-6,
               rec.what == NET_LOG_OUT ? "out" : "in", who, line);
        n++;
    }
    fclose(f);
    if (why) {
        fprintf(stderr, "cuttle-netlog: %s: after %llu datagrams: %s\n", path,
                (unsigned long long)n, why);
        return 1;
    }
    return 0;
}
