-- Not run under --editor (the editor owns the frame); here so the project also runs as a game.
function init() end
function update(dt) end
function shutdown() end
