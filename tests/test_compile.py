"""The Encoder as deployed code: one graph under torch.compile(fullgraph=True), exported by
torch.export, no host sync on CUDA; the id check that costs nothing where it runs.

A small model keeps these fast on two CPU cores: the "eager" backend runs the captured graph
with PyTorch's own kernels, so the test proves there is no graph break without paying for code
generation.
"""

import pytest
import torch

from encoder import Encoder, causal_mask

pytestmark = pytest.mark.usefixtures("device")


@pytest.fixture
def model_and_ids():
    torch.manual_seed(0)
    enc = Encoder(vocab_size=11, d_model=8, n_head=2, d_ff=16, n_layers=1, max_len=8).eval()
    ids = torch.tensor([[3, 4, 5, 0, 0], [6, 7, 8, 9, 10]])  # 0 is the padding id
    return enc, ids


def test_compiles_into_one_graph(model_and_ids):
    """fullgraph=True raises at the first graph break: a branch on tensor values (the old id
    check did three) or a host sync would."""
    enc, ids = model_and_ids
    compiled = torch.compile(enc, backend="eager", fullgraph=True)
    torch.testing.assert_close(compiled(ids), enc(ids))


def test_exports_with_a_mask(model_and_ids):
    """The exported program holds the whole forward, the mask combined with the padding."""
    enc, ids = model_and_ids
    causal = causal_mask(5)
    program = torch.export.export(enc, (ids, causal))
    torch.testing.assert_close(program.module()(ids, causal), enc(ids, causal))


def test_bad_ids_still_fail_when_compiled(model_and_ids, device):
    """Compiled, the package skips its own range check; the embedding kernel's bounds check
    stands in (on the CPU an IndexError; eager CPU mode gives the package's ValueError)."""
    if device != "cpu":  # on CUDA the kernel's check is a device-side assert: the CUDA context ends
        pytest.skip("a device-side assert would end the CUDA context of the test session")
    enc, ids = model_and_ids
    bad = ids.clone()
    bad[0, 0] = 11
    with pytest.raises(ValueError, match=r"token ids must be in \[0, 11\), got min 0 and max 11"):
        enc(bad)
    compiled = torch.compile(enc, backend="eager", fullgraph=True)
    with pytest.raises(IndexError, match="index out of range"):
        compiled(bad)


def test_no_host_sync_on_cuda(model_and_ids, device):
    """A training step never waits for the GPU: any synchronisation raises in this mode."""
    if device != "cuda":
        pytest.skip("host syncs exist on CUDA only")
    enc, ids = model_and_ids
    enc.train()
    torch.cuda.set_sync_debug_mode("error")
    try:
        out = enc(ids, causal_mask(5))
        out.sum().backward()
        enc.eval()(ids)
    finally:
        torch.cuda.set_sync_debug_mode("default")


@pytest.mark.filterwarnings("ignore:There is a performance drop")  # vmap's fallback for SDPA
def test_vmap_over_a_batch_of_batches(model_and_ids):
    """torch.func.vmap cannot branch on values: the id check steps aside, as when compiled."""
    enc, ids = model_and_ids
    stacked = torch.stack([ids, ids.flip(0)])  # (2, B, T)
    out = torch.func.vmap(enc)(stacked)
    torch.testing.assert_close(out[0], enc(ids))
    torch.testing.assert_close(out[1], enc(ids.flip(0)))
