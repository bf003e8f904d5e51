# SPDX-License-Identifier: GPL-2.0-or-later
"""Statistics of the benchmark summary (issue 23), python3 standard library only.

With 5-6 runs per configuration a percentile bootstrap cannot give a 95% interval (with 3
runs it has 10 distinct resamples, and its intervals come out far too narrow: 27 of 71
comparisons flagged between two configurations that are the same to the kernel). Here:

  * every ratio is a ratio of geometric means, and its 95% interval is Welch's t interval on
    the difference of the mean logarithms, exponentiated:
        d = mean(log(a + c)) - mean(log(b + c)),  se = sqrt(s_a^2/n_a + s_b^2/n_b),
        df = se^4 / ((s_a^2/n_a)^2/(n_a-1) + (s_b^2/n_b)^2/(n_b-1))   (Welch-Satterthwaite),
        ratio = exp(d),  interval = exp(d -/+ t(0.975, df) * se);
    c = 0 when every value of the metric in that phase is positive, otherwise an offset
    (offset()) that keeps zeros finite: a mix of zeros and non-zeros then gives a wide
    interval, never a spuriously narrow one;
  * as a cross-check an exact two-sided permutation test of the same difference of mean
    logs (every split of the pooled runs when there are at most 20000, else 20000 seeded
    random splits);
  * the minimum detectable effect (MDE) of a metric in a phase, from the A/A pair (one
    configuration run twice under two names):
        s_p = sqrt(((n_1-1) s_1^2 + (n_2-1) s_2^2) / (n_1 + n_2 - 2))   (pooled SD of the logs),
        MDE = exp(t(0.975, n_1 + n_2 - 2) * s_p * sqrt(1/n_1 + 1/n_2))
    (= exp(t * s_p * sqrt(2/n)) with n runs each): the half-width of the interval the bed
    gives two equal configurations, i.e. the smallest ratio it resolves (with about 50%
    power) at this n. A comparison whose ratio lies within [1/MDE, MDE] is "n.d." even when
    its interval excludes 1.
The Student t distribution comes from the regularised incomplete beta function (continued
fraction, Numerical Recipes 6.4); t_ppf inverts it by bisection."""
import itertools
import math
import random
import statistics as st

LEVEL = 0.95


# ---------------------------------------------------------------- Student t, from scratch
def _betacf(a, b, x):
    fpmin = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) >= fpmin else fpmin)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) >= fpmin else fpmin)
        c = 1.0 + aa / c
        c = c if abs(c) >= fpmin else fpmin
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) >= fpmin else fpmin)
        c = 1.0 + aa / c
        c = c if abs(c) >= fpmin else fpmin
        de = d * c
        h *= de
        if abs(de - 1.0) < 1e-15:
            break
    return h


def betai(a, b, x):
    """regularised incomplete beta function I_x(a, b)"""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


def t_cdf(t, df):
    if math.isinf(df):
        return st.NormalDist().cdf(t)
    tail = 0.5 * betai(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


def t_ppf(p, df):
    """quantile of Student's t with df (> 0, not necessarily whole) degrees of freedom"""
    if math.isinf(df):
        return st.NormalDist().inv_cdf(p)
    if p < 0.5:
        return -t_ppf(1.0 - p, df)
    if p == 0.5:
        return 0.0
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        lo, hi = hi, hi * 2.0
    for _ in range(100):
        mid = (lo + hi) / 2.0
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


# ---------------------------------------------------------------- helpers
def offset(values, resolution=0.0):
    """c for log(x + c): 0 when every value is positive; else the larger of the metric's
    resolution (1 for counts) and 1% of the mean of the positive values (1 when all are 0)"""
    v = [x for x in values if x is not None]
    if v and min(v) > 0:
        return 0.0
    pos = [x for x in v if x > 0]
    if not pos:
        return 1.0
    return max(resolution, 0.01 * st.mean(pos))


def _logs(v, c):
    if any(x + c <= 0 for x in v):
        return None
    return [math.log(x + c) for x in v]


def constant(v):
    return len(set(v)) <= 1


# ---------------------------------------------------------------- the interval
def welch_log(a, b, c=0.0, level=LEVEL):
    """Welch interval of the ratio of geometric means of a to b (each + c).
    Returns dict(ratio, lo, hi, df, degenerate) or None (fewer than 2 runs on a side, or a
    value at or below -c). degenerate: both samples constant (zero variance): the ratio is
    exact, lo == hi == ratio."""
    if len(a) < 2 or len(b) < 2:
        return None
    la, lb = _logs(a, c), _logs(b, c)
    if la is None or lb is None:
        return None
    d = st.mean(la) - st.mean(lb)
    va, vb = st.variance(la) / len(la), st.variance(lb) / len(lb)
    se2 = va + vb
    if se2 <= 0.0 or se2 < 1e-24 * (1 + d * d):
        r = math.exp(d)
        return {'ratio': r, 'lo': r, 'hi': r, 'df': math.inf, 'degenerate': True}
    df = se2 * se2 / ((va * va / (len(la) - 1) if va else 0.0) + (vb * vb / (len(lb) - 1) if vb else 0.0))
    t = t_ppf(1.0 - (1.0 - level) / 2.0, df)
    se = math.sqrt(se2)
    return {'ratio': math.exp(d), 'lo': math.exp(d - t * se), 'hi': math.exp(d + t * se), 'df': df,
            'degenerate': False}


def perm_p(a, b, c=0.0, max_exact=20000, draws=20000, seed=20261204):
    """two-sided permutation p-value of mean(log(a+c)) - mean(log(b+c))"""
    la, lb = _logs(a, c), _logs(b, c)
    if la is None or lb is None or not la or not lb:
        return None
    pool = la + lb
    na, n = len(la), len(la) + len(lb)
    tot = sum(pool)
    obs = abs(st.mean(la) - st.mean(lb))
    eps = 1e-12 * (1.0 + obs)

    def stat(idx):
        s = sum(pool[i] for i in idx)
        return abs(s / na - (tot - s) / (n - na))
    if math.comb(n, na) <= max_exact:
        splits = itertools.combinations(range(n), na)
        k = m = 0
        for idx in splits:
            m += 1
            k += stat(idx) >= obs - eps
        return k / m
    rng = random.Random(seed)
    k = 1  # the observed split counts once
    for _ in range(draws):
        k += stat(rng.sample(range(n), na)) >= obs - eps
    return k / (draws + 1)


def mde(a, b, c=0.0, level=LEVEL):
    """minimum detectable ratio from an A/A pair: exp(t(1-alpha/2, n1+n2-2) * s_p *
    sqrt(1/n1 + 1/n2)), s_p the pooled SD of the logs; None with fewer than 2 runs a side"""
    if len(a) < 2 or len(b) < 2:
        return None
    la, lb = _logs(a, c), _logs(b, c)
    if la is None or lb is None:
        return None
    df = len(la) + len(lb) - 2
    sp = math.sqrt(((len(la) - 1) * st.variance(la) + (len(lb) - 1) * st.variance(lb)) / df)
    return math.exp(t_ppf(1.0 - (1.0 - level) / 2.0, df) * sp * math.sqrt(1.0 / len(la) + 1.0 / len(lb)))


def compare(a, b, c=0.0, mde_ratio=None, level=LEVEL):
    """a against b: dict(ratio, lo, hi, df, degenerate, excludes1, flagged, nd, why) or None.
    flagged: the interval excludes 1 and the ratio is outside [1/MDE, MDE] (when an MDE is
    known); nd = not flagged. why: 'equal' (both constant and equal), 'ci' (the interval
    includes 1), 'mde' (excludes 1 but within the MDE), '' (flagged)."""
    w = welch_log(a, b, c, level)
    if w is None:
        return None
    excl = not (w['lo'] <= 1.0 <= w['hi']) and not (w['degenerate'] and abs(w['ratio'] - 1.0) < 1e-12)
    within = mde_ratio is not None and 1.0 / mde_ratio <= w['ratio'] <= mde_ratio
    w['excludes1'] = excl
    w['flagged'] = excl and not within
    w['nd'] = not w['flagged']
    if w['degenerate'] and not excl:
        w['why'] = 'equal'
    elif not excl:
        w['why'] = 'ci'
    elif within:
        w['why'] = 'mde'
    else:
        w['why'] = ''
    return w
