"""Stream, the current stream, the device calls (docs/semantics.md,
Streams and The legacy default stream)."""

import threading

import pytest

import clstream


def test_non_blocking_default_and_blocking():
    assert clstream.Stream().non_blocking is True
    assert clstream.Stream(non_blocking=False).non_blocking is False


def test_priority_clamped_into_range():
    least, greatest = clstream.Stream.priority_range()
    assert greatest <= least
    assert clstream.Stream(priority=-100).priority == greatest
    assert clstream.Stream(priority=100).priority == least


def test_query_synchronize(gate):
    s = clstream.Stream()
    assert s.query() is True
    s.launch_host_func(gate.wait)
    assert s.query() is False
    gate.set()
    s.synchronize()
    assert s.query() is True


def test_wait_stream(gate):
    a, b = clstream.Stream(), clstream.Stream()
    a.launch_host_func(gate.wait)
    b.wait_stream(a)
    assert b.record_event().query() is False
    gate.set()
    b.synchronize()


def test_record_event_returns_event():
    s = clstream.Stream()
    e = s.record_event()
    assert isinstance(e, clstream.Event)
    mine = clstream.Event()
    assert s.record_event(mine) is mine


def test_legacy_stream_waits_for_blocking_streams(gate):
    blocking = clstream.Stream(non_blocking=False)
    blocking.launch_host_func(gate.wait)
    assert clstream.default_stream().query() is False  # legacy includes it
    nb = clstream.Stream()
    assert nb.record_event().query() is True  # non-blocking: exempt
    gate.set()
    clstream.default_stream().synchronize()


def test_current_stream_per_thread_and_nesting():
    d = clstream.default_stream()
    assert clstream.current_stream() == d
    a, b = clstream.Stream(), clstream.Stream()
    with clstream.stream(a):
        assert clstream.current_stream() == a
        with clstream.stream(b):
            assert clstream.current_stream() == b
            seen = []
            t = threading.Thread(target=lambda: seen.append(clstream.current_stream()))
            t.start()
            t.join()
            assert seen == [d]  # per thread
        assert clstream.current_stream() == a
        with clstream.stream(None):  # no-op
            assert clstream.current_stream() == a
    assert clstream.current_stream() == d
    clstream.set_stream(a)
    try:
        assert clstream.current_stream() == a
        clstream.set_stream(None)
        assert clstream.current_stream() == a
    finally:
        clstream.set_stream(d)


def test_device_calls():
    n = clstream.device_count()
    assert n >= 1 and clstream.is_available()
    cur = clstream.current_device()
    clstream.set_device(cur)
    assert isinstance(clstream.get_device_name(cur), str)
    p = clstream.get_device_properties(cur)
    assert p.total_memory > 0 and p.multi_processor_count > 0
    clstream.synchronize()
    clstream.synchronize(cur)


def test_native_handle_and_external_stream():
    s = clstream.Stream()
    h = s.native_handle
    assert isinstance(h, int) and h != 0 and s.cuda_stream == h
    x = clstream.ExternalStream(h)
    assert x.native_handle == h
    e = x.record_event()
    e.synchronize()
    x.destroy()
    s.synchronize()  # the queue outlives clstream's reference
