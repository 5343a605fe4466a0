/* Options for modules: a small fixed table, read by name (see api/ct_host.h). */
#include "host.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/log.h"
#include "ct_types.h"
#include "resources/resources.h"

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
        fprintf(stderr, "cuttle: too many module options (at most %d), at %s\n", HOST_MAX_OPTIONS,
                name);
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

/* The output folder: --output DIR (read here, so it counts as read), else the working folder. */
static const char *output_dir(void)
{
    const char *dir = option("output");
    return dir && *dir ? dir : ".";
}

/* Each step below the output folder must be a real folder (made when missing) and the file, when
 * it exists, a regular file: lstat sees a link as a link, so none is followed. */
static int output_path(const char *name, char *out, size_t out_size, char *err, size_t err_size)
{
    char why[256];
    if (!name || resources__check_name(name, why, sizeof why)) {
        snprintf(err, err_size, "output '%.200s' is not a canonical relative path: %s",
                 name ? name : "(null)", name ? why : "no name");
        return CT_ERR_INVALID;
    }
    const int n = snprintf(out, out_size, "%s/%s", output_dir(), name);
    if (n < 0 || (size_t)n >= out_size) {
        snprintf(err, err_size, "output '%.200s': the path is too long", name);
        return CT_ERR_INVALID;
    }
    struct stat st;
    const size_t base = strlen(output_dir()) + 1;
    for (char *slash = strchr(out + base, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        int r = lstat(out, &st);
        if (r != 0 && errno == ENOENT && mkdir(out, 0755) == 0)
            r = lstat(out, &st);
        const bool dir = r == 0 && S_ISDIR(st.st_mode);
        if (!dir)
            snprintf(err, err_size, "output '%.200s': '%.200s' is %s", name, out,
                     r != 0 ? "a folder that cannot be made" : "not a folder (a link?)");
        *slash = '/';
        if (!dir)
            return r != 0 ? CT_ERR_IO : CT_ERR_INVALID;
    }
    if (lstat(out, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(err, err_size,
                 "output '%.200s' exists and is not a regular file (a link, FIFO "
                 "or device)",
                 name);
        return CT_ERR_INVALID;
    }
    return 0;
}

uint32_t host__report_unread(void)
{
    (void)output_dir(); /* the kernel's own option */
    uint32_t n = 0;
    for (uint32_t i = 0; i < host.num_options; i++)
        if (!host.options[i].read) {
            log__error("unknown option --%s: neither the kernel nor a loaded module reads it "
                       "(cuttle --help lists the kernel's)",
                       host.options[i].name);
            n++;
        }
    return n;
}

const ct_host_api_v1 *host__api_v1(void)
{
    static const ct_host_api_v1 api = {.option = option, .project_dir = project_dir};
    return &api;
}

const ct_host_api_v2 *host__api_v2(void)
{
    static const ct_host_api_v2 api = {
        .option = option,
        .project_dir = project_dir,
        .output_path = output_path,
    };
    return &api;
}
