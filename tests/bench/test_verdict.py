#!/usr/bin/env python3
"""Unit test of tests/bench/verdict.py on fixed data: met, missed and
undecided against targets, intervals that widen as rounds get fewer, the
unpaired (Welch) ratio, the warnings and the summary's counts."""
import math
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verdict as V  # noqa: E402


class Quantiles(unittest.TestCase):
    def test_table_and_expansion(self):
        self.assertAlmostEqual(V.t975(1), 12.706, places=3)
        self.assertAlmostEqual(V.t975(5), 2.571, places=3)
        # Cornish-Fisher beyond the table joins it and tends to the normal.
        self.assertAlmostEqual(V.t975(31), 2.040, places=2)
        self.assertAlmostEqual(V.t975(1e6), 1.960, places=3)
        self.assertEqual(V.t975(0), math.inf)
        self.assertTrue(V.t975(2) > V.t975(2.5) > V.t975(3))  # Welch's fractional df


class Verdicts(unittest.TestCase):
    # Ring/local per round, paired: a clear pass, a clear miss and one that
    # straddles 0.9.
    LOCAL = [100.0, 104.0, 98.0, 101.0, 99.0, 103.0]

    def ratio(self, factors):
        return V.ratio_interval([l * f for l, f in zip(self.LOCAL, factors)], self.LOCAL)

    def test_met(self):
        iv = self.ratio([0.97, 0.99, 0.96, 1.00, 0.98, 0.97])
        self.assertGreater(iv.lo, 0.9)
        self.assertEqual(V.verdict(iv, 0.9), V.MET)
        self.assertFalse(iv.wide)

    def test_missed(self):
        iv = self.ratio([0.80, 0.82, 0.79, 0.83, 0.81, 0.80])
        self.assertLess(iv.hi, 0.9)
        self.assertEqual(V.verdict(iv, 0.9), V.MISSED)

    def test_undecided(self):
        iv = self.ratio([0.86, 0.95, 0.88, 0.93, 0.87, 0.94])
        self.assertLess(iv.lo, 0.9)
        self.assertGreater(iv.hi, 0.9)
        self.assertEqual(V.verdict(iv, 0.9), V.UNDECIDED)

    def test_median_and_range_are_the_rounds(self):
        iv = V.value_interval([3.0, 1.0, 2.0])
        self.assertEqual((iv.median, iv.min, iv.max, iv.n), (2.0, 1.0, 3.0, 3))
        self.assertTrue(iv.lo < iv.min and iv.hi > iv.max)  # 3 rounds: t = 4.30

    def test_typical_spread_floors_a_lucky_case(self):
        # Three rounds that happen to agree (0.99-1.01) would meet 0.9 on
        # their own; in a run where the other cases' rounds moved by ~x1.5,
        # the floor (their median spread) leaves it undecided, and a case
        # whose own spread is wider keeps its own.
        lucky = [0.99, 1.00, 1.01]
        noisy = [[0.6, 1.0, 1.4], [0.7, 1.2, 0.9], [1.5, 0.8, 1.0], lucky]
        floor = V.typical_log_sd(noisy)
        self.assertGreater(floor, 0.2)
        self.assertEqual(V.verdict(V.value_interval(lucky), 0.9), V.MET)
        self.assertEqual(V.verdict(V.value_interval(lucky, sd_floor=floor), 0.9), V.UNDECIDED)
        wide = [0.3, 1.0, 3.0]
        self.assertEqual(V.value_interval(wide, sd_floor=floor).lo, V.value_interval(wide).lo)
        paired = V.ratio_interval(lucky, [1.0, 1.0, 1.0], sd_floor=floor)
        self.assertEqual(V.verdict(paired, 0.9), V.UNDECIDED)
        self.assertIsNone(V.typical_log_sd([[1.0]]))

    def test_one_round_is_undecided(self):
        iv = V.value_interval([5.0])
        self.assertFalse(iv.decided)
        self.assertTrue(iv.wide)
        self.assertEqual(V.verdict(iv, 1.0), V.UNDECIDED)
        self.assertEqual(V.verdict(iv, 100.0), V.UNDECIDED)
        self.assertEqual(iv.text(), "5.00 [-]")
        self.assertEqual(V.value_interval([0.05, 39.0]).text(), "19.52 [0.00-3.3e+18]")

    def test_lower_is_better(self):
        lat = V.value_interval([1.1, 1.3, 1.2, 1.25, 1.15])    # ms, target <= 2
        self.assertEqual(V.verdict(lat, 2.0, higher=False), V.MET)
        self.assertEqual(V.verdict(lat, 1.0, higher=False), V.MISSED)
        self.assertEqual(V.verdict(lat, 1.2, higher=False), V.UNDECIDED)

    def test_range_target(self):
        share = V.value_interval([0.24, 0.26, 0.25, 0.25], log=False)
        self.assertEqual(V.verdict(share, (0.20, 0.30)), V.MET)
        far = V.value_interval([0.40, 0.42, 0.41, 0.43], log=False)
        self.assertEqual(V.verdict(far, (0.20, 0.30)), V.MISSED)
        edge = V.value_interval([0.27, 0.33, 0.29, 0.31], log=False)
        self.assertEqual(V.verdict(edge, (0.20, 0.30)), V.UNDECIDED)

    def test_counts_may_be_zero(self):
        c2s = V.value_interval([0.0, 0.0, 0.0], log=False)    # per 10k commands, < 1
        self.assertEqual(V.verdict(c2s, 1.0, higher=False), V.MET)
        near0 = V.value_interval([0.001, 0.02, 0.004], log=False, scale=1.0)
        self.assertEqual(V.verdict(near0, 1.0, higher=False), V.MET)
        self.assertFalse(near0.wide)                          # narrow against the target 1
        self.assertTrue(V.value_interval([0.001, 0.02, 0.004], log=False).wide)
        with self.assertRaises(ValueError):
            V.value_interval([0.0, 1.0])                      # a rate of 0 has no log

    def test_fewer_rounds_widen(self):
        """--quick's property: the first 3 rounds of the same data give a
        wider interval than all 6, so fewer rounds decide less."""
        factors = [0.91, 0.97, 0.94, 0.96, 0.93, 0.97]
        full = self.ratio(factors)
        quick = V.ratio_interval([l * f for l, f in zip(self.LOCAL[:3], factors[:3])],
                                 self.LOCAL[:3])
        self.assertGreater(quick.hi / quick.lo, full.hi / full.lo)
        self.assertEqual(V.verdict(full, 0.9), V.MET)
        self.assertEqual(V.verdict(quick, 0.9), V.UNDECIDED)
        # min-max of the 3 rounds would have called it met: 0.91 .. 0.97.
        self.assertGreater(quick.min, 0.9)

    def test_outlier_round_widens_not_flips(self):
        """One round disturbed by another process: the verdict goes to
        undecided, not to missed."""
        iv = self.ratio([0.97, 0.99, 0.96, 0.60, 0.98, 0.97])
        self.assertEqual(V.verdict(iv, 0.9), V.UNDECIDED)
        self.assertTrue(iv.wide)

    def test_unpaired_ratio(self):
        ring = [320.0, 330.0, 325.0, 318.0]
        x = [49.0, 50.0, 49.5]
        iv = V.ratio_interval(ring, x, paired=False)
        self.assertAlmostEqual(iv.median, 322.5 / 49.5)
        self.assertTrue(iv.lo < 322.5 / 49.5 < iv.hi)
        self.assertEqual(V.verdict(iv, 2.0), V.MET)
        self.assertEqual(V.verdict(iv, 10.0), V.MISSED)
        one = V.ratio_interval(ring, [49.0], paired=False)   # X measured once
        self.assertEqual(V.verdict(one, 2.0), V.UNDECIDED)
        with self.assertRaises(ValueError):
            V.ratio_interval([1.0, 2.0], [1.0])              # paired needs equal rounds

    def test_tally(self):
        t = V.Tally()
        t.judge("a", self.ratio([0.97, 0.99, 0.96, 1.00, 0.98, 0.97]), 0.9)
        t.judge("b", self.ratio([0.80, 0.82, 0.79, 0.83, 0.81, 0.80]), 0.9)
        t.judge("c", self.ratio([0.86, 0.95, 0.88, 0.93, 0.87, 0.94]), 0.9)
        t.judge("d", V.value_interval([2.0]), 1.0)
        self.assertEqual((t.count(V.MET), t.count(V.MISSED), t.count(V.UNDECIDED)), (1, 1, 2))
        self.assertEqual(t.wide(), ["d"])
        self.assertEqual(t.summary(), "targets: 1 met, 1 missed, 2 undecided of 4; "
                         "1 with a spread too wide to judge (interval > x1.25)")

    def test_all_of(self):
        self.assertEqual(V.all_of([V.MET, V.MET]), V.MET)
        self.assertEqual(V.all_of([V.MET, V.UNDECIDED]), V.UNDECIDED)
        self.assertEqual(V.all_of([V.UNDECIDED, V.MISSED, V.MET]), V.MISSED)
        self.assertEqual(V.all_of([]), V.UNDECIDED)

    def test_every_case_names_what_missed(self):
        """The summary of 'no case below 0.95x' names the missed case with
        the worst point estimate, not the widest interval (x11perf's
        'lowest: map 1.15 [0.11-7.44]' while -prop missed at 0.55)."""
        wide = V.ratio_interval([1.9, 0.5], [1.0, 1.0])   # 2 rounds: [0.0x-...]
        prop = self.ratio([0.55, 0.50, 0.60, 0.57, 0.52, 0.55])
        fc = self.ratio([0.90, 0.88, 0.91, 0.89, 0.90, 0.92])
        ok = self.ratio([0.97, 0.99, 0.98, 1.00, 0.98, 0.97])
        ivs = {"map": wide, "fcircle10": fc, "prop": prop, "rect100": ok}
        self.assertLess(wide.lo, prop.lo)  # what the old summary fell for
        v, shown, text = V.every_case(ivs, 0.95)
        self.assertEqual(v, V.MISSED)
        self.assertIs(shown, prop)
        self.assertTrue(text.startswith("missed: prop "), text)
        self.assertIn(", fcircle10 ", text)
        self.assertNotIn("map", text)
        self.assertNotIn("rect100", text)
        # None missed: the undecided ones, worst first.
        v, shown, text = V.every_case({"map": wide, "rect100": ok}, 0.95)
        self.assertEqual((v, shown), (V.UNDECIDED, wide))
        self.assertTrue(text.startswith("undecided: map "), text)
        # All met: the worst one met, by its median.
        better = self.ratio([1.10, 1.12, 1.09, 1.11, 1.10, 1.12])
        v, shown, text = V.every_case({"a": better, "b": ok}, 0.95, unit="x")
        self.assertEqual((v, shown), (V.MET, ok))
        self.assertEqual(text, f"worst: b {ok.text(2)}x")
        # Many misses: the first three, then how many more.
        many = {f"c{i}": self.ratio([0.5 + i / 100] * 3 + [0.52 + i / 100] * 3)
                for i in range(5)}
        v, shown, text = V.every_case(many, 0.95)
        self.assertTrue(text.startswith("missed: c0 "), text)
        self.assertTrue(text.endswith(" and 2 more"), text)
        # Lower is better: the worst is the highest median.
        v, shown, text = V.every_case({"a": better, "b": ok}, 1.05, higher=False)
        self.assertEqual((v, shown), (V.MISSED, better))
        self.assertEqual(V.every_case({}, 0.95)[0], V.UNDECIDED)

    def test_compare_runs(self):
        """Two runs' verdict files: alike, decided by one only, flipped."""
        met = self.ratio([0.97, 0.99, 0.96, 1.00, 0.98, 0.97])
        missed = self.ratio([0.80, 0.82, 0.79, 0.83, 0.81, 0.80])
        und = self.ratio([0.86, 0.95, 0.88, 0.93, 0.87, 0.94])
        full, quick = V.Tally(), V.Tally()
        for name, a, b in (("same", met, met), ("one", missed, und), ("both-und", und, und),
                           ("flip", met, missed)):
            full.judge(name, a, 0.9)
            quick.judge(name, b, 0.9)
        quick.judge("new", met, 0.9)
        with tempfile.TemporaryDirectory() as d:
            fa, fb = os.path.join(d, "a.csv"), os.path.join(d, "b.csv")
            full.write(fa)
            quick.write(fb)
            lines, flips = V.compare(fa, fb)
            self.assertEqual(flips, ["flip"])
            self.assertEqual(lines[0], "4 targets in both runs: 1 decided alike by both, "
                             "1 flipped, 1 decided by one run only, 1 undecided in both")
            self.assertIn("new", lines[1])
            self.assertEqual(V.main(["verdict.py", "compare", fa, fa]), 0)
            self.assertEqual(V.main(["verdict.py", "compare", fa, fb]), 1)

    def test_load_text(self):
        self.assertIn("before", V.load_text(V.loadavg(), None))
        cpus = os.cpu_count()
        quiet, busy = (0.1, 0.1, 0.1, "1/100"), (cpus + 1.0, 1.0, 1.0, "9/100")
        self.assertNotIn("WARNING", V.load_text(quiet, quiet))
        self.assertIn("WARNING: busier than its CPUs", V.load_text(quiet, busy))


if __name__ == "__main__":
    unittest.main(verbosity=2)
