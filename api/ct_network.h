/*
 * ct_network.h: networking. API "ct.network", served by modules/networking (ct_networking.so).
 *
 * One network session per engine: a node on a UDP port (libuv, on a loop the module owns and
 * steps in its frame_begin hook), after the seed posts "A Bug in Object Replication and Message
 * Reordering" and "Scripted Network Debugging".
 *
 * Layers:
 *   - Packets over UDP carry a 16-bit sequence number and acknowledge the peer's packets (latest
 *     sequence + a 32-bit bitfield; bitfield bytes that bring no news are left out, so a packet
 *     with nothing new to acknowledge has a 3-byte header). Over them: a reliable ordered stream
 *     and unreliable messages per connection; reliable messages up to 256 KB are fragmented and
 *     reassembled in bounded buffers. A connection begins with a stateless cookie handshake (no
 *     reply before it is larger than the request, nothing allocated), keeps alive at 10 Hz, and
 *     ends with a disconnect or after 10 s of silence.
 *   - Sessions: the host (peer 1) numbers the peers that join. Peer-to-peer: every peer connects
 *     to every other. Client-server: clients talk only to the host, which relays.
 *   - Replication: an entity with a "network" component is an object, owned by one peer, sent
 *     CREATE [wait for ack] UPDATE... DESTROY: updates are unreliable, carry only the fields the
 *     peer has not acknowledged and are sent again only when lost. Fields: the entity's local
 *     position (3) and rotation (4), and up to 9 script fields declared by name
 *     (Network.declare_fields). The host migrates ownership (a counter orders migrations); stale
 *     creates, updates and migrations from earlier owners are never applied, whatever the arrival
 *     order. Replicas appear as new entities (with a transform) in the session's world.
 *   - RPC: scripts declare functions with argument schemas; remote calls are decoded and checked
 *     against the schema before Lua sees a value, never loaded as code, and at most
 *     CT_NETWORK_RPC_BUDGET calls per peer run per frame (the rest wait; a peer queueing more
 *     than CT_NETWORK_RPC_QUEUE bytes is disconnected).
 *
 * Bad peers: malformed datagrams are dropped unread and unallocated; a peer that breaks the
 * protocol is disconnected and the log names it ("peer 127.0.0.1:40002 broke the protocol:
 * ...").
 *
 * Threat model. Who may do what, and what holds whatever they send (tests/networking:
 * network_hostile plays each of them; fuzz_net_session plays a hostile peer through a whole
 * session and checks these invariants after every message).
 *   - Anyone who can send UDP to the port, without the key (or with no key configured, anyone
 *     not yet joined): gets no reply larger than its request and costs no allocation before the
 *     cookie handshake completes; cannot inject into a sealed session (every datagram is
 *     authenticated when a key is set); once connected but not joined it can do nothing but say
 *     hello: replication, RPC and user messages before the host welcomed it (or, peer to peer,
 *     before the host announced its id at its address) break the protocol. It cannot claim a
 *     peer id on a peer (PEER_HELLO binds only the id the host gave that address), and ids a
 *     departed peer held come back only after every other id was given (object ids never
 *     repeat: the welcome carries the id's newest serial). Without a key, a node is open to
 *     anyone who can reach it: bind to loopback or a private address, or set a key.
 *   - A peer with the key (joined): is trusted with its own objects and nothing else. It may
 *     create objects only in its own id namespace (the id's top byte), within a quota of live
 *     objects (max_objects / 8 by default), each state a valid pose (position within
 *     +-CT_TRANSFORM_MAX_POSITION, rotation not all zero, every value finite); update and
 *     destroy only the objects it owns at their current migration counter; it cannot take
 *     ownership (migrations are the host's word: a MIGRATE the host did not order is ignored or,
 *     at the host, a breach), destroy another's object (a breach), or plant tombstones for ids
 *     not yet used. Its RPC calls are decoded against the receiver's schema and run at most
 *     CT_NETWORK_RPC_BUDGET per frame, never as code, and never after it left. Everything it
 *     sends is bounded by the connection caps (queued bytes, messages, fragments). It can send
 *     its own objects' state as it likes (that is the game's to judge) and spend its budgets.
 *   - A malicious host: is trusted with what a host decides: who joins and with which id, and
 *     who owns each object (migrations, taking over a departed peer's objects); it can also
 *     drop or delay anything it relays in client-server mode. It cannot make a peer crash,
 *     allocate without bound, or run code; its poses are checked like anyone's; the peers a
 *     welcome lists are tried twice each at most, so it cannot make a joiner
 *     send CONNECTs to arbitrary addresses for ever.
 *   What nobody can do: read or write files through the module (a traffic log's path follows
 *   the host's output rules, api/ct_host.h), or make an engine block.
 *
 * Debugging aids: `CUTTLE_NO_TIMEOUTS=1` in the environment (or set_timeouts(false), or
 * Network.set_timeouts(false)) disables every timeout, for sessions stopped in a debugger; many
 * nodes run on one machine on different ports; `traffic_log` writes every datagram in and out
 * with its time (tools/cuttle-netlog prints it decoded, and replays it into a node); a seeded
 * network conditioner (loss, bursts, latency, jitter, reordering, duplication, bandwidth) applies
 * per connection (Network.set_conditions).
 *
 * A pre-shared key (32 bytes) makes every datagram sealed with XChaCha20-Poly1305 (libsodium).
 *
 * Lua (module "Network"; worlds are light userdata, entities their id):
 *   Network.start{ port = 40001, host = true, mode = "p2p" | "client_server", join = "127.0.0.1:40001",
 *                  world = w, key = "32 bytes", traffic_log = "net.log", tick_hz = 20 }
 *   Network.stop()          Network.port() -> n       Network.peer_id() -> n (0 until joined)
 *   Network.peers() -> { id, ... }                    Network.stats() -> table
 *   Network.replicate(world, e)      Network.owner(world, e) -> peer id
 *   Network.migrate(world, e, peer)  (host only)
 *   Network.declare_fields{ "health", "score" }      (the same on every peer, before start)
 *   Network.set_field(world, e, "health", 5)         Network.field(world, e, "health") -> n
 *   Network.rpc("hit", "number string:32", function(from, damage, who) end)
 *   Network.call(peer, "hit", 10, "head")            (types checked against the declaration)
 *   Network.set_timeouts(false)
 *   Network.set_conditions(peer, { loss = 0.1, latency_ms = 50, jitter_ms = 10, seed = 1 })
 *
 * Replicas (for game scripts): Network.replica_events() -> { {type = "created" | "destroyed",
 * entity, object, owner}, ... } since the last call, in order (at most 4096 kept; more are
 * dropped, with a warning); Network.replicas() -> { {entity, object, owner}, ... } now. A
 * replica's transform is drawn `delay_ms` in the past, between the snapshots received (positions
 * linear, rotations normalised along the short arc), so it moves smoothly at any tick rate; past
 * the newest snapshot it goes on with the last velocity for at most one snapshot interval and only
 * within `max_extrapolation_ms`, then settles on the newest state (updates come only on change).
 * Network.set_interpolation{ delay_ms = 100, max_extrapolation_ms = 100 } (the defaults; 0..2000;
 * delay 0 draws each state as it arrives).
 *
 * Threads: main thread only.
 */
#ifndef CT_NETWORK_H
#define CT_NETWORK_H

#include "ct_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_NETWORK_API 0x896172cfu /* "ct.network" */
#define CT_NETWORK_COMPONENT_NAME "network"
#define CT_NETWORK_KEY_BYTES 32u
#define CT_NETWORK_RPC_BUDGET 32u
#define CT_NETWORK_RPC_QUEUE 65536u

typedef struct ct_entity_t ct_entity_t;
typedef struct ct_world_o ct_world_o;

/* Who talks to whom: every peer with every peer, or every client with the host only. */
typedef enum ct_network_mode {
    CT_NETWORK_PEER_TO_PEER = 0,
    CT_NETWORK_CLIENT_SERVER = 1,
} ct_network_mode;

/* What start() needs; zero means default. */
typedef struct ct_network_desc_t {
    const char *bind;        /* local address; default "127.0.0.1" */
    uint16_t port;           /* 0: any free port (see port()) */
    uint8_t mode;            /* ct_network_mode */
    uint8_t host;            /* 1: this node hosts the session */
    const char *join;        /* the host's "ip:port" when not the host */
    const uint8_t *key;      /* CT_NETWORK_KEY_BYTES of pre-shared key (copied), or NULL */
    uint32_t max_peers;      /* connections; default 64 */
    uint32_t max_objects;    /* replicated objects and tombstones; default 16384 */
    uint32_t tick_hz;        /* replication rate; default 20 */
    const char *traffic_log; /* path of a traffic log to write, or NULL */
    ct_world_o *world;       /* where replicas are made; required to replicate */
} ct_network_desc_t;

/* Counters of a node since start (stats()). */
typedef struct ct_network_stats_t {
    uint64_t datagrams_in, datagrams_out, bytes_in, bytes_out; /* received and sent */
    uint64_t dropped;  /* malformed, unknown sender or failed authentication */
    uint64_t breaches; /* peers disconnected for breaking the protocol */
    uint64_t updates_applied, stale_ignored;
    uint32_t peers;
    uint32_t objects;
} ct_network_stats_t;

typedef struct ct_network_api_v1 {
    /* Opens the socket and hosts or joins. Returns 0, CT_ERR_INVALID (a bad address or field,
     * logged), CT_ERR_IO (the port is taken) or CT_ERR_CONFLICT (a session runs already). */
    int (*start)(const ct_network_desc_t *desc);
    /* Leaves the session (peers are told) and closes the socket. Replicas stay as entities, and
     * no entity stays tied to an object: owner() says 0 for every one, and a new session starts
     * with none replicated (its objects are never the old entities, even where ids repeat). */
    void (*stop)(void);
    /* The bound port (0 when stopped). */
    uint16_t (*port)(void);
    /* This node's peer id: 1 for the host, 0 until a joiner is welcomed. */
    uint8_t (*peer_id)(void);
    /* Replicates e (which needs a transform in `world`), owned by this peer. CT_ERR_STALE for a
     * dead entity, CT_ERR_INVALID without a session or in another world. */
    int (*replicate)(ct_world_o *world, ct_entity_t e);
    /* Host only: gives e's object to `peer`. */
    int (*migrate)(ct_world_o *world, ct_entity_t e, uint8_t peer);
    /* The owner of e's object (0: not replicated). */
    uint8_t (*owner)(ct_world_o *world, ct_entity_t e);
    /* false disables every timeout (connecting, silence). */
    void (*set_timeouts)(bool enabled);
    ct_network_stats_t (*stats)(void);
} ct_network_api_v1;

#ifdef __cplusplus
}
#endif
#endif
