/*
 * network_interp.h: where a replica is drawn between the snapshots it received (kernel-free, so
 * tests compile it directly). A snapshot is a pose (position 3, rotation 4) with the time it
 * arrived; a replica is drawn `delay` seconds in the past, between the two snapshots around that
 * time (positions interpolated linearly, rotations normalised-linearly along the shorter arc). Past
 * the newest one it moves on with the velocity of the last two for at most one snapshot interval,
 * and only while less than `max_extrapolation` seconds past it; later it settles on the newest
 * state (updates come only on change, so silence means it stopped). Rotations do not extrapolate.
 */
#ifndef NETWORK_INTERP_H
#define NETWORK_INTERP_H

#include <stdbool.h>
#include <stdint.h>

#define NET_SNAPSHOTS 8u

typedef struct net_snapshot_t {
    double time;
    float pose[7]; /* position x y z, rotation x y z w */
} net_snapshot_t;

/* A ring of the newest NET_SNAPSHOTS snapshots, oldest first from `head`. */
typedef struct net_snapshots_t {
    net_snapshot_t s[NET_SNAPSHOTS];
    uint32_t head, count;
} net_snapshots_t;

/* Adds a snapshot (a time not after the newest replaces that one: one per arrival time). */
void net_snapshots_add(net_snapshots_t *r, double time, const float pose[7]);
/* The pose to draw at `time` (already delayed); false when there is no snapshot. Sets
 * *extrapolated when past the newest snapshot. */
bool net_snapshots_sample(const net_snapshots_t *r, double time, double max_extrapolation,
                          float out[7], bool *extrapolated);

#endif
