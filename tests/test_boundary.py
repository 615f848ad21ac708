# ruff: noqa: E501  (a table: one case a line reads better than one case per five lines)
"""The boundary: every argument of every public class and function, given a value of the wrong
kind or out of range, raises TypeError or ValueError naming the value, before any computation.

One row per case: (what, argument, call, exception, message). A last test checks that every
argument of every public signature has a row, so a new argument cannot go unchecked.
"""

import inspect

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

import encoder
from encoder import (
    Encoder,
    EncoderLayer,
    LayerNorm,
    LearnedPositionalEncoding,
    MultiHeadAttention,
    PositionalEncoding,
    PositionwiseFeedForward,
    SentenceClassifier,
    Task,
    TokenClassifier,
    TokenEmbedding,
    TransformerEmbedding,
    attention_maps,
    causal_mask,
    evaluate,
    layer_norm,
    lr_factor,
    padding_mask,
    predict,
    pretrained,
    remove_score_scaling,
    scaled_dot_product_attention,
    sinusoidal_table,
    token_accuracy,
    token_loss,
    train,
)

pytestmark = pytest.mark.usefixtures("device")


def x(*shape, dtype=torch.float32):
    return torch.randn(shape or (2, 5, 8)).to(dtype)


def ids(*shape, high=10):
    return torch.randint(0, high, shape or (2, 5))


def mha():
    return MultiHeadAttention(8, 2)


def bool_mask(*shape):
    return torch.ones(shape, dtype=torch.bool)


def enc(**kw):
    return Encoder(**({"vocab_size": 10, "d_model": 8, "n_head": 2, "d_ff": 16, "n_layers": 1,
                       "max_len": 10} | kw))  # fmt: skip


def layer(**kw):
    return EncoderLayer(**({"d_model": 8, "n_head": 2, "d_ff": 16} | kw))


def torch_layer(activation="relu", norm2_eps=1e-5, self_attn=None):
    ref = nn.TransformerEncoderLayer(8, 2, 16, activation=activation, batch_first=True)
    ref.norm2.eps = norm2_eps
    ref.self_attn = self_attn or ref.self_attn
    return ref


def word_level():
    """A tokenizers.Tokenizer of two words."""
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel

    return Tokenizer(WordLevel({"a": 1, "[UNK]": 0}, unk_token="[UNK]"))


def clf(n_classes=10, **kw):
    return TokenClassifier(enc(**kw), n_classes)


SORT = Task("sort", vocab_size=10, max_len=8)


def fit(what, model=None, task=SORT, **kw):
    """Call train or evaluate with one changed argument."""
    if what is train:
        kw = {"steps": 1, "eval_every": 0} | kw
    return what(model or clf(), task, **kw)


LIST = [[1.0, 2.0]]
ARRAY = np.zeros((2, 5, 8), dtype=np.float32)
IDS_ARRAY = np.zeros((2, 5), dtype=np.int64)

CASES = [
    # ---- TokenEmbedding
    ("TokenEmbedding", "vocab_size", lambda: TokenEmbedding(0, 8), ValueError, "vocab_size must be >= 1, got 0"),
    ("TokenEmbedding", "vocab_size", lambda: TokenEmbedding(2.5, 8), TypeError, "vocab_size must be an int, got float 2.5"),
    ("TokenEmbedding", "d_model", lambda: TokenEmbedding(10, -1), ValueError, "d_model must be >= 1, got -1"),
    ("TokenEmbedding", "d_model", lambda: TokenEmbedding(10, "8"), TypeError, "d_model must be an int, got str '8'"),
    ("TokenEmbedding", "padding_idx", lambda: TokenEmbedding(10, 8, padding_idx=10), ValueError, r"padding_idx \(10\) must be in \[0, 10\)"),
    ("TokenEmbedding", "padding_idx", lambda: TokenEmbedding(10, 8, padding_idx=-1), ValueError, r"padding_idx \(-1\) must be in \[0, 10\)"),
    ("TokenEmbedding", "padding_idx", lambda: TokenEmbedding(10, 8, padding_idx=1.0), TypeError, "padding_idx must be an int, got float 1.0"),
    ("TokenEmbedding", "scale", lambda: TokenEmbedding(10, 8, scale=1), TypeError, "scale must be a bool, got int 1"),
    ("TokenEmbedding.forward", "ids", lambda: TokenEmbedding(10, 8)(IDS_ARRAY), TypeError, "ids must be a torch.Tensor, got ndarray"),
    ("TokenEmbedding.forward", "ids", lambda: TokenEmbedding(10, 8)([[1, 2]]), TypeError, "ids must be a torch.Tensor, got list"),
    ("TokenEmbedding.forward", "ids", lambda: TokenEmbedding(10, 8)(ids().float()), TypeError, r"int64 or int32 token ids, got torch\.float32"),
    ("TokenEmbedding.forward", "ids", lambda: TokenEmbedding(10, 8)(ids().short()), TypeError, r"int64 or int32 token ids, got torch\.int16"),
    ("TokenEmbedding.from_pretrained", "embeddings", lambda: TokenEmbedding.from_pretrained([[1.0]]), TypeError, "embeddings must be a torch.Tensor, got list"),
    ("TokenEmbedding.from_pretrained", "embeddings", lambda: TokenEmbedding.from_pretrained(x(3, 4, 5)), ValueError, r"embeddings must have shape \(vocab_size, d_model\), got \(3, 4, 5\)"),
    ("TokenEmbedding.from_pretrained", "freeze", lambda: TokenEmbedding.from_pretrained(x(3, 4), freeze="no"), TypeError, "freeze must be a bool, got str 'no'"),
    ("TokenEmbedding.from_pretrained", "padding_idx", lambda: TokenEmbedding.from_pretrained(x(3, 4), padding_idx=3), ValueError, r"padding_idx \(3\) must be in \[0, 3\)"),
    ("TokenEmbedding.from_pretrained", "scale", lambda: TokenEmbedding.from_pretrained(x(3, 4), scale=None), TypeError, "scale must be a bool, got NoneType None"),
    # ---- sinusoidal_table, PositionalEncoding
    ("sinusoidal_table", "n_positions", lambda: sinusoidal_table(0, 4), ValueError, "n_positions must be >= 1, got 0"),
    ("sinusoidal_table", "d_model", lambda: sinusoidal_table(4, -2), ValueError, "d_model must be >= 1, got -2"),
    ("sinusoidal_table", "d_model", lambda: sinusoidal_table(4, 4.0), TypeError, "d_model must be an int, got float 4.0"),
    ("sinusoidal_table", "dtype", lambda: sinusoidal_table(4, 4, torch.int64), TypeError, r"floating-point torch.dtype, got torch\.int64"),
    ("sinusoidal_table", "dtype", lambda: sinusoidal_table(4, 4, "float32"), TypeError, "floating-point torch.dtype, got 'float32'"),
    ("PositionalEncoding", "d_model", lambda: PositionalEncoding(0), ValueError, "d_model must be >= 1, got 0"),
    ("PositionalEncoding", "max_len", lambda: PositionalEncoding(8, max_len=0), ValueError, "max_len must be >= 1, got 0"),
    ("PositionalEncoding", "dropout", lambda: PositionalEncoding(8, dropout=1.5), ValueError, r"dropout must be in \[0, 1\], got 1.5"),
    ("PositionalEncoding", "dropout", lambda: PositionalEncoding(8, dropout=float("nan")), ValueError, r"dropout must be in \[0, 1\], got nan"),
    ("PositionalEncoding", "dropout", lambda: PositionalEncoding(8, dropout="0.1"), TypeError, "dropout must be a float, got str '0.1'"),
    ("PositionalEncoding.forward", "x", lambda: PositionalEncoding(8)(ARRAY), TypeError, "x must be a torch.Tensor, got ndarray"),
    ("PositionalEncoding.forward", "x", lambda: PositionalEncoding(8)(ids(2, 5, 8)), TypeError, r"x must be a floating-point tensor, got torch\.int64"),
    ("PositionalEncoding.forward", "x", lambda: PositionalEncoding(8)(x(5, 8)), ValueError, r"x must have shape \(B, T, 8\), got \(5, 8\)"),
    ("PositionalEncoding.forward", "x", lambda: PositionalEncoding(8, max_len=4)(x()), ValueError, "sequence length 5 exceeds max_len=4"),
    # ---- TransformerEmbedding
    ("TransformerEmbedding", "vocab_size", lambda: TransformerEmbedding(0, 8, 10), ValueError, "vocab_size must be >= 1, got 0"),
    ("TransformerEmbedding", "d_model", lambda: TransformerEmbedding(10, 0, 10), ValueError, "d_model must be >= 1, got 0"),
    ("TransformerEmbedding", "max_len", lambda: TransformerEmbedding(10, 8, -3), ValueError, "max_len must be >= 1, got -3"),
    ("TransformerEmbedding", "dropout", lambda: TransformerEmbedding(10, 8, 10, dropout=-0.1), ValueError, r"dropout must be in \[0, 1\], got -0.1"),
    ("TransformerEmbedding", "padding_idx", lambda: TransformerEmbedding(10, 8, 10, padding_idx=12), ValueError, r"padding_idx \(12\) must be in \[0, 10\)"),
    ("TransformerEmbedding", "scale", lambda: TransformerEmbedding(10, 8, 10, scale=0), TypeError, "scale must be a bool, got int 0"),
    ("TransformerEmbedding", "positions", lambda: TransformerEmbedding(10, 8, 10, positions="rotary"), ValueError, "positions must be one of 'sinusoidal', 'learned', got 'rotary'"),
    ("TransformerEmbedding", "n_token_types", lambda: TransformerEmbedding(10, 8, 10, n_token_types=-1), ValueError, "n_token_types must be >= 0, got -1"),
    ("TransformerEmbedding", "n_token_types", lambda: TransformerEmbedding(10, 8, 10, n_token_types=2.0), TypeError, "n_token_types must be an int, got float 2.0"),
    ("TransformerEmbedding", "norm", lambda: TransformerEmbedding(10, 8, 10, norm="yes"), TypeError, "norm must be a bool, got str 'yes'"),
    ("TransformerEmbedding", "eps", lambda: TransformerEmbedding(10, 8, 10, eps=-1e-12), ValueError, "eps must be positive and finite, got -1e-12"),
    ("TransformerEmbedding.forward", "ids", lambda: TransformerEmbedding(10, 8, 10)([[1, 2]]), TypeError, "ids must be a torch.Tensor, got list"),
    ("TransformerEmbedding.forward", "ids", lambda: TransformerEmbedding(10, 8, 10)(ids(5)), ValueError, r"ids must have shape \(B, T\), got \(5,\)"),
    ("TransformerEmbedding.forward", "token_types", lambda: TransformerEmbedding(10, 8, 10)(ids(), ids(high=2)), ValueError, r"token_types given, but this embedding has no token-type table \(n_token_types=0\)"),
    ("TransformerEmbedding.forward", "token_types", lambda: TransformerEmbedding(10, 8, 10, n_token_types=2)(ids(), ids(2, 4, high=2)), ValueError, r"token_types must have shape \(2, 5\), got \(2, 4\)"),
    ("TransformerEmbedding.forward", "token_types", lambda: TransformerEmbedding(10, 8, 10, n_token_types=2)(ids(), ids(high=2).float()), TypeError, r"token_types must be int64 or int32 token ids, got torch\.float32"),
    ("TransformerEmbedding.forward", "token_types", lambda: TransformerEmbedding(10, 8, 10, n_token_types=2)(ids(), ids(high=1) + 2), ValueError, r"token_types must be in \[0, 2\), got min 2"),
    ("TransformerEmbedding.forward", "ids", lambda: TransformerEmbedding(10, 8, 4)(ids()), ValueError, "sequence length 5 exceeds max_len=4"),
    # ---- LayerNorm, layer_norm
    ("LayerNorm", "d_model", lambda: LayerNorm(0), ValueError, "d_model must be >= 1, got 0"),
    ("LayerNorm", "eps", lambda: LayerNorm(8, eps=0.0), ValueError, "eps must be positive and finite, got 0.0"),
    ("LayerNorm", "eps", lambda: LayerNorm(8, eps=-1e-5), ValueError, "eps must be positive and finite, got -1e-05"),
    ("LayerNorm", "eps", lambda: LayerNorm(8, eps=float("inf")), ValueError, "eps must be positive and finite, got inf"),
    ("LayerNorm", "eps", lambda: LayerNorm(8, eps="1e-5"), TypeError, "eps must be a float, got str '1e-5'"),
    ("LayerNorm.forward", "x", lambda: LayerNorm(8)(LIST), TypeError, "x must be a torch.Tensor, got list"),
    ("LayerNorm.forward", "x", lambda: LayerNorm(8)(ids(2, 8)), TypeError, r"floating-point tensor, got torch\.int64"),
    ("LayerNorm.forward", "x", lambda: LayerNorm(8)(x(2, 3, 9)), ValueError, r"x must have shape \(\.\.\., 8\), got \(2, 3, 9\)"),
    ("LayerNorm.from_torch", "norm", lambda: LayerNorm.from_torch(nn.Linear(8, 8)), TypeError, "norm must be a LayerNorm, got Linear"),
    ("LayerNorm.from_torch", "norm", lambda: LayerNorm.from_torch(nn.LayerNorm((4, 8))), ValueError, r"normalized_shape=\(4, 8\)"),
    ("LayerNorm.from_torch", "norm", lambda: LayerNorm.from_torch(nn.LayerNorm(8, elementwise_affine=False)), ValueError, "elementwise_affine=False"),
    ("layer_norm", "x", lambda: layer_norm(ARRAY, torch.ones(8), torch.zeros(8)), TypeError, "x must be a torch.Tensor, got ndarray"),
    ("layer_norm", "gamma", lambda: layer_norm(x(), torch.ones(7), torch.zeros(8)), ValueError, r"gamma must have shape \(8\), got \(7,\)"),
    ("layer_norm", "beta", lambda: layer_norm(x(), torch.ones(8), [0.0] * 8), TypeError, "beta must be a torch.Tensor, got list"),
    ("layer_norm", "eps", lambda: layer_norm(x(), torch.ones(8), torch.zeros(8), eps=0), ValueError, "eps must be positive and finite, got 0"),
    # ---- PositionwiseFeedForward
    ("PositionwiseFeedForward", "d_model", lambda: PositionwiseFeedForward(0, 16), ValueError, "d_model must be >= 1, got 0"),
    ("PositionwiseFeedForward", "d_ff", lambda: PositionwiseFeedForward(8, 0), ValueError, "d_ff must be >= 1, got 0"),
    ("PositionwiseFeedForward", "dropout", lambda: PositionwiseFeedForward(8, 16, dropout=2), ValueError, r"dropout must be in \[0, 1\], got 2"),
    ("PositionwiseFeedForward", "activation", lambda: PositionwiseFeedForward(8, 16, activation="tanh"), ValueError, "activation must be one of 'relu', 'gelu', got 'tanh'"),
    ("PositionwiseFeedForward", "activation", lambda: PositionwiseFeedForward(8, 16, activation=F.gelu), TypeError, "activation must be a str, got builtin_function_or_method"),
    ("PositionwiseFeedForward.forward", "x", lambda: PositionwiseFeedForward(8, 16)(ARRAY), TypeError, "x must be a torch.Tensor, got ndarray"),
    ("PositionwiseFeedForward.forward", "x", lambda: PositionwiseFeedForward(8, 16)(x(2, 5, 6)), ValueError, r"x must have shape \(\.\.\., 8\), got \(2, 5, 6\)"),
    ("PositionwiseFeedForward.forward", "x", lambda: PositionwiseFeedForward(8, 16)(ids(2, 8)), TypeError, r"floating-point tensor, got torch\.int64"),
    # ---- scaled_dot_product_attention
    ("scaled_dot_product_attention", "q", lambda: scaled_dot_product_attention(LIST, x(), x()), TypeError, "q must be a torch.Tensor, got list"),
    ("scaled_dot_product_attention", "q", lambda: scaled_dot_product_attention(x(8), x(), x()), ValueError, r"q must have shape \(\.\.\., T, d\), got \(8,\)"),
    ("scaled_dot_product_attention", "k", lambda: scaled_dot_product_attention(x(), x(2, 5, 4), x()), ValueError, r"share d_k.*k \(2, 5, 4\)"),
    ("scaled_dot_product_attention", "k", lambda: scaled_dot_product_attention(x(), ids(2, 5, 8), x()), TypeError, r"k must be a floating-point tensor, got torch\.int64"),
    ("scaled_dot_product_attention", "v", lambda: scaled_dot_product_attention(x(), x(), x(2, 6, 8)), ValueError, r"length Tk.*v \(2, 6, 8\)"),
    ("scaled_dot_product_attention", "v", lambda: scaled_dot_product_attention(x(), x(), ARRAY), TypeError, "v must be a torch.Tensor, got ndarray"),
    ("scaled_dot_product_attention", "q", lambda: scaled_dot_product_attention(x(3, 5, 8), x(2, 5, 8), x(2, 5, 8)), ValueError, r"do not broadcast: \(3, 5, 8\), \(2, 5, 8\)"),
    ("scaled_dot_product_attention", "mask", lambda: scaled_dot_product_attention(x(), x(), x(), x(2, 5, 5)), TypeError, r"bool tensor .*got torch\.float32"),
    ("scaled_dot_product_attention", "mask", lambda: scaled_dot_product_attention(x(), x(), x(), bool_mask(2, 5, 4)), ValueError, r"\(2, 5, 4\) does not broadcast"),
    ("scaled_dot_product_attention", "dropout_p", lambda: scaled_dot_product_attention(x(), x(), x(), dropout_p=1.5), ValueError, r"dropout_p must be in \[0, 1\], got 1.5"),
    # ---- MultiHeadAttention
    ("MultiHeadAttention", "d_model", lambda: MultiHeadAttention(0, 1), ValueError, "d_model must be >= 1, got 0"),
    ("MultiHeadAttention", "d_model", lambda: MultiHeadAttention(10, 3), ValueError, r"d_model \(10\) is not a multiple of n_head \(3\)"),
    ("MultiHeadAttention", "n_head", lambda: MultiHeadAttention(8, 0), ValueError, "n_head must be >= 1, got 0"),
    ("MultiHeadAttention", "n_head", lambda: MultiHeadAttention(8, 2.0), TypeError, "n_head must be an int, got float 2.0"),
    ("MultiHeadAttention", "dropout", lambda: MultiHeadAttention(8, 2, dropout=-1), ValueError, r"dropout must be in \[0, 1\], got -1"),
    ("MultiHeadAttention.forward", "q", lambda: mha()(LIST, x(), x()), TypeError, "q must be a torch.Tensor, got list"),
    ("MultiHeadAttention.forward", "q", lambda: mha()(x(2, 5, 12), x(), x()), ValueError, r"q must have shape \(B, T, 8\), got \(2, 5, 12\)"),
    ("MultiHeadAttention.forward", "q", lambda: mha()(x(5, 8), x(), x()), ValueError, r"q must have shape \(B, T, 8\), got \(5, 8\)"),
    ("MultiHeadAttention.forward", "q", lambda: mha()(x(3, 5, 8), x(), x()), ValueError, "q has batch 3 but k and v have batch 2"),
    ("MultiHeadAttention.forward", "k", lambda: mha()(x(), ARRAY, x()), TypeError, "k must be a torch.Tensor, got ndarray"),
    ("MultiHeadAttention.forward", "k", lambda: mha()(x(), x(2, 7, 8), x(2, 6, 8)), ValueError, r"length, got \(2, 7, 8\) and \(2, 6, 8\)"),
    ("MultiHeadAttention.forward", "v", lambda: mha()(x(), x(), x(3, 5, 8)), ValueError, r"batch and length, got \(2, 5, 8\) and \(3, 5, 8\)"),
    ("MultiHeadAttention.forward", "v", lambda: mha()(x(), x(), ids(2, 5, 8)), TypeError, r"v must be a floating-point tensor, got torch\.int64"),
    ("MultiHeadAttention.forward", "mask", lambda: mha()(x(), x(), x(), bool_mask(2, 1, 1, 4)), ValueError, r"\(2, 1, 1, 4\) does not broadcast .*\(2, 2, 5, 5\)"),
    ("MultiHeadAttention.forward", "mask", lambda: mha()(x(), x(), x(), torch.ones(2, 1, 1, 5, dtype=torch.uint8)), TypeError, r"bool tensor .*got torch\.uint8"),
    ("MultiHeadAttention.forward", "mask", lambda: mha()(x(), x(), x(), [[True]]), TypeError, "bool tensor .*got list"),
    ("MultiHeadAttention.forward", "need_weights", lambda: mha()(x(), x(), x(), need_weights="yes"), TypeError, "need_weights must be a bool, got str 'yes'"),
    ("MultiHeadAttention.from_torch", "mha", lambda: MultiHeadAttention.from_torch(nn.Linear(8, 8)), TypeError, "mha must be a MultiheadAttention, got Linear"),
    ("MultiHeadAttention.from_torch", "mha", lambda: MultiHeadAttention.from_torch(nn.MultiheadAttention(8, 2, add_bias_kv=True)), ValueError, "add_bias_kv=True"),
    ("MultiHeadAttention.from_torch", "mha", lambda: MultiHeadAttention.from_torch(nn.MultiheadAttention(8, 2, add_zero_attn=True)), ValueError, "add_zero_attn=True"),
    ("MultiHeadAttention.from_torch", "mha", lambda: MultiHeadAttention.from_torch(nn.MultiheadAttention(8, 2, kdim=4)), ValueError, "kdim=4"),
    ("MultiHeadAttention.from_torch", "mha", lambda: MultiHeadAttention.from_torch(nn.MultiheadAttention(8, 2, vdim=6)), ValueError, "vdim=6"),
    # ---- EncoderLayer
    ("EncoderLayer", "d_model", lambda: layer(d_model=-8), ValueError, "d_model must be >= 1, got -8"),
    ("EncoderLayer", "d_model", lambda: layer(d_model=30, n_head=4), ValueError, r"d_model \(30\) is not a multiple of n_head \(4\)"),
    ("EncoderLayer", "n_head", lambda: layer(n_head=0), ValueError, "n_head must be >= 1, got 0"),
    ("EncoderLayer", "d_ff", lambda: layer(d_ff=0), ValueError, "d_ff must be >= 1, got 0"),
    ("EncoderLayer", "dropout", lambda: layer(dropout=1.1), ValueError, r"dropout must be in \[0, 1\], got 1.1"),
    ("EncoderLayer", "norm_first", lambda: layer(norm_first="yes"), TypeError, "norm_first must be a bool, got str 'yes'"),
    ("EncoderLayer", "eps", lambda: layer(eps=0), ValueError, "eps must be positive and finite, got 0"),
    ("EncoderLayer", "activation", lambda: layer(activation="GELU"), ValueError, "activation must be one of 'relu', 'gelu', got 'GELU'"),
    ("EncoderLayer.forward", "x", lambda: layer()(ARRAY), TypeError, "x must be a torch.Tensor, got ndarray"),
    ("EncoderLayer.forward", "x", lambda: layer()(x(2, 5, 6)), ValueError, r"x must have shape \(B, T, 8\), got \(2, 5, 6\)"),
    ("EncoderLayer.forward", "x", lambda: layer(norm_first=True)(x(2, 5, 6)), ValueError, r"x must have shape \(B, T, 8\), got \(2, 5, 6\)"),
    ("EncoderLayer.forward", "mask", lambda: layer()(x(), bool_mask(2, 1, 1, 6)), ValueError, r"\(2, 1, 1, 6\) does not broadcast .*\(2, 2, 5, 5\)"),
    ("EncoderLayer.forward", "mask", lambda: layer()(x(), torch.zeros(2, 1, 1, 5)), TypeError, r"bool tensor .*got torch\.float32"),
    ("EncoderLayer.from_torch", "layer", lambda: EncoderLayer.from_torch(nn.TransformerDecoderLayer(8, 2, 16)), TypeError, "layer must be a TransformerEncoderLayer, got TransformerDecoderLayer"),
    ("EncoderLayer.from_torch", "layer", lambda: EncoderLayer.from_torch(torch_layer(nn.GELU("tanh"))), ValueError, r"activation=relu or gelu \(exact\), got GELU\(approximate='tanh'\)"),
    ("EncoderLayer.from_torch", "layer", lambda: EncoderLayer.from_torch(torch_layer(F.silu)), ValueError, r"activation=relu or gelu \(exact\), got .*silu"),
    ("EncoderLayer.from_torch", "layer", lambda: EncoderLayer.from_torch(torch_layer(norm2_eps=1e-6)), ValueError, r"norm1.eps \(1e-05\) != norm2.eps \(1e-06\)"),
    ("EncoderLayer.from_torch", "layer", lambda: EncoderLayer.from_torch(torch_layer(self_attn=nn.MultiheadAttention(8, 2, add_bias_kv=True))), ValueError, "add_bias_kv=True"),
    # ---- Encoder
    ("Encoder", "vocab_size", lambda: enc(vocab_size=0), ValueError, "vocab_size must be >= 1, got 0"),
    ("Encoder", "d_model", lambda: enc(d_model=10, n_head=4), ValueError, r"d_model \(10\) is not a multiple of n_head \(4\)"),
    ("Encoder", "n_head", lambda: enc(n_head=-1), ValueError, "n_head must be >= 1, got -1"),
    ("Encoder", "d_ff", lambda: enc(d_ff=0), ValueError, "d_ff must be >= 1, got 0"),
    ("Encoder", "n_layers", lambda: enc(n_layers=0), ValueError, "n_layers must be >= 1, got 0"),
    ("Encoder", "n_layers", lambda: enc(n_layers=True), TypeError, "n_layers must be an int, got bool True"),
    ("Encoder", "max_len", lambda: enc(max_len=0), ValueError, "max_len must be >= 1, got 0"),
    ("Encoder", "dropout", lambda: enc(dropout=1.01), ValueError, r"dropout must be in \[0, 1\], got 1.01"),
    ("Encoder", "padding_idx", lambda: enc(padding_idx=10), ValueError, r"padding_idx \(10\) must be in \[0, 10\)"),
    ("Encoder", "norm_first", lambda: enc(norm_first=1), TypeError, "norm_first must be a bool, got int 1"),
    ("Encoder", "eps", lambda: enc(eps=0.0), ValueError, "eps must be positive and finite, got 0.0"),
    ("Encoder", "eps", lambda: enc(eps="1e-12"), TypeError, "eps must be a float, got str '1e-12'"),
    ("Encoder", "activation", lambda: enc(activation=nn.GELU()), TypeError, "activation must be a str, got GELU"),
    ("Encoder", "activation", lambda: enc(activation="swish"), ValueError, "activation must be one of 'relu', 'gelu', got 'swish'"),
    ("Encoder", "positions", lambda: enc(positions=None), TypeError, "positions must be a str, got NoneType None"),
    ("Encoder", "positions", lambda: enc(positions="absolute"), ValueError, "positions must be one of 'sinusoidal', 'learned', got 'absolute'"),
    ("Encoder", "n_token_types", lambda: enc(n_token_types=-2), ValueError, "n_token_types must be >= 0, got -2"),
    ("Encoder", "embedding_norm", lambda: enc(embedding_norm=1), TypeError, "embedding_norm must be a bool, got int 1"),
    ("Encoder", "scale_embedding", lambda: enc(scale_embedding="no"), TypeError, "scale_embedding must be a bool, got str 'no'"),
    ("Encoder.forward", "ids", lambda: enc()([[1, 2, 3]]), TypeError, "ids must be a torch.Tensor, got list"),
    ("Encoder.forward", "ids", lambda: enc()(IDS_ARRAY), TypeError, "ids must be a torch.Tensor, got ndarray"),
    ("Encoder.forward", "ids", lambda: enc()(ids().float()), TypeError, r"int64 or int32 token ids, got torch\.float32"),
    ("Encoder.forward", "ids", lambda: enc()(ids(4)), ValueError, r"ids must have shape \(B, T\), got \(4,\)"),
    ("Encoder.forward", "ids", lambda: enc(padding_idx=None)(ids(4)), ValueError, r"ids must have shape \(B, T\), got \(4,\)"),
    ("Encoder.forward", "ids", lambda: enc(max_len=4)(ids()), ValueError, "sequence length 5 exceeds max_len=4"),
    ("Encoder.forward", "mask", lambda: enc()(ids(), bool_mask(2, 1, 1, 4)), ValueError, r"\(2, 1, 1, 4\) does not broadcast .*\(2, 2, 5, 5\)"),
    ("Encoder.forward", "mask", lambda: enc()(ids(), torch.ones(5, 5, dtype=torch.int64)), TypeError, r"bool tensor .*got torch\.int64"),
    ("Encoder.forward", "token_types", lambda: enc()(ids(), token_types=ids(high=2)), ValueError, r"no token-type table \(n_token_types=0\)"),
    ("Encoder.forward", "token_types", lambda: enc(n_token_types=2)(ids(), token_types=ids(2, 6, high=2)), ValueError, r"token_types must have shape \(2, 5\), got \(2, 6\)"),
    ("Encoder.forward", "token_types", lambda: enc(n_token_types=2)(ids(), token_types=-ids(high=1) - 2), ValueError, r"token_types must be in \[0, 2\), got min -2"),
    # ---- masks
    ("padding_mask", "ids", lambda: padding_mask(IDS_ARRAY, 0), TypeError, "ids must be a torch.Tensor, got ndarray"),
    ("padding_mask", "ids", lambda: padding_mask(ids().float(), 0), TypeError, r"int64 or int32 token ids, got torch\.float32"),
    ("padding_mask", "ids", lambda: padding_mask(ids(1, 2, 4), 0), ValueError, r"ids must have shape \(B, T\), got \(1, 2, 4\)"),
    ("padding_mask", "pad_id", lambda: padding_mask(ids(), 0.5), TypeError, "pad_id must be an int, got float 0.5"),
    ("causal_mask", "T", lambda: causal_mask(-1), ValueError, "T must be >= 0, got -1"),
    ("causal_mask", "T", lambda: causal_mask(2.0), TypeError, "T must be an int, got float 2.0"),
    ("causal_mask", "device", lambda: causal_mask(3, device="nonsense"), RuntimeError, "nonsense"),
    # ---- Task, TokenClassifier, the loss, the schedule, train, evaluate (the Train page)
    ("Task", "name", lambda: Task("copy"), ValueError, "unknown task 'copy'; choose one of"),
    ("Task", "vocab_size", lambda: Task("sort", vocab_size=2), ValueError, r"vocab_size \(2\) must be >= 3"),
    ("Task", "vocab_size", lambda: Task("sort", vocab_size=9.0), TypeError, "vocab_size must be an int, got float 9.0"),
    ("Task", "min_len", lambda: Task("sort", min_len=0), ValueError, "min_len must be >= 1, got 0"),
    ("Task", "min_len", lambda: Task("sort", min_len=5, max_len=3), ValueError, "min_len <= max_len, got min_len=5, max_len=3"),
    ("Task", "max_len", lambda: Task("sort", max_len=8.0), TypeError, "max_len must be an int, got float 8.0"),
    ("Task.batch", "batch_size", lambda: SORT.batch(0, torch.Generator()), ValueError, "batch_size must be >= 1, got 0"),
    ("Task.batch", "generator", lambda: SORT.batch(2, 0), TypeError, "generator must be a Generator, got int"),
    ("Task.batch", "split", lambda: SORT.batch(2, torch.Generator(), split="dev"), ValueError, "split must be 'train' or 'test', got 'dev'"),
    ("TokenClassifier", "encoder", lambda: TokenClassifier(nn.Linear(2, 2), 4), TypeError, "encoder must be a Encoder, got Linear"),
    ("TokenClassifier", "n_classes", lambda: clf(n_classes=0), ValueError, "n_classes must be >= 1, got 0"),
    ("TokenClassifier", "n_classes", lambda: TokenClassifier(enc(), 9, tie_weights=True), ValueError, r"needs n_classes \(9\) == the encoder's vocab_size \(10\)"),
    ("TokenClassifier", "tie_weights", lambda: TokenClassifier(enc(), 10, tie_weights=1), TypeError, "tie_weights must be a bool, got int 1"),
    ("TokenClassifier.forward", "ids", lambda: clf()(ids().float()), TypeError, r"int64 or int32 token ids, got torch\.float32"),
    ("TokenClassifier.forward", "mask", lambda: clf()(ids(), bool_mask(2, 1, 1, 4)), ValueError, r"\(2, 1, 1, 4\) does not broadcast"),
    ("token_loss", "logits", lambda: token_loss(ids(2, 5, 3), ids()), TypeError, r"logits must be a floating-point tensor, got torch\.int64"),
    ("token_loss", "targets", lambda: token_loss(x(2, 5, 3), ids(2, 4)), ValueError, r"share B and T, got \(2, 5, 3\) and \(2, 4\)"),
    ("token_accuracy", "logits", lambda: token_accuracy(x(2, 5), ids()), ValueError, r"logits must have shape \(B, T, C\), got \(2, 5\)"),
    ("token_accuracy", "targets", lambda: token_accuracy(x(2, 5, 3), x(2, 5)), TypeError, r"targets must be int64 or int32 token ids, got torch\.float32"),
    ("token_accuracy", "targets", lambda: token_accuracy(x(2, 5, 3), torch.full((2, 5), -100)), ValueError, "targets has no real position: all 10 are IGNORE"),
    ("lr_factor", "step", lambda: lr_factor(0, 10), ValueError, "step must be >= 1, got 0"),
    ("lr_factor", "warmup", lambda: lr_factor(1, -1), ValueError, "warmup must be >= 0, got -1"),
    ("train", "model", lambda: train(enc(), SORT, steps=1), TypeError, "model must be a TokenClassifier, got Encoder"),
    ("train", "model", lambda: fit(train, clf(vocab_size=6, max_len=8)), ValueError, r"vocabulary \(6 ids\) is too small for task 'sort' with vocab_size=10"),
    ("train", "model", lambda: fit(train, clf(max_len=6)), ValueError, "up to 8 tokens, beyond the model's max_len=6"),
    ("train", "model", lambda: fit(train, clf(n_classes=9, padding_idx=1)), ValueError, "10 classes but the model's head has 9"),
    ("train", "model", lambda: fit(train, clf(padding_idx=1)), ValueError, "pad with id 0, but the encoder's padding_idx is 1"),
    ("train", "task", lambda: train(clf(), "sort", steps=1), TypeError, "task must be a Task, got str"),
    ("train", "steps", lambda: fit(train, steps=0), ValueError, "steps must be >= 1, got 0"),
    ("train", "steps", lambda: fit(train, steps=10.0), TypeError, "steps must be an int, got float 10.0"),
    ("train", "batch_size", lambda: fit(train, batch_size=0), ValueError, "batch_size must be >= 1, got 0"),
    ("train", "lr", lambda: fit(train, lr=0.0), ValueError, "lr must be positive and finite, got 0.0"),
    ("train", "lr", lambda: fit(train, lr="3e-3"), TypeError, "lr must be a float, got str '3e-3'"),
    ("train", "warmup", lambda: fit(train, warmup=-1), ValueError, "warmup must be >= 0, got -1"),
    ("train", "weight_decay", lambda: fit(train, weight_decay=-0.1), ValueError, "weight_decay must be >= 0 and finite, got -0.1"),
    ("train", "weight_decay", lambda: fit(train, weight_decay=None), TypeError, "weight_decay must be a float, got NoneType None"),
    ("train", "seed", lambda: fit(train, seed=1.5), TypeError, "seed must be an int, got float 1.5"),
    ("train", "eval_every", lambda: fit(train, eval_every=-5), ValueError, "eval_every must be >= 0, got -5"),
    ("train", "threads", lambda: fit(train, threads=0), ValueError, "threads must be >= 1, got 0"),
    ("train", "log_every", lambda: fit(train, log_every=2.0), TypeError, "log_every must be an int, got float 2.0"),
    ("train", "checkpoints", lambda: fit(train, checkpoints=[0, 2]), ValueError, r"checkpoint step 2 is not in 0..steps \(1\)"),
    ("train", "checkpoints", lambda: fit(train, checkpoints=[-1]), ValueError, r"checkpoint step -1 is not in 0..steps \(1\)"),
    ("train", "checkpoints", lambda: fit(train, checkpoints=[1.0]), TypeError, "a checkpoint step must be an int, got float 1.0"),
    ("train", "checkpoints", lambda: fit(train, checkpoints=5), TypeError, "checkpoints must be a sequence of steps, got int 5"),
    ("train", "checkpoints", lambda: fit(train, checkpoints="0"), TypeError, "checkpoints must be a sequence of steps, got str '0'"),
    ("evaluate", "model", lambda: evaluate(None, SORT), TypeError, "model must be a TokenClassifier, got NoneType"),
    ("evaluate", "task", lambda: evaluate(clf(), None), TypeError, "task must be a Task, got NoneType"),
    ("evaluate", "n", lambda: fit(evaluate, n=0), ValueError, "n must be >= 1, got 0"),
    ("evaluate", "seed", lambda: fit(evaluate, seed="0"), TypeError, "seed must be an int, got str '0'"),
    ("evaluate", "padding_mask", lambda: fit(evaluate, padding_mask=0), TypeError, "padding_mask must be a bool, got int 0"),
    ("evaluate", "threads", lambda: fit(evaluate, threads=-1), ValueError, "threads must be >= 1, got -1"),
    # ---- SentenceClassifier, fit, predict (the page Read real text)
    ("SentenceClassifier", "encoder", lambda: SentenceClassifier(clf(), 2), TypeError, "encoder must be a Encoder, got TokenClassifier"),
    ("SentenceClassifier", "n_classes", lambda: SentenceClassifier(enc(), 0), ValueError, "n_classes must be >= 1, got 0"),
    ("SentenceClassifier.forward", "ids", lambda: SentenceClassifier(enc(), 2)(ids().float()), TypeError, r"int64 or int32 token ids, got torch\.float32"),
    ("SentenceClassifier.forward", "mask", lambda: SentenceClassifier(enc(), 2)(ids(), bool_mask(2, 1, 1, 4)), ValueError, r"\(2, 1, 1, 4\) does not broadcast"),
    ("fit", "model", lambda: encoder.fit(None, ids(), ids()), TypeError, "model must be a Module, got NoneType"),
    ("fit", "ids", lambda: encoder.fit(clf(), ids(5), ids(5)), ValueError, r"ids must have shape \(B, T\), got \(5,\)"),
    ("fit", "targets", lambda: encoder.fit(clf(), ids(), ids(3)), ValueError, r"targets must have shape \(B,\) .* for ids of shape \(2, 5\), got \(3,\)"),
    ("fit", "targets", lambda: encoder.fit(clf(), ids(), ids().float()), TypeError, r"targets must be int64 or int32 token ids, got torch\.float32"),
    ("fit", "epochs", lambda: encoder.fit(clf(), ids(), ids(), epochs=0), ValueError, "epochs must be >= 1, got 0"),
    ("fit", "batch_size", lambda: encoder.fit(clf(), ids(), ids(), batch_size=1.0), TypeError, "batch_size must be an int, got float 1.0"),
    ("fit", "lr", lambda: encoder.fit(clf(), ids(), ids(), lr=-1.0), ValueError, "lr must be positive and finite, got -1.0"),
    ("fit", "causal", lambda: encoder.fit(clf(), ids(), ids(), causal=1), TypeError, "causal must be a bool, got int 1"),
    ("fit", "seed", lambda: encoder.fit(clf(), ids(), ids(), seed="0"), TypeError, "seed must be an int, got str '0'"),
    ("fit", "threads", lambda: encoder.fit(clf(), ids(), ids(), threads=0), ValueError, "threads must be >= 1, got 0"),
    ("predict", "model", lambda: predict("model", ids()), TypeError, "model must be a Module, got str"),
    ("predict", "ids", lambda: predict(clf(), ids().float()), TypeError, r"ids must be int64 or int32 token ids, got torch\.float32"),
    ("predict", "causal", lambda: predict(clf(), ids(), causal=None), TypeError, "causal must be a bool, got NoneType None"),
    ("predict", "batch_size", lambda: predict(clf(), ids(), batch_size=0), ValueError, "batch_size must be >= 1, got 0"),
    ("predict", "threads", lambda: predict(clf(), ids(), threads=2.0), TypeError, "threads must be an int, got float 2.0"),
    # ---- the Train page's experiments
    ("LearnedPositionalEncoding", "d_model", lambda: LearnedPositionalEncoding(0, 8), ValueError, "d_model must be >= 1, got 0"),
    ("LearnedPositionalEncoding", "max_len", lambda: LearnedPositionalEncoding(8, 2.0), TypeError, "max_len must be an int, got float 2.0"),
    ("LearnedPositionalEncoding", "dropout", lambda: LearnedPositionalEncoding(8, 4, dropout=2.0), ValueError, r"dropout must be in \[0, 1\], got 2.0"),
    ("LearnedPositionalEncoding.forward", "x", lambda: LearnedPositionalEncoding(8, 4)(x()), ValueError, "sequence length 5 exceeds max_len=4"),
    ("LearnedPositionalEncoding.forward", "x", lambda: LearnedPositionalEncoding(8, 8)(x(2, 5, 6)), ValueError, r"x must have shape \(B, T, 8\), got \(2, 5, 6\)"),
    ("remove_score_scaling", "encoder", lambda: remove_score_scaling(mha()), TypeError, "encoder must be a Encoder, got MultiHeadAttention"),
    ("attention_maps", "encoder", lambda: attention_maps(clf(), ids()), TypeError, "encoder must be a Encoder, got TokenClassifier"),
    ("attention_maps", "ids", lambda: attention_maps(enc(), ids(5)), ValueError, r"ids must have shape \(B, T\), got \(5,\)"),
    ("attention_maps", "token_types", lambda: attention_maps(enc(n_token_types=2), ids(), ids(high=1) + 2), ValueError, r"token_types must be in \[0, 2\), got min 2"),
    # ---- a pretrained BERT (encoder.pretrained; its files: tests/test_pretrained.py)
    ("load_bert", "folder", lambda: pretrained.load_bert(3, "0" * 64), TypeError, "folder must be a str or Path, got int"),
    ("load_bert", "sha256", lambda: pretrained.load_bert(".", 0), TypeError, "sha256 must be a str, got int"),
    ("load_bert", "sha256", lambda: pretrained.load_bert(".", "53AA"), ValueError, "sha256 must be 64 lower-case hex digits, got '53AA'"),
    ("encoder_for", "config", lambda: pretrained.encoder_for("config.json"), TypeError, "config must be a dict, got str"),
    ("encoder_for", "config", lambda: pretrained.encoder_for({"vocab_size": 10}), ValueError, "config.json lacks hidden_size, num_attention_heads"),
    ("bert_names", "n_layers", lambda: pretrained.bert_names(0), ValueError, "n_layers must be >= 1, got 0"),
    ("load_tokenizer", "folder", lambda: pretrained.load_tokenizer(None), TypeError, "folder must be a str or Path, got NoneType"),
    ("tokenize", "tokenizer", lambda: pretrained.tokenize("bert", ["a"]), TypeError, "tokenizer must be a tokenizers.Tokenizer, got 'bert'"),
    ("tokenize", "texts", lambda: pretrained.tokenize(word_level(), "a cat"), TypeError, "texts must be a non-empty list of str, got 'a cat'"),
    ("tokenize", "texts", lambda: pretrained.tokenize(word_level(), []), TypeError, r"texts must be a non-empty list of str, got \[\]"),
    ("tokenize", "texts", lambda: pretrained.tokenize(word_level(), [("a", "b", "c")]), TypeError, r"each text must be a str or a pair of str, got \('a', 'b', 'c'\)"),
    ("sentence_embeddings", "model", lambda: pretrained.sentence_embeddings(mha(), ids()), TypeError, "model must be a Encoder, got MultiHeadAttention"),
    ("sentence_embeddings", "model", lambda: pretrained.sentence_embeddings(enc(padding_idx=None), ids()), ValueError, "model has no padding_idx"),
    ("sentence_embeddings", "ids", lambda: pretrained.sentence_embeddings(enc(), ids().float()), TypeError, r"ids must be int64 or int32 token ids, got torch\.float32"),
    ("sentence_embeddings", "token_types", lambda: pretrained.sentence_embeddings(enc(n_token_types=2), ids(), ids(2, 3)), ValueError, r"token_types must have shape \(2, 5\), got \(2, 3\)"),
]  # fmt: skip


@pytest.mark.parametrize(
    "call, exception, message",
    [case[2:] for case in CASES],
    ids=[f"{what}-{arg}-{n}" for n, (what, arg, *_) in enumerate(CASES)],
)
def test_bad_argument_raises_naming_it(call, exception, message):
    with pytest.raises(exception, match=message):
        call()


# The modules of the package: the model's, one per concept page, and the Train page's.
MODULES = {
    "encoder.attention",
    "encoder.encoder",
    "encoder.encoder_layer",
    "encoder.experiments",
    "encoder.feed_forward",
    "encoder.layer_norm",
    "encoder.masks",
    "encoder.positional",
    "encoder.pretrained",
    "encoder.tasks",
    "encoder.token_embedding",
    "encoder.training",
    "encoder.transformer_embedding",
}


def _public_arguments() -> set[tuple[str, str]]:
    """(function or method, argument) for every argument of the package's public API."""
    found = set()
    public = [getattr(encoder, name) for name in encoder.__all__]
    public += [getattr(pretrained, name) for name in pretrained.__all__]  # not in __all__
    for obj in public:
        name = obj.__name__
        if getattr(obj, "__module__", None) not in MODULES:
            continue
        if isinstance(obj, type):
            targets = {name: obj.__init__}
            for extra in ("forward", "from_torch", "from_pretrained", "batch"):
                if extra in vars(obj):
                    targets[f"{name}.{extra}"] = getattr(obj, extra)
        else:
            targets = {name: obj}
        for what, fn in targets.items():
            params = inspect.signature(fn).parameters
            found |= {(what, p) for p in params if p not in ("self", "cls")}
    return found


def test_every_public_argument_has_a_case(device):
    if device != "cpu":
        pytest.skip("a fact about the code, checked once")
    covered = {(what, arg) for what, arg, *_ in CASES}
    missing = _public_arguments() - covered
    assert not missing, f"no boundary case for {sorted(missing)}"
    unknown = covered - _public_arguments()
    assert not unknown, f"cases for arguments that do not exist: {sorted(unknown)}"
