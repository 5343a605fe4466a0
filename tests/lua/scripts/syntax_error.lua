x = 1
local = oops
