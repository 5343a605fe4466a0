/*
 * The Lua module "Network" (see api/ct_network.h for the surface). The C functions take plain
 * arguments; a small Lua prelude wraps the ones that take option tables, because only Lua can
 * walk a table's keys: it refuses unknown keys, naming the nearest known one. RPC handlers live
 * in a Lua table; the C side calls them through one global dispatcher with values already
 * checked against the declared schema.
 */
#include "network_internal.h"

#include "../common/lua_checks.h"

#include <math.h>

#define LUA (network__m.lua)

static network__state_t *running(lua_State *L, const char *what)
{
    network__state_t *st = network__m.state;
    if (!st->running)
        LUA->error(L, "Network.%s: no session (call Network.start first)", what);
    return st;
}

/* The entity at argument idx of Network.<what> (lua_checks.h). */
static ct_entity_t arg_entity(lua_State *L, int idx, const char *what)
{
    char fn[48];
    snprintf(fn, sizeof fn, "Network.%s", what);
    return check__entity(LUA, L, idx, fn);
}

/* The world at argument 1 of Network.<what>. */
static ct_world_o *arg_world(lua_State *L, const char *what)
{
    char fn[48];
    snprintf(fn, sizeof fn, "Network.%s", what);
    return check__world(LUA, L, 1, fn, NULL);
}

static uint8_t arg_peer(lua_State *L, int idx, const char *what)
{
    char fn[48];
    snprintf(fn, sizeof fn, "Network.%s", what);
    const double id = check__number(LUA, L, idx, fn);
    if (!(id >= 0 && id <= NET_MAX_PEER_ID && id == (double)(uint8_t)id))
        LUA->error(L, "Network.%s: argument %d (%g) is not a peer id (0..254)", what, idx, id);
    return (uint8_t)id;
}

/* __start(port, host, mode, join, world, key, traffic_log, tick_hz, max_peers, max_objects) */
static int l_network_start(lua_State *L)
{
    const double port = LUA->opt_number(L, 1, 0);
    if (!(port >= 0 && port <= 65535 && port == (double)(uint16_t)port))
        return LUA->error(L, "Network.start: port %g is not 0..65535", port);
    size_t mode_len = 0, key_len = 0;
    const char *mode = LUA->to_string(L, 3, &mode_len);
    const bool client_server = mode && !strcmp(mode, "client_server");
    if (mode && !client_server && strcmp(mode, "p2p"))
        return LUA->error(L, "Network.start: mode '%s' is neither \"p2p\" nor \"client_server\"",
                          mode);
    const char *key = LUA->to_string(L, 6, &key_len);
    if (key && key_len != CT_NETWORK_KEY_BYTES)
        return LUA->error(L, "Network.start: key has %zu bytes, not %u", key_len,
                          CT_NETWORK_KEY_BYTES);
    const double tick = LUA->opt_number(L, 8, 20), peers = LUA->opt_number(L, 9, 64),
                 objects = LUA->opt_number(L, 10, 16384);
    if (!(tick >= 1 && tick <= 1000) || !(peers >= 1 && peers <= 255) ||
        !(objects >= 16 && objects <= (1 << 20)))
        return LUA->error(L, "Network.start: tick_hz (1..1000), max_peers (1..255) or max_objects "
                             "(16..1048576) out of range");
    const ct_network_desc_t d = {
        .port = (uint16_t)port,
        .host = LUA->to_boolean(L, 2),
        .mode = client_server ? CT_NETWORK_CLIENT_SERVER : CT_NETWORK_PEER_TO_PEER,
        .join = LUA->to_string(L, 4, NULL),
        .world = LUA->to_light_userdata(L, 5),
        .key = (const uint8_t *)key,
        .traffic_log = LUA->to_string(L, 7, NULL),
        .tick_hz = (uint32_t)tick,
        .max_peers = (uint32_t)peers,
        .max_objects = (uint32_t)objects,
    };
    const int err = network__start(&d);
    if (err)
        return LUA->error(L, "Network.start: %s (see the log)", network__m.log->error_message(err));
    LUA->push_number(L, network__m.state->port);
    return 1;
}

static int l_network_stop(lua_State *L)
{
    (void)L;
    network__stop();
    return 0;
}

static int l_network_port(lua_State *L)
{
    LUA->push_number(L, network__m.state->port);
    return 1;
}

static int l_network_peer_id(lua_State *L)
{
    LUA->push_number(L, network__m.state->running ? network__m.state->session.my_id : 0);
    return 1;
}

static int l_network_peers(lua_State *L)
{
    LUA->new_table(L, 8, 0);
    int n = 0;
    for (uint32_t id = 1; network__m.state->running && id < 256; id++)
        if (network__m.state->session.conn_of_id[id] >= 0) {
            LUA->push_number(L, id);
            LUA->set_index(L, -2, ++n);
        }
    return 1;
}

static int l_network_replicate(lua_State *L)
{
    running(L, "replicate");
    ct_world_o *world = arg_world(L, "replicate");
    const ct_entity_t e = arg_entity(L, 2, "replicate");
    const int err = network__replicate(world, e);
    if (err)
        return LUA->error(L, "Network.replicate: entity %u: %s", e.id,
                          network__m.log->error_message(err));
    return 0;
}

static int l_network_owner(lua_State *L)
{
    ct_world_o *world = arg_world(L, "owner");
    LUA->push_number(L, network__owner(world, arg_entity(L, 2, "owner")));
    return 1;
}

static int l_network_migrate(lua_State *L)
{
    network__state_t *st = running(L, "migrate");
    ct_world_o *world = arg_world(L, "migrate");
    const ct_entity_t e = arg_entity(L, 2, "migrate");
    const uint8_t peer = arg_peer(L, 3, "migrate");
    if (!st->session.is_host)
        return LUA->error(L, "Network.migrate: only the host migrates objects");
    const int err = network__migrate(world, e, peer);
    if (err)
        return LUA->error(L, "Network.migrate: entity %u to peer %u: %s", e.id, peer,
                          network__m.log->error_message(err));
    return 0;
}

/* Declared once per field, before start: every peer must declare the same list. */
static int l_network_declare_field(lua_State *L)
{
    network__state_t *st = network__m.state;
    size_t len;
    const char *name = LUA->check_string(L, 1, &len);
    if (network__field_index(name) >= 0)
        return 0;
    if (st->running)
        return LUA->error(L, "Network.declare_fields: declare '%s' before Network.start", name);
    if (st->num_fields == NETWORK_SCRIPT_FIELDS || len == 0 || len >= sizeof st->fields[0])
        return LUA->error(
            L, "Network.declare_fields: '%s' does not fit (at most %u names of 1..31 bytes)", name,
            NETWORK_SCRIPT_FIELDS);
    memcpy(st->fields[st->num_fields++], name, len + 1);
    return 0;
}

int network__field_index(const char *name)
{
    for (uint32_t k = 0; k < network__m.state->num_fields; k++)
        if (!strcmp(network__m.state->fields[k], name))
            return (int)k;
    return -1;
}

static uint32_t arg_object(lua_State *L, const char *what, ct_entity_t *e)
{
    running(L, what);
    ct_world_o *world = arg_world(L, what);
    *e = arg_entity(L, 2, what);
    const uint32_t object = network__object_of(world, *e);
    if (!object)
        LUA->error(L, "Network.%s: entity %u is not replicated in this world", what, e->id);
    return object;
}

static int arg_field(lua_State *L, int idx, const char *what)
{
    const char *name = LUA->check_string(L, idx, NULL);
    const int k = network__field_index(name);
    if (k < 0)
        LUA->error(L, "Network.%s: '%s' is not a declared field (Network.declare_fields)", what,
                   name);
    return k;
}

static int l_network_set_field(lua_State *L)
{
    ct_entity_t e;
    const uint32_t object = arg_object(L, "set_field", &e);
    const int k = arg_field(L, 3, "set_field");
    const double v = check__number(LUA, L, 4, "Network.set_field");
    if (!isfinite(v) || fabs(v) > 3.4e38)
        return LUA->error(L, "Network.set_field: entity %u field '%s': %g is not a finite float",
                          e.id, network__m.state->fields[k], v);
    float fields[NET_FIELDS] = {0};
    fields[NET_SCRIPT_FIELD0 + (uint32_t)k] = (float)v;
    const int err = net_object_set(&network__m.state->session, object,
                                   (uint16_t)(1u << (NET_SCRIPT_FIELD0 + (uint32_t)k)), fields);
    if (err)
        return LUA->error(L, "Network.set_field: entity %u: only its owner (peer %u) may change it",
                          e.id, network__owner(LUA->to_light_userdata(L, 1), e));
    return 0;
}

static int l_network_field(lua_State *L)
{
    ct_entity_t e;
    const uint32_t object = arg_object(L, "field", &e);
    const int k = arg_field(L, 3, "field");
    const net_object_t *o = net_object_find(&network__m.state->session, object);
    LUA->push_number(L, o ? o->fields[NET_SCRIPT_FIELD0 + (uint32_t)k] : 0);
    return 1;
}

static int l_network_set_timeouts(lua_State *L)
{
    const bool on = LUA->to_boolean(L, 1);
    network__m.state->timeouts_off = !on;
    if (network__m.state->running)
        network__m.state->session.node.d.no_timeouts = !on;
    return 0;
}

/* __set_conditions(peer, loss, burst_enter, burst_exit, duplicate, reorder, latency_ms,
 * jitter_ms, bytes_per_second, seed); peer 0 sets the node's own (for new connections). */
static int l_network_set_conditions(lua_State *L)
{
    network__state_t *st = running(L, "set_conditions");
    const uint8_t peer = arg_peer(L, 1, "set_conditions");
    double v[9];
    for (int k = 0; k < 9; k++)
        v[k] = LUA->opt_number(L, 2 + k, 0);
    for (int k = 0; k < 5; k++)
        if (!(v[k] >= 0 && v[k] <= 1))
            return LUA->error(L, "Network.set_conditions: probabilities are 0..1, not %g", v[k]);
    if (!(v[5] >= 0 && v[5] <= 10000) || !(v[6] >= 0 && v[6] <= 10000) ||
        !(v[7] >= 0 && v[7] <= 1e9))
        return LUA->error(L, "Network.set_conditions: latency and jitter are 0..10000 ms, "
                             "bandwidth 0..1e9 bytes/s");
    const net_conditions_t c = {
        v[0],          v[1], v[2], v[3], v[4], (uint32_t)(v[5] * 1000), (uint32_t)(v[6] * 1000),
        (uint32_t)v[7]};
    if (v[8] > 0)
        st->session.node.conditioner.rng = (uint64_t)v[8];
    const int conn = peer ? st->session.conn_of_id[peer] : -1;
    if (peer && conn < 0)
        return LUA->error(L, "Network.set_conditions: peer %u is not connected", peer);
    net_node_set_conditions(&st->session.node, conn, &c);
    return 0;
}

static int l_network_declare_rpc(lua_State *L)
{
    const char *name = LUA->check_string(L, 1, NULL);
    const char *spec = LUA->check_string(L, 2, NULL);
    const char *why = NULL;
    if (!net_rpc_declare(&network__m.state->rpc, name, spec, &why))
        return LUA->error(L, "Network.rpc: '%s' (\"%s\") wants %s", name, spec, why);
    return 0;
}

/* call(peer, name, ...): the values are checked against the declaration before they leave. */
static int l_network_call(lua_State *L)
{
    network__state_t *st = running(L, "call");
    const uint8_t peer = arg_peer(L, 1, "call");
    const char *name = LUA->check_string(L, 2, NULL);
    const net_rpc_schema_t *fn = net_rpc_find(&st->rpc, net_rpc_hash(name));
    if (!fn || strcmp(fn->name, name))
        return LUA->error(L, "Network.call: '%s' is not declared (Network.rpc)", name);
    const int argc = LUA->get_top(L) - 2;
    if (argc != fn->argc)
        return LUA->error(L, "Network.call: '%s' takes %u arguments, not %d", name, fn->argc, argc);
    net_rpc_value_t args[NET_RPC_MAX_ARGS];
    static const char *const type_names[] = {"", "number", "boolean", "string"};
    for (int i = 0; i < argc; i++) {
        const ct_lua_type t = LUA->type(L, 3 + i);
        net_rpc_value_t *v = &args[i];
        *v = (net_rpc_value_t){.type = fn->types[i]};
        if (v->type == NET_RPC_NUMBER && t == CT_LUA_NUMBER)
            v->number = LUA->to_number(L, 3 + i);
        else if (v->type == NET_RPC_BOOLEAN && t == CT_LUA_BOOLEAN)
            v->boolean = LUA->to_boolean(L, 3 + i);
        else if (v->type == NET_RPC_STRING && t == CT_LUA_STRING) {
            size_t len;
            v->string = (const uint8_t *)LUA->to_string(L, 3 + i, &len);
            v->len = (uint32_t)(len > UINT32_MAX ? UINT32_MAX : len);
        } else
            return LUA->error(L, "Network.call: '%s' argument %d wants a %s", name, i + 1,
                              type_names[v->type]);
    }
    uint8_t msg[NET_MTU];
    net_writer_t w = net_writer(msg, sizeof msg);
    const char *why = NULL;
    if (!net_rpc_encode(fn, args, (uint32_t)argc, &w, &why))
        return LUA->error(L, "Network.call: '%s': %s", name, why);
    const int err = net_session_send(&st->session, peer, msg, w.n, true);
    if (err)
        return LUA->error(L, "Network.call: '%s' to peer %u: %s", name, peer,
                          err == CT_ERR_NOT_FOUND ? "not connected"
                                                  : network__m.log->error_message(err));
    return 0;
}

static int l_network_stats(lua_State *L)
{
    const network__state_t *st = network__m.state;
    LUA->new_table(L, 0, 8);
    if (!st->running)
        return 1;
    const net_node_stats_t *n = &st->session.node.stats;
    const net_session_stats_t *r = &st->session.stats;
    const ct_network_stats_t all = network__stats();
    const ct_network_stats_t *net = &all;
    const struct {
        const char *k;
        double v;
    } f[] = {
        {"datagrams_in", (double)n->datagrams_in},
        {"datagrams_out", (double)n->datagrams_out},
        {"bytes_in", (double)n->bytes_in},
        {"bytes_out", (double)n->bytes_out},
        {"breaches", (double)n->breaches},
        {"updates_applied", (double)r->updates_applied},
        {"stale_ignored", (double)(r->stale_updates + r->stale_creates + r->stale_migrations)},
        {"objects", (double)net->objects},
    };
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) {
        LUA->push_number(L, f[k].v);
        LUA->set_field(L, -2, f[k].k);
    }
    return 1;
}

void network__dispatch_rpc(void)
{
    network__state_t *st = network__m.state;
    uint32_t ran[256] = {0}, kept = 0;
    lua_State *L = LUA->main_state();
    for (uint32_t at = 0; at < st->rpc_len;) {
        const uint8_t from = st->rpc_queue[at];
        const uint32_t len = st->rpc_queue[at + 1] | (uint32_t)st->rpc_queue[at + 2] << 8;
        const uint8_t *d = st->rpc_queue + at + 3;
        const uint32_t size = 3 + len;
        if (ran[from] == CT_NETWORK_RPC_BUDGET) {
            memmove(st->rpc_queue + kept, st->rpc_queue + at, size); /* waits for next frame */
            kept += size;
            at += size;
            continue;
        }
        ran[from]++;
        st->rpc_queued[from] -= len;
        net_rpc_call_t call;
        const char *why;
        /* Checked on arrival; only a declaration changed since (a reload) can refuse it now. */
        if (net_rpc_decode(&st->rpc, d, len, &call, &why)) {
            LUA->push_string(L, call.fn->name, strlen(call.fn->name));
            LUA->push_number(L, from);
            for (uint32_t i = 0; i < call.fn->argc; i++) {
                const net_rpc_value_t *v = &call.args[i];
                if (v->type == NET_RPC_NUMBER)
                    LUA->push_number(L, v->number);
                else if (v->type == NET_RPC_BOOLEAN)
                    LUA->push_boolean(L, v->boolean);
                else
                    LUA->push_string(L, (const char *)v->string, v->len);
            }
            LUA->call_global("__network_rpc", 2 + call.fn->argc);
            if (!st->running)
                return; /* the handler stopped the session: its queue is gone */
        }
        at += size;
    }
    st->rpc_len = kept;
}

/* __nearest(word, names): the kernel's nearest name to word among the list (ct.resource v3's
 * nearest_name, the one every compiler's "did you mean" uses), or nil when none is close. */
static int l_network_nearest(lua_State *L)
{
    const char *word = LUA->check_string(L, 1, NULL);
    const char *names[32];
    uint32_t n = 0;
    for (; n < 32 && LUA->get_index(L, 2, (int)n + 1) == CT_LUA_STRING; n++)
        names[n] = LUA->to_string(L, -1, NULL); /* the table keeps the string alive */
    LUA->set_top(L, 2);
    const char *near = network__m.resource->nearest_name(word, names, n);
    if (near)
        LUA->push_string(L, near, strlen(near));
    else
        LUA->push_nil(L);
    return 1;
}

/* The option tables: unknown keys are refused with the nearest known name. */
static const char prelude[] =
    "local N = Network\n"
    "local function check(what, t, known)\n"
    "  if type(t) ~= 'table' then error('Network.' .. what .. ' wants a table', 3) end\n"
    "  local set = {} for _, n in ipairs(known) do set[n] = true end\n"
    "  for k in pairs(t) do\n"
    "    if not set[k] then\n"
    "      local near = N.__nearest(tostring(k), known)\n"
    "      error(('Network.%s: unknown key %s%s'):format(what, tostring(k),\n"
    "            near and (' (did you mean %s?)'):format(near) or ''), 3)\n"
    "    end\n"
    "  end\n"
    "end\n"
    "local start_keys = {'port', 'host', 'mode', 'join', 'world', 'key', 'traffic_log', "
    "'tick_hz',\n"
    "                    'max_peers', 'max_objects'}\n"
    "function N.start(t)\n"
    "  check('start', t, start_keys)\n"
    "  return N.__start(t.port, t.host, t.mode, t.join, t.world, t.key, t.traffic_log, t.tick_hz,\n"
    "                   t.max_peers, t.max_objects)\n"
    "end\n"
    "local condition_keys = {'loss', 'burst_enter', 'burst_exit', 'duplicate', 'reorder',\n"
    "                        'latency_ms', 'jitter_ms', 'bytes_per_second', 'seed'}\n"
    "function N.set_conditions(peer, t)\n"
    "  check('set_conditions', t, condition_keys)\n"
    "  N.__set_conditions(peer, t.loss, t.burst_enter, t.burst_exit, t.duplicate, t.reorder,\n"
    "                     t.latency_ms, t.jitter_ms, t.bytes_per_second, t.seed)\n"
    "end\n"
    "function N.declare_fields(names)\n"
    "  if type(names) ~= 'table' then error('Network.declare_fields wants a list of names', 2) "
    "end\n"
    "  for _, n in ipairs(names) do N.__declare_field(n) end\n"
    "end\n"
    "N.__handlers = N.__handlers or {}\n"
    "function N.rpc(name, spec, fn)\n"
    "  if type(fn) ~= 'function' then error('Network.rpc: ' .. tostring(name) .. ' wants a "
    "function', 2) end\n"
    "  N.__declare_rpc(name, spec)\n"
    "  N.__handlers[name] = fn\n"
    "end\n"
    "function __network_rpc(name, from, ...)\n"
    "  local fn = N.__handlers[name]\n"
    "  if fn then fn(from, ...) end\n"
    "end\n";

void network__register_lua(void)
{
    static const ct_lua_reg_t fns[] = {
        {"__start", l_network_start},
        {"stop", l_network_stop},
        {"port", l_network_port},
        {"peer_id", l_network_peer_id},
        {"peers", l_network_peers},
        {"replicate", l_network_replicate},
        {"owner", l_network_owner},
        {"migrate", l_network_migrate},
        {"__declare_field", l_network_declare_field},
        {"set_field", l_network_set_field},
        {"field", l_network_field},
        {"set_timeouts", l_network_set_timeouts},
        {"__set_conditions", l_network_set_conditions},
        {"__declare_rpc", l_network_declare_rpc},
        {"call", l_network_call},
        {"stats", l_network_stats},
        {"__nearest", l_network_nearest},
    };
    LUA->register_module("Network", fns, sizeof fns / sizeof fns[0]);
    network__replicas_register_lua();
    LUA->run_string(prelude, "=networking");
}
