#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Unit tests of the benchmark summary's statistics (tests/bench/stats.py) and of
summarize.py's extraction, packing and reproduction (issue 23). Standard library only.
  python3 tests/bench/test_summarize.py [--tap]      (make check runs it through tests/bench-stats.sh)"""
import contextlib
import io
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import stats  # noqa: E402
import summarize  # noqa: E402

SRC = os.environ.get('abs_top_srcdir') or os.path.dirname(os.path.dirname(HERE))
LN2 = math.log(2)


class TDistribution(unittest.TestCase):
    def test_quantiles_match_the_tables(self):
        for df, t in ((1, 12.706205), (2, 4.302653), (4, 2.776445), (5, 2.570582), (8, 2.306004),
                      (10, 2.228139), (30, 2.042272)):
            self.assertAlmostEqual(stats.t_ppf(0.975, df), t, places=5, msg=f'df={df}')
        self.assertAlmostEqual(stats.t_ppf(0.975, math.inf), 1.959964, places=5)
        self.assertAlmostEqual(stats.t_ppf(0.025, 4), -2.776445, places=5)

    def test_cdf_closed_form_df2(self):
        # df = 2: F(t) = 1/2 + t / (2 sqrt(2 + t^2))
        for t in (-3.0, -0.5, 0.0, 0.7, 2.0, 9.0):
            self.assertAlmostEqual(stats.t_cdf(t, 2), 0.5 + t / (2 * math.sqrt(2 + t * t)), places=10)

    def test_fractional_df_between_neighbours(self):
        self.assertTrue(stats.t_ppf(0.975, 5) < stats.t_ppf(0.975, 4.5) < stats.t_ppf(0.975, 4))


class Welch(unittest.TestCase):
    # logs of a are 1..5 ln 2, of b 0..4 ln 2: difference ln 2, each variance 2.5 (ln 2)^2,
    # se = sqrt(2 * 2.5 / 5) ln 2 = ln 2, Welch df = 8 (equal n and variance): the interval
    # is 2^(1 -/+ t(0.975, 8)) = 2^(1 -/+ 2.306004)
    A = [2, 4, 8, 16, 32]
    B = [1, 2, 4, 8, 16]

    def test_known_interval(self):
        w = stats.welch_log(self.A, self.B)
        self.assertAlmostEqual(w['ratio'], 2.0, places=12)
        self.assertAlmostEqual(w['df'], 8.0, places=9)
        self.assertAlmostEqual(w['lo'], 2 ** (1 - 2.306004135), places=6)
        self.assertAlmostEqual(w['hi'], 2 ** (1 + 2.306004135), places=6)

    def test_known_interval_unequal(self):
        # a: logs 0, ln 2 (var (ln 2)^2 / 2, n 2); b: logs 0, 0, 0, 2 ln 2 (var (ln 2)^2, n 4)
        a, b = [1, 2], [1, 1, 1, 4]
        va, vb = (LN2 ** 2 / 2) / 2, (LN2 ** 2) / 4
        se = math.sqrt(va + vb)
        df = (va + vb) ** 2 / (va ** 2 / 1 + vb ** 2 / 3)
        d = LN2 / 2 - LN2 / 2
        w = stats.welch_log(a, b)
        self.assertAlmostEqual(w['df'], df, places=9)
        t = stats.t_ppf(0.975, df)
        self.assertAlmostEqual(w['lo'], math.exp(d - t * se), places=9)
        self.assertAlmostEqual(w['hi'], math.exp(d + t * se), places=9)

    def test_mde_closed_form(self):
        # pooled SD of the logs sqrt(2.5) ln 2, n 5 each: exp(t(0.975, 8) * sqrt(2.5) ln 2 * sqrt(2/5))
        self.assertAlmostEqual(stats.mde(self.A, self.B), 2 ** 2.306004135, places=6)

    def test_one_run_gives_no_interval(self):
        self.assertIsNone(stats.welch_log([1.0], [1.0, 2.0]))
        self.assertIsNone(stats.mde([1.0], [1.0, 2.0]))


class Degenerate(unittest.TestCase):
    def test_all_equal_is_not_flagged(self):
        c = stats.compare([5, 5, 5, 5, 5], [5, 5, 5, 5, 5])
        self.assertEqual((c['ratio'], c['flagged'], c['why']), (1.0, False, 'equal'))

    def test_all_zero_is_not_flagged(self):
        v = [0, 0, 0, 0, 0]
        c = stats.compare(v, v, stats.offset(v + v, 1))
        self.assertEqual((c['ratio'], c['flagged'], c['why']), (1.0, False, 'equal'))

    def test_constant_but_different_is_exact(self):
        c = stats.compare([2, 2, 2], [1, 1, 1])
        self.assertTrue(c['flagged'])
        self.assertEqual((c['lo'], c['hi']), (2.0, 2.0))

    def test_constant_but_different_within_the_mde_is_nd(self):
        c = stats.compare([57651] * 6, [57650] * 6, 0.0, mde_ratio=1.01)
        self.assertTrue(c['excludes1'])
        self.assertFalse(c['flagged'])
        self.assertEqual(c['why'], 'mde')

    def test_offset(self):
        self.assertEqual(stats.offset([1, 2, 3]), 0.0)
        self.assertEqual(stats.offset([0, 0]), 1.0)
        self.assertEqual(stats.offset([0, 100, 300], 1), 2.0)
        self.assertEqual(stats.offset([0, 0.5], 1), 1.0)

    def test_zeros_mixed_give_a_wide_interval(self):
        a, b = [0, 0, 1, 2, 0], [1, 0, 0, 2, 0]
        c = stats.compare(a, b, stats.offset(a + b, 1))
        self.assertFalse(c['flagged'])
        self.assertLess(c['lo'], 1.0)
        self.assertGreater(c['hi'], 1.0)

    def test_zero_against_positive_with_noise(self):
        a, b = [0, 0, 0, 0, 0], [40, 55, 61, 48, 52]
        c = stats.compare(a, b, stats.offset(a + b, 1))
        self.assertTrue(c['flagged'])
        self.assertLess(c['hi'], 0.1)


class Flags(unittest.TestCase):
    AA1 = [21.3, 24.8, 19.9, 23.1, 22.0]
    AA2 = [22.9, 20.4, 24.1, 21.7, 23.5]

    def test_aa_input_not_flagged(self):
        c = stats.compare(self.AA2, self.AA1, 0.0, stats.mde(self.AA2, self.AA1))
        self.assertFalse(c['flagged'])
        self.assertFalse(c['excludes1'])
        self.assertGreater(stats.perm_p(self.AA2, self.AA1), 0.05)

    def test_shifted_input_flagged(self):
        shifted = [x * 1.5 for x in self.AA2]
        m = stats.mde(self.AA2, self.AA1)
        self.assertLess(m, 1.5)
        c = stats.compare(shifted, self.AA1, 0.0, m)
        self.assertTrue(c['flagged'])
        self.assertGreater(c['lo'], 1.0)
        self.assertLess(stats.perm_p(shifted, self.AA1), 0.05)

    def test_within_mde_is_nd(self):
        c = stats.compare([x * 1.02 for x in self.AA1], self.AA1, 0.0, mde_ratio=1.2)
        self.assertTrue(c['nd'])

    def test_permutation_exact(self):
        # completely separated samples of 5 and 5: 2 of the C(10, 5) = 252 splits are as extreme
        self.assertAlmostEqual(stats.perm_p([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]), 2 / 252, places=12)
        self.assertEqual(stats.perm_p([1, 2, 3], [1, 2, 3]), 1.0)

    def test_simulated_aa_false_positive_rate(self):
        # 200 A/A draws, n = 5 a side, log-normal: honest 95% intervals flag about 5%
        rng = random.Random(23)
        flagged = 0
        for _ in range(200):
            a = [math.exp(rng.gauss(3, 0.3)) for _ in range(5)]
            b = [math.exp(rng.gauss(3, 0.3)) for _ in range(5)]
            flagged += stats.compare(a, b)['excludes1']
        self.assertLessEqual(flagged, 20, f'{flagged} of 200 A/A draws flagged')

    def test_simulated_shift_is_found(self):
        # a 2x shift at a log SD of 0.3, n = 5: t = ln 2 / (0.3 sqrt(2/5)) = 3.65 against 2.31, power ~85%
        rng = random.Random(24)
        found = 0
        for _ in range(200):
            a = [math.exp(rng.gauss(3 + math.log(2), 0.3)) for _ in range(5)]
            b = [math.exp(rng.gauss(3, 0.3)) for _ in range(5)]
            found += stats.compare(a, b)['excludes1']
        self.assertGreaterEqual(found, 150, f'only {found} of 200 2x shifts found')


class AASplit(unittest.TestCase):
    """The A/A count against every split of the pooled A/A runs (Report.aa_split)."""
    @staticmethod
    def rows(shift):
        rng = random.Random(7)
        out = []
        for c in ('N', 'N2'):
            for run in range(1, 6):
                f = shift if c == 'N2' else 1.0
                out.append({'cfg': c, 'batch': 'walk', 'phase': 'all', 'run': run,
                            'svc_p99_ms': f * math.exp(rng.gauss(3, 0.2)),
                            'svc_p999_ms': f * math.exp(rng.gauss(4, 0.2)),
                            'batch_reread_ops_s': math.exp(rng.gauss(6, 0.1))})
        return out

    def test_exchangeable_twins_are_within_the_noise(self):
        k, ks, exhaustive = summarize.Report(self.rows(1.0), ['N', 'N2'], 'N').aa_split(['walk'], ['all'])
        self.assertTrue(exhaustive)
        self.assertEqual(len(ks), 126)  # C(10, 5) / 2: each split once
        line = summarize.aa_split_line(k, ks, exhaustive, 10)
        self.assertIn("within this bed's noise", line)

    def test_shifted_twin_is_set_apart(self):
        # the twin's service 2x slower in every run: its own split is the one split that
        # separates the two latencies completely (with the third metric at random, K = 2 or 3)
        k, ks, exhaustive = summarize.Report(self.rows(2.0), ['N', 'N2'], 'N').aa_split(['walk'], ['all'])
        self.assertGreaterEqual(k, 2)
        reach = sum(x >= k for x in ks)
        self.assertLessEqual(reach, 6)
        line = summarize.aa_split_line(k, ks, exhaustive, 10)
        self.assertIn(f'reaches {k} in {reach} of 126', line)
        self.assertIn('differ more than', line)

    def test_too_few_runs(self):
        rows = [r for r in self.rows(1.0) if r['run'] == 1]
        self.assertIsNone(summarize.Report(rows, ['N', 'N2'], 'N').aa_split(['walk'], ['all']))


def write_run(d, run, t0, slow_from=None, stall=None, fill=True):
    """a synthetic run of three 10 s phases: marks, 100 ms samples, batch log, pgbench logs"""
    epoch0 = 1_700_000_000_000
    ph = [('alone', 0), ('start', 10_000), ('busy', 20_000), ('end', 30_000)]
    with open(os.path.join(d, run + '.marks'), 'w') as f:
        for i, (n, t) in enumerate(ph):
            f.write(f'{n} {t0 + t} {epoch0 + t} {i * 1000} {i * 2000} 0 {i * 3000} '
                    f'zswpout={i * 100},zswpin={i},zswpwb=0,pswpin={i * 5},pswpout={i * 50},\n')
    with open(os.path.join(d, run + '.samples'), 'w') as f:
        for k in range(301):
            t = t0 + k * 100
            zo = min(k, 150) * 10          # the pool stops taking stores at 15 s ...
            po = k * 5                      # ... while swap-out continues
            f.write(f'{t} {min(k, 200) * 1000} 0 200000 0 {zo} 0 {po} 0 {k * 10} {k * 20} {k * 30} '
                    f'0 0 0 -1 0 {k * 100} {k * 50000} {k * 70000} {k // 10} {k // 20}\n')
    with open(os.path.join(d, run + '.batch.log'), 'w') as f:
        for k in range(61):
            t = t0 + k * 500
            ops = k * 1000 if k < 20 else 20000 + (k - 20) * 3000
            f.write(f'{t} {ops} {min(ops, 20000)}\n' if fill else f'{t} {ops}\n')
    rng = random.Random(run)
    for name, a, b in (('alone', 0, 10_000), ('start', 10_000, 20_000), ('busy', 20_000, 30_000)):
        with open(os.path.join(d, f'{run}.pg.{name}.tx.1234'), 'w') as f:
            for j, s in enumerate(range(a, b, 20)):  # scheduled every 20 ms
                lat = 2000 + rng.randrange(500)
                if slow_from is not None and s >= slow_from:
                    lat *= 3
                if stall and stall[0] <= s < stall[1]:
                    lat = stall[1] - s + 2000 * 1000 // 1000  # waits until the stall ends
                    lat *= 1000
                end = epoch0 + s + lat // 1000
                f.write(f'0 {j} {lat} 0 {end // 1000} {(end % 1000) * 1000} 0\n')


def synthetic_dir(d, speed=None, vcpus=False):
    """speed: {cfg: CPU-loop ms} to record `zbench speed` around each run (fault ms = 2x,
    the after-run probe 2% slower, a per-run jitter of +-1%); vcpus: also the probe pinned
    to each of two vCPUs, vCPU 1 twice as slow as vCPU 0"""
    runs = []
    t0 = 100_000
    order = [('N', 1), ('N2', 1), ('X', 1), ('N', 2), ('X', 2), ('N2', 2), ('X', 3), ('N2', 3), ('N', 3)]
    write_run(d, 'N.walk.w0', t0)
    runs.append('run=N.walk.w0 cfg=N batch=walk idx=0 limit_kB=200000 warmup=1 secs=40')
    for i, (c, k) in enumerate(order):
        run = f'{c}.walk.r{k}'
        write_run(d, run, t0 + (i + 1) * 60_000, slow_from=20_000 if c == 'X' else None,
                  stall=(12_000, 15_000) if c == 'X' else None)
        sp = ''
        if speed:
            v = speed[c] * (1 + 0.01 * (k - 2))
            sp = (f' speed_cpu_ms={v:.0f} speed_fault_ms={2 * v:.0f} speed_end_cpu_ms={1.02 * v:.0f} '
                  f'speed_end_fault_ms={2.04 * v:.0f}')
            if vcpus:  # the pinned probe: vCPU 1 twice as slow as vCPU 0, their mean as above
                sp += ''.join(f' speed{e}_cpu{j}_ms={f * v * (1 + j) / 1.5:.0f}'
                              for e, f in (('', 1), ('_end', 1.02)) for j in (0, 1))
        runs.append(f'run={run} cfg={c} batch=walk idx={k} limit_kB=200000 secs=40' + sp)
    open(os.path.join(d, 'runs.txt'), 'w').write('\n'.join(runs) + '\n')
    open(os.path.join(d, 'env.txt'), 'w').write(
        "kernel=test\nseed=42\nsettings=RUNS=3 CONFIGS='N N2 X' AA='N N2'\nschedule=alone:10:busy:off start:10:busy:on busy:10:busy:on\n")
    open(os.path.join(d, 'calib.txt'), 'w').write('ok=1\nratio=50\n')


def run_main(args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = summarize.main(args)
    return rc, out.getvalue()


class Summary(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix='zt-bench-test.')
        synthetic_dir(self.d)

    def tearDown(self):
        shutil.rmtree(self.d)

    def rows(self):
        store = summarize.Store(self.d)
        return summarize.extract(self.d, store, summarize.read_runs(self.d), plot=False)[0]

    def test_stalled_seconds_count_over_the_slo(self):
        rows = self.rows()
        x = [r for r in rows if r['cfg'] == 'X' and r['phase'] == 'start']
        n = [r for r in rows if r['cfg'] == 'N' and r['phase'] == 'start' and not r['warmup']]
        # the 3 s stall: no completion for about 3 s, every one of those seconds is over
        self.assertGreaterEqual(x[0]['slo_over_s'], 3)
        self.assertEqual(n[0]['slo_over_s'], 0)

    def test_seconds_over_without_completions(self):
        # one transaction scheduled at 0 ms, completed at 4500 ms; SLO 100 ms
        over = summarize.seconds_over([(4500, 4_500_000)], 100_000, 0, 0, 6)
        self.assertEqual(over, {0, 1, 2, 3, 4})

    def test_fill_and_reread_split(self):
        r = [r for r in self.rows() if r['cfg'] == 'N' and r['phase'] == 'busy'][0]
        self.assertAlmostEqual(r['batch_fill_ops_s'], 0.0)
        self.assertAlmostEqual(r['batch_reread_ops_s'], 6000.0, delta=1)
        r = [r for r in self.rows() if r['cfg'] == 'N' and r['phase'] == 'alone'][0]
        self.assertAlmostEqual(r['batch_fill_ops_s'], r['batch_ops_s'])

    def test_rejecting_and_cpu_pressure(self):
        r = {x['phase']: x for x in self.rows() if x['cfg'] == 'N' and x['run'] == 1 and not x['warmup']}
        self.assertEqual(r['alone']['pool_reject_frac'], 0.0)
        self.assertGreater(r['busy']['pool_reject_frac'], 0.8)
        self.assertAlmostEqual(r['busy']['psi_cpu_svc_pct'], 50.0, delta=0.5)
        self.assertAlmostEqual(r['busy']['psi_cpu_batch_pct'], 70.0, delta=0.5)
        self.assertGreater(r['busy']['pool_limit_hit'], 0)

    def test_summary_aa_warmup_and_reproduction_from_raw(self):
        rc, first = run_main([self.d])
        self.assertEqual(rc, 0)
        m = re.search(r'A/A: (\d+) of (\d+) comparisons flagged', first)
        self.assertTrue(m)
        self.assertEqual(m.group(1), '0')
        self.assertIn('N.walk.w0 (warm-up)', first)
        self.assertIn('Warm-up: N.walk.w0 ran first in the boot and is discarded', first)
        self.assertIn('Order seed 42', first)
        self.assertRegex(first, r'\| X \| [^|]*\| [^|]*\| [0-9.]+ \([0-9.]+ \[[0-9.]+-[0-9.]+\]\)')
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(summarize.main(['--pack', self.d]), 0)
        for n in os.listdir(self.d):
            if '.walk.' in n:
                os.unlink(os.path.join(self.d, n))
        os.unlink(os.path.join(self.d, 'results.csv'))
        rc, again = run_main([self.d])
        self.assertEqual(rc, 0)
        strip = lambda s: '\n'.join(l for l in s.splitlines() if not l.startswith('Source:'))  # noqa: E731
        self.assertEqual(strip(first), strip(again))
        self.assertTrue(os.path.exists(os.path.join(self.d, 'results.csv')))

    def test_predecessors(self):
        # runs.txt order: N.w0 (warm-up), N N2 X | N X N2 | X N2 N
        pre = summarize.predecessors(summarize.read_runs(self.d))
        self.assertEqual(pre, {'N': {'N': 1, 'X': 1, 'N2': 1}, 'N2': {'N': 1, 'X': 2}, 'X': {'N2': 2, 'N': 1}})
        rc, out = run_main([self.d])
        self.assertNotIn('Predecessors', out)  # a boot from before order_plan: its summary as it was
        with open(os.path.join(self.d, 'env.txt'), 'a') as f:
            f.write('order=balanced\n')
        rc, out = run_main([self.d])
        self.assertIn('the rounds drawn so that each configuration follows the others about equally often', out)
        self.assertIn('Predecessors (the run just before; a warm-up run counts): `N` after N 1, N2 1, X 1; '
                      '`N2` after N 1, X 2; the most any configuration followed one other: 2 (`X` after `N2`).', out)

    def test_no_speed_probe_no_speed_line(self):
        rc, out = run_main([self.d])
        self.assertNotIn('Guest speed', out)

    def test_speed_per_vcpu(self):
        synthetic_dir(self.d, speed={'N': 1200, 'N2': 1200, 'X': 1200})
        rc, out = run_main([self.d])
        self.assertNotIn('pinned to each vCPU', out)
        synthetic_dir(self.d, speed={'N': 1200, 'N2': 1200, 'X': 1200}, vcpus=True)
        rc, out = run_main([self.d])
        m = re.search(r'pinned to each vCPU[^:]*: vCPU 0 ([0-9]+) \[[0-9]+-[0-9]+\], vCPU 1 ([0-9]+) ', out)
        self.assertTrue(m, out)
        v0, v1 = map(int, m.groups())
        self.assertAlmostEqual(v0, 808, delta=2)  # 1200 / 1.5 x (1 + 1.02) / 2
        self.assertAlmostEqual(v1, 2 * v0, delta=2)

    def test_speed_of_the_twin(self):
        synthetic_dir(self.d, speed={'N': 1000, 'N2': 1100, 'X': 1000})
        rc, out = run_main([self.d])
        m = re.search(r'A/A twin `N2` against `N`: CPU loop ([0-9.]+)x \[([0-9.]+)-([0-9.]+)\], '
                      r'page faults ([0-9.]+)x', out)
        self.assertTrue(m, out)
        ratio, lo, hi, faults = map(float, m.groups())
        self.assertAlmostEqual(ratio, 1.10, places=2)
        self.assertGreater(lo, 1.0)
        self.assertAlmostEqual(faults, 1.10, places=2)
        self.assertIn('(an interval that excludes 1: the twin', out)
        synthetic_dir(self.d, speed={'N': 1000, 'N2': 1000, 'X': 1000})
        rc, same = run_main([self.d])
        self.assertNotIn('an interval that excludes 1', same)
        self.assertIn('(both include 1: no sign that the twin met a slower or faster guest)', same)
        synthetic_dir(self.d, speed={'N': 1000, 'N2': 1100, 'X': 1000})
        rc, out = run_main([self.d])
        self.assertRegex(out, r'`N` 10[0-9]{2} \[[0-9]+-[0-9]+\] / 20[0-9]{2}')
        # the service is slow in X's runs (3x from 20 s), and X's guest is as fast as N's:
        # no correlation can come from the A/A runs, whose service is the same
        self.assertRegex(out, r'over all counted runs \(n = 9\) r = ')
        synthetic_dir(self.d, speed={'N': 1000, 'N2': 1000, 'X': 1000})
        rc, out = run_main([self.d])
        m = re.search(r'CPU loop ([0-9.]+)x \[([0-9.]+)-([0-9.]+)\]', out)
        self.assertLessEqual(float(m.group(2)), 1.0)
        self.assertGreaterEqual(float(m.group(3)), 1.0)

    def test_results_csv_alone_keeps_the_warmup_out(self):
        rc, first = run_main([self.d])
        for n in os.listdir(self.d):
            if '.walk.' in n:
                os.unlink(os.path.join(self.d, n))
        rc, again = run_main([self.d])
        self.assertEqual(rc, 0)
        self.assertIn('Source: results.csv only', again)
        self.assertIn('`N` x3', again)
        aa = lambda s: re.search(r'A/A: \d+ of \d+', s).group(0)  # noqa: E731
        self.assertEqual(aa(first), aa(again))

    def test_old_batch_log_without_fill(self):
        write_run(self.d, 'N.walk.r1', 160_000, fill=False)
        r = [r for r in self.rows() if r['cfg'] == 'N' and r['run'] == 1 and not r['warmup']][0]
        self.assertIsNone(r['batch_fill_ops_s'])


def phase_rows(values, phases=('a', 'b'), metric='svc_p99_ms'):
    """rows of a boot from {cfg: {phase: [value per run]}} (10 s phases, batch walk)"""
    rows = []
    for c, per in values.items():
        for ph in phases:
            for i, v in enumerate(per[ph], 1):
                rows.append({'cfg': c, 'batch': 'walk', 'run': i, 'phase': ph, 'dur_s': 10.0, 'warmup': 0,
                             metric: v})
    return rows


class Issue47(unittest.TestCase):
    """the audit of issue 47: one mean (geometric) for the best static and the ratios; the
    calibration failure and the panics said in every summary; the headroom table"""

    def test_best_static_is_chosen_by_the_geometric_mean(self):
        # A: one slow run of five (arithmetic mean 20.8, geometric 2.5); B: 10 every run.
        # The arithmetic mean chose B; the ratios (geometric) say A is 0.25x B
        rows = phase_rows({'A': {'a': [1, 1, 1, 1, 100]}, 'B': {'a': [10] * 5}, 'Z': {'a': [5] * 5}},
                          phases=('a',))
        for r in rows:
            r['cfg'] = {'A': 'N', 'B': 'Y', 'Z': 'zt'}[r['cfg']]
        rep = summarize.Report(rows, None, 'N')
        self.assertAlmostEqual(rep.gmean('N', 'walk', 'a', 'svc_p99_ms'), 100 ** 0.2)
        out = io.StringIO()
        summarize.report('.', rows, None, 'N', {}, {'ok': '1'}, {}, [], None, 'test', '', out)
        self.assertRegex(out.getvalue(), r'\| a \| svc p99 ms \| N \| 2\.51 \| 5\.00 \(1\.99x')
        self.assertIn('| hindsight best static | 2.51 N /', out.getvalue())

    def test_calibration_failure_is_said_with_its_ratio(self):
        out = io.StringIO()
        rows = phase_rows({'N': {'a': [1, 2]}}, phases=('a',))
        rc = summarize.report('.', rows, None, 'N', {}, {'ok': '1', 'ratio': '42.2', 'range': '30-100'},
                              {'ok': '0', 'ratio': '28.7', 'range': '30-100'}, [], None, 'test', '', out)
        self.assertEqual(rc, 3)
        self.assertIn('**CALIBRATION FAILED (at the end of the boot: 28.7x, outside 30-100)', out.getvalue())
        self.assertIn('#### Whole run, batch `walk` (CALIBRATION FAILED: at the end of the boot: 28.7x',
                      out.getvalue())

    def test_panics_are_counted_in_the_summary(self):
        self.assertEqual(summarize.panic_line({'cpu': 'max,-cx16', 'console_logs': '2', 'kernel_panics': '1',
                                               'oopses': '1', 'double_faults': '1',
                                               'panics_before_userspace': '1'}),
                         'Guest panics (qemu `-cpu max,-cx16`, 2 console log(s) of this boot): 1 kernel panics, '
                         '1 double faults, 1 oopses; 1 before userspace (booted again).')
        self.assertIn('did not count panics', summarize.panic_line({'panics_before_userspace': '0'}))

    def headroom(self, values, aa=('T', 'T2')):
        rows = phase_rows(values)
        rep = summarize.Report(rows, list(aa), aa[0])
        h = summarize.headroom(rep, 'walk', ['N', 'Y'], 'svc_p99_ms', 'logmean')
        f = summarize.headroom(rep, 'walk', list(aa), 'svc_p99_ms', 'logmean')
        return h, f

    def test_headroom_where_the_best_static_changes_by_phase(self):
        # N is 10 ms in phase a and 20 in b, Y the other way round: per phase 10 and 10, the
        # best single static sqrt(10 * 20) = 14.1 (duration-weighted geometric mean): +41%
        jit = [1.0, 1.02, 0.98, 1.01]
        h, f = self.headroom({'N': {'a': [10 * j for j in jit], 'b': [20 * j for j in jit]},
                              'Y': {'a': [20 * j for j in jit], 'b': [10 * j for j in jit]},
                              'T': {'a': [15 * j for j in jit], 'b': [15 * j for j in jit]},
                              'T2': {'a': [15 * j for j in reversed(jit)], 'b': [15 * j for j in jit]}})
        self.assertEqual(dict(h['per']), {'a': 'N', 'b': 'Y'})
        self.assertAlmostEqual(h['gain'], math.sqrt(2) - 1, places=2)
        self.assertAlmostEqual(h['cv'], math.sqrt(2) - 1, places=2)  # odd and even rounds agree
        self.assertEqual(len(h['folds']), 2)
        self.assertLess(f['gain'], 0.05)  # two names for one configuration: noise only

    def test_no_headroom_where_one_static_is_best_everywhere(self):
        jit = [1.0, 1.1, 0.9, 1.05]
        h, f = self.headroom({'N': {'a': [10 * j for j in jit], 'b': [10 * j for j in jit]},
                              'Y': {'a': [20 * j for j in jit], 'b': [20 * j for j in jit]},
                              'T': {'a': [15 * j for j in jit], 'b': [15 * j for j in jit]},
                              'T2': {'a': [15 * j for j in reversed(jit)], 'b': [15 * j for j in jit]}})
        self.assertEqual(h['best'], 'N')
        self.assertEqual(h['gain'], 0.0)
        self.assertEqual(h['cv'], 0.0)

    def test_cross_validation_sees_through_noise(self):
        # N and Y the same but for noise that flips from round to round: in-sample per-phase
        # picking gains, judged on the other half it does not
        h, _ = self.headroom({'N': {'a': [10, 14, 10, 14], 'b': [14, 10, 14, 10]},
                              'Y': {'a': [14, 10, 14, 10], 'b': [10, 14, 10, 14]},
                              'T': {'a': [12] * 4, 'b': [12] * 4}, 'T2': {'a': [12] * 4, 'b': [12] * 4}})
        self.assertLess(h['cv'], 0.0)

    def test_headroom_command_on_a_fixture(self):
        # one command: summarize.py --headroom DIR, here on a results.csv without raw data
        with tempfile.TemporaryDirectory() as d:
            rows = phase_rows({'N': {'a': [10, 10.2, 9.8, 10.1], 'b': [20, 20.4, 19.6, 20.2]},
                               'Y': {'a': [20, 20.4, 19.6, 20.2], 'b': [10, 10.2, 9.8, 10.1]},
                               'N2': {'a': [20, 20.4, 19.6, 20.2], 'b': [20, 20.4, 19.6, 20.2]}})
            keys = ['cfg', 'batch', 'run', 'phase', 'dur_s', 'warmup', 'svc_p99_ms']
            with open(os.path.join(d, 'results.csv'), 'w') as f:
                f.write(','.join(keys) + '\n')
                for r in rows:
                    f.write(','.join(str(r[k]) for k in keys) + '\n')
            open(os.path.join(d, 'runs.txt'), 'w').write('run=N.walk.r1 cfg=N batch=walk idx=1\n')
            open(os.path.join(d, 'env.txt'), 'w').write("settings=RUNS=4 CONFIGS='N N2 Y' AA='N N2'\n")
            rc, out = run_main(['--headroom', d])
            self.assertEqual(rc, 0)
            name = os.path.basename(d)
            self.assertRegex(out, rf'\| {name} \| N, Y \| svc p99 \| [NY] \| a N, b Y \| \+41\.4% \| '
                                  r'\+41\.4% \| [-+0-9.]+% / [-+0-9.]+% \| \*\*yes\*\* \|')
            self.assertIn(f'`{name}`: headroom on svc p99', out)
            self.assertEqual(sorted(os.listdir(d)), ['env.txt', 'results.csv', 'runs.txt'])


class SharedDisk(unittest.TestCase):
    """the shared-disk family (issue 47): pgbench's latency limit and the new statics"""

    def test_late_and_skipped_transactions_per_phase(self):
        with tempfile.TemporaryDirectory() as d:
            synthetic_dir(d)
            # pgbench 15's summary (as the shared-disk smoke boot printed it): the late ones
            # out of those processed, the skipped ones apart
            for ph, (late, skipped, tot) in (('alone', (0, 0, 500)), ('start', (20, 5, 500)), ('busy', (5, 0, 500))):
                with open(os.path.join(d, f'N.walk.r1.pg.{ph}.out'), 'w') as f:
                    f.write(f'number of transactions actually processed: {tot - skipped}\n'
                            f'number of transactions skipped: {skipped} ({100 * skipped / tot:.3f}%)\n'
                            f'number of transactions above the 200.0 ms latency limit: {late}/{tot - skipped} '
                            f'({100 * late / (tot - skipped):.3f}%)\n')
            rows = summarize.extract(d, summarize.Store(d), summarize.read_runs(d), plot=False)[0]
            got = {r['phase']: r['svc_late_pct'] for r in rows if r['cfg'] == 'N' and r['run'] == 1 and not r['warmup']}
            self.assertEqual(got, {'alone': 0.0, 'start': 5.0, 'busy': 1.0, 'all': 2.0})
            # without a latency limit (every other bed) there is no such figure
            self.assertTrue(all(r['svc_late_pct'] is None for r in rows if r['run'] == 2))

    def test_writeback_statics_are_static_settings(self):
        self.assertIn('svc-wb0', summarize.STATIC)
        self.assertIn('batch-wb0', summarize.STATIC)
        self.assertEqual(summarize.cfg_name('svc-wb0'),
                         "N + the service's memory.zswap.writeback=0 (systemd's MemoryZSwapWriteback=no)")


class ConfigNames(unittest.TestCase):
    """A static cap is applied on top of the shrinker value each run starts from; in the
    baseline-y family that is Y, and the summaries once called its caps "N + ..."."""
    def test_cap_on_top_of_the_base_shrinker(self):
        self.assertEqual(summarize.cfg_name('cap0', base_shrinker='Y'), 'Y + batch memory.zswap.max=0')
        self.assertEqual(summarize.cfg_name('cap0'), 'N + batch memory.zswap.max=0')
        self.assertEqual(summarize.cfg_name('N', base_shrinker='Y'), 'static shrinker N')
        self.assertEqual(summarize.cfg_name('caphalf2', {'caphalf2': 'caphalf'}, 'Y'),
                         'Y + batch memory.zswap.max = pool limit / 2, run again under another name '
                         '(the A/A twin of `caphalf`)')


class CommittedData(unittest.TestCase):
    def test_defaults_aa_resummarised(self):
        d = os.path.join(SRC, 'docs', 'bench', 'defaults-aa')
        if not os.path.exists(os.path.join(d, 'phases.csv')):
            self.skipTest('no docs/bench/defaults-aa (no docs/bench in a tarball)')
        before = sorted(os.listdir(d))
        rc, out = run_main([d, '--aa', 'N,zt'])
        self.assertEqual(rc, 0)
        self.assertEqual(sorted(os.listdir(d)), before, 'wrote into a committed directory')
        k, m = map(int, re.search(r'A/A: (\d+) of (\d+)', out).groups())
        self.assertLessEqual(k, 0.1 * m)


class LegacyPlot(unittest.TestCase):
    """legacy-plot.sh on the committed write-once boot, gnuplot stubbed: the warm-up
    run ("w1" in results.csv) once stopped it before any figure was drawn."""

    def test_warmup_run_is_left_out(self):
        src = os.path.join(SRC, 'docs', 'bench', 'write-once-32d38c7')
        if not os.path.exists(os.path.join(src, 'raw', 'runs.tar.xz')):
            self.skipTest('no docs/bench/write-once-32d38c7 (no docs/bench in a tarball)')
        with tempfile.TemporaryDirectory() as d:
            r = os.path.join(d, 'results')
            os.mkdir(r)
            with tarfile.open(os.path.join(src, 'raw', 'runs.tar.xz')) as t:
                if hasattr(tarfile, 'data_filter'):  # Python >= 3.11.4
                    t.extractall(r, filter='data')
                else:
                    t.extractall(r)
            shutil.copy(os.path.join(src, 'results.csv'), r)
            self.assertIn(',w1,', open(os.path.join(r, 'results.csv')).read())
            bindir = os.path.join(d, 'bin')
            os.mkdir(bindir)
            log = os.path.join(d, 'gnuplot.log')
            stub = os.path.join(bindir, 'gnuplot')
            with open(stub, 'w') as f:
                # a gnuplot that records its script and creates the file it was to draw
                f.write('#!/bin/sh\n'
                        'cat "$1" >> "$STUB_LOG"\n'
                        "awk -F\"'\" '/^set output/ { print $2 }' \"$1\" | while read -r o; do : > \"$o\"; done\n")
            os.chmod(stub, 0o755)
            env = dict(os.environ, PATH=bindir + os.pathsep + os.environ['PATH'], STUB_LOG=log)
            p = subprocess.run(['bash', os.path.join(SRC, 'tests', 'bench', 'legacy-plot.sh'), r],
                               env=env, capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(sorted(x for x in os.listdir(r) if x.startswith('timeline-')),
                             ['timeline-N.png', 'timeline-N2.png', 'timeline-Y.png', 'timeline-zt.png'])
            gp = open(log).read()
            self.assertIn('.mixed.r5.dat', gp)
            self.assertNotIn('.w1.', gp)  # the warm-up's files (not 'w1' in a random temp name)


def tap():
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])
    tests = []

    def flat(s):
        for t in s:
            if isinstance(t, unittest.TestSuite):
                flat(t)
            else:
                tests.append(t)
    flat(suite)
    print(f'1..{len(tests)}')
    failed = 0
    for i, t in enumerate(tests, 1):
        r = unittest.TestResult()
        t.run(r)
        name = t.id().split('.', 1)[1]
        if r.skipped:
            print(f'ok {i} - {name} # SKIP {r.skipped[0][1]}')
        elif r.wasSuccessful():
            print(f'ok {i} - {name}')
        else:
            failed += 1
            print(f'not ok {i} - {name}')
            for _, tb in r.failures + r.errors:
                print('\n'.join('# ' + line for line in tb.splitlines()))
    return 1 if failed else 0


if __name__ == '__main__':
    if '--tap' in sys.argv:
        sys.exit(tap())
    unittest.main()
