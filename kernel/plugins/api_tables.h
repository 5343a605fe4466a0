/* The shape of every ct.* API table as this kernel's headers define it, generated at build time
 * (tools/abi/api_tables.py writes api_tables.c): the loader checks a plugin's provided ct.* table
 * against it before anyone calls through it (issue 25, defect 1). */
#ifndef CT_KERNEL_PLUGINS_API_TABLES_H
#define CT_KERNEL_PLUGINS_API_TABLES_H

#include <stddef.h>
#include <stdint.h>

/* A function slot a provider must fill (the header does not mark it "optional slot"). */
typedef struct api_slot_t {
    size_t offset;
    const char *name;
} api_slot_t;

typedef struct api_table_t {
    const char *name; /* "ct.log" */
    uint32_t id;
    uint32_t version;
    size_t size;             /* sizeof the struct */
    const char *struct_name; /* "ct_log_api_v1" */
    const api_slot_t *slots;
    unsigned num_slots;
} api_table_t;

extern const api_table_t api_tables[];
extern const unsigned api_tables_count;

#endif
