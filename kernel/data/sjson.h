/* SJSON/JSON parser producing cJSON trees, and the ct_data_api_v1 over them. */
#ifndef CT_KERNEL_SJSON_H
#define CT_KERNEL_SJSON_H

#include "ct_data.h"
#include <cjson/cJSON.h>

/* Parses SJSON (a superset of JSON) into a cJSON tree (free with cJSON_Delete). On error returns
 * NULL and writes "filename:line:col: message" into err. Never reads past text + len. */
cJSON *sjson__parse(const char *text, size_t len, const char *filename, char *err, size_t err_size);
/* Reads a whole file (caller frees with free()); NULL with a message naming the path on error. */
char *sjson__read_file(const char *path, size_t *len, char *err, size_t err_size);
const ct_data_api_v1 *data__api_v1(void);

#endif
