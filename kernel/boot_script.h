/* With --watch, the project's boot script is reloaded when its file changes. */
#ifndef CT_KERNEL_BOOT_SCRIPT_H
#define CT_KERNEL_BOOT_SCRIPT_H

#include <uv.h>

#include "ct_types.h"

/* Starts watching `path` (the script already ran). Returns 0 or CT_ERR_IO (logged). */
int boot_script__watch(uv_loop_t *loop, const char *path);
/* The safe point: when the file changed and then stayed quiet for a quarter of a second, runs it
 * again and calls its reload() (see README, "Hot reload"). Returns true when it reloaded. */
bool boot_script__apply_reload(void);
/* Stops watching; the handle closes on the loop's next turn. */
void boot_script__unwatch(void);

#endif
