/*
 * network_log.h: the traffic log (network_log.c): write, read, describe, replay.
 */
#ifndef NETWORK_LOG_H
#define NETWORK_LOG_H

#include "network_session.h" /* it describes session messages */

/* ---- Traffic log (network_log.c) -------------------------------------------------------------
 * "CTNLOG1\n", then per record: u64 time (us), u8 what (NET_LOG_IN, _OUT, _SERVICE), u8 family,
 * u16 port, 16 bytes address, u32 length, the plaintext bytes. Service records (no datagram)
 * mark when the node was serviced, so a replay services it at the same times. */

typedef struct net_log_record_t {
    uint64_t time;
    uint8_t what;
    net_addr_t addr;
    uint32_t len;
    uint8_t data[NET_MAX_DATAGRAM];
} net_log_record_t;

/* Creates (or truncates) a regular file; NULL for a link, FIFO or device at `path`. */
FILE *net_log_create(const char *path);
void net_log_write(FILE *f, uint8_t what, const net_addr_t *addr, const uint8_t *p, uint32_t n,
                   uint64_t now);
/* Checks the file's header; false when it is not a traffic log. */
bool net_log_begin(FILE *f);
/* The next record; false at the end, or with *why when the file is corrupt. */
bool net_log_read(FILE *f, net_log_record_t *r, const char **why);
/* One line describing a datagram: header, then each message with its session type. */
void net_log_describe(const uint8_t *p, uint32_t n, char *out, size_t size);
/* Replays a log into `node` (made like the recorded one, with the same seed): feeds its
 * incoming datagrams and services it at the recorded times, and compares every datagram the
 * node sends with the recorded ones. Returns the number that differ (or -1 with *why when the
 * log is corrupt); *compared counts the datagrams compared. The node's traffic hook is used. */
int net_log_replay(FILE *f, net_node_t *node, uint32_t *compared, const char **why);

#endif
