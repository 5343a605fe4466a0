/* The data model's library entry: the table the kernel serves as "ct.datamodel" v1 and that tools
 * linking libcuttle_datamodel call directly (one copy of the code). */
#ifndef CT_KERNEL_DATAMODEL_H
#define CT_KERNEL_DATAMODEL_H

#include "ct_datamodel.h"

const ct_datamodel_api_v1 *datamodel__api_v1(void);

/* Sorts n entities of a level document (items, GUIDs) into the order write_level writes a list
 * in: by @order (0 when an entity has none), then by GUID. `orders` (NULL: not wanted) gets each
 * one's @order, in the sorted order. False when out of memory (items unchanged). cuttle-merge
 * ranks each side's lists with it, so it always agrees with the writer. */
bool datamodel__sort_entities(ct_dm_doc_o *doc, ct_guid_t *items, double *orders, uint32_t n);

/* Where documents' lookup tables (GUID -> object, object and key -> property, interned keys and
 * authors) take their memory from: `a`, or the C heap (NULL, the default, which also keeps big
 * blocks for the next document). A table keeps the allocator it was first made with, so set this
 * before making the documents it is for, while no other thread makes or changes documents.
 * Documents work without their tables, more slowly: a table that cannot grow leaves a property to
 * be found by a search. Tests pass an allocator that fails to reach those paths. */
void datamodel__set_index_allocator(ct_allocator_t *a);

/* The `DataModel` Lua module (datamodel_lua.c, compiled into the kernel library, which owns the
 * Lua state): registers it in the kernel's state. */
int datamodel__bind_lua(void);

#endif
