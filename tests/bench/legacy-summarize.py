#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""legacy-summarize.py RESULTS_DIR -> markdown on stdout.

Reads RESULTS_DIR/results.csv (one row per run, written by guest/legacy.sh) and prints,
per data set, mean and min-max of every metric per configuration, the ratio of means
against static N, and a per-run table. Adapted from the shared qemu test bed. Since issue
23: warm-up runs (run w1, ...) are left out; with an A/A pair (AA= in the bench.conf line
of env.txt) the headline gives Welch intervals on log ratios (tests/bench/stats.py), the
A/A line and "n.d." where a ratio is inside its interval or the minimum detectable effect."""
import csv
import os
import statistics as st
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stats  # noqa: E402
from summarize import fmt  # noqa: E402  (one number format for both beds)

d = sys.argv[1]
allrows = list(csv.DictReader(open(os.path.join(d, 'results.csv'))))
rows = [r for r in allrows if not r['run'].startswith('w')]
warm = [f"{r['cfg']}.{r['dataset']}.{r['run']}" for r in allrows if r['run'].startswith('w')]
AA = None
try:
    for line in open(os.path.join(d, 'env.txt')):
        if line.startswith('bench.conf:') and "AA='" in line:
            v = line.split("AA='", 1)[1].split("'", 1)[0].split()
            AA = v if len(v) == 2 else None
except OSError:
    pass
NAMES = {'N': 'static N', 'Y': 'static Y', 'cap': 'N + hog zswap cap', 'cap0': 'N + hog zswap cap 0',
         'zt': 'zswap-tuned',
         'ztcg': 'zswap-tuned, probe cgroup PSI', 'ztcap': 'zswap-tuned + batch cap',
         'ztcap0': 'zswap-tuned + batch cap, ZswapMaxPercent=0'}
COLS = [  # key, label, scale, ratio?
    ('hog_kbps', 'hog throughput MB/s', 1 / 1024, True),
    ('probe_p50_us', 'probe p50 us', 1, True),
    ('probe_p99_us', 'probe p99 ms', 1e-3, True),
    ('probe_p999_us', 'probe p99.9 ms', 1e-3, True),
    ('probe_over1ms', 'probe touches > 1 ms', 1, True),
    ('frac_ge95', 'time pool >= 95% of limit', 1, False),
    ('pool_limit_hit', 'debugfs pool_limit_hit (checks at the limit)', 1, True),
    ('zswpout', 'zswpout (pages)', 1, True),
    ('zswpwb', 'zswpwb', 1, True),
    ('pswpout', 'pswpout', 1, True),
    ('pswpin', 'pswpin', 1, True),
    ('rejected', 'stores rejected to disk (pswpout-zswpwb)', 1, True),
    ('flips', 'knob flips (daemon log)', 1, False),
    ('daemon_cpu_ms', 'daemon CPU ms (process)', 1, False),
    ('daemon_unit_cpu_ms', 'daemon unit CPU ms (incl. start, --restore)', 1, False),
    ('psi_sys_pct', 'PSI some, system, % of hog time', 1, True),
    ('psi_probe_pct', 'PSI some, probe cgroup, %', 1, True),
    ('hog_zswpwb', 'hog cgroup zswpwb', 1, True),
    ('probe_zswpwb', 'probe cgroup zswpwb', 1, True),
    ('maxpool_kB', 'max pool MiB', 1 / 1024, False),
]


def num(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def ordered(key):
    out = []
    for r in rows:
        if r[key] not in out:
            out.append(r[key])
    return out


configs, datasets = ordered('cfg'), ordered('dataset')
BASE = AA[0] if AA and AA[0] in configs else 'N'
r0 = rows[0]
print(f"Pool limit {int(r0['limit_kB']) // 1024} MiB; runs per configuration and data set: " +
      ', '.join(f"{c}={sum(1 for r in rows if r['cfg'] == c and r['dataset'] == datasets[0])}" for c in configs) +
      '. Values: mean (min-max) over the runs; counters are deltas over the hog\'s run.')
print()
print('Configurations: ' + '; '.join(f'`{c}` = {NAMES.get(c, c)}' for c in configs) + '.')
print()
print('Warm-up: ' + (', '.join(warm) + ' ran first in the boot and is left out of every figure.' if warm else
                     'none recorded (the first run of the boot is in the figures).'))


def vals(sel, c, k, sc):
    vs = [num(r.get(k)) for r in sel if r['cfg'] == c]
    return [v * sc for v in vs if v is not None and v >= 0]


if AA and all(c in configs for c in AA):
    kk = mm = 0
    for ds in datasets:
        sel = [r for r in rows if r['dataset'] == ds]
        for k, _, sc, ratio in COLS:
            a, b = vals(sel, AA[1], k, sc), vals(sel, AA[0], k, sc)
            if not ratio or len(a) < 2 or len(b) < 2 or stats.constant(a + b):
                continue
            w = stats.welch_log(a, b, stats.offset(a + b, 1))
            if w:
                mm += 1
                kk += not w['lo'] <= 1.0 <= w['hi']
    print()
    print(f'**A/A: {kk} of {mm} comparisons flagged** (`{AA[1]}` against `{AA[0]}`, every metric with a ratio and '
          f'data set; 95% Welch intervals on log ratios, tests/bench/stats.py; {0.05 * mm:.1f} expected by chance).')

# Headline: one row per configuration, mean and (ratio against static N) of the key metrics.
HEAD = [('hog_kbps', 'hog MB/s', 1 / 1024), ('probe_p50_us', 'p50 us', 1), ('probe_p99_us', 'p99 ms', 1e-3),
        ('probe_p999_us', 'p99.9 ms', 1e-3), ('probe_over1ms', '>1 ms', 1), ('frac_ge95', 'pool>=95%', 1),
        ('zswpout', 'zswpout', 1), ('zswpwb', 'zswpwb', 1), ('pswpout', 'pswpout', 1), ('pswpin', 'pswpin', 1),
        ('rejected', 'rejected', 1), ('flips', 'flips', 1), ('daemon_cpu_ms', 'daemon CPU ms', 1)]


def mean_of(sel, c, k, sc):
    vs = [num(r.get(k)) for r in sel if r['cfg'] == c]
    vs = [v * sc for v in vs if v is not None and v >= 0]
    return st.mean(vs) if vs else None


for ds in datasets:
    sel = [r for r in rows if r['dataset'] == ds]
    print()
    print(f'#### Headline, data set `{ds}`: mean (ratio against `{BASE}`' +
          (' [95% Welch interval on the log ratio]; "n.d." inside the interval or the A/A minimum detectable effect)'
           if AA else ')'))
    print()
    print('| config | ' + ' | '.join(h[1] for h in HEAD) + ' |')
    print('|---|' + '---|' * len(HEAD))
    for c in configs:
        cells = []
        for k, _, sc in HEAD:
            m, b = mean_of(sel, c, k, sc), mean_of(sel, BASE, k, sc)
            if m is None:
                cells.append('-')
            elif c != BASE and b and k not in ('frac_ge95', 'flips', 'daemon_cpu_ms') and AA and all(x in configs for x in AA):
                a_, b_ = vals(sel, c, k, sc), vals(sel, BASE, k, sc)
                off = stats.offset(a_ + b_, 1)
                t1, t2 = vals(sel, AA[1], k, sc), vals(sel, AA[0], k, sc)
                mde = stats.mde(t1, t2, stats.offset(t1 + t2, 1)) if len(t1) > 1 and len(t2) > 1 and not stats.constant(t1 + t2) else None
                cm = stats.compare(a_, b_, off, mde)
                if cm is None:
                    cells.append(f'{fmt(m)} ({m / b:.2f})')
                else:
                    cells.append(f"{fmt(m)} ({cm['ratio']:.2f} [{cm['lo']:.2f}-{cm['hi']:.2f}]{' n.d.' if cm['nd'] else ''})")
            elif c != BASE and b and k not in ('frac_ge95', 'flips', 'daemon_cpu_ms'):
                cells.append(f'{fmt(m)} ({m / b:.2f})')
            else:
                cells.append(fmt(m))
        print(f'| {c} | ' + ' | '.join(cells) + ' |')
for ds in datasets:
    sel = [r for r in rows if r['dataset'] == ds]
    means = {}
    print()
    print(f'### Data set `{ds}`')
    print()
    print('| metric | ' + ' | '.join(configs) + ' |')
    print('|---|' + '---|' * len(configs))
    for k, lab, sc, _ in COLS:
        cells = []
        for c in configs:
            vs = [num(r.get(k)) for r in sel if r['cfg'] == c]
            vs = [v * sc for v in vs if v is not None and v >= 0]
            if not vs:
                cells.append('-')
                continue
            m = st.mean(vs)
            means[(k, c)] = m
            cells.append(fmt(m) + (f' ({fmt(min(vs))}-{fmt(max(vs))})' if len(vs) > 1 else ''))
        if all(x == '-' for x in cells):
            continue
        print(f'| {lab} | ' + ' | '.join(cells) + ' |')
    if 'N' in configs:
        others = [c for c in configs if c != 'N']
        print()
        print(f'Ratio of means against static N (`{ds}`):')
        print()
        print('| metric | ' + ' | '.join(others) + ' |')
        print('|---|' + '---|' * len(others))
        for k, lab, sc, ratio in COLS:
            if not ratio:
                continue
            b = means.get((k, 'N'))
            cells = []
            for c in others:
                v = means.get((k, c))
                cells.append('-' if (b in (None, 0) or v is None) else f'{v / b:.2f}')
            print(f'| {lab} | ' + ' | '.join(cells) + ' |')
print()
print('Per run:')
print()
print('| cfg | data | run | hog MB/s | p99 ms | p99.9 ms | >1ms | pool>=95% | zswpwb | pswpout | rejected | '
      'hog zswpwb | flips | daemon CPU ms | pool first >=95% at s |')
print('|' + '---|' * 15)
for r in rows:
    tf = num(r['t_full_ms'])
    print(f"| {r['cfg']} | {r['dataset']} | {r['run']} | {fmt(num(r['hog_kbps']) / 1024 if num(r['hog_kbps']) else None)} | "
          f"{fmt(num(r['probe_p99_us']) / 1e3 if num(r['probe_p99_us']) is not None else None)} | "
          f"{fmt(num(r['probe_p999_us']) / 1e3 if num(r['probe_p999_us']) is not None else None)} | {r['probe_over1ms']} | "
          f"{r['frac_ge95']} | {r['zswpwb']} | {r['pswpout']} | {r['rejected']} | {r['hog_zswpwb']} | {r['flips']} | "
          f"{r['daemon_cpu_ms'] or '-'} | {fmt(tf / 1e3) if tf is not None else 'never'} |")
