/* What the structure-aware fuzz targets of physics' level components (fuzz_body_source,
 * fuzz_joint_source) share, and fuzz_character its kernel: the kernel they boot, a reader of the input's bytes, the writer of a
 * level's text, and one run: the input becomes a level of up to six entities (or, one input in
 * eight, raw text for the compiler), which is either refused with a message or spawned and
 * stepped without a crash, a sanitizer report or a body out of range. */
#ifndef FUZZ_LEVEL_SOURCE_H
#define FUZZ_LEVEL_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "ct_entity.h"
#include "ct_physics.h"
#include "ct_world.h"

/* The input, read a byte at a time; past its end every byte reads 0. */
typedef struct fuzz_reader {
    const uint8_t *p;
    size_t n, at;
} fuzz_reader;

uint8_t fuzz_next(fuzz_reader *r);

/* One of the count strings of list, as the next byte says. */
const char *fuzz_pick(fuzz_reader *r, const char *const *list, size_t count);

/* Appends fmt with a, b and c (every format takes three strings; pass "" for those it does not
 * use) at out + *len, when it fits in room. */
void fuzz_put(char *out, size_t room, size_t *len, const char *fmt, const char *a, const char *b,
              const char *c);

/* The physics, entity and world APIs the targets step and check through (set by fuzz_boot, which
 * the first run calls). */
extern const ct_physics_api_v4 *fuzz_physics;
extern const ct_physics_api_v5 *fuzz_physics_v5;
extern const ct_entity_api_v2 *fuzz_entity;
extern const ct_world_api_v1 *fuzz_worlds;

/* Boots the kernel of ct_entities, ct_transforms and ct_physics once (later calls do nothing). */
void fuzz_boot(void);

typedef struct fuzz_level_desc {
    const char *resource; /* the level's name, e.g. "fuzz/bodies" */
    /* Writes one entity's source, chosen by the input. */
    void (*entity_source)(fuzz_reader *r, char *out, size_t room, size_t *len);
    /* After three steps and the range checks: the target's own checks (abort() on a failure)
     * and more steps. n entities were spawned, at most 8 of them in e. May be NULL. */
    void (*after)(ct_world_o *w, const ct_entity_t *e, int n);
} fuzz_level_desc;

/* One fuzz input through d; returns 0 (what LLVMFuzzerTestOneInput returns). */
int fuzz_level_run(const fuzz_level_desc *d, const uint8_t *data, size_t size);

#endif
