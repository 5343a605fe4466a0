---@meta
-- Rendering (api/ct_render.h; the ct.rendering module).

---@class RenderModule
Render = {}

---Draws a frame of the world seen from the camera entity.
---@param world ct.World
---@param camera ct.Entity
function Render.render(world, camera) end

---Writes the last frame as PNG (a relative path inside the output folder).
---@param path string
function Render.screenshot(path) end

---Writes the last frame's packet stream, for cuttle-render-replay.
---@param path string
function Render.capture(path) end

---The last frame's counts.
---@return {frame: integer, objects: integer, visible: integer, packets: integer, draws: integer, state_changes: integer, contexts: integer, invalid: integer, hash: string}
function Render.stats() end

---Takes a sort key apart.
---@param hex string the key as hexadecimal text
---@return {layer: integer, pass: integer, program: integer, material: integer, depth: integer}
function Render.decode_key(hex) end

---Chooses the backend ("gl" falls back to "null" when it cannot start, logged).
---@param name "gl"|"null"
function Render.set_backend(name) end

---@return string name the backend in use
function Render.backend() end

---Uses the render_config resource `name` as the pipeline.
---@param name string
function Render.set_pipeline(name) end

---Turns e's transform to look at a point (cameras).
---@param world ct.World
---@param e ct.Entity
---@param x number
---@param y number
---@param z number
function Render.look_at(world, e, x, y, z) end

---Gives e's mesh the material resource `name` (loaded on use).
---@param w ct.World
---@param e ct.Entity
---@param name string
function Render.set_material(w, e, name) end

---A debug line for this frame.
---@param x1 number
---@param y1 number
---@param z1 number
---@param x2 number
---@param y2 number
---@param z2 number
---@param r? number
---@param g? number
---@param b? number
---@param a? number
function Render.debug_line(x1, y1, z1, x2, y2, z2, r, g, b, a) end

---A debug box (centre and half extents) for this frame.
---@param cx number
---@param cy number
---@param cz number
---@param hx number
---@param hy number
---@param hz number
---@param r? number
---@param g? number
---@param b? number
---@param a? number
function Render.debug_box(cx, cy, cz, hx, hy, hz, r, g, b, a) end

---A debug sphere for this frame.
---@param cx number
---@param cy number
---@param cz number
---@param radius number
---@param r? number
---@param g? number
---@param b? number
---@param a? number
function Render.debug_sphere(cx, cy, cz, radius, r, g, b, a) end

---A debug arrow for this frame.
---@param x1 number
---@param y1 number
---@param z1 number
---@param x2 number
---@param y2 number
---@param z2 number
---@param r? number
---@param g? number
---@param b? number
---@param a? number
function Render.debug_arrow(x1, y1, z1, x2, y2, z2, r, g, b, a) end

---e's skeleton as debug lines for this frame.
---@param world ct.World
---@param e ct.Entity
---@param r? number
---@param g? number
---@param b? number
---@param a? number
function Render.debug_skeleton(world, e, r, g, b, a) end

---Every physics body of the world as a wireframe for this frame (box, sphere or capsule, posed as
---physics last saw it); without a colour each by its kind (dynamic green, kinematic blue, static
---grey, sleeping darker). Nothing without ct.physics.
---@param world ct.World
---@param r? number
---@param g? number
---@param b? number
---@param a? number
---@return integer drawn the number of bodies drawn
function Render.debug_physics(world, r, g, b, a) end

---Debug text at a screen position for this frame.
---@param x number
---@param y number
---@param text string
---@param r? number
---@param g? number
---@param b? number
---@param a? number
function Render.debug_text(x, y, text, r, g, b, a) end
