#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""summarize.py RESULTS_DIR -> markdown on stdout (the phased bed, issue 9).

Reads the raw files guest/guest.sh writes (runs.txt, calib.txt, env.txt and per run
<run>.marks, .samples, .batch.log, .pg.<phase>.tx.*), and writes
  RESULTS_DIR/phases.csv   one row per run and phase (and phase "all" = the whole run)
  RESULTS_DIR/plot/<run>.dat  per-100 ms timeline for plot.sh (t, pool %, PSI, knob, cap, p99)
and prints summary.md: the calibration, per-phase tables with the mean of every metric and
for every ratio against static N its 95% bootstrap confidence interval (runs resampled
within each configuration, 2000 resamples, fixed seed; python3 stdlib only), the per-phase
hindsight optimum over the static settings, and the issue's three targets.
Exit status 3 when the calibration was outside its range or no run produced data."""
import csv
import glob
import math
import os
import random
import statistics as st
import sys

R = sys.argv[1]
STATIC = ['N', 'Y', 'cap0', 'caphalf', 'capq', 'wb0', 'low', 'off', 'pool20']
NAMES = {'N': 'static shrinker N', 'Y': 'static shrinker Y', 'cap0': 'N + batch memory.zswap.max=0',
         'caphalf': 'N + batch memory.zswap.max = pool limit / 2',
         'capq': 'N + batch memory.zswap.max = pool limit / 4',
         'wb0': 'N + batch memory.zswap.writeback=0', 'low': 'N + service memory.low = its working set',
         'off': 'zswap disabled', 'pool20': 'N, max_pool_percent=20',
         'zt': 'zswap-tuned, shipped defaults', 'ztcfg': 'zswap-tuned configured ([Pressure] Cgroups=bench-svc, [Batch] Cgroups=bench-batch)'}


def cfg_name(c):
    """zt-NAME / ztcfg-NAME: a variant of the daemon, its drop-in additions in env.txt."""
    base = c.split('-', 1)[0]
    if c not in NAMES and base in ('zt', 'ztcfg') and base != c:
        return f"{NAMES[base]} + the settings of {base.upper()}_{c.split('-', 1)[1].replace('-', '_')} (env.txt)"
    return NAMES.get(c, c)


def kvfile(path):
    d = {}
    try:
        for line in open(path):
            if '=' in line:
                k, v = line.rstrip('\n').split('=', 1)
                d[k.strip()] = v.strip()
    except OSError:
        pass
    return d


def pct(sorted_v, p):
    if not sorted_v:
        return None
    return sorted_v[min(len(sorted_v) - 1, int(p / 100.0 * (len(sorted_v) - 1) + 0.5))]


def num(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


# ---------------------------------------------------------------- per-run extraction
def read_marks(run):
    marks = []
    for line in open(os.path.join(R, run + '.marks')):
        f = line.split()
        if len(f) < 8:
            continue
        vm = dict(x.split('=') for x in f[7].strip(',').split(',') if '=' in x)
        marks.append({'name': f[0], 'mono': int(f[1]), 'epoch': int(f[2]), 'bsys': int(f[3]), 'busage': int(f[4]),
                      'dcpu': int(f[5]), 'scpu': int(f[6]), 'vm': {k: int(v) for k, v in vm.items()}})
    return marks


def read_tx(run, phase):
    """(completion epoch ms, latency from scheduled start in us) of every transaction."""
    out = []
    for path in glob.glob(os.path.join(R, f'{run}.pg.{phase}.tx.*')):
        for line in open(path):
            f = line.split()
            if len(f) < 6:
                continue
            try:
                lat = int(f[2]) + (int(f[6]) if len(f) > 6 else 0)
                out.append((int(f[4]) * 1000 + int(f[5]) // 1000, lat))
            except ValueError:
                continue  # "skipped" transactions (only with -L) or garbage
    return out


def read_samples(run):
    s = []
    try:
        for line in open(os.path.join(R, run + '.samples')):
            f = line.split()
            if len(f) >= 17:
                s.append(list(map(int, f)))
    except OSError:
        pass
    return s


def read_batch_log(run):
    b = []
    try:
        for line in open(os.path.join(R, run + '.batch.log')):
            f = line.split()
            if len(f) == 2:
                b.append((int(f[0]), int(f[1])))
    except OSError:
        pass
    return b


def ops_at(blog, t):
    """cumulative batch ops at monotonic ms t (linear interpolation; 0 before start)."""
    if not blog or t <= blog[0][0]:
        return 0
    for (t0, o0), (t1, o1) in zip(blog, blog[1:]):
        if t0 <= t <= t1:
            return o0 + (o1 - o0) * (t - t0) / max(1, t1 - t0)
    return blog[-1][1]


def psi_pct(samples, a, b, col):
    sel = [x for x in samples if a <= x[0] <= b and x[col] >= 0]
    if len(sel) < 2:
        return None
    return 100.0 * (sel[-1][col] - sel[0][col]) / max(1, (sel[-1][0] - sel[0][0]) * 1000)


runs = []
for line in open(os.path.join(R, 'runs.txt')):
    d = dict(x.split('=', 1) for x in line.split() if '=' in x)
    if 'run' in d:
        runs.append(d)
calib = kvfile(os.path.join(R, 'calib.txt'))
calib_end = kvfile(os.path.join(R, 'calib-end.txt'))
env = kvfile(os.path.join(R, 'env.txt'))

# The boot's SLO: 2x the median over every run of the p99 in phase `alone` (the service
# alone, before any batch work). Steadier than each run's own 2x p99 when the host's
# stalls reach one run's `alone` phase.
a99 = []
for rd in runs:
    lat = sorted(l for _, l in read_tx(rd['run'], 'alone'))
    if lat:
        a99.append(pct(lat, 99))
BOOT_SLO_US = 2 * st.median(a99) if a99 else None

rows = []
os.makedirs(os.path.join(R, 'plot'), exist_ok=True)
for rd in runs:
    run, cfg, bk, idx = rd['run'], rd['cfg'], rd['batch'], int(rd['idx'])
    try:
        marks = read_marks(run)
    except OSError:
        continue
    if len(marks) < 2:
        continue
    limit_kb = int(rd.get('limit_kB') or 0)
    off = marks[0]['epoch'] - marks[0]['mono']  # epoch ms - monotonic ms
    samples, blog = read_samples(run), read_batch_log(run)
    phases = [(marks[i]['name'], marks[i], marks[i + 1]) for i in range(len(marks) - 1)]
    txs = {p: read_tx(run, p) for p, _, _ in phases}
    alone = sorted(l for _, l in txs.get('alone', [])) or sorted(l for _, l in txs[phases[0][0]])
    slo_us = 2 * pct(alone, 99) if alone else None
    per_sec = {}  # completion second (monotonic, relative) -> latencies
    for p, _, _ in phases:
        for e, lat in txs[p]:
            per_sec.setdefault((e - off - marks[0]['mono']) // 1000, []).append(lat)
    over_secs = {s for s, v in per_sec.items() if slo_us and pct(sorted(v), 99) > slo_us}
    over_boot = {s for s, v in per_sec.items() if BOOT_SLO_US and pct(sorted(v), 99) > BOOT_SLO_US}
    ph_list = phases + [('all', marks[0], marks[-1])]
    for p, a, b in ph_list:
        dur = (b['mono'] - a['mono']) / 1000.0
        lat = sorted(l for q, _, _ in phases if p in ('all', q) for _, l in txs[q])
        s0, s1 = (a['mono'] - marks[0]['mono']) // 1000, (b['mono'] - marks[0]['mono']) // 1000
        secs = [s for s in range(s0, s1)]
        sel = [x for x in samples if a['mono'] <= x[0] <= b['mono']]
        ge95 = sum(1 for x in sel if x[3] > 0 and x[1] >= 0.95 * x[3]) / len(sel) if sel else None
        poolm = st.mean(100.0 * x[1] / x[3] for x in sel if x[3] > 0) if sel else None
        knob = sum(1 for x in sel if x[4] == 1) / len(sel) if sel else None
        kch = sum(1 for u, v in zip(sel, sel[1:]) if u[4] != v[4])
        caps = [x[15] for x in sel if x[15] >= 0]
        capm = st.mean(caps) / 1024 if caps else None
        ops = ops_at(blog, b['mono']) - ops_at(blog, a['mono'])
        vm = {k: b['vm'].get(k, 0) - a['vm'].get(k, 0) for k in ('zswpout', 'zswpin', 'zswpwb', 'pswpin', 'pswpout')}
        rate = None
        out = os.path.join(R, f'{run}.pg.{p}.out')
        rows.append({
            'cfg': cfg, 'batch': bk, 'run': idx, 'phase': p, 'dur_s': round(dur, 1),
            'svc_n': len(lat),
            'svc_p50_ms': pct(lat, 50) / 1e3 if lat else None,
            'svc_p99_ms': pct(lat, 99) / 1e3 if lat else None,
            'svc_p999_ms': pct(lat, 99.9) / 1e3 if lat else None,
            'svc_tps': len(lat) / dur if dur > 0 else None,
            'slo_ms': slo_us / 1e3 if slo_us else None,
            'slo_over_s': sum(1 for s in secs if s in over_secs),
            'slo_met_frac': 1 - sum(1 for s in secs if s in over_secs) / max(1, len(secs)),
            'sloB_over_s': sum(1 for s in secs if s in over_boot),
            'sloB_met_frac': 1 - sum(1 for s in secs if s in over_boot) / max(1, len(secs)),
            'batch_ops_s': ops / dur if dur > 0 else None,
            'batch_sys_s': (b['bsys'] - a['bsys']) / 1e6,
            'batch_cpu_s': (b['busage'] - a['busage']) / 1e6,
            'svc_cpu_s': (b['scpu'] - a['scpu']) / 1e6,
            'daemon_cpu_ms': (b['dcpu'] - a['dcpu']) / 1e3,
            **vm,
            'pool_ge95_frac': ge95, 'pool_mean_pct': poolm, 'knob_on_frac': knob, 'knob_changes': kch,
            'cap_mean_MiB': capm,
            'psi_svc_pct': psi_pct(samples, a['mono'], b['mono'], 10),
            'psi_batch_pct': psi_pct(samples, a['mono'], b['mono'], 11),
            'psi_sys_pct': psi_pct(samples, a['mono'], b['mono'], 9),
            'limit_MiB': limit_kb / 1024,
        })
        del rate, out
    # timeline for plot.sh: t (s from the first phase), pool % of limit, PSI svc/batch (% over
    # the last 1 s), knob, cap in % of the pool limit (-1 = none), service p99 in that second
    t00 = marks[0]['mono']
    with open(os.path.join(R, 'plot', run + '.dat'), 'w') as o:
        for i, x in enumerate(samples):
            j = max(0, i - 10)
            dt = (x[0] - samples[j][0]) * 1000 or 1
            ps = 100 * (x[10] - samples[j][10]) / dt if i and x[10] >= 0 else 0
            pb = 100 * (x[11] - samples[j][11]) / dt if i and x[11] >= 0 else 0
            pool = 100 * x[1] / x[3] if x[3] > 0 else 0
            cap = 100 * x[15] / x[3] if x[15] >= 0 and x[3] > 0 else -1
            sec = (x[0] - t00) // 1000
            v = per_sec.get(sec)
            p99 = pct(sorted(v), 99) / 1e3 if v else -1
            o.write(f"{(x[0] - t00) / 1000:.2f} {pool:.1f} {ps:.1f} {pb:.1f} {x[4]} {cap:.1f} {p99:.2f}\n")
    with open(os.path.join(R, 'plot', run + '.marks'), 'w') as o:
        for m in marks:
            o.write(f"{(m['mono'] - t00) / 1000:.1f} {m['name']}\n")

KEYS = list(rows[0].keys()) if rows else []
with open(os.path.join(R, 'phases.csv'), 'w', newline='') as f:
    w = csv.DictWriter(f, fieldnames=KEYS)
    w.writeheader()
    for r in rows:
        w.writerow({k: (f'{v:.4g}' if isinstance(v, float) else v) for k, v in r.items()})

# ---------------------------------------------------------------- statistics
# metric, label, scale, lower is better?
METRICS = [
    ('svc_p50_ms', 'svc p50 ms', True), ('svc_p99_ms', 'svc p99 ms', True), ('svc_p999_ms', 'svc p99.9 ms', True),
    ('slo_over_s', 's over SLO', True), ('sloB_over_s', 's over boot SLO', True), ('svc_tps', 'svc tps', False), ('batch_ops_s', 'batch kops/s', False),
    ('pool_ge95_frac', 'pool>=95%', True), ('zswpout', 'zswpout', True), ('zswpwb', 'zswpwb', True),
    ('zswpin', 'zswpin', None), ('pswpin', 'pswpin', True), ('pswpout', 'pswpout', True),
    ('batch_sys_s', 'batch sys s', True), ('daemon_cpu_ms', 'daemon CPU ms', None),
    ('psi_svc_pct', 'PSI svc %', True), ('psi_batch_pct', 'PSI batch %', True), ('knob_on_frac', 'knob on', None),
    ('knob_changes', 'knob changes', None), ('cap_mean_MiB', 'batch cap MiB', None),
]
LOWER = {k: low for k, _, low in METRICS}
lab = {k: l for k, l, _ in METRICS}
rng = random.Random(20260903)


def vals(cfg, bk, ph, k):
    return [r[k] for r in rows if r['cfg'] == cfg and r['batch'] == bk and r['phase'] == ph and r[k] is not None]


def boot_ci(a, b, n=2000):
    """95% bootstrap CI of mean(a)/mean(b); runs resampled within each configuration."""
    if len(a) < 2 or len(b) < 2 or st.mean(b) == 0:
        return None  # one run: no interval
    rs = []
    for _ in range(n):
        ma = st.mean(rng.choice(a) for _ in a)
        mb = st.mean(rng.choice(b) for _ in b)
        if mb:
            rs.append(ma / mb)
    rs.sort()
    return rs[int(0.025 * (len(rs) - 1))], rs[int(0.975 * (len(rs) - 1))]


def fmt(v):
    if v is None:
        return '-'
    a = abs(v)
    if a >= 1000:
        return f'{v:.0f}'
    if a >= 10:
        return f'{v:.1f}'
    return f'{v:.2f}'


def scale(k, v):
    return v / 1000 if k == 'batch_ops_s' and v is not None else v


def cell(cfg, bk, ph, k, base='N'):
    a = vals(cfg, bk, ph, k)
    if not a:
        return '-'
    m = scale(k, st.mean(a))
    if cfg == base or LOWER.get(k) is None:
        return fmt(m)
    b = vals(base, bk, ph, k)
    if not b or st.mean(b) == 0:
        return fmt(m)
    ratio = st.mean(a) / st.mean(b)
    ci = boot_ci(a, b)
    nd = ci and ci[0] <= 1.0 <= ci[1]
    return f'{fmt(m)} ({ratio:.2f} [{ci[0]:.2f}-{ci[1]:.2f}]{" n.d." if nd else ""})' if ci else f'{fmt(m)} ({ratio:.2f})'


def ordered(key):
    out = []
    for r in rows:
        if r[key] not in out:
            out.append(r[key])
    return out


cfgs, bks = ordered('cfg'), ordered('batch')
phs = ordered('phase')
status = 0
print('## Calibration (this boot)')
print()
ok = calib.get('ok') == '1'
if not ok or calib_end.get('ok', '1') != '1':
    status = 3
    print('**CALIBRATION FAILED: the disk/zswap swap-in ratio is outside its range; these results do not model an SSD.**')
    print()
print(f"Swap disk profile `{calib.get('profile', '?')}`: random 4 KiB swap-in from the disk p50 "
      f"{calib.get('disk_p50_us', '?')} us, from zswap p50 {calib.get('zswap_p50_us', '?')} us: "
      f"ratio **{calib.get('ratio', '?')}x** (wanted {calib.get('range', '?')}; {'ok' if ok else 'FAILED'}) "
      f"at the start of the boot" + (f"; at its end {calib_end.get('disk_p50_us')} us / {calib_end.get('zswap_p50_us')} us = "
      f"**{calib_end.get('ratio')}x** ({'ok' if calib_end.get('ok') == '1' else 'FAILED'})" if calib_end else '') + '.')
print()
print(f"Guest: kernel {env.get('kernel', '?')}, MemTotal {env.get('MemTotal', '?')}, zswap compressor "
      f"{env.get('zswap.compressor', '?')}/{env.get('zswap.zpool', '?')}, daemon {env.get('daemon', '?')} "
      f"(commit {env.get('commit', '?')}, sha256 {env.get('daemon_sha256', '?')}), {env.get('postgres', '?')}.")
print()
print('Settings: ' + env.get('settings', '?') + '; schedule `' + env.get('schedule', '?') + '`.')
print()
if not rows:
    print('**No run produced data.**')
    sys.exit(3)
nr = {c: len({r['run'] for r in rows if r['cfg'] == c}) for c in cfgs}
print('Runs: ' + ', '.join(f'`{c}` x{nr[c]}' for c in cfgs) + '. Run wall times (s): ' +
      ', '.join(f"{d['run']} {d.get('secs', '?')}" for d in runs) + '.')
print()
print('Configurations: ' + '; '.join(f'`{c}` = {cfg_name(c)}' for c in cfgs) + '.')
print()
print(f'Cells: mean over runs (ratio of means against static N [95% bootstrap CI, only with >= 2 runs each]; '
      '"n.d." = the interval includes 1.0: no difference). Boot SLO = 2x the median over all runs of the p99 '
      f'in phase `alone` ({fmt(BOOT_SLO_US / 1e3 if BOOT_SLO_US else None)} ms); per-run SLO = 2x the same run\'s p99 in `alone`; '
      '"s over" = seconds whose p99 exceeded it. Latency is pgbench\'s, from the scheduled start (open loop). Counters are deltas '
      'over the phase; batch kops/s = thousands of page touches per second.')
COMPACT = ['sloB_over_s', 'sloB_met_frac', 'slo_over_s', 'slo_met_frac', 'svc_p99_ms', 'svc_p999_ms', 'svc_tps', 'batch_ops_s', 'pool_ge95_frac',
           'zswpwb', 'pswpin', 'batch_sys_s', 'daemon_cpu_ms']
lab['slo_met_frac'] = 'SLO met'
LOWER['slo_met_frac'] = False
lab['sloB_met_frac'] = 'boot SLO met'
LOWER['sloB_met_frac'] = False
for bk in bks:
    print()
    print(f'#### Whole run, batch `{bk}`')
    print()
    print('| config | ' + ' | '.join(lab[k] for k in COMPACT) + ' |')
    print('|---|' + '---|' * len(COMPACT))
    for c in cfgs:
        print(f'| {c} | ' + ' | '.join(cell(c, bk, 'all', k) for k in COMPACT) + ' |')
    real = [p for p in phs if p != 'all']
    print()
    print(f'#### Per phase, batch `{bk}`: service p99 ms / seconds over the boot SLO / batch kops/s (means)')
    print()
    print('| config | ' + ' | '.join(real) + ' |')
    print('|---|' + '---|' * len(real))

    def m3(c, ph):
        out = []
        for k in ('svc_p99_ms', 'sloB_over_s', 'batch_ops_s'):
            v = vals(c, bk, ph, k)
            out.append(fmt(scale(k, st.mean(v))) if v else '-')
        return ' / '.join(out)
    for c in cfgs:
        print(f'| {c} | ' + ' | '.join(m3(c, ph) for ph in real) + ' |')
    stat_c = [c for c in cfgs if c in STATIC]
    if stat_c:
        cells = []
        for ph in real:
            parts = []
            for k, low in (('svc_p99_ms', True), ('sloB_over_s', True), ('batch_ops_s', False)):
                cand = [(st.mean(vals(c, bk, ph, k)), c) for c in stat_c if vals(c, bk, ph, k)]
                if not cand:
                    parts.append('-')
                    continue
                v, c = (min if low else max)(cand)
                parts.append(f'{fmt(scale(k, v))} {"(all)" if all(x == v for x, _ in cand) else c}')
            cells.append(' / '.join(parts))
        print('| hindsight best static | ' + ' | '.join(cells) + ' |')
for bk in bks:
    for k in ('svc_p99_ms', 'sloB_over_s', 'slo_over_s', 'batch_ops_s', 'pool_ge95_frac', 'pswpin', 'zswpwb'):
        print()
        print(f'#### Headline, batch `{bk}`: {lab[k]} per phase')
        print()
        print('| config | ' + ' | '.join(phs) + ' |')
        print('|---|' + '---|' * len(phs))
        for c in cfgs:
            print(f'| {c} | ' + ' | '.join(cell(c, bk, ph, k) for ph in phs) + ' |')
HEAD = ['svc_p50_ms', 'svc_p99_ms', 'svc_p999_ms', 'sloB_over_s', 'slo_over_s', 'svc_tps', 'batch_ops_s', 'pool_ge95_frac']
MORE = ['zswpout', 'zswpwb', 'zswpin', 'pswpin', 'pswpout', 'batch_sys_s', 'daemon_cpu_ms', 'psi_svc_pct',
        'psi_batch_pct', 'knob_on_frac', 'knob_changes', 'cap_mean_MiB']
for bk in bks:
    for ph in phs:
        sel = [r for r in rows if r['batch'] == bk and r['phase'] == ph]
        if not sel:
            continue
        print()
        print(f'### Batch `{bk}`, phase `{ph}` ({fmt(st.mean(r["dur_s"] for r in sel))} s)')
        for keys in (HEAD, MORE):
            print()
            print('| config | ' + ' | '.join(lab[k] for k in keys) + ' |')
            print('|---|' + '---|' * len(keys))
            for c in cfgs:
                print(f'| {c} | ' + ' | '.join(cell(c, bk, ph, k) for k in keys) + ' |')

# ---------------------------------------------------------------- hindsight and targets
GOAL = [('svc_p99_ms', True), ('sloB_over_s', True), ('slo_over_s', True), ('batch_ops_s', False), ('pool_ge95_frac', True)]
statics = [c for c in cfgs if c in STATIC]
daemons = [c for c in cfgs if c not in STATIC]


def m(c, bk, ph, k):
    v = vals(c, bk, ph, k)
    return st.mean(v) if v else None


for bk in bks:
    real = [p for p in phs if p != 'all']
    print()
    print(f'### Per-phase hindsight optimum over the static settings (batch `{bk}`)')
    print()
    print('Best static setting per phase and metric (mean), and each daemon configuration\'s mean as a ratio '
          'to that best (for latency/SLO/pool lower is better, for batch throughput higher).')
    print()
    print('| phase | metric | best static | value | ' + ' | '.join(daemons) + ' |')
    print('|---|---|---|---|' + '---|' * len(daemons))
    hind = {}
    for ph in real + ['all']:
        for k, low in GOAL:
            cand = [(m(c, bk, ph, k), c) for c in statics if m(c, bk, ph, k) is not None]
            if not cand:
                continue
            v, c = (min if low else max)(cand)
            if all(x == v for x, _ in cand):
                c = 'all equal'
            hind[(ph, k)] = v
            cells = []
            for d in daemons:
                dv = m(d, bk, ph, k)
                cells.append('-' if dv is None else (f'{fmt(scale(k, dv))} ({dv / v:.2f}x)' if v else fmt(scale(k, dv))))
            print(f'| {ph} | {lab[k]} | {c} | {fmt(scale(k, v))} | ' + ' | '.join(cells) + ' |')
    # the whole run's hindsight optimum: per phase the best static, summed over phases
    tot = {}
    for k, low in (('sloB_over_s', True), ('slo_over_s', True), ('batch_ops_s', False)):
        s = 0
        for ph in real:
            v = hind.get((ph, k))
            if v is None:
                continue
            dur = st.mean(r['dur_s'] for r in rows if r['batch'] == bk and r['phase'] == ph)
            s += v * (dur if k == 'batch_ops_s' else 1)
        tot[k] = s
    print()
    print(f"Hindsight optimum for the whole run (the best static setting chosen per phase, on each metric "
          f"separately, so no single setting reaches it): {fmt(tot['sloB_over_s'])} s over the boot SLO "
          f"({fmt(tot['slo_over_s'])} s over the per-run SLO), "
          f"{fmt(tot['batch_ops_s'] / 1e3)} k batch operations.")
    for d in daemons:
        so, ops = m(d, bk, 'all', 'sloB_over_s'), m(d, bk, 'all', 'batch_ops_s')
        dur = m(d, bk, 'all', 'dur_s')
        if so is not None and ops is not None:
            print(f"`{d}`: {fmt(so)} s over the boot SLO ({so - tot['sloB_over_s']:+.1f} s against the optimum), "
                  f"{fmt(ops * dur / 1e3)} k operations ({ops * dur / tot['batch_ops_s']:.2f}x the optimum).")
    # the targets for the configured daemon, on the whole run
    print()
    print(f'### The targets of issue 9 (batch `{bk}`, whole run)')
    print()
    if not statics:
        print('No static setting in this matrix.')
        continue
    slo = {c: m(c, bk, 'all', 'sloB_met_frac') for c in statics}
    ops = {c: m(c, bk, 'all', 'batch_ops_s') for c in statics}
    pool = {c: m(c, bk, 'all', 'pool_ge95_frac') for c in statics}
    cs, co, cp = max(slo, key=lambda c: slo[c]), max(ops, key=lambda c: ops[c]), min(pool, key=lambda c: pool[c])
    print(f'Most protective static setting: `{cs}` (boot SLO met {slo[cs]:.3f} of the time); highest batch '
          f'throughput: `{co}` ({fmt(ops[co] / 1e3)} kops/s); least time with the pool >= 95%: `{cp}` ({pool[cp]:.3f}).')
    print()
    print('| daemon | boot SLO met (>= best static) | batch kops/s (>= 0.95x best static) | pool>=95% (<= least static) |')
    print('|---|---|---|---|')
    def verdict(d, best, k, want):
        """pass on the means; a miss whose bootstrap interval of daemon/best reaches the
        wanted ratio is inside the noise: "n.d.", neither a pass nor a FAIL"""
        a, b = vals(d, bk, 'all', k), vals(best, bk, 'all', k)
        r = st.mean(a) / st.mean(b)
        if r >= want:
            return 'pass'
        state = rng.getstate()  # the sections after this one print as they would without it
        ci = boot_ci(a, b)
        rng.setstate(state)
        if ci and ci[1] >= want:
            return f'n.d. ({r:.3f}x [{ci[0]:.2f}-{ci[1]:.2f}])'
        return 'FAIL'

    for d in daemons:
        a, b, c = m(d, bk, 'all', 'sloB_met_frac'), m(d, bk, 'all', 'batch_ops_s'), m(d, bk, 'all', 'pool_ge95_frac')
        if None in (a, b, c):
            continue
        print(f"| {d} | {a:.3f} {verdict(d, cs, 'sloB_met_frac', 1.0)} | {fmt(b / 1e3)} ({b / ops[co]:.2f}x) "
              f"{verdict(d, co, 'batch_ops_s', 0.95)} | {c:.3f} {'pass' if c <= pool[cp] else 'FAIL'} |")
    print()
    print('A miss on the means whose 95% bootstrap interval (daemon / best static) still reaches the '
          'target is shown as "n.d.": inside the noise, neither a pass nor a FAIL.')
    # A/A check: before the batch job first starts, the settings that act only on the batch
    # cgroup cannot differ from N; whatever the intervals flag there is the noise floor
    pre = []
    for spec in env.get('schedule', '').split():
        f = spec.split(':')
        if len(f) < 4 or f[3] != 'off':
            break
        pre.append(f[0])
    # and so can the daemon's runs that left the knob at N there in every run (its caps act on
    # the batch cgroup only)
    placebo = [c for c in ('cap0', 'caphalf', 'capq', 'wb0') if c in cfgs]

    def untouched(c, ph):
        v = vals(c, bk, ph, 'knob_on_frac') + vals(c, bk, ph, 'knob_changes')
        return bool(v) and not any(v)

    quiet = [c for c in cfgs if c not in STATIC and all(untouched(c, ph) for ph in pre)]
    if pre and (placebo or quiet) and 'N' in cfgs:
        n = flagged = 0
        hits = []
        for ph in pre:
            for c in placebo + quiet:
                for k, _, low in METRICS:
                    if low is None:
                        continue
                    a, b = vals(c, bk, ph, k), vals('N', bk, ph, k)
                    ci = boot_ci(a, b) if a and b and st.mean(b) else None
                    if not ci:
                        continue
                    n += 1
                    if not ci[0] <= 1.0 <= ci[1]:
                        flagged += 1
                        hits.append(f'{c} {ph}/{lab[k]} {st.mean(a) / st.mean(b):.2f}')
        print()
        what = ', '.join(placebo) + (' and ' if placebo and quiet else '') + \
            (f"{', '.join(quiet)} (the knob left at N in every run)" if quiet else '')
        print(f"A/A check (phase{'s' if len(pre) > 1 else ''} {', '.join(pre)}, before the batch job starts, where "
              f"{what} cannot differ from N): {flagged} of {n} comparisons outside the 95% interval, "
              f"where chance alone gives about {0.05 * n:.1f}" + (f" ({'; '.join(hits)})" if hits else '') +
              '. With few runs the bootstrap interval is too narrow; single flags at this rate are noise.')
    # the shipped defaults, and variants of them (zt-NAME), against N: "no harm"; static Y
    # with them, for what the shrinker being on costs by itself
    for d in [c for c in cfgs if c in ('zt', 'Y') or c.startswith('zt-')] if 'N' in cfgs else []:
        print()
        worse = []
        n = 0
        for ph in phs:
            for k, _, low in METRICS:
                if low is None:
                    continue
                a, b = vals(d, bk, ph, k), vals('N', bk, ph, k)
                if not a or not b or st.mean(b) == 0:
                    continue
                ci = boot_ci(a, b)
                n += 1 if ci else 0
                if ci and ((low and ci[0] > 1.0) or (not low and ci[1] < 1.0)):
                    worse.append(f'{ph}/{lab[k]} {st.mean(a) / st.mean(b):.2f} [{ci[0]:.2f}-{ci[1]:.2f}]')
        print(f'`{d}`{" (for reference: the price of the shrinker being on)" if d == "Y" else ""} '
              'worse than static N beyond the confidence interval: ' +
              ('; '.join(worse) if worse else 'nowhere') +
              f' ({len(worse)} of {n} comparisons; chance alone, one-sided, gives about {0.025 * n:.1f}).')
sys.exit(status)
