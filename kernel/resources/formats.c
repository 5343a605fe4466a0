/*
 * Formats that compiled data depends on besides its resource type's own format_version
 * (ct_resource_api_v6.declare_format): a component type's instance layout inside every level and
 * unit is the case that needs it. A module declares "component.mesh" = 3 when it registers the
 * type; the entities compiler notes that a unit used it (uses_format) and writes 3 beside the
 * section; cuttle-compile keeps the version per source and compiles the source again when the
 * declared version changes; the loader refuses a section of another version with "recompile".
 *
 * A small table: a project has tens of component types, not thousands. Main thread only.
 */
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "resources_internal.h"

#define MAX_FORMATS 512

static struct {
    char what[MAX_FORMATS][RESOURCES_MAX_FORMAT_NAME + 1];
    uint32_t version[MAX_FORMATS];
    uint32_t count;
} g_formats;

/* Names are kept in the manifest as "what=version" words: no space, '=' or control byte. */
static bool format_name(const char *what)
{
    if (!what || !what[0] || strlen(what) > RESOURCES_MAX_FORMAT_NAME)
        return false;
    for (const char *p = what; *p; p++)
        if ((unsigned char)*p <= ' ' || *p == '=' || *p == 0x7f)
            return false;
    return true;
}

static int find(const char *what)
{
    for (uint32_t i = 0; i < g_formats.count; i++)
        if (strcmp(g_formats.what[i], what) == 0)
            return (int)i;
    return -1;
}

void resources__declare_format(const char *what, uint32_t version)
{
    if (!format_name(what)) {
        log__error("resources: declare_format: \"%s\" is not a format name (1 to %d bytes, "
                   "no space, '=' or control character)",
                   what ? what : "(null)", RESOURCES_MAX_FORMAT_NAME);
        return;
    }
    int i = find(what);
    if (i < 0) {
        if (g_formats.count == MAX_FORMATS) {
            log__error("resources: declare_format: more than %d formats; \"%s\" is not kept",
                       MAX_FORMATS, what);
            return;
        }
        i = (int)g_formats.count++;
        snprintf(g_formats.what[i], sizeof g_formats.what[i], "%s", what);
    }
    g_formats.version[i] = version; /* a reload may declare a new version */
}

uint32_t resources__format(const char *what)
{
    const int i = what ? find(what) : -1;
    return i < 0 ? 0 : g_formats.version[i];
}

void resources__forget_formats(void) { g_formats.count = 0; }

bool resources__uses_format(ct_compile_ctx_o *ctx, const char *what)
{
    if (!format_name(what)) {
        resources__compile_error(ctx, "uses_format: \"%s\" is not a format name",
                                 what ? what : "(null)");
        return false;
    }
    resources_compile_record_t *r = ctx ? resources__ctx_record(ctx) : NULL;
    if (!r)
        return true;
    for (uint32_t i = 0; i < r->num_formats; i++)
        if (strcmp(r->formats[i].what, what) == 0)
            return true;
    if (r->num_formats == RESOURCES_MAX_FORMATS_USED) {
        resources__compile_error(ctx, "uses more than %d formats", RESOURCES_MAX_FORMATS_USED);
        return false;
    }
    snprintf(r->formats[r->num_formats].what, sizeof r->formats[0].what, "%s", what);
    r->formats[r->num_formats++].version = resources__format(what);
    return true;
}
