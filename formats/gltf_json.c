/* gltf_json.c: typed access to the JSON fields of a glTF document, each failure naming the field. */
#include "gltf_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

bool gltf__fail(gltf__reader *r, const char *fmt, ...)
{
    if (!r->err || !r->err_size)
        return false;
    int n = snprintf(r->err, r->err_size, "%s: ", r->name);
    if (n < 0 || (size_t)n >= r->err_size)
        return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err + n, r->err_size - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

void gltf__where(char *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, GLTF_WHERE, fmt, ap);
    va_end(ap);
}

bool gltf__nomem(gltf__reader *r, const char *where)
{
    return gltf__fail(r, "%s: out of memory", where);
}

const cJSON *gltf__member(const cJSON *obj, const char *key)
{
    return cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
}

static const char *json_type_name(const cJSON *v)
{
    if (cJSON_IsNumber(v))
        return "a number";
    if (cJSON_IsString(v))
        return "a string";
    if (cJSON_IsArray(v))
        return "an array";
    if (cJSON_IsObject(v))
        return "an object";
    if (cJSON_IsBool(v))
        return "a boolean";
    return "null";
}

bool gltf__array(gltf__reader *r, const cJSON *obj, const char *key, const char *where,
                 const cJSON **out)
{
    const cJSON *v = gltf__member(obj, key);
    *out = NULL;
    if (v && !cJSON_IsArray(v))
        return gltf__fail(r, "%s.%s: expected an array, found %s", where, key, json_type_name(v));
    *out = v;
    return true;
}

bool gltf__object(gltf__reader *r, const cJSON *obj, const char *key, const char *where,
                  const cJSON **out)
{
    const cJSON *v = gltf__member(obj, key);
    *out = NULL;
    if (v && !cJSON_IsObject(v))
        return gltf__fail(r, "%s.%s: expected an object, found %s", where, key, json_type_name(v));
    *out = v;
    return true;
}

bool gltf__uint(gltf__reader *r, const cJSON *obj, const char *key, const char *where,
                bool required, uint32_t fallback, uint32_t max, uint32_t *out)
{
    const cJSON *v = gltf__member(obj, key);
    if (!v) {
        *out = fallback;
        return required ? gltf__fail(r, "%s.%s: missing", where, key) : true;
    }
    if (!cJSON_IsNumber(v))
        return gltf__fail(r, "%s.%s: expected a non-negative integer, found %s", where, key,
                          json_type_name(v));
    const double d = v->valuedouble;
    if (!(d >= 0.0) || d != floor(d) || d > (double)max)
        return gltf__fail(r, "%s.%s: %g is not an integer in 0..%u", where, key, d, max);
    *out = (uint32_t)d;
    return true;
}

bool gltf__index(gltf__reader *r, const cJSON *obj, const char *key, const char *where,
                 uint32_t limit, const char *what, int32_t *out)
{
    uint32_t i;
    *out = -1;
    if (!gltf__uint(r, obj, key, where, false, UINT32_MAX, INT32_MAX, &i))
        return false;
    if (i == UINT32_MAX)
        return true;
    if (i >= limit)
        return gltf__fail(r, "%s.%s: %u is out of range (the document has %u %s)", where, key, i,
                          limit, what);
    *out = (int32_t)i;
    return true;
}

bool gltf__number(gltf__reader *r, const cJSON *obj, const char *key, const char *where,
                  float fallback, float lo, float hi, float *out)
{
    const cJSON *v = gltf__member(obj, key);
    *out = fallback;
    if (!v)
        return true;
    if (!cJSON_IsNumber(v))
        return gltf__fail(r, "%s.%s: expected a number, found %s", where, key, json_type_name(v));
    const double d = v->valuedouble;
    if (!isfinite(d) || d < lo || d > hi)
        return gltf__fail(r, "%s.%s: %g is outside %g..%g", where, key, d, lo, hi);
    *out = (float)d;
    return true;
}

bool gltf__numbers(gltf__reader *r, const cJSON *obj, const char *key, const char *where,
                   uint32_t n, float *out, bool *present)
{
    const cJSON *a;
    if (present)
        *present = false;
    if (!gltf__array(r, obj, key, where, &a))
        return false;
    if (!a)
        return true;
    if ((uint32_t)cJSON_GetArraySize(a) != n)
        return gltf__fail(r, "%s.%s: expected %u numbers, found %d", where, key, n,
                          cJSON_GetArraySize(a));
    uint32_t i = 0;
    for (const cJSON *v = a->child; v; v = v->next, i++) {
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || fabs(v->valuedouble) > 3.0e38)
            return gltf__fail(r, "%s.%s[%u]: expected a finite number", where, key, i);
        out[i] = (float)v->valuedouble;
    }
    if (present)
        *present = true;
    return true;
}

bool gltf__string(gltf__reader *r, const cJSON *obj, const char *key, const char *where,
                  const char *fallback, const char **out)
{
    const cJSON *v = gltf__member(obj, key);
    *out = fallback;
    if (!v)
        return true;
    if (!cJSON_IsString(v))
        return gltf__fail(r, "%s.%s: expected a string, found %s", where, key, json_type_name(v));
    char *s = formats__strndup(&r->arena, v->valuestring, strlen(v->valuestring));
    if (!s)
        return gltf__nomem(r, where);
    *out = s;
    return true;
}

bool gltf__top_count(gltf__reader *r, const char *key, uint32_t *out)
{
    const cJSON *a;
    *out = 0;
    if (!gltf__array(r, r->root, key, "document", &a))
        return false;
    if (a)
        *out = (uint32_t)cJSON_GetArraySize(a);
    return true;
}

/* Appends ".key" or "[i]" to a path, truncating (with "...") rather than overflowing. */
static void path_push(char *path, size_t size, const cJSON *parent, const cJSON *child, int i)
{
    const size_t n = strlen(path);
    if (n + 4 >= size)
        return;
    if (cJSON_IsArray(parent))
        snprintf(path + n, size - n, "[%d]", i);
    else
        snprintf(path + n, size - n, "%s%s", n ? "." : "", child->string);
}

/* The walk is recursive; cJSON already refuses nesting deeper than CJSON_NESTING_LIMIT (1000). */
static bool check_fields(gltf__reader *r, const cJSON *node, char *path, size_t size)
{
    const size_t len = strlen(path);
    int i = 0;
    for (const cJSON *c = node->child; c; c = c->next, i++) {
        path_push(path, size, node, c, i);
        if (cJSON_IsObject(node) && strcmp(c->string, "extras") == 0) {
            /* Application data: anything goes. */
        } else if (cJSON_IsObject(node) && strcmp(c->string, "name") == 0 && !cJSON_IsString(c)) {
            return gltf__fail(r, "%s: expected a string, found %s", path, json_type_name(c));
        } else if (cJSON_IsObject(node) && strcmp(c->string, "extensions") == 0) {
            if (!cJSON_IsObject(c))
                return gltf__fail(r, "%s: expected an object, found %s", path, json_type_name(c));
            for (const cJSON *e = c->child; e; e = e->next)
                if (!cJSON_IsObject(e))
                    return gltf__fail(r, "%s.%s: expected an object, found %s", path, e->string,
                                      json_type_name(e));
        } else if ((cJSON_IsObject(c) || cJSON_IsArray(c)) && !check_fields(r, c, path, size)) {
            return false;
        }
        path[len] = '\0';
    }
    return true;
}

bool gltf__check_generic_fields(gltf__reader *r)
{
    char path[GLTF_WHERE] = "";
    return check_fields(r, r->root, path, sizeof path);
}
