#!/usr/bin/env python3
"""Writes the HTML API reference of api/*.h, and checks that the headers document everything.

The headers are the manual (STYLE.md): each opens with a comment that explains its part, and each
declaration has the comment right before it (or at the end of its line). This reads them as they
are, without markup of its own:
  - a page per header: its opening comment, its API ids ("ct.log" and the number), then every
    struct, union and enum with its members, every function type, function and alias, each with
    its comment; types named anywhere link to where they are declared;
  - versioned tables (`ct_x_api_v1`, `_v2`, ...) say what each version added, and every member
    says the version that brought it;
  - index.html lists the headers and every API with its versions.

What counts as documented: a declaration with a comment of its own; a struct member also when it
follows, with no blank line, a documented member (a comment heading a group of lines), or when the
same member of another version of the same table is documented ("everything of v1 (same order,
same meaning)").

With --lua DIR it also writes lua.html from the LuaLS annotation files in DIR (docs/lua): every
module, function, parameter, return and the errors each names, grouped by module.

usage: api_reference.py API_DIR OUT_DIR [--lua DIR] [--check]
  --check: also fail (exit 1), listing them, on undocumented declarations and broken links.
"""
import html
import os
import re
import sys

TOKEN = re.compile(r'/\*.*?\*/|//[^\n]*|^[ \t]*#(?:[^\n]*\\\n)*[^\n]*|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|\n|[^/#"\'\n]+|[/#"\']',
                   re.S | re.M)
CPLUSPLUS = re.compile(r'#ifdef __cplusplus\s*\n\s*(?:extern "C" \{|\})\s*\n\s*#endif')
API_ID = re.compile(r'#define\s+(CT_\w+_API)\s+(0x[0-9a-fA-F]+)u?\s*/\*\s*"([\w.]+)"\s*\*/')
VERSIONED = re.compile(r'^(\w+)_v(\d+)$')
IDENT = re.compile(r'\b[A-Za-z_]\w*\b')


class Decl:
    def __init__(self, kind, name, code, doc, line):
        self.kind, self.name, self.code, self.doc, self.line = kind, name, code, doc, line
        self.members = []  # (name, code, doc, grouped)
        self.header = None
        self.grouped_with = None  # the declaration above whose comment covers this one


def clean_comment(c):
    """The text of a comment, without its markers and the leading ' * ' of its lines."""
    if c.startswith('//'):
        return c[2:].strip()
    body = c[2:-2]
    lines = body.split('\n')
    out = []
    for ln in lines:
        s = re.sub(r'^\s*\* ?', '', ln) if re.match(r'^\s*\*', ln) else ln.strip() if not out else ln
        out.append(s.rstrip())
    while out and not out[0].strip():
        out.pop(0)
    while out and not out[-1].strip():
        out.pop()
    # Common indentation of continuation lines.
    return '\n'.join(out)


def statements(text):
    """Top-level items: ('stmt', code, doc comments, trailing comment, line) in order, plus the
    file's opening comment."""
    text = CPLUSPLUS.sub('', text)
    items, code, comments, depth, paren = [], '', [], 0, 0
    blank_since_comment = False
    line = 1
    opening = None
    start_line = 1
    pending_trailing = None
    run = 0          # newlines in a row with nothing between them
    blank = False    # an empty line since the last item
    for tok in TOKEN.findall(text):
        if tok != '\n' and not tok.isspace():
            run = 0
        if tok == '\n':
            run += 1
            if run >= 2 and not code.strip():
                blank = True
            line += 1
            if not code.strip() and comments and code.count('\n') >= 1:
                blank_since_comment = True
            code += '\n' if code.strip() else ''
            if not code.strip():
                code = ''
            if pending_trailing is not None:
                pending_trailing = None
            continue
        if tok.startswith('/*') or tok.startswith('//'):
            line += tok.count('\n')
            if opening is None and not items and not code.strip():
                opening = tok
                continue
            if code.strip() and depth == 0:
                # A comment inside a statement being written (before its ';').
                comments.append(tok)
            elif code.strip():
                code += tok
            elif pending_trailing is not None and items:
                items[-1][3].append(tok)
            else:
                if blank_since_comment:
                    comments = []
                    blank_since_comment = False
                comments.append(tok)
            continue
        if tok.lstrip().startswith('#') and depth == 0:
            line += tok.count('\n')
            m = re.match(r'\s*#\s*define\s+(\w+)(\([^)]*\))?\s*(.*)', tok, re.S)
            if m and not m.group(1).endswith('_H'):
                value = m.group(3)
                trailing = re.findall(r'/\*.*?\*/', value, re.S)
                value = re.sub(r'/\*.*?\*/', '', value).strip()
                items.append(['define', m.group(1) + (m.group(2) or ''), comments, trailing, line,
                              value, blank])
                blank = False
                pending_trailing = True
            comments = []
            continue
        if not code.strip():
            start_line = line
            if blank_since_comment:
                comments = []
                blank_since_comment = False
        code += tok
        line += tok.count('\n')
        for ch in tok:
            if ch == '{':
                depth += 1
            elif ch == '}':
                depth -= 1
            elif ch == '(':
                paren += 1
            elif ch == ')':
                paren -= 1
        stripped = code.strip()
        ends = depth == 0 and paren == 0 and (stripped.endswith(';') or
                                                (stripped.endswith('}') and re.search(r'\)\s*\{', stripped)
                                                 and not stripped.startswith('typedef')
                                                 and not re.match(r'^(struct|union|enum)\b', stripped)))
        if ends:
            items.append(['stmt', stripped, comments, [], start_line, None, blank])
            blank = False
            pending_trailing = True
            code, comments = '', []
    return opening, items


def reflow(text):
    """A member's comment as running text: its lines joined, but an indented line (an example) or
    a list item keeps its own line."""
    out = []
    for ln in text.split('\n'):
        if out and ln and not ln[0].isspace() and not ln.startswith('- ') and out[-1]:
            out[-1] += ' ' + ln
        else:
            out.append(ln)
    return '\n'.join(out)


def split_members(body):
    """(code, doc comments, trailing comments, blank line before) for each member of a body."""
    out, code, comments, depth, paren, blank = [], '', [], 0, 0, False
    newlines = 0
    # A member spelled differently for C++ (#ifdef __cplusplus ... #else ... #endif): the C one.
    body = re.sub(r'#ifdef __cplusplus\n.*?#else\n(.*?)#endif\n', r'\1', body, flags=re.S)
    for tok in TOKEN.findall(body):
        if tok == '\n':
            newlines += 1
            if not code.strip() and newlines >= 2:
                blank = True
                comments = [] if not comments else comments
            if out and not code.strip():
                out[-1][4] = True  # the line of the last member ended
            continue
        if tok.startswith('/*') or tok.startswith('//'):
            if out and not out[-1][4] and not code.strip():
                out[-1][2].append(tok)
            else:
                comments.append(tok)
            newlines = 0
            continue
        if tok.lstrip().startswith('#'):
            continue
        newlines = 0
        code += tok
        for ch in tok:
            depth += ch == '{'
            depth -= ch == '}'
            paren += ch == '('
            paren -= ch == ')'
        if depth == 0 and paren == 0 and code.strip().endswith(';'):
            out.append([code.strip(), comments, [], blank, False])
            code, comments, blank = '', [], False
    if code.strip():  # enum bodies: enumerators end with ',' or nothing
        out.append([code.strip(), comments, [], blank, False])
    return [(c, d, t, b) for c, d, t, b, _ in out]


def member_names(code):
    code = re.sub(r'__attribute__\s*\(\(.*?\)\)', '', code, flags=re.S).rstrip(';').strip()
    m = re.search(r'\(\s*\*\s*(\w+)\s*\)\s*\(', code)
    if m:
        return [m.group(1)]
    if '{' in code:  # a nested struct or union: its declarator follows the braces
        tail = code[code.rfind('}') + 1:]
        inner = code[code.index('{') + 1:code.rfind('}')]
        return re.findall(r'\w+', tail)[:1] or [n for c, *_ in split_members(inner)
                                                 for n in member_names(c)]
    names = []
    for part in code.split(','):
        part = re.sub(r'\[[^\]]*\]', '', part)
        part = re.sub(r'=.*', '', part)
        ids = re.findall(r'[A-Za-z_]\w*', part)
        if ids:
            names.append(ids[-1])
    return names


def parse_header(path):
    text = open(path, encoding='utf-8').read()
    opening, items = statements(text)
    decls, ids = [], API_ID.findall(text)
    previous = None
    for kind, code, comments, trailing, line, value, blank in items:
        doc = '\n\n'.join(clean_comment(c) for c in comments + trailing)
        # A comment heads the declarations that follow it without an empty line.
        grouped = None
        if not doc and not blank and previous is not None and kind != 'define' and \
                previous.kind != 'define' and (previous.doc or previous.grouped_with):
            grouped = previous.grouped_with or previous.name
        if kind == 'define':
            decls.append(Decl('define', code, value, doc, line))
            decls[-1].grouped_with = grouped
            previous = decls[-1]
            continue
        m = re.match(r'^(typedef\s+)?(struct|union|enum)\s*(\w*)\s*\{(.*)\}\s*(\w*)\s*;$', code, re.S)
        if m:
            name = m.group(5) or m.group(3)
            d = Decl(m.group(2), name, code, doc, line)
            for mcode, mdoc, mtrail, blank in split_members(m.group(4)):
                mtext = '\n'.join(clean_comment(c) for c in mdoc + mtrail)
                if m.group(2) == 'enum':
                    for e in [x.strip() for x in mcode.split(',') if x.strip()]:
                        d.members.append((re.match(r'\w+', e).group(0), e, mtext, blank))
                        mtext = ''
                    continue
                for i, n in enumerate(member_names(mcode)):
                    d.members.append((n, mcode, mtext if i == 0 else '', blank if i == 0 else False))
            decls.append(d)
            decls[-1].grouped_with = grouped
            previous = decls[-1]
            continue
        if re.match(r'^(struct|union)\s+\w+\s*;$', code) or code.startswith('extern'):
            continue
        m = re.search(r'\(\s*\*\s*(\w+)\s*\)\s*\(', code)
        if code.startswith('typedef') and m:
            decls.append(Decl('function type', m.group(1), code, doc, line))
            decls[-1].grouped_with = grouped
            previous = decls[-1]
            continue
        if code.startswith('typedef'):
            name = re.findall(r'\w+', code)[-1]
            decls.append(Decl('alias', name, code, doc, line))
            decls[-1].grouped_with = grouped
            previous = decls[-1]
            continue
        m = re.search(r'(\w+)\s*\([^;{]*\)\s*(\{|;)', code, re.S)
        if m:
            sig = code[:code.index('{')].strip() if m.group(2) == '{' else code.rstrip(';')
            decls.append(Decl('function', m.group(1), sig, doc, line))
            decls[-1].grouped_with = grouped
            previous = decls[-1]
    return clean_comment(opening) if opening else '', ids, decls


def split_param(line):
    """(name, type, description) of a ---@param line; a type may hold spaces inside braces or
    parentheses ({loop?: boolean, speed?: number}, fun(e: ct.Entity))."""
    rest = line[len('---@param'):].strip()
    name, _, rest = rest.partition(' ')
    depth, i = 0, 0
    while i < len(rest) and (depth > 0 or not rest[i].isspace()):
        depth += rest[i] in '{('
        depth -= rest[i] in '})'
        i += 1
    return name, rest[:i], rest[i:].strip()


def lua_page(lua_dir):
    """The body of lua.html: the annotation files' modules, classes and functions."""
    body, toc = [], []
    for fn in sorted(os.listdir(lua_dir), key=lambda f: (f != 'types.lua', f)):
        if not fn.endswith('.lua'):
            continue
        lines = open(os.path.join(lua_dir, fn), encoding='utf-8').read().splitlines()
        intro = [ln[3:] for ln in lines[1:] if ln.startswith('-- ')]
        block = []
        section = []
        for ln in lines:
            m = re.match(r'^---@class\s+([\w.]+)', ln)
            fm = re.match(r'^function\s+([\w.:]+)\(([^)]*)\)', ln)
            if m:
                cls = m.group(1)
                cls_id = 'lua.' + cls
                desc = ' '.join(b[3:] for b in block if not b.startswith('---@'))
                section.append(f'<h2 id="{cls_id}">{html.escape(cls.replace("Module", ""))} '
                               f'<span class="kind">{fn}</span></h2>'
                               + (f'<p>{html.escape(desc)}</p>' if desc else ''))
                toc.append((cls_id, cls.replace('Module', '')))
                block = []
            elif fm:
                name, args = fm.groups()
                desc = ' '.join(b[3:] for b in block if not b.startswith('---@'))
                params = [split_param(b) for b in block if b.startswith('---@param')]
                rets = [b[len('---@return'):].strip() for b in block if b.startswith('---@return')]
                rows = ''.join(f'<tr><td><code>{html.escape(n)}</code></td><td><code>{html.escape(t)}</code>'
                               f'</td><td>{html.escape(d)}</td></tr>' for n, t, d in params)
                section.append(f'<h3 id="lua.{name}"><code>{html.escape(name)}({html.escape(args)})</code></h3>'
                               + (f'<p>{html.escape(desc)}</p>' if desc else '')
                               + (f'<table><tr><th>parameter</th><th>type</th><th></th></tr>{rows}</table>' if rows else '')
                               + ''.join(f'<p>returns <code>{html.escape(r)}</code></p>' for r in rets))
                block = []
            elif ln.startswith('---'):
                block.append(ln)
            else:
                block = []
        if section or intro:
            body.append(f'<pre>{html.escape(chr(10).join(intro))}</pre>' if fn == 'types.lua' else '')
            body.extend(section)
    head = ('<h1>Cuttle Lua reference</h1><p>Every function the engine registers in Lua, from the '
            'LuaLS annotation files installed in <code>share/cuttle/lua</code> (point '
            '<code>workspace.library</code> at them for completion and checks).</p><p>'
            + ' '.join(f'<a href="#{i}">{html.escape(n)}</a>' for i, n in toc) + '</p>')
    return head + '\n'.join(body)


def main():
    args = sys.argv[1:]
    lua_dir = None
    if '--lua' in args:
        lua_dir = args[args.index('--lua') + 1]
        del args[args.index('--lua'):args.index('--lua') + 2]
    api_dir, out_dir = args[0], args[1]
    check = '--check' in args[2:]
    headers = sorted(h for h in os.listdir(api_dir) if h.endswith('.h'))
    pages = {}
    where = {}  # name -> (page, anchor)
    for h in headers:
        intro, ids, decls = parse_header(os.path.join(api_dir, h))
        for d in decls:
            d.header = h
            where.setdefault(d.name, (h, d.name))
        pages[h] = (intro, ids, decls)

    families = {}
    for h, (_, _, decls) in pages.items():
        for d in decls:
            m = VERSIONED.match(d.name)
            if d.kind in ('struct', 'union') and m:
                families.setdefault(m.group(1), {})[int(m.group(2))] = d

    problems = []
    documented_in_family = {}
    for stem, versions in families.items():
        for v, d in versions.items():
            for n, _, doc, _ in d.members:
                if doc:
                    documented_in_family.setdefault((stem, n), v)

    def member_status(d):
        """(name, code, doc, since, documented, note) per member."""
        m = VERSIONED.match(d.name)
        stem, ver = (m.group(1), int(m.group(2))) if m else (None, None)
        rows, prev_documented = [], False
        for n, code, doc, blank in d.members:
            since, note = None, ''
            if stem:
                since = min(v for v, dd in families[stem].items() if any(x[0] == n for x in dd.members))
            ok = bool(doc)
            if not ok and stem and (stem, n) in documented_in_family:
                ok = True
                note = 'see ' + stem + '_v%d' % documented_in_family[(stem, n)]
            if not ok and prev_documented and not blank:
                ok = True
                note = 'with the line above'
            if not ok and d.doc and (len(d.members) == 1 or '`' + n + '`' in d.doc):
                ok = True
                note = 'in the description above'
            rows.append((n, code, doc, since, ok, note))
            prev_documented = ok
        return rows

    # Names some header declares with a comment (an opaque type repeated in several headers is
    # documented where it has one).
    documented_names = {d.name for _, _, decls in pages.values() for d in decls if d.doc}
    for h, (intro, ids, decls) in pages.items():
        if not intro:
            problems.append(f'{h}: no opening comment')
        for d in decls:
            # Internal helpers (<part>__name, STYLE.md) are not API; an API table is introduced
            # by its header's opening comment; a repeated alias by its documented declaration.
            if d.kind == 'define' or '__' in d.name:
                continue
            if d.kind == 'alias' and d.name in documented_names:
                continue
            if not d.doc and d.kind == 'struct' and re.search(r'_api_v\d+$', d.name) and intro:
                d.doc = ''
                for n, _, _, _, ok, _ in member_status(d):
                    if not ok:
                        problems.append(f'{h}:{d.line}: {d.name}.{n} has no comment')
                continue
            if not d.doc and not d.grouped_with and not (d.kind in ('struct', 'union') and VERSIONED.match(d.name)
                                  and any(dd.doc for dd in families[VERSIONED.match(d.name).group(1)].values())):
                problems.append(f'{h}:{d.line}: {d.kind} {d.name} has no comment')
            if d.kind in ('struct', 'union'):
                for n, _, _, _, ok, _ in member_status(d):
                    if not ok:
                        problems.append(f'{h}:{d.line}: {d.name}.{n} has no comment')

    os.makedirs(out_dir, exist_ok=True)
    # One pass links both the headers' names (ct_world.h) and the declared names.
    words = [re.escape(h) for h in headers] + [re.escape(n) for n in sorted(where, key=len, reverse=True)
                                               if len(n) > 3]
    word_re = re.compile(r'\b(?:api/)?(' + '|'.join(words) + r')\b')

    def link(text, here):
        """Escaped text with declared names and header names linked."""
        def sub(m):
            n = m.group(1)
            if n.endswith('.h'):
                return f'<a href="{n[:-2]}.html">{m.group(0)}</a>'
            page_, anchor = where[n]
            href = ('' if page_ == here else page_[:-2] + '.html') + '#' + anchor
            return f'<a href="{href}">{m.group(0)}</a>'
        return word_re.sub(sub, html.escape(text, quote=False))

    css = ('body{font:15px/1.45 system-ui,sans-serif;margin:0;display:flex}'
           'nav{width:230px;padding:12px;background:#f3f4f6;height:100vh;overflow:auto;position:sticky;top:0;flex:none}'
           'nav a{display:block;color:#234;text-decoration:none;font:13px monospace;padding:1px 0}'
           'main{padding:16px 28px;max-width:1000px}pre{background:#f8f8f8;padding:8px 10px;overflow:auto;'
           'font-size:13px;border-left:3px solid #ccd}h2{border-bottom:1px solid #ddd;margin-top:34px}'
           'code{font-size:13px}table{border-collapse:collapse;width:100%}td,th{border-top:1px solid #e3e3e3;'
           'vertical-align:top;padding:4px 6px;text-align:left}td.doc{white-space:pre-wrap;font-size:14px}'
           '.since{background:#e6f0ff;border-radius:3px;padding:0 4px;font-size:12px}'
           '.kind{color:#777;font-size:13px;font-weight:normal}.added{color:#063}')

    def page(title, nav, body):
        return (f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
                f'<style>{css}</style></head><body><nav><a href="index.html"><b>Cuttle API</b></a>{nav}</nav>'
                f'<main>{body}</main></body></html>\n')

    nav = ''.join(f'<a href="{h[:-2]}.html">{h}</a>' for h in headers)
    if lua_dir:
        nav = '<a href="lua.html"><b>Lua reference</b></a>' + nav
    all_ids = []
    for h, (intro, ids, decls) in pages.items():
        body = [f'<h1>{h}</h1>', f'<pre class="intro">{link(intro, h)}</pre>']
        if ids:
            body.append('<h2 id="ids">API ids</h2><table><tr><th>name</th><th>id</th><th>macro</th><th>versions</th></tr>')
            for macro, value, name in ids:
                stem = macro[:-4].lower() + '_api'
                vers = sorted(families.get(stem, {}))
                vlinks = ', '.join(f'<a href="{families[stem][v].header[:-2]}.html#{stem}_v{v}">v{v}</a>' for v in vers)
                body.append(f'<tr id="{macro}"><td><code>"{name}"</code></td><td><code>{value}</code></td>'
                            f'<td><code>{macro}</code></td><td>{vlinks}</td></tr>')
                all_ids.append((name, value, h, vlinks))
            body.append('</table>')
        for d in decls:
            if d.kind == 'define':
                continue
            body.append(f'<h2 id="{d.name}">{d.name} <span class="kind">{d.kind}</span></h2>')
            m = VERSIONED.match(d.name)
            if m and d.kind in ('struct', 'union'):
                fam = families[m.group(1)]
                v = int(m.group(2))
                older = [x for x in fam if x < v]
                if older:
                    prev = fam[max(older)]
                    added = [n for n, *_ in d.members if not any(p[0] == n for p in prev.members)]
                    body.append(f'<p class="added">v{v} adds to <a href="{prev.header[:-2]}.html#{prev.name}">v{max(older)}</a>: '
                                + (', '.join(f'<code>{n}</code>' for n in added) or 'nothing new by name') + '</p>')
                others = [f'<a href="{fam[x].header[:-2]}.html#{fam[x].name}">v{x}</a>' for x in sorted(fam) if x != v]
                if others:
                    body.append('<p>Other versions: ' + ', '.join(others) + '</p>')
            if d.doc:
                body.append(f'<pre>{link(d.doc, h)}</pre>')
            elif d.grouped_with:
                body.append(f'<p><i>Described with <a href="#{d.grouped_with}">{d.grouped_with}</a> above.</i></p>')
            if d.kind in ('struct', 'union', 'enum'):
                body.append('<table><tr><th>member</th><th>declaration</th><th>what it is</th></tr>')
                rows = member_status(d) if d.kind != 'enum' else [(n, c, doc, None, True, '') for n, c, doc, _ in d.members]
                for n, code, doc, since, ok, note in rows:
                    badge = f' <span class="since">v{since}</span>' if since else ''
                    text = link(reflow(doc), h) if doc else (f'<i>{link(note, h)}</i>' if note else '')
                    body.append(f'<tr id="{d.name}.{n}"><td><code>{n}</code>{badge}</td>'
                                f'<td><code>{link(code, h)}</code></td><td class="doc">{text}</td></tr>')
                body.append('</table>')
            else:
                body.append(f'<pre>{link(d.code, h)}</pre>')
        defines = [d for d in decls if d.kind == 'define' and not re.match(r'CT_\w+_API$', d.name)]
        if defines:
            body.append('<h2 id="macros">Macros and constants</h2><table>')
            for d in defines:
                body.append(f'<tr id="{d.name.split("(")[0]}"><td><code>{html.escape(d.name)}</code></td>'
                            f'<td><code>{link(d.code[:120], h)}</code></td><td class="doc">{link(d.doc, h)}</td></tr>')
            body.append('</table>')
        with open(os.path.join(out_dir, h[:-2] + '.html'), 'w', encoding='utf-8') as f:
            f.write(page(h, nav, '\n'.join(body)))

    index = ['<h1>Cuttle API reference</h1><p>Generated from the comments of the headers in '
             '<code>api/</code> (installed in <code>include/cuttle/</code>); each header is the manual of its part.</p>',
             '<h2 id="apis">APIs</h2><table><tr><th>name</th><th>id</th><th>header</th><th>versions</th></tr>']
    for name, value, h, vlinks in sorted(all_ids):
        index.append(f'<tr><td><code>"{name}"</code></td><td><code>{value}</code></td>'
                     f'<td><a href="{h[:-2]}.html">{h}</a></td><td>{vlinks}</td></tr>')
    index.append('</table><h2 id="headers">Headers</h2><table>')
    for h, (intro, _, _) in pages.items():
        first = intro.split('\n\n')[0].replace('\n', ' ')
        index.append(f'<tr><td><a href="{h[:-2]}.html">{h}</a></td><td>{link(first[:300], "index.h")}</td></tr>')
    index.append('</table>')
    if lua_dir:
        index.insert(1, '<p>Scripts: the <a href="lua.html">Lua reference</a>.</p>')
        with open(os.path.join(out_dir, 'lua.html'), 'w', encoding='utf-8') as f:
            f.write(page('Cuttle Lua reference', nav, lua_page(lua_dir)))
    with open(os.path.join(out_dir, 'index.html'), 'w', encoding='utf-8') as f:
        f.write(page('Cuttle API reference', nav, '\n'.join(index)))

    # Links: every href names a written page and, after '#', an id on it.
    ids_of = {}
    for fn in os.listdir(out_dir):
        if fn.endswith('.html'):
            ids_of[fn] = set(re.findall(r'id="([^"]+)"', open(os.path.join(out_dir, fn), encoding='utf-8').read()))
    links = 0
    for fn in sorted(ids_of):
        for href in re.findall(r'href="([^"]+)"', open(os.path.join(out_dir, fn), encoding='utf-8').read()):
            links += 1
            target, _, anchor = href.partition('#')
            target = target or fn
            if target not in ids_of or (anchor and anchor not in ids_of[target]):
                problems.append(f'{fn}: broken link {href}')

    counts = {}
    for _, _, decls in pages.values():
        for d in decls:
            counts[d.kind] = counts.get(d.kind, 0) + 1
    members = sum(len(d.members) for _, _, decls in pages.values() for d in decls if d.kind in ('struct', 'union'))
    print(f'api reference: {len(headers)} headers, {counts.get("struct", 0) + counts.get("union", 0)} structs '
          f'and unions ({members} members), {counts.get("function", 0)} functions, '
          f'{counts.get("function type", 0)} function types, {links} links; {len(problems)} problems')
    if check:
        for p in problems:
            print('FAILED: ' + p)
        return 1 if problems else 0
    return 0


if __name__ == '__main__':
    sys.exit(main())
