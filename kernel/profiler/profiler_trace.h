/* The --profile writer (Trace Event JSON). */
#ifndef CT_KERNEL_PROFILER_TRACE_H
#define CT_KERNEL_PROFILER_TRACE_H

#include "ct_types.h"

/* Starts writing every gathered scope to `path`. Returns 0, CT_ERR_IO (logged) or CT_ERR_FULL. */
int profiler__trace_open(const char *path);
/* Gathers what is left, finishes the file and closes it. Returns 0 or CT_ERR_IO (logged). */
int profiler__trace_close(void);

#endif
