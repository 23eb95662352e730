#!/usr/bin/env python3
"""Synthetic runs for scripts/bench-store.sh: RUNS copies of the fixture run
tests/fixtures/runs/base with CONFIGS configurations of 2 repeats each
(its rows replicated under new config ids, throughput with 3% noise), one a
day, written as run directories under OUT/<experiment>/. Read by the real
runner (`runner store import`), so the store holds what a real run writes."""
import csv, json, os, random, shutil, sys
from datetime import datetime, timedelta, timezone

runs, configs, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
base = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "runs", "base")
with open(os.path.join(base, "measurements.csv"), newline="") as f:
    reader = csv.DictReader(f)
    header, rows = reader.fieldnames, list(reader)
template = [r for r in rows if r["config_id"] == rows[0]["config_id"]][:2]
rng = random.Random(42)
start = datetime(2024, 1, 1, 2, tzinfo=timezone.utc)
for i in range(runs):
    at = start + timedelta(days=i)
    run_id = at.strftime("%Y%m%dT%H%M%SZ")
    run = os.path.join(out, "store-bench", run_id)
    os.makedirs(run)
    for name in ("environment.json", "plan.json", "configurations.csv", "lifecycle.csv"):
        shutil.copy(os.path.join(base, name), run)
    with open(os.path.join(base, "status.json")) as f:
        status = json.load(f)
    status.update(run_id=run_id, experiment="store-bench", state="complete",
                  started_at=at.isoformat().replace("+00:00", "Z"))
    with open(os.path.join(run, "status.json"), "w") as f:
        json.dump(status, f)
    with open(os.path.join(run, "measurements.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header)
        w.writeheader()
        for c in range(configs):
            for r in template:
                row = dict(r)
                row["config_id"] = f"{r['runtime']}/payload={c}/concurrency=1"
                row["axes"] = f"payload={c},concurrency=1"
                row["payload"] = str(c)
                row["cell_id"] = f"{row['config_id']}/r{r['repeat']}"
                row["throughput_rps"] = "%.3f" % (float(r["throughput_rps"]) * (1 + 0.03 * rng.gauss(0, 1)))
                w.writerow(row)
