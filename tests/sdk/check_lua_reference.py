#!/usr/bin/env python3
"""The Lua reference (docs/lua/*.lua, LuaLS annotations) against what the engine registers.

Boots `cuttle` with every module and lists, from inside its Lua state, each public function of
each engine module table (global tables named with a capital; names starting with '_' are
private) and each method of each userdata type the engine registers (registry entries "ct.*").
Then checks, both ways, that the annotation files declare exactly those functions, that each
declaration has a description or @return, an @param for every parameter and no @param for
another, and that functions written in Lua take the parameters the reference names.

usage: check_lua_reference.py CUTTLE MODULES_DIR DOCS_LUA_DIR
"""
import glob
import os
import re
import subprocess
import sys

WALKER = r'''
local function params(fn)
  local info = debug.getinfo(fn, "Su")
  if info.what ~= "Lua" then return "C" end
  local names = {}
  for i = 1, info.nparams do names[#names + 1] = debug.getlocal(fn, i) end
  if info.isvararg then names[#names + 1] = "..." end
  return "Lua " .. table.concat(names, ",")
end
for k, v in pairs(_G) do
  if type(k) == "string" and k:match("^[A-Z]") and type(v) == "table" then
    for f, fn in pairs(v) do
      if type(f) == "string" and type(fn) == "function" and not f:match("^_") then
        print("@fn " .. k .. "." .. f .. " " .. params(fn))
      end
    end
  end
end
for k, v in pairs(debug.getregistry()) do
  if type(k) == "string" and k:match("^ct%.") and type(v) == "table" then
    local methods = type(v.__index) == "table" and v.__index or v
    for f, fn in pairs(methods) do
      if type(f) == "string" and type(fn) == "function" and not f:match("^_") then
        print("@fn " .. k .. ":" .. f .. " " .. params(fn))
      end
    end
  end
end
'''

FUNC = re.compile(r'^function\s+([A-Za-z_][\w.]*)([.:])(\w+)\s*\(([^)]*)\)\s*end\s*$')
CLASS = re.compile(r'^---@class\s+([\w.]+)')
USERDATA = re.compile(r'\(userdata "([\w.]+)"\)')


def registered(cuttle, modules):
    out = subprocess.run([cuttle, '--modules', modules, '-e', WALKER], capture_output=True,
                         text=True, timeout=120)
    found = {}
    for line in out.stdout.splitlines():
        if line.startswith('@fn '):
            _, name, kind = line.split(' ', 2)
            found[name] = kind
    if out.returncode != 0 or not found:
        sys.exit(f'cuttle did not list its Lua functions (exit {out.returncode}):\n{out.stderr}')
    return found


def documented(docs):
    """name -> (file:line, params, @params, has_doc) for every declared function."""
    decls, problems = {}, []
    for path in sorted(glob.glob(os.path.join(docs, '*.lua'))):
        lines = open(path, encoding='utf-8').read().splitlines()
        userdata_of = {}  # local class table name -> registry name
        pending_class = None
        block = []
        for i, line in enumerate(lines, 1):
            m = CLASS.match(line)
            if m:
                pending_class = None
                u = USERDATA.search(' '.join(block))
                if u:
                    pending_class = u.group(1)
            if pending_class:
                lm = re.match(r'^local\s+(\w+)\s*=\s*\{\}', line)
                if lm:
                    userdata_of[lm.group(1)] = pending_class
                    pending_class = None
            fm = FUNC.match(line)
            if fm:
                table, sep, fn, args = fm.groups()
                if sep == ':':
                    if table not in userdata_of:
                        problems.append(f'{path}:{i}: {table}:{fn}: its class names no (userdata "...")')
                        block = []
                        continue
                    name = userdata_of[table] + ':' + fn
                else:
                    name = table + '.' + fn
                params = [a.strip() for a in args.split(',') if a.strip()]
                tagged = [re.match(r'---@param\s+(\S+?)\??\s', b + ' ').group(1)
                          for b in block if b.startswith('---@param')]
                has_doc = any(b.startswith('---') and not b.startswith('---@param') for b in block)
                if name in decls:
                    problems.append(f'{path}:{i}: {name} is declared twice')
                decls[name] = (f'{os.path.basename(path)}:{i}', params, tagged, has_doc)
                block = []
            elif line.startswith('--'):
                block.append(line)
            else:
                block = []
    return decls, problems


def main():
    cuttle, modules, docs = sys.argv[1:4]
    found = registered(cuttle, modules)
    decls, problems = documented(docs)
    for name in sorted(set(found) - set(decls)):
        problems.append(f'{name} is registered but not in the reference')
    for name in sorted(set(decls) - set(found)):
        problems.append(f'{decls[name][0]}: {name} is in the reference but not registered')
    for name, (where, params, tagged, has_doc) in sorted(decls.items()):
        if not has_doc:
            problems.append(f'{where}: {name} has no description or @return')
        for p in params:
            if p != '...' and p not in tagged:
                problems.append(f'{where}: {name}: parameter {p} has no @param')
        for t in tagged:
            if t not in params:
                problems.append(f'{where}: {name}: @param {t} is not a parameter')
        kind = found.get(name, '')
        if kind.startswith('Lua '):
            real = [p for p in kind[4:].split(',') if p]
            if real != params:
                problems.append(f'{where}: {name} takes ({", ".join(real)}), the reference says '
                                f'({", ".join(params)})')
    for p in problems:
        print('FAILED: ' + p)
    print(f'lua reference: {len(found)} registered functions, {len(decls)} documented, '
          f'{len(problems)} problems')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
