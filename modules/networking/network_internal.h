/*
 * network_internal.h: the networking module's engine side (network.c, network_component.c,
 * network_lua.c). Each layer below has its own header, which its file and the layers above include.
 *
 * Layers, bottom up (each file one job, each with its header, which includes the ones below it):
 *   network_wire.c/.h     limits, bounds-checked byte reader/writer, varints, the packet header,
 *                         message framing, addresses
 *   network_conn.c/.h     one connection: sequence numbers and acks, the reliable ordered stream,
 *                         unreliable messages, fragments, per-connection caps, message fates
 *   network_sim.c/.h      the seeded conditioner on the node's clock
 *   network_node.c/.h     an endpoint: connections by address, handshake (stateless cookie),
 *                         keep-alive, timeouts, disconnect, the optional pre-shared key (libsodium)
 *   network_session.c/.h  peers and the host, client-server relay or peer-to-peer mesh; with
 *   network_replication.c objects: CREATE [wait ack] UPDATE.. DESTROY, migration, stale rules
 *   network_rpc.c/.h      RPC argument schemas, encoding, checked decoding
 *   network_log.c/.h      the traffic log (write, read, replay)
 *   network_udp.c/.h      real sockets: a libuv loop the module owns, stepped each frame
 * The core (all of the above but network_udp.c) knows nothing of the kernel: it takes an
 * allocator and a clock in microseconds, so tests, fuzz targets and the benchmark compile it
 * directly. network.c, network_lua.c and network_component.c bind it to the engine.
 */
#ifndef NETWORK_INTERNAL_H
#define NETWORK_INTERNAL_H

#include "network_log.h"
#include "network_rpc.h"
#include "network_session.h"
#include "network_udp.h"

/* ---- The module (network.c, network_component.c, network_lua.c) -----------------------------
 * The engine side: one session per engine on a socket of our own, the "network" component that
 * ties entities to objects, and the Lua module. Kernel APIs arrive through get_engine_api. */

#include "ct_entity.h"
#include "ct_log.h"
#include "ct_lua.h"
#include "ct_memory.h"
#include "ct_network.h"
#include "ct_reload.h"
#include "ct_resource.h"
#include "ct_transform.h"
#include "network_replicas.h"

/* NETWORK_LAYOUT_VERSION, the layout identity a reload compares, is made at build time from the
 * layouts of network__state_t, network__manager_t and every struct they reach (network_layout.h,
 * by tools/abi/layout_id.py): a change there changes it, so there is no number to bump. The
 * module's entry file includes network_layout.h. */

#define NETWORK_SCRIPT_FIELDS (NET_FIELDS - NET_SCRIPT_FIELD0)

/* Everything that survives a hot reload, in one block of the plugin's allocator. */
typedef struct network__state_t {
    ct_reload_header_t header;
    bool running;
    bool timeouts_off;
    net_session_t session;
    net_udp_t *udp;
    uint16_t port;
    FILE *traffic;
    ct_world_o *world;
    uint64_t type_id;
    net_rpc_registry_t rpc;
    char fields[NETWORK_SCRIPT_FIELDS][32];
    uint32_t num_fields;
    /* RPC calls waiting for their peer's budget: [u8 from][u16 length][bytes]... */
    uint8_t *rpc_queue;
    uint32_t rpc_len, rpc_cap;
    uint32_t rpc_queued[256]; /* bytes per peer */
    uint8_t key[CT_NETWORK_KEY_BYTES];
    network__replicas_t replicas; /* network_replicas.c */
} network__state_t;

typedef struct network__module_t {
    ct_plugin_o *self;
    const ct_log_api_v1 *log;
    const ct_memory_api_v1 *memory;
    const ct_lua_api_v1 *lua;
    const ct_entity_api_v2 *entity;
    const ct_component_api_v1 *component;
    const ct_transform_api_v2 *transform;
    const ct_resource_api_v6 *resource; /* v3: check_fields; v6: declare_format */
    const struct ct_data_api_v1 *data;
    const struct ct_host_api_v2 *host;         /* v2: output_path, for the traffic log */
    const struct ct_profiler_api_v1 *profiler; /* optional: scopes for the thread profiler */
    ct_allocator_t *a;
    network__state_t *state;
} network__module_t;

extern network__module_t network__m;

/* Per world: which entities are which objects (parallel arrays walked linearly, kept packed by
 * swap-and-pop), and the SDK's paged index from an entity to its instance + 1. The other way,
 * object -> instance + 1, is the `user` word of the object's slot in the session. */
typedef struct network__manager_t {
    ct_allocator_t *a;
    ct_world_o *world;
    uint32_t n, cap;
    ct_entity_t *entity;
    uint32_t *object;
    ct_entity_pages_t index;
} network__manager_t;

int network__start(const ct_network_desc_t *desc);
ct_network_stats_t network__stats(void);
void network__stop(void);
int network__replicate(ct_world_o *world, ct_entity_t e);
int network__migrate(ct_world_o *world, ct_entity_t e, uint8_t peer);
uint8_t network__owner(ct_world_o *world, ct_entity_t e);
/* The object of e in `world` (0: none). */
uint32_t network__object_of(ct_world_o *world, ct_entity_t e);
/* Script field index (0..8) of a declared name, or -1. */
int network__field_index(const char *name);

int network__register_component(void);
bool network__rebind_component(void);
void network__unregister_component(void);
network__manager_t *network__manager(ct_world_o *world);
/* Entities -> objects (owned ones), before replication sends; objects -> entities (replicas)
 * after it received. */
void network__gather(void);
void network__apply(void);
void network__replica_created(uint32_t object);
/* Before the session ends: every entity of its world stops being an object (replicas stay as
 * plain entities, owned ones stay unreplicated), so no later session aliases them. */
void network__unlink_all(void);

void network__register_lua(void);
/* Runs queued RPC calls, at most CT_NETWORK_RPC_BUDGET per peer. */
void network__dispatch_rpc(void);

#endif
