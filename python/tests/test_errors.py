"""clstream.Error: one subclass per code of the C list, CUDA's names and
numbers, the library's reason."""

import clstream
from clstream import _errors
from clstream._lib import lib


def test_one_class_per_code_of_the_c_list():
    for code in range(1, 1000):
        name = lib.clsGetErrorNameCuda(code).decode()
        if name == "unrecognized error code":
            continue
        cls = _errors.error_class(code)
        assert cls is not clstream.Error, code
        assert "cudaError" + cls.__name__ == name
        assert getattr(clstream, cls.__name__) is cls
        assert issubclass(cls, clstream.Error) and issubclass(cls, RuntimeError)


def test_fields():
    try:
        clstream.set_device(clstream.device_count() + 5)
    except clstream.InvalidDevice as e:
        assert e.code == 101
        assert e.name == "cudaErrorInvalidDevice"
        assert e.cls_name == "clsErrorInvalidDevice"
        assert e.reason and e.reason in str(e)
    else:
        raise AssertionError("no error")
    assert lib.clsGetLastError() == 0  # raising cleared the last error


def test_invalid_value_is_a_value_error():
    assert issubclass(clstream.InvalidValue, ValueError)
