/* Kernel job service: a worker pool on libuv threads; behind ct_jobs_api_v1. */
#ifndef CT_KERNEL_JOBS_H
#define CT_KERNEL_JOBS_H

#include "ct_jobs.h"

/* Starts `threads` - 1 workers (0: one per core). Returns 0 or a negative ct_error. */
int jobs__init(uint32_t threads);
void jobs__shutdown(void);
const ct_jobs_api_v1 *jobs__api_v1(void);

#endif
