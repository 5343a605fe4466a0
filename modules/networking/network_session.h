/*
 * network_session.h: peers and the host (network_session.c) and the replicated objects they
 * share (network_replication.c): ids, modes, CREATE [wait ack] UPDATE.. DESTROY, migration.
 */
#ifndef NETWORK_SESSION_H
#define NETWORK_SESSION_H

#include "network_node.h"

/* ---- Session: peers, host, modes (network_session.c) --------------------------------------
 * Peer ids are 1..NET_MAX_PEER_ID; the host is 1 and numbers the others as they join. In
 * peer-to-peer mode every peer connects to every other (the host's welcome lists them); in
 * client-server mode clients talk only to the host, which relays. Every session message starts
 * with its type byte. */

#define NET_MAX_PEER_ID 254u
#define NET_FIELDS 16u /* floats per object: position 0-2, rotation 3-6, script 7-15 */
#define NET_SCRIPT_FIELD0 7u

enum { NET_MODE_PEER_TO_PEER = 0, NET_MODE_CLIENT_SERVER = 1 };

enum {
    NET_S_HELLO = 1,       /* joiner -> host */
    NET_S_WELCOME = 2,     /* host -> joiner: u8 your id, u8 mode, u32 last serial of your id's
                           * namespace, u8 n, n x (u8 id, u8 family, u16 port, 16 ip) */
    NET_S_PEER_HELLO = 3,  /* joiner -> other peer (peer-to-peer): u8 my id */
    NET_S_PEER_JOINED = 4, /* host -> every peer (peer-to-peer): u8 id, u8 family, u16 port, 16 ip:
                            * the only way a peer learns that an id belongs to an address */
    NET_S_PEER_ACCEPT = 5, /* peer -> joiner: your PEER_HELLO matched the host's word; u8 my id */
    NET_R_CREATE = 10,     /* see network_replication.c */
    NET_R_UPDATE = 11,
    NET_R_DESTROY = 12,
    NET_R_MIGRATE = 13,
    NET_R_MIGRATE_ORDER = 14,
    NET_R_MIGRATE_NOTICE = 15, /* host -> the other peers (peer-to-peer): what it ordered */
    NET_R_ANNOUNCE_AGAIN = 16, /* receiver -> owner: your MIGRATE or DESTROY came before the host's
                                * notice; send it again */
    NET_RPC = 20,              /* see network_rpc.c */
    NET_USER = 21,             /* the game's own bytes */
};

/* Introduction attempts a joiner makes per peer the welcome lists (each waits out the connect
 * timeout): a host listing addresses where nobody answers costs a bounded number of CONNECTs. */
#define NET_INTRODUCE_TRIES 2u

/* One replicated object's identity and state as a message carries it. */
typedef struct net_obj_msg_t {
    uint8_t type, origin, owner;
    uint32_t id, mig, version;
    uint16_t mask;
    float fields[NET_FIELDS];
} net_obj_msg_t;

/* Replication messages: write, and read with every count, id and value checked. */
void net_obj_msg_write(net_writer_t *w, const net_obj_msg_t *m);
bool net_obj_msg_read(net_reader_t *r, net_obj_msg_t *m, const char **why);

typedef struct net_object_t {
    uint32_t id;
    uint32_t mig;     /* migration counter: 0 at creation, +1 per migration (chosen by the host) */
    uint32_t version; /* the owner's change counter; on a replica, the newest update applied */
    uint8_t owner;
    uint8_t live; /* 0: a tombstone (destroyed at counter `mig`), kept to refuse stale messages */
    uint16_t pad;
    uint32_t user; /* the binding's word for the object (the component: its instance + 1);
                       * 0 when the slot is made, so a new session or a reused slot holds none */
    uint32_t field_version[NET_FIELDS];
    float fields[NET_FIELDS];
} net_object_t;

/* What a sender knows of one object at one connection. */
typedef struct net_sync_t {
    uint32_t acked_version;    /* the peer has everything up to this version */
    uint32_t inflight_version; /* newest update in flight (0: none) */
    uint32_t announced_mig;    /* counter of the create/migrate sent (UINT32_MAX: not yet) */
    uint8_t ready;             /* the announce was acknowledged: updates may go */
} net_sync_t;

typedef struct net_record_t {
    uint32_t token, object, id, version, mig;
    uint8_t conn, announce;
} net_record_t;

typedef struct net_session_events_t {
    void *user;
    void (*joined)(void *user, uint8_t peer_id); /* a peer is here (for the host: ids) */
    void (*left)(void *user, uint8_t peer_id, const char *reason);
    void (*created)(void *user, uint32_t object); /* a replica appeared */
    void (*destroyed)(void *user, uint32_t object);
    void (*owner_changed)(void *user, uint32_t object, uint8_t owner);
    /* An update or create was applied (the tests check it against the truth). */
    void (*applied)(void *user, uint32_t object, uint8_t origin, uint32_t mig, uint32_t version);
    /* RPC and user messages, already checked for their framing. */
    void (*message)(void *user, uint8_t from, const uint8_t *data, uint32_t len);
} net_session_events_t;

typedef struct net_session_stats_t {
    uint64_t creates_applied, updates_applied, destroys_applied, migrations_applied;
    uint64_t stale_creates, stale_updates, stale_destroys, stale_migrations;
    uint64_t updates_sent, announces_sent, update_bytes_sent;
} net_session_stats_t;

typedef struct net_session_t {
    ct_allocator_t *a;
    net_node_t node;
    uint8_t mode, my_id, next_id;
    bool is_host, joined;
    int host_conn;              /* connection to the host (-1: none or we are it) */
    uint8_t id_of_conn[256];    /* 0: unknown yet */
    int16_t conn_of_id[256];    /* -1: not connected */
    net_addr_t addr_of_id[256]; /* where each peer listens (host; joiners: the welcome's) */
    uint8_t wanted[256];        /* peer-to-peer: 1 the welcome listed it, 2 our hello went */
    uint8_t tries_left[256];    /* peer-to-peer: connection attempts left per wanted peer */
    uint8_t announced[256];     /* peer-to-peer: the host said this id is at addr_of_id */
    uint32_t last_serial[256];  /* host: the newest object serial seen per id's namespace,
                                          * so an id given again never repeats an object id */
    uint32_t max_conns;

    /* Objects: a table with tombstones, found through an open-addressing map. */
    net_object_t *objects;
    net_sync_t *sync; /* objects x max_conns */
    uint32_t num_objects, max_objects, next_serial;
    uint32_t live_of[256];         /* live objects per id namespace (who created them) */
    uint32_t max_objects_per_peer; /* quota of live objects a remote peer may create */
    uint32_t *map;                 /* 2 x max_objects, index + 1, 0 empty */
    uint32_t *tombstones;          /* FIFO of tombstone indices, reused when the table is full */
    uint32_t tomb_head, tomb_tail;
    uint32_t *free_list;
    uint32_t num_free;

    net_record_t *records; /* fates of sent announces and updates, by token */
    uint32_t records_mask, next_token;
    uint32_t update_budget;      /* bytes per connection per tick for updates (0: none) */
    uint32_t send_cursor;        /* where the next tick's round of updates starts */
    uint64_t tick_us, last_tick; /* replication rate */

    net_session_events_t ev;
    net_session_stats_t stats;
} net_session_t;

typedef struct net_session_desc_t {
    net_node_desc_t node; /* send/transport, key, caps, timeouts, seed; accept is set for you */
    uint8_t mode;
    bool host;
    uint32_t max_objects;          /* default 16384 (tombstones included) */
    uint32_t max_objects_per_peer; /* live objects one remote peer may create; default an eighth
                                    * of max_objects (at least 16): one peer cannot fill the table */
    uint32_t update_budget;        /* bytes of updates per connection per tick (0: unlimited) */
    uint32_t tick_hz;              /* replication ticks per second; default 20 */
    net_session_events_t ev;
} net_session_desc_t;

int net_session_init(net_session_t *s, const net_session_desc_t *d);
void net_session_free(net_session_t *s);
/* Joins the session whose host listens at `host`. */
int net_session_join(net_session_t *s, const net_addr_t *host, uint64_t now);
/* Services the node (call every frame); replication traffic goes at the session's tick rate. */
void net_session_tick(net_session_t *s, uint64_t now);
/* Sends raw session bytes (first byte NET_RPC or NET_USER) to a peer id. */
int net_session_send(net_session_t *s, uint8_t peer_id, const void *data, uint32_t len,
                     bool reliable);
/* After a hot reload: points the session's and its node's callbacks at this code. */
void net_session_rebind(net_session_t *s);

/* Objects (network_replication.c). Fields are NET_FIELDS floats; `mask` says which are given. */
uint32_t net_object_spawn(net_session_t *s, const float *fields, uint16_t mask);
int net_object_set(net_session_t *s, uint32_t id, uint16_t mask, const float *fields);
int net_object_destroy(net_session_t *s, uint32_t id);
/* Host only: gives the object to `owner` (itself included). */
int net_object_migrate(net_session_t *s, uint32_t id, uint8_t owner);
const net_object_t *net_object_find(const net_session_t *s, uint32_t id); /* live ones only */
/* The user word of the object's slot, live or tombstone; NULL when the id is unknown. */
uint32_t *net_object_user(net_session_t *s, uint32_t id);

/* Internal between session and replication. */
int net__replication_init(net_session_t *s, uint32_t max_objects);
void net__replication_free(net_session_t *s);
/* A replication message from connection `conn` (peer `from`); -1 with *why on a breach. */
int net__replication_receive(net_session_t *s, uint32_t conn, uint8_t from, const uint8_t *d,
                             uint32_t len, const char **why);
void net__replication_fate(net_session_t *s, uint32_t token, bool delivered);
void net__replication_send(net_session_t *s);
void net__replication_peer_joined(net_session_t *s, uint32_t conn);
void net__replication_peer_left(net_session_t *s, uint8_t peer_id);

#endif
