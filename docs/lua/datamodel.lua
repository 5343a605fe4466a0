---@meta
-- The data model for scripts and tools (api/ct_datamodel.h; kernel/datamodel/datamodel_lua.c).
-- GUIDs are 32-hex-digit strings. Misuse (a bad GUID, a missing object, a set operation on a
-- non-set, malformed text) raises with the model's message; nothing is applied.

---@class DataModelModule
---@field ROOT string the root object's GUID
DataModel = {}

---A new document, edited as `author` (collected with its userdata).
---@param author string
---@return ct.Doc doc
function DataModel.new(author) end

---A document of a level's SJSON source.
---@param text string
---@param name? string the level's name in messages (default "level")
---@return ct.Doc doc
function DataModel.read_level(text, name) end

---A data-model document (userdata "ct.datamodel.doc").
---@class ct.Doc
local Doc = {}

---A new object.
---@param guid? string its GUID (default: a new one)
---@return string guid
function Doc:create(guid) end

---Destroys an object.
---@param guid string
function Doc:destroy(guid) end

---Sets a property: nil, boolean, number, string, {x, y, z}, {x, y, z, w}, {guid = g},
---{set = {...}} or {blob = s}.
---@param guid string
---@param key string
---@param value any
function Doc:set(guid, key, value) end

---A property's value and its type name ("number", "vector3", "guid", "set", ...).
---@param guid string
---@param key string
---@return any value nil when missing
---@return string? type
function Doc:get(guid, key) end

---Adds item to the set property `key`.
---@param guid string
---@param key string
---@param item string a GUID
function Doc:add(guid, key, item) end

---Removes item from the set property `key`.
---@param guid string
---@param key string
---@param item string
function Doc:remove(guid, key, item) end

---@param guid string
---@return boolean
function Doc:exists(guid) end

---The object's property names.
---@param guid string
---@return string[]
function Doc:keys(guid) end

---Marks the point the next undo returns to.
function Doc:restore_point() end

---Undoes back to the last restore point.
---@return boolean applied
---@return table skipped operations that no longer applied
function Doc:undo() end

---Redoes what the last undo undid.
---@return boolean applied
---@return table skipped
function Doc:redo() end

---Dangling references and orphans.
---@return {kind: "dangling"|"orphan", object: string, key?: string, target?: string}[]
function Doc:check() end

---Replaces every reference to a by b.
---@param a string
---@param b string
function Doc:replace(a, b) end

---The objects below these roots as text (for paste).
---@param guids string[]
---@return string text
function Doc:copy(guids) end

---Pastes copied text under new GUIDs.
---@param text string
---@return string[] guids the new roots
function Doc:paste(text) end

---Starts or stops recording changes.
---@param on boolean
function Doc:record(on) end

---The changes recorded since the last call, as change-set text.
---@return string
function Doc:take_changes() end

---Applies change-set text.
---@param text string
---@return boolean applied
---@return table conflicts {object, key, winner, loser} for each conflicting change
function Doc:apply(text) end

---The document as level SJSON.
---@param assign_ids? boolean give entities stable ids
---@return string text
function Doc:write_level(assign_ids) end
