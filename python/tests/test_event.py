"""Event: torch.cuda.Event's rules (docs/semantics.md, Events)."""

import pytest

import clstream


def test_never_recorded_query_true_and_synchronize_returns():
    e = clstream.Event()
    assert e.query() is True
    e.synchronize()


def test_record_query_synchronize(gate):
    s = clstream.Stream()
    s.launch_host_func(gate.wait)
    e = clstream.Event()
    e.record(s)
    assert e.query() is False
    gate.set()
    e.synchronize()
    assert e.query() is True


def test_record_defaults_to_current_stream(gate):
    s = clstream.Stream()
    s.launch_host_func(gate.wait)
    e = clstream.Event()
    with clstream.stream(s):
        e.record()
    assert e.query() is False
    gate.set()
    s.synchronize()
    assert e.query() is True


def test_wait_holds_other_stream(gate):
    a, b = clstream.Stream(), clstream.Stream()
    a.launch_host_func(gate.wait)
    e = clstream.Event()
    e.record(a)
    e.wait(b)
    f = b.record_event()
    assert f.query() is False
    gate.set()
    f.synchronize()
    assert a.query() and b.query()


def test_elapsed_time_errors_as_torch(gate):
    s = clstream.Stream()
    t0, t1 = clstream.Event(enable_timing=True), clstream.Event(enable_timing=True)
    with pytest.raises(ValueError):  # never recorded
        t0.elapsed_time(t1)
    plain = clstream.Event()
    plain.record(s)
    t0.record(s)
    with pytest.raises(ValueError):  # no timing
        t0.elapsed_time(plain)
    with pytest.raises(ValueError):
        plain.elapsed_time(t0)
    s.launch_host_func(gate.wait)
    t1.record(s)
    with pytest.raises(RuntimeError) as ei:  # not complete
        t0.elapsed_time(t1)
    assert isinstance(ei.value, clstream.NotReady)
    gate.set()
    t1.synchronize()
    assert t0.elapsed_time(t1) >= 0.0
    assert t0.elapsed_time(t0) == 0.0


def test_blocking_and_interprocess_flags():
    clstream.Event(blocking=True).synchronize()
    clstream.Event(interprocess=True).query()
    with pytest.raises(ValueError):
        clstream.Event(enable_timing=True, interprocess=True)
