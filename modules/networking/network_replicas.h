/*
 * network_replicas.h: what a script sees of replicas (api/ct_network.h, "Replicas"): the events
 * of replicas made and destroyed, the list of them, and their transforms drawn between the
 * snapshots received (network_interp.h) rather than jumping at the tick rate. State of the
 * module: network__state_t holds one network__replicas_t.
 */
#ifndef NETWORK_REPLICAS_H
#define NETWORK_REPLICAS_H

#include "ct_entity.h"
#include "network_interp.h"

enum { NETWORK_REPLICA_CREATED = 1, NETWORK_REPLICA_DESTROYED = 2 };

typedef struct network__replica_t {
    ct_entity_t entity;
    uint32_t object;
    uint32_t version; /* the object's newest version seen */
    net_snapshots_t snaps;
} network__replica_t;

typedef struct network__replica_event_t {
    uint32_t type;
    ct_entity_t entity;
    uint32_t object;
    uint32_t owner;
} network__replica_event_t;

#define NETWORK_REPLICA_EVENTS 4096u /* kept between two reads; more are dropped (counted) */

typedef struct network__replicas_t {
    network__replica_t *items;
    uint32_t n, cap;
    uint32_t *slots; /* object -> index + 1, open addressing, slot_count a power of two */
    uint32_t slot_count;
    network__replica_event_t *events;
    uint32_t num_events, dropped;
    double delay, max_extrapolation; /* seconds; set by Network.set_interpolation */
    bool configured;                 /* false: the defaults (0.1 s, 0.1 s) */
} network__replicas_t;

struct net_object_t;
/* A replica was made (the component calls it once the entity is tied to the object). */
void network__replicas_created(ct_entity_t e, const struct net_object_t *o, double now);
/* A replica's object is gone (its entity is being destroyed), or the session stops (every
 * replica is forgotten, no events). */
void network__replicas_destroyed(ct_entity_t e, uint32_t object, uint32_t owner);
void network__replicas_clear(void);
/* Records a new version of a replica's object (arrived `now`); writes the pose to draw into
 * pose[7] and returns true, or false when the entity is not a known replica. */
bool network__replicas_pose(ct_entity_t e, const struct net_object_t *o, double now, float pose[7]);
void network__replicas_free(void);
void network__replicas_register_lua(void);

#endif
