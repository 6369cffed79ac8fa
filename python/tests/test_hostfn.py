"""launch_host_func: Python callables in stream order on a Python thread;
GIL-taking callables while the main thread synchronizes; exceptions
re-raised by the next synchronize or query."""

import threading
import time

import pytest

import clstream


def test_runs_in_order_with_args():
    s = clstream.Stream()
    out = []
    for i in range(20):
        s.launch_host_func(out.append, i)
    s.synchronize()
    assert out == list(range(20))


def test_not_on_caller_or_library_thread():
    s = clstream.Stream()
    seen = []
    s.launch_host_func(lambda: seen.append(threading.current_thread()))
    s.synchronize()
    assert seen[0] is not threading.current_thread()
    assert seen[0].name == "clstream-host-fn"


def test_takes_gil_and_locks_while_main_synchronizes():
    s = clstream.Stream()
    lock = threading.Lock()
    done = []

    def busy():  # pure Python: needs the GIL the whole time
        with lock:
            x = 0
            for i in range(200000):
                x += i
            done.append(x)

    for _ in range(3):
        s.launch_host_func(busy)
    s.synchronize()  # would deadlock if synchronize held the GIL
    clstream.synchronize()
    assert len(done) == 3


def test_exception_reraised_by_stream_synchronize():
    s = clstream.Stream()
    s.launch_host_func(lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        s.synchronize()
    s.synchronize()  # raised once


def test_exception_reraised_by_query_and_event_behind():
    s = clstream.Stream()

    def boom():
        raise KeyError("boom")

    s.launch_host_func(boom)
    e = s.record_event()
    s2 = clstream.Stream()
    s2.launch_host_func(boom)
    while True:  # query raises it once the callable has run
        try:
            if s2.query():
                time.sleep(0.001)
                continue
        except KeyError:
            break
    with pytest.raises(KeyError):
        e.synchronize()
    assert e.query() is True


def test_event_before_host_fn_does_not_raise(gate):
    s = clstream.Stream()
    e = s.record_event()
    s.launch_host_func(lambda: 1 / 0)
    e.synchronize()  # recorded before the callable: not its error
    with pytest.raises(ZeroDivisionError):
        s.synchronize()


def test_blocking_call_refused_inside_host_fn():
    s = clstream.Stream()
    got = []

    def sync_self():
        try:
            s.synchronize()
        except clstream.NotPermitted as e:
            got.append(e)

    s.launch_host_func(sync_self)
    s.synchronize()
    assert len(got) == 1 and got[0].code == 800


def test_destroyed_stream_still_runs_host_fns(gate):
    s = clstream.Stream()
    out = []
    s.launch_host_func(gate.wait)
    s.launch_host_func(out.append, 1)
    s.destroy()
    gate.set()
    clstream.synchronize()
    assert out == [1]


def test_launches_from_many_threads_all_run():
    s = clstream.Stream()
    out = []
    lock = threading.Lock()

    def add(i):
        with lock:
            out.append(i)

    def launcher(base):
        for i in range(25):
            s.launch_host_func(add, base + i)

    ts = [threading.Thread(target=launcher, args=(100 * k,)) for k in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    s.synchronize()
    assert sorted(out) == sorted(100 * k + i for k in range(4) for i in range(25))
    for k in range(4):  # each thread's own launches in its order
        mine = [v for v in out if v // 100 == k]
        assert mine == sorted(mine)
