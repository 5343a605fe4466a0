// Peer figures for bench_datamodel: Yjs and Automerge doing the same work as the data model's
// set, overwrite and merge figures, in the same run. Prints JSON lines like the C benches.
// usage: node peers.mjs DIR   (DIR: where `npm install yjs @automerge/automerge` was run)
import { createRequire } from 'module';
// Times are the process's CPU time (user + system), as the C figures use CPU time: the machine
// is shared, and wall time there measures the queue for a core.
const performance = { now: () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; } };

const require = createRequire(process.argv[2] + '/package.json');
const Y = require('yjs');
const A = require('@automerge/automerge');

const report = (name, value, unit) =>
  console.log(JSON.stringify({ name, value: Number(value.toPrecision(4)), unit }));
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const runs = (n, f) => median(Array.from({ length: n }, f));
const N = 10000;
const keys = Array.from({ length: N }, (_, i) => 'k' + i);

// Sets: 10,000 new keys in one transaction/change, then the same keys again.
{
  const fresh = [], over = [];
  for (let r = 0; r < 5; r++) {
    const doc = new Y.Doc(), map = doc.getMap('o');
    let t0 = performance.now();
    doc.transact(() => { for (let i = 0; i < N; i++) map.set(keys[i], i); });
    let t1 = performance.now();
    doc.transact(() => { for (let i = 0; i < N; i++) map.set(keys[i], -i); });
    let t2 = performance.now();
    fresh.push((t1 - t0) * 1e6 / N);
    over.push((t2 - t1) * 1e6 / N);
  }
  report('peer.yjs.set_fresh_ns', median(fresh), 'ns');
  report('peer.yjs.set_overwrite_ns', median(over), 'ns');
}
{
  const fresh = [], over = [];
  for (let r = 0; r < 3; r++) {
    let doc = A.init();
    let t0 = performance.now();
    doc = A.change(doc, (d) => { for (let i = 0; i < N; i++) d[keys[i]] = i; });
    let t1 = performance.now();
    doc = A.change(doc, (d) => { for (let i = 0; i < N; i++) d[keys[i]] = -i; });
    let t2 = performance.now();
    fresh.push((t1 - t0) * 1e6 / N);
    over.push((t2 - t1) * 1e6 / N);
  }
  report('peer.automerge.set_fresh_ns', median(fresh), 'ns');
  report('peer.automerge.set_overwrite_ns', median(over), 'ns');
}

// B3.1: 1,540 writers each set one key; time applying every update to a fresh document.
const W = 1540;
{
  const updates = [];
  for (let i = 0; i < W; i++) {
    const doc = new Y.Doc();
    doc.getMap('root').set('key', 'value ' + i);
    updates.push(Y.encodeStateAsUpdate(doc));
  }
  const ms = runs(5, () => {
    const doc = new Y.Doc();
    const t0 = performance.now();
    doc.transact(() => { for (const u of updates) Y.applyUpdate(doc, u); });
    return performance.now() - t0;
  });
  report('peer.yjs.merge_1540_writers_ms', ms, 'ms');
}
{
  const base = A.init();
  const docs = [];
  for (let i = 0; i < W; i++)
    docs.push(A.save(A.change(A.clone(base), (d) => { d.key = 'value ' + i; })));
  // One run: Automerge takes tens of seconds here.
  const ms = runs(1, () => {
    let doc = A.clone(base);
    const t0 = performance.now();
    for (const bytes of docs) doc = A.merge(doc, A.load(bytes));
    const t = performance.now() - t0;
    if (A.getConflicts(doc, 'key') && Object.keys(A.getConflicts(doc, 'key')).length !== W)
      console.error('automerge: conflicts', Object.keys(A.getConflicts(doc, 'key')).length);
    return t;
  });
  report('peer.automerge.merge_1540_writers_ms', ms, 'ms');
}

// Two sides of 100,000 sets (10,000 objects x 10 keys, a tenth of the keys on both sides).
const OBJ = 10000, OPS = 100000;
const sideKey = (side, i) => {
  const k = Math.floor(i / OBJ);
  return (i % OBJ) + '/' + (side === 'a' || k === 0 ? 'k' + k : 'k' + (10 + k));
};
{
  const updates = ['a', 'b'].map((side) => {
    const doc = new Y.Doc(), map = doc.getMap('root');
    doc.transact(() => { for (let i = 0; i < OPS; i++) map.set(sideKey(side, i), side === 'a' ? i : -i); });
    return Y.encodeStateAsUpdate(doc);
  });
  const ms = runs(5, () => {
    const doc = new Y.Doc();
    const t0 = performance.now();
    for (const u of updates) Y.applyUpdate(doc, u);
    return performance.now() - t0;
  });
  report('peer.yjs.merge_100k_ms', ms, 'ms');
}
{
  const base = A.init();
  const sides = ['a', 'b'].map((side) =>
    A.save(A.change(A.clone(base), (d) => { for (let i = 0; i < OPS; i++) d[sideKey(side, i)] = side === 'a' ? i : -i; })));
  const ms = runs(1, () => {
    let doc = A.clone(base);
    const t0 = performance.now();
    for (const bytes of sides) doc = A.merge(doc, A.load(bytes));
    return performance.now() - t0;
  });
  report('peer.automerge.merge_100k_ms', ms, 'ms');
}
