/* The data model's library entry: the table the kernel serves as "ct.datamodel" v1 and that tools
 * linking libcuttle_datamodel call directly (one copy of the code). */
#ifndef CT_KERNEL_DATAMODEL_H
#define CT_KERNEL_DATAMODEL_H

#include "ct_datamodel.h"

const ct_datamodel_api_v1 *datamodel__api_v1(void);

/* The `DataModel` Lua module (datamodel_lua.c, compiled into the kernel library, which owns the
 * Lua state): registers it in the kernel's state. */
int datamodel__bind_lua(void);

#endif
