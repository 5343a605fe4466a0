/* Fuzz target: project.sjson. Every input is read as a project file, strict and not; a read either
 * refuses with a message or gives settings within their documented ranges. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "project.h"

static void check(const project_t *p)
{
    if (p->num_modules > PROJECT_MAX_ENTRIES || p->num_pins > PROJECT_MAX_ENTRIES ||
        p->num_providers > PROJECT_MAX_ENTRIES || p->frames > 1000000000u ||
        strnlen(p->boot_script, sizeof p->boot_script) == sizeof p->boot_script)
        abort();
    for (uint32_t i = 0; i < p->num_modules; i++)
        if (!p->modules[i][0])
            abort();
    /* A boot script is always DIR/canonical-name: never a way out. */
    if (p->boot_script[0] && (strstr(p->boot_script, "/../") || strstr(p->boot_script, "//")))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool quiet;
    if (!quiet) {
        log__set_level(CT_LOG_ERROR); /* warnings about typos would be most of the output */
        quiet = true;
    }
    /* An exactly-sized copy, so a read past the end is caught under ASan. */
    char *text = malloc(size ? size : 1);
    memcpy(text, data, size);
    for (int strict = 0; strict < 2; strict++) {
        project_t p;
        if (project__parse("/tmp", "fuzz/project.sjson", text, size, strict, &p) == 0) {
            check(&p);
            project__free(&p);
        }
    }
    free(text);
    return 0;
}
