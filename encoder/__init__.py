"""A Transformer encoder in PyTorch, one concept per module, in the order of the site's
pages.
"""

from encoder.attention import MultiHeadAttention, scaled_dot_product_attention
from encoder.encoder import Encoder
from encoder.encoder_layer import EncoderLayer
from encoder.experiments import attention_maps, remove_score_scaling
from encoder.feed_forward import PositionwiseFeedForward
from encoder.layer_norm import LayerNorm, layer_norm
from encoder.masks import causal_mask, padding_mask
from encoder.positional import (
    LearnedPositionalEncoding,
    PositionalEncoding,
    sinusoidal_table,
)
from encoder.tasks import Task
from encoder.text import Vocabulary, WordVocabulary, mask_tokens, pad_labels
from encoder.token_embedding import TokenEmbedding
from encoder.training import (
    History,
    SentenceClassifier,
    TokenClassifier,
    evaluate,
    fit,
    lr_factor,
    predict,
    token_accuracy,
    token_loss,
    train,
)
from encoder.transformer_embedding import TransformerEmbedding

__version__ = "0.1.0"

__all__ = [
    "Encoder",
    "EncoderLayer",
    "History",
    "LayerNorm",
    "LearnedPositionalEncoding",
    "MultiHeadAttention",
    "PositionalEncoding",
    "PositionwiseFeedForward",
    "SentenceClassifier",
    "Task",
    "TokenClassifier",
    "TokenEmbedding",
    "TransformerEmbedding",
    "Vocabulary",
    "WordVocabulary",
    "attention_maps",
    "causal_mask",
    "evaluate",
    "fit",
    "layer_norm",
    "lr_factor",
    "mask_tokens",
    "pad_labels",
    "padding_mask",
    "predict",
    "remove_score_scaling",
    "scaled_dot_product_attention",
    "sinusoidal_table",
    "token_accuracy",
    "token_loss",
    "train",
]
