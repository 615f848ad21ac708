"""A Transformer encoder in PyTorch, one concept per module, in the order of the site's
pages.
"""

from encoder.attention import MultiHeadAttention, scaled_dot_product_attention
from encoder.encoder import Encoder
from encoder.encoder_layer import EncoderLayer
from encoder.feed_forward import PositionwiseFeedForward
from encoder.layer_norm import LayerNorm, layer_norm
from encoder.masks import causal_mask, padding_mask
from encoder.positional import PositionalEncoding, sinusoidal_table
from encoder.token_embedding import TokenEmbedding
from encoder.transformer_embedding import TransformerEmbedding

__version__ = "0.1.0"

__all__ = [
    "Encoder",
    "EncoderLayer",
    "LayerNorm",
    "MultiHeadAttention",
    "PositionalEncoding",
    "PositionwiseFeedForward",
    "TokenEmbedding",
    "TransformerEmbedding",
    "causal_mask",
    "layer_norm",
    "padding_mask",
    "scaled_dot_product_attention",
    "sinusoidal_table",
]
