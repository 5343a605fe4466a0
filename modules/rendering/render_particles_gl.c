/*
 * Particles in the gl backend: camera-facing quads, one instanced call per emitter. The frame's
 * particles (position and size, colour with alpha: two vec4s each) are handed over by the module
 * before the display list runs (render_particles.c); each RENDER_CMD_PARTICLES entry of the list
 * names a batch of them, sorted among the other packets by its key (the emitter's depth in a
 * blending layer). The quad's corners come from gl_VertexID and the particle from a storage
 * buffer, so no vertex layout is needed; a disc is cut out of the quad and faded to its rim, and
 * particles add light (src_alpha, one), so their order inside a batch does not matter.
 */
#include <string.h>

#include "render_gl_internal.h"

static const char particles_vs[] =
    "#version 450 core\n"
    "layout(std430, binding = 3) readonly buffer Particles { vec4 p[]; };\n"
    "layout(location = 0) uniform mat4 view_proj;\n"
    "layout(location = 1) uniform vec3 right;\n"
    "layout(location = 2) uniform vec3 up;\n"
    "layout(location = 3) uniform int first;\n"
    "out vec4 v_color; out vec2 v_uv;\n"
    "const vec2 corners[6] = vec2[](vec2(-1, -1), vec2(1, -1), vec2(1, 1), vec2(-1, -1),\n"
    "                               vec2(1, 1), vec2(-1, 1));\n"
    "void main() {\n"
    "  vec4 a = p[2 * (first + gl_InstanceID)], c = p[2 * (first + gl_InstanceID) + 1];\n"
    "  vec2 q = corners[gl_VertexID];\n"
    "  gl_Position = view_proj * vec4(a.xyz + (right * q.x + up * q.y) * (0.5 * a.w), 1.0);\n"
    "  v_color = c; v_uv = q;\n"
    "}\n";

static const char particles_fs[] = "#version 450 core\n"
                                   "in vec4 v_color; in vec2 v_uv; out vec4 frag;\n"
                                   "void main() {\n"
                                   "  float r = dot(v_uv, v_uv);\n"
                                   "  if (r > 1.0) discard;\n"
                                   "  frag = vec4(v_color.rgb, v_color.a * (1.0 - r));\n"
                                   "}\n";

/* The frame's particles, as the module handed them over (its memory, valid for the frame). */
static struct {
    const float *instances; /* 8 floats a particle */
    uint32_t count;
    const render__particle_batch *batches;
    uint32_t num_batches;
    float view_proj[16], right[3], up[3];
    bool uploaded;
    /* GL objects, made on first use in the current context. */
    render__gl *made_for;
    GLuint program, buffer;
    size_t buffer_size;
} frame;

void render__particles_set_frame(const float *instances, uint32_t count,
                                 const render__particle_batch *batches, uint32_t num_batches,
                                 const float view_proj[16], const float right[3], const float up[3])
{
    frame.instances = instances;
    frame.count = count;
    frame.batches = batches;
    frame.num_batches = num_batches;
    memcpy(frame.view_proj, view_proj, sizeof frame.view_proj);
    memcpy(frame.right, right, sizeof frame.right);
    memcpy(frame.up, up, sizeof frame.up);
    frame.uploaded = false;
}

static GLuint stage(GLenum kind, const char *src)
{
    GLuint s = glCreateShader(kind);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    return ok ? s : 0;
}

static bool ready(render__gl *g)
{
    if (frame.made_for == g && frame.program)
        return true;
    frame.made_for = g;
    const GLuint vs = stage(GL_VERTEX_SHADER, particles_vs),
                 fs = stage(GL_FRAGMENT_SHADER, particles_fs);
    frame.program = vs && fs ? glCreateProgram() : 0;
    if (frame.program) {
        glAttachShader(frame.program, vs);
        glAttachShader(frame.program, fs);
        glLinkProgram(frame.program);
        GLint ok = 0;
        glGetProgramiv(frame.program, GL_LINK_STATUS, &ok);
        if (!ok) {
            glDeleteProgram(frame.program);
            frame.program = 0;
        }
    }
    glDeleteShader(vs);
    glDeleteShader(fs);
    glCreateBuffers(1, &frame.buffer);
    frame.buffer_size = 0;
    return frame.program != 0;
}

uint32_t render__gl_particles(render__gl *g, uint32_t batch, uint32_t layer_flags)
{
    if (batch >= frame.num_batches || !frame.batches[batch].count || !ready(g))
        return 0;
    if (!frame.uploaded) {
        const size_t size = (size_t)frame.count * 8 * sizeof(float);
        if (size > frame.buffer_size) {
            frame.buffer_size = size * 2;
            glNamedBufferData(frame.buffer, (GLsizeiptr)frame.buffer_size, NULL, GL_STREAM_DRAW);
        }
        glNamedBufferSubData(frame.buffer, 0, (GLsizeiptr)size, frame.instances);
        frame.uploaded = true;
    }
    glUseProgram(frame.program);
    glUniformMatrix4fv(0, 1, GL_FALSE, frame.view_proj);
    glUniform3fv(1, 1, frame.right);
    glUniform3fv(2, 1, frame.up);
    glUniform1i(3, (GLint)frame.batches[batch].first);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 3, frame.buffer);
    glDisable(GL_CULL_FACE);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE);
    glDepthMask(GL_FALSE);
    glBindVertexArray(g->empty_vao);
    glDrawArraysInstanced(GL_TRIANGLES, 0, 6, (GLsizei)frame.batches[batch].count);
    /* Back to the layer's state for the draws after this one. */
    glEnable(GL_CULL_FACE);
    if (layer_flags & RENDER_LAYER_BACK_TO_FRONT) {
        glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    } else {
        glDisable(GL_BLEND);
        glDepthMask(GL_TRUE);
    }
    return 1;
}
