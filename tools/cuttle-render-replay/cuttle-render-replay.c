/*
 * cuttle-render-replay: replays a captured frame (`cuttle --capture FILE`, Render.capture) through
 * a backend, without the engine or the project: the capture holds the sorted packet stream and
 * everything it refers to (render_capture.h).
 *
 *   cuttle-render-replay FILE                 null backend: validates, prints counts, the command
 *                                             hash and the state changes, one line per frame
 *   cuttle-render-replay FILE --png OUT.png   gl backend (headless): draws it and writes a PNG
 *   cuttle-render-replay FILE --keys          also prints every packet's key, field by field
 * Exit status: 0, 1 for a bad or unreadable capture (the reason is printed), 2 for bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ct_file.h"
#include "ct_heap.h"
#include "render_capture.h"

/* The capture's stream as one context, re-sorted (stable: the order stays) and built again. */
static bool rebuild(const render__capture *c, render__queue *q)
{
    render__queue_init(q, ct_heap_allocator());
    if (!render__queue_begin(q, 1))
        return false;
    for (uint32_t i = 0; i < c->num_packets; i++) {
        const uint8_t *p = c->packets + (size_t)i * RENDER_CAPTURE_PACKET_SIZE;
        uint64_t key;
        render__command cmd;
        memcpy(&key, p, 8);
        memcpy(&cmd, p + 8, sizeof cmd);
        render__context_record(&q->contexts[0], ct_heap_allocator(), key, &cmd);
    }
    return render__merge_sort(q) &&
           render__build(q, c->view_proj, c->materials, c->num_materials, NULL) && !q->failed;
}

static int draw_png(const render__capture *c, const render__queue *q, const char *out)
{
    char err[512];
    render__gl *gl = render__gl_create(
        ct_heap_allocator(), &(render__gl_desc){c->pipeline->width, c->pipeline->height, false},
        err, sizeof err);
    if (!gl || !render__gl_set_pipeline(gl, c->pipeline, err, sizeof err)) {
        fprintf(stderr, "cuttle-render-replay: %s\n", err);
        render__gl_destroy(gl);
        return 1;
    }
    for (uint32_t m = 0; m < c->num_meshes; m++)
        if (c->meshes[m].num_indices)
            render__gl_mesh_set(gl, m, c->meshes[m].vertices, c->meshes[m].num_vertices,
                                c->meshes[m].indices, c->meshes[m].num_indices);
    render__gl_execute(gl, q->draws, q->num_packets, c->num_materials, c->lights);
    const size_t size = (size_t)c->pipeline->width * c->pipeline->height * 4;
    uint8_t *px = malloc(size);
    int status = 0;
    if (!px || !render__gl_read(gl, px) ||
        !render__png_write(out, px, c->pipeline->width, c->pipeline->height, err, sizeof err)) {
        fprintf(stderr, "cuttle-render-replay: %s\n", px ? err : "out of memory");
        status = 1;
    }
    free(px);
    render__gl_destroy(gl);
    return status;
}

static const char usage[] =
    "usage: cuttle-render-replay CAPTURE [--png OUT.png] [--keys]\n"
    "  replays a frame captured with `cuttle --capture FILE` (or Render.capture)\n"
    "  (no option)    null backend: validates and prints counts, state changes and the command "
    "hash\n"
    "  --png OUT.png  also draws it with the gl backend (headless) and writes a PNG\n"
    "  --keys         prints every packet's sort key, field by field\n"
    "Exit status: 0 ok, 1 a bad or unreadable capture, 2 usage.\n";

int main(int argc, char **argv)
{
    const char *file = NULL, *png = NULL;
    bool keys = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help")) {
            fputs(usage, stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--png") && i + 1 < argc)
            png = argv[++i];
        else if (!strcmp(argv[i], "--keys"))
            keys = true;
        else if (argv[i][0] != '-' && !file)
            file = argv[i];
        else {
            fputs(usage, stderr);
            return 2;
        }
    }
    if (!file) {
        fputs(usage, stderr);
        return 2;
    }
    size_t size = 0;
    char why[512];
    uint8_t *bytes = ct_file_read(file, ct_heap_allocator(), SIZE_MAX - 1, &size, why, sizeof why);
    if (!bytes) {
        fprintf(stderr, "cuttle-render-replay: %s\n", why);
        return 1;
    }
    render__capture c;
    char err[512];
    int status = 0;
    if (render__capture_read(bytes, size, ct_heap_allocator(), &c, err, sizeof err)) {
        fprintf(stderr, "cuttle-render-replay: %s: %s\n", file, err);
        ct_free(ct_heap_allocator(), bytes, size + 1);
        return 1;
    }
    render__queue q;
    if (!rebuild(&c, &q)) {
        fprintf(stderr, "cuttle-render-replay: %s: out of memory\n", file);
        status = 1;
    } else {
        const render__null_stats s = render__null_execute(q.draws, q.num_packets, c.num_meshes,
                                                          c.num_materials, RENDER_NUM_PROGRAMS);
        if (keys)
            for (uint32_t i = 0; i < q.num_packets; i++) {
                const render__key_fields k = render__key_decode(q.sorted[i].key);
                printf("%016llx layer %u pass %u program %u material %u depth %u changes %u\n",
                       (unsigned long long)q.sorted[i].key, k.layer, k.pass, k.program, k.material,
                       k.depth, render__state_changes(q.draws[i].changes));
            }
        printf("packets %u draws %u fullscreen %u layers %u state_changes %u invalid %u hash "
               "%016llx\n",
               q.num_packets, s.draws, s.fullscreen, s.layers, s.state_changes, s.invalid,
               (unsigned long long)s.hash);
        if (s.invalid)
            status = 1;
        if (png && !status)
            status = draw_png(&c, &q, png);
    }
    render__queue_free(&q);
    render__capture_free(&c, ct_heap_allocator());
    ct_free(ct_heap_allocator(), bytes, size + 1);
    return status;
}
