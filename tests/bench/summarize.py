#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""summarize.py [options] RESULTS_DIR -> markdown on stdout (the phased bed, issues 9 and 23).

  summarize.py DIR             every table of DIR's summary.md, from DIR's raw data: the
                               per-run files guest/guest.sh writes (DIR/<run>.marks, .samples,
                               .batch.log, .pg.<phase>.tx.*), or the same packed as
                               DIR/raw/<run>.tar.xz (--pack); writes DIR/results.csv (one row
                               per run and phase, "all" = the whole run) and DIR/plot/*.dat
                               (for plot.sh). A directory with neither (results committed
                               before issue 23) is read from its phases.csv, and nothing is
                               written into it.
  summarize.py --headroom DIR...  the headroom table (issue 47): per-phase hindsight against the
                               best static, cross-validated, with the A/A twin as the floor
  summarize.py --pack DIR      pack every run's raw files into DIR/raw/<run>.tar.xz (the
                               pgbench logs as "completion_ms latency_us" lines); exit 1 when
                               DIR/raw is larger than --budget MiB (10)
  --aa A,B                     the A/A pair (default: AA= in the settings line of env.txt)
  --base C                     the configuration every ratio is taken against (default: the
                               first of the A/A pair, else N)
  --discard-first              treat the first run of the boot as a warm-up run (for results
                               from before guest.sh recorded one)

Statistics: tests/bench/stats.py (Welch t intervals on log ratios, a permutation test as a
cross-check, the minimum detectable effect from the A/A pair). Exit status 3 when the
calibration was outside its range or no run produced data."""
import argparse
import csv
import io
import itertools
import math
import os
import random
import re
import shlex
import statistics as st
import sys
import tarfile

sys.dont_write_bytecode = True  # the source tree may be read-only (make distcheck)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stats  # noqa: E402

STATIC = ['N', 'Y', 'cap0', 'caphalf', 'capq', 'cap3q', 'wb0', 'batch-wb0', 'svc-wb0', 'low', 'off', 'pool20']
# {base}: the shrinker value every run starts from (BASE_SHRINKER in env.txt; Y in the
# baseline-y family), on top of which a static setting other than the knob is applied.
NAMES = {'N': 'static shrinker N', 'Y': 'static shrinker Y', 'cap0': '{base} + batch memory.zswap.max=0',
         'caphalf': '{base} + batch memory.zswap.max = pool limit / 2',
         'capq': '{base} + batch memory.zswap.max = pool limit / 4',
         'cap3q': '{base} + batch memory.zswap.max = pool limit * 3/4',
         'wb0': '{base} + batch memory.zswap.writeback=0', 'batch-wb0': '{base} + batch memory.zswap.writeback=0',
         'svc-wb0': '{base} + the service\'s memory.zswap.writeback=0 (systemd\'s MemoryZSwapWriteback=no)',
         'low': '{base} + service memory.low = its working set',
         'off': 'zswap disabled', 'pool20': '{base}, max_pool_percent=20',
         'caplate': '{base} + batch memory.zswap.max = pool limit / 2 from phase CAPLATE_AT on '
                    '(a schedule that knows the phases: not a static setting)',
         'capplan': '{base} + batch memory.zswap.max set as each phase of CAPPLAN starts '
                    '(a schedule that knows the phases: not a static setting)',
         'zt': 'zswap-tuned, shipped defaults',
         'ztcfg': 'zswap-tuned configured ([Pressure] Cgroups=bench-svc, [Batch] Cgroups=bench-batch)'}
# metric, label, lower is better? (None: no direction, not compared)
METRICS = [
    ('svc_p50_ms', 'svc p50 ms', True), ('svc_p99_ms', 'svc p99 ms', True), ('svc_p999_ms', 'svc p99.9 ms', True),
    ('slo_over_s', 's over SLO', True), ('sloB_over_s', 's over boot SLO', True),
    ('slo_met_frac', 'SLO met', False), ('sloB_met_frac', 'boot SLO met', False),
    ('svc_tps', 'svc tps', False), ('svc_late_pct', 'svc late+skipped %', True), ('batch_ops_s', 'batch kops/s', False),
    ('batch_fill_ops_s', 'fill kops/s', False), ('batch_reread_ops_s', 're-read kops/s', False),
    ('pool_ge95_frac', 'pool>=95%', True), ('pool_reject_frac', 'pool rejecting', True),
    ('pool_limit_hit', 'pool_limit_hit', True), ('reject_hits', 'reject_*', True),
    ('zswpout', 'zswpout', True), ('zswpwb', 'zswpwb', True),
    ('zswpin', 'zswpin', None), ('pswpin', 'pswpin', True), ('pswpout', 'pswpout', True),
    ('batch_sys_s', 'batch sys s', True), ('daemon_cpu_ms', 'daemon CPU ms', None),
    ('psi_svc_pct', 'mem PSI svc %', True), ('psi_batch_pct', 'mem PSI batch %', True),
    ('psi_cpu_svc_pct', 'cpu PSI svc %', True), ('psi_cpu_batch_pct', 'cpu PSI batch %', True),
    ('svc_pool_share', 'svc share of pool limit', None),
    ('knob_on_frac', 'knob on', None), ('knob_changes', 'knob changes', None), ('cap_mean_MiB', 'batch cap MiB', None),
]
LOWER = {k: low for k, _, low in METRICS}
LAB = {k: lab for k, lab, _ in METRICS}
# resolution of a metric for the log offset (stats.offset): counts 1, fractions 1%
RES = {'slo_over_s': 1, 'sloB_over_s': 1, 'zswpout': 1, 'zswpwb': 1, 'zswpin': 1, 'pswpin': 1, 'pswpout': 1,
       'pool_limit_hit': 1, 'reject_hits': 1, 'knob_changes': 1, 'pool_ge95_frac': 0.01, 'pool_reject_frac': 0.01,
       'slo_met_frac': 0.01, 'sloB_met_frac': 0.01, 'knob_on_frac': 0.01, 'psi_svc_pct': 0.01,
       'psi_batch_pct': 0.01, 'svc_late_pct': 0.01, 'psi_cpu_svc_pct': 0.01, 'psi_cpu_batch_pct': 0.01, 'batch_ops_s': 1,
       'batch_fill_ops_s': 1, 'batch_reread_ops_s': 1}


def cfg_name(c, twins=None, base_shrinker='N'):
    """zt-NAME / ztcfg-NAME: a variant of the daemon, its drop-in additions in env.txt."""
    if twins and c in twins:
        return (f'{cfg_name(twins[c], None, base_shrinker)}, run again under another name '
                f'(the A/A twin of `{twins[c]}`)')
    base = c.split('-', 1)[0]
    if c not in NAMES and base in ('zt', 'ztcfg') and base != c:
        return f"{NAMES[base]} + the settings of {base.upper()}_{c.split('-', 1)[1].replace('-', '_')} (env.txt)"
    return NAMES.get(c, c).replace('{base}', base_shrinker)


def pct(sorted_v, p):
    if not sorted_v:
        return None
    return sorted_v[min(len(sorted_v) - 1, int(p / 100.0 * (len(sorted_v) - 1) + 0.5))]


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
    return v / 1000 if k.startswith('batch_') and k.endswith('ops_s') and v is not None else v


# ---------------------------------------------------------------- raw files
class Store:
    """the raw files of a results directory: loose, or packed per run in raw/<run>.tar.xz"""

    def __init__(self, d):
        self.d = d
        self.tars = {}
        self.loose = set(os.listdir(d)) if os.path.isdir(d) else set()

    def members(self, run):
        if run not in self.tars:
            m = {}
            p = os.path.join(self.d, 'raw', run + '.tar.xz')
            if os.path.exists(p):
                with tarfile.open(p, 'r:xz') as t:
                    for ti in t.getmembers():
                        if ti.isfile():
                            m[os.path.basename(ti.name)] = t.extractfile(ti).read().decode(errors='replace')
            self.tars[run] = m
        return self.tars[run]

    def names(self, run, prefix):
        out = sorted(n for n in self.loose if n.startswith(prefix))
        return out or sorted(n for n in self.members(run) if n.startswith(prefix))

    def text(self, run, name):
        if name in self.loose:
            with open(os.path.join(self.d, name), errors='replace') as f:
                return f.read()
        return self.members(run).get(name)

    def has_run(self, run):
        return (run + '.marks') in self.loose or (run + '.marks') in self.members(run)


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


def setting(env, key):
    """One value of env.txt's settings line (guest.sh writes it as shell words, KEY='a b')."""
    try:
        words = shlex.split(env.get('settings', ''))
    except ValueError:
        return None
    return next((w.split('=', 1)[1] for w in words if w.startswith(key + '=')), None)


def read_marks(store, run):
    marks = []
    for line in (store.text(run, run + '.marks') or '').splitlines():
        f = line.split()
        if len(f) < 8:
            continue
        vm = dict(x.split('=') for x in f[7].strip(',').split(',') if '=' in x)
        marks.append({'name': f[0], 'mono': int(f[1]), 'epoch': int(f[2]), 'bsys': int(f[3]), 'busage': int(f[4]),
                      'dcpu': int(f[5]), 'scpu': int(f[6]), 'vm': {k: int(v) for k, v in vm.items()}})
    return marks


def parse_tx(text, compact):
    """(completion epoch ms, latency from the scheduled start in us) per transaction. pgbench -l:
    client tx latency_us script epoch_s epoch_us [schedule_lag_us]; compact (--pack): ms us"""
    out = []
    for line in text.splitlines():
        f = line.split()
        try:
            if compact and len(f) == 2:
                out.append((int(f[0]), int(f[1])))
            elif len(f) >= 6:
                out.append((int(f[4]) * 1000 + int(f[5]) // 1000, int(f[2]) + (int(f[6]) if len(f) > 6 else 0)))
        except ValueError:
            continue  # "skipped" transactions (only with -L) or garbage
    return out


def read_late(store, run, phase):
    """(late + skipped, processed + skipped) transactions of a phase from pgbench's summary
    (-L, the latency limit: "number of transactions skipped: S" and "... above the L ms
    latency limit: A/P", P the transactions processed, as pgbench 15 prints it), or None
    without a latency limit"""
    text = store.text(run, f'{run}.pg.{phase}.out') or ''
    m = re.search(r'above the [0-9.]+ ms latency limit: (\d+)/(\d+)', text)
    if not m:
        return None
    k = re.search(r'number of transactions skipped: (\d+)', text)
    skipped = int(k.group(1)) if k else 0
    return int(m.group(1)) + skipped, int(m.group(2)) + skipped


def read_tx(store, run, phase):
    out = []
    pre = f'{run}.pg.{phase}.tx'
    for n in store.names(run, pre):
        if n == pre + 'c':
            out += parse_tx(store.text(run, n), True)
        elif n.startswith(pre + '.'):
            out += parse_tx(store.text(run, n), False)
    return out


NSAMPLE = 22  # zsample columns (older results have 17: the rest read as -1)


def read_samples(store, run):
    s = []
    for line in (store.text(run, run + '.samples') or '').splitlines():
        f = line.split()
        if len(f) >= 17:
            try:
                v = list(map(int, f))
            except ValueError:
                continue
            s.append(v + [-1] * (NSAMPLE - len(v)))
    return s


def read_batch_log(store, run):
    """(t_ms, ops, fill_ops or None) every 500 ms"""
    b = []
    for line in (store.text(run, run + '.batch.log') or '').splitlines():
        f = line.split()
        if len(f) in (2, 3):
            b.append((int(f[0]), int(f[1]), int(f[2]) if len(f) == 3 else None))
    return b


def at(blog, t, col):
    """cumulative batch counter (col 1 ops, 2 fill ops) at monotonic ms t, interpolated"""
    if not blog or t <= blog[0][0]:
        return 0
    for u, v in zip(blog, blog[1:]):
        if u[0] <= t <= v[0]:
            return u[col] + (v[col] - u[col]) * (t - u[0]) / max(1, v[0] - u[0])
    return blog[-1][col]


def psi_pct(samples, a, b, col):
    sel = [x for x in samples if a <= x[0] <= b and x[col] >= 0]
    if len(sel) < 2:
        return None
    return 100.0 * (sel[-1][col] - sel[0][col]) / max(1, (sel[-1][0] - sel[0][0]) * 1000)


def seconds_over(tx, slo_us, t0_epoch_ms, s0, s1):
    """seconds s in [s0, s1) (relative to t0) over the SLO, on the wall clock: a second in which
    transactions completed is over when their p99 exceeds the SLO; a second in which none
    completed is over when a transaction was waiting in it for longer than the SLO (scheduled
    start + SLO before the end of the second, completed after its start)"""
    if not slo_us:
        return set()
    per = {}
    for e, lat in tx:
        per.setdefault((e - t0_epoch_ms) // 1000, []).append(lat)
    over = {s for s, v in per.items() if s0 <= s < s1 and pct(sorted(v), 99) > slo_us}
    empty = [s for s in range(s0, s1) if s not in per]
    if empty:
        spans = [((e - lat / 1000.0) - t0_epoch_ms, e - t0_epoch_ms) for e, lat in tx if lat > slo_us]
        for s in empty:
            a, b = s * 1000, (s + 1) * 1000
            if any(st0 + slo_us / 1000.0 < b and end > a for st0, end in spans):
                over.add(s)
    return over


def windows(sel, ms=1000):
    """(first sample, next) pairs about ms apart"""
    out, prev = [], None
    for x in sel:
        if prev is None or x[0] - prev[0] >= ms:
            if prev is not None:
                out.append((prev, x))
            prev = x
    return out


def extract(R, store, runs, plot=True):
    # The boot's SLO: 2x the median over every measured run of the p99 in phase `alone`.
    a99 = []
    for rd in runs:
        if rd.get('warmup') == '1':
            continue
        lat = sorted(l for _, l in read_tx(store, rd['run'], 'alone'))
        if lat:
            a99.append(pct(lat, 99))
    boot_slo = 2 * st.median(a99) if a99 else None
    rows = []
    if plot:
        os.makedirs(os.path.join(R, 'plot'), exist_ok=True)
    for rd in runs:
        run, cfg, bk, idx = rd['run'], rd['cfg'], rd['batch'], int(rd['idx'])
        marks = read_marks(store, run)
        if len(marks) < 2:
            continue
        limit_kb = int(rd.get('limit_kB') or 0)
        off = marks[0]['epoch'] - marks[0]['mono']  # epoch ms - monotonic ms
        t0e = marks[0]['epoch']
        samples, blog = read_samples(store, run), read_batch_log(store, run)
        phases = [(marks[i]['name'], marks[i], marks[i + 1]) for i in range(len(marks) - 1)]
        txs = {p: read_tx(store, run, p) for p, _, _ in phases}
        alltx = [t for p, _, _ in phases for t in txs[p]]
        alone = sorted(l for _, l in txs.get('alone', [])) or sorted(l for _, l in txs[phases[0][0]])
        slo_us = 2 * pct(alone, 99) if alone else None
        nsec = (marks[-1]['mono'] - marks[0]['mono']) // 1000
        over_run = seconds_over(alltx, slo_us, t0e, 0, nsec + 1)
        over_boot = seconds_over(alltx, boot_slo, t0e, 0, nsec + 1)
        per_sec = {}
        for e, lat in alltx:
            per_sec.setdefault((e - t0e) // 1000, []).append(lat)
        fill_known = bool(blog) and blog[-1][2] is not None
        late = {p: read_late(store, run, p) for p, _, _ in phases}
        for p, a, b in phases + [('all', marks[0], marks[-1])]:
            dur = (b['mono'] - a['mono']) / 1000.0
            lat = sorted(l for q, _, _ in phases if p in ('all', q) for _, l in txs[q])
            s0, s1 = (a['mono'] - marks[0]['mono']) // 1000, (b['mono'] - marks[0]['mono']) // 1000
            secs = range(s0, s1)
            sel = [x for x in samples if a['mono'] <= x[0] <= b['mono']]
            ge95 = sum(1 for x in sel if x[3] > 0 and x[1] >= 0.95 * x[3]) / len(sel) if sel else None
            poolm = st.mean(100.0 * x[1] / x[3] for x in sel if x[3] > 0) if sel else None
            knob = sum(1 for x in sel if x[4] == 1) / len(sel) if sel else None
            kch = sum(1 for u, v in zip(sel, sel[1:]) if u[4] != v[4])
            caps = [x[15] for x in sel if x[15] >= 0]
            capm = st.mean(caps) / 1024 if caps else None
            win = windows(sel)
            # rejecting: swap-out to the disk going on (pswpout beyond what writeback explains)
            # while no store reached the pool (zswpout flat)
            rej = sum(1 for u, v in win if v[5] == u[5] and (v[7] - u[7]) - (v[6] - u[6]) > 0) / len(win) if win else None
            dbg = [x for x in sel if x[20] >= 0]
            plh = dbg[-1][20] - dbg[0][20] if len(dbg) >= 2 else None
            rjh = dbg[-1][21] - dbg[0][21] if len(dbg) >= 2 and dbg[0][21] >= 0 else None
            svcz = [x[17] for x in sel if x[17] >= 0 and x[3] > 0]
            share = st.mean(x[17] / x[3] for x in sel if x[17] >= 0 and x[3] > 0) if svcz else None
            ops = at(blog, b['mono'], 1) - at(blog, a['mono'], 1)
            fill = at(blog, b['mono'], 2) - at(blog, a['mono'], 2) if fill_known else None
            vm = {k: b['vm'].get(k, 0) - a['vm'].get(k, 0) for k in ('zswpout', 'zswpin', 'zswpwb', 'pswpin', 'pswpout')}
            over_r = sum(1 for s in secs if s in over_run)
            over_b = sum(1 for s in secs if s in over_boot)
            lt = [late[q] for q, _, _ in phases if p in ('all', q) and late[q]]
            late_pct = 100.0 * sum(x[0] for x in lt) / sum(x[1] for x in lt) if lt and sum(x[1] for x in lt) else None
            rows.append({
                'cfg': cfg, 'batch': bk, 'run': idx, 'phase': p, 'dur_s': round(dur, 1),
                'warmup': 1 if rd.get('warmup') == '1' else 0,
                'svc_n': len(lat),
                'svc_p50_ms': pct(lat, 50) / 1e3 if lat else None,
                'svc_p99_ms': pct(lat, 99) / 1e3 if lat else None,
                'svc_p999_ms': pct(lat, 99.9) / 1e3 if lat else None,
                'svc_tps': len(lat) / dur if dur > 0 else None,
                'svc_late_pct': late_pct,
                'slo_ms': slo_us / 1e3 if slo_us else None,
                'slo_over_s': over_r, 'slo_met_frac': 1 - over_r / max(1, len(secs)),
                'sloB_over_s': over_b, 'sloB_met_frac': 1 - over_b / max(1, len(secs)),
                'batch_ops_s': ops / dur if dur > 0 else None,
                'batch_fill_ops_s': fill / dur if fill is not None and dur > 0 else None,
                'batch_reread_ops_s': (ops - fill) / dur if fill is not None and dur > 0 else None,
                'batch_sys_s': (b['bsys'] - a['bsys']) / 1e6,
                'batch_cpu_s': (b['busage'] - a['busage']) / 1e6,
                'svc_cpu_s': (b['scpu'] - a['scpu']) / 1e6,
                'daemon_cpu_ms': (b['dcpu'] - a['dcpu']) / 1e3,
                **vm,
                'pool_ge95_frac': ge95, 'pool_reject_frac': rej, 'pool_limit_hit': plh, 'reject_hits': rjh,
                'pool_mean_pct': poolm, 'knob_on_frac': knob, 'knob_changes': kch,
                'cap_mean_MiB': capm, 'svc_pool_share': share,
                'psi_svc_pct': psi_pct(samples, a['mono'], b['mono'], 10),
                'psi_batch_pct': psi_pct(samples, a['mono'], b['mono'], 11),
                'psi_sys_pct': psi_pct(samples, a['mono'], b['mono'], 9),
                'psi_cpu_svc_pct': psi_pct(samples, a['mono'], b['mono'], 18),
                'psi_cpu_batch_pct': psi_pct(samples, a['mono'], b['mono'], 19),
                'limit_MiB': limit_kb / 1024,
            })
        if not plot:
            continue
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
                v = per_sec.get((x[0] + off - t0e) // 1000)
                p99 = pct(sorted(v), 99) / 1e3 if v else -1
                o.write(f"{(x[0] - t00) / 1000:.2f} {pool:.1f} {ps:.1f} {pb:.1f} {x[4]} {cap:.1f} {p99:.2f}\n")
        with open(os.path.join(R, 'plot', run + '.marks'), 'w') as o:
            for m in marks:
                o.write(f"{(m['mono'] - t00) / 1000:.1f} {m['name']}\n")
    return rows, boot_slo


def read_phases_csv(path):
    rows = []
    with open(path, newline='') as f:
        for r in csv.DictReader(f):
            d = {}
            for k, v in r.items():
                if k in ('cfg', 'batch', 'phase'):
                    d[k] = v
                elif v in ('', None):
                    d[k] = None
                else:
                    try:
                        d[k] = float(v)
                    except ValueError:
                        d[k] = v
            d['run'] = int(d['run'])
            rows.append(d)
    return rows


# ---------------------------------------------------------------- packing
RAW_SUFFIXES = ('.marks', '.samples', '.batch.log', '.batch', '.daemon', '.flips', '.warmup.out')


def pack(R, budget_mib=10.0):
    runs = read_runs(R)
    os.makedirs(os.path.join(R, 'raw'), exist_ok=True)
    files = os.listdir(R)
    total = 0
    for rd in runs:
        run = rd['run']
        path = os.path.join(R, 'raw', run + '.tar.xz')
        with tarfile.open(path, 'w:xz', preset=9) as t:
            def add(name, data):
                ti = tarfile.TarInfo(name)
                ti.size, ti.mtime, ti.mode = len(data), 0, 0o644
                t.addfile(ti, io.BytesIO(data))
            for s in RAW_SUFFIXES:
                p = os.path.join(R, run + s)
                if os.path.isfile(p):
                    add(run + s, open(p, 'rb').read())
            phases = sorted({n[len(run) + 4:].split('.tx.')[0] for n in files
                             if n.startswith(run + '.pg.') and '.tx.' in n})
            for ph in phases:
                tx = []
                for n in sorted(files):
                    if n.startswith(f'{run}.pg.{ph}.tx.'):
                        tx += parse_tx(open(os.path.join(R, n), errors='replace').read(), False)
                tx.sort()
                add(f'{run}.pg.{ph}.txc', ''.join(f'{e} {l}\n' for e, l in tx).encode())
                p = os.path.join(R, f'{run}.pg.{ph}.out')
                if os.path.isfile(p):
                    add(f'{run}.pg.{ph}.out', open(p, 'rb').read())
        total += os.path.getsize(path)
    mib = total / 1048576
    print(f'summarize: packed {len(runs)} runs into {R}/raw: {mib:.1f} MiB (budget {budget_mib:g} MiB)')
    return 0 if mib <= budget_mib else 1


def read_runs(R):
    runs = []
    try:
        for line in open(os.path.join(R, 'runs.txt')):
            d = dict(x.split('=', 1) for x in line.split() if '=' in x)
            if 'run' in d:
                runs.append(d)
    except OSError:
        pass
    return runs


SPEED = ('speed_cpu_ms', 'speed_fault_ms', 'speed_end_cpu_ms', 'speed_end_fault_ms')


def run_speeds(runs):
    """{(cfg, batch, idx): (cpu ms, fault ms)} per counted run: the mean of `zbench speed`
    before and after it (guest.sh); runs from before the probe are left out"""
    out = {}
    for d in runs:
        if d.get('warmup') == '1':
            continue
        try:
            v = [float(d[k]) for k in SPEED]
        except (KeyError, ValueError):
            continue
        if min(v) > 0:
            out[(d['cfg'], d['batch'], int(d['idx']))] = ((v[0] + v[2]) / 2, (v[1] + v[3]) / 2)
    return out


def vcpu_speeds(runs):
    """{vCPU: [CPU-loop ms per counted run]} from the pinned probe (speed_cpuK_ms before and
    speed_end_cpuK_ms after a run, their mean); {} for probes from before the pinning"""
    out = {}
    for d in runs:
        if d.get('warmup') == '1':
            continue
        for k, v in d.items():
            m = re.fullmatch(r'speed_cpu([0-9]+)_ms', k)
            if not m:
                continue
            try:
                x = (float(v) + float(d[f'speed_end_cpu{m.group(1)}_ms'])) / 2
            except (KeyError, ValueError):
                continue
            if x > 0:
                out.setdefault(int(m.group(1)), []).append(x)
    return out


def pearson(x, y):
    if len(x) < 3 or st.pstdev(x) == 0 or st.pstdev(y) == 0:
        return None
    mx, my = st.mean(x), st.mean(y)
    return sum((a - mx) * (b - my) for a, b in zip(x, y)) / (len(x) * st.pstdev(x) * st.pstdev(y))


def speed_lines(runs, rows, cfgs, aa):
    """the guest's speed per configuration, the A/A twin's against its first, and how the
    service's whole-run p99 follows it; [] when the boot has no speed probe"""
    sp = run_speeds(runs)
    if not sp:
        return []
    by = {c: [v for (cc, _, _), v in sp.items() if cc == c] for c in cfgs}

    def rng(v):
        return f'{st.median(v):.0f} [{min(v):.0f}-{max(v):.0f}]'
    parts = [f'`{c}` {rng([x[0] for x in v])} / {rng([x[1] for x in v])}' for c, v in by.items() if v]
    out = ['Guest speed (`zbench speed` before and after each run, their mean, in ms: a fixed CPU loop / a fixed '
           'number of page faults; lower is faster; median [range] over runs): ' + '; '.join(parts) + '.']
    vc = vcpu_speeds(runs)
    if vc:
        out[0] += (' The CPU loop pinned to each vCPU (the figure above is their mean): ' +
                   ', '.join(f'vCPU {k} {rng(v)}' for k, v in sorted(vc.items())) + '.')
    if aa and by.get(aa[0]) and by.get(aa[1]):
        ws = [stats.welch_log([x[i] for x in by[aa[1]]], [x[i] for x in by[aa[0]]]) for i in (0, 1)]
        if all(ws):
            out[0] += (f' A/A twin `{aa[1]}` against `{aa[0]}`: CPU loop {ws[0]["ratio"]:.2f}x '
                       f'[{ws[0]["lo"]:.2f}-{ws[0]["hi"]:.2f}], page faults {ws[1]["ratio"]:.2f}x '
                       f'[{ws[1]["lo"]:.2f}-{ws[1]["hi"]:.2f}]' +
                       (' (an interval that excludes 1: the twin\'s runs met a slower or faster guest than its '
                        'first\'s, and the A/A flags above include its effect).'
                        if any(not w['lo'] <= 1.0 <= w['hi'] for w in ws) else
                        ' (both include 1: no sign that the twin met a slower or faster guest).'))
    p99 = {(r['cfg'], r['batch'], r['run']): r['svc_p99_ms'] for r in rows
           if r['phase'] == 'all' and not r.get('warmup') and r.get('svc_p99_ms')}
    corr = []
    for label, keep in (('all counted runs', lambda c: True), ('the A/A runs', lambda c: bool(aa) and c in aa)):
        keys = [k for k in sp if k in p99 and keep(k[0])]
        r = [pearson([math.log(sp[k][i]) for k in keys], [math.log(p99[k]) for k in keys]) for i in (0, 1)]
        if all(x is not None for x in r):
            corr.append(f'over {label} (n = {len(keys)}) r = {r[0]:.2f} / {r[1]:.2f}')
    if corr:
        out.append('Correlation of the log of the whole-run service p99 with the log of the CPU loop / page '
                   'faults: ' + '; '.join(corr) + '.')
    return [' '.join(out)]


# ---------------------------------------------------------------- the report
def aa_welch(a, b, c):
    """the Welch interval of one A/A comparison, None where it is not counted (fewer than 2
    runs a side, or every run of both gave the same value): what aa_check and aa_split count"""
    if len(a) < 2 or len(b) < 2 or stats.constant(a + b):
        return None
    return stats.welch_log(a, b, c)


class Report:
    def __init__(self, rows, aa, base):
        self.rows = [r for r in rows if not r.get('warmup')]
        self.aa = aa
        self.base = base
        self._v = {}
        self._off = {}
        self._mde = {}
        for r in self.rows:
            self._v.setdefault((r['cfg'], r['batch'], r['phase']), []).append(r)

    def vals(self, cfg, bk, ph, k):
        return [r[k] for r in self._v.get((cfg, bk, ph), []) if r.get(k) is not None]

    def off(self, bk, ph, k):
        key = (bk, ph, k)
        if key not in self._off:
            allv = [r[k] for r in self.rows if r['batch'] == bk and r['phase'] == ph and r.get(k) is not None]
            self._off[key] = stats.offset(allv, RES.get(k, 0.0))
        return self._off[key]

    def mde(self, bk, ph, k):
        key = (bk, ph, k)
        if key not in self._mde:
            m = None
            if self.aa:
                a, b = self.vals(self.aa[1], bk, ph, k), self.vals(self.aa[0], bk, ph, k)
                if a and b and not (stats.constant(a + b)):
                    m = stats.mde(a, b, self.off(bk, ph, k))
                elif a and b and len(a) > 1 and len(b) > 1:
                    m = 1.0
            self._mde[key] = m
        return self._mde[key]

    def gmean(self, cfg, bk, ph, k):
        """the geometric mean of a configuration's runs, exp(mean(log(x + c))) - c with the
        offset c of the ratios (stats.offset): the one mean by which a best static setting is
        chosen and a daemon measured against it, so that a best static's value and the ratio
        to it are of the same mean (an arithmetic mean picked N as service-in-zswap's best
        p99 where caphalf led by the geometric mean the ratios use)"""
        v = self.vals(cfg, bk, ph, k)
        if not v:
            return None
        c = self.off(bk, ph, k)
        if any(x + c <= 0 for x in v):
            return st.mean(v)
        g = math.exp(st.mean(math.log(x + c) for x in v)) - c
        return 0.0 if abs(g) < 1e-9 * max(1.0, c) else g

    def cmp(self, cfg, bk, ph, k, base=None):
        a, b = self.vals(cfg, bk, ph, k), self.vals(base or self.base, bk, ph, k)
        if not a or not b:
            return None
        return stats.compare(a, b, self.off(bk, ph, k), self.mde(bk, ph, k))

    def cell(self, cfg, bk, ph, k):
        a = self.vals(cfg, bk, ph, k)
        if not a:
            return '-'
        m = fmt(scale(k, st.mean(a)))
        if cfg == self.base or LOWER.get(k) is None:
            return m
        c = self.cmp(cfg, bk, ph, k)
        if c is None:
            return m
        if c['why'] == 'equal':
            return f'{m} (= n.d.)'
        iv = f"{c['ratio']:.2f} [{c['lo']:.2f}-{c['hi']:.2f}]"
        return f'{m} ({iv}{" n.d." if c["nd"] else ""})'

    def aa_check(self, bks, phs):
        """(K, M, K by the permutation test, flagged list) over every metric and phase"""
        k = m = kp = 0
        pmin = None
        hits = []
        a1, a2 = self.aa
        for bk in bks:
            for ph in phs:
                for key, _, low in METRICS:
                    if low is None:
                        continue
                    a, b = self.vals(a2, bk, ph, key), self.vals(a1, bk, ph, key)
                    w = aa_welch(a, b, self.off(bk, ph, key))
                    if w is None:
                        continue
                    m += 1
                    if not w['lo'] <= 1.0 <= w['hi']:
                        k += 1
                        hits.append(f"{ph}/{LAB[key]} {w['ratio']:.2f} [{w['lo']:.2f}-{w['hi']:.2f}]")
                    p = stats.perm_p(a, b, self.off(bk, ph, key))
                    kp += p is not None and p < 0.05
                    n1, n2 = len(a), len(b)
                    pm = 2 / math.comb(n1 + n2, n1) if n1 == n2 else 1 / math.comb(n1 + n2, n1)
                    pmin = pm if pmin is None else min(pmin, pm)
        return k, m, kp, pmin, hits

    def aa_split(self, bks, phs, max_splits=2000, seed=20261205):
        """The A/A count against the bed's own noise. The metrics move together (one slow run
        moves a dozen of them), so K of M is not binomial and its spread is wide; this counts
        K as aa_check does for every split of the pooled A/A runs into two groups of the
        twins' sizes (a random max_splits of them when there are more; with equal sizes each
        split once, as K does not change when the groups swap). Returns (K of the twins'
        own split, sorted Ks of every split, exhaustive) or None with fewer than 2 runs a side."""
        a1, a2 = self.aa
        series = []
        for bk in bks:
            for ph in phs:
                for key, _, low in METRICS:
                    if low is None:
                        continue
                    v = {(r['cfg'], r['run']): r[key] for c in (a1, a2)
                         for r in self._v.get((c, bk, ph), []) if r.get(key) is not None}
                    if len(v) >= 4 and not stats.constant(list(v.values())):
                        series.append((v, self.off(bk, ph, key)))
        units = sorted({u for v, _ in series for u in v})
        mine = frozenset(u for u in units if u[0] == a2)
        n2 = len(mine)
        if n2 < 2 or len(units) - n2 < 2:
            return None

        def count(group):
            k = 0
            for v, c in series:
                w = aa_welch([x for u, x in v.items() if u in group], [x for u, x in v.items() if u not in group], c)
                k += w is not None and not w['lo'] <= 1.0 <= w['hi']
            return k

        same = 2 * n2 == len(units)
        total = math.comb(len(units), n2) // (2 if same else 1)
        if total <= max_splits:
            splits = [frozenset(g) for g in itertools.combinations(units, n2) if not same or units[0] in g]
        else:
            rng = random.Random(seed)
            splits = [mine] + [frozenset(rng.sample(units, n2)) for _ in range(max_splits - 1)]
        return count(mine), sorted(count(g) for g in splits), total <= max_splits


def ordered(rows, key):
    out = []
    for r in rows:
        if r[key] not in out:
            out.append(r[key])
    return out


METHOD = ('Method (tests/bench/stats.py): every ratio is the ratio of geometric means of a configuration\'s runs '
          'to those of the base configuration, with the 95% Welch t interval on the difference of the mean '
          'logarithms (log(x + c); c = 0 unless the metric is zero in some run, then the larger of its '
          'resolution and 1% of its positive mean), per metric and phase; runs are the unit, never resampled. '
          'The A/A pair is one configuration run twice under two names; the minimum detectable effect (MDE) of a '
          'metric in a phase is exp(t(0.975, n1+n2-2) * s_p * sqrt(1/n1 + 1/n2)), s_p the pooled standard deviation '
          'of the A/A pair\'s logs: the smallest ratio this bed resolves at this n. A ratio is "n.d." (no difference '
          'shown) when its interval includes 1 or the ratio lies within [1/MDE, MDE]; "(= n.d.)": every run of both '
          'gave the same value.')


def predecessors(runs):
    """{cfg: {cfg of the run just before: count}} over the counted runs of runs.txt in the
    order they ran (a warm-up run counts as a predecessor, not as a run)"""
    out, prev = {}, None
    for d in runs:
        c = d['run'].split('.')[0]
        if prev is not None and d.get('warmup') != '1':
            out.setdefault(c, {})
            out[c][prev] = out[c].get(prev, 0) + 1
        prev = c
    return out


def predecessor_line(runs, aa):
    """what ran just before each run: the A/A twins' predecessors (carry-over from one run into
    the next cancels in the A/A check only if they are the same) and the most often any
    configuration followed one other"""
    pre = predecessors(runs)
    if not pre:
        return ''
    most = max((n, c, b) for c, d in pre.items() for b, n in d.items())
    fmt = lambda c: ', '.join(f'{b} {n}' for b, n in sorted(pre.get(c, {}).items()))  # noqa: E731
    twins = (f"`{aa[0]}` after {fmt(aa[0])}; `{aa[1]}` after {fmt(aa[1])}; " if aa else '')
    firsts = {}
    seen = set()
    for d in runs:
        if d.get('warmup') == '1' or d.get('idx') in seen:
            continue
        seen.add(d.get('idx'))
        c = d['run'].split('.')[0]
        firsts[c] = firsts.get(c, 0) + 1
    return (f"Predecessors (the run just before; a warm-up run counts): {twins}the most any configuration "
            f"followed one other: {most[0]} (`{most[1]}` after `{most[2]}`). First in a round: " +
            ', '.join(f'`{c}` {n}' for c, n in sorted(firsts.items(), key=lambda x: (-x[1], x[0]))) +
            f' of {len(seen)} rounds.')


def aa_split_line(k, ks, exhaustive, n):
    """the A/A split test in words (Report.aa_split)"""
    s = len(ks)
    reach = sum(x >= k for x in ks)
    q = lambda f: ks[min(s - 1, int(f * s))]  # noqa: E731
    line = (f'A/A split test: the twins\' own split of their {n} runs flags {k}; over '
            f'{"all " if exhaustive else "a random "}{s} ways to split those runs in two the count has median '
            f'{q(0.5)} and 95th percentile {q(0.95)} (the metrics move together, so it spreads wide), and reaches '
            f'{k} in {reach} of {s} ({100 * reach / s:.0f}%): ')
    if reach / s <= 0.05:
        return line + ('the twins\' runs differ more than this bed\'s noise between runs explains; something '
                       'that is neither their configuration nor their name set their runs apart (for example '
                       'the host\'s speed in the minutes they ran).')
    return line + 'within this bed\'s noise between runs.'


def calib_failed(calib, calib_end):
    """'' when both calibrations passed (or the end one was not taken), else which failed
    and its ratio against the range, e.g. 'at the end of the boot: 28.7x, outside 30-100'"""
    out = []
    for when, c in (('after the warm-up', calib), ('at the end of the boot', calib_end)):
        if c and c.get('ok', '1') != '1':
            out.append(f"{when}: {c.get('ratio', '?')}x, outside {c.get('range', '?')}")
    if not calib:
        out.append('no calibration recorded')
    return '; '.join(out)


def panic_line(env):
    """the boot's guest panics (run.sh's boot-panics.txt): the qemu CPU model and the
    panics, oopses and double faults in every console log of the boot"""
    if env.get('console_logs'):
        line = (f"Guest panics (qemu `-cpu {env.get('cpu', '?')}`, {env['console_logs']} console log(s) of this "
                f"boot): {env.get('kernel_panics', '?')} kernel panics, {env.get('double_faults', '?')} double "
                f"faults, {env.get('oopses', '?')} oopses; {env.get('panics_before_userspace', '0')} before "
                'userspace (booted again).')
    elif env.get('panics_before_userspace'):
        line = (f"Guest panics: {env['panics_before_userspace']} before userspace (booted again); the bed of this "
                'boot did not count panics in its console logs (before issue 47; qemu `-cpu max`).')
    else:
        line = 'Guest panics: not recorded by the bed of this boot.'
    return line


def report(R, rows, aa, base, env, calib, calib_end, runs, boot_slo, source, warm_note, out):
    p = lambda *a: print(*a, file=out)  # noqa: E731
    status = 0
    cfgs = ordered([r for r in rows if not r.get('warmup')], 'cfg')
    if base not in cfgs:
        base = 'N' if 'N' in cfgs else (cfgs[0] if cfgs else base)
    if aa and not all(c in cfgs for c in aa):
        aa = None
    rep = Report(rows, aa, base)
    twins = {aa[1]: aa[0]} if aa else {}
    p('## Calibration (this boot)')
    p()
    ok = calib.get('ok') == '1'
    cflag = calib_failed(calib, calib_end)
    if cflag:
        status = 3
        p(f'**CALIBRATION FAILED ({cflag}): the disk/zswap swap-in ratio is outside its range; these results do '
          'not model an SSD, and every figure quoted from this boot must say so.**')
        p()
    p(f"Swap disk profile `{calib.get('profile', '?')}`: random 4 KiB swap-in from the disk p50 "
      f"{calib.get('disk_p50_us', '?')} us, from zswap p50 {calib.get('zswap_p50_us', '?')} us: "
      f"ratio **{calib.get('ratio', '?')}x** (wanted {calib.get('range', '?')}; {'ok' if ok else 'FAILED'}) "
      f"before the first measured run" + (f"; at the end of the boot {calib_end.get('disk_p50_us')} us / {calib_end.get('zswap_p50_us')} us = "
                                      f"**{calib_end.get('ratio')}x** ({'ok' if calib_end.get('ok') == '1' else 'FAILED'})" if calib_end else '') + '.')
    p()
    bed = ''
    if env.get('bed_commit'):
        bed = f"; the bed (tests/bench) at commit {env['bed_commit']}"
        dirty = env.get('bed_dirty_files', '').strip()
        if dirty:
            bed += f", with local changes to {dirty}"
    p(f"Guest: kernel {env.get('kernel', '?')}, MemTotal {env.get('MemTotal', '?')}, zswap compressor "
      f"{env.get('zswap.compressor', '?')}/{env.get('zswap.zpool', '?')}, daemon {env.get('daemon', '?')} "
      f"(commit {env.get('commit', '?')}, sha256 {env.get('daemon_sha256', '?')}), {env.get('postgres', '?')}{bed}.")
    p()
    p('Settings: ' + env.get('settings', '?') + '; schedule `' + env.get('schedule', '?') + '`.')
    p()
    p('Source: ' + source + '.')
    if not [r for r in rows if not r.get('warmup')]:
        p()
        p('**No run produced data.**')
        return 3
    p()
    p(METHOD)
    p()
    nr = {c: len({r['run'] for r in rows if r['cfg'] == c and not r.get('warmup')}) for c in cfgs}
    p('Runs: ' + ', '.join(f'`{c}` x{nr[c]}' for c in cfgs) + '. Order and wall time (s): ' +
      ', '.join(f"{d['run']}{' (warm-up)' if d.get('warmup') == '1' else ''} {d.get('secs', '?')}" for d in runs) + '.' +
      (f" Order seed {env['seed']} (guest/order.sh: " +
       ('every round in a random order, the rounds drawn so that each configuration follows the others about '
        'equally often and the A/A twins follow the same ones' +
        (', and each takes every place in a round about equally often).' if env.get('order') == 'balanced-places'
         else ').') if env.get('order', '').startswith('balanced')
        else 'a fresh random order every round).') if env.get('seed') else ''))
    pl = predecessor_line(runs, aa) if env.get('order', '').startswith('balanced') else ''  # older summaries unchanged
    if pl:
        p()
        p(pl)
    p()
    p(warm_note)
    p()
    p(panic_line(env))
    if env.get('panic_after_userspace'):
        p()
        p(f"**The guest kernel panicked during the runs** (`{env['panic_after_userspace']}`): the boot ended "
          'there; the runs above are those completed before it, the one in progress is in no statistic.')
    p()
    base_shrinker = setting(env, 'BASE_SHRINKER') or 'N'
    p('Configurations: ' + '; '.join(f'`{c}` = {cfg_name(c, twins, base_shrinker)}' for c in cfgs) + '.')
    p()
    bks = ordered(rep.rows, 'batch')
    phs = ordered(rep.rows, 'phase')
    real = [x for x in phs if x != 'all']
    # ---- A/A and MDE
    if aa:
        k, m, kp, pmin, hits = rep.aa_check(bks, phs)
        p(f'**A/A: {k} of {m} comparisons flagged** (`{aa[1]}` against `{aa[0]}`, every compared metric and every phase '
          f'including the whole run, 95% Welch intervals on log ratios excluding 1; {0.05 * m:.1f} expected by chance; '
          f'the exact permutation test flags {kp} of {m} at p < 0.05' +
          (f', the smallest p it can give with these runs being {pmin:.3f}' if pmin else '') +
          '). Comparisons where both gave the same value in every run are not counted' +
          (f". Flagged: {'; '.join(hits)}." if hits else '.'))
        sp = rep.aa_split(bks, phs)
        if sp:
            p()
            p(aa_split_line(*sp, n=len([u for u in rep.rows if u['cfg'] in aa and u['phase'] == phs[0]
                                         and u['batch'] == bks[0]])))
        p()
        keys = [key for key, _, low in METRICS if low is not None]
        p(f'Minimum detectable effect per metric and phase (from the A/A pair; a ratio within [1/MDE, MDE] is "n.d."; '
          f'"-": no data or the metric is constant in the A/A runs):')
        p()
        p('| metric | ' + ' | '.join(phs) + ' |')
        p('|---|' + '---|' * len(phs))
        for bk in bks:
            for key in keys:
                cells = []
                for ph in phs:
                    v = rep.mde(bk, ph, key)
                    cells.append('-' if v is None else f'{v:.2f}')
                if any(c != '-' for c in cells):
                    p(f"| {LAB[key]}{'' if len(bks) == 1 else ' ' + bk} | " + ' | '.join(cells) + ' |')
    else:
        p('**A/A: no A/A pair in this matrix** (AA= in the conf, or --aa): no minimum detectable effect; '
          'a ratio is "n.d." only when its interval includes 1.')
    for line in speed_lines(runs, rep.rows, cfgs, aa):
        p()
        p(line)
    p()
    p(f'Cells: arithmetic mean over runs (ratio of geometric means against `{base}` [95% interval], only with >= 2 runs each; "n.d." as above). '
      f'Boot SLO = 2x the median over all runs of the p99 in phase `alone` ({fmt(boot_slo / 1e3 if boot_slo else None)} ms); '
      'per-run SLO = 2x the same run\'s p99 in `alone`; "s over" = seconds on the wall clock whose p99 exceeded it, '
      'or in which no transaction completed while one had been waiting longer than the SLO. Latency is pgbench\'s, '
      'from the scheduled start (open loop). Counters are deltas over the phase; batch kops/s = thousands of page '
      'touches per second, split into the first fill of the footprint and re-reads; "pool rejecting" = share of '
      '1 s windows in which pages went to the disk but none to the pool (pswpout beyond zswpwb moved, zswpout did '
      'not); pool_limit_hit, reject_* from debugfs (when mounted); PSI = share of wall time with some task of the '
      'cgroup stalled.')
    compact = ['sloB_over_s', 'slo_over_s', 'svc_p99_ms', 'svc_p999_ms', 'svc_tps', 'svc_late_pct', 'batch_reread_ops_s',
               'batch_fill_ops_s', 'batch_ops_s', 'pool_ge95_frac', 'pool_reject_frac', 'zswpwb', 'pswpin',
               'psi_cpu_svc_pct', 'psi_cpu_batch_pct', 'daemon_cpu_ms']
    compact = [k for k in compact if any(r.get(k) is not None for r in rep.rows)]
    for bk in bks:
        p()
        p(f'#### Whole run, batch `{bk}`' + (f' (CALIBRATION FAILED: {cflag})' if cflag else ''))
        p()
        p('| config | ' + ' | '.join(LAB[k] for k in compact) + ' |')
        p('|---|' + '---|' * len(compact))
        for c in cfgs:
            p(f'| {c} | ' + ' | '.join(rep.cell(c, bk, 'all', k) for k in compact) + ' |')
        ops_k = 'batch_reread_ops_s' if any(r.get('batch_reread_ops_s') is not None for r in rep.rows) else 'batch_ops_s'
        p()
        p(f'#### Per phase, batch `{bk}`: service p99 ms / seconds over the boot SLO / {LAB[ops_k]} '
          '(geometric means, as the ratios; the best static chosen by them)')
        p()
        p('| config | ' + ' | '.join(real) + ' |')
        p('|---|' + '---|' * len(real))

        def m3(c, ph):
            o = []
            for k in ('svc_p99_ms', 'sloB_over_s', ops_k):
                v = rep.gmean(c, bk, ph, k)
                o.append(fmt(scale(k, v)) if v is not None else '-')
            return ' / '.join(o)
        for c in cfgs:
            p(f'| {c} | ' + ' | '.join(m3(c, ph) for ph in real) + ' |')
        stat_c = [c for c in cfgs if c in STATIC]
        if stat_c:
            cells = []
            for ph in real:
                parts = []
                for k, low in (('svc_p99_ms', True), ('sloB_over_s', True), (ops_k, False)):
                    cand = [(rep.gmean(c, bk, ph, k), c) for c in stat_c if rep.vals(c, bk, ph, k)]
                    if not cand:
                        parts.append('-')
                        continue
                    v, c = (min if low else max)(cand)
                    parts.append(f'{fmt(scale(k, v))} {"(all)" if all(x == v for x, _ in cand) else c}')
                cells.append(' / '.join(parts))
            p('| hindsight best static | ' + ' | '.join(cells) + ' |')
    for bk in bks:
        for k in ('svc_p99_ms', 'sloB_over_s', 'slo_over_s', 'batch_reread_ops_s', 'batch_fill_ops_s', 'batch_ops_s',
                  'pool_ge95_frac', 'pool_reject_frac', 'pswpin', 'zswpwb', 'psi_cpu_svc_pct', 'psi_cpu_batch_pct'):
            if not any(r.get(k) is not None for r in rep.rows):
                continue
            p()
            p(f'#### Headline, batch `{bk}`: {LAB[k]} per phase')
            p()
            p('| config | ' + ' | '.join(phs) + ' |')
            p('|---|' + '---|' * len(phs))
            for c in cfgs:
                p(f'| {c} | ' + ' | '.join(rep.cell(c, bk, ph, k) for ph in phs) + ' |')
    head = ['svc_p50_ms', 'svc_p99_ms', 'svc_p999_ms', 'sloB_over_s', 'slo_over_s', 'svc_tps', 'svc_late_pct', 'batch_ops_s',
            'batch_fill_ops_s', 'batch_reread_ops_s', 'pool_ge95_frac', 'pool_reject_frac']
    more = ['zswpout', 'zswpwb', 'zswpin', 'pswpin', 'pswpout', 'pool_limit_hit', 'reject_hits', 'batch_sys_s',
            'daemon_cpu_ms', 'psi_svc_pct', 'psi_batch_pct', 'psi_cpu_svc_pct', 'psi_cpu_batch_pct',
            'svc_pool_share', 'knob_on_frac', 'knob_changes', 'cap_mean_MiB']
    for bk in bks:
        for ph in phs:
            sel = [r for r in rep.rows if r['batch'] == bk and r['phase'] == ph]
            if not sel:
                continue
            p()
            p(f'### Batch `{bk}`, phase `{ph}` ({fmt(st.mean(r["dur_s"] for r in sel))} s)')
            for keys in (head, more):
                keys = [k for k in keys if any(r.get(k) is not None for r in sel)]
                p()
                p('| config | ' + ' | '.join(LAB[k] for k in keys) + ' |')
                p('|---|' + '---|' * len(keys))
                for c in cfgs:
                    p(f'| {c} | ' + ' | '.join(rep.cell(c, bk, ph, k) for k in keys) + ' |')
    # ---- hindsight and targets
    statics = [c for c in cfgs if c in STATIC and c not in twins]
    daemons = [c for c in cfgs if c not in STATIC and c not in twins]

    def mean(c, bk, ph, k):  # the geometric mean (Report.gmean), as the ratios
        return rep.gmean(c, bk, ph, k)
    for bk in bks:
        ops_k = 'batch_reread_ops_s' if any(r.get('batch_reread_ops_s') is not None for r in rep.rows) else 'batch_ops_s'
        goal = [('svc_p99_ms', True), ('sloB_over_s', True), ('slo_over_s', True), (ops_k, False), ('pool_ge95_frac', True)]
        p()
        p(f'### Per-phase hindsight optimum over the static settings (batch `{bk}`)')
        p()
        p('Best static setting per phase and metric by geometric mean (the mean of every ratio here), and each '
          'daemon configuration\'s geometric mean as a ratio to that best (for latency/SLO/pool lower is better, for batch throughput higher); "n.d." when the '
          'daemon and that static setting are not told apart (interval or MDE).')
        p()
        p('| phase | metric | best static | value | ' + ' | '.join(daemons) + ' |')
        p('|---|---|---|---|' + '---|' * len(daemons))
        hind = {}
        for ph in real + ['all']:
            for k, low in goal:
                cand = [(mean(c, bk, ph, k), c) for c in statics if mean(c, bk, ph, k) is not None]
                if not cand:
                    continue
                v, c = (min if low else max)(cand)
                best = c
                if all(x == v for x, _ in cand):
                    c = 'all equal'
                hind[(ph, k)] = v
                cells = []
                for d in daemons:
                    dv = mean(d, bk, ph, k)
                    if dv is None:
                        cells.append('-')
                        continue
                    cm = rep.cmp(d, bk, ph, k, base=best)
                    nd = ' n.d.' if cm and cm['nd'] else ''
                    cells.append(f'{fmt(scale(k, dv))} ({dv / v:.2f}x{nd})' if v else fmt(scale(k, dv)))
                p(f'| {ph} | {LAB[k]} | {c} | {fmt(scale(k, v))} | ' + ' | '.join(cells) + ' |')
        tot = {}
        for k in ('sloB_over_s', 'slo_over_s', ops_k):
            s = 0
            for ph in real:
                v = hind.get((ph, k))
                if v is None:
                    continue
                dur = st.mean(r['dur_s'] for r in rep.rows if r['batch'] == bk and r['phase'] == ph)
                s += v * (dur if k == ops_k else 1)
            tot[k] = s
        p()
        p(f"Hindsight optimum for the whole run (the best static setting chosen per phase, on each metric "
          f"separately, so no single setting reaches it): {fmt(tot['sloB_over_s'])} s over the boot SLO "
          f"({fmt(tot['slo_over_s'])} s over the per-run SLO), {fmt(tot[ops_k] / 1e3)} k batch {LAB[ops_k].split()[0]} operations.")
        for d in daemons:
            so, ops = mean(d, bk, 'all', 'sloB_over_s'), mean(d, bk, 'all', ops_k)
            dur = mean(d, bk, 'all', 'dur_s')
            if so is not None and ops is not None and tot[ops_k]:
                p(f"`{d}`: {fmt(so)} s over the boot SLO ({so - tot['sloB_over_s']:+.1f} s against the optimum), "
                  f"{fmt(ops * dur / 1e3)} k operations ({ops * dur / tot[ops_k]:.2f}x the optimum).")
        p()
        p(f'### The targets of issue 9 (batch `{bk}`, whole run; batch throughput = {LAB[ops_k]})')
        p()
        if not statics:
            p('No static setting in this matrix.')
            continue
        slo = {c: mean(c, bk, 'all', 'sloB_met_frac') for c in statics}
        ops = {c: mean(c, bk, 'all', ops_k) for c in statics}
        pool = {c: mean(c, bk, 'all', 'pool_ge95_frac') for c in statics}
        if None in list(slo.values()) + list(ops.values()) + list(pool.values()):
            p('Not every static setting has every metric.')
            continue
        cs, co, cp = max(slo, key=lambda c: slo[c]), max(ops, key=lambda c: ops[c]), min(pool, key=lambda c: pool[c])
        p(f'Most protective static setting: `{cs}` (boot SLO met {slo[cs]:.3f} of the time); highest batch '
          f'throughput: `{co}` ({fmt(ops[co] / 1e3)} kops/s); least time with the pool >= 95%: `{cp}` ({pool[cp]:.3f}).')
        p()
        p(f'| daemon | boot SLO met (>= best static) | {LAB[ops_k]} (>= 0.95x best static) | pool>=95% (<= least static) |')
        p('|---|---|---|---|')

        def verdict(d, best, k, want):
            a, b = rep.vals(d, bk, 'all', k), rep.vals(best, bk, 'all', k)
            ga, gb = rep.gmean(d, bk, 'all', k), rep.gmean(best, bk, 'all', k)
            r = ga / gb if gb else math.inf
            if r >= want:
                return 'pass'
            w = stats.welch_log(a, b, rep.off(bk, 'all', k))
            if w and w['hi'] >= want:
                return f"n.d. ({r:.3f}x [{w['lo']:.2f}-{w['hi']:.2f}])"
            return 'FAIL'
        for d in daemons:
            a, b, c = mean(d, bk, 'all', 'sloB_met_frac'), mean(d, bk, 'all', ops_k), mean(d, bk, 'all', 'pool_ge95_frac')
            if None in (a, b, c):
                continue
            rel = f'{b / ops[co]:.2f}x' if ops[co] else 'the best is 0'
            p(f"| {d} | {a:.3f} {verdict(d, cs, 'sloB_met_frac', 1.0)} | {fmt(b / 1e3)} ({rel}) "
              f"{verdict(d, co, ops_k, 0.95)} | {c:.3f} {'pass' if c <= pool[cp] else 'FAIL'} |")
        p()
        p('A miss on the means whose 95% interval (daemon / best static) still reaches the target is shown as '
          '"n.d.": inside the noise, neither a pass nor a FAIL.')
        # the shipped defaults (and variants) and static Y against the base: "no harm"
        for d in [c for c in cfgs if (c in ('zt', 'Y') or c.startswith('zt-')) and c != base] if base in cfgs else []:
            worse, better, n = [], [], 0
            for ph in phs:
                for k, _, low in METRICS:
                    if low is None:
                        continue
                    cm = rep.cmp(d, bk, ph, k)
                    if cm is None or cm['why'] == 'equal':
                        continue
                    n += 1
                    if not cm['flagged']:
                        continue
                    what = f"{ph}/{LAB[k]} {cm['ratio']:.2f} [{cm['lo']:.2f}-{cm['hi']:.2f}]"
                    if (low and cm['lo'] > 1.0) or (not low and cm['hi'] < 1.0):
                        worse.append(what)
                    elif (low and cm['hi'] < 1.0) or (not low and cm['lo'] > 1.0):
                        better.append(what)
            p()
            p(f'`{d}`{" (for reference: the price of the shrinker being on)" if d == "Y" else ""} '
              f'worse than `{base}` beyond the interval and the MDE: ' + ('; '.join(worse) if worse else 'nowhere') +
              f' ({len(worse)} of {n} comparisons; chance alone, one-sided, gives about {0.025 * n:.1f}). '
              'Better: ' + ('; '.join(better) if better else 'nowhere') + f' ({len(better)} of {n}).')
    return status


# ---------------------------------------------------------------- headroom (issue 47)
# What a policy could win over the best single static setting on a bed: per-phase hindsight
# (the best static chosen separately for each phase) against the best static for the whole
# run, on the service's seconds over the boot SLO, its p99 and the batch's re-read. Every
# value is a geometric mean over runs (Report.gmean's offsets), combined over the phases:
# seconds over the SLO summed, re-read operations summed (as a whole-run rate), the p99 as
# the duration-weighted geometric mean of the phases' p99s. Gains: seconds saved, and the
# fraction by which the p99 or the re-read is better.
HEADROOM = (('sloB_over_s', 's over boot SLO', 'sum'), ('svc_p99_ms', 'svc p99', 'logmean'),
            ('batch_reread_ops_s', 'batch re-read', 'rate'))


def _combine(how, vals, durs):
    if how == 'sum':
        return sum(vals)
    tot = sum(durs)
    if how == 'rate':
        return sum(v * d for v, d in zip(vals, durs)) / tot
    if min(vals) <= 0:
        return None
    return math.exp(sum(d * math.log(v) for v, d in zip(vals, durs)) / tot)


def _gain(k, static, hind):
    """what the per-phase choice gains over the static one: seconds, or a fraction"""
    if static is None or hind is None:
        return None
    if k == 'sloB_over_s':
        return static - hind
    if LOWER[k]:
        return static / hind - 1.0 if hind > 0 else None
    return hind / static - 1.0 if static > 0 else None


def headroom_one(rep, bk, phases, durs, cfgs, k, how, train, evals):
    """(best static chosen on the runs in train, per-phase choices on train, gain measured on
    the runs in evals) for metric k; train/evals are sets of run indices"""
    def g(c, ph, idx):
        v = [r[k] for r in rep._v.get((c, bk, ph), []) if r['run'] in idx and r.get(k) is not None]
        if not v:
            return None
        cc = rep.off(bk, ph, k)
        if any(x + cc <= 0 for x in v):
            return st.mean(v)
        x = math.exp(st.mean(math.log(x + cc) for x in v)) - cc
        return 0.0 if abs(x) < 1e-9 * max(1.0, cc) else x
    better = min if LOWER[k] else max

    def whole(choice, idx):
        vals = [g(choice[i], ph, idx) for i, ph in enumerate(phases)]
        return None if None in vals else _combine(how, vals, durs)
    cand = [(whole([c] * len(phases), train), c) for c in cfgs]
    cand = [x for x in cand if x[0] is not None]
    if not cand:
        return None
    best = better(cand)[1]
    per = []
    for ph in phases:
        pc = [(g(c, ph, train), c) for c in cfgs if g(c, ph, train) is not None]
        if not pc:
            return None
        per.append(better(pc)[1])
    return best, per, _gain(k, whole([best] * len(phases), evals), whole(per, evals))


def headroom(rep, bk, cfgs, k, how):
    """in-sample and cross-validated gain of per-phase hindsight over the best static among
    cfgs on metric k: dict(best, per, gain, cv, folds) or None. Cross-validation: the runs
    split by round, odd rounds against even ones (each half holds runs from the whole boot,
    as the order interleaves configurations round by round); the choice made on one half,
    judged on the other, both ways, the two gains averaged."""
    phases = [ph for ph in ordered(rep.rows, 'phase') if ph != 'all']
    sel = [r for r in rep.rows if r['batch'] == bk and r['phase'] in phases]
    if not phases or not sel or not any(r.get(k) is not None for r in sel):
        return None
    durs = [st.mean(r['dur_s'] for r in sel if r['phase'] == ph) for ph in phases]
    idx = {r['run'] for r in sel if r['cfg'] in cfgs}
    ins = headroom_one(rep, bk, phases, durs, cfgs, k, how, idx, idx)
    if ins is None:
        return None
    odd, even = {i for i in idx if i % 2}, {i for i in idx if not i % 2}
    folds = []
    if odd and even:
        for a, b in ((odd, even), (even, odd)):
            f = headroom_one(rep, bk, phases, durs, cfgs, k, how, a, b)
            if f is not None and f[2] is not None:
                folds.append(f)
    cv = st.mean(f[2] for f in folds) if len(folds) == 2 else None
    return {'best': ins[0], 'per': list(zip(phases, ins[1])), 'gain': ins[2], 'cv': cv, 'folds': folds}


def fmt_gain(k, v):
    if v is None:
        return '-'
    return f'{v:+.2f} s' if k == 'sloB_over_s' else f'{100 * v:+.1f}%'


def headroom_rows(R):
    """(label, statics, twin pair, rows of the table) for one results directory"""
    env = kvfile(os.path.join(R, 'env.txt'))
    v = (setting(env, 'AA') or '').split()
    aa = v if len(v) == 2 else None
    runs = read_runs(R)
    store = Store(R)
    if runs and any(store.has_run(d['run']) for d in runs):
        rows, _ = extract(R, store, runs, plot=False)
    elif os.path.exists(os.path.join(R, 'results.csv')) and runs:
        rows = read_phases_csv(os.path.join(R, 'results.csv'))
    else:
        return None
    rep = Report(rows, aa, aa[0] if aa else 'N')
    cfgs = ordered(rep.rows, 'cfg')
    twins = {aa[1]} if aa and all(c in cfgs for c in aa) else set()
    statics = [c for c in cfgs if c in STATIC and c not in twins]
    out = []
    for bk in ordered(rep.rows, 'batch'):
        for k, lab, how in HEADROOM:
            h = headroom(rep, bk, statics, k, how) if statics else None
            f = headroom(rep, bk, list(aa), k, how) if twins else None
            if h is None:
                continue
            floor = None
            if f and f['gain'] is not None:
                floor = max(0.0, f['gain'], abs(f['cv']) if f['cv'] is not None else 0.0)
            resolved = (h['cv'] is not None and h['gain'] is not None and floor is not None
                        and min(h['cv'], h['gain']) > floor)
            out.append({'batch': bk, 'metric': k, 'label': lab, 'h': h, 'floor': f, 'resolved': resolved,
                        'floor_v': floor})
    return os.path.basename(os.path.normpath(R)), statics, aa, out


HEADROOM_TEXT = (
    'Headroom (summarize.py --headroom): per-phase hindsight = the best static setting chosen separately for '
    'each phase (geometric mean over runs), against the best single static setting over the whole run; '
    'phases combined as seconds over the boot SLO summed, re-read operations summed, p99 as the '
    'duration-weighted geometric mean of the p99s of the phases. Gain: seconds saved, or how much better the p99 '
    '(best static / hindsight - 1) or the re-read (hindsight / best static - 1). In-sample: chosen and judged '
    'on every run; cross-validated (CV): chosen on the odd rounds and judged on the even ones and the other way '
    'round, the two gains averaged (a round holds one run of each configuration, so each half spans the whole '
    'boot). Twin floor: the in-sample gain of the same procedure over the A/A pair alone, two names for one '
    'configuration, i.e. what choosing per phase wins from noise; the floor is the larger of that gain and the '
    'size of the twin\'s CV gain (0 at least). A metric has headroom when both its in-sample and its CV gain '
    'exceed the floor (the floor comes from two candidates, the statics are more: a gain just above it is '
    'weak evidence); a family none of whose metrics has any is a no-harm family: the best static is all '
    'it needs.')


def headroom_report(dirs, out):
    p = lambda *a: print(*a, file=out)  # noqa: E731
    p(HEADROOM_TEXT)
    p()
    p('| boot | statics | metric | best static | per-phase hindsight | gain in-sample | gain CV | twin floor '
      '(in-sample / CV) | headroom |')
    p('|---|---|---|---|---|---|---|---|---|')
    verdicts = []
    for R in dirs:
        res = headroom_rows(R)
        if res is None:
            name = os.path.basename(os.path.normpath(R))
            legacy = os.path.exists(os.path.join(R, 'results.csv')) and \
                'dataset' in open(os.path.join(R, 'results.csv')).readline().split(',')
            p(f'| {name} | - | ' + ('one phase (the legacy bed: a run is one phase), so per-phase hindsight '
                                   'is the best static | | | 0 by construction | | | no |' if legacy else
                                   'no per-phase data | | | | | | |'))
            verdicts.append(f'`{name}`: ' + ('no-harm family (one phase: nothing to choose per phase)'
                                             if legacy else 'no data'))
            continue
        name, statics, aa, rows = res
        if not rows:
            p(f"| {name} | {', '.join(statics) or 'none'} | no metric with data | | | | | | |")
        for x in rows:
            h, f, k = x['h'], x['floor'], x['metric']
            per = ', '.join(f'{ph} {c}' for ph, c in h['per'])
            one = len(statics) == 1
            fl = f"{fmt_gain(k, f['gain'])} / {fmt_gain(k, f['cv'])}" if f else 'no A/A pair'
            p(f"| {name} | {', '.join(statics)} | {x['label']} | {h['best']} | {per} | {fmt_gain(k, h['gain'])} | "
              f"{fmt_gain(k, h['cv'])} | {fl} | "
              f"{'one static: none by construction' if one else ('**yes**' if x['resolved'] else 'no')} |")
        hr = [x['label'] for x in rows if x['resolved'] and len(statics) > 1]
        verdicts.append(f"`{name}`: " + (f"headroom on {', '.join(hr)}" if hr else
                                         ('no-harm family (one static setting only: nothing to choose per phase)'
                                          if len(statics) <= 1 else 'no-harm family (headroom inside the floor)')))
    p()
    p('Verdict: ' + '; '.join(verdicts) + '.')
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('dir', nargs='+')
    ap.add_argument('--headroom', action='store_true',
                    help='the headroom table of every DIR (per-phase hindsight vs the best static)')
    ap.add_argument('--aa')
    ap.add_argument('--base')
    ap.add_argument('--discard-first', action='store_true')
    ap.add_argument('--pack', action='store_true')
    ap.add_argument('--budget', type=float, default=10.0)
    o = ap.parse_args(argv)
    if o.headroom:
        return headroom_report(o.dir, sys.stdout)
    if len(o.dir) != 1:
        ap.error('one DIR (several only with --headroom)')
    R = o.dir[0]
    if o.pack:
        return pack(R, o.budget)
    env = kvfile(os.path.join(R, 'env.txt'))
    calib = kvfile(os.path.join(R, 'calib.txt'))
    calib_end = kvfile(os.path.join(R, 'calib-end.txt'))
    bp = kvfile(os.path.join(R, 'boot-panics.txt'))
    if bp.get('panics_before_userspace'):
        env['panics_before_userspace'] = bp['panics_before_userspace']
    for k in ('panic_after_userspace', 'cpu', 'console_logs', 'kernel_panics', 'oopses', 'double_faults'):
        if bp.get(k):
            env[k] = bp[k]
    aa = None
    if o.aa:
        aa = o.aa.split(',')
    else:
        v = (setting(env, 'AA') or '').split()
        aa = v if len(v) == 2 else None
    base = o.base or (aa[0] if aa else 'N')
    runs = read_runs(R)
    if o.discard_first and runs:
        runs[0]['warmup'] = '1'
    store = Store(R)
    nwarm = [d['run'] for d in runs if d.get('warmup') == '1']
    if nwarm:
        warm = (f"Warm-up: {', '.join(nwarm)} ran first in the boot and is discarded: it is in no mean, interval, "
                "A/A check or optimum" + (' (declared with --discard-first: this boot had no warm-up run)' if o.discard_first else '') + '.')
    else:
        warm = 'Warm-up: none recorded (results from before issue 23): the first run of the boot is in the statistics.'
    if runs and any(store.has_run(d['run']) for d in runs):
        rows, boot_slo = extract(R, store, runs)
        src = 'the raw per-run files' + (' (raw/*.tar.xz)' if os.path.isdir(os.path.join(R, 'raw')) else '')
        keys = list(rows[0].keys()) if rows else []
        with open(os.path.join(R, 'results.csv'), 'w', newline='') as f:
            w = csv.DictWriter(f, fieldnames=keys)
            w.writeheader()
            for r in rows:
                w.writerow({k: (f'{v:.4g}' if isinstance(v, float) else v) for k, v in r.items()})
    elif os.path.exists(os.path.join(R, 'results.csv')) or os.path.exists(os.path.join(R, 'phases.csv')):
        f = os.path.join(R, 'results.csv')
        f = f if os.path.exists(f) else os.path.join(R, 'phases.csv')
        rows = read_phases_csv(f)
        # a results.csv says which rows are warm-up runs; an old phases.csv does not, and
        # --discard-first names the first run of runs.txt
        first = {(d['cfg'], d['batch'], int(d['idx'])) for d in runs if d.get('warmup') == '1'}
        for r in rows:
            if r.get('warmup') is None or not f.endswith('results.csv'):
                r['warmup'] = 1 if (r['cfg'], r['batch'], r['run']) in first else 0
        boot_slo = None
        sl = [r['slo_ms'] for r in rows if r.get('slo_ms') and r['phase'] == 'alone' and not r.get('warmup')]
        boot_slo = st.median(sl) * 1e3 if sl else None
        src = (f'{os.path.basename(f)} only (no raw data kept): the metrics as computed when the results were taken '
               '(seconds without a completed transaction not counted over the SLO; no fill/re-read split, no '
               'rejecting time, no cpu PSI); the boot SLO shown is the median per-run SLO')
    else:
        rows, boot_slo, src = [], None, 'nothing'
    return report(R, rows, aa, base, env, calib, calib_end, runs, boot_slo, src, warm, sys.stdout)


if __name__ == '__main__':
    sys.exit(main())
