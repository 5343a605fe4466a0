/* Fuzz target: the capture reader on any bytes; whatever it accepts is rebuilt into a display
 * list and validated by the null backend, as cuttle-render-replay does. */
#include "ct_heap.h"
#include "render_capture.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ct_allocator_t *a = ct_heap_allocator();
    /* The reader takes its structs in place: give it the alignment a file buffer has. */
    uint8_t *bytes = malloc(size ? size : 1);
    memcpy(bytes, data, size);
    render__capture c;
    char err[256];
    if (render__capture_read(bytes, size, a, &c, err, sizeof err) == 0) {
        render__queue q;
        render__queue_init(&q, a);
        if (render__queue_begin(&q, 1)) {
            for (uint32_t i = 0; i < c.num_packets && i < 4096; i++) {
                uint64_t key;
                render__command cmd;
                memcpy(&key, c.packets + (size_t)i * RENDER_CAPTURE_PACKET_SIZE, 8);
                memcpy(&cmd, c.packets + (size_t)i * RENDER_CAPTURE_PACKET_SIZE + 8, sizeof cmd);
                render__context_record(&q.contexts[0], a, key, &cmd);
            }
            if (render__merge_sort(&q) &&
                render__build(&q, c.view_proj, c.materials, c.num_materials, NULL))
                (void)render__null_execute(q.draws, q.num_packets, c.num_meshes, c.num_materials,
                                           RENDER_NUM_PROGRAMS);
        }
        render__queue_free(&q);
        render__capture_free(&c, a);
    }
    free(bytes);
    return 0;
}
