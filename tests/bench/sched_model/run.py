#!/usr/bin/env python3
"""The scheduler on paper (docs/scheduler.md, "Scaling on paper: the
scheduler with 4, 8 and 16 workers"): runs sched-model (the real scheduler,
simulated workers, simulated time), prints its table and writes
sched-model.csv. A model, not a measurement: it leaves out memory bandwidth,
lock contention and cache effects, and picks and pieces cost nothing.

    run.py [--model PATH] [--seconds S] [--out DIR] [--check]

--check asserts the model's properties (exit 1 when one fails): every
flooder within 10 % of its fair share, the workers busy as far as the
flooders can keep them (min(workers, flooders + echo)), the boosted echo
picked within one piece plus one command of overshoot, no ring ever on two
workers, never more runs than workers.
"""
import argparse
import csv
import io
import os
import subprocess
import sys

PIECE_US = 500.0  # ring_loop.c PIECE_NS
LONGEST_COMMAND_US = 400.0  # sched_model.c flood_cmd_ns
ECHO_RUN = 50e-6 / 10e-3  # at most the echo's share of one worker: 50 us every 10 ms


def default_model():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
    return os.path.join(os.environ.get('BUILD', os.path.join(root, 'build')),
                        'tests', 'bench', 'sched_model', 'sched-model')


def table(rows):
    out = ['| workers | flooders | flooder share of fair: min / median / max '
           '| work (workers busy) | echo wait p50 / p99 / max (us) | echoes |',
           '|---:|---:|---|---:|---|---:|']
    for r in rows:
        out.append('| %s | %s | %.3f / %.3f / %.3f | %.2f of %d | %.0f / %.0f / %.0f | %s |' % (
            r['workers'], r['flooders'], float(r['share_min']), float(r['share_median']),
            float(r['share_max']), float(r['work']), int(r['workers']),
            float(r['wait_p50_us']), float(r['wait_p99_us']), float(r['wait_max_us']),
            r['echoes']))
    return '\n'.join(out)


def check(rows, seconds):
    bad = []
    bound_us = PIECE_US + LONGEST_COMMAND_US
    for r in rows:
        w, k = int(r['workers']), int(r['flooders'])
        name = '%d workers, %d flooders' % (w, k)
        if float(r['share_min']) < 0.9 or float(r['share_max']) > 1.1:
            bad.append('%s: a flooder outside 0.9..1.1 of its fair share' % name)
        can_use = min(w, k + ECHO_RUN)
        if float(r['work']) < 0.99 * can_use:
            bad.append('%s: work %.3f below %.3f' % (name, float(r['work']), can_use))
        if float(r['wait_max_us']) > bound_us:
            bad.append('%s: echo waited %.0f us > %.0f' % (name, float(r['wait_max_us']),
                                                         bound_us))
        if int(r['echoes']) < 95 * seconds:  # a wake-up every 10-10.5 ms
            bad.append('%s: only %s echoes' % (name, r['echoes']))
        if int(r['double_runs']) != 0 or int(r['max_running']) > w:
            bad.append('%s: a ring on two workers or more runs than workers' % name)
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--model', default=default_model())
    ap.add_argument('--seconds', type=int, default=10)
    ap.add_argument('--out')
    ap.add_argument('--check', action='store_true')
    args = ap.parse_args()
    text = subprocess.run([args.model, '--seconds', str(args.seconds)], check=True,
                          stdout=subprocess.PIPE, text=True).stdout
    rows = list(csv.DictReader(io.StringIO(text)))
    print('The scheduler with N simulated workers, %d simulated seconds per row after a '
          'second\'s warm-up (a model: no memory bandwidth, lock or cache costs):' %
          args.seconds)
    print(table(rows))
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, 'sched-model.csv'), 'w') as f:
            f.write(text)
    if args.check:
        bad = check(rows, args.seconds)
        for b in bad:
            print('model property failed: ' + b)
        if bad:
            return 1
        print('model properties: ok (%d configurations)' % len(rows))
    return 0


if __name__ == '__main__':
    sys.exit(main())
