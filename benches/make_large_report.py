#!/usr/bin/env python3
# Usage: python3 benches/make_large_report.py (after benches/compare.sh 10000).
# A 100,000-row benchmark report for a memory measurement: the 10,000-run
# peer report's rows repeated ten times under ten runs roots (rows otherwise
# unchanged), its other blocks as they are. Written streaming.
import json, sys
src = json.load(open('/tmp/liftdb-bench/peer-benchmark-10000.json'))
rows = src.pop('results')
with open('/tmp/peer-benchmark-100000.json', 'w') as out:
    out.write(json.dumps(src)[:-1] + ', "results": [')
    first = True
    for k in range(10):
        for r in rows:
            r2 = dict(r)
            r2['run_base'] = r['run_base'].replace('eval-runs', f'eval-runs-{k}')
            out.write(('' if first else ',') + json.dumps(r2))
            first = False
    out.write(']}')
