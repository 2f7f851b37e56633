"""Pictures of tuning, written as PNG with matplotlib (Debian: python3-matplotlib).

    from tessel import tuning_plots
    tuning_plots.convergence({"random": curve_a, "evolutionary": curve_b}, "conv.png",
                             flops=2 * 1024**3, title="matmul 1024^3")
    peak, bandwidth = tuning_plots.measure_machine()
    tuning_plots.roofline([("matmul", flops, bytes, seconds), ...], peak, bandwidth,
                          "roofline.png")

``convergence`` draws the best so far against trials, one line per strategy (in
GFLOP/s when ``flops`` is given, else in milliseconds). ``roofline`` places each
tuned workload by its arithmetic intensity (FLOPs per compulsory byte) and
achieved GFLOP/s under the machine's roofs: the measured memory bandwidth and
the measured compute peak.
"""

from __future__ import annotations

import math
import time
from typing import Dict, List, Optional, Sequence, Tuple

__all__ = ["convergence", "roofline", "measure_machine"]


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")  # Files only: no display needed.
    import matplotlib.pyplot as plt

    return plt


def convergence(curves: Dict[str, Sequence[float]], path: str, flops: Optional[float] = None,
                title: str = "") -> str:
    """Best-so-far (seconds per call, after each trial) of each strategy; returns ``path``."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for name, curve in curves.items():
        ys = [(flops / s * 1e-9 if flops else s * 1e3) if math.isfinite(s) and s > 0 else math.nan
              for s in curve]
        ax.plot(range(1, len(ys) + 1), ys, label=name, linewidth=1.6)
    ax.set_xlabel("trials")
    ax.set_ylabel("best GFLOP/s" if flops else "best time (ms)")
    if title:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def roofline(points: List[Tuple[str, float, float, float]], peak_gflops: float,
             bandwidth_gbs: float, path: str, title: str = "",
             peak_label: str = "") -> str:
    """``points``: (name, flops, bytes, seconds) per tuned workload; returns ``path``.
    ``peak_label`` says where the compute roof comes from (shown in the legend)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    intensities = [f / b for _, f, b, _ in points if b > 0] or [1.0]
    lo, hi = min(intensities + [0.1]) / 2, max(intensities + [peak_gflops / bandwidth_gbs]) * 4
    xs = [lo * (hi / lo) ** (i / 200) for i in range(201)]
    ax.plot(xs, [min(peak_gflops, x * bandwidth_gbs) for x in xs], color="black", linewidth=1.4,
            label=f"roof: {peak_gflops:.0f} GFLOP/s{peak_label}, {bandwidth_gbs:.1f} GB/s")
    for i, (name, f, b, s) in enumerate(points):
        if b <= 0 or s <= 0:
            continue
        ax.scatter([f / b], [f / s * 1e-9], zorder=3)
        # Labels alternate above and below their points, so neighbours stay legible.
        ax.annotate(name, (f / b, f / s * 1e-9), textcoords="offset points",
                    xytext=(-6, 6 if i % 2 == 0 else -13), ha="right", fontsize=8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (FLOP/byte)")
    ax.set_ylabel("GFLOP/s")
    if title:
        ax.set_title(title)
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def measure_machine(size: int = 1024, copy_mib: int = 256) -> Tuple[float, float]:
    """The machine's roofs, measured now: compute as numpy's float32 matmul
    (OpenBLAS) of ``size``³, the best of 5; bandwidth as a copy of ``copy_mib``
    MiB (read and write counted), the best of 5. Returns (GFLOP/s, GB/s)."""
    import numpy as np

    a = np.random.default_rng(0).random((size, size), dtype=np.float32)
    b = np.random.default_rng(1).random((size, size), dtype=np.float32)
    best = math.inf
    for _ in range(5):
        t = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - t)
    peak = 2 * size**3 / best * 1e-9
    src = np.ones(copy_mib << 18, dtype=np.float32)
    dst = np.empty_like(src)
    best = math.inf
    for _ in range(5):
        t = time.perf_counter()
        np.copyto(dst, src)
        best = min(best, time.perf_counter() - t)
    return peak, 2 * src.nbytes / best * 1e-9
