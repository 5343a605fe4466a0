#include "datamodel_internal.h"
void dm_changeset__fill(ct_datamodel_api_v1 *api) { (void)api; }
