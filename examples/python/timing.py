"""Two streams: a host-to-device copy on one overlapping a computation on
the other, each timed with Event(enable_timing=True), next to the host's
clock for both.  Prints each stream's time, the wall time and the overlap
(the sum of the two minus the wall time; 0 when they ran one after the
other)."""

import time

import numpy as np

import clstream
from _skip import arrays

to_device = arrays()

n = 1 << 22  # 16 MiB of float32 to copy
host = np.random.default_rng(1).random(n, dtype=np.float32)
copy_stream, compute_stream = clstream.Stream(), clstream.Stream()
x = to_device(np.ones(1 << 19, dtype=np.float32), stream=compute_stream)
compute_stream.synchronize()
y = x * 1.0  # the kernels compiled once, before the timed part
y = y * 1.0001 + 0.5
compute_stream.synchronize()
clstream.synchronize()

ev = {k: clstream.Event(enable_timing=True) for k in ("c0", "c1", "k0", "k1")}
t0 = time.perf_counter()
ev["c0"].record(copy_stream)
d = to_device(host, stream=copy_stream)
ev["c1"].record(copy_stream)
with clstream.stream(compute_stream):
    ev["k0"].record()
    y = x
    for _ in range(8):
        y = y * 1.0001 + 0.5
    ev["k1"].record()
ev["c1"].synchronize()
ev["k1"].synchronize()
wall = (time.perf_counter() - t0) * 1e3

copy_ms = ev["c0"].elapsed_time(ev["c1"])
compute_ms = ev["k0"].elapsed_time(ev["k1"])
overlap = max(0.0, copy_ms + compute_ms - wall)
assert np.array_equal(d.get(), host)
print(f"copy (events):    {copy_ms:8.3f} ms on copy_stream")
print(f"compute (events): {compute_ms:8.3f} ms on compute_stream")
print(f"both (host clock):{wall:8.3f} ms")
print(f"overlap:          {overlap:8.3f} ms ({100 * overlap / max(min(copy_ms, compute_ms), 1e-9):.0f}% of the shorter)")
