"""Shared fixtures for the package tests."""

from collections.abc import Iterator

import pytest
import torch


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
