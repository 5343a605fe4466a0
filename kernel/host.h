/* The "ct.host" API (api/ct_host.h): command-line options kept for modules, and the project
 * folder. main.c fills it before boot and asks after boot which options nobody read. */
#ifndef CT_KERNEL_HOST_H
#define CT_KERNEL_HOST_H

#include "ct_host.h"

/* Keeps `--name [value]` (name with its dashes; value NULL for a flag). Returns 0, or 2 when the
 * table of options is full (reported). The strings must outlive the kernel (argv does). */
int host__add_option(const char *name, const char *value);
/* The project folder modules see (NULL: none). */
void host__set_project_dir(const char *dir);
/* Reports every kept option no module read; returns how many. */
uint32_t host__report_unread(void);
const ct_host_api_v1 *host__api_v1(void);
const ct_host_api_v2 *host__api_v2(void);

#endif
