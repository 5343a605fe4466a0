/* Fuzz target: whole documents in binary (ct_dm_api doc_from_binary): a hostile or truncated blob
 * is refused, never read past its end; what loads writes back byte for byte. */
#include <stdlib.h>
#include <string.h>

#include "datamodel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const ct_datamodel_api_v1 *dm = datamodel__api_v1();
    char err[256];
    ct_dm_doc_o *doc = dm->doc_from_binary(data, size, NULL, "fuzz", err, sizeof err);
    if (!doc)
        return 0;
    size_t n;
    void *bin = dm->doc_to_binary(doc, &n);
    ct_dm_doc_o *again = bin ? dm->doc_from_binary(bin, n, NULL, "again", err, sizeof err) : NULL;
    if (bin && !again)
        abort();
    const ct_dm_issue_t *issues;
    dm->check(doc, &issues);
    dm->free_text(bin);
    dm->destroy_doc(again);
    dm->destroy_doc(doc);
    return 0;
}
