/* Fuzz target: change sets from text and from binary, and clipboard text pasted into a document
 * (the first byte modulo 3 picks). For change sets that parse: a round trip and an apply; for what
 * parses, a round trip and an apply to a document: nothing crashes, reads out of bounds or leaks,
 * and what parsed writes back to a form that parses again. */
#include <stdlib.h>
#include <string.h>

#include "datamodel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const ct_datamodel_api_v1 *dm = datamodel__api_v1();
    if (size == 0)
        return 0;
    char err[256];
    if (data[0] % 3 == 2) {
        ct_dm_doc_o *doc = dm->create_doc(&(ct_dm_doc_desc_t){.author = "fuzz", .guid_seed = 1});
        ct_guid_t roots[4];
        uint32_t n;
        if (dm->paste(doc, (const char *)data + 1, size - 1, roots, 4, &n) == 0) {
            char *again = dm->copy(doc, roots, n < 4 ? n : 4, NULL);
            if (n && !again)
                abort(); /* what pasted copies */
            dm->free_text(again);
        }
        dm->destroy_doc(doc);
        return 0;
    }
    bool binary = data[0] % 3 == 1;
    ct_dm_changeset_o *cs =
        binary ? dm->changeset_from_binary(data + 1, size - 1, "fuzz", err, sizeof err)
               : dm->changeset_from_text((const char *)data + 1, size - 1, "fuzz", err, sizeof err);
    if (!cs)
        return 0;
    size_t n;
    char *text = dm->changeset_to_text(cs, &n);
    ct_dm_changeset_o *again =
        text ? dm->changeset_from_text(text, n, "again", err, sizeof err) : NULL;
    if (text && !again)
        abort(); /* what we wrote must read back */
    void *bin = dm->changeset_to_binary(cs, &n);
    ct_dm_changeset_o *from_bin =
        bin ? dm->changeset_from_binary(bin, n, "again", err, sizeof err) : NULL;
    if (bin && !from_bin)
        abort();
    ct_dm_doc_o *doc = dm->create_doc(&(ct_dm_doc_desc_t){.author = "fuzz", .guid_seed = 1});
    ct_dm_merge_report_t report;
    dm->apply(doc, cs, &report);
    dm->apply(doc, cs, &report);
    const ct_dm_issue_t *issues;
    dm->check(doc, &issues);
    dm->destroy_doc(doc);
    dm->free_text(text);
    dm->free_text(bin);
    dm->destroy_changeset(again);
    dm->destroy_changeset(from_bin);
    dm->destroy_changeset(cs);
    return 0;
}
