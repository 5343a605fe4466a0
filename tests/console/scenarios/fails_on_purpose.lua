-- Run by the tests to check that a failing step exits non-zero naming the node and the step, and
-- that the logs are kept.
local project = arg[1]
Run.step("start")
local a = Run.start{name = "lonely", project = project}
Run.step("a script that fails")
a:script("error('on purpose')")
