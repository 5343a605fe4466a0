/* What the files of kernel/editor share; nothing here is API. */
#ifndef CT_KERNEL_EDITOR_INTERNAL_H
#define CT_KERNEL_EDITOR_INTERNAL_H

#include "console/console_server.h"
#include "ct_datamodel.h"
#include "editor/editor.h"
#include "editor/editor_http.h"
#include "editor/editor_message.h"
#include "editor/editor_pixels.h"
#include "editor/editor_ws.h"

/* The largest WebSocket message a page may send (a paste of a big selection). */
#define EDITOR_MAX_MESSAGE (4u << 20)

typedef struct editor_user_t editor_user_t;

/* One connection: HTTP requests until it upgrades, then WebSocket messages. */
typedef struct editor_conn_t {
    console_client_t *client;
    bool websocket;
    bool closing;
    editor_http_reader_t http;
    editor_ws_reader_t ws;
    editor_user_t *user;    /* after a good hello */
    bool pixels;            /* the page takes frames as binary messages (hello's "pixels") */
    bool hidden;            /* the page said it is hidden ("view"): no pixels until shown */
    uint64_t pixels_sent;   /* the last frame it was sent */
    uint64_t pixels_serial; /* the serial of the pixels its canvas shows (0: not patchable) */
} editor_conn_t;

/* ---- editor_server.c: HTTP, static files, WebSocket ---- */
int editor_server__start(const editor_options_t *o, uv_loop_t *loop, ct_allocator_t *allocator);
void editor_server__stop(void);
uint32_t editor_server__port(void);
/* Sends one text message to a page (ignored before the upgrade or while closing). */
void editor_server__send(editor_conn_t *c, const char *json, size_t len);
/* Sends to every page that said hello, except `except` (may be NULL). */
void editor_server__broadcast(const char *json, size_t len, const editor_conn_t *except);
/* Sends {"type":"error","error":why[,"id"]} and logs it with the page's address. */
void editor_server__error(editor_conn_t *c, const editor_message_t *m, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Closes the page's connection with a WebSocket close frame (code, reason), logged. */
void editor_server__close(editor_conn_t *c, uint32_t code, const char *why);
/* The PNG served at /frame.png from now on (copied). */
void editor_server__set_frame(const void *png, size_t size);
/* Sends frame `frame`'s pixels to every page that takes them, is not hidden, has not had this
 * frame and has nothing queued (a page still reading gets the newest frame once it has read the
 * rest: called every frame), one binary message each (editor_pixels.h: the rectangle that
 * changed to a page that has the pixels before, else the whole frame). */
void editor_server__send_pixels(uint64_t frame, const editor_pixels_t *pixels);
/* The address of a page, for log lines ("127.0.0.1:51234"). */
const char *editor_server__peer(const editor_conn_t *c);

/* ---- editor_session.c: the documents, people, operations, undo, save ---- */
int editor_session__open(const editor_options_t *o, const char *project_dir);
void editor_session__close(void);
void editor_session__handle(editor_conn_t *c, const editor_message_t *m);
void editor_session__conn_closed(editor_conn_t *c);
/* The engine's document of the level (NULL before open). */
ct_dm_doc_o *editor_session__doc(void);
const ct_datamodel_api_v1 *editor_session__dm(void);
/* How many "ops" messages were broadcast (the last one's "seq"). */
uint64_t editor_session__ops_seq(void);

/* ---- editor_world.c: the level in a world, the camera, frames, picking, play ---- */
int editor_world__start(void);
void editor_world__stop(void);
/* Spawns the document's level again (after a structural change); 0 or a negative ct_error
 * with the compiler's message in err. */
int editor_world__respawn(ct_dm_doc_o *doc, char *err, size_t err_size);
/* A transform property of `object` changed: moves its entities (no respawn). false when the
 * object has no entities in the world (then respawn). */
bool editor_world__move(ct_dm_doc_o *doc, ct_guid_t object);
/* The entity of an object (its first copy), {0} when none. */
uint32_t editor_world__entity(ct_guid_t object);
struct ct_world_o *editor_world__world(void);
/* The camera as the page projects with it, as a JSON object written into out: eye, its
 * right/up/back axes, vertical fov (degrees). Returns its length (0 if it did not fit). */
int editor_world__camera_json(char *out, size_t size);
/* Camera moves from the page. */
void editor_world__camera(const editor_message_t *m);
/* The object under viewport point (u, v) in [0,1]^2; false when nothing is there. */
bool editor_world__pick(double u, double v, ct_guid_t *out);
void editor_world__play(bool on);
bool editor_world__playing(void);
/* Asks for a new frame (drawn once the loop has read what arrived, or at the next frame). */
void editor_world__dirty(void);
bool editor_world__is_dirty(void);
/* Renders a frame if something changed (reading its pixels when the renderer serves
 * ct.render_frame); returns whether it did. With the frame thread running (editor_render.c), the
 * frame is prepared and handed to it instead (false is returned; none is when one is being
 * drawn: the change is drawn after it) and editor_world__drawn counts it once its pixels are in. */
bool editor_world__frame(double dt);
/* Renders a frame now on this thread, whatever changed (the first one, before pages come). */
bool editor_world__frame_now(void);
/* Starts the frame thread when the renderer serves ct.render v3 (else frames stay here). */
void editor_world__start_thread(uv_loop_t *loop, void (*drawn)(void));
/* A frame handed to the thread is in: counts it. */
void editor_world__drawn(void);
/* The "seq" of the last "ops" message the last frame shows (the frame message's "ops"). */
uint64_t editor_world__frame_ops(void);
/* The last frame's pixels (editor_pixels.h); false when the renderer gives none. */
bool editor_world__pixels(editor_pixels_t *out);
/* Makes the last frame's PNG (a screenshot, only when asked: it costs more than the frame) and
 * hands it to the server's /frame.png; false when there is no frame. */
bool editor_world__png(void);
/* How many frames were published (the page's /frame.png?n=). */
uint64_t editor_world__frames(void);
uint32_t editor_world__entity_count(void);

/* ---- editor_render.c: frames executed on a thread of their own (ct_render_api_v3) ---- */
struct ct_render_api_v3;
struct ct_render_frame_api_v1;
/* Starts the thread; `drawn` runs on the loop each time a handed frame's pixels are in. */
int editor_render__start(uv_loop_t *loop, const struct ct_render_api_v3 *render,
                         const struct ct_render_frame_api_v1 *frame, void (*drawn)(void));
/* Waits for the thread (a frame being drawn is finished first) and closes it. */
void editor_render__stop(void);
bool editor_render__running(void);
/* A frame was handed over and is not in yet. */
bool editor_render__busy(void);
/* Hands the frame prepared (ct_render_api_v3.prepare) to the thread. */
void editor_render__execute(void);
/* The last frame that came in, with its serial and what changed; false when none has. */
bool editor_render__pixels(editor_pixels_t *out);

#endif
