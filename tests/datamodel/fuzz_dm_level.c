/* Fuzz target: level/unit sources read as documents (the lossless SJSON reader and the level
 * mapping), written back (which must give the same bytes for an untouched document), edited and
 * written again with ids assigned. */
#include <stdlib.h>
#include <string.h>

#include "datamodel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const ct_datamodel_api_v1 *dm = datamodel__api_v1();
    char err[256];
    ct_dm_doc_o *doc = dm->read_level((const char *)data, size, "fuzz.level",
                                      &(ct_dm_doc_desc_t){.guid_seed = 1}, err, sizeof err);
    if (!doc)
        return 0;
    size_t n;
    char *out = dm->write_level(doc, NULL, &n);
    if (out && (n != size || memcmp(out, data, size) != 0))
        abort(); /* an untouched document writes its source back */
    dm->free_text(out);
    /* Edit: every entity's first key changed, the first entity removed, a new one added. */
    ct_guid_t objs[64];
    uint32_t count = dm->objects(doc, objs, 64);
    for (uint32_t i = 1; i < count && i < 64; i++) {
        const char *keys[4];
        if (dm->keys(doc, objs[i], keys, 4) > 2) {
            ct_dm_value_t v = {.type = CT_DM_DOUBLE, .as.d = i};
            dm->set_property(doc, objs[i], keys[2], &v);
        }
    }
    if (count > 1)
        dm->remove_from_set(doc, (ct_guid_t){0, 0}, "entities", objs[1]);
    ct_guid_t g = dm->new_guid(doc);
    dm->create(doc, g);
    dm->add_to_set(doc, (ct_guid_t){0, 0}, "entities", g);
    ct_dm_value_t v = {.type = CT_DM_STRING, .size = 3, .as.s = "new"};
    dm->set_property(doc, g, "name", &v);
    out = dm->write_level(doc, &(ct_dm_write_desc_t){.assign_ids = 1}, &n);
    ct_dm_doc_o *again = out ? dm->read_level(out, n, "again.level", NULL, err, sizeof err) : NULL;
    dm->free_text(out);
    dm->destroy_doc(again);
    dm->destroy_doc(doc);
    return 0;
}
