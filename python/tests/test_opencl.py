"""clstream.opencl: PyOpenCL on the stream's own queue, arrays whose
operations follow the current stream, both kinds of memory, read-back
after the stream's work."""

import numpy as np
import pytest

import clstream

co = pytest.importorskip("clstream.opencl", reason="the OpenCL build and PyOpenCL are needed")
import pyopencl as cl  # noqa: E402


def test_context_and_queue():
    ctx = co.context()
    assert ctx is co.context(0)
    s = clstream.Stream()
    q = co.queue(s)
    assert q is co.queue(s)
    assert q.int_ptr == s.native_handle
    assert q.context.int_ptr == ctx.int_ptr
    assert co.queue().int_ptr == co.queue(clstream.default_stream()).int_ptr


def test_pyopencl_work_is_held_by_stream_order(gate):
    s = clstream.Stream()
    q = co.queue(s)
    s.launch_host_func(gate.wait)
    a = np.zeros(16, np.int32)
    buf = cl.Buffer(co.context(), cl.mem_flags.READ_WRITE, a.nbytes)
    cl.enqueue_fill_buffer(q, buf, np.int32(7), 0, a.nbytes)
    e = s.record_event()
    assert e.query() is False  # the raw fill waits behind the host function
    gate.set()
    e.synchronize()
    cl.enqueue_copy(q, a, buf)
    assert (a == 7).all()


@pytest.mark.parametrize("alloc", [None, "malloc"])
def test_arithmetic_on_current_stream(gate, alloc):
    allocator = co.malloc if alloc else None
    s = clstream.Stream()
    t1 = co.to_device(np.full(5, 2, np.int32), allocator=allocator)
    t2 = co.to_device(np.full(5, 4, np.int32), allocator=allocator)
    s.wait_stream(clstream.current_stream())
    s.launch_host_func(gate.wait)
    with clstream.stream(s):
        assert t1.queue.int_ptr == co.queue(s).int_ptr
        t3 = t1 + t2
        e = clstream.Event()
        e.record()
    assert e.query() is False  # the addition is held on s
    assert t1.queue.int_ptr == co.queue().int_ptr  # outside: the current stream again
    gate.set()
    with clstream.stream(s):
        out = t3.cpu()  # read back on s, after its work
    assert out.tolist() == [6] * 5


def test_malloc_pointer_and_free():
    import gc

    t = co.to_device(np.arange(8, dtype=np.int32), allocator=co.malloc)
    p = t.ptr
    assert isinstance(p, int) and p != 0
    back = np.empty(8, np.int32)
    clstream.default_stream().synchronize()
    from clstream._lib import lib
    import ctypes
    rc = lib.clsMemcpyAsync(back.ctypes.data_as(ctypes.c_void_p), ctypes.c_void_p(p), back.nbytes, 2,
                            ctypes.c_void_p(1))
    assert rc == 0
    clstream.default_stream().synchronize()
    assert back.tolist() == list(range(8))
    del t
    gc.collect()  # clsFree


def test_pyopencl_memory_has_no_cls_ptr():
    t = co.to_device([1, 2, 3])
    with pytest.raises(clstream.InvalidDevicePointer):
        t.ptr


def test_event_as_pyopencl_event(gate):
    s = clstream.Stream()
    s.launch_host_func(gate.wait)
    e = s.record_event()
    ce = co.event(e)
    assert ce.command_execution_status != cl.command_execution_status.COMPLETE
    gate.set()
    ce.wait()
    assert co.event(clstream.Event()).command_execution_status == cl.command_execution_status.COMPLETE


def test_opencl_bad_input():
    for bad in (1, "q", object()):
        with pytest.raises(TypeError):
            co.queue(bad)
        with pytest.raises(TypeError):
            co.event(bad)
        with pytest.raises(TypeError):
            co.context(bad if bad != 1 else 1.5)
    with pytest.raises(TypeError):
        co.malloc("8")
    with pytest.raises(TypeError):
        co.to_device([1], stream=3)
    s = clstream.Stream()
    s.destroy()
    with pytest.raises(clstream.InvalidResourceHandle):
        co.queue(s)
    e = clstream.Event()
    e.destroy()
    with pytest.raises(clstream.InvalidResourceHandle):
        co.event(e)
    with pytest.raises(clstream.InvalidDevice):
        co.context(clstream.device_count())
