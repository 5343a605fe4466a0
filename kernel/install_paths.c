/* Where an installed engine keeps its modules, found from the running program's own path. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <uv.h>

#include "kernel.h"

bool kernel__installed_module_dir(char *out, size_t size)
{
    const char *rel = CUTTLE_MODULES_FROM_BINDIR;
    char exe[4096];
    size_t len = sizeof exe;
    int n;
    if (rel[0] == '/') {
        n = snprintf(out, size, "%s", rel);
    } else {
        if (uv_exepath(exe, &len) != 0)
            return false;
        char *slash = strrchr(exe, '/');
        if (!slash)
            return false;
        *slash = '\0';
        n = snprintf(out, size, "%s/%s", exe, rel);
    }
    struct stat st;
    return n > 0 && (size_t)n < size && stat(out, &st) == 0 && S_ISDIR(st.st_mode);
}
