"""Encoder: embedding + N layers (+ final norm in pre-norm), padding-invariant, torch parity,
an explicit mask combined with the padding mask, checkpoints across max_len."""

import io

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from support import D_FF, FLOAT_DTYPES, SMALL_SIZES, assert_parity, key_padding, randomize_
from torch import nn

from encoder import (
    Encoder,
    EncoderLayer,
    LayerNorm,
    TransformerEmbedding,
    causal_mask,
    padding_mask,
)

pytestmark = pytest.mark.usefixtures("device")

# vocab_size, d_model, n_head, d_ff, n_layers, max_len
CONFIGS = [(11, 8, 2, 16, 1, 12), (50, 16, 4, 32, 2, 20), (30, 12, 3, 24, 3, 9)]


def make_encoder(config=CONFIGS[1], norm_first=False, dtype=torch.float32, **kw):
    vocab_size, d_model, n_head, d_ff, n_layers, max_len = config
    enc = Encoder(vocab_size, d_model, n_head, d_ff, n_layers, max_len, norm_first=norm_first, **kw)
    return randomize_(enc).to(dtype).eval()


def random_ids(B, T, vocab_size, pad=0):
    """(B, T) ids with real tokens in [1, vocab) and padding at the end of all rows but one."""
    ids = torch.randint(1, vocab_size, (B, T))
    return ids.masked_fill(key_padding(B, T), pad)


def torch_reference(ours: Encoder, norm_first: bool, nested: bool) -> nn.TransformerEncoder:
    """An nn.TransformerEncoder with different random weights per layer, copied into ``ours``."""
    layer0 = ours.layers[0]
    d_model, n_head = layer0.self_attn.d_model, layer0.self_attn.n_head
    d_ff, n_layers = layer0.ff.linear1.out_features, len(ours.layers)
    dtype = layer0.norm1.gamma.dtype
    layer = nn.TransformerEncoderLayer(
        d_model, n_head, d_ff, batch_first=True, norm_first=norm_first, dtype=dtype
    )
    norm = nn.LayerNorm(d_model, dtype=dtype) if norm_first else None
    ref = nn.TransformerEncoder(layer, n_layers, norm=norm, enable_nested_tensor=nested)
    with torch.no_grad():
        for p in ref.parameters():  # the layers are deep copies of one: make them differ
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
    randomize_(ref).eval()
    ours.layers = nn.ModuleList(EncoderLayer.from_torch(lay) for lay in ref.layers)
    if norm_first:
        ours.norm = LayerNorm.from_torch(ref.norm)
    return ref


@pytest.mark.parametrize("padded", [False, True], ids=["unpadded", "padded"])
@pytest.mark.parametrize("norm_first", [False, True], ids=["post_norm", "pre_norm"])
@pytest.mark.parametrize("config", CONFIGS)
def test_parity_with_nn_transformer_encoder(config, dtype, norm_first, padded):
    ours = make_encoder(config, norm_first, dtype)
    ref = torch_reference(ours, norm_first, nested=False).eval()
    ours.eval()
    vocab_size, max_len = config[0], config[-1]
    ids = random_ids(3, max_len, vocab_size) if padded else torch.randint(1, vocab_size, (3, 7))
    expected = ref(ours.embedding(ids), src_key_padding_mask=ids == ours.padding_idx)
    assert_parity(ours(ids), expected, dtype)


@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors:UserWarning")
def test_parity_with_nested_tensor_path_at_real_positions(dtype):
    """nn.TransformerEncoder's nested-tensor fast path (eval, no_grad, post-norm) drops padded
    positions (on the CPU it returns 0 there). Ours computes them, as nn.TransformerEncoderLayer
    does: a padded query attends to the real keys. The two agree at every real position."""
    ours = make_encoder(CONFIGS[1], False, dtype)
    ref = torch_reference(ours, norm_first=False, nested=True).eval()
    ours.eval()
    ids = random_ids(3, 10, CONFIGS[1][0])
    pad = ids == ours.padding_idx
    with torch.no_grad():
        expected = ref(ours.embedding(ids), src_key_padding_mask=pad)
        out = ours(ids)
    assert pad.any()
    assert torch.isfinite(out).all() and (out[pad] != 0).any(dim=-1).all()
    assert_parity(out[~pad], expected[~pad], dtype)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("extra", [1, 5])
def test_padding_does_not_change_real_positions(extra, dtype, norm_first):
    enc = make_encoder(CONFIGS[1], norm_first, dtype)
    ids = torch.randint(1, 50, (1, 8))
    padded = torch.cat([ids, torch.zeros(1, extra, dtype=torch.long)], dim=1)
    assert_parity(enc(padded)[:, :8], enc(ids), dtype)


@pytest.mark.parametrize("norm_first", [False, True])
def test_batch_of_different_lengths_equals_each_alone(norm_first):
    enc = make_encoder(CONFIGS[1], norm_first, torch.float64)
    ids = random_ids(4, 10, 50)
    out = enc(ids)
    for b in range(4):
        n = int((ids[b] != 0).sum())
        assert_parity(out[b, :n], enc(ids[b : b + 1, :n])[0], torch.float64)


@pytest.mark.parametrize("norm_first", [False, True])
def test_all_padding_sequence_trains_with_finite_gradients(norm_first):
    enc = make_encoder(norm_first=norm_first).train()
    ids = torch.zeros(2, 6, dtype=torch.long)
    ids[1, :3] = torch.tensor([4, 5, 6])  # sequence 0: nothing but padding
    out = enc(ids)
    assert torch.isfinite(out).all()
    (out * torch.randn_like(out)).sum().backward()
    for name, p in enc.named_parameters():
        assert torch.isfinite(p.grad).all(), name


def test_explicit_mask_is_combined_with_the_padding_mask():
    """A mask that allows everything leaves padding keys masked; a causal mask becomes
    causal & padding, as nn.TransformerEncoder combines mask and src_key_padding_mask."""
    enc = make_encoder()
    ids = random_ids(3, 8, 50)
    everything = torch.ones(1, dtype=torch.bool)  # (1,) broadcasts: every key allowed
    assert_parity(enc(ids, everything), enc(ids), torch.float32)

    causal = causal_mask(8)
    x = enc.embedding(ids)
    for layer in enc.layers:
        x = layer(x, causal & padding_mask(ids, 0))
    assert_parity(enc(ids, causal), x, torch.float32)
    ref = torch_reference(enc, norm_first=False, nested=False).eval()
    expected = ref(enc.embedding(ids), mask=~causal, src_key_padding_mask=ids == 0)
    assert_parity(enc(ids, causal), expected, torch.float32)


def test_padding_idx_attribute():
    assert make_encoder().padding_idx == 0
    enc = make_encoder(padding_idx=3)
    assert enc.padding_idx == 3
    assert enc.embedding.token.padding_idx == 3
    assert make_encoder(padding_idx=None).padding_idx is None


def test_padding_idx_none_means_no_mask_and_no_zero_row():
    enc = make_encoder(padding_idx=None)
    assert (enc.embedding.token.weight != 0).any(dim=1).all()
    ids = torch.tensor([[0, 5, 0, 7]])
    x = enc.embedding(ids)
    expected = x
    for layer in enc.layers:
        expected = layer(expected)
    assert_parity(enc(ids), expected, torch.float32)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("config", CONFIGS)
def test_parameter_count_is_the_sum_of_components(config, norm_first):
    vocab_size, d, h, d_ff, n_layers, max_len = config
    enc = make_encoder(config, norm_first)
    attention = 4 * d * d + 4 * d  # W_Q, W_K, W_V, W_O and their biases
    ffn = 2 * d * d_ff + d_ff + d
    per_layer = attention + ffn + 2 * 2 * d  # two LayerNorms
    expected = vocab_size * d + n_layers * per_layer + (2 * d if norm_first else 0)
    count = sum(p.numel() for p in enc.parameters())
    assert count == expected

    components = [TransformerEmbedding(vocab_size, d, max_len)]
    components += [EncoderLayer(d, h, d_ff, norm_first=norm_first) for _ in range(n_layers)]
    components += [LayerNorm(d)] if norm_first else []
    assert count == sum(p.numel() for m in components for p in m.parameters())


def test_padding_row_gets_no_gradient():
    enc = make_encoder().train()
    ids = random_ids(3, 12, 50)
    assert (ids == 0).any()
    out = enc(ids)
    (out * torch.randn_like(out)).sum().backward()
    emb_grad = enc.embedding.token.weight.grad
    assert torch.equal(emb_grad[0], torch.zeros_like(emb_grad[0])), "padding row gets no gradient"
    used = ids[ids != 0].unique()
    assert (emb_grad[used] != 0).any(dim=-1).all()


def test_checkpoint_loads_into_another_max_len():
    """The positional table is not saved: a checkpoint holds the learned weights only, and
    loads into a model built for longer sequences, which computes the same outputs."""
    enc = make_encoder()  # max_len 20
    buf = io.BytesIO()
    torch.save(enc.state_dict(), buf)
    buf.seek(0)
    longer = Encoder(50, 16, 4, 32, 2, max_len=64).eval()
    longer.load_state_dict(torch.load(buf))
    ids = random_ids(2, 9, 50)
    assert torch.equal(longer(ids), enc(ids))
    assert longer(torch.randint(1, 50, (1, 64))).shape == (1, 64, 16)


@given(
    **SMALL_SIZES,
    vocab_size=st.integers(2, 30),
    d_ff=D_FF,
    n_layers=st.integers(1, 3),
    T=st.integers(1, 8),
    extra_len=st.integers(0, 4),
    norm_first=st.booleans(),
    use_padding=st.booleans(),
)
@settings(max_examples=30, deadline=None)
def test_property_output_shape_and_finite(
    vocab_size, d_head, n_head, d_ff, n_layers, B, T, extra_len, norm_first, use_padding, seed
):
    torch.manual_seed(seed)
    d_model = d_head * n_head
    enc = Encoder(
        vocab_size,
        d_model,
        n_head,
        d_ff,
        n_layers,
        max_len=T + extra_len,
        padding_idx=0 if use_padding else None,
        norm_first=norm_first,
    )
    ids = torch.randint(0, vocab_size, (B, T))
    out = enc(ids)
    assert out.shape == (B, T, d_model)
    assert torch.isfinite(out).all()
