/* Fuzz target: the glTF reader on any bytes, as .gltf JSON or .glb (external files refused).
 * Whatever it accepts is walked in full and sampled, so a document that passed validation but
 * holds a bad index or count shows up under ASan. */
#include "gltf.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    ct_gltf_t *doc = ct_gltf_parse(data, size, "fuzz.gltf", NULL, NULL, err, sizeof err);
    if (!doc)
        return 0;
    volatile float sink = 0;
    for (uint32_t m = 0; m < doc->num_meshes; m++)
        for (uint32_t p = 0; p < doc->meshes[m].num_primitives; p++) {
            const ct_gltf_primitive_t *prim = &doc->meshes[m].primitives[p];
            for (uint32_t i = 0; i < prim->num_indices; i++)
                sink += prim->positions[3 * prim->indices[i]];
        }
    for (uint32_t n = 0; n < doc->num_nodes; n++)
        for (uint32_t c = 0; c < doc->nodes[n].num_children; c++)
            sink += doc->nodes[doc->nodes[n].children[c]].translation[0];
    for (uint32_t s = 0; s < doc->num_skins; s++)
        for (uint32_t j = 0; j < doc->skins[s].num_joints; j++)
            sink += doc->nodes[doc->skins[s].joints[j]].scale[0] +
                    doc->skins[s].inverse_bind_matrices[16 * j + 15];
    for (uint32_t a = 0; a < doc->num_animations; a++) {
        const ct_gltf_animation_t *anim = &doc->animations[a];
        for (uint32_t c = 0; c < anim->num_channels; c++) {
            const ct_gltf_sampler_t *s = &anim->samplers[anim->channels[c].sampler];
            float out[64];
            if (s->components > 64)
                continue;
            for (float t = -0.5f; t < anim->duration + 1.0f; t += anim->duration / 4 + 0.25f)
                ct_gltf_sample(s, anim->channels[c].path, t, out);
            sink += out[0] + doc->nodes[anim->channels[c].node].rotation[3];
        }
    }
    for (uint32_t i = 0; i < doc->num_images; i++)
        if (doc->images[i].size)
            sink += doc->images[i].data[doc->images[i].size - 1];
    (void)sink;
    ct_gltf_free(doc);
    return 0;
}
