/* The private folder a `--host` node copies its project's scripts into, and the ones left behind.
 *
 * A node removes its folder when it exits, but not when it is killed (SIGKILL, a crash). So the
 * folder's name says whose it is: <tmp>/cuttle-host-<pid>-<start>-XXXXXX (base/leftovers.h), and
 * each node, before it makes its own, removes the folders of that form whose owner is gone. */
#include "console/console_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/leftovers.h"
#include "base/log.h"

/* mkdtemp's six characters. */
static bool six_characters(const char *suffix) { return strlen(suffix) == 6; }

static const leftovers_kind_t host_folders = {
    .prefix = "cuttle-host-",
    .suffix_ok = six_characters,
    .folder = true,
    .what = "the private folder of a --host node",
};

uint32_t host_folder__sweep(const char *tmp_dir)
{
    return leftovers__sweep(&host_folders, tmp_dir);
}

int host_folder__make(char *dir, size_t size)
{
    char tmp[512];
    leftovers__tmp_dir(tmp, sizeof tmp);
    host_folder__sweep(tmp);
    bool fits = leftovers__name(&host_folders, tmp, dir, size) && strlen(dir) + 6 < size;
    if (fits)
        strcat(dir, "XXXXXX");
    if (!fits || !mkdtemp(dir)) {
        log__error("--host: cannot make a private folder in %s: %s", tmp,
                   !fits ? "its path is too long" : strerror(errno));
        dir[0] = '\0';
        return CT_ERR_IO;
    }
    return 0;
}

void host_folder__remove(const char *dir)
{
    if (dir[0])
        leftovers__remove_folder(dir);
}
