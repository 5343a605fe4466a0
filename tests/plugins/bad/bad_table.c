/* A plugin that provides ct.log v1 with a table the loader must refuse before anyone calls it
 * (issue 25, defect 1): NULL_SLOT leaves error_name NULL; WRONG_SIZE declares the table as a
 * struct of another size (as a plugin built against another header would). */
#include <stdarg.h>

#include "ct_log.h"
#include "ct_plugin.h"

static void write_line(ct_plugin_o *self, ct_log_level level, const char *fmt, ...)
{
    (void)self, (void)level, (void)fmt;
}
static uint64_t count(ct_log_level level)
{
    (void)level;
    return 0;
}
static const char *name_of(int code)
{
    (void)code;
    return "?";
}

static const ct_log_api_v1 table = {
    .write = write_line,
    .count = count,
#ifndef NULL_SLOT
    .error_name = name_of,
#endif
    .error_message = name_of,
};

#ifdef WRONG_SIZE
#define TABLE_SIZE (sizeof table - sizeof(void *))
#else
#define TABLE_SIZE sizeof table
#endif
static const ct_api_ref_t provides[] = {{CT_LOG_API, 1, TABLE_SIZE, 0, "ct.log"}};

static int init(ct_get_api_f get_engine_api, ct_plugin_o *self)
{
    (void)get_engine_api, (void)self;
    return 0;
}

static const ct_plugin_api_v1 plugin = {
    .name = PLUGIN_NAME,
    .version = {1, 0, 0},
    .provides = provides,
    .num_provides = 1,
    .init = init,
};

CT_EXPORT void *get_plugin_api(uint32_t api, uint32_t version)
{
    if (api == CT_PLUGIN_API && version == 1)
        return (void *)&plugin;
    if (api == CT_LOG_API && version == 1)
        return (void *)&table;
    return NULL;
}
