---@meta
-- Networking (api/ct_network.h; the ct.networking module). Main thread only.

---@class NetworkModule
Network = {}

---Starts the node: a host listens on `port`, a client or peer joins `join`.
---@param t {port?: integer, host?: boolean, mode?: "p2p"|"client_server", join?: string, world?: ct.World, key?: string, traffic_log?: string, tick_hz?: number}
function Network.start(t) end

---Stops the node and closes its connections.
function Network.stop() end

---@return integer port the port the node listens on
function Network.port() end

---@return integer id this node's peer id (0 until joined)
function Network.peer_id() end

---@return integer[] ids the connected peers
function Network.peers() end

---@return table stats packets, bytes, acks, resends and conditioner counts
function Network.stats() end

---Replicates e (and its network component) to every peer; this node owns it.
---@param world ct.World
---@param e ct.Entity
function Network.replicate(world, e) end

---@param world ct.World
---@param e ct.Entity
---@return integer peer the owner's peer id
function Network.owner(world, e) end

---Hands e's ownership to another peer (host only).
---@param world ct.World
---@param e ct.Entity
---@param peer integer
function Network.migrate(world, e, peer) end

---Declares the replicated numeric fields (the same on every peer, before start).
---@param names string[]
function Network.declare_fields(names) end

---Sets a replicated field of an entity this node owns.
---@param world ct.World
---@param e ct.Entity
---@param name string a declared field
---@param value number
function Network.set_field(world, e, name, value) end

---@param world ct.World
---@param e ct.Entity
---@param name string
---@return number value
function Network.field(world, e, name) end

---Declares an RPC: its argument types ("number string:32") and the handler.
---@param name string
---@param spec string
---@param fn fun(from: integer, ...)
function Network.rpc(name, spec, fn) end

---Calls a declared RPC on a peer (arguments checked against its declaration; raises on a mismatch).
---@param peer integer
---@param name string
---@param ... number|string
function Network.call(peer, name, ...) end

---false disables every timeout (for sessions stopped in a debugger).
---@param on boolean
function Network.set_timeouts(on) end

---Seeded network conditions towards a peer.
---@param peer integer
---@param t {loss?: number, latency_ms?: number, jitter_ms?: number, seed?: integer}
function Network.set_conditions(peer, t) end

---Replicas created and destroyed since the last call, in order.
---@return {type: "created"|"destroyed", entity: ct.Entity, object: integer, owner: integer}[]
function Network.replica_events() end

---The replicas now.
---@return {entity: ct.Entity, object: integer, owner: integer}[]
function Network.replicas() end

---How replicas are drawn between snapshots (0..2000 ms each; raises outside).
---@param t {delay_ms?: number, max_extrapolation_ms?: number}
function Network.set_interpolation(t) end
