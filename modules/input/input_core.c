/* input_core.c: control names, frame state, actions, the recording format and the bindings blob
 * (input_core.h). */
#include "input_core.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

bool input__name_ok(const char *name, size_t len)
{
    if (!name || len == 0 || len >= CT_INPUT_MAX_NAME)
        return false;
    for (size_t i = 0; i < len; i++) {
        const char ch = name[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == ':'))
            return false;
    }
    return true;
}

static uint32_t name_hash(const char *s, size_t len)
{
    uint32_t h = 2166136261u; /* FNV-1a: names are short, any spread will do */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h;
}

static bool same(const char *stored, const char *name, size_t len)
{
    return strncmp(stored, name, len) == 0 && stored[len] == '\0';
}

uint32_t input__lookup(const input__core *c, const char *name, size_t len)
{
    if (!input__name_ok(name, len))
        return 0;
    for (uint32_t h = name_hash(name, len) & (INPUT_HASH_SIZE - 1);;
         h = (h + 1) & (INPUT_HASH_SIZE - 1)) {
        const uint32_t id = c->hash[h];
        if (!id)
            return 0;
        if (same(c->names[id], name, len))
            return id;
    }
}

uint32_t input__intern(input__core *c, const char *name, size_t len)
{
    if (!input__name_ok(name, len))
        return 0;
    uint32_t h = name_hash(name, len) & (INPUT_HASH_SIZE - 1);
    for (;; h = (h + 1) & (INPUT_HASH_SIZE - 1)) {
        const uint32_t id = c->hash[h];
        if (!id)
            break;
        if (same(c->names[id], name, len))
            return id;
    }
    /* The table is twice the most names it holds, so a free slot is always found above. */
    if (c->num_controls == CT_INPUT_MAX_CONTROLS)
        return 0;
    const uint32_t id = ++c->num_controls;
    memcpy(c->names[id], name, len);
    c->names[id][len] = '\0';
    c->hash[h] = (uint16_t)id;
    return id;
}

void input__begin_frame(input__core *c)
{
    c->frame++;
    memset(c->pressed, 0, sizeof c->pressed);
    memset(c->released, 0, sizeof c->released);
    c->mouse.dx = c->mouse.dy = 0;
    c->mouse.wheel_x = c->mouse.wheel_y = 0;
}

bool input__apply(input__core *c, const ct_input_event_t *e)
{
    const uint32_t k = e->control;
    switch (e->type) {
    case CT_INPUT_DOWN:
        if (!k || k > c->num_controls || c->down[k])
            return false;
        c->down[k] = c->pressed[k] = 1;
        return true;
    case CT_INPUT_UP:
        if (!k || k > c->num_controls || !c->down[k])
            return false;
        c->down[k] = 0;
        c->released[k] = 1;
        return true;
    case CT_INPUT_MOTION:
        c->mouse.x = e->x, c->mouse.y = e->y;
        c->mouse.dx += e->dx, c->mouse.dy += e->dy;
        return true;
    case CT_INPUT_WHEEL: c->mouse.wheel_x += e->x, c->mouse.wheel_y += e->y; return true;
    case CT_INPUT_AXIS:
        if (!k || k > c->num_controls || e->value < -32767 || e->value > 32767)
            return false;
        c->axis[k] = (int16_t)e->value;
        return true;
    default: return false;
    }
}

void input__release_all(input__core *c, void (*emit)(void *ud, const ct_input_event_t *e), void *ud)
{
    for (uint32_t k = 1; k <= c->num_controls; k++)
        if (c->down[k])
            emit(ud, &(ct_input_event_t){.type = CT_INPUT_UP, .control = k});
}

/* ---- actions ------------------------------------------------------------------------------- */

uint32_t input__find_action(const input__core *c, const char *name)
{
    for (uint32_t a = 0; name && a < c->num_actions; a++)
        if (!strcmp(c->actions[a].name, name))
            return a + 1;
    return 0;
}

uint32_t input__bind(input__core *c, const char *name, const char *const *controls, uint32_t n,
                     char *err, size_t err_size)
{
    if (!name || !input__name_ok(name, strlen(name))) {
        snprintf(err, err_size, "action '%s' is not a name (1..31 of a-z 0-9 _ :)",
                 name ? name : "(null)");
        return 0;
    }
    if (n > CT_INPUT_MAX_BINDS) {
        snprintf(err, err_size, "action '%s': %u controls, at most %u", name, n,
                 CT_INPUT_MAX_BINDS);
        return 0;
    }
    uint32_t ids[CT_INPUT_MAX_BINDS];
    for (uint32_t i = 0; i < n; i++) {
        const char *s = controls[i] ? controls[i] : "";
        if (!(ids[i] = input__intern(c, s, strlen(s)))) {
            snprintf(err, err_size, "action '%s': '%s' is not a control name%s", name, s,
                     input__name_ok(s, strlen(s)) ? " (the control table is full)"
                                                  : " (1..31 of a-z 0-9 _ :)");
            return 0;
        }
    }
    uint32_t a = input__find_action(c, name);
    if (!a) {
        if (c->num_actions == CT_INPUT_MAX_ACTIONS) {
            snprintf(err, err_size, "action '%s': already %u actions", name, CT_INPUT_MAX_ACTIONS);
            return 0;
        }
        a = ++c->num_actions;
        snprintf(c->actions[a - 1].name, CT_INPUT_MAX_NAME, "%s", name);
    }
    memcpy(c->actions[a - 1].controls, ids, n * sizeof ids[0]);
    c->actions[a - 1].n = n;
    return a;
}

static const input__action *action_of(const input__core *c, uint32_t a)
{
    return a >= 1 && a <= c->num_actions ? &c->actions[a - 1] : NULL;
}

bool input__action_down(const input__core *c, uint32_t action)
{
    const input__action *a = action_of(c, action);
    for (uint32_t i = 0; a && i < a->n; i++)
        if (c->down[a->controls[i]])
            return true;
    return false;
}

bool input__action_pressed(const input__core *c, uint32_t action)
{
    const input__action *a = action_of(c, action);
    for (uint32_t i = 0; a && i < a->n; i++)
        if (c->pressed[a->controls[i]])
            return true;
    return false;
}

bool input__action_released(const input__core *c, uint32_t action)
{
    const input__action *a = action_of(c, action);
    bool any = false;
    for (uint32_t i = 0; a && i < a->n; i++)
        any |= c->released[a->controls[i]] != 0;
    return any && !input__action_down(c, action);
}

/* ---- recording ----------------------------------------------------------------------------- */

size_t input__format_event(const input__core *c, const ct_input_event_t *e, char *out, size_t size)
{
    const char *name = e->control && e->control <= c->num_controls ? c->names[e->control] : "";
    int n;
    switch (e->type) {
    case CT_INPUT_DOWN:
    case CT_INPUT_UP:
        n = snprintf(out, size, "%" PRIu32 " %s %s", e->frame,
                     e->type == CT_INPUT_DOWN ? "down" : "up", name);
        break;
    case CT_INPUT_MOTION:
        n = snprintf(out, size, "%" PRIu32 " motion %" PRId32 " %" PRId32 " %" PRId32 " %" PRId32,
                     e->frame, e->x, e->y, e->dx, e->dy);
        break;
    case CT_INPUT_WHEEL:
        n = snprintf(out, size, "%" PRIu32 " wheel %" PRId32 " %" PRId32, e->frame, e->x, e->y);
        break;
    case CT_INPUT_AXIS:
        n = snprintf(out, size, "%" PRIu32 " axis %s %" PRId32, e->frame, name, e->value);
        break;
    default: return 0;
    }
    return n > 0 && (size_t)n < size ? (size_t)n : 0;
}

/* A cursor over one line's words. */
typedef struct words {
    const char *p, *end;
} words;

static bool next_word(words *w, const char **word, size_t *len)
{
    while (w->p < w->end && (*w->p == ' ' || *w->p == '\t' || *w->p == '\r'))
        w->p++;
    if (w->p == w->end)
        return false;
    *word = w->p;
    while (w->p < w->end && *w->p != ' ' && *w->p != '\t' && *w->p != '\r')
        w->p++;
    *len = (size_t)(w->p - *word);
    return true;
}

/* A decimal integer word within [lo, hi]. */
static bool number_word(words *w, long long lo, long long hi, long long *out)
{
    const char *s;
    size_t len;
    if (!next_word(w, &s, &len) || len > 20)
        return false;
    char buf[24];
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    const long long v = strtoll(buf, &end, 10);
    if (*end || errno || end == buf || !(buf[0] == '-' || (buf[0] >= '0' && buf[0] <= '9')))
        return false;
    if (v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

static bool is_word(const char *s, size_t len, const char *what)
{
    return strlen(what) == len && !memcmp(s, what, len);
}

/* Parses the words after the frame into p->event; false with the reason in err. */
static bool parse_event(input__core *c, words *w, input__parsed *p, char *err, size_t err_size)
{
    const char *kind, *name;
    size_t kind_len, name_len;
    long long v[4];
    ct_input_event_t *e = &p->event;
    if (!next_word(w, &kind, &kind_len)) {
        snprintf(err, err_size, "an event kind is missing");
        return false;
    }
    const bool down = is_word(kind, kind_len, "down"), up = is_word(kind, kind_len, "up"),
               axis = is_word(kind, kind_len, "axis");
    if (down || up || axis) {
        if (!next_word(w, &name, &name_len) || !(e->control = input__intern(c, name, name_len))) {
            snprintf(err, err_size, "a control name is missing or bad (1..31 of a-z 0-9 _ :)");
            return false;
        }
        e->type = down ? CT_INPUT_DOWN : up ? CT_INPUT_UP : CT_INPUT_AXIS;
        if (axis) {
            if (!number_word(w, -32767, 32767, &v[0])) {
                snprintf(err, err_size, "axis wants a value -32767..32767");
                return false;
            }
            e->value = (int32_t)v[0];
        }
    } else if (is_word(kind, kind_len, "motion")) {
        for (int k = 0; k < 4; k++)
            if (!number_word(w, -1000000, 1000000, &v[k])) {
                snprintf(err, err_size, "motion wants X Y DX DY (integers within 1e6)");
                return false;
            }
        e->type = CT_INPUT_MOTION;
        e->x = (int32_t)v[0], e->y = (int32_t)v[1], e->dx = (int32_t)v[2], e->dy = (int32_t)v[3];
    } else if (is_word(kind, kind_len, "wheel")) {
        for (int k = 0; k < 2; k++)
            if (!number_word(w, -1000000, 1000000, &v[k])) {
                snprintf(err, err_size, "wheel wants X Y (integers within 1e6)");
                return false;
            }
        e->type = CT_INPUT_WHEEL;
        e->x = (int32_t)v[0], e->y = (int32_t)v[1];
    } else {
        snprintf(err, err_size, "unknown event '%.*s' (down, up, motion, wheel, axis)",
                 (int)(kind_len > 32 ? 32 : kind_len), kind);
        return false;
    }
    const char *extra;
    size_t extra_len;
    if (next_word(w, &extra, &extra_len)) {
        snprintf(err, err_size, "unexpected '%.*s' at the end",
                 (int)(extra_len > 32 ? 32 : extra_len), extra);
        return false;
    }
    return true;
}

int input__parse_recording(input__core *c, const char *text, size_t len,
                           bool (*each)(void *ud, const input__parsed *p), void *ud, char *err,
                           size_t err_size)
{
    const char *p = text, *end = text + len;
    uint32_t line = 0, last_frame = 0;
    bool header = false;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *line_end = nl ? nl : end;
        line++;
        words w = {p, line_end};
        p = nl ? nl + 1 : end;
        const char *first;
        size_t first_len;
        if (memchr(w.p, '\0', (size_t)(w.end - w.p))) {
            snprintf(err, err_size, "line %u: a NUL byte", line);
            return CT_ERR_BAD_DATA;
        }
        if (!header) {
            words h = w;
            const char *v;
            size_t v_len;
            if (!next_word(&h, &first, &first_len) || !is_word(first, first_len, "cuttle-input") ||
                !next_word(&h, &v, &v_len) || !is_word(v, v_len, "1") ||
                next_word(&h, &v, &v_len)) {
                snprintf(err, err_size,
                         "line %u: not a recording (it starts with '" INPUT_RECORD_HEADER "')",
                         line);
                return CT_ERR_BAD_DATA;
            }
            header = true;
            continue;
        }
        words peek = w;
        if (!next_word(&peek, &first, &first_len) || first[0] == '#')
            continue;
        long long frame;
        input__parsed parsed = {0};
        if (!number_word(&w, 1, UINT32_MAX, &frame)) {
            snprintf(err, err_size, "line %u: a frame number 1..%u comes first", line, UINT32_MAX);
            return CT_ERR_BAD_DATA;
        }
        if ((uint32_t)frame < last_frame) {
            snprintf(err, err_size, "line %u: frame %lld comes after frame %u", line, frame,
                     last_frame);
            return CT_ERR_BAD_DATA;
        }
        last_frame = parsed.frame = (uint32_t)frame;
        char why[96];
        if (!parse_event(c, &w, &parsed, why, sizeof why)) {
            snprintf(err, err_size, "line %u: %s", line, why);
            return CT_ERR_BAD_DATA;
        }
        parsed.event.frame = parsed.frame;
        if (each && !each(ud, &parsed)) {
            snprintf(err, err_size, "line %u: too many events", line);
            return CT_ERR_BAD_DATA;
        }
    }
    if (!header) {
        snprintf(err, err_size,
                 "line 1: not a recording (it starts with '" INPUT_RECORD_HEADER "')");
        return CT_ERR_BAD_DATA;
    }
    return 0;
}

/* ---- bindings blob ------------------------------------------------------------------------- */

typedef struct reader {
    const uint8_t *p, *end;
} reader;

static bool read_name(reader *r, char out[CT_INPUT_MAX_NAME])
{
    if (r->p >= r->end)
        return false;
    const uint8_t n = *r->p++;
    if (n == 0 || n >= CT_INPUT_MAX_NAME || (size_t)(r->end - r->p) < n ||
        !input__name_ok((const char *)r->p, n))
        return false;
    memcpy(out, r->p, n);
    out[n] = '\0';
    r->p += n;
    return true;
}

static uint32_t read_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Walks the blob; with `c` it also binds. */
static int walk_bindings(input__core *c, const void *payload, size_t size, char *err,
                         size_t err_size)
{
    reader r = {payload, (const uint8_t *)payload + size};
    if (size < 8 || read_u32(r.p) != INPUT_BINDINGS_MAGIC) {
        snprintf(err, err_size, "not an input bindings blob");
        return CT_ERR_BAD_DATA;
    }
    const uint32_t count = read_u32(r.p + 4);
    r.p += 8;
    if (count > CT_INPUT_MAX_ACTIONS) {
        snprintf(err, err_size, "%u actions, at most %u", count, CT_INPUT_MAX_ACTIONS);
        return CT_ERR_BAD_DATA;
    }
    if (c)
        c->num_actions = 0;
    for (uint32_t a = 0; a < count; a++) {
        char name[CT_INPUT_MAX_NAME], controls[CT_INPUT_MAX_BINDS][CT_INPUT_MAX_NAME];
        const char *list[CT_INPUT_MAX_BINDS];
        if (!read_name(&r, name) || r.p >= r.end || *r.p > CT_INPUT_MAX_BINDS) {
            snprintf(err, err_size, "action %u: a bad name or control count", a);
            return CT_ERR_BAD_DATA;
        }
        const uint32_t n = *r.p++;
        for (uint32_t i = 0; i < n; i++) {
            if (!read_name(&r, controls[i])) {
                snprintf(err, err_size, "action '%s': control %u is bad", name, i);
                return CT_ERR_BAD_DATA;
            }
            list[i] = controls[i];
        }
        if (c && !input__bind(c, name, list, n, err, err_size))
            return CT_ERR_BAD_DATA;
    }
    if (r.p != r.end) {
        snprintf(err, err_size, "%zu bytes after the last action", (size_t)(r.end - r.p));
        return CT_ERR_BAD_DATA;
    }
    return 0;
}

bool input__bindings_check(const void *payload, size_t size, char *err, size_t err_size)
{
    return walk_bindings(NULL, payload, size, err, err_size) == 0;
}

int input__bindings_apply(input__core *c, const void *payload, size_t size, char *err,
                          size_t err_size)
{
    int r = walk_bindings(NULL, payload, size, err, err_size);
    return r ? r : walk_bindings(c, payload, size, err, err_size);
}
