/* bvh.c: the BVH reader (see bvh.h): a tokenizer over a NUL-terminated copy of the text, the
 * hierarchy walked with an explicit stack, then the frames line by line. */
#include "bvh.h"

#include "ct_file.h"
#include "ct_heap.h"
#include "ct_math.h"
#include "formats_arena.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BVH_MAX_JOINTS 1024u
#define BVH_MAX_DEPTH 256u
#define BVH_MAX_NAME 255u
#define BVH_MAX_FRAMES 1000000u
#define BVH_MAX_TEXT ((size_t)1 << 30)

typedef struct bvh_holder {
    ct_bvh_t bvh;
    formats__arena arena;
} bvh_holder;

typedef struct bvh_reader {
    formats__arena arena;
    const char *name;
    char *err;
    size_t err_size;
    const char *text, *at, *end;
    uint32_t line;
    const char *tok; /* the current token and its length */
    size_t tok_len;
    uint32_t tok_line;
} bvh_reader;

static bool fail(bvh_reader *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static bool fail(bvh_reader *r, const char *fmt, ...)
{
    if (!r->err || !r->err_size)
        return false;
    int n = snprintf(r->err, r->err_size, "%s:%u: ", r->name, r->tok_line ? r->tok_line : r->line);
    if (n < 0 || (size_t)n >= r->err_size)
        return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err + n, r->err_size - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

/* Moves to the next whitespace-separated token; false at the end of the text. */
static bool next_token(bvh_reader *r)
{
    while (r->at < r->end &&
           (*r->at == ' ' || *r->at == '\t' || *r->at == '\r' || *r->at == '\n')) {
        if (*r->at == '\n')
            r->line++;
        r->at++;
    }
    r->tok = r->at;
    r->tok_line = r->line;
    while (r->at < r->end && *r->at != ' ' && *r->at != '\t' && *r->at != '\r' && *r->at != '\n')
        r->at++;
    r->tok_len = (size_t)(r->at - r->tok);
    return r->tok_len > 0;
}

static bool is(const bvh_reader *r, const char *word)
{
    return r->tok_len == strlen(word) && memcmp(r->tok, word, r->tok_len) == 0;
}

static bool expect(bvh_reader *r, const char *word)
{
    if (next_token(r) && is(r, word))
        return true;
    return fail(r, "expected \"%s\", found \"%.*s\"", word,
                (int)(r->tok_len > 40 ? 40 : r->tok_len), r->tok_len ? r->tok : "end of file");
}

/* Parses the number at s (up to end); false unless it is all of the token and finite. */
static bool parse_number(const char *s, const char *end, double *out)
{
    char *stop;
    errno = 0;
    const double d = strtod(s, &stop);
    if (stop != end || s == end || !isfinite(d) || fabs(d) > 1e30)
        return false;
    *out = d;
    return true;
}

static bool number(bvh_reader *r, const char *what, float *out)
{
    double d;
    if (!next_token(r) || !parse_number(r->tok, r->tok + r->tok_len, &d))
        return fail(r, "%s: \"%.*s\" is not a finite number", what,
                    (int)(r->tok_len > 40 ? 40 : r->tok_len), r->tok);
    *out = (float)d;
    return true;
}

static const char *const channel_names[6] = {"Xposition", "Yposition", "Zposition",
                                             "Xrotation", "Yrotation", "Zrotation"};

static bool read_channels(bvh_reader *r, ct_bvh_joint_t *j, uint32_t *total)
{
    float n;
    if (j->num_channels)
        return fail(r, "joint \"%s\" has a second CHANNELS line", j->name);
    if (!number(r, "CHANNELS", &n))
        return false;
    if (n < 0 || n > 6 || n != floorf(n))
        return fail(r, "CHANNELS %g: a joint has 0 to 6 channels", n);
    j->first_channel = *total;
    uint32_t seen = 0;
    for (uint32_t c = 0; c < (uint32_t)n; c++) {
        uint32_t k = 0;
        if (!next_token(r))
            return fail(r, "CHANNELS: the file ends after %u of %u channel names", c, (uint32_t)n);
        while (k < 6 && !is(r, channel_names[k]))
            k++;
        if (k == 6)
            return fail(r, "CHANNELS: \"%.*s\" is not one of Xposition .. Zrotation",
                        (int)(r->tok_len > 40 ? 40 : r->tok_len), r->tok);
        if (seen & (1u << k))
            return fail(r, "CHANNELS: %s appears twice", channel_names[k]);
        seen |= 1u << k;
        j->channels[c] = (uint8_t)k;
    }
    j->num_channels = (uint32_t)n;
    *total += j->num_channels;
    return true;
}

/* HIERARCHY up to and including the MOTION keyword. */
static bool read_hierarchy(bvh_reader *r, ct_bvh_t *b, ct_bvh_joint_t *joints)
{
    uint32_t stack[BVH_MAX_DEPTH], depth = 0, total = 0;
    if (!expect(r, "HIERARCHY"))
        return false;
    for (;;) {
        if (!next_token(r))
            return fail(r, "the file ends inside HIERARCHY (no MOTION section)");
        const bool root = is(r, "ROOT");
        if (depth == 0 && is(r, "MOTION"))
            break;
        if (root ? depth != 0 : (depth == 0 || !is(r, "JOINT"))) {
            if (depth && is(r, "OFFSET")) {
                ct_bvh_joint_t *j = &joints[stack[depth - 1]];
                if (!number(r, "OFFSET", &j->offset[0]) || !number(r, "OFFSET", &j->offset[1]) ||
                    !number(r, "OFFSET", &j->offset[2]))
                    return false;
            } else if (depth && is(r, "CHANNELS")) {
                if (!read_channels(r, &joints[stack[depth - 1]], &total))
                    return false;
            } else if (depth && is(r, "End")) {
                ct_bvh_joint_t *j = &joints[stack[depth - 1]];
                if (j->has_end_site)
                    return fail(r, "joint \"%s\" has a second End Site", j->name);
                j->has_end_site = true;
                if (!expect(r, "Site") || !expect(r, "{") || !expect(r, "OFFSET") ||
                    !number(r, "End Site OFFSET", &j->end_site[0]) ||
                    !number(r, "End Site OFFSET", &j->end_site[1]) ||
                    !number(r, "End Site OFFSET", &j->end_site[2]) || !expect(r, "}"))
                    return false;
            } else if (depth && is(r, "}")) {
                depth--;
            } else {
                return fail(r, "unexpected \"%.*s\" %s", (int)(r->tok_len > 40 ? 40 : r->tok_len),
                            r->tok, depth ? "inside a joint" : "(expected ROOT or MOTION)");
            }
            continue;
        }
        /* ROOT or JOINT name { */
        if (b->num_joints == BVH_MAX_JOINTS)
            return fail(r, "more than %u joints", BVH_MAX_JOINTS);
        if (depth == BVH_MAX_DEPTH)
            return fail(r, "joints nest deeper than %u", BVH_MAX_DEPTH);
        if (!next_token(r) || r->tok_len > BVH_MAX_NAME || is(r, "{"))
            return fail(r, "%s needs a name of 1 to %u bytes", root ? "ROOT" : "JOINT",
                        BVH_MAX_NAME);
        ct_bvh_joint_t *j = &joints[b->num_joints];
        j->name = formats__strndup(&r->arena, r->tok, r->tok_len);
        if (!j->name)
            return fail(r, "out of memory");
        j->parent = depth ? (int32_t)stack[depth - 1] : -1;
        j->first_channel = total;
        stack[depth++] = b->num_joints++;
        if (!expect(r, "{"))
            return false;
    }
    if (b->num_joints == 0)
        return fail(r, "no ROOT before MOTION");
    if (total == 0)
        return fail(r, "no joint has CHANNELS: there is no motion to read");
    b->num_channels = total;
    return true;
}

/* Reads the values of one line into out (at most max); returns how many, or -1 on a bad value. */
static int64_t read_line(bvh_reader *r, float *out, uint32_t max)
{
    int64_t n = 0;
    for (;;) {
        while (r->at < r->end && (*r->at == ' ' || *r->at == '\t' || *r->at == '\r'))
            r->at++;
        if (r->at == r->end || *r->at == '\n')
            return n;
        const char *s = r->at;
        while (r->at < r->end && *r->at != ' ' && *r->at != '\t' && *r->at != '\r' &&
               *r->at != '\n')
            r->at++;
        double d;
        if (!parse_number(s, r->at, &d)) {
            fail(r, "value %lld of the frame is \"%.*s\", not a finite number", (long long)n + 1,
                 (int)(r->at - s > 40 ? 40 : r->at - s), s);
            return -1;
        }
        if ((uint64_t)n < max)
            out[n] = (float)d;
        n++;
    }
}

static bool read_motion(bvh_reader *r, ct_bvh_t *b)
{
    float declared, frame_time;
    if (!expect(r, "Frames:") || !number(r, "Frames:", &declared) || !expect(r, "Frame") ||
        !expect(r, "Time:") || !number(r, "Frame Time:", &frame_time))
        return false;
    if (declared < 0 || declared != floorf(declared) || declared > (float)BVH_MAX_FRAMES)
        return fail(r, "Frames: %g is not a count of 0 to %u", declared, BVH_MAX_FRAMES);
    if (!(frame_time > 1e-6f) || frame_time > 10.0f)
        return fail(r, "Frame Time: %g s is not in 1e-6 .. 10", frame_time);
    b->declared_frames = (uint32_t)declared;
    b->frame_time = frame_time;
    /* The rest of the "Frame Time" line must be empty. */
    float scratch;
    if (read_line(r, &scratch, 0) != 0)
        return fail(r, "unexpected values after Frame Time");
    /* Size the frame array from what the text can hold: at most one frame per line with
     * something on it, and a frame of c values takes at least 2c bytes ("0 0 ... 0\n"). So the
     * array is never more than about twice the text (blank lines or short ones add nothing),
     * whatever the channel count. */
    uint64_t lines = 1;
    bool filled = false;
    for (const char *p = r->at; p < r->end; p++) {
        if (*p == '\n') {
            lines += filled;
            filled = false;
        } else if (*p != ' ' && *p != '\t' && *p != '\r') {
            filled = true;
        }
    }
    const uint64_t fit = (uint64_t)(r->end - r->at) / (2u * (uint64_t)b->num_channels) + 1u;
    if (lines > fit)
        lines = fit;
    if (lines > BVH_MAX_FRAMES + 1u)
        lines = BVH_MAX_FRAMES + 1u;
    float *frames = formats__alloc_array(&r->arena, (size_t)lines, b->num_channels * sizeof(float));
    if (!frames)
        return fail(r, "out of memory for %llu frames", (unsigned long long)lines);
    uint32_t n = 0;
    while (r->at < r->end) {
        if (*r->at == '\n') {
            r->at++;
            r->line++;
        }
        r->tok_line = r->line;
        if (n == BVH_MAX_FRAMES)
            return fail(r, "more than %u frames", BVH_MAX_FRAMES);
        /* Past the array nothing is written, only counted (the sizing above leaves no room for
         * a whole frame there, so such a line is refused below). */
        const int64_t got = read_line(r, frames + (size_t)(n < lines ? n : 0) * b->num_channels,
                                      n < lines ? b->num_channels : 0);
        if (got < 0)
            return false;
        if (got == 0)
            continue; /* blank line */
        if (n >= lines)
            return fail(r, "frame %u does not fit the text", n);
        if ((uint64_t)got != b->num_channels)
            return fail(r, "frame %u has %lld values, the hierarchy has %u channels", n,
                        (long long)got, b->num_channels);
        n++;
    }
    if (n == 0)
        return fail(r, "no frames follow Frame Time");
    b->num_frames = n;
    b->frames = frames;
    if (n != b->declared_frames) {
        char msg[160];
        snprintf(msg, sizeof msg, "Frames: says %u, but %u frame lines follow; all %u are used",
                 b->declared_frames, n, n);
        b->warning = formats__strndup(&r->arena, msg, strlen(msg));
    }
    return true;
}

ct_bvh_t *ct_bvh_parse(const char *text, size_t size, const char *name, ct_allocator_t *a,
                       char *err, size_t err_size)
{
    bvh_reader r = {.arena = {.allocator = a},
                    .name = name ? name : "(bvh)",
                    .err = err,
                    .err_size = err_size,
                    .line = 1};
    if (err && err_size)
        err[0] = '\0';
    bvh_holder *h = size <= BVH_MAX_TEXT ? formats__alloc(&r.arena, sizeof *h) : NULL;
    char *copy = h ? formats__strndup(&r.arena, text, size) : NULL;
    ct_bvh_joint_t *joints = formats__alloc_array(&r.arena, BVH_MAX_JOINTS, sizeof *joints);
    bool ok;
    if (!copy || !joints) {
        ok = fail(&r, size > BVH_MAX_TEXT ? "larger than 1 GB" : "out of memory");
    } else {
        r.text = r.at = copy;
        r.end = copy + size;
        h->bvh.name = formats__strndup(&r.arena, r.name, strlen(r.name));
        h->bvh.joints = joints;
        ok = h->bvh.name && read_hierarchy(&r, &h->bvh, joints) && read_motion(&r, &h->bvh);
    }
    if (!ok) {
        formats__arena_free(&r.arena);
        return NULL;
    }
    h->arena = r.arena;
    return &h->bvh;
}

ct_bvh_t *ct_bvh_load_file(const char *path, ct_allocator_t *a, char *err, size_t err_size)
{
    size_t len;
    char *text = (char *)ct_file_read(path, ct_heap_allocator(), BVH_MAX_TEXT, &len, err, err_size);
    if (!text)
        return NULL;
    ct_bvh_t *b = ct_bvh_parse(text, len, path, a, err, err_size);
    ct_free(ct_heap_allocator(), text, len + 1);
    return b;
}

void ct_bvh_free(ct_bvh_t *bvh)
{
    if (!bvh)
        return;
    formats__arena arena = ((bvh_holder *)bvh)->arena;
    formats__arena_free(&arena);
}

void ct_bvh_local_pose(const ct_bvh_t *bvh, uint32_t frame, uint32_t joint, double scale,
                       double translation[3], double rotation[4])
{
    const ct_bvh_joint_t *j = &bvh->joints[joint];
    const float *v = bvh->frames + (size_t)frame * bvh->num_channels + j->first_channel;
    const double deg = 3.14159265358979323846 / 180.0;
    double q[4] = {0, 0, 0, 1};
    for (int i = 0; i < 3; i++)
        translation[i] = j->offset[i];
    for (uint32_t c = 0; c < j->num_channels; c++) {
        const int axis = j->channels[c] % 3;
        if (j->channels[c] < CT_BVH_XROTATION) {
            translation[axis] += v[c];
        } else {
            double turn[4] = {0, 0, 0, cos(0.5 * v[c] * deg)};
            turn[axis] = sin(0.5 * v[c] * deg);
            ct_quat_mul(q, turn, q);
        }
    }
    for (int i = 0; i < 3; i++)
        translation[i] *= scale;
    for (int i = 0; i < 4; i++)
        rotation[i] = q[i];
}
