/*
 * What a page may send the editor over its WebSocket: one JSON object per text message, its
 * "type" saying what it is. Every field is checked; an unknown field or type is refused naming
 * the nearest known one. "id" (a number) is optional everywhere and echoed in the reply.
 *
 *   {"type":"hello", "user":"alice", "session":"hex"?, "pixels":true?}   first message;
 *                                                 "session" resumes a person's session (their
 *                                                 undo) after a reconnect; "pixels" asks for
 *                                                 frames as binary messages (else /frame.png)
 *   {"type":"ops", "ops":[OP...], "commit":true?}  operations of the data model (at most
 *                                                 EDITOR_MAX_OPS); "commit" ends the user action
 *   {"type":"commit"}                              ends the user action (a drag's release)
 *   {"type":"undo"} {"type":"redo"}
 *   {"type":"copy", "objects":["hex"...]}         replies {"type":"clipboard","text":...}
 *   {"type":"paste", "text":"...", "parent":"hex"?}
 *   {"type":"duplicate", "objects":["hex"...]}
 *   {"type":"delete", "objects":["hex"...]}       the entities and everything below them
 *   {"type":"reparent", "object":"hex", "parent":"hex"}   (parent all zeros: top level)
 *   {"type":"save"}  {"type":"play"}  {"type":"stop"}
 *   {"type":"reload"}                             reads the level's file again (after a git merge)
 *   {"type":"camera", "orbit":[dx,dy]?, "pan":[dx,dy]?, "zoom":d?, "focus":"hex"?}
 *   {"type":"pick", "x":u, "y":v}                 u, v in [0,1] across the viewport
 *   {"type":"select", "objects":["hex"...]}       shown to the other people
 *   {"type":"place", "unit":"units/crate", "position":[x,y,z]?}   the unit's entities, pasted
 *   {"type":"view", "visible":false}             the page is hidden (a background tab): it is
 *                                                 sent no frame pixels until it says true again,
 *                                                 then the newest frame at once
 *
 * OP is {"op":"create"|"destroy", "object":"hex"}, {"op":"set", "object", "key", "value",
 * "base"?}, {"op":"add"|"remove", "object", "key", "item":"hex"}. A value is one of
 * null, true/false, a number, {"vec3":[x,y,z]}, {"quat":[x,y,z,w]}, {"string":"..."},
 * {"guid":"hex"}, {"set":["hex"...]}, {"blob":"text"}. "base" is the stamp ("hlc-hex author")
 * of the value the page showed when the person edited it: a different current stamp means the
 * page's view was stale, and the edit is reported as a conflict (both values and authors).
 * GUIDs are exactly 32 hex digits.
 */
#ifndef CT_KERNEL_EDITOR_MESSAGE_H
#define CT_KERNEL_EDITOR_MESSAGE_H

#include <stddef.h>

#include "ct_datamodel.h"

#define EDITOR_MAX_OPS 4096u
#define EDITOR_MAX_OBJECTS 4096u
#define EDITOR_MAX_USER 32u

typedef enum editor_kind {
    EDITOR_MSG_HELLO,
    EDITOR_MSG_OPS,
    EDITOR_MSG_COMMIT,
    EDITOR_MSG_UNDO,
    EDITOR_MSG_REDO,
    EDITOR_MSG_COPY,
    EDITOR_MSG_PASTE,
    EDITOR_MSG_DUPLICATE,
    EDITOR_MSG_DELETE,
    EDITOR_MSG_REPARENT,
    EDITOR_MSG_SAVE,
    EDITOR_MSG_PLAY,
    EDITOR_MSG_STOP,
    EDITOR_MSG_CAMERA,
    EDITOR_MSG_PICK,
    EDITOR_MSG_SELECT,
    EDITOR_MSG_PLACE,
    EDITOR_MSG_RELOAD,
    EDITOR_MSG_VIEW,
} editor_kind;

typedef struct editor_message_t {
    editor_kind kind;
    bool has_id;
    double id;
    const char *user;    /* hello */
    const char *session; /* hello: "" when absent */
    bool pixels;         /* hello */
    /* ops: num_ops ops; strings borrow `root`, vec/quat/set members are held in the arrays below
     * (from the C heap, freed by editor_message__free). */
    ct_dm_op_t *ops;
    uint32_t num_ops;
    const char **bases;   /* per op: the "base" stamp text or NULL */
    ct_guid_t *set_items; /* all set values' members, ops point into it */
    bool commit;
    /* copy, duplicate, delete, select: objects; reparent: objects[0] is the object */
    ct_guid_t *objects;
    uint32_t num_objects;
    ct_guid_t parent; /* paste, reparent */
    bool has_parent;
    const char *text; /* paste: the clipboard; place: the unit's name */
    size_t text_len;
    double orbit[2], pan[2], zoom; /* camera; zero when absent */
    bool has_focus;
    ct_guid_t focus;
    double x, y;        /* pick */
    double position[3]; /* place; zero when absent */
    bool visible;       /* view */
    struct cJSON *root; /* owns the strings above */
} editor_message_t;

/* Parses and checks one message. Returns 0, or CT_ERR_BAD_DATA with the reason in err (and
 * nothing to free), CT_ERR_NOMEM. On success free with editor_message__free. */
int editor_message__decode(const char *json, size_t len, editor_message_t *m, char *err,
                           size_t err_size);
void editor_message__free(editor_message_t *m);

#endif
