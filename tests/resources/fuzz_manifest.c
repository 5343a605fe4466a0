/* Fuzz target: arbitrary bytes as cuttle-compile's compiled/manifest.json and then as its
 * journal. A damaged manifest is reported and read as empty, a journal up to its first damaged
 * record; what is read must round-trip through the writer's format, and no file path in it may
 * lead out of the project (they are stat'ed and read on the next run). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/log.h"
#include "base/memory.h"
#include "compiler.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool started;
    if (!started) {
        /* The manifest lives in the resources allocator; the service runs once for all inputs. */
        if (memory__init(0) || resources__init(NULL, false))
            abort();
        log__set_level(CT_LOG_ERROR); /* not a warning per damaged input */
        started = true;
    }
    compiler_manifest_t m;
    compiler__manifest_parse(&m, (const char *)data, size, "fuzz/manifest.json");
    /* The same bytes as the journal --watch appends, over what was read. */
    compiler__manifest_replay(&m, (const char *)data, size, "fuzz/manifest.json.journal");
    for (uint32_t i = 0; i < m.count; i++)
        for (uint32_t f = 0; f < m.entries[i].num_files; f++)
            if (resources__check_file_path(m.entries[i].files[f].path, NULL, 0))
                abort();
    compiler__manifest_free(&m);
    return 0;
}
