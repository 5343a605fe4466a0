/* Options for modules: a small fixed table, read by name (see api/ct_host.h). */
#include "host.h"

#include <stdio.h>
#include <string.h>

#include "base/log.h"

#define HOST_MAX_OPTIONS 32

typedef struct host_option_t {
    const char *name; /* without the leading dashes */
    const char *value;
    bool read;
} host_option_t;

static struct {
    host_option_t options[HOST_MAX_OPTIONS];
    uint32_t num_options;
    const char *project_dir;
} host;

int host__add_option(const char *name, const char *value)
{
    if (host.num_options == HOST_MAX_OPTIONS) {
        fprintf(stderr, "cuttle: too many module options (at most %d), at %s\n", HOST_MAX_OPTIONS, name);
        return 2;
    }
    while (*name == '-')
        name++;
    host.options[host.num_options++] = (host_option_t){name, value ? value : "", false};
    return 0;
}

void host__set_project_dir(const char *dir) { host.project_dir = dir; }

static const char *option(const char *name)
{
    const char *found = NULL;
    for (uint32_t i = 0; name && i < host.num_options; i++)
        if (!strcmp(host.options[i].name, name)) {
            host.options[i].read = true;
            found = host.options[i].value;
        }
    return found;
}

static const char *project_dir(void) { return host.project_dir; }

uint32_t host__report_unread(void)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < host.num_options; i++)
        if (!host.options[i].read) {
            log__error("unknown option --%s: neither the kernel nor a loaded module reads it "
                       "(cuttle --help lists the kernel's)", host.options[i].name);
            n++;
        }
    return n;
}

const ct_host_api_v1 *host__api_v1(void)
{
    static const ct_host_api_v1 api = {.option = option, .project_dir = project_dir};
    return &api;
}
