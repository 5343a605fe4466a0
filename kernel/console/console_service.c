/* The console's messages: scripts, commands, and the log and profiler streams. */
#include "console/console_internal.h"

#include <cJSON.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "profiler/profiler.h"
#include "resources/resources.h"

#define LOG_PENDING_MAX (256u * 1024u)

console_frames_t console__frames;

static struct {
    console_server_t *server;
    uv_check_t check;
    bool check_open;
    uint32_t profiler_clients;
    /* Log lines from any thread wait here (under `lock`) until the main thread sends them:
     * [level byte][tag NUL][text NUL]... */
    uv_mutex_t lock;
    bool lock_open;
    char pending[LOG_PENDING_MAX];
    size_t pending_size;
    uint64_t dropped;
    char sending[LOG_PENDING_MAX];
} g_svc;

static const char *const level_names[] = {"debug", "info", "warning", "error"};

void console__send_json(console_client_t *c, cJSON *o)
{
    char *json = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (json) {
        console_server__send(c, json, strlen(json));
        cJSON_free(json);
    } else {
        console_server__error(c, NULL, false, "out of memory for a reply");
    }
}

static cJSON *reply(const char *type, const console_message_t *m, bool ok)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", type);
    if (m && m->has_id)
        cJSON_AddNumberToObject(o, "id", m->id);
    cJSON_AddBoolToObject(o, "ok", ok);
    return o;
}

/* Runs under the log's lock, on any thread: copy only. */
static void log_sink(void *ctx, ct_log_level level, const char *tag, const char *text)
{
    (void)ctx;
    size_t tag_len = strlen(tag) + 1, text_len = strlen(text) + 1;
    uv_mutex_lock(&g_svc.lock);
    if (g_svc.pending_size + 1 + tag_len + text_len > LOG_PENDING_MAX) {
        g_svc.dropped++;
    } else {
        char *p = g_svc.pending + g_svc.pending_size;
        p[0] = (char)level;
        memcpy(p + 1, tag, tag_len);
        memcpy(p + 1 + tag_len, text, text_len);
        g_svc.pending_size += 1 + tag_len + text_len;
    }
    uv_mutex_unlock(&g_svc.lock);
}

static void send_log_line(ct_log_level level, const char *tag, const char *text)
{
    cJSON *o = NULL;
    console_server_t *s = g_svc.server;
    for (uint32_t i = 0; i < s->num_clients; i++) {
        console_client_t *c = s->clients[i];
        if (!c->log_subscribed || level < c->log_level || c->closing)
            continue;
        if (!o) {
            o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "type", "log");
            cJSON_AddStringToObject(o, "level", level_names[level]);
            cJSON_AddStringToObject(o, "source", tag);
            cJSON_AddItemToObject(o, "line",
                                  console__json_text(text, strlen(text))); /* valid UTF-8 */
        }
        console__send_json(c, cJSON_Duplicate(o, true));
    }
    cJSON_Delete(o);
}

void console__flush_logs(void)
{
    if (!g_svc.server)
        return;
    uv_mutex_lock(&g_svc.lock);
    size_t size = g_svc.pending_size;
    uint64_t dropped = g_svc.dropped;
    memcpy(g_svc.sending, g_svc.pending, size);
    g_svc.pending_size = 0;
    g_svc.dropped = 0;
    uv_mutex_unlock(&g_svc.lock);
    /* Sending may log (a client dropped): those lines wait for the next flush. */
    for (size_t at = 0; at < size;) {
        ct_log_level level = (ct_log_level)g_svc.sending[at];
        const char *tag = g_svc.sending + at + 1;
        const char *text = tag + strlen(tag) + 1;
        send_log_line(level, tag, text);
        at = (size_t)(text + strlen(text) + 1 - g_svc.sending);
    }
    if (dropped) {
        char text[96];
        snprintf(text, sizeof text, "%llu log lines dropped (more than %u bytes between frames)",
                 (unsigned long long)dropped, LOG_PENDING_MAX);
        send_log_line(CT_LOG_WARNING, "console", text);
    }
}

static void on_check(uv_check_t *h)
{
    (void)h;
    console__flush_logs();
}

static void profiler_sink(void *ctx, const profiler_thread_info_t *thread,
                          const profiler_scope_t *scopes, uint32_t n)
{
    (void)ctx;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", "profiler");
    cJSON_AddNumberToObject(o, "thread", thread->id);
    cJSON_AddStringToObject(o, "thread_name", thread->name);
    cJSON_AddNumberToObject(o, "dropped", (double)thread->dropped);
    cJSON *list = cJSON_AddArrayToObject(o, "scopes");
    for (uint32_t i = 0; i < n; i++) {
        cJSON *s = cJSON_CreateArray();
        cJSON_AddItemToArray(s, cJSON_CreateString(scopes[i].name));
        cJSON_AddItemToArray(s, cJSON_CreateNumber((double)scopes[i].start_ns));
        cJSON_AddItemToArray(s,
                             cJSON_CreateNumber((double)(scopes[i].end_ns - scopes[i].start_ns)));
        cJSON_AddItemToArray(s, cJSON_CreateNumber(scopes[i].core));
        cJSON_AddItemToArray(s, cJSON_CreateNumber(scopes[i].depth));
        cJSON_AddItemToArray(list, s);
    }
    char *json = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!json)
        return;
    console_server_t *srv = g_svc.server;
    for (uint32_t i = 0; i < srv->num_clients; i++)
        if (srv->clients[i]->profiler_subscribed)
            console_server__send(srv->clients[i], json, strlen(json));
    cJSON_free(json);
}

static void set_profiler_subscription(console_client_t *c, bool on)
{
    if (c->profiler_subscribed == on)
        return;
    c->profiler_subscribed = on;
    if (on && g_svc.profiler_clients++ == 0)
        profiler__add_sink(profiler_sink, NULL);
    if (!on && --g_svc.profiler_clients == 0)
        profiler__remove_sink(profiler_sink, NULL);
}

void console__client_closed(console_server_t *s, console_client_t *c)
{
    (void)s;
    set_profiler_subscription(c, false);
    c->log_subscribed = false;
    console__script_client_closed(c);
}

void console__steps_done(void)
{
    console_server_t *s = g_svc.server;
    for (uint32_t i = 0; s && i < s->num_clients; i++) {
        console_client_t *c = s->clients[i];
        if (!c->step_pending)
            continue;
        c->step_pending = false;
        cJSON *o = reply("command", NULL, true);
        if (c->step_has_id)
            cJSON_AddNumberToObject(o, "id", c->step_id);
        cJSON_AddStringToObject(o, "command", "step");
        cJSON_AddNumberToObject(o, "frame", (double)console__frames.frame);
        console__send_json(c, o);
    }
}

static void handle_command(console_client_t *c, const console_message_t *m)
{
    static const char *const names[] = {"pause", "resume", "step", "quit", "reload", "status"};
    console_frames_t *f = &console__frames;
    switch (m->command) {
    case CONSOLE_CMD_PAUSE:
        f->paused = true;
        f->step_left = 0;
        console__steps_done();
        break;
    case CONSOLE_CMD_RESUME:
        f->paused = false;
        f->step_left = 0;
        console__steps_done();
        break;
    case CONSOLE_CMD_STEP:
        /* The reply comes when the frames have run (console__steps_done). */
        f->paused = true;
        f->step_left = m->frames;
        c->step_pending = true;
        c->step_has_id = m->has_id;
        c->step_id = m->id;
        return;
    case CONSOLE_CMD_QUIT:
        f->quit = true;
        log__info("console: client %u (%s) asked to quit", (unsigned)c->id, c->peer);
        break;
    case CONSOLE_CMD_RELOAD: {
        int rc = resources__reload(m->resource, m->name);
        if (rc) {
            console_server__error(c, m, false,
                                  "reload of %s '%s' failed: %s (the engine's log "
                                  "says why)",
                                  m->resource, m->name, log__error_message(rc));
            return;
        }
        break;
    }
    case CONSOLE_CMD_STATUS: break;
    }
    cJSON *o = reply("command", m, true);
    cJSON_AddStringToObject(o, "command", names[m->command]);
    cJSON_AddNumberToObject(o, "frame", (double)f->frame);
    cJSON_AddBoolToObject(o, "paused", f->paused);
    cJSON_AddNumberToObject(o, "clients", g_svc.server->num_clients);
    console__send_json(c, o);
}

void console__handle(console_server_t *s, console_client_t *c, const console_message_t *m)
{
    (void)s;
    switch (m->kind) {
    case CONSOLE_MSG_SCRIPT: {
        cJSON *o = console__run_script(c, m->text, m->text_len);
        if (m->has_id)
            cJSON_AddNumberToObject(o, "id", m->id);
        console__send_json(c, o);
        return;
    }
    case CONSOLE_MSG_LOG: {
        c->log_subscribed = m->subscribe;
        c->log_level = m->level;
        cJSON *o = reply("log", m, true);
        cJSON_AddBoolToObject(o, "subscribed", m->subscribe);
        console__send_json(c, o);
        return;
    }
    case CONSOLE_MSG_PROFILER: {
        set_profiler_subscription(c, m->subscribe);
        cJSON *o = reply("profiler", m, true);
        cJSON_AddBoolToObject(o, "subscribed", m->subscribe);
        console__send_json(c, o);
        return;
    }
    case CONSOLE_MSG_COMMAND: handle_command(c, m); return;
    case CONSOLE_MSG_FILE:
        console_server__error(c, m, false,
                              "'file' messages go to a file server "
                              "(cuttle --serve-project), not an engine's console");
        return;
    case CONSOLE_MSG_AUTH: return; /* handled by the transport */
    }
}

int console__service_start(console_server_t *s)
{
    g_svc.server = s;
    memset(&console__frames, 0, sizeof console__frames);
    if (!g_svc.lock_open) {
        if (uv_mutex_init(&g_svc.lock))
            return CT_ERR_NOMEM;
        g_svc.lock_open = true;
    }
    uv_check_init(s->loop, &g_svc.check);
    uv_check_start(&g_svc.check, on_check);
    uv_unref((uv_handle_t *)&g_svc.check);
    g_svc.check_open = true;
    log__set_sink(log_sink, NULL);
    return 0;
}

void console__service_stop(void)
{
    log__set_sink(NULL, NULL);
    if (g_svc.check_open)
        uv_close((uv_handle_t *)&g_svc.check, NULL);
    g_svc.check_open = false;
    if (g_svc.profiler_clients)
        profiler__remove_sink(profiler_sink, NULL);
    g_svc.profiler_clients = 0;
    g_svc.pending_size = 0;
    g_svc.server = NULL;
}
