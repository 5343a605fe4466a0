/*
 * render_gl_programs.c: the built-in shader programs (GLSL 4.50 core) and their uniform layout.
 *
 * Per draw, the mesh programs read instance attributes straight from the display list, which the
 * backend uploads once per frame: locations 2..5 the MVP's columns, 6..8 the world matrix's rows,
 * 9..11 the normal matrix's rows, 12..13 the material's colour and (specular strength,
 * shininess, 0, 0) (render__draw's mvp, world, normal and params). So a run of draws that share
 * program, mesh and texture is one instanced draw call, whatever their materials. Location 14 is
 * the vertex's texture coordinate, 15 its tangent (render_mesh_blob.h); unit 0 holds the material's
 * base colour texture (sRGB, so it reads as linear colour; white for a material without one),
 * multiplied into its colour, and unit 4 its tangent-space normal map (a flat normal without one),
 * which the lit programs apply when the material's specular.z (its strength) is above 0. The
 * skinned programs read the frame's bone palette through a buffer texture at unit 1 (three RGBA32F
 * texels per bone): on llvmpipe texelFetch is about three times faster than a storage buffer.
 * The frame's uniforms sit at an explicit location, so the backend sets them without a lookup:
 *   location 12..27  u_frame[16]   per frame: camera position, (ambient, number of point lights),
 *                                  (sun direction towards the light, shadow softness in texels)
 *                                  and colour, up to four point lights as (position, range) and
 *                                  (colour, 0), then the sun's shadow matrix (columns 12..15;
 *                                  all zero without a shadow map). The shadow map is at unit 2.
 *                                  A point/spot light's colour w is its shadow cube's layer + 1
 *                                  (0: none; render_gpu.h).
 *   location 28..35 u_local[8]     per frame: spot cones (render__local_lights); the point and
 *                                  spot lights' shadow cubes are a cube map array at unit 5.
 * Full-screen programs draw one triangle made from gl_VertexID and read their input at unit 0.
 */
#include "render_gl_internal.h"

#include <stdio.h>
#include <string.h>

const char *const render__program_names[RENDER_NUM_PROGRAMS] = {
    "unlit",         "lit",         "copy",         "vignette",
    "unlit_skinned", "lit_skinned", "shadow",       "shadow_skinned",
    "debug_lines",   "text",        "shadow_local", "shadow_local_skinned"};

static const char mesh_vs[] =
    "#version 450 core\n"
    "layout(location = 0) in vec3 a_position;\n"
    "layout(location = 1) in vec3 a_normal;\n"
    "layout(location = 2) in vec4 i_mvp[4];\n"
    "layout(location = 6) in vec4 i_world[3];\n"
    "layout(location = 9) in vec4 i_normal[3];\n"
    "layout(location = 12) in vec4 i_material[2];\n"
    "layout(location = 14) in vec2 a_uv;\n"
    "layout(location = 15) in vec4 a_tangent;\n"
    "out vec2 v_uv;\n"
    "out vec3 v_world;\n"
    "out vec3 v_normal;\n"
    "out vec4 v_tangent;\n"
    "flat out vec4 v_color;\n"
    "flat out vec4 v_specular;\n"
    "void main() {\n"
    "  v_color = i_material[0];\n"
    "  v_uv = a_uv;\n"
    "  v_specular = i_material[1];\n"
    "  vec4 p = vec4(a_position, 1.0);\n"
    "  v_world = vec3(dot(i_world[0], p), dot(i_world[1], p), dot(i_world[2], p));\n"
    "  v_normal = vec3(dot(i_normal[0].xyz, a_normal), dot(i_normal[1].xyz, a_normal),\n"
    "                  dot(i_normal[2].xyz, a_normal));\n"
    "  v_tangent = vec4(dot(i_world[0].xyz, a_tangent.xyz), dot(i_world[1].xyz, a_tangent.xyz),\n"
    "                   dot(i_world[2].xyz, a_tangent.xyz), a_tangent.w);\n"
    "  gl_Position = mat4(i_mvp[0], i_mvp[1], i_mvp[2], i_mvp[3]) * p;\n"
    "}\n";

/* The mesh program for skinned meshes: the vertex is first moved by its four bones (3x4 rows of
 * the palette from the draw's first bone on, in the object's space), then drawn as above, except
 * that normals turn by the world matrix itself (the lit program normalises them): exact for
 * rotations and uniform scales, which is what characters are placed with, and it leaves the
 * locations of the normal matrix to the bones (see render__gl_mesh_set_skin). */
static const char skinned_vs[] =
    "layout(location = 0) in vec3 a_position;\n"
    "layout(location = 1) in vec3 a_normal;\n"
    "layout(location = 2) in vec4 i_mvp[4];\n"
    "layout(location = 6) in vec4 i_world[3];\n"
    "layout(location = 9) in vec4 i_material[2];\n"
    "layout(location = 11) in uint i_palette;\n"
    "layout(location = 12) in uvec4 a_joints;\n"
    "layout(location = 13) in vec4 a_weights;\n"
    "layout(location = 14) in vec2 a_uv;\n"
    "layout(location = 15) in vec4 a_tangent;\n"
    "layout(binding = 1) uniform samplerBuffer u_palette;\n"
    "#ifdef SHADOW\n"
    "layout(location = 12) uniform vec4 u_frame[16];\n"
    "#endif\n"
    "#ifdef LOCAL\n"
    "layout(location = 40) uniform mat4 u_face;\n"
    "#endif\n"
    "out vec2 v_uv;\n"
    "out vec3 v_world;\n"
    "out vec3 v_normal;\n"
    "out vec4 v_tangent;\n"
    "flat out vec4 v_color;\n"
    "flat out vec4 v_specular;\n"
    "void main() {\n"
    "  v_color = i_material[0];\n"
    "  v_uv = a_uv;\n"
    "  v_specular = i_material[1];\n"
    "  vec4 r0 = vec4(0.0), r1 = vec4(0.0), r2 = vec4(0.0);\n"
    "  for (int k = 0; k < 4; k++) {\n"
    "    if (a_weights[k] == 0.0) continue;\n"
    "    int b = 3 * int(i_palette + a_joints[k]);\n"
    "    r0 += a_weights[k] * texelFetch(u_palette, b);\n"
    "    r1 += a_weights[k] * texelFetch(u_palette, b + 1);\n"
    "    r2 += a_weights[k] * texelFetch(u_palette, b + 2);\n"
    "  }\n"
    "  vec4 p = vec4(dot(r0, vec4(a_position, 1.0)), dot(r1, vec4(a_position, 1.0)),\n"
    "                dot(r2, vec4(a_position, 1.0)), 1.0);\n"
    "  vec3 n = vec3(dot(r0.xyz, a_normal), dot(r1.xyz, a_normal), dot(r2.xyz, a_normal));\n"
    "  v_world = vec3(dot(i_world[0], p), dot(i_world[1], p), dot(i_world[2], p));\n"
    "  v_normal = vec3(dot(i_world[0].xyz, n), dot(i_world[1].xyz, n), dot(i_world[2].xyz, n));\n"
    "  vec3 t = vec3(dot(r0.xyz, a_tangent.xyz), dot(r1.xyz, a_tangent.xyz), dot(r2.xyz, "
    "a_tangent.xyz));\n"
    "  v_tangent = vec4(dot(i_world[0].xyz, t), dot(i_world[1].xyz, t), dot(i_world[2].xyz, t), "
    "a_tangent.w);\n"
    "#if defined(SHADOW)\n"
    "  gl_Position = mat4(u_frame[12], u_frame[13], u_frame[14], u_frame[15]) * vec4(v_world, "
    "1.0);\n"
    "#elif defined(LOCAL)\n"
    "  gl_Position = u_face * vec4(v_world, 1.0);\n"
    "#else\n"
    "  gl_Position = mat4(i_mvp[0], i_mvp[1], i_mvp[2], i_mvp[3]) * p;\n"
    "#endif\n"
    "}\n";

/* A shadow layer's rigid draws: the world position seen by the sun's matrix (u_frame[12..15]). */
static const char shadow_vs[] =
    "#version 450 core\n"
    "layout(location = 0) in vec3 a_position;\n"
    "layout(location = 6) in vec4 i_world[3];\n"
    "layout(location = 12) uniform vec4 u_frame[16];\n"
    "void main() {\n"
    "  vec4 p = vec4(a_position, 1.0);\n"
    "  vec4 w = vec4(dot(i_world[0], p), dot(i_world[1], p), dot(i_world[2], p), 1.0);\n"
    "  gl_Position = mat4(u_frame[12], u_frame[13], u_frame[14], u_frame[15]) * w;\n"
    "}\n";

/* A point or spot light's shadow: the world position through one face of its cube (u_face, at
 * location 40), and as depth the distance from the light over its range (u_light: position,
 * range), so every face stores the same measure and the lit programs compare distances. */
static const char shadow_local_vs[] =
    "#version 450 core\n"
    "layout(location = 0) in vec3 a_position;\n"
    "layout(location = 6) in vec4 i_world[3];\n"
    "layout(location = 40) uniform mat4 u_face;\n"
    "out vec3 v_world;\n"
    "void main() {\n"
    "  vec4 p = vec4(a_position, 1.0);\n"
    "  v_world = vec3(dot(i_world[0], p), dot(i_world[1], p), dot(i_world[2], p));\n"
    "  gl_Position = u_face * vec4(v_world, 1.0);\n"
    "}\n";

static const char distance_fs[] =
    "#version 450 core\n"
    "layout(location = 44) uniform vec4 u_light;\n"
    "in vec3 v_world;\n"
    "void main() { gl_FragDepth = clamp(length(v_world - u_light.xyz) / u_light.w, 0.0, 1.0); }\n";

/* Debug lines: world positions through the camera (uniform 0), vertex colours. */
static const char lines_vs[] =
    "#version 450 core\n"
    "layout(location = 0) uniform mat4 u_view_proj;\n"
    "layout(location = 0) in vec3 a_position;\n"
    "layout(location = 1) in vec4 a_color;\n"
    "out vec4 v_color;\n"
    "void main() { v_color = a_color; gl_Position = u_view_proj * vec4(a_position, 1.0); }\n";

static const char lines_fs[] = "#version 450 core\n"
                               "in vec4 v_color;\n"
                               "out vec4 o_color;\n"
                               "void main() { o_color = v_color; }\n";

/* Text: pixel positions from the top left of the target (uniform 0: its size), coverage from the
 * font atlas at unit 3. */
static const char text_vs[] = "#version 450 core\n"
                              "layout(location = 0) uniform vec2 u_size;\n"
                              "layout(location = 0) in vec2 a_position;\n"
                              "layout(location = 1) in vec2 a_uv;\n"
                              "layout(location = 2) in vec4 a_color;\n"
                              "out vec2 v_uv;\n"
                              "out vec4 v_color;\n"
                              "void main() {\n"
                              "  v_uv = a_uv;\n"
                              "  v_color = a_color;\n"
                              "  gl_Position = vec4(a_position.x / u_size.x * 2.0 - 1.0, 1.0 - "
                              "a_position.y / u_size.y * 2.0, 0.0, 1.0);\n"
                              "}\n";

static const char text_fs[] =
    "#version 450 core\n"
    "layout(binding = 3) uniform sampler2D u_font;\n"
    "in vec2 v_uv;\n"
    "in vec4 v_color;\n"
    "out vec4 o_color;\n"
    "void main() { o_color = vec4(v_color.rgb, v_color.a * texture(u_font, v_uv).r); }\n";

static const char depth_fs[] = "#version 450 core\n"
                               "void main() {}\n";

static const char unlit_fs[] = "#version 450 core\n"
                               "layout(binding = 0) uniform sampler2D u_base;\n"
                               "in vec2 v_uv;\n"
                               "flat in vec4 v_color;\n"
                               "out vec4 o_color;\n"
                               "void main() { o_color = v_color * texture(u_base, v_uv); }\n";

static const char lit_fs[] =
    "#version 450 core\n"
    "layout(location = 12) uniform vec4 u_frame[16];\n"
    "layout(binding = 0) uniform sampler2D u_base;\n"
    "layout(binding = 2) uniform sampler2DShadow u_shadow;\n"
    "layout(binding = 4) uniform sampler2D u_normal_map;\n"
    "layout(location = 28) uniform vec4 u_local[8];\n"
    "layout(binding = 5) uniform samplerCubeArrayShadow u_local_shadow;\n"
    "in vec2 v_uv;\n"
    "in vec3 v_world;\n"
    "in vec3 v_normal;\n"
    "in vec4 v_tangent;\n"
    "flat in vec4 v_color;\n"
    "flat in vec4 v_specular;\n"
    "out vec4 o_color;\n"
    "vec3 light(vec3 n, vec3 v, vec3 l, vec3 color, vec3 base) {\n"
    "  float ndl = max(dot(n, l), 0.0);\n"
    "  float spec = ndl > 0.0 ? pow(max(dot(n, normalize(l + v)), 0.0), v_specular.y) : 0.0;\n"
    "  return color * (base * ndl + v_specular.x * spec);\n"
    "}\n"
    /* The sun's share that reaches this point: 1 without a shadow map (u_frame[15].w = 0), else
     * the average of (2r+1)^2 filtered comparisons r = softness texels apart: a soft edge. */
    "float sunlit(vec3 n) {\n"
    "  if (u_frame[15].w == 0.0) return 1.0;\n"
    "  vec4 p = mat4(u_frame[12], u_frame[13], u_frame[14], u_frame[15]) * vec4(v_world, 1.0);\n"
    "  vec3 c = p.xyz * 0.5 + 0.5;\n"
    "  if (any(lessThan(c, vec3(0.0))) || any(greaterThan(c, vec3(1.0)))) return 1.0;\n"
    "  vec2 texel = 1.0 / vec2(textureSize(u_shadow, 0));\n"
    "  float soft = u_frame[2].w;\n"
    "  float bias = 0.0015 + 0.003 * (1.0 - max(dot(n, normalize(u_frame[2].xyz)), 0.0));\n"
    "  float sum = 0.0;\n"
    "  for (int y = -1; y <= 1; y++)\n"
    "    for (int x = -1; x <= 1; x++)\n"
    "      sum += texture(u_shadow, vec3(c.xy + vec2(x, y) * texel * soft, c.z - bias));\n"
    "  return sum / 9.0;\n"
    "}\n"
    /* The normal map's (x, y) scaled by the material's strength (v_specular.z; 0: no map), in
     * the frame of tangent, bitangent (w * cross(n, t)) and normal; meshes without tangents (a
     * replayed capture) keep their normal. */
    "vec3 mapped_normal(vec3 n) {\n"
    "#ifdef NO_NORMAL_MAP\n" /* the lean variant for materials without one (strength 0) */
    "  return n;\n"
    "#endif\n"
    "  if (v_specular.z <= 0.0 || dot(v_tangent.xyz, v_tangent.xyz) < 1e-12) return n;\n"
    "  vec3 t = v_tangent.xyz - n * dot(n, v_tangent.xyz);\n"
    "  if (dot(t, t) < 1e-12) return n;\n"
    "  t = normalize(t);\n"
    "  vec3 b = cross(n, t) * (v_tangent.w < 0.0 ? -1.0 : 1.0);\n"
    "  vec3 m = texture(u_normal_map, v_uv).xyz * 2.0 - 1.0;\n"
    "  m.xy *= v_specular.z;\n"
    "  return normalize(m.x * t + m.y * b + m.z * n);\n"
    "}\n"
    /* Point or spot light k's share that reaches this point (d: from the light to here): 1
     * without a shadow (u_frame[5 + 2k].w = 0), else the average of four filtered comparisons
     * of the distance with its cube's, spread about a texel and a half across the direction. The
     * distance is biased by what a texel spans there: more far away and at grazing angles. */
    "float local_lit(int k, vec3 d, vec3 n, float range) {\n"
    "  float layer = u_frame[5 + 2 * k].w;\n"
    "  if (layer < 0.5) return 1.0;\n"
    "  float dist = length(d);\n"
    "  vec3 dir = d / max(dist, 1e-6);\n"
    "  float ndl = max(dot(n, -dir), 0.0);\n"
    "  float slope = min(sqrt(max(1.0 - ndl * ndl, 0.0)) / max(ndl, 1e-3), 5.0);\n"
    "  float ref = (dist - 0.02 - dist * (0.01 + 0.02 * slope)) / range;\n"
    "  vec3 a = normalize(cross(dir, abs(dir.y) < 0.9 ? vec3(0.0, 1.0, 0.0) : vec3(1.0, 0.0, "
    "0.0)));\n"
    "  vec3 b = cross(dir, a);\n"
    "  float spread = 3.0 / 256.0;\n"
    "  float sum = 0.0;\n"
    "  for (int t = 0; t < 4; t++) {\n"
    "    vec2 o = vec2((t & 1) != 0 ? 1.0 : -1.0, (t & 2) != 0 ? 1.0 : -1.0) * spread;\n"
    "    sum += texture(u_local_shadow, vec4(dir + o.x * a + o.y * b, layer - 1.0), ref);\n"
    "  }\n"
    "  return sum * 0.25;\n"
    "}\n"
    /* A spot light's cone (u_local[2k]: its axis, cos of the half angle; u_local[2k + 1].x: cos
     * where the fade begins); 1 for a point light (axis zero). */
    "float cone(int k, vec3 to_point) {\n"
    "  vec4 s = u_local[2 * k];\n"
    "  if (dot(s.xyz, s.xyz) == 0.0) return 1.0;\n"
    "  return smoothstep(s.w, u_local[2 * k + 1].x, dot(normalize(to_point), s.xyz));\n"
    "}\n"
    "void main() {\n"
    "  vec3 n = mapped_normal(normalize(v_normal));\n"
    "  vec3 v = normalize(u_frame[0].xyz - v_world);\n"
    "  vec4 albedo = v_color * texture(u_base, v_uv);\n"
    "  vec3 base = albedo.rgb;\n"
    "  vec3 c = u_frame[1].rgb * base + sunlit(n) * light(n, v, normalize(u_frame[2].xyz), "
    "u_frame[3].rgb, base);\n"
    /* Without point or spot lights in the frame a lean variant leaves the loop out: llvmpipe runs
     * a loop's body (and its cube map lookups) under a mask even when no lane enters it, a
     * quarter of a frame's cost in the level editor's viewport. */
    "#ifndef NO_LOCAL_LIGHTS\n"
    "  int points = int(u_frame[1].w);\n"
    "  for (int k = 0; k < points; k++) {\n"
    "    vec4 pr = u_frame[4 + 2 * k];\n"
    "    vec3 d = pr.xyz - v_world;\n"
    "    float fall = clamp(1.0 - length(d) / pr.w, 0.0, 1.0);\n"
    "    float reach = fall * fall * cone(k, -d);\n"
    "    if (reach > 0.0) reach *= local_lit(k, -d, n, pr.w);\n"
    "    c += reach * light(n, v, normalize(d), u_frame[5 + 2 * k].rgb, base);\n"
    "  }\n"
    "#endif\n"
    "  o_color = vec4(c, albedo.a);\n"
    "}\n";

static const char fullscreen_vs[] = "#version 450 core\n"
                                    "out vec2 v_uv;\n"
                                    "void main() {\n"
                                    "  v_uv = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2);\n"
                                    "  gl_Position = vec4(v_uv * 2.0 - 1.0, 0.0, 1.0);\n"
                                    "}\n";

static const char copy_fs[] = "#version 450 core\n"
                              "layout(binding = 0) uniform sampler2D u_input;\n"
                              "in vec2 v_uv;\n"
                              "out vec4 o_color;\n"
                              "void main() { o_color = texture(u_input, v_uv); }\n";

static const char vignette_fs[] =
    "#version 450 core\n"
    "layout(binding = 0) uniform sampler2D u_input;\n"
    "in vec2 v_uv;\n"
    "out vec4 o_color;\n"
    "void main() {\n"
    "  vec2 d = v_uv - 0.5;\n"
    "  o_color = vec4(texture(u_input, v_uv).rgb * (1.0 - 0.9 * dot(d, d)), 1.0);\n"
    "}\n";

/* `prefix` (NULL: none) goes before `src`: the #version line and defines of a shared body. */
static GLuint compile_stage(GLenum stage, const char *prefix, const char *src, const char *name,
                            char *err, size_t err_size)
{
    GLuint s = glCreateShader(stage);
    const char *parts[2] = {prefix ? prefix : "", src};
    glShaderSource(s, 2, parts, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[512] = "";
        glGetShaderInfoLog(s, sizeof log, NULL, log);
        snprintf(err, err_size, "program '%s': the %s shader does not compile: %s", name,
                 stage == GL_VERTEX_SHADER ? "vertex" : "fragment", log);
        glDeleteShader(s);
        return 0;
    }
    return s;
}

static GLuint link_program(const char *vs_prefix, const char *vs, const char *fs_prefix,
                           const char *fs, const char *name, char *err, size_t err_size)
{
    GLuint v = compile_stage(GL_VERTEX_SHADER, vs_prefix, vs, name, err, err_size);
    GLuint f = v ? compile_stage(GL_FRAGMENT_SHADER, fs_prefix, fs, name, err, err_size) : 0;
    if (!f) {
        glDeleteShader(v);
        return 0;
    }
    GLuint p = glCreateProgram();
    glAttachShader(p, v);
    glAttachShader(p, f);
    glLinkProgram(p);
    glDeleteShader(v);
    glDeleteShader(f);
    GLint ok = 0;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[512] = "";
        glGetProgramInfoLog(p, sizeof log, NULL, log);
        snprintf(err, err_size, "program '%s' does not link: %s", name, log);
        glDeleteProgram(p);
        return 0;
    }
    return p;
}

bool render__gl_build_programs(GLuint out[RENDER_NUM_PROGRAMS], char *err, size_t err_size)
{
    static const char version[] = "#version 450 core\n",
                      shadow[] = "#version 450 core\n#define SHADOW 1\n";
    static const char local[] = "#version 450 core\n#define LOCAL 1\n";
    static const char *const sources[RENDER_NUM_PROGRAMS][3] = {
        [RENDER_PROGRAM_UNLIT] = {NULL, mesh_vs, unlit_fs},
        [RENDER_PROGRAM_LIT] = {NULL, mesh_vs, lit_fs},
        [RENDER_PROGRAM_COPY] = {NULL, fullscreen_vs, copy_fs},
        [RENDER_PROGRAM_VIGNETTE] = {NULL, fullscreen_vs, vignette_fs},
        [RENDER_PROGRAM_UNLIT_SKINNED] = {version, skinned_vs, unlit_fs},
        [RENDER_PROGRAM_LIT_SKINNED] = {version, skinned_vs, lit_fs},
        [RENDER_PROGRAM_SHADOW] = {NULL, shadow_vs, depth_fs},
        [RENDER_PROGRAM_SHADOW_SKINNED] = {shadow, skinned_vs, depth_fs},
        [RENDER_PROGRAM_DEBUG_LINES] = {NULL, lines_vs, lines_fs},
        [RENDER_PROGRAM_TEXT] = {NULL, text_vs, text_fs},
        [RENDER_PROGRAM_SHADOW_LOCAL] = {NULL, shadow_local_vs, distance_fs},
        [RENDER_PROGRAM_SHADOW_LOCAL_SKINNED] = {local, skinned_vs, distance_fs},
    };
    for (uint32_t k = 0; k < RENDER_NUM_PROGRAMS; k++) {
        out[k] = link_program(sources[k][0], sources[k][1], NULL, sources[k][2],
                              render__program_names[k], err, err_size);
        if (!out[k]) {
            while (k--)
                glDeleteProgram(out[k]);
            return false;
        }
    }
    return true;
}

bool render__gl_build_lean_lit(GLuint out[2][RENDER_LEAN_KINDS], char *err, size_t err_size)
{
    static const char version[] = "#version 450 core\n";
    static const char *const defines[RENDER_LEAN_KINDS] = {
        [RENDER_LEAN_NO_LOCAL] = "#version 450 core\n#define NO_LOCAL_LIGHTS 1\n",
        [RENDER_LEAN_NO_NORMAL_MAP] = "#version 450 core\n#define NO_NORMAL_MAP 1\n",
        [RENDER_LEAN_NO_LOCAL | RENDER_LEAN_NO_NORMAL_MAP] =
            "#version 450 core\n#define NO_LOCAL_LIGHTS 1\n#define NO_NORMAL_MAP 1\n",
    };
    /* lit_fs begins with its own #version line: the prefix takes its place. */
    const char *body = lit_fs + sizeof version - 1;
    memset(out, 0, sizeof(GLuint) * 2 * RENDER_LEAN_KINDS);
    for (uint32_t kind = 1; kind < RENDER_LEAN_KINDS; kind++) {
        out[0][kind] =
            link_program(NULL, mesh_vs, defines[kind], body, "lit (lean)", err, err_size);
        out[1][kind] = out[0][kind] ? link_program(version, skinned_vs, defines[kind], body,
                                                   "lit_skinned (lean)", err, err_size)
                                    : 0;
        if (!out[1][kind]) {
            for (uint32_t k = 0; k < 2 * RENDER_LEAN_KINDS; k++)
                glDeleteProgram((&out[0][0])[k]);
            memset(out, 0, sizeof(GLuint) * 2 * RENDER_LEAN_KINDS);
            return false;
        }
    }
    return true;
}
