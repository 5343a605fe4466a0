/*
 * cuttle-run SCENARIO.lua: the seed post's scripted multi-node test in our stack. A scenario is
 * Lua (LuaJIT) run by this small host; it starts engines on this machine, each on its own
 * loopback console port, talks to them through their consoles, waits for conditions with
 * timeouts, and fails naming the node and the step. Processes are libuv children; every node's
 * stdout and stderr go to NAME.log in the run's log folder, kept when the run fails.
 *
 * The Lua side (global `Run`) is described in tools/cuttle-run/README.md.
 * Exit status: 0 passed, 1 failed, 2 usage, 77 skipped (meson's skip code).
 */
#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "console/console_client.h"

#define RUN_MAX_NODES 32
#define RUN_MAX_ARGS 64
#define RUN_START_TIMEOUT_MS 30000
#define RUN_DEFAULT_TIMEOUT 20.0

typedef struct node_t {
    char name[64];
    uv_process_t process;
    bool spawned, exited, closed;
    int64_t exit_status;
    int term_signal;
    int port;
    char log_path[1200];
    console_conn_t conn;
    bool connected;
    double next_id;
    int logs_ref; /* Lua table of received log lines */
} node_t;

static struct {
    uv_loop_t loop;
    const char *engine;
    const char *modules;
    char log_dir[1024];
    bool keep_logs;
    char step[256];
    node_t *nodes[RUN_MAX_NODES];
    int num_nodes;
    lua_State *L;
} g_run;

static double now_s(void) { return (double)uv_hrtime() / 1e9; }

static void pump(void) { uv_run(&g_run.loop, UV_RUN_NOWAIT); }

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ---- JSON <-> Lua ---- */

static void push_json(lua_State *L, const cJSON *v, int depth)
{
    if (depth > 32 || !v || cJSON_IsNull(v)) {
        lua_pushnil(L);
    } else if (cJSON_IsBool(v)) {
        lua_pushboolean(L, cJSON_IsTrue(v));
    } else if (cJSON_IsNumber(v)) {
        lua_pushnumber(L, v->valuedouble);
    } else if (cJSON_IsString(v)) {
        lua_pushstring(L, v->valuestring);
    } else {
        lua_newtable(L);
        int i = 1;
        const cJSON *item;
        cJSON_ArrayForEach(item, v)
        {
            if (cJSON_IsArray(v))
                lua_pushinteger(L, i++);
            else
                lua_pushstring(L, item->string);
            push_json(L, item, depth + 1);
            lua_settable(L, -3);
        }
    }
}

static cJSON *to_json(lua_State *L, int index, int depth)
{
    index = index < 0 ? lua_gettop(L) + index + 1 : index;
    switch (lua_type(L, index)) {
    case LUA_TBOOLEAN: return cJSON_CreateBool(lua_toboolean(L, index));
    case LUA_TNUMBER: return cJSON_CreateNumber(lua_tonumber(L, index));
    case LUA_TSTRING: return cJSON_CreateString(lua_tostring(L, index));
    case LUA_TTABLE: {
        if (depth > 16)
            return cJSON_CreateNull();
        bool array = lua_objlen(L, index) > 0;
        cJSON *o = array ? cJSON_CreateArray() : cJSON_CreateObject();
        lua_pushnil(L);
        while (lua_next(L, index)) {
            cJSON *v = to_json(L, -1, depth + 1);
            if (array)
                cJSON_AddItemToArray(o, v);
            else
                cJSON_AddItemToObject(o, lua_tostring(L, -2) ? lua_tostring(L, -2) : "?", v);
            lua_pop(L, 1);
        }
        return o;
    }
    default: return cJSON_CreateNull();
    }
}

/* ---- nodes ---- */

static node_t *check_node(lua_State *L, int index)
{
    return *(node_t **)luaL_checkudata(L, index, "cuttle_run.node");
}

static int fail_node(lua_State *L, node_t *n, const char *fmt, const char *detail)
{
    return luaL_error(L, "node '%s': %s%s", n->name, fmt, detail ? detail : "");
}

static void on_exit_cb(uv_process_t *p, int64_t status, int signal)
{
    node_t *n = p->data;
    n->exited = true;
    n->exit_status = status;
    n->term_signal = signal;
    uv_close((uv_handle_t *)p, NULL);
}

static void describe_exit(node_t *n, char *out, size_t size)
{
    if (n->term_signal)
        snprintf(out, size, "exited, killed by signal %d", n->term_signal);
    else
        snprintf(out, size, "exited with status %lld", (long long)n->exit_status);
}

/* Reads frames on the node's connection: log lines go to its log table; returns the first other
 * frame (decoded), or NULL on timeout / close (with *closed). */
static cJSON *next_message(lua_State *L, node_t *n, int timeout_ms, bool *closed)
{
    double deadline = now_s() + timeout_ms / 1000.0;
    *closed = false;
    for (;;) {
        pump();
        uint32_t type, len;
        char *payload;
        int left = (int)((deadline - now_s()) * 1000);
        int r = console_conn__recv(&n->conn,
                                   left > 50  ? 50
                                   : left < 0 ? 0
                                              : left,
                                   &type, &payload, &len);
        if (r < 0) {
            *closed = true;
            return NULL;
        }
        if (r == 1) {
            cJSON *o = cJSON_Parse(payload);
            free(payload);
            const cJSON *t = cJSON_GetObjectItem(o, "type");
            if (cJSON_IsString(t) && !strcmp(t->valuestring, "log") &&
                cJSON_GetObjectItem(o, "line")) {
                lua_rawgeti(L, LUA_REGISTRYINDEX, n->logs_ref);
                char line[1200];
                snprintf(line, sizeof line, "[%s] %s: %s",
                         cJSON_GetObjectItem(o, "level")->valuestring,
                         cJSON_GetObjectItem(o, "source")->valuestring,
                         cJSON_GetObjectItem(o, "line")->valuestring);
                lua_pushstring(L, line);
                lua_rawseti(L, -2, (int)lua_objlen(L, -2) + 1);
                lua_pop(L, 1);
                cJSON_Delete(o);
                continue;
            }
            if (o)
                return o;
        }
        if (now_s() >= deadline)
            return NULL;
    }
}

/* Sends a message table (an id is added) and returns the reply with that id. */
static cJSON *request(lua_State *L, node_t *n, cJSON *msg, double timeout)
{
    if (!n->connected)
        fail_node(L, n, "not connected", NULL);
    double id = ++n->next_id;
    cJSON_AddNumberToObject(msg, "id", id);
    char *json = cJSON_PrintUnformatted(msg);
    cJSON_Delete(msg);
    int rc = console_conn__send(&n->conn, json);
    cJSON_free(json);
    if (rc) {
        char why[160] = "";
        for (int i = 0; i < 50 && !n->exited; i++) { /* the exit status explains a broken pipe */
            pump();
            sleep_ms(10);
        }
        if (n->exited)
            describe_exit(n, why, sizeof why);
        fail_node(L, n, "send failed: ", why[0] ? why : n->conn.error);
    }
    double deadline = now_s() + timeout;
    for (;;) {
        bool closed;
        int left = (int)((deadline - now_s()) * 1000);
        cJSON *o = next_message(L, n, left > 0 ? left : 0, &closed);
        if (closed || (!o && now_s() >= deadline)) {
            char why[160] = "";
            pump();
            if (n->exited)
                describe_exit(n, why, sizeof why);
            fail_node(L, n, closed ? "connection lost: " : "no reply in time",
                      closed ? (why[0] ? why : n->conn.error) : NULL);
        }
        if (!o)
            continue;
        const cJSON *rid = cJSON_GetObjectItem(o, "id");
        if (cJSON_IsNumber(rid) && rid->valuedouble == id)
            return o;
        cJSON_Delete(o);
    }
}

static int l_node_script(lua_State *L)
{
    node_t *n = check_node(L, 1);
    const char *code = luaL_checkstring(L, 2);
    double timeout = luaL_optnumber(L, 3, RUN_DEFAULT_TIMEOUT);
    bool raise = lua_toboolean(L, lua_upvalueindex(1));
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "type", "script");
    cJSON_AddStringToObject(m, "script", code);
    cJSON *o = request(L, n, m, timeout);
    int top = lua_gettop(L);
    if (!cJSON_IsTrue(cJSON_GetObjectItem(o, "ok"))) {
        const cJSON *e = cJSON_GetObjectItem(o, "error");
        lua_pushstring(L, cJSON_IsString(e) ? e->valuestring : "script failed");
        cJSON_Delete(o);
        if (raise)
            return fail_node(L, n, "script failed: ", lua_tostring(L, -1));
        lua_pushboolean(L, 0);
        lua_insert(L, -2);
        return 2;
    }
    if (!raise)
        lua_pushboolean(L, 1);
    const cJSON *v;
    cJSON_ArrayForEach(v, cJSON_GetObjectItem(o, "results")) push_json(L, v, 0);
    cJSON_Delete(o);
    return lua_gettop(L) - top;
}

/* node:request{type=..., ...}: any message; returns the reply table. */
static int l_node_request(lua_State *L)
{
    node_t *n = check_node(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    cJSON *o = request(L, n, to_json(L, 2, 0), luaL_optnumber(L, 3, RUN_DEFAULT_TIMEOUT));
    push_json(L, o, 0);
    cJSON_Delete(o);
    return 1;
}

static int l_node_logs(lua_State *L)
{
    node_t *n = check_node(L, 1);
    if (n->connected && !n->exited) {
        bool closed;
        cJSON *o = next_message(L, n, 0, &closed);
        cJSON_Delete(o);
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, n->logs_ref);
    return 1;
}

static int l_node_alive(lua_State *L)
{
    node_t *n = check_node(L, 1);
    pump();
    lua_pushboolean(L, n->spawned && !n->exited);
    return 1;
}

static int l_node_kill(lua_State *L)
{
    node_t *n = check_node(L, 1);
    int sig = (int)luaL_optinteger(L, 2, SIGKILL);
    if (n->spawned && !n->exited)
        uv_process_kill(&n->process, sig);
    return 0;
}

/* node:wait_exit([timeout]): returns status, signal; raises on timeout. */
static int l_node_wait_exit(lua_State *L)
{
    node_t *n = check_node(L, 1);
    double deadline = now_s() + luaL_optnumber(L, 2, RUN_DEFAULT_TIMEOUT);
    while (!n->exited && now_s() < deadline) {
        pump();
        sleep_ms(10);
    }
    if (!n->exited)
        return fail_node(L, n, "did not exit in time", NULL);
    lua_pushinteger(L, (lua_Integer)n->exit_status);
    lua_pushinteger(L, n->term_signal);
    return 2;
}

static int l_node_index(lua_State *L)
{
    node_t *n = check_node(L, 1);
    const char *key = luaL_checkstring(L, 2);
    if (!strcmp(key, "name"))
        lua_pushstring(L, n->name);
    else if (!strcmp(key, "port"))
        lua_pushinteger(L, n->port);
    else if (!strcmp(key, "log_path"))
        lua_pushstring(L, n->log_path);
    else {
        luaL_getmetatable(L, "cuttle_run.node");
        lua_getfield(L, -1, "methods");
        lua_getfield(L, -1, key);
    }
    return 1;
}

/* Finds "console: listening on ADDR:PORT" in the node's log. */
static int find_port(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[1024];
    int port = 0;
    while (!port && fgets(line, sizeof line, f)) {
        const char *at = strstr(line, "console: listening on ");
        const char *colon = at ? strrchr(at, ':') : NULL;
        if (colon)
            port = atoi(colon + 1);
    }
    fclose(f);
    return port;
}

static void add_arg(lua_State *L, char **argv, int *argc, const char *arg)
{
    if (*argc >= RUN_MAX_ARGS - 1)
        luaL_error(L, "too many arguments for one node (at most %d)", RUN_MAX_ARGS - 2);
    argv[(*argc)++] = (char *)arg;
}

/* Run.start{name=, project=, args={...}, console=true|false} */
static int l_run_start(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_getfield(L, 1, "name");
    const char *name = luaL_checkstring(L, -1);
    if (g_run.num_nodes == RUN_MAX_NODES)
        return luaL_error(L, "too many nodes (at most %d)", RUN_MAX_NODES);
    for (const char *p = name; *p; p++)
        if (!(*p == '_' || *p == '-' || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
            return luaL_error(L, "node name '%s': use a-z, 0-9, '_' and '-'", name);
    node_t **ud = lua_newuserdata(L, sizeof *ud);
    node_t *n = calloc(1, sizeof *n);
    *ud = n;
    luaL_getmetatable(L, "cuttle_run.node");
    lua_setmetatable(L, -2);
    int self = lua_gettop(L);
    g_run.nodes[g_run.num_nodes++] = n;
    snprintf(n->name, sizeof n->name, "%s", name);
    n->conn.fd = -1;
    lua_newtable(L);
    n->logs_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    snprintf(n->log_path, sizeof n->log_path, "%s/%s.log", g_run.log_dir, name);

    char *argv[RUN_MAX_ARGS];
    int argc = 0;
    add_arg(L, argv, &argc, g_run.engine);
    add_arg(L, argv, &argc, "--modules");
    add_arg(L, argv, &argc, g_run.modules);
    lua_getfield(L, 1, "project");
    if (lua_isstring(L, -1)) {
        add_arg(L, argv, &argc, "--project");
        add_arg(L, argv, &argc, lua_tostring(L, -1));
    }
    lua_getfield(L, 1, "console");
    bool console = lua_isnil(L, -1) || lua_toboolean(L, -1);
    if (console) {
        add_arg(L, argv, &argc, "--console");
        add_arg(L, argv, &argc, "0");
    }
    lua_getfield(L, 1, "args");
    if (lua_istable(L, -1)) {
        for (int i = 1; i <= (int)lua_objlen(L, -1); i++) {
            lua_rawgeti(L, -1, i);
            add_arg(L, argv, &argc, luaL_checkstring(L, -1));
            lua_pop(L, 1); /* the string stays alive: it is in the args table */
        }
    }
    argv[argc] = NULL;

    int fd = open(n->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return luaL_error(L, "cannot write %s: %s", n->log_path, strerror(errno));
    uv_stdio_container_t stdio[3] = {
        {.flags = UV_IGNORE},
        {.flags = UV_INHERIT_FD, .data.fd = fd},
        {.flags = UV_INHERIT_FD, .data.fd = fd},
    };
    uv_process_options_t opts = {
        .exit_cb = on_exit_cb,
        .file = g_run.engine,
        .args = argv,
        .stdio = stdio,
        .stdio_count = 3,
    };
    n->process.data = n;
    int r = uv_spawn(&g_run.loop, &n->process, &opts);
    close(fd);
    if (r)
        return luaL_error(L, "node '%s': cannot start %s: %s", name, g_run.engine, uv_strerror(r));
    n->spawned = true;
    printf("cuttle-run: node '%s' started (pid %d), log %s\n", name, n->process.pid, n->log_path);
    if (!console) {
        lua_pushvalue(L, self);
        return 1;
    }
    double deadline = now_s() + RUN_START_TIMEOUT_MS / 1000.0;
    while (!(n->port = find_port(n->log_path))) {
        pump();
        if (n->exited) {
            char why[160];
            describe_exit(n, why, sizeof why);
            return luaL_error(L, "node '%s' %s before its console listened (see %s)", name, why,
                              n->log_path);
        }
        if (now_s() > deadline)
            return luaL_error(L, "node '%s': no console after %d s (see %s)", name,
                              RUN_START_TIMEOUT_MS / 1000, n->log_path);
        sleep_ms(20);
    }
    if (console_conn__open(&n->conn, "127.0.0.1", n->port, CONSOLE_MAX_PAYLOAD, 5000))
        return luaL_error(L, "node '%s': %s", name, n->conn.error);
    n->connected = true;
    uint32_t type, len;
    char *hello;
    if (console_conn__recv(&n->conn, 10000, &type, &hello, &len) != 1)
        return luaL_error(L, "node '%s': no hello on port %d", name, n->port);
    free(hello);
    cJSON *sub = cJSON_CreateObject();
    cJSON_AddStringToObject(sub, "type", "log");
    cJSON_AddBoolToObject(sub, "subscribe", true);
    cJSON_Delete(request(L, n, sub, RUN_DEFAULT_TIMEOUT));
    lua_pushvalue(L, self);
    return 1;
}

/* ---- raw connections (for testing the console's error handling) ---- */

static console_conn_t *check_conn(lua_State *L, int index)
{
    return luaL_checkudata(L, index, "cuttle_run.conn");
}

/* Run.connect(port): a raw connection; conn:recv() returns the hello first. */
static int l_run_connect(lua_State *L)
{
    int port = (int)luaL_checkinteger(L, 1);
    console_conn_t *c = lua_newuserdata(L, sizeof *c);
    memset(c, 0, sizeof *c);
    c->fd = -1;
    luaL_getmetatable(L, "cuttle_run.conn");
    lua_setmetatable(L, -2);
    if (console_conn__open(c, "127.0.0.1", port, CONSOLE_MAX_BLOB, 5000)) {
        lua_pushnil(L);
        lua_pushstring(L, c->error);
        return 2;
    }
    return 1;
}

static int l_conn_send_raw(lua_State *L)
{
    console_conn_t *c = check_conn(L, 1);
    size_t n;
    const char *bytes = luaL_checklstring(L, 2, &n);
    lua_pushboolean(L, console_conn__send_raw(c, bytes, n) == 0);
    return 1;
}

/* conn:send(table): one JSON frame. */
static int l_conn_send(lua_State *L)
{
    console_conn_t *c = check_conn(L, 1);
    cJSON *o = to_json(L, 2, 0);
    char *json = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    lua_pushboolean(L, console_conn__send(c, json) == 0);
    cJSON_free(json);
    return 1;
}

/* conn:recv([timeout]): the next message as a table; nil, "timeout" or nil, "closed: why". */
static int l_conn_recv(lua_State *L)
{
    console_conn_t *c = check_conn(L, 1);
    int ms = (int)(luaL_optnumber(L, 2, RUN_DEFAULT_TIMEOUT) * 1000);
    uint32_t type, len;
    char *payload;
    int r = console_conn__recv(c, ms, &type, &payload, &len);
    if (r != 1) {
        lua_pushnil(L);
        lua_pushfstring(L, r == 0 ? "timeout" : "closed: %s", c->error);
        return 2;
    }
    cJSON *o = cJSON_ParseWithLength(payload, len);
    free(payload);
    push_json(L, o, 0);
    cJSON_Delete(o);
    return 1;
}

static int l_conn_close(lua_State *L)
{
    console_conn__close(check_conn(L, 1));
    return 0;
}

/* ---- the rest of Run ---- */

static int l_run_step(lua_State *L)
{
    snprintf(g_run.step, sizeof g_run.step, "%s", luaL_checkstring(L, 1));
    printf("cuttle-run: step '%s'\n", g_run.step);
    return 0;
}

/* Sleeps while the children's exits are noticed. */
static void idle(double seconds)
{
    double deadline = now_s() + seconds;
    while (now_s() < deadline) {
        pump();
        sleep_ms(10);
    }
}

static int l_run_sleep(lua_State *L)
{
    double s = luaL_checknumber(L, 1);
    idle(s > 60 ? 60 : s);
    return 0;
}

/* Run.wait(timeout, fn, what): calls fn until it returns true; raises "timed out ... what". */
static int l_run_wait(lua_State *L)
{
    double timeout = luaL_checknumber(L, 1);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    const char *what = luaL_optstring(L, 3, "a condition");
    double deadline = now_s() + timeout;
    for (;;) {
        lua_pushvalue(L, 2);
        lua_call(L, 0, 1);
        if (lua_toboolean(L, -1))
            return 1;
        lua_pop(L, 1);
        if (now_s() > deadline)
            return luaL_error(L, "timed out after %.1f s waiting for %s", timeout, what);
        idle(0.05);
    }
}

static int l_run_skip(lua_State *L)
{
    printf("SKIP: %s\n", luaL_checkstring(L, 1));
    fflush(stdout);
    lua_pushstring(L, "__cuttle_run_skip__");
    return lua_error(L);
}

/* Run.capture(args...): runs the engine with these arguments (no console) and returns its exit
 * status and output (stdout and stderr). */
static int l_run_capture(lua_State *L)
{
    char cmd[4096];
    size_t at = (size_t)snprintf(cmd, sizeof cmd, "'%s'", g_run.engine);
    for (int i = 1; i <= lua_gettop(L); i++) {
        const char *a = luaL_checkstring(L, i);
        if (strchr(a, '\''))
            return luaL_error(L, "Run.capture: no quotes in arguments");
        at += (size_t)snprintf(cmd + at, sizeof cmd - at, " '%s'", a);
        if (at >= sizeof cmd)
            return luaL_error(L, "Run.capture: arguments too long");
    }
    snprintf(cmd + at, sizeof cmd - at, " 2>&1");
    FILE *p = popen(cmd, "r");
    if (!p)
        return luaL_error(L, "cannot run %s", g_run.engine);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        luaL_addlstring(&b, buf, n);
    int status = pclose(p);
    lua_pushinteger(L, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    luaL_pushresult(&b);
    return 2;
}

static void stop_nodes(void)
{
    for (int i = 0; i < g_run.num_nodes; i++) {
        node_t *n = g_run.nodes[i];
        if (n->connected)
            console_conn__close(&n->conn);
        if (n->spawned && !n->exited)
            uv_process_kill(&n->process, SIGTERM);
    }
    double deadline = now_s() + 10;
    for (int i = 0; i < g_run.num_nodes; i++) {
        node_t *n = g_run.nodes[i];
        while (n->spawned && !n->exited && now_s() < deadline) {
            pump();
            sleep_ms(10);
        }
        if (n->spawned && !n->exited) {
            fprintf(stderr, "cuttle-run: node '%s' ignored SIGTERM; killing it\n", n->name);
            uv_process_kill(&n->process, SIGKILL);
            for (int k = 0; k < 1000 && !n->exited; k++) {
                pump();
                sleep_ms(10);
            }
        }
    }
    pump();
}

static void remove_logs(void)
{
    for (int i = 0; i < g_run.num_nodes; i++)
        unlink(g_run.nodes[i]->log_path);
    rmdir(g_run.log_dir);
}

static int traceback(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (msg && strcmp(msg, "__cuttle_run_skip__") == 0)
        return 1;
    luaL_traceback(L, L, msg ? msg : "(error object is not a string)", 1);
    return 1;
}

static void open_run(lua_State *L)
{
    luaL_newmetatable(L, "cuttle_run.node");
    lua_pushcfunction(L, l_node_index);
    lua_setfield(L, -2, "__index");
    lua_newtable(L);
    const luaL_Reg node_methods[] = {
        {"request", l_node_request}, {"logs", l_node_logs},           {"alive", l_node_alive},
        {"kill", l_node_kill},       {"wait_exit", l_node_wait_exit}, {NULL, NULL},
    };
    luaL_register(L, NULL, node_methods);
    lua_pushboolean(L, 1);
    lua_pushcclosure(L, l_node_script, 1);
    lua_setfield(L, -2, "script");
    lua_pushboolean(L, 0);
    lua_pushcclosure(L, l_node_script, 1);
    lua_setfield(L, -2, "try_script");
    lua_setfield(L, -2, "methods");
    lua_pop(L, 1);

    luaL_newmetatable(L, "cuttle_run.conn");
    lua_newtable(L);
    const luaL_Reg conn_methods[] = {
        {"send_raw", l_conn_send_raw}, {"send", l_conn_send}, {"recv", l_conn_recv},
        {"close", l_conn_close},       {NULL, NULL},
    };
    luaL_register(L, NULL, conn_methods);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, l_conn_close);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);

    const luaL_Reg run[] = {
        {"start", l_run_start},     {"connect", l_run_connect},
        {"step", l_run_step},       {"sleep", l_run_sleep},
        {"wait", l_run_wait},       {"skip", l_run_skip},
        {"capture", l_run_capture}, {NULL, NULL},
    };
    luaL_register(L, "Run", run);
    lua_pushstring(L, g_run.engine);
    lua_setfield(L, -2, "engine");
    lua_pushstring(L, g_run.modules);
    lua_setfield(L, -2, "modules");
    lua_pushstring(L, g_run.log_dir);
    lua_setfield(L, -2, "log_dir");
    lua_pop(L, 1);
}

static const char usage[] =
    "usage: cuttle-run [options] SCENARIO.lua [ARGS...]\n"
    "  --engine PATH    the cuttle program (default: $CUTTLE_ENGINE)\n"
    "  --modules DIR    the modules folder passed to every node (default: $CUTTLE_MODULES)\n"
    "  --logs DIR       keep node logs in DIR (default: a fresh folder under /tmp, removed when\n"
    "                   the run passes, kept when it fails)\n"
    "The scenario's extra ARGS are in the Lua table `arg`.\n";

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    signal(SIGPIPE, SIG_IGN);
    g_run.engine = getenv("CUTTLE_ENGINE");
    g_run.modules = getenv("CUTTLE_MODULES");
    const char *logs = NULL;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (i + 1 < argc && !strcmp(argv[i], "--engine"))
            g_run.engine = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--modules"))
            g_run.modules = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--logs"))
            logs = argv[++i];
        else {
            fputs(usage, argv[i][1] == 'h' || !strcmp(argv[i], "--help") ? stdout : stderr);
            return strcmp(argv[i], "--help") ? 2 : 0;
        }
    }
    if (i == argc || !g_run.engine || !g_run.modules) {
        fprintf(stderr, "cuttle-run: %s\n%s",
                i == argc ? "no scenario" : "say where the engine and modules are", usage);
        return 2;
    }
    const char *scenario = argv[i];
    if (logs) {
        snprintf(g_run.log_dir, sizeof g_run.log_dir, "%s", logs);
        mkdir(logs, 0755);
        g_run.keep_logs = true;
    } else {
        snprintf(g_run.log_dir, sizeof g_run.log_dir, "/tmp/cuttle-run-XXXXXX");
        if (!mkdtemp(g_run.log_dir)) {
            fprintf(stderr, "cuttle-run: cannot make a log folder: %s\n", strerror(errno));
            return 1;
        }
    }
    uv_loop_init(&g_run.loop);
    lua_State *L = luaL_newstate();
    g_run.L = L;
    luaL_openlibs(L);
    open_run(L);
    lua_newtable(L);
    for (int k = i + 1; k < argc; k++) {
        lua_pushstring(L, argv[k]);
        lua_rawseti(L, -2, k - i);
    }
    lua_setglobal(L, "arg");
    snprintf(g_run.step, sizeof g_run.step, "(before the first step)");

    lua_pushcfunction(L, traceback);
    int status = luaL_loadfile(L, scenario);
    if (status == 0)
        status = lua_pcall(L, 0, 0, -2);
    int exit_code = 0;
    if (status) {
        const char *msg = lua_tostring(L, -1);
        if (msg && !strcmp(msg, "__cuttle_run_skip__")) {
            exit_code = 77;
        } else {
            fprintf(stderr, "cuttle-run: FAILED in step '%s': %s\n", g_run.step, msg ? msg : "?");
            exit_code = 1;
        }
    }
    stop_nodes();
    lua_close(L);
    if (exit_code == 1) {
        fprintf(stderr, "cuttle-run: every node's log is kept in %s\n", g_run.log_dir);
    } else if (!g_run.keep_logs) {
        remove_logs();
    }
    if (!exit_code)
        printf("cuttle-run: %s passed (%d nodes)\n", scenario, g_run.num_nodes);
    for (int k = 0; k < g_run.num_nodes; k++)
        free(g_run.nodes[k]);
    uv_loop_close(&g_run.loop);
    return exit_code;
}
