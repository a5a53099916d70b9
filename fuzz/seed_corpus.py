#!/usr/bin/env python3
"""Seed each fuzz target's corpus with real files from tests/fixtures, in the
target's input shape: a mode byte, then file bodies separated by 0xFF."""

import gzip
import json
import sys
from pathlib import Path

FUZZ = Path(__file__).resolve().parent
FIX = FUZZ.parent / "tests" / "fixtures"
MAX = 64 * 1024  # libFuzzer -max_len used by run.sh


def body(path):
    if not path.is_file():
        return b""
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


def write(target, name, mode, bodies):
    out = FUZZ / "corpus" / target
    out.mkdir(parents=True, exist_ok=True)
    (out / name).write_bytes((bytes([mode]) + b"\xff".join(bodies))[:MAX])


def small_json_rows(data, keep=3):
    """A large JSON report cut down to a few results rows, still valid JSON."""
    try:
        doc = json.loads(data)
    except ValueError:
        return data
    for key in ("results", "runs"):
        if isinstance(doc.get(key), list):
            doc[key] = doc[key][:keep]
        if isinstance(doc.get(key), dict) and isinstance(doc[key].get("results"), list):
            doc[key]["results"] = doc[key]["results"][:keep]
    return json.dumps(doc).encode()


def main():
    seh_files = ["metadata.json", "metrics.json", "events.json", "trace.jsonl", "output.md",
                 "environment.json", "timing.json", "outputs/metrics.json"]
    runs = sorted((FIX / "skill-eval-harness/runs/eval-runs").glob("*/*/*/run-*"))
    for i, run in enumerate(runs[:: max(1, len(runs) // 12)]):
        write("seh", f"run-{i}", 0, [body(run / f) for f in seh_files])
    for i, report in enumerate(sorted((FIX / "skill-eval-harness/reference").glob("*.json*"))):
        write("seh", f"report-{i}", 2, [small_json_rows(body(report))])
    write("seh", "manifest", 2, [body(FIX / "skill-eval-harness/input/evals/shared-benchmark.json")])

    handbook = sorted((FIX / "seed000-skill-eval/runs").rglob("grading.json"))
    for i, grading in enumerate(handbook[:: max(1, len(handbook) // 8)]):
        d = grading.parent
        write("handbook", f"run-{i}", 0, [body(d / f) for f in ["grading.json", "response.json", "timing.json", "output.txt"]])
    for i, report in enumerate(sorted((FIX / "seed000-skill-eval").rglob("benchmark.json"))[:4]):
        write("handbook", f"report-{i}", 1, [small_json_rows(body(report))])

    creator = sorted((FIX / "skill-creator/runs").rglob("grading.json"))
    for i, grading in enumerate(creator[:: max(1, len(creator) // 8)]):
        d = grading.parent
        answer = next((p for p in sorted((d / "outputs").glob("*")) if p.name != "metrics.json"), d / "none")
        write("skill_creator", f"run-{i}", 0,
              [body(d / "grading.json"), body(d / "timing.json"), body(d / "outputs/metrics.json"), body(answer)])
    for i, report in enumerate(sorted((FIX / "skill-creator").rglob("benchmark.json"))[:4]):
        write("skill_creator", f"report-{i}", 1, [small_json_rows(body(report))])

    results = FIX / "promptfoo/runs/results.json"
    write("promptfoo", "results", 0, [small_json_rows(body(results))])
    lines = body(FIX / "promptfoo/runs/results.jsonl").splitlines()
    write("promptfoo", "results-jsonl", 1, [b"\n".join(lines[:3])])
    for i, extra in enumerate(sorted((FIX / "promptfoo").rglob("*.json"))[:6]):
        write("promptfoo", f"extra-{i}", 0, [small_json_rows(body(extra))])
    for target in ("seh", "handbook", "skill_creator", "promptfoo"):
        print(target, len(list((FUZZ / "corpus" / target).iterdir())), "seeds", file=sys.stderr)


if __name__ == "__main__":
    main()
