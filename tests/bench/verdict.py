"""Verdicts that reproduce: every benchmark figure with its spread, every
target judged on an interval instead of on one lucky run (issue 29).

A benchmark measures each case in several independent rounds (alternating
what it compares, so that drift hits both sides alike) and hands the
per-round figures here:

    iv = ratio_interval(ring_rounds, local_rounds)   # paired round by round
    tally.judge("rect1 ring/local", iv, 0.9)         # 'met', 'missed', 'undecided'

The interval (method): a Student-t 95% confidence interval of the mean of
the logarithms of the per-round figures (for a ratio: of the per-round
ratios when the rounds are paired, Welch's interval of the difference of
the log means when they are not), turned back by exp: an interval of the
geometric mean, symmetric in ratio terms (x0.9 and x1.1 weigh alike). Why
this and not min-max or a bootstrap: the t quantile and the 1/sqrt(n) both
widen the interval as rounds get fewer (n = 3: t = 4.30; n = 6: 2.57), so
a --quick run with fewer or shorter, noisier rounds decides less rather
than differently; min-max and a percentile bootstrap of 3 rounds never
reach beyond the 3 values seen, so they are narrower with fewer rounds and
a short run would decide more, and sometimes differently. One round gives
no interval: undecided. Limits: a 95% interval misses the true value one
time in twenty, and the machine's load changes the true value of a ratio
that needs two free cores; compare() finds the flips that remain.

Verdicts against a target (higher is better unless said):
  met        the whole interval clears the target
  missed     the whole interval misses it
  undecided  the interval straddles it (or there is only one round)
and a warning, "wide", when the interval spans more than WIDE (hi/lo),
i.e. the machine moved too much during the run to judge anything close.

Only the standard library: the statistics must not depend on numpy being
importable (the smoke runs and the unit test run under any python3).
"""
import csv
import math
import os
import statistics
import sys

# An interval wider than this (hi / lo, about +-12% around the middle) is
# flagged: too wide to judge a target within that distance.
WIDE = 1.25

# Student-t quantiles t(0.975, df) for df = 1..30 (two-sided 95%).
_T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
         2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
         2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t975(df):
    """t(0.975, df); beyond the table the Cornish-Fisher expansion around
    the normal quantile (good to 1e-3 from df 30 on). df may be fractional
    (Welch): the table is interpolated."""
    if df < 1:
        return math.inf
    if df <= 30:
        lo = int(math.floor(df))
        if lo == df or lo >= 30:
            return _T975[lo - 1]
        a, b = _T975[lo - 1], _T975[lo]
        return a + (b - a) * (df - lo)
    z = 1.959964
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)


class Interval:
    """A figure measured in rounds: its median, the min and max of the
    rounds, and the 95% interval (lo, hi) that verdicts are judged on."""

    def __init__(self, values, lo, hi, scale=None):
        self.values = list(values)
        self.scale = scale
        self.n = len(self.values)
        self.median = statistics.median(self.values) if self.values else math.nan
        self.min = min(self.values) if self.values else math.nan
        self.max = max(self.values) if self.values else math.nan
        self.lo, self.hi = lo, hi

    @property
    def decided(self):
        return math.isfinite(self.lo) and math.isfinite(self.hi)

    @property
    def wide(self):
        """Too wide to judge anything within WIDE of it (or undefined). A
        plain (not log) interval is measured against its scale, the size
        of what it is judged against (a count near 0 against a target of
        1: [0.00-0.02] is narrow)."""
        if not self.decided:
            return True
        if self.scale is not None:
            return self.hi - self.lo > (WIDE - 1) * self.scale
        if self.lo <= 0:
            return self.hi > self.lo
        return self.hi / self.lo > WIDE

    def text(self, prec=2):
        """'0.95 [0.91-0.99]': median, then the interval; '[-]' for none."""
        if not self.values:
            return "-"
        if not self.decided:
            return f"{self.median:.{prec}f} [-]"

        def num(v):  # an interval of 2 rounds can reach 1e18: keep it short
            return f"{v:.{prec}f}" if abs(v) < 1e5 else f"{v:.1e}"
        return f"{num(self.median)} [{num(self.lo)}-{num(self.hi)}]"

    def __repr__(self):
        return f"Interval({self.text(4)}, n={self.n})"


def _t_interval(xs, sd_floor=None):
    """95% t interval of the mean of xs: (lo, hi), infinite for n < 2. The
    spread is the sample's standard deviation, or sd_floor if that is larger
    (see typical_log_sd)."""
    n = len(xs)
    if n < 2:
        return -math.inf, math.inf
    m = statistics.fmean(xs)
    h = t975(n - 1) * max(statistics.stdev(xs), sd_floor or 0.0) / math.sqrt(n)
    return m - h, m + h


def typical_log_sd(samples):
    """The typical round-to-round spread of one kind of figure in one run:
    the median, over the cases (each a list of per-round figures, e.g. each
    case's per-round ring/local ratios), of the standard deviation of their
    logarithms; None without a case of two rounds. Used as a floor on each
    case's own spread (sd_floor): with 3-6 rounds a case's own standard
    deviation is a poor estimate (3 rounds that happen to agree give a
    narrow interval while the machine moved everything else in that run), and
    the machine's noise is shared by the cases measured side by side. The
    median, not a pooled mean, so that a few cases noisy by nature (a
    bimodal one) do not widen every other case's interval. A floor only
    widens intervals: it can turn a verdict into undecided, never into the
    opposite one."""
    sds = sorted(statistics.stdev(math.log(v) for v in xs)
                 for xs in samples if len(xs) >= 2 and all(v > 0 for v in xs))
    return statistics.median(sds) if sds else None


def _exp(lo, hi):
    return (math.exp(lo) if math.isfinite(lo) else 0.0,
            math.exp(hi) if math.isfinite(hi) else math.inf)


def _positive(values, what):
    values = [float(v) for v in values]
    bad = [v for v in values if not v > 0]
    if bad:
        raise ValueError(f"{what}: non-positive figures {bad[:3]}")
    return values


def value_interval(values, log=True, scale=None, sd_floor=None):
    """A positive figure (a rate, a latency) measured once per round. log:
    the interval of the geometric mean (rates and times are judged in
    proportion); log=False: of the plain mean, for figures that may be 0
    (a count per 10,000 commands, a share), whose width is "wide" against
    scale (default: the median's size). sd_floor (log only): the least
    spread of the logs to assume (typical_log_sd)."""
    if not log:
        values = [float(v) for v in values]
        lo, hi = _t_interval(values)
        if scale is None and values:
            scale = abs(statistics.median(values))
        return Interval(values, lo, hi, scale)
    values = _positive(values, "value_interval")
    lo, hi = _exp(*_t_interval([math.log(v) for v in values], sd_floor))
    if hi == math.inf:
        lo = -math.inf
    return Interval(values, lo, hi)


def ratio_interval(num, den, paired=True, sd_floor=None):
    """num/den from per-round figures. paired: num[i] and den[i] were
    measured side by side in round i (the ratio of each round is the
    sample; drift common to both cancels). Unpaired (measured at different
    times, e.g. x11perf after smt-perf): Welch's interval of
    mean(log num) - mean(log den), whose spread carries both sides'.
    sd_floor (paired only): the least spread of the per-round log ratios
    to assume (typical_log_sd)."""
    num, den = _positive(num, "ratio numerator"), _positive(den, "ratio denominator")
    if paired:
        if len(num) != len(den):
            raise ValueError(f"paired ratio of {len(num)} and {len(den)} rounds")
        return value_interval([a / b for a, b in zip(num, den)], sd_floor=sd_floor)
    ln, ld = [math.log(v) for v in num], [math.log(v) for v in den]
    ratios = [a / b for a in num for b in den] if num and den else []
    point = statistics.median(num) / statistics.median(den) if num and den else math.nan
    if len(ln) < 2 or len(ld) < 2:
        iv = Interval(ratios, -math.inf, math.inf)
    else:
        va, vb = statistics.variance(ln) / len(ln), statistics.variance(ld) / len(ld)
        d = statistics.fmean(ln) - statistics.fmean(ld)
        se = math.sqrt(va + vb)
        if se == 0:
            lo = hi = d
        else:
            df = (va + vb) ** 2 / (va ** 2 / (len(ln) - 1) + vb ** 2 / (len(ld) - 1))
            h = t975(df) * se
            lo, hi = d - h, d + h
        iv = Interval(ratios, *_exp(lo, hi))
    # The point figure of an unpaired ratio: the ratio of the medians, not
    # the median of all cross ratios.
    iv.median = point
    return iv


MET, MISSED, UNDECIDED = "met", "missed", "undecided"


def verdict(iv, target, higher=True):
    """Judge an interval against a target: MET when the whole interval
    clears it, MISSED when the whole interval misses it, else UNDECIDED.
    higher: the figure should be >= target; else <= target. target may be
    a (low, high) pair: the figure should lie within it."""
    if iv is None or not iv.decided:
        return UNDECIDED
    if isinstance(target, tuple):
        a, b = target
        if a <= iv.lo and iv.hi <= b:
            return MET
        if iv.hi < a or iv.lo > b:
            return MISSED
        return UNDECIDED
    if higher:
        return MET if iv.lo >= target else MISSED if iv.hi < target else UNDECIDED
    return MET if iv.hi <= target else MISSED if iv.lo > target else UNDECIDED


class Tally:
    """Every target judged in one run; summary() counts all three."""

    def __init__(self):
        self.rows = []   # (name, interval, target, higher, verdict)

    def judge(self, name, iv, target, higher=True):
        v = verdict(iv, target, higher)
        self.rows.append((name, iv, target, higher, v))
        return v

    def record(self, name, iv, target, higher, v):
        """A verdict reached otherwise (all_of over several intervals); iv
        the one to show beside it (the closest to the target)."""
        self.rows.append((name, iv, target, higher, v))
        return v

    def count(self, v):
        return sum(1 for r in self.rows if r[4] == v)

    def wide(self):
        return [r[0] for r in self.rows if r[1] is not None and r[1].wide]

    FIELDS = ["target", "median", "lo", "hi", "rounds", "threshold", "better", "verdict",
              "wide"]

    def write(self, path):
        """Every verdict of the run as CSV (FIELDS), for compare()."""
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(self.FIELDS)
            for name, iv, target, higher, v in self.rows:
                w.writerow([name] + ([f"{iv.median:.6g}", f"{iv.lo:.6g}", f"{iv.hi:.6g}", iv.n]
                                     if iv is not None else ["", "", "", 0]) +
                           [target_text(target, higher), "higher" if higher else "lower", v,
                            "yes" if iv is None or iv.wide else "no"])

    def summary(self):
        s = (f"targets: {self.count(MET)} met, {self.count(MISSED)} missed, "
             f"{self.count(UNDECIDED)} undecided of {len(self.rows)}")
        w = self.wide()
        if w:
            s += f"; {len(w)} with a spread too wide to judge (interval > x{WIDE:g})"
        return s


def short(v):
    """A verdict in a table cell: 'ok', 'MISS', '??'."""
    return {MET: "ok", MISSED: "MISS", UNDECIDED: "??"}[v]


def target_text(target, higher=True):
    if isinstance(target, tuple):
        return f"in [{target[0]:g}, {target[1]:g}]"
    return f"{'>=' if higher else '<='} {target:g}"


def loadavg():
    """(1, 5, 15 min load averages, runnable/total tasks) from /proc."""
    try:
        with open("/proc/loadavg") as f:
            p = f.read().split()
        return float(p[0]), float(p[1]), float(p[2]), p[3]
    except (OSError, IndexError, ValueError):
        return None


def load_text(before, after):
    """'load average 1.20/0.90/0.40 before, 3.10/1.50/0.60 after (1/5/15 min),
    2 CPUs', and a warning when the 1-minute load exceeded the CPUs."""
    def one(x):
        return "?" if x is None else f"{x[0]:.2f}/{x[1]:.2f}/{x[2]:.2f}"
    cpus = os.cpu_count() or 1
    text = f"load average {one(before)} before, {one(after)} after (1/5/15 min), {cpus} CPUs"
    # More runnable work than CPUs: the verdicts describe the machine under
    # that load (a ring needs two free cores, local one), not the code on a
    # quiet machine; round-to-round intervals do not cover that difference.
    if any(x is not None and x[0] > cpus for x in (before, after)):
        text += (" - WARNING: busier than its CPUs, so every verdict holds for this load "
                 "only")
    return text


METHOD = (f"median [95% interval: Student-t of the mean of the per-round logs; "
          f"paired per round for ratios]; verdict on the interval: ok = met (all of it "
          f"clears the target), MISS = missed (none of it does), ?? = undecided; "
          f"'wide' = interval > x{WIDE:g}")


def all_of(verdicts):
    """One verdict over several ("no case below ..."): MISSED if any is
    missed, MET if all are met, else UNDECIDED."""
    verdicts = list(verdicts)
    if any(v == MISSED for v in verdicts):
        return MISSED
    if verdicts and all(v == MET for v in verdicts):
        return MET
    return UNDECIDED


def every_case(intervals, target, higher=True, most=3, unit=""):
    """One target over many cases ("no case below 0.95x"): the verdict
    (all_of), the interval to record beside it, and a text that names what
    decided it: each missed case, worst point estimate first (at most
    `most`, then how many more); else each undecided one the same way; else
    the worst case met; unit follows each figure. intervals: {case: Interval}. The worst is judged on
    the median, never on an interval's bound: a case measured badly (2
    rounds: [0.11-7.44]) is not the lowest because its interval is wide."""
    if not intervals:
        return UNDECIDED, None, "no cases"
    judged = {c: verdict(iv, target, higher) for c, iv in intervals.items()}
    v = all_of(judged.values())

    def worst_first(cases):
        return sorted(cases, key=lambda c: intervals[c].median, reverse=not higher)

    for kind in (MISSED, UNDECIDED):
        cases = worst_first(c for c, j in judged.items() if j == kind)
        if cases:
            shown = ", ".join(f"{c} {intervals[c].text(2)}{unit}" for c in cases[:most])
            more = f" and {len(cases) - most} more" if len(cases) > most else ""
            return v, intervals[cases[0]], f"{kind}: {shown}{more}"
    worst = worst_first(intervals)[0]
    return v, intervals[worst], f"worst: {worst} {intervals[worst].text(2)}{unit}"


def compare_counts(path_a, path_b):
    """Two runs' verdict CSVs (Tally.write), counted: targets in both,
    decided alike ('agree'), flipped ('flips': met in one, missed in the
    other; 'flip_lines' says each with both intervals), decided by one run
    only ('one': no contradiction), undecided in both ('neither'), and the
    targets in one run only ('only')."""
    def read(path):
        with open(path, newline="") as f:
            return {r["target"]: r for r in csv.DictReader(f)}
    a, b = read(path_a), read(path_b)
    both = [t for t in a if t in b]
    flips, agree, one = [], 0, 0
    for t in both:
        va, vb = a[t]["verdict"], b[t]["verdict"]
        if UNDECIDED in (va, vb):
            one += va != vb
            continue
        if va == vb:
            agree += 1
        else:
            flips.append(t)
    return {"targets": len(both), "agree": agree, "flips": flips, "one": one,
            "neither": len(both) - agree - len(flips) - one,
            "only": sorted(set(a) ^ set(b)),
            "flip_lines": [f"{t}: {a[t]['verdict']} {a[t]['median']} [{a[t]['lo']}-"
                           f"{a[t]['hi']}] against {b[t]['verdict']} {b[t]['median']} "
                           f"[{b[t]['lo']}-{b[t]['hi']}]" for t in flips]}


def compare(path_a, path_b):
    """Two runs' verdict CSVs (Tally.write): (lines to print, flips). A
    flip is a target one run calls met and the other missed; a target
    decided in one run and undecided in the other is no contradiction."""
    c = compare_counts(path_a, path_b)
    lines = [f"{c['targets']} targets in both runs: {c['agree']} decided alike by both, "
             f"{len(c['flips'])} flipped, {c['one']} decided by one run only, "
             f"{c['neither']} undecided in both"]
    only = c["only"]
    if only:
        lines.append(f"{len(only)} targets in one run only (ignored): {', '.join(only[:5])}"
                     f"{' ...' if len(only) > 5 else ''}")
    lines += [f"  FLIP {f}" for f in c["flip_lines"]]
    return lines, c["flips"]


def main(argv):
    """verdict.py compare A.csv B.csv: do two runs of a benchmark agree on
    every target both decide? Exit status 1 if any verdict flipped."""
    if len(argv) != 4 or argv[1] != "compare":
        print("usage: verdict.py compare RUN-A-verdicts.csv RUN-B-verdicts.csv",
              file=sys.stderr)
        return 2
    try:
        lines, flips = compare(argv[2], argv[3])
    except (OSError, KeyError) as e:
        print(f"verdict.py compare: {e}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 1 if flips else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
