---@meta
-- Keys, mouse and gamepad (api/ct_input.h; the ct.input module). A bad control or action name
-- raises an error naming it.

---@class InputModule
Input = {}

---Whether a control ("w", "space", "mouse:left", "gamepad:a") is down after this frame's events.
---@param name string
---@return boolean
function Input.down(name) end

---Whether the control went down during this frame.
---@param name string
---@return boolean
function Input.pressed(name) end

---Whether the control went up during this frame.
---@param name string
---@return boolean
function Input.released(name) end

---An axis ("gamepad:left_x") in -1..1.
---@param name string
---@return number
function Input.axis(name) end

---This frame's pointer position, relative motion and wheel.
---@return number x, number y, number dx, number dy, number wheel_x, number wheel_y
function Input.mouse() end

---This frame's events, in order.
---@return {type: "down"|"up"|"motion"|"wheel"|"axis", control?: string, x?: number, y?: number, dx?: number, dy?: number, value?: number}[]
function Input.events() end

---Queues an event for the start of the next frame: ("down", name), ("up", name),
---("motion", x, y, dx, dy), ("wheel", x, y) or ("axis", name, value).
---@param kind "down"|"up"|"motion"|"wheel"|"axis"
---@param ... string|number
function Input.inject(kind, ...) end

---A named action's state.
---@param name string
---@return boolean down, boolean pressed, boolean released
function Input.action(name) end

---Binds an action to controls (replacing its controls).
---@param name string
---@param controls string[]
function Input.bind(name, controls) end

---Replaces the actions with those of an `*.input` resource.
---@param resource_name string
function Input.use_bindings(resource_name) end

---Grabs and hides the pointer (mouse-look) or lets it go.
---@param on boolean
function Input.set_capture(on) end

---@return integer frame the input frame number (from 1)
function Input.frame() end
