"""Bad input for every call: Python's TypeError/ValueError before the C
call for wrong types and values (None where none is allowed, a callable
that is not callable), and CUDA's code, as a clstream.Error subclass with
the library's reason, for destroyed objects and objects of another
device."""

import pytest

import clstream

WRONG = [1.5, "s", object(), [1]]


def destroyed_stream():
    s = clstream.Stream()
    s.destroy()
    return s


def destroyed_event():
    e = clstream.Event()
    e.destroy()
    return e


# ---- wrong types (TypeError) and values (ValueError), before the C call

@pytest.mark.parametrize("bad", WRONG + [True])
def test_stream_ctor_types(bad):
    with pytest.raises(TypeError):
        clstream.Stream(priority=bad)
    with pytest.raises(TypeError):
        clstream.Stream(device=bad if bad is not True else 1.5)


@pytest.mark.parametrize("bad", [1, None, "yes"])
def test_stream_non_blocking_type(bad):
    with pytest.raises(TypeError):
        clstream.Stream(non_blocking=bad)


@pytest.mark.parametrize("name", ["enable_timing", "blocking", "interprocess"])
@pytest.mark.parametrize("bad", [1, None, "x"])
def test_event_ctor_types(name, bad):
    with pytest.raises(TypeError):
        clstream.Event(**{name: bad})


@pytest.mark.parametrize("bad", WRONG + [clstream.Event])
def test_event_methods_types(bad):
    e = clstream.Event()
    for call in (e.record, e.wait):
        with pytest.raises(TypeError):
            call(bad)
    with pytest.raises(TypeError):
        e.elapsed_time(bad)
    with pytest.raises(TypeError):
        e.elapsed_time(None)  # None is not allowed there


@pytest.mark.parametrize("bad", WRONG + [None])
def test_stream_methods_types(bad):
    s = clstream.Stream()
    with pytest.raises(TypeError):
        s.wait_event(bad)
    with pytest.raises(TypeError):
        s.wait_stream(bad)
    if bad is not None:  # None is allowed: a new event
        with pytest.raises(TypeError):
            s.record_event(bad)


@pytest.mark.parametrize("bad", [None, 3, "f", object()])
def test_launch_host_func_not_callable(bad):
    with pytest.raises(TypeError):
        clstream.Stream().launch_host_func(bad)


@pytest.mark.parametrize("bad", WRONG)
def test_module_functions_types(bad):
    for call in (clstream.set_stream, clstream.stream):
        with pytest.raises(TypeError):
            call(bad)
    for call in (clstream.set_device, clstream.get_device_name, clstream.get_device_properties,
                 clstream.synchronize, clstream.current_stream, clstream.default_stream):
        with pytest.raises(TypeError):
            call(bad)
    with pytest.raises(TypeError):
        clstream.set_device(None)  # None: no device to set
    with pytest.raises(TypeError):
        clstream.ExternalStream(bad)


def test_values():
    with pytest.raises(ValueError):
        clstream.set_device(-1)
    with pytest.raises(ValueError):
        clstream.ExternalStream(0)
    with pytest.raises(ValueError):
        clstream.Event(enable_timing=True, interprocess=True)


def test_device_out_of_range():
    n = clstream.device_count()
    for call in (clstream.set_device, clstream.get_device_properties, clstream.get_device_name):
        with pytest.raises(clstream.InvalidDevice) as ei:
            call(n)
        assert ei.value.code == 101 and ei.value.name == "cudaErrorInvalidDevice"
    with pytest.raises(clstream.InvalidDevice):
        clstream.Stream(device=n)


# ---- destroyed objects: the C library's InvalidResourceHandle

def test_destroyed_stream_every_call():
    s = destroyed_stream()
    e = clstream.Event()
    calls = [s.query, s.synchronize, lambda: s.wait_event(e), lambda: s.record_event(),
             lambda: s.launch_host_func(print), lambda: s.priority, lambda: s.non_blocking,
             lambda: e.record(s), lambda: e.wait(s), lambda: s.wait_stream(clstream.Stream()),
             lambda: clstream.Stream().wait_stream(s)]
    for call in calls:
        with pytest.raises(clstream.InvalidResourceHandle) as ei:
            call()
        assert ei.value.reason  # the library's reason
    s.destroy()  # twice: nothing more to do


def test_destroyed_event_every_call():
    e = destroyed_event()
    s = clstream.Stream()
    t = clstream.Event(enable_timing=True)
    t.record(s)
    calls = [e.query, e.synchronize, lambda: e.record(s), lambda: e.wait(s), lambda: s.wait_event(e),
             lambda: s.record_event(e)]
    for call in calls:
        with pytest.raises(clstream.InvalidResourceHandle):
            call()
    d = clstream.Event(enable_timing=True)
    d.record(s)
    d.destroy()
    with pytest.raises(clstream.InvalidResourceHandle):
        t.elapsed_time(d)
    with pytest.raises(clstream.InvalidResourceHandle):
        d.elapsed_time(t)


def test_default_stream_cannot_be_destroyed():
    with pytest.raises(clstream.InvalidResourceHandle):
        clstream.default_stream().destroy()


# ---- objects of another device

def test_record_on_stream_of_other_device(other_device):
    s = clstream.Stream(device=other_device)
    e = clstream.Event()  # the current device's
    with pytest.raises(clstream.InvalidResourceHandle) as ei:
        e.record(s)
    assert ei.value.reason
    with pytest.raises(clstream.InvalidResourceHandle):
        s.record_event(e)


def test_wait_on_event_of_other_device_works(other_device):
    clstream.set_device(other_device)
    try:
        e = clstream.Event()
        so = clstream.Stream()
        e.record(so)
    finally:
        clstream.set_device(0)
    s = clstream.Stream()
    s.wait_event(e)  # CUDA allows it: the wait works
    s.synchronize()


def test_elapsed_time_events_of_two_devices(other_device):
    a = clstream.Event(enable_timing=True)
    a.record(clstream.Stream())
    clstream.set_device(other_device)
    try:
        b = clstream.Event(enable_timing=True)
        b.record(clstream.Stream())
        b.synchronize()
    finally:
        clstream.set_device(0)
    a.synchronize()
    with pytest.raises(clstream.Error):
        a.elapsed_time(b)


def test_stream_of_other_device_keeps_device(other_device):
    s = clstream.Stream(device=other_device)
    assert s.device == other_device
    assert clstream.current_device() == 0
    s.synchronize()
    assert s.record_event().query() in (True, False)
