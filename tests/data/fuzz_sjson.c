/* Fuzz target: parse arbitrary bytes as SJSON, walk every node through ct_data_api_v1, free. */
#include <stdint.h>
#include <stdlib.h>

#include "data/sjson.h"

static double walk(const ct_data_api_v1 *d, const ct_data_o *node)
{
    double sum = 0;
    for (const ct_data_o *c = d->first_child(node); c; c = d->next(c)) {
        sum += d->number(c, 0) + (double)d->boolean(c, false) + (double)d->key(c)[0];
        const char *s = d->string(c, NULL);
        sum += s ? (double)s[0] : 0;
        if (d->type(c) == CT_DATA_OBJECT)
            sum += d->get(c, d->key(c)) ? 1 : 0;
        sum += walk(d, c);
    }
    return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const ct_data_api_v1 *d = data__api_v1();
    char err[256];
    ct_data_o *root = d->parse((const char *)data, size, "fuzz.sjson", err, sizeof err);
    if (root) {
        volatile double sink = walk(d, root) + d->count(root);
        (void)sink;
    }
    d->destroy(root);
    return 0;
}
