"""Helpers shared by the benchmarks: timing statistics and saving results."""

from __future__ import annotations

import json
import platform
import statistics
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results"


def summarise(samples_s: list[float]) -> dict[str, float]:
    """Median, 95th percentile and worst of timings given in seconds, in milliseconds."""
    ms = sorted(s * 1000 for s in samples_s)
    return {"n": len(ms), "median_ms": round(statistics.median(ms), 4),
            "p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 4), "worst_ms": round(ms[-1], 4)}


def save(name: str, results: dict[str, Any]) -> Path:
    """Write results with the machine and the date, and print where."""
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    payload = {"benchmark": name, "date": time.strftime("%Y-%m-%d"),
               "machine": f"{platform.machine()} {platform.python_implementation()} "
                          f"{platform.python_version()}", **results}
    path.write_text(json.dumps(payload, indent=2) + "\n")
    print(f"saved {path}")
    return path
