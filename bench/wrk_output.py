"""What one run of ``wrk --latency`` printed: requests/s, p50, p99, the slowest request, and its socket
errors (``timeout N`` counts requests with no answer within wrk's 2 s). Shared by bench/pages.py and
bench/serve_variants.py."""

from __future__ import annotations

import re
from dataclasses import dataclass

UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


@dataclass
class Figures:
    rps: float
    p50_ms: float
    p99_ms: float
    max_ms: float
    timeouts: int  # requests that had no answer within wrk's 2 s
    errors: str  # wrk's "Socket errors:" line after the colon, or "" when it printed none

    def __str__(self) -> str:
        late = f"  {self.timeouts} over 2 s" if self.timeouts else ""
        return (
            f"{self.rps:9,.0f} req/s  p50 {self.p50_ms:6.1f} ms  p99 {self.p99_ms:7.1f} ms  "
            f"max {self.max_ms:7.1f} ms{late}"
        )


def _ms(pattern: str, out: str) -> float:
    found = re.search(pattern + r"\s+([\d.]+)(us|ms|s)\b", out)
    return float(found.group(1)) * UNITS[found.group(2)] if found else float("nan")


def parse(out: str) -> Figures:
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    errors = re.search(r"Socket errors: (.*)", out)
    timeouts = re.search(r"timeout (\d+)", out)
    return Figures(
        rps=rps,
        p50_ms=_ms("50%", out),
        p99_ms=_ms("99%", out),
        max_ms=_ms(r"Latency\s+\S+\s+\S+", out),  # the "Thread Stats" line: Avg, Stdev, Max
        timeouts=int(timeouts.group(1)) if timeouts else 0,
        errors=errors.group(1) if errors else "",
    )
