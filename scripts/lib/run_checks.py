"""What the smoke scripts (ci-2020.sh, ci-web-servers.sh, test-guides.sh)
check of a run directory alike: it completed, runner exited 0 or 1 (1: some
cells suspect, their gates' call on a shared host; 2 and up: the run itself
failed), and every planned cell was measured. Each script adds its own
checks to `problems` and ends with `finish`."""
import csv
import json
import pathlib
import sys


class Run:
    def __init__(self, path, rc):
        self.dir = pathlib.Path(path)
        self.status = json.loads((self.dir / "status.json").read_text())
        self.plan = json.loads((self.dir / "plan.json").read_text())
        self.problems = []
        if self.status["state"] != "complete":
            self.problems.append(f"the run is {self.status['state']}: {self.status.get('message') or ''}")
        if int(rc) not in (0, 1):
            self.problems.append(f"runner exited {rc}")

    def rows(self, name):
        """The rows of a CSV file of the run (none when it is absent)."""
        path = self.dir / name
        return list(csv.DictReader(open(path))) if path.exists() else []

    def cells_measured(self, runtimes=None):
        """measurements.csv by cell id; a problem for each planned cell (of
        `runtimes`, when given) not measured, failed, or answered nothing."""
        measured = {r["cell_id"]: r for r in self.rows("measurements.csv")}
        for cell in self.plan["cells"]:
            if runtimes is not None and cell["runtime"] not in runtimes:
                continue
            row = measured.get(cell["id"])
            if row is None:
                self.problems.append(f"cell {cell['id']} was not measured")
            elif row["status"] == "failed" or int(row["requests"]) == 0:
                self.problems.append(f"cell {cell['id']} failed or answered nothing: {row['reason']}")
        return measured

    def finish(self, who, summary):
        """Exits 1 listing the problems, else prints `summary`."""
        if self.problems:
            for p in self.problems:
                print(f"{who}: {p}", file=sys.stderr)
            sys.exit(f"{who}: {len(self.problems)} problem(s) in {self.dir}")
        print(f"{who}: {summary}")
