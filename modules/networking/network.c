/*
 * ct_networking.so: the plugin entry, the session the module runs, its frame hooks and the
 * ct.network v1 table.
 *
 * The event loop: the kernel exposes none, so the module owns a libuv loop for its socket and
 * steps it without blocking in frame_begin: read what arrived, let replication and the
 * connections send, run this frame's RPC budget, then move replicas. frame_end gathers the
 * owned entities' transforms into their objects for the next send.
 */
#include "network_internal.h"

#include "ct_data.h"
#include "ct_host.h"
#include "ct_module.h"
#include "ct_plugin.h"
#include "network_layout.h"

#include <stdlib.h>

network__module_t network__m;

#include "ct_profiler.h"
#undef CT_PROFILER /* ct_profiler.h names its default table; this module keeps its own */
#define CT_PROFILER (network__m.profiler)
#define LOG(level, ...) network__m.log->write(network__m.self, level, __VA_ARGS__)

static void on_log(void *user, const char *line)
{
    (void)user;
    LOG(CT_LOG_WARNING, "%s", line);
}

static void on_traffic(void *user, uint8_t what, const net_addr_t *addr, const uint8_t *p,
                       uint32_t n, uint64_t now)
{
    (void)user;
    if (network__m.state->traffic)
        net_log_write(network__m.state->traffic, what, addr, p, n, now);
}

static void on_left(void *user, uint8_t peer, const char *reason)
{
    (void)user;
    /* Its calls still waiting go with it: run later, they would speak for a peer that left (or,
     * once its id is given again, for a newcomer), and its byte count starts again at 0. */
    network__state_t *st = network__m.state;
    uint32_t kept = 0;
    for (uint32_t at = 0; at < st->rpc_len;) {
        const uint32_t size = 3 + (st->rpc_queue[at + 1] | (uint32_t)st->rpc_queue[at + 2] << 8);
        if (st->rpc_queue[at] != peer) {
            memmove(st->rpc_queue + kept, st->rpc_queue + at, size);
            kept += size;
        }
        at += size;
    }
    st->rpc_len = kept;
    st->rpc_queued[peer] = 0;
    LOG(CT_LOG_INFO, "peer %u left: %s", peer, reason);
}

static void on_created(void *user, uint32_t object)
{
    (void)user;
    network__replica_created(object);
}

/* RPC calls are checked now (a bad one disconnects its sender) and run later, within budget. */
static void on_message(void *user, uint8_t from, const uint8_t *d, uint32_t len)
{
    (void)user;
    network__state_t *st = network__m.state;
    if (d[0] != NET_RPC)
        return;
    net_rpc_call_t call;
    const char *why = NULL;
    const char *breach = NULL;
    if (len > 0xffff)
        breach = "an RPC call over 64 KB"; /* the queue keeps 16-bit lengths */
    else if (!net_rpc_decode(&st->rpc, d, len, &call, &why))
        breach = why;
    else if (st->rpc_queued[from] + len > CT_NETWORK_RPC_QUEUE)
        breach = "more than 64 KB of RPC calls waiting";
    else if (!net_grow(network__m.a, (void **)&st->rpc_queue, &st->rpc_cap, st->rpc_len + 3 + len,
                       1, UINT32_MAX / 2))
        breach = "out of memory queueing an RPC call";
    if (breach) {
        const int16_t conn = st->session.conn_of_id[from];
        char who[64] = "?";
        if (conn >= 0 && net_node_peer(&st->session.node, (uint32_t)conn))
            net_addr_format(&st->session.node.peers[conn]->addr, who, sizeof who);
        LOG(CT_LOG_WARNING, "peer %u at %s broke the RPC protocol: %s; disconnected", from, who,
            breach);
        st->session.node.stats.breaches++;
        if (conn >= 0)
            net_node_disconnect(&st->session.node, (uint32_t)conn, breach);
        return;
    }
    uint8_t *q = st->rpc_queue + st->rpc_len;
    q[0] = from;
    q[1] = (uint8_t)len;
    q[2] = (uint8_t)(len >> 8);
    memcpy(q + 3, d, len);
    st->rpc_len += 3 + len;
    st->rpc_queued[from] += len;
}

int network__start(const ct_network_desc_t *desc)
{
    network__state_t *st = network__m.state;
    if (st->running) {
        LOG(CT_LOG_ERROR, "start: a session runs already (on port %u)", st->port);
        return CT_ERR_CONFLICT;
    }
    net_addr_t bind, host = {0};
    if (!net_addr_parse(desc->bind ? desc->bind : "127.0.0.1", desc->port, &bind)) {
        LOG(CT_LOG_ERROR, "start: bind address '%s' is not an IP address", desc->bind);
        return CT_ERR_INVALID;
    }
    if (!desc->host && (!desc->join || !net_addr_parse(desc->join, 0, &host) || !host.port)) {
        LOG(CT_LOG_ERROR, "start: join wants the host's \"ip:port\", not '%s'",
            desc->join ? desc->join : "(nothing)");
        return CT_ERR_INVALID;
    }
    if (desc->mode > CT_NETWORK_CLIENT_SERVER || desc->tick_hz > 1000 || desc->max_peers > 255) {
        LOG(CT_LOG_ERROR, "start: mode %u, tick_hz %u or max_peers %u out of range", desc->mode,
            desc->tick_hz, desc->max_peers);
        return CT_ERR_INVALID;
    }
    /* The log's path follows the host's output rules (api/ct_host.h): a script, sandboxed or
     * not, cannot make the engine create or truncate a file anywhere else. */
    char log_path[1024], why[256];
    if (desc->traffic_log) {
        const int bad = network__m.host->output_path(desc->traffic_log, log_path, sizeof log_path,
                                                     why, sizeof why);
        if (bad) {
            LOG(CT_LOG_ERROR, "start: traffic_log: %s", why);
            return bad;
        }
        if (!(st->traffic = net_log_create(log_path))) {
            LOG(CT_LOG_ERROR, "start: cannot write the traffic log '%s'", log_path);
            return CT_ERR_IO;
        }
    }
    int err = net_udp_open(&st->udp, network__m.a, &bind, NULL, &st->port);
    if (err) {
        char where[64];
        net_addr_format(&bind, where, sizeof where);
        LOG(CT_LOG_ERROR, "start: cannot open a UDP socket on %s (taken?)", where);
        if (st->traffic)
            fclose(st->traffic);
        st->traffic = NULL;
        return err;
    }
    if (desc->key)
        memcpy(st->key, desc->key, sizeof st->key);
    const char *env = getenv("CUTTLE_NO_TIMEOUTS");
    if (env && *env && strcmp(env, "0"))
        st->timeouts_off = true;
    const net_session_desc_t sd = {
        .node = {.a = network__m.a,
                 .max_peers = desc->max_peers,
                 .key = desc->key ? st->key : NULL,
                 .no_timeouts = st->timeouts_off,
                 .send = net_udp_send,
                 .send_user = st->udp,
                 .ev = {.log = on_log, .traffic = on_traffic}},
        .mode = desc->mode,
        .host = desc->host,
        .max_objects = desc->max_objects,
        .tick_hz = desc->tick_hz,
        .ev = {.left = on_left, .created = on_created, .message = on_message},
    };
    err = net_session_init(&st->session, &sd);
    if (!err && !desc->host)
        err = net_session_join(&st->session, &host, net_udp_now());
    if (err) {
        net_session_free(&st->session);
        net_udp_close(st->udp);
        LOG(CT_LOG_ERROR, "start: %s", network__m.log->error_message(err));
        return err;
    }
    net_udp_set_node(st->udp, &st->session.node);
    st->world = desc->world;
    st->running = true;
    LOG(CT_LOG_INFO, "%s a %s session on port %u%s%s", desc->host ? "hosting" : "joining",
        desc->mode == CT_NETWORK_CLIENT_SERVER ? "client-server" : "peer-to-peer", st->port,
        desc->host ? "" : " via ", desc->host ? "" : desc->join);
    return 0;
}

void network__stop(void)
{
    network__state_t *st = network__m.state;
    if (!st->running)
        return;
    network__unlink_all();
    network__replicas_clear();
    for (uint32_t c = 0; c < st->session.max_conns; c++)
        net_node_disconnect(&st->session.node, c, "left the session");
    net_node_service(&st->session.node, net_udp_now());
    net_session_free(&st->session);
    net_udp_close(st->udp);
    if (st->traffic)
        fclose(st->traffic);
    st->traffic = NULL;
    st->udp = NULL;
    st->running = false;
    st->port = 0;
    st->rpc_len = 0;
    memset(st->rpc_queued, 0, sizeof st->rpc_queued);
}

/* The frame hooks' context is the module's description (ct_module.h); the state is network__m's. */
static void frame_begin(void *module, double dt)
{
    (void)module, (void)dt;
    network__state_t *st = network__m.state;
    if (!st->running)
        return;
    CT_PROFILE_SCOPE("network.receive");
    net_udp_poll(st->udp, 65536);
    net_session_tick(&st->session, net_udp_now());
    network__dispatch_rpc();
    network__apply();
}

static void frame_end(void *module, double dt)
{
    (void)module, (void)dt;
    if (network__m.state->running) {
        CT_PROFILE_SCOPE("network.gather");
        network__gather();
    }
}

/* ---- ct.network v1 ------------------------------------------------------------------------ */

static uint16_t api_port(void) { return network__m.state->port; }

static uint8_t api_peer_id(void)
{
    return network__m.state->running ? network__m.state->session.my_id : 0;
}

static void api_set_timeouts(bool enabled)
{
    network__m.state->timeouts_off = !enabled;
    if (network__m.state->running)
        network__m.state->session.node.d.no_timeouts = !enabled;
}

ct_network_stats_t network__stats(void)
{
    const network__state_t *st = network__m.state;
    ct_network_stats_t out = {0};
    if (!st->running)
        return out;
    const net_node_stats_t *n = &st->session.node.stats;
    const net_session_stats_t *r = &st->session.stats;
    out = (ct_network_stats_t){
        .datagrams_in = n->datagrams_in,
        .datagrams_out = n->datagrams_out,
        .bytes_in = n->bytes_in,
        .bytes_out = n->bytes_out,
        .dropped = n->dropped_malformed + n->dropped_unknown + n->dropped_auth,
        .breaches = n->breaches,
        .updates_applied = r->updates_applied,
        .stale_ignored = r->stale_updates + r->stale_creates + r->stale_migrations,
    };
    for (uint32_t id = 1; id < 256; id++)
        out.peers += st->session.conn_of_id[id] >= 0;
    for (uint32_t i = 0; i < st->session.max_objects; i++)
        out.objects += st->session.objects[i].live;
    return out;
}

static const ct_network_api_v1 api_v1 = {
    .start = network__start,
    .stop = network__stop,
    .port = api_port,
    .peer_id = api_peer_id,
    .replicate = network__replicate,
    .migrate = network__migrate,
    .owner = network__owner,
    .set_timeouts = api_set_timeouts,
    .stats = network__stats,
};

/* ---- plugin ------------------------------------------------------------------------------- */

static int start(void)
{
    const int err = network__register_component();
    if (err < 0)
        return err;
    network__register_lua();
    return 0;
}

static void stop(void)
{
    network__stop();
    network__unregister_component();
    network__state_t *st = network__m.state;
    ct_free(network__m.a, st->rpc_queue, st->rpc_cap);
    network__replicas_free();
}

/* Points every callback the old code had registered for the running session (libuv's, the
 * node's, the session's), the component's and Lua's at this code. */
static int rebind(void)
{
    network__state_t *st = network__m.state;
    if (st->running) {
        st->session.node.d.send = net_udp_send;
        st->session.node.d.ev.log = on_log;
        st->session.node.d.ev.traffic = on_traffic;
        st->session.ev.left = on_left;
        st->session.ev.created = on_created;
        st->session.ev.message = on_message;
        net_session_rebind(&st->session);
        net_udp_rebind(st->udp);
    }
    network__register_lua();
    return network__rebind_component() ? 0 : CT_ERR_VERSION;
}

static const ct_api_ref_t provides[] = {
    CT_API_PROVIDE("ct.network", 1, ct_network_api_v1),
};

static const ct_module_api_t apis[] = {
    CT_MODULE_API(entity, 2, &network__m.entity),
    CT_MODULE_API(component, 1, &network__m.component),
    CT_MODULE_API(transform, 2, &network__m.transform),
    CT_MODULE_API(log, 1, &network__m.log),
    CT_MODULE_API(memory, 1, &network__m.memory),
    CT_MODULE_API(lua, 1, &network__m.lua),
    CT_MODULE_API(resource, 6, &network__m.resource),
    CT_MODULE_API(data, 1, &network__m.data),
    CT_MODULE_API(host, 2, &network__m.host), /* v2: output_path */
    CT_MODULE_API_OPTIONAL(profiler, 1, &network__m.profiler),
};

/* The state holds the running session (its sockets, connections and objects): a reload adopts
 * it when the layout is ours. */
static const ct_module_v3_t module = {
    .plugin = {CT_MODULE_V3_HOOKS, .name = "ct.networking", .version = {1, 0, 0, 0},
               .provides = provides, .num_provides = CT_ARRAY_COUNT(provides),
               .frame_begin = frame_begin, .frame_end = frame_end},
    .apis = apis,
    .num_apis = CT_ARRAY_COUNT(apis),
    .module = {.self = &network__m.self,
               .allocator = &network__m.a,
               .state = &network__m.state,
               .state_size = sizeof(network__state_t),
               .layout_version = NETWORK_LAYOUT_VERSION,
               .start = start,
               .stop = stop,
               .rebind = rebind},
};

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static const ct_api_table_t tables[] = {{CT_NETWORK_API, 1, &api_v1}};
    return ct_module_v3_serve(&module, tables, CT_ARRAY_COUNT(tables), api, version);
}
