/* The editor's options, start, stop and per-frame work (editor.h). */
#include "editor/editor_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/memory.h"

const char editor__usage[] =
    "  --editor PORT LEVEL  edit LEVEL (e.g. levels/arena) in the browser at "
    "http://127.0.0.1:PORT/\n"
    "                       (0: any free port, printed); runs until a signal unless --frames\n"
    "  --editor-bind ADDR   listen on ADDR instead of 127.0.0.1 (not loopback: needs a token)\n"
    "  --editor-token T     pages must be opened with ?token=T (or CUTTLE_EDITOR_TOKEN)\n";

static struct {
    ct_allocator_t *allocator;
    bool running;
    /* Runs after the loop has read what arrived: a change is drawn at once, not at the next
     * frame (up to a frame period later), and the pages' messages read in one go share a frame. */
    uv_check_t drawer;
    bool drawer_open;
} g_ed;

static const char *const options[] = {"--editor", "--editor-bind", "--editor-token"};

bool editor__is_option(const char *option)
{
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        if (!strcmp(option, options[i]))
            return true;
    return false;
}

int editor__parse_option(editor_options_t *o, const char *option, const char *value)
{
    if (!strcmp(option, "--editor")) {
        char *end;
        long port = strtol(value, &end, 10);
        if (*end || !*value || port < 0 || port > 65535) {
            fprintf(stderr, "cuttle: --editor wants a port 0..65535, not '%s'\n", value);
            return 2;
        }
        o->port = (int)port;
        return 1;
    }
    const char **field = !strcmp(option, "--editor-bind")    ? &o->bind
                         : !strcmp(option, "--editor-token") ? &o->token
                                                             : NULL;
    if (!field)
        return 0;
    if (!*value) {
        fprintf(stderr, "cuttle: %s wants a value\n", option);
        return 2;
    }
    *field = value;
    return 1;
}

int editor__parse_argument(editor_options_t *o, const char *arg)
{
    if (o->port < 0 || o->level)
        return 0;
    o->level = arg;
    return 1;
}

int editor__check_options(const editor_options_t *o, bool has_project)
{
    if ((o->bind || o->token) && o->port < 0) {
        fprintf(stderr, "cuttle: --editor-bind and --editor-token go with --editor\n");
        return 2;
    }
    if (o->port >= 0 && (!o->level || !has_project)) {
        fprintf(stderr, "cuttle: --editor PORT wants --project DIR and a LEVEL to edit "
                        "(cuttle --project DIR --editor PORT levels/name)\n");
        return 2;
    }
    return 0;
}

bool editor__listening(void) { return g_ed.running; }

/* Sends the last frame to every page that has not had it and has nothing queued. */
static void send_pixels(void)
{
    editor_pixels_t px;
    if (editor_world__pixels(&px))
        editor_server__send_pixels(editor_world__frames(), &px);
}

/* Tells the pages a frame is in: its number, the "seq" of the last edit it shows (the pages'
 * edit-to-frame time ends at the first frame showing the edit) and its camera (picking projects
 * with it). */
static void announce_frame(void)
{
    char json[512];
    int n = snprintf(json, sizeof json, "{\"type\":\"frame\",\"n\":%llu,\"ops\":%llu,\"camera\":",
                     (unsigned long long)editor_world__frames(),
                     (unsigned long long)editor_world__frame_ops());
    int k = editor_world__camera_json(json + n, sizeof json - (size_t)n - 8);
    n += k ? k : snprintf(json + n, 8, "null");
    json[n++] = '}';
    editor_server__broadcast(json, (size_t)n, NULL);
}

/* Draws the world if something changed and hands the frame to the pages (a frame handed to the
 * frame thread is announced by frame_drawn once it is in). */
static void publish_frame(double dt)
{
    if (editor_world__frame(dt))
        announce_frame();
    send_pixels();
}

/* On the loop: a frame the frame thread drew is in. */
static void frame_drawn(void)
{
    editor_world__drawn();
    if (!g_ed.running)
        return;
    announce_frame();
    send_pixels();
}

static void on_drawer(uv_check_t *handle)
{
    (void)handle;
    if (!g_ed.running)
        return;
    /* Play's steps keep to the frame; an edit between frames is drawn now. A page that was
     * still reading the last frame gets the newest as soon as it has read it (the loop wakes
     * for the write's completion), not at the next frame. */
    if (!editor_world__playing() && editor_world__is_dirty())
        publish_frame(0);
    else
        send_pixels();
}

int editor__start(const editor_options_t *o, uv_loop_t *loop, const char *project_dir)
{
    if (o->port < 0)
        return 0;
    g_ed.allocator = memory__create(NULL, "editor");
    if (!g_ed.allocator)
        return CT_ERR_NOMEM;
    int r = editor__bind_lua();
    if (!r)
        r = editor_world__start();
    if (!r)
        r = editor_session__open(o, project_dir);
    /* The first frame is drawn before the address is printed: it is the slowest (programs
     * compiled, the level's meshes uploaded: 0.7 s for 10,000 entities on llvmpipe), and a page
     * opened at once would otherwise wait for it to be served. */
    if (!r)
        editor_world__frame_now();
    if (!r)
        r = editor_server__start(o, loop, g_ed.allocator);
    if (r) {
        editor__stop();
        return r;
    }
    g_ed.running = true;
    editor_world__start_thread(loop, frame_drawn);
    if (!uv_check_init(loop, &g_ed.drawer) && !uv_check_start(&g_ed.drawer, on_drawer))
        g_ed.drawer_open = true;
    printf("editor: http://%s:%u/ editing %s\n", o->bind ? o->bind : "127.0.0.1",
           (unsigned)editor_server__port(), o->level);
    fflush(stdout);
    return 0;
}

void editor__stop(void)
{
    if (g_ed.drawer_open)
        uv_close((uv_handle_t *)&g_ed.drawer, NULL);
    g_ed.drawer_open = false;
    editor_server__stop();
    editor_session__close();
    editor_world__stop();
    if (g_ed.allocator)
        memory__destroy(g_ed.allocator);
    g_ed.allocator = NULL;
    g_ed.running = false;
}

void editor__frame(double dt)
{
    if (g_ed.running)
        publish_frame(dt);
}
