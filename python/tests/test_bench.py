"""python -m clstream.bench runs (a smoke test: no figure is checked)."""

import pytest

from clstream import bench
from clstream._lib import backend


def test_bench_runs(capsys, tmp_path):
    if backend == "OpenCL":
        pytest.importorskip("pyopencl", reason="the OpenCL rows need PyOpenCL")
    out = tmp_path / "b.json"
    assert bench.main(["--quick", "--scenario", "query_done,record_sync", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "query_done" in text and "record_sync" in text
    assert out.read_text().startswith("{")
