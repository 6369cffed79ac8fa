"""``python -m clstream.bench``: the Python face's cost per call, side by
side in one run with PyOpenCL doing the same work with raw markers and
waits on the same kind of queue, with clstream's C call made straight
through ctypes (the floor of any ctypes binding), and, where the C
benchmark binary is given (``--c-bench build/bench/clstream-bench``), the
C library's own figure from it.  On the CUDA build the raw side is torch
(``torch.cuda``) where it is installed.

Scenarios (as clstream-bench's of the same name): record on an idle
stream, query of a completed event, synchronize of a completed event,
record + synchronize, a tiny kernel + record + synchronize, and the
two-stream ping-pong (A: kernel, record; B: wait, kernel, record;
synchronize B).  Method: every side is warmed up, then timed in
alternating blocks (ours, raw, raw, ours, ...), each sample ``inner``
operations on ``time.perf_counter_ns``; the figure is the median per
operation in microseconds.  A benchmark, not a test: nothing here fails
on a ratio.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Callable, Dict, List, Optional

import clstream
from clstream._lib import backend, lib

Side = Callable[[int], None]

SCENARIOS = ["record_idle", "query_done", "sync_done", "record_sync", "kernel_record_sync", "pingpong"]
C_NAMES = {s: s for s in SCENARIOS}

KERNEL = """
__kernel void tiny(__global int *t) { t[get_global_id(0)] += 1; }
"""


_keep: List[object] = []  # objects the sides' closures need alive


def rep(f: Callable[[], object]) -> Side:
    """A side that calls f n times."""

    def run(n: int) -> None:
        for _ in range(n):
            f()

    return run


def _time(fn: Side, inner: int) -> float:
    t0 = time.perf_counter_ns()
    fn(inner)
    return (time.perf_counter_ns() - t0) / inner / 1e3


def measure(sides: Dict[str, Side], inner: int, samples: int) -> Dict[str, float]:
    for fn in sides.values():  # warm-up
        fn(inner)
    res: Dict[str, List[float]] = {k: [] for k in sides}
    names = list(sides)
    for b in range(samples):
        order = names if b % 2 == 0 else names[::-1]
        for k in order:
            res[k].append(_time(sides[k], inner))
    return {k: statistics.median(v) for k, v in res.items()}


# ---- the sides -------------------------------------------------------------


def opencl_sides(quick: bool) -> Dict[str, Dict[str, Side]]:
    import numpy as np
    import pyopencl as cl

    import clstream.opencl as co

    ctx = co.context()
    dev = co.device()
    raw_q = cl.CommandQueue(ctx, dev, properties=cl.command_queue_properties.PROFILING_ENABLE)
    raw_q2 = cl.CommandQueue(ctx, dev, properties=cl.command_queue_properties.PROFILING_ENABLE)
    prg = cl.Program(ctx, KERNEL).build()
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 256 * 4)
    cl.enqueue_fill_buffer(raw_q, buf, np.int32(0), 0, 256 * 4).wait()

    s = clstream.Stream()  # never handed out: record/query/sync alone
    e = clstream.Event()
    done = clstream.Event()
    done.record(s)
    done.synchronize()
    ks, ks2 = clstream.Stream(), clstream.Stream()  # kernels through PyOpenCL
    kq, kq2 = co.queue(ks), co.queue(ks2)
    ka, kb = clstream.Event(), clstream.Event()
    raw_done = cl.enqueue_marker(raw_q)
    raw_done.wait()
    knl = prg.tiny
    knl.set_args(buf)  # the kernel holds no Python reference to buf:
    _keep.extend([buf, prg, knl, raw_q, raw_q2, ctx])
    gs = (64,)
    enqueue = cl.enqueue_nd_range_kernel
    marker = cl.enqueue_marker
    barrier = cl.enqueue_barrier
    COMPLETE = cl.command_execution_status.COMPLETE

    # The C calls straight through ctypes, on the same objects.
    c_rec, c_query, c_sync = lib.clsEventRecord, lib.clsEventQuery, lib.clsEventSynchronize
    eh, sh, dh = e._h, s._h, done._h

    def py_record(n: int) -> None:
        for _ in range(n):
            e.record(s)

    def raw_record(n: int) -> None:
        for _ in range(n):
            marker(raw_q)

    def c_record(n: int) -> None:
        for _ in range(n):
            c_rec(eh, sh)

    def py_query(n: int) -> None:
        for _ in range(n):
            done.query()

    def raw_query(n: int) -> None:
        for _ in range(n):
            raw_done.command_execution_status == COMPLETE

    def c_query_(n: int) -> None:
        for _ in range(n):
            c_query(dh)

    def py_sync(n: int) -> None:
        for _ in range(n):
            done.synchronize()

    def raw_sync(n: int) -> None:
        for _ in range(n):
            raw_done.wait()

    def c_sync_(n: int) -> None:
        for _ in range(n):
            c_sync(dh)

    def py_rs(n: int) -> None:
        for _ in range(n):
            e.record(s)
            e.synchronize()

    def raw_rs(n: int) -> None:
        for _ in range(n):
            marker(raw_q).wait()

    def c_rs(n: int) -> None:
        for _ in range(n):
            c_rec(eh, sh)
            c_sync(eh)

    kah, kbh, ksh, ks2h = ka._h, kb._h, ks._h, ks2._h
    c_wait = lib.clsStreamWaitEvent

    def py_krs(n: int) -> None:
        for _ in range(n):
            enqueue(kq, knl, gs, None)
            ka.record(ks)
            ka.synchronize()

    def raw_krs(n: int) -> None:
        for _ in range(n):
            enqueue(raw_q, knl, gs, None)
            marker(raw_q).wait()

    def c_krs(n: int) -> None:
        for _ in range(n):
            enqueue(kq, knl, gs, None)
            c_rec(kah, ksh)
            c_sync(kah)

    def py_pp(n: int) -> None:
        for _ in range(n):
            enqueue(kq, knl, gs, None)
            ka.record(ks)
            ks2.wait_event(ka)
            enqueue(kq2, knl, gs, None)
            kb.record(ks2)
            kb.synchronize()

    def raw_pp(n: int) -> None:
        for _ in range(n):
            enqueue(raw_q, knl, gs, None)
            ea = marker(raw_q)
            barrier(raw_q2, wait_for=[ea])
            enqueue(raw_q2, knl, gs, None)
            marker(raw_q2).wait()

    def c_pp(n: int) -> None:
        for _ in range(n):
            enqueue(kq, knl, gs, None)
            c_rec(kah, ksh)
            c_wait(ks2h, kah, 0)
            enqueue(kq2, knl, gs, None)
            c_rec(kbh, ks2h)
            c_sync(kbh)

    return {
        "record_idle": {"python": py_record, "pyopencl": raw_record, "ctypes": c_record},
        "query_done": {"python": py_query, "pyopencl": raw_query, "ctypes": c_query_},
        "sync_done": {"python": py_sync, "pyopencl": raw_sync, "ctypes": c_sync_},
        "record_sync": {"python": py_rs, "pyopencl": raw_rs, "ctypes": c_rs},
        "kernel_record_sync": {"python": py_krs, "pyopencl": raw_krs, "ctypes": c_krs},
        "pingpong": {"python": py_pp, "pyopencl": raw_pp, "ctypes": c_pp},
    }


def torch_sides() -> Dict[str, Dict[str, Side]]:
    """The CUDA build: clstream's Python face, torch.cuda, and ctypes."""
    s = clstream.Stream()
    e, done = clstream.Event(), clstream.Event()
    done.record(s)
    done.synchronize()
    c_rec, c_query, c_sync = lib.clsEventRecord, lib.clsEventQuery, lib.clsEventSynchronize
    eh, sh, dh = e._h, s._h, done._h
    def ts_record_sync() -> None:
        e.record(s)
        e.synchronize()

    def c_record_sync() -> None:
        c_rec(eh, sh)
        c_sync(eh)

    out: Dict[str, Dict[str, Side]] = {
        "record_idle": {"python": rep(lambda: e.record(s)), "ctypes": rep(lambda: c_rec(eh, sh))},
        "query_done": {"python": rep(done.query), "ctypes": rep(lambda: c_query(dh))},
        "sync_done": {"python": rep(done.synchronize), "ctypes": rep(lambda: c_sync(dh))},
        "record_sync": {"python": rep(ts_record_sync), "ctypes": rep(c_record_sync)},
    }
    try:
        import torch

        if not torch.cuda.is_available():
            raise ImportError("torch has no CUDA device")
    except ImportError as ex:
        print(f"(torch column left out: {ex})")
        return out
    ts = torch.cuda.Stream()
    te, tdone = torch.cuda.Event(), torch.cuda.Event()
    tdone.record(ts)
    tdone.synchronize()
    def t_record_sync() -> None:
        te.record(ts)
        te.synchronize()

    out["record_idle"]["torch"] = rep(lambda: te.record(ts))
    out["query_done"]["torch"] = rep(tdone.query)
    out["sync_done"]["torch"] = rep(tdone.synchronize)
    out["record_sync"]["torch"] = rep(t_record_sync)
    try:
        import cupy

        from clstream.cupy import external

        a = cupy.zeros(64, dtype=cupy.int32)
        ta = torch.zeros(64, dtype=torch.int32, device="cuda")
        cs = external(s)
        s2 = clstream.Stream()
        cs2 = external(s2)
        e2 = clstream.Event()

        def py_krs(n: int) -> None:
            for _ in range(n):
                with cs:
                    a.__iadd__(1)
                e.record(s)
                e.synchronize()

        def torch_krs(n: int) -> None:
            for _ in range(n):
                with torch.cuda.stream(ts):
                    ta.add_(1)
                te.record(ts)
                te.synchronize()

        def py_pp(n: int) -> None:
            for _ in range(n):
                with cs:
                    a.__iadd__(1)
                e.record(s)
                s2.wait_event(e)
                with cs2:
                    a.__iadd__(1)
                e2.record(s2)
                e2.synchronize()

        ts2 = torch.cuda.Stream()
        te2 = torch.cuda.Event()

        def torch_pp(n: int) -> None:
            for _ in range(n):
                with torch.cuda.stream(ts):
                    ta.add_(1)
                te.record(ts)
                ts2.wait_event(te)
                with torch.cuda.stream(ts2):
                    ta.add_(1)
                te2.record(ts2)
                te2.synchronize()

        out["kernel_record_sync"] = {"python": py_krs, "torch": torch_krs}
        out["pingpong"] = {"python": py_pp, "torch": torch_pp}
    except ImportError as ex:
        print(f"(kernel rows left out: {ex})")
    return out


def c_bench(path: str, quick: bool) -> Dict[str, float]:
    """The C library's own figures (clstream-bench's "ours" medians, us)."""
    with tempfile.TemporaryDirectory() as d:
        js = os.path.join(d, "c.json")
        cmd = [path, "--scenario", ",".join(C_NAMES.values()), "--json", js]
        if quick:
            cmd.insert(1, "--quick")
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
        data = json.load(open(js))
    per = {}
    for sc in data["scenarios"]:
        per[sc["name"]] = sc["ours"]["median"] / 1e3  # ns per operation
    return per


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m clstream.bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer samples")
    ap.add_argument("--c-bench", metavar="PATH", help="clstream-bench binary for the C library's own column")
    ap.add_argument("--json", metavar="FILE", help="write the table as JSON")
    ap.add_argument("--scenario", metavar="NAME[,NAME...]", help="run these scenarios only")
    args = ap.parse_args(argv)
    samples = 11 if args.quick else 31

    props = clstream.get_device_properties()
    print(f"clstream {clstream.__version__} ({backend}) on {props.name} [{props.platform_name}]")
    print(f"python {sys.version.split()[0]}, library {clstream.library_path}")
    sides = opencl_sides(args.quick) if backend == "OpenCL" else torch_sides()
    inner = {"record_idle": 200, "query_done": 2000, "sync_done": 2000, "record_sync": 200,
             "kernel_record_sync": 50, "pingpong": 20}
    cfig = c_bench(args.c_bench, args.quick) if args.c_bench else {}
    raw_name = "pyopencl" if backend == "OpenCL" else "torch"
    rows = []
    hdr = f"{'scenario':20} {'python':>10} {raw_name:>10} {'ctypes':>10} {'C lib':>10} {'python/' + raw_name:>16} {'python/ctypes':>14}"
    print("\nmedian microseconds per operation")
    print(hdr)
    wanted = args.scenario.split(",") if args.scenario else SCENARIOS
    for name in SCENARIOS:
        if name not in sides or name not in wanted:
            continue
        if name == "record_idle":
            # PoCL's markers and clstream's records on idle queues; the queues
            # are drained between samples so neither side piles up work.
            clstream.synchronize()
        m = measure(sides[name], inner[name], samples)
        row = {"scenario": name, **m}
        if name in cfig:
            row["c"] = cfig[name]
        rows.append(row)

        def f(k: str) -> str:
            return f"{row[k]:10.3f}" if k in row else f"{'-':>10}"

        r_raw = f"{m['python'] / m[raw_name]:16.2f}" if raw_name in m else f"{'-':>16}"
        r_c = f"{m['python'] / m['ctypes']:14.2f}" if "ctypes" in m else f"{'-':>14}"
        print(f"{name:20} {f('python')} {f(raw_name)} {f('ctypes')} {f('c')} {r_raw} {r_c}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"device": props.name, "platform": props.platform_name, "backend": backend,
                       "unit": "us per operation (median)", "rows": rows}, fh, indent=1)
    print(f"\ngoal: python/{raw_name} <= 1.3 (PyOpenCL raw on PoCL; torch on CUDA: <= 1.0)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
