/* The one way compilers check the fields they read (ct_resource_api_v2.check_fields): every
 * member known, of the declared type, arrays of numbers of the declared length and finite. A
 * source tree is a cJSON tree (kernel/data), walked directly. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "data/nearest.h"
#include "data/sjson.h"
#include "resources_internal.h"

#define FIELDS_MAX_KNOWN 64 /* names offered as "known: ..." and to the nearest-name search */

static const char *type_name(int32_t type)
{
    switch (type) {
    case CT_DATA_NULL: return "null";
    case CT_DATA_BOOL: return "true or false";
    case CT_DATA_NUMBER: return "a number";
    case CT_DATA_STRING: return "a string";
    case CT_DATA_ARRAY: return "an array";
    case CT_DATA_OBJECT: return "an object";
    default: return "a value";
    }
}

static int32_t type_of(const cJSON *n) { return data__api_v1()->type((const ct_data_o *)n); }

static const ct_field_t *find_field(const ct_field_t *fields, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (fields[i].name && strcmp(fields[i].name, name) == 0)
            return &fields[i];
    return NULL;
}

static void report_unknown(ct_compile_ctx_o *ctx, const char *what, const char *key,
                           const ct_field_t *fields, uint32_t n)
{
    const char *names[FIELDS_MAX_KNOWN] = {0};
    char known[512] = "";
    uint32_t count = n < FIELDS_MAX_KNOWN ? n : FIELDS_MAX_KNOWN;
    for (uint32_t i = 0; i < count; i++) {
        names[i] = fields[i].name;
        size_t used = strlen(known);
        snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "", names[i]);
    }
    const char *near = data__nearest_name(key, names, count);
    if (near)
        resources__compile_error(ctx, "%s%s%s: unknown field (did you mean '%s'?)",
                                 what ? what : "", what ? "." : "", key, near);
    else
        resources__compile_error(ctx, "%s%s%s: unknown field (known: %s)", what ? what : "",
                                 what ? "." : "", key, count ? known : "none");
}

/* An array that must hold exactly f->numbers finite numbers. */
static bool check_numbers(ct_compile_ctx_o *ctx, const char *what, const ct_field_t *f,
                          const cJSON *array)
{
    int size = cJSON_GetArraySize(array);
    if (size != (int)f->numbers) {
        resources__compile_error(ctx, "%s%s%s: expected an array of %u numbers, not %d values",
                                 what ? what : "", what ? "." : "", f->name, f->numbers, size);
        return false;
    }
    int k = 0;
    for (const cJSON *v = array->child; v; v = v->next, k++) {
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || !isfinite((float)v->valuedouble)) {
            resources__compile_error(ctx, "%s%s%s[%d]: expected a finite number, not %s",
                                     what ? what : "", what ? "." : "", f->name, k,
                                     cJSON_IsNumber(v) ? "one out of range"
                                                       : type_name(type_of(v)));
            return false;
        }
    }
    return true;
}

bool resources__check_fields(ct_compile_ctx_o *ctx, const struct ct_data_o *object,
                             const char *what, const ct_field_t *fields, uint32_t num_fields)
{
    const cJSON *o = (const cJSON *)object;
    if (!cJSON_IsObject(o)) {
        resources__compile_error(ctx, "%s: expected an object, not %s", what ? what : "value",
                                 o ? type_name(type_of(o)) : "nothing");
        return false;
    }
    if (!fields && num_fields) {
        resources__compile_error(ctx, "%s: check_fields given no fields", what ? what : "value");
        return false;
    }
    bool ok = true;
    for (const cJSON *m = o->child; m; m = m->next) {
        const ct_field_t *f = find_field(fields, num_fields, m->string);
        if (!f) {
            report_unknown(ctx, what, m->string, fields, num_fields);
            ok = false;
            continue;
        }
        int32_t type = type_of(m);
        if (f->type != CT_DATA_INVALID && type != f->type) {
            resources__compile_error(ctx, "%s%s%s: expected %s, not %s", what ? what : "",
                                     what ? "." : "", f->name, type_name(f->type), type_name(type));
            ok = false;
        } else if (f->type == CT_DATA_ARRAY && f->numbers && !check_numbers(ctx, what, f, m)) {
            ok = false;
        }
    }
    return ok;
}
