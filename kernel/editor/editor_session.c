/*
 * The editing session: the engine's document of the level, the people editing it, their
 * operations, undo and redo, copy and paste, conflicts, the change log and save.
 *
 * One document is the truth (g_s.doc, read from the level's source). Every person has a replica
 * of it (their own document, their name as its author): a person's operations are applied to
 * their replica first, where the data model records the inverses (so undo is per person and
 * refuses to clobber another person's later change), then the stamped change set goes to the
 * truth and to every other replica as a remote change. The truth's listener turns what was
 * applied into the world's changes and the pages' updates, so a page only ever shows what the
 * engine's document says.
 *
 * Unsaved edits survive a crash: every change set applied to the truth is appended to the
 * change log (PROJECT/.editor/<level>.changes, records [u32 size][binary change set]) before it
 * is answered; the next start replays it (a torn last record is dropped, said in the log). Save
 * writes the source through the data model, compiles the project and empties the log.
 */
#include "editor/editor_internal.h"

#include <cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "ct_array.h"
#include "ct_file.h"
#include "ct_heap.h"
#include "ct_transform.h"
#include "data/text.h"
#include "kernel.h"
#include "plugins/registry.h"
#include "resources/resources.h"

#define MAX_USERS 256u

struct editor_user_t {
    char name[EDITOR_MAX_USER + 8]; /* the author of their operations (unique among sessions) */
    char session[33];
    /* Made at the person's first edit (replica_of), not at hello: a copy of a 10,000-entity
     * document costs more than the rest of opening the page, and a person who only looks never
     * needs one. Until then their undo is empty and the truth's changes need not reach it. */
    ct_dm_doc_o *replica;
    editor_conn_t *conn; /* NULL while disconnected */
};

/* A range the editor enforces on a property (as the module that reads it documents). */
typedef struct range_t {
    const char *key;
    uint32_t type;
    double min, max; /* per component for vectors; for quaternions the length */
    bool whole;      /* whole numbers only */
} range_t;

static const range_t ranges[] = {
    {"components.transform.position", CT_DM_VEC3, -1e9, 1e9, false},
    {"components.transform.scale", CT_DM_VEC3, 1e-6, 1e6, false},
    {"components.transform.rotation", CT_DM_QUAT, 1e-6, 1e6, false},
    {"repeat.count", CT_DM_DOUBLE, 1, 1e6, true},
    {"components.body.mass", CT_DM_DOUBLE, 1e-4, 1e6, false},
    {"components.body.friction", CT_DM_DOUBLE, 0, 10, false},
    {"components.body.restitution", CT_DM_DOUBLE, 0, 1, false},
    /* api/ct_physics.h: CT_PHYSICS_MIN_SIZE .. CT_PHYSICS_MAX_SIZE, and CT_PHYSICS_MAX_DAMPING. */
    {"components.body.radius", CT_DM_DOUBLE, 1e-3, 1e4, false},
    {"components.body.half_height", CT_DM_DOUBLE, 0, 1e4, false},
    {"components.body.linear_damping", CT_DM_DOUBLE, 0, 1e3, false},
    {"components.body.angular_damping", CT_DM_DOUBLE, 0, 1e3, false},
    {"components.camera.fov", CT_DM_DOUBLE, 1, 179, false},
    {"components.camera.near", CT_DM_DOUBLE, 1e-4, 1e4, false},
    {"components.camera.far", CT_DM_DOUBLE, 1e-3, 1e7, false},
    {"components.light.intensity", CT_DM_DOUBLE, 0, 1e6, false},
    {"components.light.range", CT_DM_DOUBLE, 0, 1e6, false},
    {"components.point_mass.mass", CT_DM_DOUBLE, 1e-4, 1e6, false},
};

static struct {
    const ct_datamodel_api_v1 *dm;
    ct_dm_doc_o *doc;
    ct_dm_doc_o *base; /* the file as last read or saved: what a reload compares the file with */
    uint32_t listener;
    editor_user_t *users[MAX_USERS];
    uint32_t num_users;
    char project[PATH_MAX];
    char level[256];
    char source_path[PATH_MAX];
    char log_path[PATH_MAX];
    FILE *log;
    uint32_t replayed;
    /* What the operation being handled changed, gathered by the truth's listener. */
    cJSON *out_ops;
    bool structural;
    ct_guid_t *moved;
    uint32_t num_moved, cap_moved;
    uint64_t guid_seed;
    uint64_t ops_seq; /* "ops" messages broadcast: their "seq", and a frame's "ops" */
    /* cuttle-compile after a save. */
    const char *const *module_dirs;
    uint32_t num_module_dirs;
    uv_process_t compile;
    bool compiling;
    bool compile_named; /* the running compile was told the saved file (--changed) */
} g_s;

ct_dm_doc_o *editor_session__doc(void) { return g_s.doc; }
const ct_datamodel_api_v1 *editor_session__dm(void) { return g_s.dm; }

/* ---- values and stamps as JSON ---- */

static void stamp_text(ct_dm_stamp_t s, char *out, size_t size)
{
    snprintf(out, size, "%016llx %s", (unsigned long long)s.hlc, s.author ? s.author : "");
}

static void put_guid(data_text_t *t, ct_guid_t g)
{
    char hex[36];
    hex[0] = '"';
    ct_guid_format(g, hex + 1);
    hex[33] = '"';
    data__text_put(t, hex, 34);
}

/* The welcome's snapshot of a 10,000-entity level is 150,000 values: written as text straight
 * into one buffer (data/text.h), not as a cJSON tree, which cost more to build and print than
 * everything else in opening the page. */

/* A value as the page reads it (editor_message.h): null, true/false, a number, or an object
 * {"vec3"|"quat"|"string"|"guid"|"set"|"blob": ...}. */
static void put_value(data_text_t *t, const ct_dm_value_t *v)
{
    switch (v->type) {
    case CT_DM_BOOL: data__text_puts(t, v->as.b ? "true" : "false"); return;
    case CT_DM_DOUBLE: data__text_number(t, v->as.d); return;
    case CT_DM_VEC3:
    case CT_DM_QUAT:
        data__text_puts(t, v->type == CT_DM_VEC3 ? "{\"vec3\":[" : "{\"quat\":[");
        for (int i = 0; i < (v->type == CT_DM_VEC3 ? 3 : 4); i++) {
            if (i)
                data__text_put(t, ",", 1);
            data__text_number(t, v->as.v[i]);
        }
        data__text_puts(t, "]}");
        return;
    case CT_DM_STRING:
        data__text_puts(t, "{\"string\":");
        data__text_string(t, v->as.s ? v->as.s : "", v->as.s ? strlen(v->as.s) : 0);
        data__text_puts(t, "}");
        return;
    case CT_DM_BLOB: {
        /* Level blobs hold SJSON text; anything else is shown as "(binary)". */
        bool printable = !memchr(v->as.blob, 0, v->size);
        data__text_puts(t, "{\"blob\":");
        if (printable)
            data__text_string(t, v->as.blob, v->size);
        else
            data__text_puts(t, "\"(binary)\"");
        data__text_puts(t, "}");
        return;
    }
    case CT_DM_GUID:
        data__text_puts(t, "{\"guid\":");
        put_guid(t, v->as.guid);
        data__text_puts(t, "}");
        return;
    case CT_DM_SET:
        data__text_puts(t, "{\"set\":[");
        for (uint32_t i = 0; i < v->size; i++) {
            if (i)
                data__text_put(t, ",", 1);
            put_guid(t, v->as.set[i]);
        }
        data__text_puts(t, "]}");
        return;
    default: data__text_puts(t, "null");
    }
}

/* A value as a cJSON item (printed as written by put_value). */
static cJSON *value_json(const ct_dm_value_t *v)
{
    data_text_t t = {0};
    put_value(&t, v);
    cJSON *raw = t.failed ? cJSON_CreateNull() : cJSON_CreateRaw(t.s);
    free(t.s);
    return raw;
}

static void send_json(editor_conn_t *c, cJSON *o)
{
    char *json = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (json) {
        editor_server__send(c, json, strlen(json));
        cJSON_free(json);
    }
}

static void broadcast_json(cJSON *o)
{
    char *json = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (json) {
        editor_server__broadcast(json, strlen(json), NULL);
        cJSON_free(json);
    }
}

/* An "ops" message to every page, numbered: a frame says the last number it shows. */
static void broadcast_ops(cJSON *o)
{
    cJSON_AddNumberToObject(o, "seq", (double)++g_s.ops_seq);
    broadcast_json(o);
}

uint64_t editor_session__ops_seq(void) { return g_s.ops_seq; }

static cJSON *reply(const char *type, const editor_message_t *m)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", type);
    if (m && m->has_id)
        cJSON_AddNumberToObject(o, "id", m->id);
    return o;
}

/* ---- the truth's listener: world changes and page updates ---- */

static void note_moved(ct_guid_t g)
{
    for (uint32_t i = 0; i < g_s.num_moved; i++)
        if (ct_guid_eq(g_s.moved[i], g))
            return;
    if (!ct_array_reserve_of(ct_heap_allocator(), &g_s.moved, &g_s.cap_moved, g_s.num_moved + 1,
                             64)) {
        g_s.structural = true; /* a respawn covers it */
        return;
    }
    g_s.moved[g_s.num_moved++] = g;
}

static const char *const op_names[] = {"", "create", "destroy", "set", "add", "remove"};

static void on_truth_op(void *user_data, ct_dm_doc_o *doc, const ct_dm_op_t *op,
                        ct_dm_source source)
{
    (void)user_data, (void)doc, (void)source;
    /* A pose moves the object's entities; a name is for messages only; anything else (a
     * component field, the hierarchy, the order that lays entities out) spawns the level again. */
    if (op->kind == CT_DM_OP_SET && op->key && !strncmp(op->key, "components.transform.", 21))
        note_moved(op->object);
    else if (!(op->kind == CT_DM_OP_SET && op->key && !strcmp(op->key, "name")))
        g_s.structural = true;
    if (!g_s.out_ops)
        return;
    cJSON *o = cJSON_CreateObject();
    char hex[33], at[128];
    cJSON_AddStringToObject(o, "op", op->kind <= 5 ? op_names[op->kind] : "?");
    ct_guid_format(op->object, hex);
    cJSON_AddStringToObject(o, "object", hex);
    if (op->kind >= CT_DM_OP_SET && op->key)
        cJSON_AddStringToObject(o, "key", op->key);
    if (op->kind == CT_DM_OP_SET)
        cJSON_AddItemToObject(o, "value", value_json(&op->value));
    if (op->kind >= CT_DM_OP_ADD) {
        ct_guid_format(op->item, hex);
        cJSON_AddStringToObject(o, "item", hex);
    }
    stamp_text(op->stamp, at, sizeof at);
    cJSON_AddStringToObject(o, "at", at);
    cJSON_AddItemToArray(g_s.out_ops, o);
}

/* Brings the world in step with what the listener saw; errors go to `c` (may be NULL). */
static void sync_world(editor_conn_t *c, const editor_message_t *m)
{
    bool respawn = g_s.structural;
    for (uint32_t i = 0; i < g_s.num_moved && !respawn; i++)
        if (!editor_world__move(g_s.doc, g_s.moved[i]))
            respawn = true;
    if (respawn) {
        char err[512];
        if (editor_world__respawn(g_s.doc, err, sizeof err) && c)
            editor_server__error(c, m, "%s", err);
    }
    g_s.structural = false;
    g_s.num_moved = 0;
}

/* ---- the change log ---- */

static void log_changes(const ct_dm_changeset_o *cs)
{
    if (!g_s.log)
        return;
    size_t size;
    void *bin = g_s.dm->changeset_to_binary(cs, &size);
    if (!bin)
        return;
    uint8_t head[4] = {(uint8_t)(size >> 24), (uint8_t)(size >> 16), (uint8_t)(size >> 8),
                       (uint8_t)size};
    if (fwrite(head, 1, 4, g_s.log) != 4 || fwrite(bin, 1, size, g_s.log) != size ||
        fflush(g_s.log) != 0)
        log__error("editor: cannot write the change log %s: %s (unsaved edits are not safe)",
                   g_s.log_path, strerror(errno));
    g_s.dm->free_text(bin);
}

/* Replays a change log left by a run that did not save; returns the ops applied. */
static uint32_t replay_log(void)
{
    FILE *f = fopen(g_s.log_path, "rb");
    if (!f)
        return 0;
    uint32_t records = 0, ops = 0;
    uint8_t head[4];
    while (fread(head, 1, 4, f) == 4) {
        size_t size =
            (size_t)head[0] << 24 | (size_t)head[1] << 16 | (size_t)head[2] << 8 | head[3];
        void *bin = size <= (64u << 20) ? malloc(size ? size : 1) : NULL;
        if (!bin || fread(bin, 1, size, f) != size) {
            log__warning("editor: %s: record %u is torn (the engine stopped while writing it); "
                         "it is dropped",
                         g_s.log_path, (unsigned)records);
            free(bin);
            break;
        }
        char err[256];
        ct_dm_changeset_o *cs =
            g_s.dm->changeset_from_binary(bin, size, g_s.log_path, err, sizeof err);
        free(bin);
        ct_dm_merge_report_t report;
        if (!cs || g_s.dm->apply(g_s.doc, cs, &report) != 0) {
            log__warning("editor: %s: record %u cannot be replayed: %s", g_s.log_path,
                         (unsigned)records, cs ? g_s.dm->last_error(g_s.doc) : err);
            g_s.dm->destroy_changeset(cs);
            break;
        }
        ops += report.applied;
        g_s.dm->destroy_changeset(cs);
        records++;
    }
    fclose(f);
    return ops;
}

static int open_log(bool truncate)
{
    if (g_s.log)
        fclose(g_s.log);
    g_s.log = fopen(g_s.log_path, truncate ? "wb" : "ab");
    if (!g_s.log) {
        log__error("editor: cannot open the change log %s: %s", g_s.log_path, strerror(errno));
        return CT_ERR_IO;
    }
    return 0;
}

static void scan(cJSON *out, const char *dir, const char *rel, int depth);

/* ---- people ---- */

static editor_user_t *find_session(const char *session)
{
    for (uint32_t i = 0; session[0] && i < g_s.num_users; i++)
        if (!strcmp(g_s.users[i]->session, session))
            return g_s.users[i];
    return NULL;
}

static bool name_taken(const char *name)
{
    for (uint32_t i = 0; i < g_s.num_users; i++)
        if (!strcmp(g_s.users[i]->name, name))
            return true;
    return false;
}

static editor_user_t *new_user(const char *name)
{
    if (g_s.num_users == MAX_USERS)
        return NULL;
    editor_user_t *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    snprintf(u->name, sizeof u->name, "%s", name);
    for (uint32_t k = 2; name_taken(u->name) && k < 1000; k++)
        snprintf(u->name, sizeof u->name, "%s (%u)", name, (unsigned)k);
    ct_guid_t sid = g_s.dm->new_guid(g_s.doc);
    char hex[33];
    ct_guid_format(sid, hex);
    snprintf(u->session, sizeof u->session, "%s", hex);
    g_s.users[g_s.num_users++] = u;
    return u;
}

/* The person's document, copied from the truth when they first edit; NULL (with an error to the
 * page) when it cannot be made. */
static ct_dm_doc_o *replica_of(editor_user_t *u, const editor_message_t *m)
{
    if (u->replica)
        return u->replica;
    size_t size;
    void *bin = g_s.dm->doc_to_binary(g_s.doc, &size);
    char err[256] = "";
    ct_dm_doc_desc_t desc = {.author = u->name, .guid_seed = ++g_s.guid_seed};
    u->replica = bin ? g_s.dm->doc_from_binary(bin, size, &desc, "replica", err, sizeof err) : NULL;
    g_s.dm->free_text(bin);
    if (!u->replica) {
        log__error("editor: cannot make %s's document: %s", u->name,
                   err[0] ? err : "out of memory");
        if (u->conn)
            editor_server__error(u->conn, m,
                                 "the engine cannot make your copy of the document (%s); "
                                 "nothing applied",
                                 err[0] ? err : "out of memory");
        return NULL;
    }
    g_s.dm->record(u->replica, true);
    return u->replica;
}

static bool can_undo(const editor_user_t *u) { return u->replica && g_s.dm->can_undo(u->replica); }
static bool can_redo(const editor_user_t *u) { return u->replica && g_s.dm->can_redo(u->replica); }

/* The whole document as the page needs it: [{"id":hex,"props":{key:[value,stamp]...}}...].
 * NULL when out of memory. */
static char *snapshot(void)
{
    data_text_t t = {0};
    uint32_t n = g_s.dm->num_objects(g_s.doc);
    ct_guid_t *all = malloc((size_t)(n ? n : 1) * sizeof *all);
    if (!all)
        return NULL;
    n = g_s.dm->objects(g_s.doc, all, n);
    data__text_put(&t, "[", 1);
    for (uint32_t i = 0; i < n; i++) {
        data__text_puts(&t, i ? ",{\"id\":" : "{\"id\":");
        put_guid(&t, all[i]);
        data__text_puts(&t, ",\"props\":{");
        const char *keys[256];
        uint32_t nk = g_s.dm->keys(g_s.doc, all[i], keys, 256), shown = 0;
        for (uint32_t k = 0; k < nk && k < 256; k++) {
            ct_dm_value_t v;
            ct_dm_stamp_t st = {0, NULL};
            if (g_s.dm->get(g_s.doc, all[i], keys[k], &v) != 0)
                continue;
            char at[128] = "";
            if (g_s.dm->get_stamp(g_s.doc, all[i], keys[k], &st) == 0)
                stamp_text(st, at, sizeof at);
            if (shown++)
                data__text_put(&t, ",", 1);
            data__text_string(&t, keys[k], strlen(keys[k]));
            data__text_puts(&t, ":[");
            put_value(&t, &v);
            data__text_put(&t, ",", 1);
            data__text_string(&t, at, strlen(at));
            data__text_puts(&t, "]");
        }
        data__text_puts(&t, "}}");
    }
    data__text_put(&t, "]", 1);
    free(all);
    if (t.failed) {
        free(t.s);
        return NULL;
    }
    return t.s;
}

static cJSON *ranges_json(void)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "key", ranges[i].key);
        cJSON_AddNumberToObject(r, "min", ranges[i].min);
        cJSON_AddNumberToObject(r, "max", ranges[i].max);
        cJSON_AddBoolToObject(r, "whole", ranges[i].whole);
        cJSON_AddItemToArray(a, r);
    }
    return a;
}

static void people_changed(void)
{
    cJSON *o = reply("people", NULL);
    cJSON *a = cJSON_AddArrayToObject(o, "people");
    for (uint32_t i = 0; i < g_s.num_users; i++)
        if (g_s.users[i]->conn)
            cJSON_AddItemToArray(a, cJSON_CreateString(g_s.users[i]->name));
    broadcast_json(o);
}

static void hello(editor_conn_t *c, const editor_message_t *m)
{
    if (c->user) {
        editor_server__error(c, m, "this page has already said hello (as %s)", c->user->name);
        return;
    }
    editor_user_t *u = find_session(m->session);
    if (u && u->conn) {
        /* The same person from a new page (a reload): the old page is let go. */
        editor_server__error(u->conn, NULL, "this session continues in another page");
        u->conn->user = NULL;
        u->conn = NULL;
    }
    bool resumed = u != NULL;
    if (!u)
        u = new_user(m->user);
    if (!u) {
        editor_server__error(c, m,
                             "cannot take another person (at most %u sessions, or out of memory)",
                             (unsigned)MAX_USERS);
        return;
    }
    u->conn = c;
    c->user = u;
    c->pixels = m->pixels;
    /* The new page is sent the last frame at the next frame (editor_server__send_pixels sends a
     * page every frame it has not had); only before the first frame is one drawn for it. */
    if (!editor_world__frames())
        editor_world__dirty();
    console_server__log(c->client, CT_LOG_INFO, resumed ? "session resumed" : "session started");
    cJSON *o = reply("welcome", m);
    cJSON_AddStringToObject(o, "user", u->name);
    cJSON_AddStringToObject(o, "session", u->session);
    cJSON_AddBoolToObject(o, "resumed", resumed);
    cJSON_AddStringToObject(o, "level", g_s.level);
    cJSON_AddNumberToObject(o, "recovered", g_s.replayed);
    cJSON_AddNumberToObject(o, "frame", (double)editor_world__frames());
    char camera[512];
    if (editor_world__camera_json(camera, sizeof camera))
        cJSON_AddRawToObject(o, "camera", camera);
    cJSON_AddBoolToObject(o, "playing", editor_world__playing());
    editor_pixels_t px;
    cJSON_AddBoolToObject(o, "pixels", editor_world__pixels(&px));
    cJSON_AddBoolToObject(o, "can_undo", can_undo(u));
    cJSON_AddBoolToObject(o, "can_redo", can_redo(u));
    cJSON_AddItemToObject(o, "ranges", ranges_json());
    scan(cJSON_AddObjectToObject(o, "resources"), g_s.project, "", 0);
    char *objects = snapshot();
    if (!objects) {
        cJSON_Delete(o);
        editor_server__error(c, m, "out of memory for the level's snapshot");
        return;
    }
    cJSON_AddRawToObject(o, "objects", objects);
    free(objects);
    send_json(c, o);
    people_changed();
}

/* ---- operations ---- */

/* Checks a set op against the documented ranges; false with the reason in err. */
static bool in_range(const ct_dm_op_t *op, char *err, size_t es)
{
    if (op->kind != CT_DM_OP_SET || op->value.type == CT_DM_NULL)
        return true;
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        const range_t *r = &ranges[i];
        if (strcmp(op->key, r->key) != 0)
            continue;
        if (op->value.type != r->type) {
            snprintf(err, es, "%s must be a %s, not a %s", r->key, g_s.dm->type_name(r->type),
                     g_s.dm->type_name(op->value.type));
            return false;
        }
        if (r->type == CT_DM_QUAT) {
            double len = 0;
            for (int k = 0; k < 4; k++)
                len += op->value.as.v[k] * op->value.as.v[k];
            if (!(sqrt(len) >= r->min)) {
                snprintf(err, es, "%s must not be all zeros", r->key);
                return false;
            }
            return true;
        }
        int n = r->type == CT_DM_VEC3 ? 3 : 1;
        for (int k = 0; k < n; k++) {
            double x = r->type == CT_DM_VEC3 ? op->value.as.v[k] : op->value.as.d;
            double mag = r->type == CT_DM_VEC3 && r->min > 0 ? fabs(x) : x;
            if (!(mag >= r->min && mag <= r->max) || (r->whole && x != floor(x))) {
                snprintf(err, es, "%s%s%s = %g is outside its range %s%g..%g%s", r->key,
                         n > 1 ? "." : "",
                         n > 1 ? (k == 0   ? "x"
                                  : k == 1 ? "y"
                                           : "z")
                               : "",
                         x, r->min > 0 && n > 1 ? "+-" : "", r->min, r->max,
                         r->whole ? " (whole)" : "");
                return false;
            }
        }
        return true;
    }
    return true;
}

/* Sends a person's recorded changes to the truth and everyone else; the pages get them all. */
static void publish(editor_user_t *u, const editor_message_t *m)
{
    ct_dm_changeset_o *cs = g_s.dm->take_changes(u->replica);
    if (!cs)
        return;
    if (!g_s.dm->changeset_count(cs)) {
        g_s.dm->destroy_changeset(cs);
        return;
    }
    g_s.out_ops = cJSON_CreateArray();
    ct_dm_merge_report_t report;
    int r = g_s.dm->apply(g_s.doc, cs, &report);
    cJSON *ops = g_s.out_ops;
    g_s.out_ops = NULL;
    if (r) {
        /* The replica and the truth disagree: never expected; say so loudly. */
        log__error("editor: %s's change did not apply to the engine's document: %s", u->name,
                   g_s.dm->last_error(g_s.doc));
        if (u->conn)
            editor_server__error(u->conn, m, "the engine's document refused the change: %s",
                                 g_s.dm->last_error(g_s.doc));
        cJSON_Delete(ops);
        g_s.dm->destroy_changeset(cs);
        return;
    }
    log_changes(cs);
    for (uint32_t i = 0; i < g_s.num_users; i++) {
        editor_user_t *o = g_s.users[i];
        if (o == u || !o->replica)
            continue;
        g_s.dm->apply(o->replica, cs, NULL);
        g_s.dm->destroy_changeset(g_s.dm->take_changes(o->replica)); /* not theirs to send */
    }
    g_s.dm->destroy_changeset(cs);
    /* The pages first: the world's part (a respawn may wait for the frame being drawn to let go
     * of the GL context) must not hold the other person's view of the edit. */
    cJSON *out = reply("ops", NULL);
    cJSON_AddStringToObject(out, "by", u->name);
    cJSON_AddItemToObject(out, "ops", ops);
    broadcast_ops(out);
    sync_world(u->conn, m);
}

static void send_history(editor_user_t *u, const editor_message_t *m, const char *type,
                         const ct_dm_undo_report_t *report)
{
    if (!u->conn)
        return;
    cJSON *o = reply(type, m);
    cJSON_AddBoolToObject(o, "can_undo", can_undo(u));
    cJSON_AddBoolToObject(o, "can_redo", can_redo(u));
    if (report) {
        cJSON_AddNumberToObject(o, "applied", report->applied);
        cJSON *skipped = cJSON_AddArrayToObject(o, "skipped");
        for (uint32_t i = 0; i < report->num_skipped; i++) {
            const ct_dm_skip_t *s = &report->skipped[i];
            cJSON *x = cJSON_CreateObject();
            char hex[33];
            ct_guid_format(s->object, hex);
            cJSON_AddStringToObject(x, "object", hex);
            if (s->key)
                cJSON_AddStringToObject(x, "key", s->key);
            cJSON_AddStringToObject(x, "by",
                                    s->current_stamp.author ? s->current_stamp.author : "");
            cJSON_AddStringToObject(x, "why", s->why ? s->why : "");
            cJSON_AddItemToArray(skipped, x);
        }
    }
    send_json(u->conn, o);
}

/* A page edited from a stale view: its "base" stamp is not the property's current one. Both
 * values and authors go to the pages (the later write wins, as everywhere in the model). */
typedef struct stale_t {
    ct_guid_t object;
    char key[CT_DM_MAX_KEY + 1];
    cJSON *theirs; /* the value it overwrote */
    char theirs_by[128];
} stale_t;

static uint32_t find_stale(const editor_user_t *u, const editor_message_t *m, stale_t *out,
                           uint32_t max)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->num_ops && n < max; i++) {
        const ct_dm_op_t *op = &m->ops[i];
        if (op->kind != CT_DM_OP_SET || !m->bases[i])
            continue;
        ct_dm_stamp_t s = {0, NULL};
        char now[128] = "";
        if (g_s.dm->get_stamp(g_s.doc, op->object, op->key, &s) == 0)
            stamp_text(s, now, sizeof now);
        /* Not stale: the page saw this value, or the value is this person's own (a drag sends
         * its next value before the answer to the last one arrives). */
        if (!strcmp(now, m->bases[i]) || (s.author && !strcmp(s.author, u->name)))
            continue;
        ct_dm_value_t v;
        if (g_s.dm->get(g_s.doc, op->object, op->key, &v) != 0)
            continue;
        out[n].object = op->object;
        snprintf(out[n].key, sizeof out[n].key, "%s", op->key);
        out[n].theirs = value_json(&v);
        snprintf(out[n].theirs_by, sizeof out[n].theirs_by, "%s", s.author ? s.author : "");
        n++;
    }
    return n;
}

static void report_conflicts(editor_user_t *u, stale_t *st, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        cJSON *o = reply("conflict", NULL);
        char hex[33];
        ct_guid_format(st[i].object, hex);
        cJSON_AddStringToObject(o, "object", hex);
        cJSON_AddStringToObject(o, "key", st[i].key);
        ct_dm_value_t v;
        cJSON *mine = cJSON_AddObjectToObject(o, "winner");
        if (g_s.dm->get(g_s.doc, st[i].object, st[i].key, &v) == 0)
            cJSON_AddItemToObject(mine, "value", value_json(&v));
        cJSON_AddStringToObject(mine, "by", u->name);
        cJSON *theirs = cJSON_AddObjectToObject(o, "loser");
        cJSON_AddItemToObject(theirs, "value", st[i].theirs);
        cJSON_AddStringToObject(theirs, "by", st[i].theirs_by);
        log__info("editor: conflict on %s '%s': %s's value replaces %s's, which %s had not seen",
                  hex, st[i].key, u->name, st[i].theirs_by, u->name);
        broadcast_json(o);
    }
}

typedef struct op_list_t {
    ct_dm_op_t *ops;
    uint32_t n, cap;
} op_list_t;

static bool push_op(op_list_t *l, ct_dm_op_t op)
{
    if (!ct_array_reserve_of(ct_heap_allocator(), &l->ops, &l->cap, l->n + 1, 32))
        return false;
    l->ops[l->n++] = op;
    return true;
}

/* The level mapping keeps an empty object (`transform = {}`) as a blob of its text under its own
 * key; a field set below it ("components.transform.position") replaces that blob, or the level
 * would hold the object twice. Returns the ops with those removals put first, or NULL (out of
 * memory); *n is updated. */
static ct_dm_op_t *with_blob_removals(ct_dm_doc_o *doc, const ct_dm_op_t *ops, uint32_t *n)
{
    op_list_t l = {0};
    for (uint32_t i = 0; i < *n; i++) {
        const ct_dm_op_t *op = &ops[i];
        if (op->kind == CT_DM_OP_SET && op->value.type != CT_DM_NULL && strchr(op->key, '.')) {
            char prefix[CT_DM_MAX_KEY + 1];
            snprintf(prefix, sizeof prefix, "%s", op->key);
            for (char *dot = strrchr(prefix, '.'); dot; dot = strrchr(prefix, '.')) {
                *dot = 0;
                ct_dm_value_t v;
                if (g_s.dm->get(doc, op->object, prefix, &v) == 0 && v.type == CT_DM_BLOB) {
                    /* `prefix` is a local buffer: the op takes the document's own string for
                     * that key, which lives as long as the document. */
                    const char *keys[256];
                    uint32_t nk = g_s.dm->keys(doc, op->object, keys, 256);
                    for (uint32_t k = 0; k < nk && k < 256; k++)
                        if (!strcmp(keys[k], prefix) &&
                            !push_op(&l, (ct_dm_op_t){.kind = CT_DM_OP_SET,
                                                      .object = op->object,
                                                      .key = keys[k]})) {
                            free(l.ops);
                            return NULL;
                        }
                }
            }
        }
        if (!push_op(&l, *op)) {
            free(l.ops);
            return NULL;
        }
    }
    *n = l.n;
    return l.ops;
}

static void apply_ops(editor_conn_t *c, editor_user_t *u, const editor_message_t *m,
                      const ct_dm_op_t *given, uint32_t n, bool commit)
{
    char err[512];
    if (!replica_of(u, m))
        return;
    ct_dm_op_t *ops = with_blob_removals(u->replica, given, &n);
    if (!ops) {
        editor_server__error(c, m, "out of memory for the operations; nothing applied");
        return;
    }
    for (uint32_t i = 0; i < n; i++)
        if (!in_range(&ops[i], err, sizeof err)) {
            editor_server__error(c, m, "op %u: %s; nothing applied", (unsigned)i, err);
            free(ops);
            return;
        }
    stale_t stale[8];
    uint32_t num_stale = m && m->bases ? find_stale(u, m, stale, 8) : 0;
    uint32_t failed = 0;
    if (g_s.dm->apply_ops(u->replica, ops, n, &failed) != 0) {
        for (uint32_t i = 0; i < num_stale; i++)
            cJSON_Delete(stale[i].theirs);
        editor_server__error(c, m, "op %u: %s; nothing applied", (unsigned)failed,
                             g_s.dm->last_error(u->replica));
        free(ops);
        return;
    }
    free(ops);
    if (commit)
        g_s.dm->restore_point(u->replica);
    publish(u, m);
    report_conflicts(u, stale, num_stale);
    send_history(u, m, "history", NULL);
}

/* The parent of an entity ({0} for top level) and the set it is listed in. */
static ct_guid_t parent_of(ct_guid_t g, const char **set_key)
{
    ct_guid_t p = {0, 0};
    g_s.dm->get_guid(g_s.doc, g, "@parent", &p);
    *set_key = ct_guid_is_root(p) ? "entities" : "children";
    return p;
}

/* One past the largest @order among the members of parent's set. */
static double next_order(ct_guid_t parent, const char *key)
{
    const ct_guid_t *items;
    uint32_t count;
    double best = -1;
    if (g_s.dm->get_set(g_s.doc, parent, key, &items, &count) == 0)
        for (uint32_t i = 0; i < count; i++) {
            double o = 0;
            g_s.dm->get_double(g_s.doc, items[i], "@order", &o);
            if (o > best)
                best = o;
        }
    return floor(best) + 1;
}

/* Destroys g and everything below it (children first). */
static bool push_destroy_tree(op_list_t *l, ct_guid_t g, uint32_t depth)
{
    const ct_guid_t *items;
    uint32_t count;
    if (depth > 256)
        return false;
    if (g_s.dm->get_set(g_s.doc, g, "children", &items, &count) == 0) {
        ct_guid_t *copy = malloc((count ? count : 1) * sizeof *copy);
        if (!copy)
            return false;
        memcpy(copy, items, count * sizeof *copy);
        for (uint32_t i = 0; i < count; i++)
            if (!push_destroy_tree(l, copy[i], depth + 1)) {
                free(copy);
                return false;
            }
        free(copy);
    }
    return push_op(l, (ct_dm_op_t){.kind = CT_DM_OP_DESTROY, .object = g});
}

static bool is_entity(ct_guid_t g)
{
    double o;
    return !ct_guid_is_root(g) && g_s.dm->exists(g_s.doc, g) &&
           g_s.dm->get_double(g_s.doc, g, "@order", &o) == 0;
}

static void delete_objects(editor_conn_t *c, editor_user_t *u, const editor_message_t *m)
{
    op_list_t l = {0};
    bool ok = true;
    for (uint32_t i = 0; i < m->num_objects && ok; i++) {
        ct_guid_t g = m->objects[i];
        if (!is_entity(g)) {
            char hex[33];
            ct_guid_format(g, hex);
            editor_server__error(c, m, "delete: %s is not an entity of this level", hex);
            free(l.ops);
            return;
        }
        const char *key;
        ct_guid_t p = parent_of(g, &key);
        ok = push_op(&l,
                     (ct_dm_op_t){.kind = CT_DM_OP_REMOVE, .object = p, .key = key, .item = g}) &&
             push_destroy_tree(&l, g, 0);
    }
    if (ok)
        apply_ops(c, u, m, l.ops, l.n, true);
    else
        editor_server__error(c, m, "delete: out of memory or a tree deeper than 256");
    free(l.ops);
}

static void reparent(editor_conn_t *c, editor_user_t *u, const editor_message_t *m)
{
    ct_guid_t g = m->objects[0], np = m->parent;
    if (!is_entity(g) || (!ct_guid_is_root(np) && !is_entity(np))) {
        editor_server__error(c, m,
                             "reparent: the object and the new parent must be entities of this "
                             "level (the parent all zeros for top level)");
        return;
    }
    for (ct_guid_t a = np; !ct_guid_is_root(a);) {
        if (ct_guid_eq(a, g)) {
            editor_server__error(c, m, "reparent: an entity cannot go below itself");
            return;
        }
        const char *k;
        a = parent_of(a, &k);
    }
    const char *old_key, *new_key = ct_guid_is_root(np) ? "entities" : "children";
    ct_guid_t op = parent_of(g, &old_key);
    ct_dm_value_t parent_value = {.type = CT_DM_GUID, .as.guid = np};
    ct_dm_value_t order = {.type = CT_DM_DOUBLE, .as.d = next_order(np, new_key)};
    ct_dm_op_t ops[4] = {
        {.kind = CT_DM_OP_REMOVE, .object = op, .key = old_key, .item = g},
        {.kind = CT_DM_OP_ADD, .object = np, .key = new_key, .item = g},
        {.kind = CT_DM_OP_SET, .object = g, .key = "@parent", .value = parent_value},
        {.kind = CT_DM_OP_SET, .object = g, .key = "@order", .value = order},
    };
    apply_ops(c, u, m, ops, 4, true);
}

/* Pastes clipboard text into the person's document under `parent` as one action. */
static void paste(editor_conn_t *c, editor_user_t *u, const editor_message_t *m, const char *text,
                  size_t len, ct_guid_t parent, const double *position)
{
    if (!ct_guid_is_root(parent) && !is_entity(parent)) {
        editor_server__error(c, m, "paste: the parent is not an entity of this level");
        return;
    }
    ct_guid_t roots[EDITOR_MAX_OBJECTS];
    uint32_t num = 0;
    if (!replica_of(u, m))
        return;
    if (g_s.dm->paste(u->replica, text, len, roots, EDITOR_MAX_OBJECTS, &num) != 0) {
        editor_server__error(c, m, "paste: %s", g_s.dm->last_error(u->replica));
        return;
    }
    /* The copies are objects now; they become entities of the level here. */
    const char *key = ct_guid_is_root(parent) ? "entities" : "children";
    double order = next_order(parent, key);
    for (uint32_t i = 0; i < num && i < EDITOR_MAX_OBJECTS; i++) {
        ct_dm_value_t pv = {.type = CT_DM_GUID, .as.guid = parent};
        ct_dm_value_t ov = {.type = CT_DM_DOUBLE, .as.d = order + i};
        g_s.dm->set_property(u->replica, roots[i], "@parent", &pv);
        g_s.dm->set_property(u->replica, roots[i], "@order", &ov);
        g_s.dm->add_to_set(u->replica, parent, key, roots[i]);
        if (position) {
            ct_dm_value_t v;
            if (g_s.dm->get(u->replica, roots[i], "components.transform", &v) == 0 &&
                v.type == CT_DM_BLOB)
                g_s.dm->set_property(u->replica, roots[i], "components.transform", NULL);
            ct_dm_value_t p = {.type = CT_DM_VEC3, .as.v = {position[0], position[1], position[2]}};
            g_s.dm->set_property(u->replica, roots[i], "components.transform.position", &p);
        }
    }
    g_s.dm->restore_point(u->replica);
    publish(u, m);
    cJSON *o = reply("pasted", m);
    cJSON *a = cJSON_AddArrayToObject(o, "objects");
    for (uint32_t i = 0; i < num && i < EDITOR_MAX_OBJECTS; i++) {
        char hex[33];
        ct_guid_format(roots[i], hex);
        cJSON_AddItemToArray(a, cJSON_CreateString(hex));
    }
    send_json(c, o);
    send_history(u, m, "history", NULL);
}

static char *copy_text(editor_conn_t *c, const editor_message_t *m, size_t *len)
{
    for (uint32_t i = 0; i < m->num_objects; i++)
        if (!is_entity(m->objects[i])) {
            editor_server__error(c, m, "copy: object %u is not an entity of this level",
                                 (unsigned)i);
            return NULL;
        }
    char *text = g_s.dm->copy(g_s.doc, m->objects, m->num_objects, len);
    if (!text)
        editor_server__error(c, m, "copy: %s", g_s.dm->last_error(g_s.doc));
    return text;
}

/* Reads a source file of the project whole, from the C heap (free() it); NULL (err says why)
 * when missing, not a regular file or over 256 MiB. */
static char *read_source(const char *path, size_t *len, char *err, size_t es)
{
    return (char *)ct_file_read(path, ct_heap_allocator(), 256u << 20, len, err, es);
}

/* Places a unit of the project: its entities, copied through the data model's clipboard text
 * and pasted like any paste (one undo item). */
static void place(editor_conn_t *c, editor_user_t *u, const editor_message_t *m)
{
    char why[160], path[PATH_MAX + 300], err[512];
    if (resources__api_v1()->check_name(m->text, why, sizeof why) != 0) {
        editor_server__error(c, m, "place: '%s' is not a unit name of the project: %s", m->text,
                             why);
        return;
    }
    snprintf(path, sizeof path, "%s/%s.unit", g_s.project, m->text);
    size_t len;
    char *text = read_source(path, &len, err, sizeof err);
    if (!text) {
        editor_server__error(c, m, "place: %s", err);
        return;
    }
    ct_dm_doc_o *unit = g_s.dm->read_level(text, len, path, NULL, err, sizeof err);
    free(text);
    if (!unit) {
        editor_server__error(c, m, "place: %s", err);
        return;
    }
    const ct_guid_t *roots;
    uint32_t n = 0;
    char *clip = NULL;
    size_t clip_len = 0;
    if (g_s.dm->get_set(unit, (ct_guid_t){0, 0}, "entities", &roots, &n) == 0 && n)
        clip = g_s.dm->copy(unit, roots, n, &clip_len);
    if (clip)
        paste(c, u, m, clip, clip_len, (ct_guid_t){0, 0}, m->position);
    else
        editor_server__error(c, m, "place: the unit %s has no entities", m->text);
    g_s.dm->free_text(clip);
    g_s.dm->destroy_doc(unit);
}

/* The project's resources a page offers in pickers: units, meshes, materials (by name). */
static void scan(cJSON *out, const char *dir, const char *rel, int depth)
{
    DIR *d = depth < 8 ? opendir(dir) : NULL;
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || (!rel[0] && !strcmp(e->d_name, "compiled")))
            continue;
        char path[PATH_MAX], name[512];
        snprintf(path, sizeof path, "%.3000s/%.255s", dir, e->d_name);
        snprintf(name, sizeof name, "%.250s%s%.255s", rel, rel[0] ? "/" : "", e->d_name);
        struct stat st;
        if (stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            scan(out, path, name, depth + 1);
            continue;
        }
        char *dot = strrchr(name, '.');
        if (!dot)
            continue;
        const char *type = !strcmp(dot, ".unit")       ? "unit"
                           : !strcmp(dot, ".mesh")     ? "mesh"
                           : !strcmp(dot, ".material") ? "material"
                                                       : NULL;
        if (!type)
            continue;
        *dot = 0;
        cJSON *list = cJSON_GetObjectItemCaseSensitive(out, type);
        if (!list)
            list = cJSON_AddArrayToObject(out, type);
        cJSON_AddItemToArray(list, cJSON_CreateString(name));
    }
    closedir(d);
}

/* ---- save ---- */

static void recompile(bool named);

/* A compile told the saved file failed: the plain walk of the project, once, decides. */
static void on_named_closed(uv_handle_t *h)
{
    (void)h;
    g_s.compiling = false;
    recompile(false);
}

static void on_compiled(uv_process_t *p, int64_t status, int signal)
{
    (void)signal;
    if (status != 0 && g_s.compile_named) {
        log__warning("editor: cuttle-compile --changed %s failed (exit %d): compiling the project",
                     g_s.source_path, (int)status);
        uv_close((uv_handle_t *)p, on_named_closed); /* the handle is free again in the callback */
        return;
    }
    g_s.compiling = false;
    uv_close((uv_handle_t *)p, NULL);
    cJSON *o = reply("compiled", NULL);
    cJSON_AddBoolToObject(o, "ok", status == 0);
    if (status != 0)
        cJSON_AddStringToObject(o, "error", "cuttle-compile failed: the engine's log says why");
    log__info("editor: cuttle-compile%s %s (exit %d)", g_s.compile_named ? " --changed" : "",
              status == 0 ? "updated the compiled level" : "failed", (int)status);
    broadcast_json(o);
}

/* Where cuttle-compile is: $CUTTLE_COMPILE, beside the engine (installed), or in the build tree. */
static bool find_compiler(char *out, size_t size)
{
    const char *env = getenv("CUTTLE_COMPILE");
    if (env && *env) {
        snprintf(out, size, "%s", env);
        return access(out, X_OK) == 0;
    }
    char exe[PATH_MAX];
    size_t len = sizeof exe;
    if (uv_exepath(exe, &len) != 0)
        return false;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return false;
    *slash = 0;
    static const char *const places[] = {"/cuttle-compile",
                                         "/../tools/cuttle-compile/cuttle-compile"};
    for (size_t i = 0; i < 2; i++) {
        if (strlen(exe) + strlen(places[i]) >= size)
            return false;
        strcpy(out, exe);
        strcat(out, places[i]);
        if (access(out, X_OK) == 0)
            return true;
    }
    return false;
}

/* Compiles the project again so its compiled level matches the saved source: `named`, only the
 * saved file and what reads it (cuttle-compile --changed, no walk of the project); a failure of
 * that falls back to the plain run. */
static void recompile(bool named)
{
    char compiler[PATH_MAX];
    if (g_s.compiling || !find_compiler(compiler, sizeof compiler)) {
        if (!g_s.compiling)
            log__warning("editor: saved, but no cuttle-compile was found to update the compiled "
                         "level (set CUTTLE_COMPILE)");
        return;
    }
    const char *args[3 + 2 * 64 + 2 + 1];
    uint32_t n = 0;
    args[n++] = compiler;
    args[n++] = "--project";
    args[n++] = g_s.project;
    for (uint32_t i = 0; i < g_s.num_module_dirs && i < 64; i++) {
        args[n++] = "--modules";
        args[n++] = g_s.module_dirs[i];
    }
    g_s.compile_named = named && g_s.source_path[0];
    if (g_s.compile_named) {
        args[n++] = "--changed";
        args[n++] = g_s.source_path;
    }
    args[n] = NULL;
    uv_stdio_container_t stdio[3] = {{.flags = UV_IGNORE},
                                     {.flags = UV_INHERIT_FD, .data.fd = 2},
                                     {.flags = UV_INHERIT_FD, .data.fd = 2}};
    uv_process_options_t opt = {.exit_cb = on_compiled,
                                .file = compiler,
                                .args = (char **)args,
                                .stdio_count = 3,
                                .stdio = stdio};
    int r = uv_spawn(kernel__loop(), &g_s.compile, &opt);
    if (r) {
        log__warning("editor: cannot run %s: %s", compiler, uv_strerror(r));
        uv_close((uv_handle_t *)&g_s.compile, NULL);
        return;
    }
    g_s.compiling = true;
}

static int write_file(const char *path, const char *text, size_t len)
{
    char tmp[PATH_MAX + 16];
    snprintf(tmp, sizeof tmp, "%s.saving", path);
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return CT_ERR_IO;
    bool ok = fwrite(text, 1, len, f) == len;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return CT_ERR_IO;
    }
    return 0;
}

static void save(editor_conn_t *c, const editor_message_t *m)
{
    size_t len;
    ct_dm_write_desc_t desc = {.assign_ids = true};
    char *text = g_s.dm->write_level(g_s.doc, &desc, &len);
    if (!text) {
        editor_server__error(c, m, "save: %s", g_s.dm->last_error(g_s.doc));
        return;
    }
    int r = write_file(g_s.source_path, text, len);
    if (!r) {
        char err[256];
        ct_dm_doc_o *saved = g_s.dm->read_level(text, len, g_s.source_path, NULL, err, sizeof err);
        if (saved) {
            g_s.dm->destroy_doc(g_s.base);
            g_s.base = saved;
        }
    }
    g_s.dm->free_text(text);
    if (r) {
        editor_server__error(c, m, "save: cannot write %s: %s", g_s.source_path, strerror(errno));
        return;
    }
    /* Saved: the log starts again empty. */
    open_log(true);
    log__info("editor: saved %s (%zu bytes) for %s", g_s.source_path, len, c->user->name);
    cJSON *o = reply("saved", m);
    cJSON_AddStringToObject(o, "file", g_s.level);
    cJSON_AddNumberToObject(o, "bytes", (double)len);
    cJSON_AddStringToObject(o, "by", c->user->name);
    broadcast_json(o);
    recompile(true);
}

/* Reads the level's file again (a git merge changed it under the editor) and brings what
 * changed in the file since it was last read or saved (the data model's diff of the two) into
 * the engine's document, everyone's replica, the world and the pages, as one change set: unsaved
 * edits stay, every person keeps their undo, and the pages see what came in. */
static void reload(editor_conn_t *c, const editor_message_t *m)
{
    char err[512];
    size_t len;
    char *text = read_source(g_s.source_path, &len, err, sizeof err);
    if (!text) {
        editor_server__error(c, m, "reload: %s", err);
        return;
    }
    ct_dm_doc_o *fresh = g_s.dm->read_level(text, len, g_s.source_path, NULL, err, sizeof err);
    free(text);
    if (!fresh) {
        editor_server__error(c, m, "reload: %s", err);
        return;
    }
    char author[300];
    snprintf(author, sizeof author, "%s (file)", g_s.level);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    uint64_t ms = (uint64_t)now.tv_sec * 1000u + (uint64_t)now.tv_nsec / 1000000u;
    ct_dm_stamp_t stamp = {CT_DM_HLC(ms, 0), author};
    ct_dm_changeset_o *cs = g_s.dm->diff(g_s.base, fresh, stamp);
    g_s.dm->destroy_doc(g_s.base);
    g_s.base = fresh;
    uint32_t n = cs ? g_s.dm->changeset_count(cs) : 0;
    g_s.out_ops = cJSON_CreateArray();
    ct_dm_merge_report_t report;
    int r = n ? g_s.dm->apply(g_s.doc, cs, &report) : 0;
    cJSON *ops = g_s.out_ops;
    g_s.out_ops = NULL;
    if (r) {
        editor_server__error(c, m, "reload: %s", g_s.dm->last_error(g_s.doc));
    } else if (n) {
        log_changes(cs);
        for (uint32_t i = 0; i < g_s.num_users; i++) {
            if (!g_s.users[i]->replica)
                continue;
            g_s.dm->apply(g_s.users[i]->replica, cs, NULL);
            g_s.dm->destroy_changeset(g_s.dm->take_changes(g_s.users[i]->replica));
        }
        sync_world(c, m);
        cJSON *out = reply("ops", NULL);
        cJSON_AddStringToObject(out, "by", author);
        cJSON_AddItemToObject(out, "ops", ops);
        ops = NULL;
        broadcast_ops(out);
    }
    cJSON_Delete(ops);
    g_s.dm->destroy_changeset(cs);
    if (!r) {
        log__info("editor: reloaded %s: %u operations came in", g_s.source_path, (unsigned)n);
        cJSON *o = reply("reloaded", m);
        cJSON_AddStringToObject(o, "file", g_s.level);
        cJSON_AddNumberToObject(o, "changes", n);
        cJSON_AddStringToObject(o, "by", c->user->name);
        broadcast_json(o);
    }
}

/* ---- entry points ---- */

void editor_session__handle(editor_conn_t *c, const editor_message_t *m)
{
    editor_user_t *u = c->user;
    switch (m->kind) {
    case EDITOR_MSG_HELLO: hello(c, m); return;
    case EDITOR_MSG_OPS: apply_ops(c, u, m, m->ops, m->num_ops, m->commit); return;
    case EDITOR_MSG_COMMIT:
        if (u->replica)
            g_s.dm->restore_point(u->replica);
        send_history(u, m, "history", NULL);
        return;
    case EDITOR_MSG_UNDO:
    case EDITOR_MSG_REDO: {
        bool undo = m->kind == EDITOR_MSG_UNDO;
        ct_dm_undo_report_t report = {0};
        int r = CT_ERR_NOT_FOUND;
        if (u->replica) {
            g_s.dm->restore_point(u->replica);
            r = undo ? g_s.dm->undo(u->replica, &report) : g_s.dm->redo(u->replica, &report);
        }
        if (r == CT_ERR_NOT_FOUND) {
            editor_server__error(c, m, "nothing to %s", undo ? "undo" : "redo");
            return;
        }
        /* The report lives until the next operation on the replica: send it first. */
        send_history(u, m, undo ? "undone" : "redone", &report);
        publish(u, m);
        return;
    }
    case EDITOR_MSG_COPY: {
        size_t len;
        char *text = copy_text(c, m, &len);
        if (!text)
            return;
        cJSON *o = reply("clipboard", m);
        cJSON_AddStringToObject(o, "text", text);
        g_s.dm->free_text(text);
        send_json(c, o);
        return;
    }
    case EDITOR_MSG_PASTE:
        paste(c, u, m, m->text, m->text_len, m->has_parent ? m->parent : (ct_guid_t){0, 0}, NULL);
        return;
    case EDITOR_MSG_DUPLICATE: {
        size_t len;
        char *text = copy_text(c, m, &len);
        if (!text)
            return;
        const char *key;
        paste(c, u, m, text, len, parent_of(m->objects[0], &key), NULL);
        g_s.dm->free_text(text);
        return;
    }
    case EDITOR_MSG_DELETE: delete_objects(c, u, m); return;
    case EDITOR_MSG_REPARENT: reparent(c, u, m); return;
    case EDITOR_MSG_SAVE: save(c, m); return;
    case EDITOR_MSG_PLAY:
    case EDITOR_MSG_STOP: {
        bool play = m->kind == EDITOR_MSG_PLAY;
        if (!play && editor_world__playing()) {
            /* Back to the edited state: the document was never touched by the simulation. */
            char err[512];
            editor_world__play(false);
            if (editor_world__respawn(g_s.doc, err, sizeof err))
                editor_server__error(c, m, "%s", err);
        }
        editor_world__play(play);
        cJSON *o = reply("play", m);
        cJSON_AddBoolToObject(o, "playing", play);
        cJSON_AddStringToObject(o, "by", u->name);
        broadcast_json(o);
        return;
    }
    case EDITOR_MSG_CAMERA: editor_world__camera(m); return;
    case EDITOR_MSG_PICK: {
        ct_guid_t g;
        cJSON *o = reply("picked", m);
        if (editor_world__pick(m->x, m->y, &g)) {
            char hex[33];
            ct_guid_format(g, hex);
            cJSON_AddStringToObject(o, "object", hex);
        } else {
            cJSON_AddNullToObject(o, "object");
        }
        send_json(c, o);
        return;
    }
    case EDITOR_MSG_PLACE: place(c, u, m); return;
    case EDITOR_MSG_RELOAD: reload(c, m); return;
    case EDITOR_MSG_VIEW:
        /* A hidden page (a background tab) is sent no pixels: decoding a frame nobody sees
         * takes the CPU the engine's next frame needs. Shown again, it is sent the newest at
         * the loop's next turn (editor_server__send_pixels: a frame it has not had). */
        c->hidden = !m->visible;
        return;
    case EDITOR_MSG_SELECT: {
        cJSON *o = reply("selected", NULL);
        cJSON_AddStringToObject(o, "by", u->name);
        cJSON *a = cJSON_AddArrayToObject(o, "objects");
        for (uint32_t i = 0; i < m->num_objects; i++) {
            char hex[33];
            ct_guid_format(m->objects[i], hex);
            cJSON_AddItemToArray(a, cJSON_CreateString(hex));
        }
        broadcast_json(o);
        return;
    }
    }
}

void editor_session__conn_closed(editor_conn_t *c)
{
    if (c->user) {
        /* The person's session (and undo) stays for a reconnect with its id. */
        if (c->user->replica)
            g_s.dm->restore_point(c->user->replica);
        c->user->conn = NULL;
        c->user = NULL;
        people_changed();
    }
}

/* levels/arena -> PROJECT/levels/arena.level and PROJECT/.editor/levels_arena.changes */
static int paths(const char *project, const char *level)
{
    char why[160];
    const ct_resource_api_v1 *res = resources__api_v1();
    if (res->check_name(level, why, sizeof why) != 0) {
        log__error("editor: '%s' is not a level name of the project: %s", level, why);
        return CT_ERR_INVALID;
    }
    snprintf(g_s.project, sizeof g_s.project, "%s", project);
    snprintf(g_s.level, sizeof g_s.level, "%s", level);
    snprintf(g_s.source_path, sizeof g_s.source_path, "%s/%s.level", project, level);
    char flat[256];
    snprintf(flat, sizeof flat, "%s", level);
    for (char *p = flat; *p; p++)
        if (*p == '/')
            *p = '_';
    char dir[PATH_MAX - 300];
    if (snprintf(dir, sizeof dir, "%s/.editor", project) >= (int)sizeof dir) {
        log__error("editor: the project's path is too long");
        return CT_ERR_INVALID;
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        log__error("editor: cannot make %s: %s", dir, strerror(errno));
        return CT_ERR_IO;
    }
    snprintf(g_s.log_path, sizeof g_s.log_path, "%s/%s.changes", dir, flat);
    return 0;
}

int editor_session__open(const editor_options_t *o, const char *project_dir)
{
    const char *level = o->level;
    memset(&g_s, 0, sizeof g_s);
    g_s.module_dirs = o->module_dirs;
    g_s.num_module_dirs = o->num_module_dirs;
    g_s.dm = registry__get_engine_api(CT_DATAMODEL_API, 1);
    if (!g_s.dm || !g_s.dm->read_level || !g_s.dm->write_level || !g_s.dm->copy || !g_s.dm->paste) {
        log__error("editor: the kernel serves no ct.datamodel v1 that reads and writes levels");
        return CT_ERR_NOT_FOUND;
    }
    int r = paths(project_dir, level);
    if (r)
        return r;
    char err[512];
    size_t len;
    char *text = read_source(g_s.source_path, &len, err, sizeof err);
    if (!text) {
        log__error("editor: %s", err);
        return CT_ERR_NOT_FOUND;
    }
    ct_dm_doc_desc_t desc = {.author = "engine"};
    g_s.doc = g_s.dm->read_level(text, len, g_s.source_path, &desc, err, sizeof err);
    g_s.base =
        g_s.doc ? g_s.dm->read_level(text, len, g_s.source_path, NULL, err, sizeof err) : NULL;
    free(text);
    if (!g_s.doc || !g_s.base) {
        log__error("editor: %s", err);
        return CT_ERR_BAD_DATA;
    }
    g_s.replayed = replay_log();
    if (g_s.replayed)
        log__warning("editor: replayed %u unsaved changes to %s from %s (the last run stopped "
                     "before saving); save to keep them",
                     (unsigned)g_s.replayed, level, g_s.log_path);
    r = open_log(g_s.replayed == 0);
    if (r)
        return r;
    g_s.listener = g_s.dm->add_listener(g_s.doc, on_truth_op, NULL);
    r = editor_world__respawn(g_s.doc, err, sizeof err);
    if (r)
        log__error("editor: %s", err);
    return r;
}

void editor_session__close(void)
{
    /* A compile still running is waited for, so its handle is closed before the loop is. */
    for (int i = 0; i < 6000 && g_s.compiling; i++)
        uv_run(kernel__loop(), UV_RUN_ONCE);
    for (uint32_t i = 0; i < g_s.num_users; i++) {
        if (g_s.dm && g_s.users[i]->replica)
            g_s.dm->destroy_doc(g_s.users[i]->replica);
        free(g_s.users[i]);
    }
    if (g_s.dm) {
        g_s.dm->destroy_doc(g_s.doc);
        g_s.dm->destroy_doc(g_s.base);
    }
    if (g_s.log)
        fclose(g_s.log);
    free(g_s.moved);
    memset(&g_s, 0, sizeof g_s);
}
