/* The "ct.datamodel" v1 table: each file fills in its part, once. */
#include "datamodel.h"
#include "datamodel_internal.h"

#include <pthread.h>

void dm_changeset__fill(ct_datamodel_api_v1 *api);
void dm_copy__fill(ct_datamodel_api_v1 *api);
void dm_level__fill(ct_datamodel_api_v1 *api);

static ct_datamodel_api_v1 api;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void fill(void)
{
    dm_doc__fill(&api);
    api.check = dm_integrity__check;
    api.replace = dm_integrity__replace;
    dm_changeset__fill(&api);
    dm_copy__fill(&api);
    dm_level__fill(&api);
}

const ct_datamodel_api_v1 *datamodel__api_v1(void)
{
    pthread_once(&once, fill);
    return &api;
}
