/*
 * The level editor's server: `cuttle --project DIR --editor PORT LEVEL` serves the editor page
 * (static files installed with the engine, tools/editor/ in the source tree) over HTTP and a
 * WebSocket on the kernel's libuv loop, and edits LEVEL (a `.level` source of the project) in
 * the running engine through the data model (api/ct_datamodel.h). The page holds no model of
 * its own: it sends operations and shows what the engine's document says.
 *
 * The transport is the console's (kernel/console/console_server.h, in its on_bytes mode): the
 * same limits per client (4 MiB queued for a page that stops reading, a request begun must end
 * within 10 s), loopback by default, another bind address only with a token (--editor-token T
 * or CUTTLE_EDITOR_TOKEN; the page then carries ?token=T, and every request without it is
 * refused with 401). At most EDITOR_MAX_CLIENTS connections.
 *
 * In editor mode the editor owns the frame: the boot script is not run; the level lives in a
 * world of the editor's own, drawn from the editor's camera after every change; Play simulates
 * its physics and Stop spawns the edited state again. Everything runs on the main thread but
 * the frame's rasterisation: with ct.render v3 the main thread prepares each frame and a thread
 * of the editor's executes it (editor_render.c), so pages are answered while a frame is drawn,
 * and the edit that caused it is broadcast before it.
 *
 * The viewport's quality: the editor caps the sun's shadow map at EDITOR_SHADOW_SIZE texels
 * (ct_render_api_v3.set_max_shadow_size). The project's pipeline is otherwise drawn as it is
 * (resolution, layers, lights, the shadow's box and softness): on llvmpipe a 2048-texel map cost
 * more than the rest of the frame, and at the viewport's 640 x 360 pixels a 1024-texel map over
 * the demo's 24 m box (2.3 cm a texel) is not told apart from it but at a shadow's very edge.
 */
#ifndef CT_KERNEL_EDITOR_H
#define CT_KERNEL_EDITOR_H

#include <uv.h>

#include "ct_types.h"

#define EDITOR_MAX_CLIENTS 128u
#define EDITOR_SHADOW_SIZE 1024u

typedef struct editor_options_t {
    int port;          /* --editor PORT; -1: no editor */
    const char *bind;  /* --editor-bind ADDR */
    const char *token; /* --editor-token T (or CUTTLE_EDITOR_TOKEN) */
    const char *level; /* the LEVEL argument: a project-relative name such as levels/arena */
    /* The engine's --modules folders, handed to cuttle-compile after a save. */
    const char *const *module_dirs;
    uint32_t num_module_dirs;
} editor_options_t;

#define EDITOR_OPTIONS_DEFAULT                                                                     \
    {                                                                                              \
        .port = -1                                                                                 \
    }

extern const char editor__usage[];

bool editor__is_option(const char *option);
/* Takes `option value` if it is one of ours: 1 (taken), 0 (not ours), 2 (usage error, reported). */
int editor__parse_option(editor_options_t *o, const char *option, const char *value);
/* Takes a bare argument (the level) when an editor is asked for: 1 taken, 0 not, 2 error. */
int editor__parse_argument(editor_options_t *o, const char *arg);
/* Checks combinations once all options are read; 0 or 2 (reported). */
int editor__check_options(const editor_options_t *o, bool has_project);

/* After boot: reads the level into a document (replaying an unsaved change log if one is left),
 * spawns it, listens (prints "editor: http://ADDR:PORT/" on stdout). 0 or a negative ct_error
 * (logged). */
int editor__start(const editor_options_t *o, uv_loop_t *loop, const char *project_dir);
/* Before shutdown: closes pages and the listener, destroys the world and the documents. */
void editor__stop(void);
bool editor__listening(void);
/* Once per frame (kernel__frame's safe point): play's simulation, a render when something
 * changed, frames to the pages. */
void editor__frame(double dt);
/* The Editor Lua module (editor_lua.c); editor__start binds it. */
int editor__bind_lua(void);

#endif
