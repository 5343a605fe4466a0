/*
 * ct_input.so: the plugin entry, the ct.input v1 table, the command-line options and the frame
 * (api/ct_input.h has the rules): at frame_begin the injected queue, then the replay or the live
 * sources, are applied in order, each event recorded when --record-input is on.
 */
#include "input_internal.h"
#include "input_layout.h"

#include "ct_array.h"
#include "ct_module.h"
#include "ct_plugin.h"
#include "ct_profiler.h"
#undef CT_PROFILER /* ct_profiler.h names its default table; this module keeps its own */
#define CT_PROFILER (input__m.profiler)

#include <errno.h>
#include <stdlib.h>
#include <string.h>

input__module input__m;

/* ---- the frame ----------------------------------------------------------------------------- */

void input__emit(const ct_input_event_t *in)
{
    input__state *s = input__m.state;
    ct_input_event_t e = *in;
    e.frame = s->core.frame;
    if (!input__apply(&s->core, &e))
        return;
    if (s->num_events == INPUT_FRAME_EVENTS) {
        /* The state above took it; only the ordered list (and so the recording) is full. */
        if (!s->dropped_warned)
            INPUT_LOG(CT_LOG_WARNING,
                      "frame %u: more than %u input events; the rest are applied but not "
                      "listed or recorded",
                      s->core.frame, INPUT_FRAME_EVENTS);
        s->dropped_warned = true;
        return;
    }
    s->events[s->num_events++] = e;
    if (s->record) {
        char line[96];
        const size_t n = input__format_event(&s->core, &e, line, sizeof line);
        if (n && (fwrite(line, 1, n, s->record) != n || fputc('\n', s->record) == EOF)) {
            INPUT_LOG(CT_LOG_ERROR, "--record-input %s: writing failed (%s); recording stops",
                      s->record_path, strerror(errno));
            fclose(s->record);
            s->record = NULL;
        }
    }
}

static void apply_replay(input__state *s)
{
    while (s->next_replay < s->num_replay && s->replay[s->next_replay].frame <= s->core.frame)
        input__emit(&s->replay[s->next_replay++].event);
    if (!s->replay_done && s->next_replay == s->num_replay) {
        INPUT_LOG(CT_LOG_INFO, "--replay-input: all %u recorded events applied by frame %u",
                  s->num_replay, s->core.frame);
        s->replay_done = true;
    }
}

static void frame_begin(void *ctx, double dt)
{
    (void)ctx, (void)dt;
    CT_PROFILE_SCOPE("input.gather");
    input__state *s = input__m.state;
    input__begin_frame(&s->core);
    s->num_events = 0;
    if (s->replaying) {
        s->queued = 0;
        apply_replay(s);
    } else {
        for (uint32_t i = 0; i < s->queued; i++)
            input__emit(&s->queue[i]);
        s->queued = 0;
        input__x11_poll(&s->x11, s->capture);
        input__gamepad_poll();
    }
    if (s->record)
        fflush(s->record);
}

/* ---- the API table ------------------------------------------------------------------------- */

static uint32_t control(const char *name)
{
    input__state *s = input__m.state;
    if (!name)
        return 0;
    const uint32_t had = s->core.num_controls;
    const uint32_t id = input__intern(&s->core, name, strlen(name));
    if (!id && had == CT_INPUT_MAX_CONTROLS && input__name_ok(name, strlen(name)))
        INPUT_LOG(CT_LOG_WARNING, "control '%s': already %u control names", name,
                  CT_INPUT_MAX_CONTROLS);
    return id;
}

static const char *control_name(uint32_t id)
{
    const input__core *c = &input__m.state->core;
    return id && id <= c->num_controls ? c->names[id] : NULL;
}

static bool in_range(uint32_t id) { return id && id <= input__m.state->core.num_controls; }
static bool down(uint32_t id) { return in_range(id) && input__m.state->core.down[id]; }
static bool pressed(uint32_t id) { return in_range(id) && input__m.state->core.pressed[id]; }
static bool released(uint32_t id) { return in_range(id) && input__m.state->core.released[id]; }
static int32_t axis(uint32_t id) { return in_range(id) ? input__m.state->core.axis[id] : 0; }
static ct_input_mouse_t mouse(void) { return input__m.state->core.mouse; }

static const ct_input_event_t *events(uint32_t *count)
{
    if (count)
        *count = input__m.state->num_events;
    return input__m.state->events;
}

static int inject(const ct_input_event_t *e)
{
    input__state *s = input__m.state;
    if (!e || e->type < CT_INPUT_DOWN || e->type > CT_INPUT_AXIS ||
        ((e->type == CT_INPUT_DOWN || e->type == CT_INPUT_UP || e->type == CT_INPUT_AXIS) &&
         !in_range(e->control)) ||
        (e->type == CT_INPUT_AXIS && (e->value < -32767 || e->value > 32767))) {
        INPUT_LOG(CT_LOG_WARNING, "inject: not an event (type %u, control %u)", e ? e->type : 0,
                  e ? e->control : 0);
        return CT_ERR_INVALID;
    }
    if (s->replaying) {
        if (!s->inject_warned)
            INPUT_LOG(CT_LOG_WARNING,
                      "inject: ignored while --replay-input plays (the recording has them)");
        s->inject_warned = true;
        return 0;
    }
    if (s->queued == INPUT_QUEUE_SIZE) {
        INPUT_LOG(CT_LOG_WARNING, "inject: %u events already wait for the next frame",
                  INPUT_QUEUE_SIZE);
        return CT_ERR_NOMEM;
    }
    s->queue[s->queued++] = *e;
    return 0;
}

static uint32_t action(const char *name) { return input__find_action(&input__m.state->core, name); }
static bool action_down(uint32_t a) { return input__action_down(&input__m.state->core, a); }
static bool action_pressed(uint32_t a) { return input__action_pressed(&input__m.state->core, a); }
static bool action_released(uint32_t a) { return input__action_released(&input__m.state->core, a); }

static uint32_t bind(const char *name, const char *const *controls, uint32_t n)
{
    char err[160];
    const uint32_t a = input__bind(&input__m.state->core, name, controls, n, err, sizeof err);
    if (!a)
        INPUT_LOG(CT_LOG_WARNING, "bind: %s", err);
    return a;
}

static int attach_x11(unsigned long window)
{
    return input__x11_attach(&input__m.state->x11, window);
}
static void detach_x11(unsigned long window) { input__x11_detach(&input__m.state->x11, window); }

static void set_capture(bool on)
{
    input__m.state->capture = on;
    input__x11_set_capture(&input__m.state->x11, on);
}

static uint32_t frame(void) { return input__m.state->core.frame; }

const ct_input_api_v1 input__api_v1 = {
    .control = control,
    .control_name = control_name,
    .down = down,
    .pressed = pressed,
    .released = released,
    .axis = axis,
    .mouse = mouse,
    .events = events,
    .inject = inject,
    .action = action,
    .action_down = action_down,
    .action_pressed = action_pressed,
    .action_released = action_released,
    .bind = bind,
    .use_bindings = input__use_bindings,
    .attach_x11 = attach_x11,
    .detach_x11 = detach_x11,
    .set_capture = set_capture,
    .frame = frame,
};

/* ---- options ------------------------------------------------------------------------------- */

static bool replay_push(void *ud, const input__parsed *p)
{
    (void)ud;
    input__state *s = input__m.state;
    /* A replay holds at most 2^24 events (a recording of days): a file past it is refused. */
    if (s->num_replay == (1u << 24) || !ct_array_reserve_of(input__m.allocator, &s->replay,
                                                            &s->cap_replay, s->num_replay + 1, 256))
        return false;
    s->replay[s->num_replay++] = *p;
    return true;
}

/* Reads the whole file into memory (the allocator's, len + 1 bytes), or NULL with errno set. */
static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    char *text = n >= 0 && n <= (256l << 20) && fseek(f, 0, SEEK_SET) == 0
                     ? ct_alloc(input__m.allocator, (size_t)n + 1)
                     : NULL;
    if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
        ct_free(input__m.allocator, text, (size_t)n + 1);
        text = NULL;
    }
    fclose(f);
    if (!text) {
        errno = n > (256l << 20) ? EFBIG : EIO;
        return NULL;
    }
    *len = (size_t)n;
    return text;
}

static int open_replay(const char *path)
{
    input__state *s = input__m.state;
    size_t len = 0;
    char *text = read_file(path, &len);
    if (!text) {
        INPUT_LOG(CT_LOG_ERROR, "--replay-input %s: %s", path, strerror(errno));
        return CT_ERR_IO;
    }
    char err[192];
    const int r = input__parse_recording(&s->core, text, len, replay_push, NULL, err, sizeof err);
    ct_free(input__m.allocator, text, len + 1);
    if (r) {
        INPUT_LOG(CT_LOG_ERROR, "--replay-input %s: %s", path, err);
        return r;
    }
    s->replaying = true;
    INPUT_LOG(CT_LOG_INFO,
              "--replay-input %s: %u events; the window, the gamepad and injected events are "
              "ignored",
              path, s->num_replay);
    return 0;
}

static int read_options(void)
{
    input__state *s = input__m.state;
    const ct_host_api_v1 *host = input__m.host;
    const char *replay = host ? host->option("replay-input") : NULL;
    const char *record = host ? host->option("record-input") : NULL;
    const char *gamepad = host ? host->option("gamepad") : NULL;
    if ((replay && !replay[0]) || (record && !record[0]) || (gamepad && !gamepad[0])) {
        INPUT_LOG(CT_LOG_ERROR, "--%s wants a file",
                  replay && !replay[0]   ? "replay-input"
                  : record && !record[0] ? "record-input"
                                         : "gamepad");
        return CT_ERR_INVALID;
    }
    if (record) {
        if (strlen(record) >= sizeof s->record_path || !(s->record = fopen(record, "w"))) {
            INPUT_LOG(CT_LOG_ERROR, "--record-input %s: %s", record,
                      strlen(record) >= sizeof s->record_path ? "path too long" : strerror(errno));
            return CT_ERR_IO;
        }
        snprintf(s->record_path, sizeof s->record_path, "%s", record);
        fputs(INPUT_RECORD_HEADER "\n", s->record);
    }
    if (replay) {
        const int r = open_replay(replay);
        if (r)
            return r;
    }
    input__gamepad_open(gamepad);
    return 0;
}

/* ---- plugin -------------------------------------------------------------------------------- */

static void release_state(void)
{
    input__state *s = input__m.state;
    input__gamepad_close();
    input__x11_detach(&s->x11, s->x11.window);
    if (s->record)
        fclose(s->record);
    s->record = NULL;
    ct_free(input__m.allocator, s->replay, (size_t)s->cap_replay * sizeof *s->replay);
    s->replay = NULL;
}

static int start(void)
{
    input__m.state->gamepad_fd = -1;
    int err = read_options();
    if (!err)
        err = input__register_resources();
    if (err) {
        release_state();
        return err;
    }
    input__register_lua();
    return 0;
}

static void stop(void)
{
    input__unregister_resources();
    release_state();
}

static int rebind(void)
{
    input__register_lua();
    return input__rebind_resources();
}

static const ct_api_ref_t provides[] = {
    CT_API_PROVIDE("ct.input", 1, ct_input_api_v1),
};

/* Each API with the slot it fills, whose type the compiler checks. */
static const ct_module_api_t apis[] = {
    CT_MODULE_API(log, 1, &input__m.log),
    CT_MODULE_API_NO_SLOT(memory, 1),
    CT_MODULE_API(lua, 1, &input__m.lua),
    CT_MODULE_API(data, 1, &input__m.data),
    CT_MODULE_API(resource, 4, &input__m.resource),
    CT_MODULE_API_OPTIONAL(host, 1, &input__m.host),
    CT_MODULE_API_OPTIONAL(profiler, 1, &input__m.profiler),
};

static const ct_module_v3_t module = {
    .plugin = {CT_MODULE_V3_HOOKS, .name = "ct.input", .version = {1, 0, 0, 0},
               .provides = provides, .num_provides = CT_ARRAY_COUNT(provides),
               .frame_begin = frame_begin},
    .apis = apis,
    .num_apis = CT_ARRAY_COUNT(apis),
    .module = {.self = &input__m.self,
               .allocator = &input__m.allocator,
               .state = &input__m.state,
               .state_size = sizeof(input__state),
               .layout_version = INPUT_LAYOUT_VERSION,
               .start = start,
               .stop = stop,
               .rebind = rebind},
};

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    static const ct_api_table_t tables[] = {{CT_INPUT_API, 1, &input__api_v1}};
    return ct_module_v3_serve(&module, tables, CT_ARRAY_COUNT(tables), api, version);
}
