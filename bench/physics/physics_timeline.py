#!/usr/bin/env python3
"""Where a 2-thread step's wall time goes, from a trace build's timeline (PHYSICS_TRACE_TIMELINE,
modules/physics/physics_trace.c).

usage:
  meson setup build-trace --buildtype=release -Db_ndebug=true -Dtests=false \\
      -Dc_args=-DPHYSICS_TRACE_TIMELINE
  ninja -C build-trace bench/physics/bench_physics
  PHYSICS_TRACE_FILE=tl.bin build-trace/bench/physics/bench_physics --modules build-trace/modules \\
      --only threads_x --rounds 1
  python3 bench/physics/physics_timeline.py tl.bin build-trace/bench/physics/bench_physics

The pooled steps after the first of the run are split, per thread, into: work (the ranges and
stage items it ran), waits at stage ends (its claims done, the stage's last item not yet), joining
late (the worker: a section under way before it arrives), the caller's wait for the worker's last
range at a pool run's end, serial (the caller outside any section: the worker idles), naps, and
the rest (claims, the pool's own cost). Then by section and by stage function."""
import bisect, collections, struct, subprocess, sys

K = ['STEP', 'STEP_END', 'SECTION', 'SECTION_END', 'RANGE', 'RANGE_END', 'JOIN', 'PART_END',
     'ARRIVE', 'ITEM', 'ITEM_END', 'DRAINED', 'WAITED', 'NAP', 'NAP_END']
K = {n: i for i, n in enumerate(K)}

def load(path):
    data = open(path, 'rb').read()
    ev = collections.defaultdict(list)
    base = None
    for off in range(0, len(data), 32):
        t, fn, kind, a, b, th = struct.unpack_from('<QQIIII', data, off)
        if kind == 0xffffffff:
            base = fn
            continue
        ev[th].append((t, kind, a, b, fn))
    for th in ev:
        ev[th].sort(key=lambda e: e[0])
    return base, ev

def symbols(exe, base):
    out = subprocess.run(['nm', '-C', exe], capture_output=True, text=True).stdout
    syms = []
    at = None
    for l in out.split('\n'):
        p = l.split()
        if len(p) == 3 and p[1] in 'tTwW':
            syms.append((int(p[0], 16), p[2]))
            if p[2] == 'physics__trace':
                at = int(p[0], 16)
    syms.sort()
    addrs = [s[0] for s in syms]
    def name(fn):
        if not fn or at is None:
            return '?'
        x = fn - base + at
        i = bisect.bisect_right(addrs, x) - 1
        return syms[i][1] if i >= 0 else '?'
    return name

def main():
    base, ev = load(sys.argv[1])
    name = symbols(sys.argv[2], base) if len(sys.argv) > 2 else (lambda fn: hex(fn))
    main_ev = ev[0]
    steps = []
    for e in main_ev:
        if e[1] == K['STEP'] and e[2] == 1:
            start = e[0]
        elif e[1] == K['STEP_END'] and e[2] == 1:
            steps.append((start, e[0]))
    steps = steps[1:]
    n = len(steps)
    if not n:
        sys.exit('no pooled steps')
    others = [th for th in ev if th != 0]
    wk = sorted(sum((ev[th] for th in others), []), key=lambda e: e[0])
    wt = [e[0] for e in wk]
    mt = [e[0] for e in main_ev]
    tot = [collections.Counter(), collections.Counter()]
    by_sec = collections.defaultdict(collections.Counter)
    by_stage = collections.defaultdict(collections.Counter)
    wall = 0
    late = ([], [])
    for s0, s1 in steps:
        wall += s1 - s0
        mine = main_ev[bisect.bisect_left(mt, s0):bisect.bisect_right(mt, s1)]
        theirs = wk[bisect.bisect_left(wt, s0):bisect.bisect_right(wt, s1)]
        # The caller's sections.
        secs = []
        for e in mine:
            if e[1] == K['SECTION']:
                cur = [e[0], None, e[2], e[3], e[4]]
            elif e[1] == K['SECTION_END']:
                cur[1] = e[0]
                secs.append(cur)
        in_secs = sum(b - a for a, b, *_ in secs)
        # Each stage's end (its last item's end, on either thread), and how long after it each
        # waiting thread saw it: what the way of waiting (spin, yield, nap) adds to a wait.
        ends = {}
        for evs in (mine, theirs):
            sec = None
            for t, k, a, b, f in evs:
                while sec is None or (sec + 1 < len(secs) and t > secs[sec][1]):
                    sec = 0 if sec is None else sec + 1
                if k == K['ITEM_END']:
                    key = (sec, a)
                    ends[key] = max(ends.get(key, 0), t)
        for th, evs in ((0, mine), (1, theirs)):
            sec = None
            napped = False
            for t, k, a, b, f in evs:
                while sec is None or (sec + 1 < len(secs) and t > secs[sec][1]):
                    sec = 0 if sec is None else sec + 1
                if k == K['NAP']:
                    napped = True
                elif k == K['WAITED']:
                    end = ends.get((sec, a))
                    if end is not None and t > end:
                        tot[th]['seen late (napped)' if napped else 'seen late (spun, yielded)'] += t - end
                        late[th].append(t - end)
                    napped = False
        tot[0]['serial'] += (s1 - s0) - in_secs
        tot[1]['idle outside sections'] += (s1 - s0) - in_secs
        tot[0]['sections'] += len(secs)
        for th, evs in ((0, mine), (1, theirs)):
            ts = [e[0] for e in evs]
            for sb, se, kind, count, fn in secs:
                part = evs[bisect.bisect_left(ts, sb):bisect.bisect_right(ts, se)]
                key = 'stages' if kind == 1 else name(fn)
                c = tot[th]
                d = by_sec[key]
                if th == 0:
                    d['runs'] += 1
                    d['wall'] += se - sb
                work = waits = naps = 0
                first = last = None
                arrive = {}
                drained = {}
                item_at = None
                for t, k, a, b, f in part:
                    if k in (K['RANGE'], K['ITEM'], K['JOIN']) and first is None:
                        first = t
                    if k in (K['RANGE'], K['ITEM']):
                        item_at = t
                    elif k in (K['RANGE_END'], K['ITEM_END']):
                        work += t - item_at
                        last = t
                        if k == K['ITEM_END']:
                            by_stage[stage_fn][('work0', 'work1')[th]] += t - item_at
                            by_stage[stage_fn]['items'] += 1
                    elif k == K['ARRIVE']:
                        if th == 0:
                            stage_fn = name(f)
                            by_stage[stage_fn]['arrivals'] += 1
                        else:
                            stage_fn = arrive_fn.get((sb, a), '?')
                        if th == 0:
                            arrive_fn[(sb, a)] = stage_fn
                    elif k == K['DRAINED']:
                        drained_at = t
                    elif k == K['WAITED']:
                        waits += t - drained_at
                        by_stage[stage_fn][('wait0', 'wait1')[th]] += t - drained_at
                    elif k == K['NAP']:
                        nap_at = t
                    elif k == K['NAP_END']:
                        naps += t - nap_at
                        c['nap count'] += 1
                    elif k == K['PART_END']:
                        last = t
                c['work'] += work
                d[('work0', 'work1')[th]] += work
                c['stage-end waits (naps inside)'] += waits
                d[('wait0', 'wait1')[th]] += waits
                c['naps'] += naps
                if th == 1:
                    if first is None:
                        c['absent from section'] += se - sb
                        d['absent1'] += se - sb
                    else:
                        c['joining late'] += first - sb
                        d['join1'] += first - sb
                        c['done before section end'] += se - (last or first)
                        c['other (claims, pool)'] += (last or first) - first - work - waits
                else:
                    end = last if last is not None else sb
                    c['after own share, to section end'] += se - end
                    d['tail0'] += se - end
                    c['other (claims, pool)'] += end - sb - work - waits
    ms = lambda x: x / n / 1e6
    print('%d pooled steps, wall %.3f ms/step, %.1f sections/step' % (n, ms(wall), tot[0]['sections'] / n))
    keys = ['work', 'stage-end waits (naps inside)', 'naps', 'seen late (spun, yielded)',
            'seen late (napped)', 'joining late', 'absent from section',
            'after own share, to section end', 'done before section end', 'other (claims, pool)',
            'serial', 'idle outside sections']
    print('%-36s %10s %10s' % ('ms per step', 'caller', 'worker'))
    for k in keys:
        print('%-36s %10.3f %10.3f' % (k, ms(tot[0][k]), ms(tot[1][k])))
    for th in (0, 1):
        v = sorted(late[th])
        if v:
            print('%-36s %10s' % ('stage ends seen late, %s' % ('caller', 'worker')[th],
                  'per step %.1f, us: median %.2f, p90 %.2f, p99 %.1f' % (len(v) / n, v[len(v) // 2] / 1e3,
                  v[len(v) * 9 // 10] / 1e3, v[len(v) * 99 // 100] / 1e3)))
    print('%-36s %10.1f %10.1f' % ('naps per step', tot[0]['nap count'] / n, tot[1]['nap count'] / n))
    one, n1, wall1 = serial_by_function(main_ev, name)
    two = collections.Counter()
    for key, d in list(by_sec.items()) + list(by_stage.items()):
        if key != 'stages':
            two[key] += d['work0'] + d['work1']
    m1 = lambda x: x / max(1, n1) / 1e6
    print('\n1 thread: %d steps, %.3f ms/step; work by function, 1 thread against both threads on the pool' % (n1, m1(wall1)))
    print('%-34s %8s %8s %6s' % ('function', '1 thr', '2 thr', 'ratio'))
    for key in sorted(set(one) | set(two), key=lambda k: -one[k]):
        print('%-34s %8.3f %8.3f %6.2f' % (key[:34], m1(one[key]), ms(two[key]), ms(two[key]) / max(1e-9, m1(one[key]))))
    print('%-34s %8.3f %8.3f %6.2f' % ('all', m1(sum(one.values())), ms(sum(two.values())), ms(sum(two.values())) / max(1e-9, m1(sum(one.values())))))
    print('\nby section (ms per step; work/wait per thread; join: the worker arriving late)')
    print('%-34s %5s %7s %7s %7s %7s %7s %7s %7s %7s' % ('section', 'runs', 'wall', 'work0', 'work1', 'wait0', 'wait1', 'join1', 'absent1', 'tail0'))
    for key, d in sorted(by_sec.items(), key=lambda x: -x[1]['wall']):
        print('%-34s %5.1f %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f' % (key[:34], d['runs'] / n, ms(d['wall']), ms(d['work0']), ms(d['work1']), ms(d['wait0']), ms(d['wait1']), ms(d['join1']), ms(d['absent1']), ms(d['tail0'])))
    print('\nby stage function (ms per step)')
    print('%-34s %6s %7s %7s %7s %7s %7s' % ('stage', 'arr', 'items', 'work0', 'work1', 'wait0', 'wait1'))
    for key, d in sorted(by_stage.items(), key=lambda x: -(x[1]['work0'] + x[1]['work1'])):
        print('%-34s %6.1f %7.1f %7.3f %7.3f %7.3f %7.3f' % (key[:34], d['arrivals'] / n, d['items'] / n, ms(d['work0']), ms(d['work1']), ms(d['wait0']), ms(d['wait1'])))

def serial_by_function(main_ev, name):
    """The 1-thread steps (after the first): ms per step in each function's sections and stages."""
    by = collections.Counter()
    n = 0
    wall = 0
    inside = False
    for t, k, a, b, fn in main_ev:
        if k == K['STEP'] and a == 0:
            inside, start = True, t
        elif k == K['STEP_END'] and a == 0:
            inside = False
            n += 1
            if n > 1:
                wall += t - start
        if not inside or n < 1:
            continue
        if k == K['SECTION'] or k == K['ARRIVE']:
            cur = name(fn)
        elif k in (K['RANGE'], K['ITEM']):
            at = t
        elif k in (K['RANGE_END'], K['ITEM_END']):
            by[cur] += t - at
    return by, n - 1, wall

arrive_fn = {}
if __name__ == '__main__':
    main()
