/* gltf_animation.c: animation channels and samplers (LINEAR, STEP, CUBICSPLINE), checked against
 * what their target path needs, and their evaluation at a time. */
#include "gltf_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const path_names[] = {"translation", "rotation", "scale", "weights"};
static const char *const interpolation_names[] = {"LINEAR", "STEP", "CUBICSPLINE"};

/* Decodes a sampler's keys once its component count is known (from the first channel using it). */
static bool decode_sampler(gltf__reader *r, const cJSON *j, const char *where, ct_gltf_path path,
                           ct_gltf_sampler_t *s)
{
    int32_t in, out;
    const char *interp;
    if (!gltf__index(r, j, "input", where, r->num_accessors, "accessors", &in) ||
        !gltf__index(r, j, "output", where, r->num_accessors, "accessors", &out) ||
        !gltf__string(r, j, "interpolation", where, "LINEAR", &interp))
        return false;
    if (in < 0 || out < 0)
        return gltf__fail(r, "%s.%s: missing", where, in < 0 ? "input" : "output");
    uint32_t k = 0;
    while (k < 3 && strcmp(interp, interpolation_names[k]))
        k++;
    if (k == 3)
        return gltf__fail(r, "%s.interpolation: \"%s\" is not LINEAR, STEP or CUBICSPLINE", where,
                          interp);
    s->interpolation = (ct_gltf_interpolation)k;
    const gltf__accessor *ai = &r->accessors[in], *ao = &r->accessors[out];
    if (ai->components != 1 || ai->component_type != 5126)
        return gltf__fail(r, "%s.input: accessors[%d] must be float SCALAR", where, in);
    const uint32_t per_key = s->interpolation == CT_GLTF_CUBICSPLINE ? 3 : 1;
    const uint32_t want = path == CT_GLTF_ROTATION ? 4 : path == CT_GLTF_WEIGHTS ? 1 : 3;
    if (ao->components != want || !gltf__float_like(ao, path == CT_GLTF_ROTATION))
        return gltf__fail(r, "%s.output: accessors[%d] must be float%s %s for %s", where, out,
                          path == CT_GLTF_ROTATION ? " or normalized integer" : "",
                          want == 1   ? "SCALAR"
                          : want == 3 ? "VEC3"
                                      : "VEC4",
                          path_names[path]);
    /* Weights: one value per morph target, so the output holds keys * targets (* 3) scalars. */
    const uint64_t group = (uint64_t)ai->count * per_key;
    if (ao->count % group || (path != CT_GLTF_WEIGHTS && ao->count != group))
        return gltf__fail(r, "%s.output: accessors[%d] has %u elements, but %u keys%s need %s%llu",
                          where, out, ao->count, ai->count, per_key == 3 ? " of CUBICSPLINE" : "",
                          path == CT_GLTF_WEIGHTS ? "a multiple of " : "",
                          (unsigned long long)group);
    s->num_keys = ai->count;
    s->components = path == CT_GLTF_WEIGHTS ? (uint32_t)(ao->count / group) : want;
    float *times, *values;
    char w[GLTF_WHERE];
    gltf__where(w, "%s.input", where);
    if (!gltf__decode_floats(r, (uint32_t)in, w, &times))
        return false;
    for (uint32_t i = 0; i < s->num_keys; i++)
        if (times[i] < 0 || (i && !(times[i] > times[i - 1])))
            return gltf__fail(r, "%s: key %u at %g s is %s", w, i, times[i],
                              times[i] < 0 ? "negative" : "not after the key before it");
    gltf__where(w, "%s.output", where);
    if (!gltf__decode_floats(r, (uint32_t)out, w, &values))
        return false;
    s->times = times;
    s->values = values;
    return true;
}

static bool read_animation(gltf__reader *r, const cJSON *j, const char *where,
                           ct_gltf_animation_t *anim)
{
    const cJSON *channels, *samplers;
    if (!cJSON_IsObject(j))
        return gltf__fail(r, "%s: expected an object", where);
    if (!gltf__string(r, j, "name", where, "", &anim->name) ||
        !gltf__array(r, j, "channels", where, &channels) ||
        !gltf__array(r, j, "samplers", where, &samplers))
        return false;
    const uint32_t nc = channels ? (uint32_t)cJSON_GetArraySize(channels) : 0;
    const uint32_t ns = samplers ? (uint32_t)cJSON_GetArraySize(samplers) : 0;
    if (!nc || !ns)
        return gltf__fail(r, "%s.%s: missing or empty", where, nc ? "samplers" : "channels");
    ct_gltf_channel_t *ch = formats__alloc_array(&r->arena, nc, sizeof *ch);
    ct_gltf_sampler_t *sa = formats__alloc_array(&r->arena, ns, sizeof *sa);
    bool *decoded = formats__alloc_array(&r->arena, ns, sizeof *decoded);
    const cJSON **sj = formats__alloc_array(&r->arena, ns, sizeof *sj);
    if (!ch || !sa || !decoded || !sj)
        return gltf__nomem(r, where);
    uint32_t k = 0;
    for (const cJSON *e = samplers->child; e; e = e->next, k++)
        sj[k] = e;
    k = 0;
    for (const cJSON *e = channels->child; e; e = e->next, k++) {
        char cw[GLTF_WHERE], tw[GLTF_WHERE], sw[GLTF_WHERE];
        gltf__where(cw, "%s.channels[%u]", where, k);
        gltf__where(tw, "%s.target", cw);
        const cJSON *target;
        int32_t sampler, node;
        const char *path;
        if (!cJSON_IsObject(e))
            return gltf__fail(r, "%s: expected an object", cw);
        if (!gltf__index(r, e, "sampler", cw, ns, "samplers in this animation", &sampler) ||
            !gltf__object(r, e, "target", cw, &target))
            return false;
        if (sampler < 0 || !target)
            return gltf__fail(r, "%s.%s: missing", cw, sampler < 0 ? "sampler" : "target");
        if (!gltf__index(r, target, "node", tw, r->doc->num_nodes, "nodes", &node) ||
            !gltf__string(r, target, "path", tw, NULL, &path))
            return false;
        if (node < 0 || !path)
            return gltf__fail(r, "%s.%s: missing", tw, node < 0 ? "node" : "path");
        uint32_t p = 0;
        while (p < 4 && strcmp(path, path_names[p]))
            p++;
        if (p == 4)
            return gltf__fail(r, "%s.path: \"%s\" is not translation, rotation, scale or weights",
                              tw, path);
        ch[k] = (ct_gltf_channel_t){(uint32_t)sampler, (uint32_t)node, (ct_gltf_path)p};
        gltf__where(sw, "%s.samplers[%d]", where, sampler);
        if (!cJSON_IsObject(sj[sampler]))
            return gltf__fail(r, "%s: expected an object", sw);
        if (!decoded[sampler]) {
            if (!decode_sampler(r, sj[sampler], sw, (ct_gltf_path)p, &sa[sampler]))
                return false;
            decoded[sampler] = true;
        } else if (sa[sampler].components != (p == 1 ? 4u : p == 3 ? sa[sampler].components : 3u)) {
            return gltf__fail(r, "%s: used by channels of different paths", sw);
        }
        const float last = sa[sampler].times[sa[sampler].num_keys - 1];
        anim->duration = fmaxf(anim->duration, last);
    }
    for (k = 0; k < ns; k++)
        if (!decoded[k])
            return gltf__fail(r, "%s.samplers[%u]: no channel uses it", where, k);
    anim->channels = ch, anim->num_channels = nc;
    anim->samplers = sa, anim->num_samplers = ns;
    return true;
}

bool gltf__read_animations(gltf__reader *r)
{
    ct_gltf_t *doc = r->doc;
    ct_gltf_animation_t *anims =
        formats__alloc_array(&r->arena, doc->num_animations + 1u, sizeof *anims);
    if (!anims)
        return gltf__nomem(r, "animations");
    doc->animations = anims;
    const cJSON *list = gltf__member(r->root, "animations");
    uint32_t i = 0;
    for (const cJSON *j = list ? list->child : NULL; j; j = j->next, i++) {
        char where[GLTF_WHERE];
        gltf__where(where, "animations[%u]", i);
        if (!read_animation(r, j, where, &anims[i]))
            return false;
    }
    return true;
}

/* ---- evaluation ------------------------------------------------------------------------------ */

static void normalize4(float *q)
{
    const float n = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++)
        q[i] = n > 0 ? q[i] / n : (i == 3);
}

static void slerp(const float *a, const float *b, float t, float *out)
{
    float d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    const float sign = d < 0 ? -1.0f : 1.0f;
    d *= sign;
    float wa = 1 - t, wb = t;
    if (d < 0.9995f) {
        const float angle = acosf(d), s = sinf(angle);
        wa = sinf((1 - t) * angle) / s;
        wb = sinf(t * angle) / s;
    }
    for (int i = 0; i < 4; i++)
        out[i] = wa * a[i] + sign * wb * b[i];
    normalize4(out);
}

void ct_gltf_sample(const ct_gltf_sampler_t *s, ct_gltf_path path, float t, float *out)
{
    const uint32_t c = s->components, n = s->num_keys;
    const bool cubic = s->interpolation == CT_GLTF_CUBICSPLINE;
    /* Element v (0 in-tangent, 1 value, 2 out-tangent) of key k. */
#define KEY(k, v) (s->values + ((size_t)(k) * (cubic ? 3 : 1) + (cubic ? (v) : 0)) * c)
    uint32_t k = 0;
    if (t <= s->times[0] || n == 1) {
        memcpy(out, KEY(0, 1), c * sizeof *out);
    } else if (t >= s->times[n - 1]) {
        memcpy(out, KEY(n - 1, 1), c * sizeof *out);
    } else {
        uint32_t lo = 0, hi = n - 1; /* times[lo] <= t < times[hi] */
        while (hi - lo > 1) {
            const uint32_t mid = lo + (hi - lo) / 2;
            if (s->times[mid] <= t)
                lo = mid;
            else
                hi = mid;
        }
        k = lo;
        const float dt = s->times[k + 1] - s->times[k], u = (t - s->times[k]) / dt;
        if (s->interpolation == CT_GLTF_STEP) {
            memcpy(out, KEY(k, 1), c * sizeof *out);
        } else if (!cubic) {
            if (path == CT_GLTF_ROTATION)
                slerp(KEY(k, 1), KEY(k + 1, 1), u, out);
            else
                for (uint32_t i = 0; i < c; i++)
                    out[i] = KEY(k, 1)[i] + (KEY(k + 1, 1)[i] - KEY(k, 1)[i]) * u;
        } else {
            const float u2 = u * u, u3 = u2 * u;
            const float h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u;
            const float h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
            for (uint32_t i = 0; i < c; i++)
                out[i] = h00 * KEY(k, 1)[i] + h10 * dt * KEY(k, 2)[i] + h01 * KEY(k + 1, 1)[i] +
                         h11 * dt * KEY(k + 1, 0)[i];
        }
    }
#undef KEY
    if (path == CT_GLTF_ROTATION)
        normalize4(out);
}
