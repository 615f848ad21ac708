"""Shared fixtures for the package tests: the seed, one thread, and the device.

A package test module opts in to devices with ``pytestmark = pytest.mark.usefixtures("device")``.
Its tests then run once on the CPU and, when a GPU is present, once more on CUDA, with CUDA as
the default device (``with torch.device("cuda")``), so the tensors and modules a test creates
land there without naming a device. A test that takes ``dtype`` without parametrising it runs in
float32 and float64 on every device, and in float16 and bfloat16 too on CUDA (where PyTorch's
fused kernels have low-precision paths worth comparing with; the CPU keeps CI short).
"""

from collections.abc import Iterator

import pytest
import torch
from hypothesis import HealthCheck, settings
from support import FLOAT_DTYPES, LOW_DTYPES

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])

# The device fixture is function-scoped; reusing it across a property test's examples is right.
settings.register_profile("package", suppress_health_check=[HealthCheck.function_scoped_fixture])
settings.load_profile("package")


def dtypes_on(device: str) -> list[torch.dtype]:
    return FLOAT_DTYPES + (LOW_DTYPES if device == "cuda" else [])


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "device" not in metafunc.fixturenames:
        return
    given = {
        name.strip()
        for mark in metafunc.definition.iter_markers("parametrize")
        for name in (mark.args[0].split(",") if isinstance(mark.args[0], str) else mark.args[0])
    }
    if "dtype" in metafunc.fixturenames and "dtype" not in given:
        pairs = [(dev, dt) for dev in DEVICES for dt in dtypes_on(dev)]
        ids = [f"{dev}-{str(dt).removeprefix('torch.')}" for dev, dt in pairs]
        metafunc.parametrize(("device", "dtype"), pairs, indirect=["device"], ids=ids)
    else:
        metafunc.parametrize("device", DEVICES, indirect=True)


@pytest.fixture
def device(request: pytest.FixtureRequest) -> Iterator[str]:
    """The device name, "cpu" or "cuda"; on CUDA, the default device during the test."""
    if request.param == "cpu":  # the default already: no device mode on the CPU's hot path
        yield "cpu"
        return
    with torch.device(request.param):
        yield request.param


@pytest.fixture(autouse=True)
def _seed_and_one_thread() -> Iterator[None]:
    """Every test starts from the same seed, on one thread.

    The tensors here are tiny: with several threads, start-up and contention cost more than
    the arithmetic, and a busy machine made the suite 3x slower. The thread count is put back
    afterwards, so nothing else in the session (the doc fences) is affected.
    """
    torch.manual_seed(0)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
