---@meta
-- The expression language (api/ct_expr.h; the ct.expr module).

---@class ExprModule
Expr = {}

---Compiles one-line maths ("sin(t) + 0.1 * cos(10 * t)"; several outputs as "a = ...; b = ...").
---@param source string
---@param inputs? string[] input names, in the order eval takes them
---@param outputs? string[] output names
---@param seed? number for rand()
---@return ct.ExprProgram|nil program
---@return string? error the error text, with line:column
function Expr.compile(source, inputs, outputs, seed) end

---Evaluates a program. Raises when an input is missing or not a number.
---@param program ct.ExprProgram
---@param inputs? number[]|table<string, number> in declared order, or by name
---@return number ... one number per output
function Expr.eval(program, inputs) end

---The program's listing: the RPN, then the bytecode.
---@param program ct.ExprProgram
---@return string
function Expr.disassemble(program) end

---A compiled program (userdata "ct.expr.program"); freed when collected.
---@class ct.ExprProgram
local ExprProgram = {}

---As Expr.eval(program, inputs).
---@param inputs? number[]|table<string, number>
---@return number ...
function ExprProgram:eval(inputs) end

---As Expr.disassemble(program).
---@return string
function ExprProgram:disassemble() end
