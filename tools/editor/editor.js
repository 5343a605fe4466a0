// The Cuttle level editor page. It keeps only a view of what the engine's document says
// (objects, their properties and who set them), updated from the engine's messages; every
// edit is sent as the data model's operations and shown when the engine answers with them.
'use strict';

const ROOT = '00000000000000000000000000000000';
const params = new URLSearchParams(location.search);
const token = params.get('token');
const withToken = (path) => token ? path + (path.includes('?') ? '&' : '?') + 'token=' + encodeURIComponent(token) : path;
const $ = (id) => document.getElementById(id);

// Enumerations the modules document (api/ct_physics.h, api/ct_render.h). A body's shape has its
// own picker (shapeRow: every shape of the level format, and the shape's own fields).
const ENUMS = {
  'components.body.kind': ['static', 'dynamic', 'kinematic'],
  'components.light.type': ['directional', 'point'],
};
// Fields that name a resource of a type: a picker of the project's resources of that type.
const RESOURCE_FIELDS = { 'components.mesh.mesh': 'mesh', 'components.mesh.material': 'material',
                          'components.body.shape.mesh': 'collision_mesh' };
// What "Add component" puts in (the module's defaults, spelled as in a level source).
const COMPONENTS = {
  transform: { 'components.transform.position': { vec3: [0, 0, 0] } },
  debug_name: { 'components.debug_name.name': { string: 'entity' } },
  mesh: { 'components.mesh.mesh': { string: 'meshes/crate' }, 'components.mesh.material': { string: 'materials/wood' } },
  body: { 'components.body.kind': { string: 'dynamic' }, 'components.body.shape': { string: 'box' },
          'components.body.half_extents': { vec3: [0.5, 0.5, 0.5] }, 'components.body.mass': 1 },
  point_mass: { 'components.point_mass.mass': 1 },
  camera: { 'components.camera.fov': 60 },
  light: { 'components.light.type': { string: 'point' }, 'components.light.intensity': 1 },
};
// Euler orders as in api/ct_math.h: the six Tait-Bryan (three axes) and the six proper Euler
// orders (first axis repeated), the twelve of "What is gimbal lock" (001).
const ORDERS = ['XYZ', 'XZY', 'YXZ', 'YZX', 'ZXY', 'ZYX', 'XYX', 'XZX', 'YXY', 'YZY', 'ZXZ', 'ZYZ'];

const editor = window.editor = {
  objects: new Map(),   // id -> { props: Map(key -> { value, at }) }
  selection: [],
  others: new Map(),    // person -> selected ids
  ranges: [],
  resources: {},
  session: sessionStorage.getItem('cuttle.session') || '',
  user: params.get('user') || localStorage.getItem('cuttle.user') || 'designer',
  frame: 0,
  camera: null,
  frameOps: new Map(),  // frame n -> the "seq" of the last edit it shows (the frame message's "ops")
  shownOps: 0,          // that of the frame on screen: an edit whose seq is at most this is drawn
  opsSeq: 0,            // the "seq" of the last "ops" message taken
  eulerOrder: localStorage.getItem('cuttle.euler') || 'XYZ',
  lastEuler: new Map(), // object -> degrees shown last (the Euler filter keeps them continuous)
  conflicts: [],
  errors: [],
  hold: false,          // tests: stop taking updates (a page whose view lags behind)
  held: [],
  ws: null,
  nextId: 1,
  waiting: new Map(),
  canUndo: false, canRedo: false,
  playing: false,
  connected: false,
  pixelMessages: { whole: 0, change: 0, same: 0 }, // frames drawn whole, as a changed rectangle, or unchanged
  timing: {},           // when the page opened its socket, got and parsed its welcome (ms, the bench reads them)
};

// ---- connection ----

function connect() {
  const ws = new WebSocket(withToken(`ws://${location.host}/ws`));
  editor.ws = ws;
  ws.binaryType = 'arraybuffer';
  ws.onopen = () => {
    editor.timing.open = performance.now();
    send({ type: 'hello', user: editor.user, session: editor.session, pixels: true });
  };
  ws.onmessage = (ev) => {
    if (typeof ev.data !== 'string') return drawPixels(ev.data);
    const t = performance.now();
    const m = JSON.parse(ev.data);
    if (m.type === 'welcome') { editor.timing.welcome = t; editor.timing.parsed = performance.now(); }
    if (editor.hold && (m.type === 'ops' || m.type === 'frame')) { editor.held.push(m); return; }
    receive(m);
  };
  ws.onclose = () => {
    editor.connected = false;
    status('disconnected: reconnecting…', true);
    setTimeout(connect, 500);
  };
}

// A hidden page (a background tab) asks for no frames: decoding pixels nobody sees takes the
// CPU the engine draws with. Shown again, it is sent the newest frame at once.
function sendView() {
  if (editor.connected) send({ type: 'view', visible: !document.hidden });
  if (!document.hidden) drawOverlay();
}
document.addEventListener('visibilitychange', sendView);

function send(m) {
  if (!editor.ws || editor.ws.readyState !== 1) return 0;
  m.id = editor.nextId++;
  editor.ws.send(JSON.stringify(m));
  return m.id;
}

// Sends and resolves with the reply that carries the same id.
function request(m) {
  return new Promise((resolve) => { const id = send(m); if (id) editor.waiting.set(id, resolve); else resolve(null); });
}

editor.release = function () {
  editor.hold = false;
  const held = editor.held; editor.held = [];
  held.forEach(receive);
};

function receive(m) {
  if (m.id !== undefined && editor.waiting.has(m.id)) {
    const resolve = editor.waiting.get(m.id); editor.waiting.delete(m.id); resolve(m);
  }
  switch (m.type) {
    case 'welcome': return welcome(m);
    case 'ops': return applyOps(m);
    case 'frame': return showFrame(m);
    case 'history': case 'undone': case 'redone': return history(m);
    case 'error': return error(m.error);
    case 'conflict': return conflict(m);
    case 'people': return people(m.people);
    case 'selected': return selected(m);
    case 'saved': return logLine(`${m.by} saved ${m.file} (${m.bytes} bytes)`);
    case 'reloaded': return logLine(`${m.by} reloaded ${m.file} from its file: ${m.changes} changes came in (highlighted)`, false, 'conflict');
    case 'compiled': return logLine(m.ok ? 'compiled the project' : 'compile failed: ' + m.error, !m.ok);
    case 'play': editor.playing = m.playing; $('play').textContent = m.playing ? 'Stop' : 'Play';
      $('play').classList.toggle('on', m.playing); return logLine(`${m.by} ${m.playing ? 'started' : 'stopped'} play`);
  }
}

function welcome(m) {
  editor.connected = true;
  editor.session = m.session;
  sessionStorage.setItem('cuttle.session', m.session);
  editor.user = m.user;
  editor.ranges = m.ranges || [];
  editor.resources = m.resources || {};
  editor.objects.clear();
  for (const o of m.objects) {
    const props = new Map();
    for (const [k, [value, at]] of Object.entries(o.props)) props.set(k, { value, at });
    editor.objects.set(o.id, { props });
  }
  $('level').textContent = m.level;
  document.title = `${m.level} · Cuttle editor`;
  const place = $('place');
  place.length = 1;
  for (const u of editor.resources.unit || []) place.add(new Option(u, u));
  history(m);
  status(`${m.user}${m.resumed ? ' (session resumed)' : ''}`);
  if (m.recovered) logLine(`the engine replayed ${m.recovered} unsaved changes after a crash: save to keep them`, false, 'conflict');
  editor.selection = editor.selection.filter((id) => editor.objects.has(id));
  editor.pixels = !!m.pixels;
  if (document.hidden) sendView();
  if (m.camera) editor.camera = m.camera;
  if (m.frame && !editor.pixels) showFrame({ n: m.frame, camera: m.camera });
  render();
  editor.welcomedAt = performance.now();
}

// Keys whose change shows in the outline (names, order, hierarchy, repeat counts).
const OUTLINE_KEYS = new Set(['name', '@order', '@parent', 'components.debug_name.name', 'repeat.count']);

function applyOps(m) {
  const touched = new Set();
  let outline = false;
  for (const op of m.ops) {
    if (op.op === 'create') { editor.objects.set(op.object, { props: new Map() }); outline = true; }
    else if (op.op === 'destroy') { editor.objects.delete(op.object); outline = true; }
    else {
      const o = editor.objects.get(op.object);
      if (!o) continue;
      if (op.op !== 'set' || OUTLINE_KEYS.has(op.key) || op.value === null || !o.props.has(op.key)) outline = true;
      if (op.op === 'set') {
        if (op.value === null) o.props.delete(op.key);
        else o.props.set(op.key, { value: op.value, at: op.at });
        touched.add(op.object + ' ' + op.key);
      } else {
        const p = o.props.get(op.key) || { value: { set: [] }, at: op.at };
        const set = new Set(p.value.set || []);
        if (op.op === 'add') set.add(op.item); else set.delete(op.item);
        o.props.set(op.key, { value: { set: [...set] }, at: op.at });
      }
    }
  }
  editor.selection = editor.selection.filter((id) => editor.objects.has(id));
  editor.lastOps = m;
  if (m.seq) editor.opsSeq = m.seq;
  render(touched, !outline);
  if (editor.onOps) editor.onOps(m);
}

function history(m) {
  editor.canUndo = !!m.can_undo; editor.canRedo = !!m.can_redo;
  $('undo').disabled = !editor.canUndo; $('redo').disabled = !editor.canRedo;
  if (m.skipped && m.skipped.length)
    for (const s of m.skipped)
      logLine(`${m.type === 'undone' ? 'undo' : 'redo'} kept ${s.by}'s later change of ${nameOf(s.object)} ${s.key || ''}: ${s.why}`, false, 'conflict');
}

function error(text) {
  editor.errors.push(text);
  logLine(text, true);
  status(text, true);
}

function conflict(m) {
  editor.conflicts.push(m);
  logLine(`conflict on ${nameOf(m.object)} ${m.key}: ${m.winner.by}'s ${fmt(m.winner.value)} replaced ${m.loser.by}'s ${fmt(m.loser.value)}`, false, 'conflict');
  render();
}

function people(list) {
  $('people').innerHTML = '';
  for (const p of list) { const s = document.createElement('span'); s.textContent = p; $('people').append(s); }
}

function selected(m) {
  if (m.by === editor.user) return;
  editor.others.set(m.by, m.objects);
  drawOverlay();
}

function status(text, bad) { const s = $('status'); s.textContent = text; s.classList.toggle('bad', !!bad); }

function logLine(text, bad, cls) {
  const li = document.createElement('li');
  li.textContent = text;
  if (bad) li.className = 'error'; else if (cls) li.className = cls;
  $('log').append(li);
  $('log').scrollTop = 1e9;
}

const fmt = (v) => v === null || v === undefined ? 'nothing' : typeof v === 'object'
  ? (v.vec3 || v.quat ? '[' + (v.vec3 || v.quat).map((x) => +x.toFixed(3)).join(' ') + ']' : JSON.stringify(Object.values(v)[0]))
  : String(v);

// ---- the document as the page shows it ----

const prop = (id, key) => { const o = editor.objects.get(id); const p = o && o.props.get(key); return p ? p.value : undefined; };
const setOf = (id, key) => { const v = prop(id, key); return v && v.set ? v.set : []; };
const isEntity = (id) => id !== ROOT && typeof prop(id, '@order') === 'number';
function nameOf(id) {
  const n = prop(id, 'name') || prop(id, 'components.debug_name.name');
  return n ? (n.string !== undefined ? n.string : String(n)) : id.slice(-6);
}
function children(id) {
  const list = setOf(id, id === ROOT ? 'entities' : 'children').filter((c) => editor.objects.has(c));
  return list.sort((a, b) => (prop(a, '@order') - prop(b, '@order')) || (a < b ? -1 : 1));
}
function componentsOf(id) {
  const o = editor.objects.get(id);
  const names = new Set();
  if (o) for (const k of o.props.keys()) if (k.startsWith('components.')) names.add(k.split('.')[1]);
  return [...names];
}

// ---- outline ----

// The outline is virtual: the tree is flattened into rows (editor.outlineRows, {id, depth} in
// display order, filtered), and only the rows in view (and a few either side) are elements, so a
// level of 10,000 entities opens and scrolls as fast as one of ten.
const ROW_H = 20; // px, as .row's height in editor.css

function outlineRows() {
  const filter = $('filter').value.trim().toLowerCase();
  const matches = (id) => !filter || nameOf(id).toLowerCase().includes(filter) ||
    componentsOf(id).some((c) => c.toLowerCase().includes(filter));
  const rows = [];
  // An entity is listed when it matches or something below it does (then as its context).
  const visit = (id, depth) => {
    const start = rows.length;
    if (id !== ROOT) rows.push({ id, depth });
    let any = false;
    for (const k of children(id)) if (visit(k, depth + 1)) any = true;
    if (id === ROOT || any || matches(id)) return true;
    rows.length = start;
    return false;
  };
  visit(ROOT, -1);
  return rows;
}

function renderOutline() {
  editor.outlineRows = outlineRows();
  drawOutlineRows();
}

function outlineRow(id, depth, top) {
  const row = document.createElement('div');
  row.className = 'row' + (editor.selection.includes(id) ? ' selected' : '');
  row.style.top = top + 'px';
  row.style.paddingLeft = 4 + depth * 12 + 'px';
  row.dataset.id = id;
  row.draggable = true;
  row.textContent = nameOf(id);
  const count = prop(id, 'repeat.count');
  if (count > 1) { const c = document.createElement('span'); c.className = 'count'; c.textContent = '×' + count; row.append(c); }
  const comps = document.createElement('span'); comps.className = 'comp'; comps.textContent = componentsOf(id).join(' ');
  row.append(comps);
  row.onclick = (ev) => select(id, ev.ctrlKey || ev.metaKey || ev.shiftKey);
  row.ondragstart = (ev) => ev.dataTransfer.setData('text/x-cuttle-entity', id);
  row.ondragover = (ev) => { ev.preventDefault(); row.classList.add('drop'); };
  row.ondragleave = () => row.classList.remove('drop');
  row.ondrop = (ev) => {
    ev.preventDefault(); ev.stopPropagation(); row.classList.remove('drop');
    const moved = ev.dataTransfer.getData('text/x-cuttle-entity');
    if (moved && moved !== id) send({ type: 'reparent', object: moved, parent: id });
  };
  return row;
}

// Makes elements for the rows in view only.
function drawOutlineRows() {
  const box = $('outline'), rows = editor.outlineRows || [];
  const first = Math.max(0, Math.floor(box.scrollTop / ROW_H) - 8);
  const last = Math.min(rows.length, Math.ceil((box.scrollTop + (box.clientHeight || 600)) / ROW_H) + 8);
  const spacer = document.createElement('div');
  spacer.className = 'spacer';
  spacer.style.height = rows.length * ROW_H + 'px';
  for (let i = first; i < last; i++) spacer.append(outlineRow(rows[i].id, rows[i].depth, i * ROW_H));
  box.replaceChildren(spacer);
}
editor.drawOutlineRows = drawOutlineRows;

// Scrolls the outline so that an entity's row is in view.
function reveal(id) {
  const box = $('outline'), i = (editor.outlineRows || []).findIndex((r) => r.id === id);
  if (i < 0) return;
  if (i * ROW_H < box.scrollTop) box.scrollTop = i * ROW_H;
  else if ((i + 1) * ROW_H > box.scrollTop + box.clientHeight) box.scrollTop = (i + 1) * ROW_H - box.clientHeight;
}

let outlineFrame = 0;
$('outline').onscroll = () => {
  if (!outlineFrame) outlineFrame = requestAnimationFrame(() => { outlineFrame = 0; drawOutlineRows(); });
};
// Dropping on the outline outside any row makes an entity top level.
$('outline').ondragover = (ev) => ev.preventDefault();
$('outline').ondrop = (ev) => {
  if (ev.target.closest('.row')) return;
  ev.preventDefault();
  const moved = ev.dataTransfer.getData('text/x-cuttle-entity');
  if (moved) send({ type: 'reparent', object: moved, parent: ROOT });
};

function select(id, add) {
  if (document.activeElement && $('inspector').contains(document.activeElement)) document.activeElement.blur();
  if (add) editor.selection = editor.selection.includes(id) ? editor.selection.filter((x) => x !== id) : [...editor.selection, id];
  else editor.selection = id ? [id] : [];
  if (editor.selection.length) send({ type: 'select', objects: editor.selection });
  if (id) reveal(id);
  drawOutlineRows(); // the rows in view show the selection
  render(null, true);
}

// ---- inspector ----

function rangeOf(key) { return editor.ranges.find((r) => r.key === key); }

function checkNumber(key, values) {
  const r = rangeOf(key);
  // A body's sizes and damping, by the physics module's documented ranges (api/ct_physics.h).
  if (!r && key.startsWith(BODY) && BODY_RANGES[key.slice(BODY.length)]) return checkBodyNumbers(key.slice(BODY.length), values);
  for (const x of values) {
    if (!Number.isFinite(x)) return 'not a number';
    if (!r || key.endsWith('rotation')) continue;
    const mag = r.min > 0 && values.length > 1 ? Math.abs(x) : x;
    if (mag < r.min || mag > r.max) return `outside ${r.min}..${r.max}`;
    if (r.whole && x !== Math.floor(x)) return 'a whole number';
  }
  return null;
}

// Sends one property; `commit` ends the user action (a drag sends many, then one commit).
function setProp(id, key, value, commit) {
  const p = editor.objects.get(id) && editor.objects.get(id).props.get(key);
  send({ type: 'ops', commit: !!commit, ops: [{ op: 'set', object: id, key, value, base: p ? p.at : null }] });
}
editor.setProp = setProp;

// Quaternion <-> Euler angles (degrees) in a chosen order, a port of api/ct_math.h (intrinsic:
// angle n turns about the n-th letter of the order, about the axes as the turns before it moved
// them; R = R_a * R_b * R_c), with the Euler filter of "What is gimbal lock" (001): of the two
// equivalent angle triples, and every 360 degree turn of each, the one nearest the angles shown
// last, so values do not jump while you drag.
function quatToMatrix([x, y, z, w]) {
  return [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
          2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
          2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)];
}
const AX = { X: 0, Y: 1, Z: 2 };
function quatFromEuler(deg, order) {
  let q = [0, 0, 0, 1];
  for (let n = 0; n < 3; n++) {
    const a = AX[order[n]], h = deg[n] * Math.PI / 360, r = [0, 0, 0, Math.cos(h)];
    r[a] = Math.sin(h);
    q = [q[3] * r[0] + q[0] * r[3] + q[1] * r[2] - q[2] * r[1], q[3] * r[1] - q[0] * r[2] + q[1] * r[3] + q[2] * r[0],
         q[3] * r[2] + q[0] * r[1] - q[1] * r[0] + q[2] * r[3], q[3] * r[3] - q[0] * r[0] - q[1] * r[1] - q[2] * r[2]];
  }
  return q;
}
// The angles of a rotation: for a Tait-Bryan order the middle one in [-90, 90], for a proper
// order in [0, 180], the others in (-180, 180]; at gimbal lock the third is 0.
function eulerFromQuat(q, order) {
  const n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
  const u = n2 > 0 ? q.map((c) => c / Math.sqrt(n2)) : [0, 0, 0, 1];
  const mm = quatToMatrix(u), M = (r, c) => mm[3 * r + c];
  const i = AX[order[0]], j = AX[order[1]], proper = order[2] === order[0], k = 3 - i - j;
  // Even orders (i, j, k a cyclic turn of x, y, z) +1; odd ones mirror the signs.
  const s = j === (i + 1) % 3 ? 1 : -1;
  const e = [0, 0, 0];
  let sb, cb;
  if (proper) { cb = M(i, i); sb = Math.hypot(M(i, j), M(i, k)); }
  else { sb = s * M(i, k); cb = Math.hypot(M(i, i), M(i, j)); }
  e[1] = Math.atan2(sb, cb);
  const locked = proper ? sb < 1e-12 : cb < 1e-12;
  if (!locked && proper) {
    e[0] = Math.atan2(M(j, i), -s * M(k, i));
    e[2] = Math.atan2(M(i, j), s * M(i, k));
  } else if (!locked) {
    e[0] = Math.atan2(-s * M(j, k), M(k, k));
    e[2] = Math.atan2(-s * M(i, j), M(i, i));
  } else {
    // Only the first angle is left once the third is 0: R_i(a) = M * R_j(b)^T.
    const c = Math.cos(e[1]), sn = Math.sin(e[1]), rj = [[0, 0, 0], [0, 0, 0], [0, 0, 0]];
    const j1 = (j + 1) % 3, j2 = (j + 2) % 3;
    rj[j][j] = 1; rj[j1][j1] = c; rj[j2][j2] = c; rj[j2][j1] = sn; rj[j1][j2] = -sn;
    const ri = (r, col) => M(r, 0) * rj[col][0] + M(r, 1) * rj[col][1] + M(r, 2) * rj[col][2];
    const i1 = (i + 1) % 3, i2 = (i + 2) % 3;
    e[0] = Math.atan2(ri(i2, i1), ri(i1, i1));
  }
  return e.map((a) => a * 180 / Math.PI);
}
function eulerFilter(deg, order, prev) {
  if (!prev) return deg;
  const proper = order[0] === order[2];
  const alt = [deg[0] + 180, proper ? -deg[1] : 180 - deg[1], deg[2] + 180];
  const near = (d) => d.map((a, n) => a + 360 * Math.floor((prev[n] - a) / 360 + 0.5));
  const cost = (d) => d.reduce((sum, x, n) => sum + Math.abs(x - prev[n]), 0);
  const a = near(deg), b = near(alt);
  return cost(a) <= cost(b) ? a : b;
}
editor.quatFromEuler = quatFromEuler;
editor.eulerFromQuat = eulerFromQuat;
editor.eulerFilter = eulerFilter;

function numberInput(value, onChange, onDrag) {
  const input = document.createElement('input');
  input.type = 'number'; input.step = 'any'; input.value = +(+value).toFixed(4);
  input.onchange = () => onChange(parseFloat(input.value), input);
  input.onkeydown = (ev) => { if (ev.key === 'Enter') input.blur(); ev.stopPropagation(); };
  input.dragTo = onDrag;
  return input;
}

// The entities an edit of `key` in the inspector applies to: every selected entity that has the
// property (the inspector shows the first), or just `id` when it is not selected.
function targets(id, key) {
  if (!editor.selection.includes(id)) return [id];
  return editor.selection.filter((t) => prop(t, key) !== undefined);
}

// Sets `key` on every target in one message, so the edit is one undo item however many entities
// it touches. `make(value, id)` gives an entity's new value from its current one, or a string
// (why it cannot be set: then nothing is sent). Returns that string, or null.
function setAll(id, key, make, commit) {
  const ops = [];
  for (const t of targets(id, key)) {
    const p = editor.objects.get(t).props.get(key);
    const value = make(p.value, t);
    if (typeof value === 'string') return targets(id, key).length > 1 ? `${nameOf(t)}: ${value}` : value;
    ops.push({ op: 'set', object: t, key, value, base: p.at });
  }
  if (ops.length) send({ type: 'ops', commit: !!commit, ops });
  return null;
}
editor.setAll = setAll;

// Dragging a field's label scrubs one number of every target by the same amount: many
// operations, one undo item. `read(value, id)` is what an entity starts from (taken once, at the
// press), `write(start, delta)` its value moved by delta (or a string: out of range).
function scrub(label, id, key, read, write) {
  label.onmousedown = (ev) => {
    ev.preventDefault();
    const x0 = ev.clientX, start = new Map(targets(id, key).map((t) => [t, read(prop(t, key), t)]));
    const to = (e, commit) => setAll(id, key, (v, t) => write(start.get(t), (e.clientX - x0) * 0.02), commit);
    const move = (e) => to(e, false);
    const up = (e) => { document.removeEventListener('mousemove', move); document.removeEventListener('mouseup', up);
      to(e, true); };
    document.addEventListener('mousemove', move);
    document.addEventListener('mouseup', up);
  };
}

function fieldRow(id, key, p, group, touched) {
  const row = document.createElement('div');
  row.className = 'field';
  row.dataset.key = key;
  if (touched && touched.has(id + ' ' + key)) row.classList.add('changed');
  const label = document.createElement('label');
  const short = key.split('.').slice(2).join('.') || key;
  label.textContent = short;
  label.title = `${key}\nset by ${p.at ? p.at.split(' ').slice(1).join(' ') : '?'}`;
  row.append(label);
  const v = p.value;
  const err = document.createElement('div'); err.className = 'err';
  const fail = (text, input) => { err.textContent = text || ''; if (input) input.classList.toggle('bad', !!text); };
  if (v && (v.vec3 || (v.quat && !key.endsWith('rotation')))) {
    // vec3, or four numbers that are not a rotation (a colour with alpha).
    const nums = (v.vec3 || v.quat).slice();
    const box = document.createElement('div'); box.className = 'vec' + (v.quat ? ' q' : '');
    const kind = v.vec3 ? 'vec3' : 'quat';
    if (key.endsWith('color')) {
      const c = document.createElement('input'); c.type = 'color';
      c.value = '#' + nums.slice(0, 3).map((x) => Math.round(Math.max(0, Math.min(1, x)) * 255).toString(16).padStart(2, '0')).join('');
      c.onchange = () => { const h = c.value; const rgb = [1, 3, 5].map((o) => parseInt(h.substr(o, 2), 16) / 255);
        setAll(id, key, (w) => ({ [kind]: [...rgb, ...(w.vec3 || w.quat).slice(3)] }), true); };
      box.append(c);
    }
    nums.forEach((x, n) => {
      const input = numberInput(x, (val, inp) => {
        // Each target keeps its other components: typing x moves every selected entity's x.
        const bad = setAll(id, key, (w) => { const next = (w.vec3 || w.quat).slice(); next[n] = val;
          const why = checkNumber(key, next); return why ? `${'xyzw'[n]} ${why}` : { [kind]: next }; }, true);
        fail(bad, inp);
      });
      input.dataset.axis = 'xyzw'[n];
      box.append(input);
    });
    scrub(label, id, key, (w) => (w.vec3 || w.quat).slice(), (start, d) => { const next = start.slice(); next[0] += d;
      return checkNumber(key, next) || { [kind]: next }; });
    row.append(box);
  } else if (v && v.quat) {
    // A rotation: Euler angles in the chosen order, each target's own angles kept continuous by
    // the Euler filter; typing one angle sets that angle of every target.
    const box = document.createElement('div'); box.className = 'vec';
    const order = editor.eulerOrder;
    const anglesOf = (t, q) => {
      const deg = eulerFilter(eulerFromQuat(q, order), order, editor.lastEuler.get(t + ' ' + order));
      editor.lastEuler.set(t + ' ' + order, deg);
      return deg;
    };
    const deg = anglesOf(id, v.quat);
    const turn = (n) => (w, t, val) => { const next = anglesOf(t, w.quat).slice(); next[n] = val;
      editor.lastEuler.set(t + ' ' + order, next); return { quat: quatFromEuler(next, order) }; };
    deg.forEach((a, n) => {
      const input = numberInput(a, (val, inp) => {
        if (!Number.isFinite(val)) return fail('not a number', inp);
        fail('', inp);
        setAll(id, key, (w, t) => turn(n)(w, t, val), true);
      });
      input.dataset.axis = 'xyz'[n];
      input.title = `${order[n]}: angle ${n + 1} of ${order} (degrees)`;
      box.append(input);
    });
    // Scrubbing turns the first angle (degrees per pixel: 0.02 * 50).
    scrub(label, id, key, (w, t) => anglesOf(t, w.quat).slice(),
      (start, d) => ({ quat: quatFromEuler([start[0] + d * 50, start[1], start[2]], order) }));
    const pick = document.createElement('select'); pick.className = 'order';
    pick.title = 'Euler order (intrinsic): Tait-Bryan XYZ..ZYX, proper XYX..ZYZ';
    ORDERS.forEach((o) => pick.add(new Option(o, o, false, o === order)));
    pick.onchange = () => { editor.eulerOrder = pick.value; localStorage.setItem('cuttle.euler', pick.value); render(); };
    box.append(pick);
    row.append(box);
  } else if (typeof v === 'number') {
    const input = numberInput(v, (val, inp) => fail(setAll(id, key, () => checkNumber(key, [val]) || val, true), inp));
    const r = rangeOf(key); if (r) { input.min = r.min; input.max = r.max; }
    scrub(label, id, key, (w) => w, (start, d) => checkNumber(key, [start + d]) || start + d);
    row.append(input);
  } else if (typeof v === 'boolean') {
    const c = document.createElement('input'); c.type = 'checkbox'; c.checked = v;
    c.onchange = () => setAll(id, key, () => c.checked, true);
    row.append(c);
  } else if (v && v.string !== undefined && ENUMS[key]) {
    const s = document.createElement('select');
    ENUMS[key].forEach((o) => s.add(new Option(o, o, false, o === v.string)));
    s.onchange = () => setAll(id, key, () => ({ string: s.value }), true);
    row.append(s);
  } else if (v && v.string !== undefined) {
    const input = document.createElement('input'); input.value = v.string;
    const type = RESOURCE_FIELDS[key];
    if (type) {
      const list = document.createElement('datalist'); list.id = 'res-' + type;
      (editor.resources[type] || []).forEach((r) => list.append(new Option(r)));
      input.setAttribute('list', list.id); row.append(list);
    }
    input.onchange = () => {
      if (type && !(editor.resources[type] || []).includes(input.value)) return fail(`no ${type} '${input.value}' in the project`, input);
      fail('', input); setAll(id, key, () => ({ string: input.value }), true);
    };
    input.onkeydown = (ev) => ev.stopPropagation();
    row.append(input);
  } else {
    const span = document.createElement('span'); span.className = 'muted'; span.textContent = fmt(v);
    row.append(span);
  }
  row.append(err);
  for (const c of editor.conflicts.filter((c) => c.object === id && c.key === key).slice(-1)) {
    const d = document.createElement('div'); d.className = 'conflict';
    d.textContent = `${c.winner.by}: ${fmt(c.winner.value)} replaced ${c.loser.by}: ${fmt(c.loser.value)}`;
    row.append(d);
  }
  group.append(row);
}

// ---- a body's shape ----

// The shapes a body source takes (modules/physics: physics_component.c compile_body and
// physics_body_shapes.c): box, sphere and capsule are a string, with their sizes on the body;
// hull, compound and mesh are an object { type = ... } with their own fields below it.
const SHAPES = ['box', 'sphere', 'capsule', 'hull', 'compound', 'mesh'];
const OBJECT_SHAPES = ['hull', 'compound', 'mesh'];
const PART_SHAPES = ['box', 'sphere', 'capsule', 'hull']; // a compound's children
const BODY = 'components.body.';
// Each shape's own fields, and what the physics module takes when one is left out. A hull's
// points and a compound's parts are level text (blobs: arrays of arrays and of objects).
const SHAPE_FIELDS = {
  box: [['half_extents', { vec3: [0.5, 0.5, 0.5] }]],
  sphere: [['radius', 0.5]],
  capsule: [['radius', 0.5], ['half_height', 0.5]],
  hull: [['shape.points', null]],
  compound: [['shape.children', null]],
  mesh: [['shape.mesh', { string: '' }]],
};
// The documented ranges (api/ct_physics.h): sizes within [CT_PHYSICS_MIN_SIZE, CT_PHYSICS_MAX_SIZE]
// (a capsule's half height from 0), damping within [0, CT_PHYSICS_MAX_DAMPING]; a hull has 4 to
// CT_PHYSICS_MAX_HULL_POINTS points, a compound 1 to 16 parts (PHYSICS_BODY_MAX_CHILDREN).
const BODY_RANGES = {
  half_extents: [1e-3, 1e4], radius: [1e-3, 1e4], half_height: [0, 1e4],
  linear_damping: [0, 1e3], angular_damping: [0, 1e3], point: [-1e4, 1e4], position: [-1e4, 1e4],
};
const MAX_HULL_POINTS = 64, MAX_PARTS = 16;

// Why a body's number is out of its documented range (or null). `what` names a BODY_RANGES entry.
function checkBodyNumbers(what, values) {
  const r = BODY_RANGES[what];
  for (const x of values) {
    if (!Number.isFinite(x)) return 'not a number';
    if (r && !(x >= r[0] && x <= r[1])) return `outside ${r[0]}..${r[1]}`;
  }
  return null;
}

// The shape a body has: { kind, object } (object: written as { type = ... }), kind undefined
// when the body gives no shape (the module's default, a box) and the source's own spelling when
// it is none the editor knows (shown as it is and never written over).
function shapeOf(id) {
  const s = prop(id, BODY + 'shape');
  if (s && s.string !== undefined) return { kind: s.string, object: false };
  const t = prop(id, BODY + 'shape.type');
  if (t && t.string !== undefined) return { kind: t.string, object: true };
  return { kind: s === undefined && t === undefined ? 'box' : undefined, object: false, implicit: s === undefined };
}
editor.shapeOf = shapeOf;

// A small reader and writer of the level text blobs hold (SJSON: { key = value }, [a b c],
// strings, numbers, true/false/null; commas optional). A blob with comments or anything else
// the reader does not take is shown as text and left alone: written back, it would lose them.
function parseSjson(text) {
  let i = 0;
  const ws = () => { while (i < text.length && /[\s,]/.test(text[i])) i++; };
  const value = () => {
    ws();
    const c = text[i];
    if (c === '[') { i++; const a = []; for (ws(); text[i] !== ']'; ws()) { if (i >= text.length) throw 0; a.push(value()); } i++; return a; }
    if (c === '{') {
      i++; const o = {};
      for (ws(); text[i] !== '}'; ws()) {
        if (i >= text.length) throw 0;
        const m = /^("(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*)\s*[=:]/.exec(text.slice(i));
        if (!m) throw 0;
        i += m[0].length;
        o[m[1][0] === '"' ? JSON.parse(m[1]) : m[1]] = value();
      }
      i++; return o;
    }
    const m = /^("(?:[^"\\]|\\.)*"|-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|true|false|null)/.exec(text.slice(i));
    if (!m) throw 0;
    i += m[0].length;
    return JSON.parse(m[0]);
  };
  try { const v = value(); ws(); return i === text.length ? v : undefined; } catch (e) { return undefined; }
}
function writeSjson(v) {
  if (Array.isArray(v)) return '[' + v.map(writeSjson).join(' ') + ']';
  if (v && typeof v === 'object') return '{ ' + Object.entries(v).map(([k, x]) =>
    (/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? k : JSON.stringify(k)) + ' = ' + writeSjson(x)).join(' ') + ' }';
  return typeof v === 'number' ? String(+v.toPrecision(9)) : JSON.stringify(v);
}
editor.parseSjson = parseSjson;
editor.writeSjson = writeSjson;

// A blob's value as data the editor can edit, or undefined (then it is shown, not edited).
function blobData(v) {
  if (!v || typeof v.blob !== 'string' || /\/\/|\/\*/.test(v.blob)) return undefined;
  return parseSjson(v.blob);
}
const isXyz = (p) => Array.isArray(p) && p.length === 3 && p.every((x) => typeof x === 'number');

// The operations that make body `t` a `kind` body: what belongs to its old shape goes (the old
// object's fields; the sizes on the body the new shape does not read, which the module refuses
// beside an object shape), the new shape's fields come with sizes taken from the old where they
// mean the same.
function shapeOps(t, kind) {
  const ops = [], old = shapeOf(t), props = editor.objects.get(t).props;
  const num = (k, d) => (typeof prop(t, BODY + k) === 'number' ? prop(t, BODY + k) : d);
  const he = (prop(t, BODY + 'half_extents') || {}).vec3 || [0.5, 0.5, 0.5];
  const r = old.kind === 'box' ? Math.max(...he) : num('radius', 0.5);
  const clear = (k) => { if (props.has(BODY + k)) ops.push({ op: 'set', object: t, key: BODY + k, value: null }); };
  for (const k of props.keys()) if (k.startsWith(BODY + 'shape.')) clear(k.slice(BODY.length));
  clear('shape');
  const set = (k, value) => ops.push({ op: 'set', object: t, key: BODY + k, value });
  if (OBJECT_SHAPES.includes(kind)) {
    ['half_extents', 'radius', 'half_height'].forEach(clear);
    set('shape.type', { string: kind });
    const [x, y, z] = old.kind === 'box' ? he : [r, r, r];
    if (kind === 'hull') {
      const pts = [];
      for (const sx of [-x, x]) for (const sy of [-y, y]) for (const sz of [-z, z]) pts.push([sx, sy, sz]);
      set('shape.points', { blob: writeSjson(pts) });
    } else if (kind === 'compound') {
      set('shape.children', { blob: writeSjson([{ shape: { type: 'box', half_extents: [x, y, z] } }]) });
    } else {
      set('shape.mesh', { string: (editor.resources.collision_mesh || [])[0] || '' });
    }
    return ops;
  }
  // The sizes the new shape does not read go (undo brings them back).
  const uses = SHAPE_FIELDS[kind].map(([k]) => k);
  ['half_extents', 'radius', 'half_height'].filter((k) => !uses.includes(k)).forEach(clear);
  set('shape', { string: kind });
  if (kind === 'box' && !props.has(BODY + 'half_extents')) set('half_extents', { vec3: old.kind === 'box' ? he : [r, r, r] });
  if (kind !== 'box' && !props.has(BODY + 'radius')) set('radius', r);
  if (kind === 'capsule' && !props.has(BODY + 'half_height'))
    set('half_height', old.kind === 'box' ? Math.max(0, he[1] - r) : 0.5);
  return ops;
}
editor.shapeOps = shapeOps;

// Why body `t` cannot become a `kind` body, or null.
function shapeRefusal(t, kind) {
  if (kind !== 'mesh') return null;
  const k = prop(t, BODY + 'kind');
  if (!k || k.string !== 'static') return `${nameOf(t)}: a mesh body is static (set its kind to static first)`;
  if (!(editor.resources.collision_mesh || []).length) return 'the project has no collision_mesh resource';
  return null;
}

// The shape picker: every shape of the level format; a spelling it does not know is shown as
// it is (and never written over unless another is picked).
function shapeRow(id, group) {
  const row = document.createElement('div');
  row.className = 'field';
  const shape = shapeOf(id);
  row.dataset.key = shape.object ? BODY + 'shape.type' : BODY + 'shape';
  const label = document.createElement('label');
  label.textContent = 'shape';
  label.title = shape.implicit ? 'no shape given: the physics module makes it a box' : row.dataset.key;
  const s = document.createElement('select'); s.className = 'shape';
  const known = SHAPES.includes(shape.kind);
  if (!known) s.add(new Option(`${shape.kind === undefined ? '?' : shape.kind} (unknown)`, '', false, true));
  SHAPES.forEach((o) => s.add(new Option(o, o, false, o === shape.kind)));
  const err = document.createElement('div'); err.className = 'err';
  s.onchange = () => {
    const kind = s.value;
    if (!kind) return;
    const all = editor.selection.includes(id) ? editor.selection.filter((t) => componentsOf(t).includes('body')) : [id];
    const why = all.map((t) => shapeRefusal(t, kind)).find((w) => w);
    if (why) { err.textContent = why; s.value = known ? shape.kind : ''; return; }
    err.textContent = '';
    send({ type: 'ops', commit: true, ops: all.filter((t) => shapeOf(t).kind !== kind).flatMap((t) => shapeOps(t, kind)) });
  };
  row.append(label, s, err);
  group.append(row);
}

// A field of the shape the body leaves out: shown with the module's default, and set (on this
// entity) when typed into.
function defaultRow(id, key, value, group) {
  const row = document.createElement('div');
  row.className = 'field default';
  row.dataset.key = key;
  const label = document.createElement('label');
  label.textContent = key.slice(BODY.length);
  label.title = `${key}\nnot set: the physics module's default`;
  const err = document.createElement('div'); err.className = 'err';
  const what = key.slice(BODY.length);
  const put = (v, input) => {
    const bad = checkBodyNumbers(what, v.vec3 || [v]);
    err.textContent = bad || ''; input.classList.toggle('bad', !!bad);
    if (!bad) setProp(id, key, v, true);
  };
  const box = document.createElement('div'); box.className = 'vec';
  if (value.vec3) {
    value.vec3.forEach((x, n) => {
      const input = numberInput(x, (val, inp) => { const next = value.vec3.slice(); next[n] = val; put({ vec3: next }, inp); });
      input.dataset.axis = 'xyz'[n]; box.append(input);
    });
  } else if (typeof value === 'number') {
    box.append(numberInput(value, (val, inp) => put(val, inp)));
  } else {
    const input = document.createElement('input');
    input.onkeydown = (ev) => ev.stopPropagation();
    input.onchange = () => setProp(id, key, { string: input.value }, true);
    box.append(input);
  }
  row.append(label, box, err);
  group.append(row);
}

// A list of [x y z] rows (a hull's points) edited in place: each number, a row's removal, a
// new row; written back as the blob's text. `min`/`max`: how many rows the shape takes.
function pointsEditor(points, min, max, write) {
  const box = document.createElement('div'); box.className = 'points';
  points.forEach((p, k) => {
    const line = document.createElement('div'); line.className = 'vec point';
    p.forEach((x, n) => {
      const input = numberInput(x, (val, inp) => {
        const next = points.map((q) => q.slice()); next[k][n] = val;
        const bad = checkBodyNumbers('point', [val]);
        inp.classList.toggle('bad', !!bad);
        write(next, bad && `point ${k} ${'xyz'[n]} ${bad}`);
      });
      input.dataset.axis = 'xyz'[n]; input.dataset.point = k;
      line.append(input);
    });
    const rm = document.createElement('button'); rm.textContent = '×'; rm.title = 'Remove the point';
    rm.disabled = points.length <= min;
    rm.onclick = () => write(points.filter((_, n) => n !== k));
    line.append(rm);
    box.append(line);
  });
  const add = document.createElement('button'); add.textContent = '+ point'; add.disabled = points.length >= max;
  // A new point a little beyond the last, so the hull stays a solid (the module refuses duplicates).
  add.onclick = () => { const l = points[points.length - 1] || [0, 0, 0]; write([...points, [l[0] + 0.1, l[1] + 0.1, l[2] + 0.1]]); };
  box.append(add);
  return box;
}

// A blob field of the shape: a hull's points or a compound's parts as rows to edit, or, when the
// editor cannot read the text (comments, other forms), the text itself, left alone.
function blobRow(id, key, p, group, touched) {
  const row = document.createElement('div');
  row.className = 'field blob';
  row.dataset.key = key;
  if (touched && touched.has(id + ' ' + key)) row.classList.add('changed');
  const label = document.createElement('label');
  label.textContent = key.slice(BODY.length);
  label.title = `${key}\nset by ${p.at ? p.at.split(' ').slice(1).join(' ') : '?'}`;
  const err = document.createElement('div'); err.className = 'err';
  const data = blobData(p.value);
  const write = (next, bad) => {
    err.textContent = bad || '';
    if (!bad) setProp(id, key, { blob: writeSjson(next) }, true);
  };
  let body;
  if (key === BODY + 'shape.points' && Array.isArray(data) && data.every(isXyz)) {
    body = pointsEditor(data, 4, MAX_HULL_POINTS, write);
  } else if (key === BODY + 'shape.children' && Array.isArray(data) && data.every((c) => c && typeof c === 'object' && !Array.isArray(c))) {
    body = partsEditor(data, write);
  } else {
    body = document.createElement('pre'); body.className = 'muted text';
    body.textContent = p.value && p.value.blob !== undefined ? p.value.blob : fmt(p.value);
    body.title = 'shown as written: the editor leaves this text as it is (edit it in the level file)';
  }
  row.append(label, body, err);
  group.append(row);
}

// A compound's parts: each one's shape, sizes, position (and rotation, shown); members the
// editor does not know are kept as they are when a part is written back.
function partsEditor(parts, write) {
  const box = document.createElement('div'); box.className = 'parts';
  const copy = () => JSON.parse(JSON.stringify(parts));
  parts.forEach((part, k) => {
    const div = document.createElement('div'); div.className = 'part'; div.dataset.part = k;
    const head = document.createElement('div'); head.className = 'part-head';
    const shape = part.shape && typeof part.shape === 'object' ? part.shape : {};
    const known = PART_SHAPES.includes(shape.type);
    const pick = document.createElement('select');
    if (!known) pick.add(new Option(`${shape.type === undefined ? '?' : shape.type} (unknown)`, '', false, true));
    PART_SHAPES.forEach((o) => pick.add(new Option(o, o, false, o === shape.type)));
    pick.onchange = () => {
      if (!pick.value) return;
      const next = copy(), r = shape.radius || Math.max(...(shape.half_extents || [0.5]));
      next[k].shape = pick.value === 'box' ? { type: 'box', half_extents: shape.half_extents || [r, r, r] }
        : pick.value === 'sphere' ? { type: 'sphere', radius: r }
        : pick.value === 'capsule' ? { type: 'capsule', radius: r, half_height: shape.half_height || 0.5 }
        : { type: 'hull', points: [[-r, -r, -r], [r, -r, -r], [0, r, -r], [0, 0, r]] };
      write(next);
    };
    const rm = document.createElement('button'); rm.textContent = '×'; rm.title = 'Remove the part';
    rm.disabled = parts.length <= 1;
    rm.onclick = () => write(parts.filter((_, n) => n !== k));
    head.append(Object.assign(document.createElement('span'), { textContent: `part ${k}` }), pick, rm);
    div.append(head);
    // One number line: `at` the object holding `name` (the part or its shape), n numbers.
    const line = (name, at, n, what, set) => {
      const v = at[name], have = n === 1 ? typeof v === 'number' : Array.isArray(v) && v.length === n && v.every((x) => typeof x === 'number');
      if (!have && !set) return;
      const l = document.createElement('div'); l.className = 'vec part-field'; l.dataset.field = name;
      l.append(Object.assign(document.createElement('span'), { textContent: name, className: 'muted' }));
      const nums = have ? (n === 1 ? [v] : v) : set;
      nums.forEach((x, c) => {
        const input = numberInput(x, (val, inp) => {
          const next = copy(), target = at === part ? next[k] : next[k].shape;
          const was = have ? (n === 1 ? [v] : v.slice()) : set.slice();
          was[c] = val;
          const bad = checkBodyNumbers(what, [val]);
          inp.classList.toggle('bad', !!bad);
          target[name] = n === 1 ? was[0] : was;
          write(next, bad && `part ${k} ${name} ${bad}`);
        });
        input.dataset.axis = 'xyzw'[c];
        l.append(input);
      });
      div.append(l);
    };
    if (known && shape.type === 'box') line('half_extents', shape, 3, 'half_extents', [0.5, 0.5, 0.5]);
    if (known && (shape.type === 'sphere' || shape.type === 'capsule')) line('radius', shape, 1, 'radius', [0.5]);
    if (known && shape.type === 'capsule') line('half_height', shape, 1, 'half_height', [0.5]);
    if (known && shape.type === 'hull' && Array.isArray(shape.points) && shape.points.every(isXyz)) {
      div.append(pointsEditor(shape.points, 4, MAX_HULL_POINTS, (pts, bad) => {
        const next = copy(); next[k].shape.points = pts; write(next, bad);
      }));
    }
    line('position', part, 3, 'position', [0, 0, 0]);
    line('rotation', part, 4, null, null);
    box.append(div);
  });
  const add = document.createElement('button'); add.textContent = '+ part'; add.disabled = parts.length >= MAX_PARTS;
  add.onclick = () => write([...parts, { shape: { type: 'box', half_extents: [0.25, 0.25, 0.25] }, position: [0, 0.5, 0] }]);
  box.append(add);
  return box;
}

// The body component's rows: its shape, then the shape's own fields (set or default), then the
// rest of what the body has.
function bodyRows(id, fields, group, touched) {
  const shape = shapeOf(id);
  shapeRow(id, group);
  const shown = new Set([BODY + 'shape', BODY + 'shape.type']);
  for (const [name, fallback] of SHAPE_FIELDS[shape.kind] || []) {
    const key = BODY + name;
    shown.add(key);
    const p = editor.objects.get(id).props.get(key);
    if (p && p.value && p.value.blob !== undefined) blobRow(id, key, p, group, touched);
    else if (p) fieldRow(id, key, p, group, touched);
    else if (fallback) defaultRow(id, key, fallback, group);
  }
  for (const [key, p] of fields) if (!shown.has(key)) fieldRow(id, key, p, group, touched);
}

function renderInspector(touched) {
  const box = $('inspector');
  const id = editor.selection[0];
  if (!id || !editor.objects.has(id)) { box.innerHTML = '<p class="muted">Select an entity.</p>'; return; }
  // The field being typed into keeps its text, caret and focus across the re-render.
  const active = document.activeElement;
  let keep = null;
  if (box.contains(active) && active.tagName === 'INPUT' && box.dataset.id === id && active.closest('.field'))
    keep = { key: active.closest('.field').dataset.key, axis: active.dataset.axis || '', value: active.value };
  box.innerHTML = '';
  box.dataset.id = id;
  const props = editor.objects.get(id).props;
  const chosen = () => editor.selection.filter((t) => editor.objects.has(t));
  const groups = new Map();
  for (const [key, p] of props) {
    if (key.startsWith('@') || key === 'children' || key === 'id') continue;
    const g = key.startsWith('components.') ? key.split('.')[1] : 'entity';
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g).push([key, p]);
  }
  const title = document.createElement('h2');
  title.textContent = nameOf(id) + (editor.selection.length > 1 ? ` (+${editor.selection.length - 1})` : '');
  title.style.fontSize = '14px';
  box.append(title);
  for (const [g, fields] of groups) {
    const div = document.createElement('div'); div.className = 'group'; div.dataset.component = g;
    const h = document.createElement('h3'); h.textContent = g;
    if (g !== 'entity') {
      const rm = document.createElement('button'); rm.textContent = '×'; rm.title = 'Remove the component';
      // Removed from every selected entity that has it, as one undo item.
      rm.onclick = () => send({ type: 'ops', commit: true, ops: chosen().flatMap((t) =>
        [...editor.objects.get(t).props.keys()].filter((key) => key.startsWith(`components.${g}.`) || key === `components.${g}`)
          .map((key) => ({ op: 'set', object: t, key, value: null }))) });
      h.append(rm);
    }
    div.append(h);
    if (g === 'body') bodyRows(id, fields, div, touched);
    else for (const [key, p] of fields) fieldRow(id, key, p, div, touched);
    box.append(div);
  }
  const add = document.createElement('select'); add.className = 'addcomp';
  add.add(new Option('Add component…', ''));
  Object.keys(COMPONENTS).filter((c) => !groups.has(c)).forEach((c) => add.add(new Option(c, c)));
  add.onchange = () => {
    const c = COMPONENTS[add.value]; if (!c) return;
    // Added to every selected entity that lacks it, as one undo item.
    send({ type: 'ops', commit: true, ops: chosen().filter((t) => !componentsOf(t).includes(add.value))
      .flatMap((t) => Object.entries(c).map(([key, value]) => ({ op: 'set', object: t, key, value }))) });
  };
  box.append(add);
  if (keep) {
    const row = box.querySelector(`.field[data-key="${CSS.escape(keep.key)}"]`);
    const input = row && [...row.querySelectorAll('input')].find((i) => (i.dataset.axis || '') === keep.axis);
    if (input) { input.value = keep.value; input.focus(); }
  }
}

// ---- viewport ----

// A frame arrives as a binary message of pixels ([u32 n][u32 width][u32 height] rgba rows) when
// the renderer gives them, else as a PNG from /frame.png; either is drawn into the canvas.
function showFrame(m) {
  editor.frame = m.n;
  editor.frameOps.set(m.n, m.ops || 0);
  if (editor.frameOps.size > 64) editor.frameOps.delete(editor.frameOps.keys().next().value);
  if (m.camera) editor.camera = m.camera;
  if (editor.pixels) return;
  const img = new Image();
  img.onload = () => {
    const canvas = $('frame');
    canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
    canvas.getContext('2d').drawImage(img, 0, 0);
    if (m.n >= (editor.shown || 0)) editor.shownOps = m.ops || 0;
    editor.shown = Math.max(editor.shown || 0, m.n); drawOverlay();
  };
  img.src = withToken('/frame.png?n=' + m.n);
}

// The engine sends the whole frame, or only the rectangle that changed since the frame this page
// has: [u32 n][u32 width][u32 height][u32 x][u32 y][u32 w][u32 h] then the rectangle's rgba rows
// (kernel/editor/editor_pixels.h); an empty rectangle says frame n looks like the one before.
function drawPixels(buf) {
  const head = new DataView(buf, 0, 28);
  const [n, width, height, x, y, w, h] = [0, 1, 2, 3, 4, 5, 6].map((k) => head.getUint32(4 * k, true));
  const canvas = $('frame');
  if (canvas.width !== width || canvas.height !== height) { canvas.width = width; canvas.height = height; }
  if (w && h) canvas.getContext('2d').putImageData(new ImageData(new Uint8ClampedArray(buf, 28, w * h * 4), w, h), x, y);
  editor.pixelMessages[w === width && h === height ? 'whole' : w && h ? 'change' : 'same']++;
  editor.shown = n;
  if (editor.frameOps.has(n)) editor.shownOps = editor.frameOps.get(n);
  drawOverlay();
  if (editor.onShown) editor.onShown(n);
}

// Where the frame is drawn inside the viewport (the canvas keeps its aspect: letterboxed).
function viewRect() {
  const c = $('frame'), r = c.getBoundingClientRect();
  const s = Math.min(r.width / c.width, r.height / c.height);
  const w = c.width * s, h = c.height * s;
  return { left: r.left + (r.width - w) / 2, top: r.top + (r.height - h) / 2, width: w, height: h, aspect: c.width / c.height };
}
editor.viewRect = viewRect;

// World position of an entity from the document (local poses composed up the @parent chain).
function worldPosition(id) {
  let p = (prop(id, 'components.transform.position') || {}).vec3 || [0, 0, 0];
  let parent = (prop(id, '@parent') || {}).guid;
  for (let depth = 0; parent && parent !== ROOT && depth < 64; depth++) {
    const q = (prop(parent, 'components.transform.rotation') || {}).quat || [0, 0, 0, 1];
    const s = (prop(parent, 'components.transform.scale') || {}).vec3 || [1, 1, 1];
    const m = quatToMatrix(q), v = [p[0] * s[0], p[1] * s[1], p[2] * s[2]];
    const pp = (prop(parent, 'components.transform.position') || {}).vec3 || [0, 0, 0];
    p = [0, 1, 2].map((r) => m[3 * r] * v[0] + m[3 * r + 1] * v[1] + m[3 * r + 2] * v[2] + pp[r]);
    parent = (prop(parent, '@parent') || {}).guid;
  }
  return p;
}

// Marks the selection (and other people's) where the engine's camera sees it. The canvas is
// drawn again only when a mark or its size changed: clearing it makes the browser repaint the
// viewport under it (the frame scaled), on the CPU the engine draws its next frame with.
function drawOverlay() {
  if (document.hidden) return; // drawn when shown (sendView)
  const canvas = $('overlay'), cam = editor.camera;
  const w = canvas.clientWidth, h = canvas.clientHeight;
  const marks = [];
  if (cam && editor.shown) {
    const v = viewRect(), base = canvas.getBoundingClientRect();
    const iw = v.width, ih = v.height, ox = v.left - base.left, oy = v.top - base.top;
    const t = Math.tan(cam.fov * Math.PI / 360), aspect = v.aspect;
    const project = (p) => {
      const d = [p[0] - cam.eye[0], p[1] - cam.eye[1], p[2] - cam.eye[2]];
      const dot = (a) => a[0] * d[0] + a[1] * d[1] + a[2] * d[2];
      const z = -dot(cam.back);
      if (z <= 0.01) return null;
      return [ox + (dot(cam.right) / (z * t * aspect) + 1) / 2 * iw, oy + (1 - dot(cam.up) / (z * t)) / 2 * ih];
    };
    const mark = (id, color, label) => {
      if (!editor.objects.has(id)) return;
      const s = project(worldPosition(id));
      if (s) marks.push([s[0], s[1], color, label]);
    };
    editor.selection.forEach((id) => mark(id, '#ffd24a', nameOf(id)));
    for (const [who, ids] of editor.others) ids.forEach((id) => mark(id, '#6cf', `${nameOf(id)} (${who})`));
  }
  const key = JSON.stringify([w, h, marks]);
  if (key === editor.overlayKey) return;
  editor.overlayKey = key;
  canvas.width = w; canvas.height = h;
  const g = canvas.getContext('2d');
  for (const [x, y, color, label] of marks) {
    g.strokeStyle = color; g.lineWidth = 2;
    g.beginPath(); g.arc(x, y, 14, 0, 2 * Math.PI); g.stroke();
    g.fillStyle = color; g.font = '12px system-ui'; g.fillText(label, x + 16, y - 10);
  }
}

(function viewportInput() {
  const vp = $('viewport');
  let drag = null, pending = null;
  const flush = () => { if (pending) { send(pending); pending = null; } };
  const queue = (m) => {
    if (!pending) { pending = { type: 'camera', orbit: [0, 0], pan: [0, 0], zoom: 0 }; requestAnimationFrame(flush); }
    for (const k of ['orbit', 'pan']) if (m[k]) { pending[k][0] += m[k][0]; pending[k][1] += m[k][1]; }
    if (m.zoom) pending.zoom += m.zoom;
  };
  vp.oncontextmenu = (ev) => ev.preventDefault();
  vp.onmousedown = (ev) => { drag = { x: ev.clientX, y: ev.clientY, moved: 0, pan: ev.button === 2 || ev.shiftKey }; };
  window.addEventListener('mousemove', (ev) => {
    if (!drag) return;
    const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    drag.x = ev.clientX; drag.y = ev.clientY; drag.moved += Math.abs(dx) + Math.abs(dy);
    queue(drag.pan ? { pan: [dx, dy] } : { orbit: [dx, dy] });
  });
  window.addEventListener('mouseup', (ev) => {
    if (!drag) return;
    const d = drag; drag = null;
    if (d.moved < 4 && ev.button === 0) pick(ev);
  });
  vp.onwheel = (ev) => { ev.preventDefault(); queue({ zoom: Math.sign(ev.deltaY) }); };
  async function pick(ev) {
    if (!editor.shown) return;
    const r = viewRect();
    const u = (ev.clientX - r.left) / r.width, v = (ev.clientY - r.top) / r.height;
    if (u < 0 || u > 1 || v < 0 || v > 1) return;
    const m = await request({ type: 'pick', x: u, y: v });
    if (m && m.type === 'picked') select(m.object, ev.ctrlKey || ev.metaKey);
  }
})();

// ---- commands ----

function newGuid() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
}

editor.createEntity = function (name, position) {
  const id = newGuid();
  const siblings = children(ROOT);
  const order = siblings.length ? Math.floor(Math.max(...siblings.map((s) => prop(s, '@order')))) + 1 : 0;
  send({ type: 'ops', commit: true, ops: [
    { op: 'create', object: id },
    { op: 'set', object: id, key: 'name', value: { string: name } },
    { op: 'set', object: id, key: '@parent', value: { guid: ROOT } },
    { op: 'set', object: id, key: '@order', value: order },
    { op: 'set', object: id, key: 'components.transform.position', value: { vec3: position || [0, 1, 0] } },
    { op: 'add', object: ROOT, key: 'entities', item: id },
  ] });
  editor.selection = [id];
  return id;
};

editor.copy = async function () {
  if (!editor.selection.length) return null;
  const m = await request({ type: 'copy', objects: editor.selection });
  if (!m || m.type !== 'clipboard') return null;
  editor.clipboard = m.text;
  try { await navigator.clipboard.writeText(m.text); logLine(`copied ${editor.selection.length} to the clipboard`); }
  catch (e) { logLine('copied (the system clipboard refused: ' + e.message + '; Ctrl+V in this page still works)'); }
  return m.text;
};

editor.paste = async function (text) {
  if (text === undefined) {
    try { text = await navigator.clipboard.readText(); } catch (e) { text = editor.clipboard; }
  }
  if (!text) return null;
  const m = await request({ type: 'paste', text });
  if (m && m.type === 'pasted') { editor.selection = m.objects; render(); }
  return m;
};

const undo = () => send({ type: 'undo' });
const redo = () => send({ type: 'redo' });
$('undo').onclick = undo;
$('redo').onclick = redo;
$('create').onclick = () => editor.createEntity('entity');
$('place').onchange = () => { const u = $('place').value; $('place').value = ''; if (u) send({ type: 'place', unit: u }); };
$('duplicate').onclick = () => editor.selection.length && send({ type: 'duplicate', objects: editor.selection });
$('delete').onclick = () => editor.selection.length && send({ type: 'delete', objects: editor.selection });
$('copy').onclick = () => editor.copy();
$('paste').onclick = () => editor.paste();
$('save').onclick = () => send({ type: 'save' });
$('reload').onclick = () => send({ type: 'reload' });
$('play').onclick = () => send({ type: editor.playing ? 'stop' : 'play' });
$('filter').oninput = () => renderOutline();
$('filter').onkeydown = (ev) => ev.stopPropagation();

document.addEventListener('keydown', (ev) => {
  const ctrl = ev.ctrlKey || ev.metaKey;
  if (ctrl && ev.key.toLowerCase() === 'z') { ev.preventDefault(); ev.shiftKey ? redo() : undo(); }
  else if (ctrl && ev.key.toLowerCase() === 'y') { ev.preventDefault(); redo(); }
  else if (ctrl && ev.key.toLowerCase() === 'c') { ev.preventDefault(); editor.copy(); }
  else if (ctrl && ev.key.toLowerCase() === 's') { ev.preventDefault(); send({ type: 'save' }); }
  else if (ctrl && ev.key.toLowerCase() === 'd') { ev.preventDefault(); $('duplicate').onclick(); }
  else if (ev.key === 'Delete') $('delete').onclick();
  else if (ev.key === 'f' && editor.selection.length) send({ type: 'camera', focus: editor.selection[0] });
});
// Ctrl+V arrives as a paste event with the clipboard's text (no permission needed).
document.addEventListener('paste', (ev) => {
  if (ev.target.tagName === 'INPUT') return;
  ev.preventDefault();
  editor.paste(ev.clipboardData.getData('text/plain'));
});

// Draws the page from editor.objects; keepOutline: the tree did not change (only the rows in
// view are drawn again, for the selection).
// keepOutline: what changed shows in no row of the outline (a value of a field that was set
// already, not a name), so its rows stay as they are: making them again costs the browser a
// layout and a paint per edit.
function render(touched, keepOutline) {
  if (!keepOutline) renderOutline();
  renderInspector(touched);
  drawOverlay();
}
window.addEventListener('resize', () => { drawOverlay(); drawOutlineRows(); });

connect();
