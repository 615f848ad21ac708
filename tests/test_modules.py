"""What every module of the package promises, written once and run over all of them: a
state_dict round trip, dtype and device moves, dropout in training only, gradients to every
parameter; from_torch keeps the source's mode."""

import io

import pytest
import torch
from support import (
    ALL_DTYPES,
    LOW_DTYPES,
    assert_close_low_precision,
    key_padding,
    randomize_,
    to_our_mask,
)
from torch import nn

import encoder as E  # the tables below name each class: E.Encoder, E.LayerNorm, ...

pytestmark = pytest.mark.usefixtures("device")

EMB = {"padding_idx": 0, "scale": False, "positions": "learned",
       "n_token_types": 2, "norm": True, "eps": 1e-12}  # fmt: skip
BERT = {"scale_embedding": False, "positions": "learned", "n_token_types": 2,
        "embedding_norm": True, "eps": 1e-12, "activation": "gelu"}  # fmt: skip
# name -> (build with dropout p, input kind): "ids" (B, T) token ids, "x" (B, T, 8) floats,
# "qkv" the same x as query, key and value.
MODULES = {
    "TokenEmbedding": (lambda p: E.TokenEmbedding(10, 8, padding_idx=0), "ids"),
    "PositionalEncoding": (lambda p: E.PositionalEncoding(8, max_len=10, dropout=p), "x"),
    "TransformerEmbedding": (lambda p: E.TransformerEmbedding(10, 8, 10, p, padding_idx=0), "ids"),
    "LayerNorm": (lambda p: E.LayerNorm(8), "x"),
    "PositionwiseFeedForward": (lambda p: E.PositionwiseFeedForward(8, 16, p), "x"),
    "MultiHeadAttention": (lambda p: E.MultiHeadAttention(8, 2, p), "qkv"),
    "EncoderLayer": (lambda p: E.EncoderLayer(8, 2, 16, p), "x"),
    "EncoderLayer, pre-norm": (lambda p: E.EncoderLayer(8, 2, 16, p, norm_first=True), "x"),
    "Encoder": (lambda p: E.Encoder(10, 8, 2, 16, 2, 10, p), "ids"),
    "Encoder, pre-norm": (lambda p: E.Encoder(10, 8, 2, 16, 2, 10, p, norm_first=True), "ids"),
    # BERT's options: learned positions, GELU, token types, the embedding's LayerNorm
    "LearnedPositionalEncoding": (lambda p: E.LearnedPositionalEncoding(8, 10, p), "x"),
    "PositionwiseFeedForward, GELU": (lambda p: E.PositionwiseFeedForward(8, 16, p, "gelu"), "x"),
    "TransformerEmbedding, BERT": (lambda p: E.TransformerEmbedding(10, 8, 10, p, **EMB), "ids"),
    "EncoderLayer, GELU": (lambda p: E.EncoderLayer(8, 2, 16, p, activation="gelu"), "x"),
    "Encoder, BERT": (lambda p: E.Encoder(10, 8, 2, 16, 2, 10, p, **BERT), "ids"),
}  # fmt: skip
WITH_DROPOUT = [n for n in MODULES if n not in ("TokenEmbedding", "LayerNorm")]
WITH_PARAMETERS = [n for n in MODULES if n != "PositionalEncoding"]
WITH_MASKS = [n for n in MODULES if n.startswith(("MultiHead", "Encoder"))]


def build(name: str, dropout: float = 0.0) -> nn.Module:
    return randomize_(MODULES[name][0](dropout)).eval()


def inputs(name: str, dtype: torch.dtype = torch.float32) -> tuple[torch.Tensor, ...]:
    kind = MODULES[name][1]
    if kind == "ids":
        ids = torch.randint(1, 10, (2, 5))
        ids[0, 3:] = 0  # padding at the end of the first row
        return (ids,)
    x = torch.randn(2, 5, 8).to(dtype)
    return (x, x, x) if kind == "qkv" else (x,)


def tensors(module: nn.Module) -> dict[str, torch.Tensor]:
    return dict(module.named_parameters()) | dict(module.named_buffers())


@pytest.mark.parametrize("name", MODULES)
def test_state_dict_round_trip(name):
    module = build(name)
    buf = io.BytesIO()
    torch.save(module.state_dict(), buf)
    buf.seek(0)
    torch.manual_seed(1)  # another initialisation, overwritten by the load
    fresh = build(name)
    fresh.load_state_dict(torch.load(buf))
    args = inputs(name)
    assert torch.equal(fresh(*args), module(*args))


@pytest.mark.parametrize("name", MODULES)
def test_to_float64_moves_every_parameter_and_buffer(name):
    module = build(name).to(torch.float64)
    assert {t.dtype for t in tensors(module).values()} == {torch.float64}
    assert module(*inputs(name, torch.float64)).dtype == torch.float64


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("name", MODULES)
def test_output_dtype_follows_module(name, dtype):
    out = build(name).to(dtype)(*inputs(name, dtype))
    assert out.dtype == dtype
    assert torch.isfinite(out).all()


@pytest.mark.parametrize("name", MODULES)
def test_device_move_moves_every_parameter_and_buffer(name, device):
    """Built on the CPU, moved with .to(): on a GPU to CUDA, else to the meta device (shapes
    without data). A tensor kept as a plain attribute would stay behind."""
    target = torch.device(device if device != "cpu" else "meta")
    with torch.device("cpu"):
        module = build(name)
    module.to(target)
    assert {t.device.type for t in tensors(module).values()} == {target.type}
    with torch.device(target):
        assert module(*inputs(name)).device.type == target.type


@pytest.mark.parametrize("name", WITH_DROPOUT)
def test_dropout_in_training_only(name):
    module = build(name, dropout=0.5)
    args = inputs(name)
    assert torch.equal(module(*args), module(*args))
    module.train()
    assert not torch.equal(module(*args), module(*args))


@pytest.mark.parametrize("name", WITH_PARAMETERS)
def test_gradients_reach_every_parameter(name):
    module = build(name, dropout=0.1).train()
    out = module(*inputs(name))
    (out * torch.randn_like(out)).sum().backward()
    for param_name, p in module.named_parameters():
        assert p.grad is not None, param_name
        assert torch.isfinite(p.grad).all(), param_name
        assert (p.grad != 0).any(), param_name


@pytest.mark.parametrize("dtype", LOW_DTYPES)
@pytest.mark.parametrize("name", WITH_MASKS)
def test_low_precision_with_padding_matches_float32(name, dtype):
    """The encoder post's masked_fill(mask == 0, -1e9) overflows fp16; the package fills masked
    scores with finfo(dtype).min and stays within fp16/bf16 rounding of float32."""
    module = build(name)
    args = inputs(name)
    if MODULES[name][1] != "ids":  # the Encoder masks its padding ids itself
        args = (*args, to_our_mask(key_padding(2, 5)))
    ref = module(*args)
    low = module.to(dtype)(*(a.to(dtype) if a.is_floating_point() else a for a in args))
    assert low.dtype == dtype
    assert_close_low_precision(low, ref)


FROM_TORCH = {
    "LayerNorm": (lambda: nn.LayerNorm(8), E.LayerNorm),
    "MultiHeadAttention": (lambda: nn.MultiheadAttention(8, 2), E.MultiHeadAttention),
    "EncoderLayer": (lambda: nn.TransformerEncoderLayer(8, 2, 16), E.EncoderLayer),
    "EncoderLayer, GELU": (
        lambda: nn.TransformerEncoderLayer(8, 2, 16, activation="gelu"),
        E.EncoderLayer,
    ),
}


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("name", FROM_TORCH)
def test_from_torch_keeps_the_mode(name, training):
    make_theirs, ours = FROM_TORCH[name]
    theirs = make_theirs().train(training)
    copy = ours.from_torch(theirs)
    assert all(m.training is training for m in copy.modules())
