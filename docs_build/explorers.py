"""What the explorers of the Train, Attention and Read real text pages need from the build: the
trained models (safetensors files, ``model_file``), and the package's own outputs on a few
inputs.

The pages run the models in the browser (``data-explorer="NAME"``: explorers/NAME.js), so that
a reader can type any sequence; the package's outputs are what the browser tests hold that
JavaScript to. Each ``NAME_explorer``, called by a fence of its page, writes its site files
(``explorers/``, with ``docs_build.figures.write``) and returns the widget's HTML, whose
attributes give their paths from the site's root. The package's outputs are not published: they
go to the cache, under ``vectors_key(NAME)``, keyed by what they are computed from.
"""

from __future__ import annotations

import copy
import hashlib
import html
import json
import math
import re
from pathlib import Path

import safetensors.torch
import torch

from docs_build import cache
from docs_build.figures import write
from encoder import (
    PositionalEncoding,
    SentenceClassifier,
    Task,
    TokenClassifier,
    Vocabulary,
    WordVocabulary,
    attention_maps,
    causal_mask,
    scaled_dot_product_attention,
)
from encoder.corpora import words
from encoder.experiments import ScaleQueries
from encoder.pretrained import MINILM_SHA256, minilm_folder
from encoder.text import CLS, MASK, SPECIALS, blank_window
from encoder.training import History


def _compact(data) -> str:
    """JSON without spaces, for the files the page fetches and the widget's attributes."""
    return json.dumps(data, separators=(",", ":"))


def vectors_key(name: str) -> str:
    """The cache entry of the package's outputs that the explorer ``name`` is tested against."""
    return f"test-vectors/{cache.inputs_hash()}/{name}"


def _widget(name: str, attrs: dict[str, str]) -> str:
    """The HTML of the explorer ``name``, ``attrs`` its data attributes."""
    attributes = "".join(f' {k}="{html.escape(v)}"' for k, v in attrs.items())
    return f'<div class="explorer" data-explorer="{name}"{attributes}></div>'


@torch.no_grad()
def _vectors(model: TokenClassifier, inputs: list[list[int]], pad_to: int | None = None,
             maps: bool = False) -> list[dict]:  # fmt: skip
    """The package's logits (and attention maps if ``maps``) on ``inputs``, one sequence at a
    time in float64 from the float32 weights, as the page computes; padded to ``pad_to``
    without the mask for break-it's switch. The copy keeps ``remove_score_scaling``'s hooks.
    The positional table stays the package's float32 one, where the page's is float64: the
    tests allow for it."""
    model = copy.deepcopy(model).double().eval()
    if pad_to:
        model.encoder.padding_idx = None  # the Encoder then masks no key
    vectors = []
    for ids in inputs:
        x = torch.tensor([ids + [0] * ((pad_to or 0) - len(ids))])
        vectors.append({"ids": ids, "logits": model(x)[0, : len(ids)].tolist()})  # (T, classes)
        if maps:  # (L, H, T, T)
            vectors[-1]["attention"] = attention_maps(model.encoder, x)[:, 0].tolist()
    return vectors


# --- attention ------------------------------------------------------------------------------------
# Inputs of the test vectors: short, typical (traced too) and as long as the tasks train on.
TEST_INPUTS = [[7, 2], [3, 1, 4, 1, 5, 9, 2, 6], [9, 8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3]]


def _config(model: TokenClassifier | SentenceClassifier, scaled: bool = True) -> dict:
    """Configuration of ``model`` for the page's JavaScript. Raises unless that computes what
    ``model`` computes: sinusoidal positions or none, padding id 0, and the 1/sqrt(d_k) scaling
    unless ``scaled`` is False (then every attention carries ``remove_score_scaling``'s hook)."""
    encoder = model.encoder
    layer, position = encoder.layers[0], encoder.embedding.position
    if not isinstance(position, PositionalEncoding | torch.nn.Identity):
        raise ValueError(f"the page computes sinusoidal positions or none, not {position}")
    if encoder.padding_idx != 0:
        raise ValueError(f"the page takes 0 as the padding id, not {encoder.padding_idx}")
    for n, each in enumerate(encoder.layers):
        hook = getattr(each.self_attn.in_proj, "query_scaling", None)
        if isinstance(hook, ScaleQueries) == scaled:
            raise ValueError(f"layer {n}: scaled={scaled}, but its scaling hook is {hook}")
    return {
        "vocab_size": encoder.embedding.token.num_embeddings,
        "d_model": layer.self_attn.d_model,
        "n_head": layer.self_attn.n_head,
        "d_ff": layer.ff.linear1.out_features,
        "n_layers": len(encoder.layers),
        # without positions (nn.Identity), the length the other models take
        "max_len": getattr(position, "max_len", 16),
        "n_classes": model.head.out_features,
        "norm_first": layer.norm_first,
        "eps": layer.norm1.eps,
        "embedding_scale": encoder.embedding.token.scale,
        "positions": isinstance(position, PositionalEncoding),
        "scaled": scaled,  # False: remove_score_scaling's softmax(q k^T)
    }


def safetensors_file(tensors: dict[str, torch.Tensor], metadata: dict[str, str]) -> bytes:
    """``safetensors.torch.save(tensors, metadata)`` with the metadata in the order of its keys:
    the library writes it in an order that changes from one process to the next
    (safetensors/safetensors#584), and so did the site's files from one build to the next. The
    header keeps its length (safetensors pads it with spaces), so every offset in it holds."""
    blob = safetensors.torch.save(tensors, metadata)
    size = int.from_bytes(blob[:8], "little")
    header = json.loads(blob[8 : 8 + size])
    header["__metadata__"] = dict(sorted(header["__metadata__"].items()))
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode()
    if len(text) > size:
        raise ValueError(f"the sorted header is {len(text)} bytes, the library's {size}")
    return blob[:8] + text.ljust(size) + blob[8 + size :]


def model_file(
    model: TokenClassifier | SentenceClassifier,
    task: str,
    dtype: torch.dtype = torch.float32,
    scaled: bool = True,
) -> bytes:
    """``model`` as a safetensors file, its parameters in ``dtype`` and its task and
    configuration (``_config``) in the file's metadata. Read real text's are float16 (half the
    bytes; the numbers to test against are then ``float16_weights(model)``'s)."""
    for name, p in model.named_parameters():  # beyond dtype's largest, inf: the page, NaN
        if (big := p.detach().abs().max().item()) > torch.finfo(dtype).max:
            kind = str(dtype).removeprefix("torch.")
            raise ValueError(f"{name} holds |values| up to {big:g}, which {kind} cannot hold")
    tensors = {name: p.detach().to(dtype).contiguous() for name, p in model.named_parameters()}
    config = _compact(_config(model, scaled))
    return safetensors_file(tensors, {"task": task, "config": config})


def _attention_file(task: str) -> str:
    """The site file of the trained model of ``task`` (``attention_explorer`` writes it)."""
    return f"explorers/attention-{task}.safetensors"


def attention_explorer(models: dict[str, TokenClassifier]) -> str:
    """Write the models' weights as site files and their test vectors to the cache; return the
    explorer's HTML."""
    tests = {}
    for task, model in models.items():
        write(_attention_file(task), model_file(model, task))
        tests[task] = _vectors(model, TEST_INPUTS, maps=True)
        tests[task][1]["trace"] = trace(model, tests[task][1]["ids"])
    cache.put(vectors_key("attention"), tests)
    return attention_explorer_html(list(models))


def attention_explorer_html(tasks: list[str]) -> str:
    """The explorer of the models that ``attention_explorer`` exported (on the Train page), for
    another page (Attention's trace of one query): the same files, by name."""
    attrs = {f"data-model-{task}": _attention_file(task) for task in tasks}
    attrs["data-tasks"] = " ".join(tasks)
    # The longest sequence the tasks train on: the explorer says when a typed one is longer.
    attrs["data-trained-max"] = str(max(Task(task).max_len for task in tasks))
    return _widget("attention", attrs)


# --- trace ("Trace one query", shown by the attention explorer) -----------------------------------
@torch.no_grad()
def trace(model: TokenClassifier, ids: list[int]) -> list[dict]:
    """Every step of each layer's self-attention on ``ids``, from the package's own modules,
    for the browser tests to hold trace.js's numbers to: x (what the attention receives),
    q, k, v per head (``in_proj``), the scores q k^T, the scores divided by sqrt(d_k), the
    softmax weights and the heads' outputs (``scaled_dot_product_attention``), their
    concatenation and the output (``out_proj``). Shapes: x, concat, out (T, d_model);
    q, k, v, heads (H, T, d_k); scores, scaled, weights (H, T, T)."""
    model = copy.deepcopy(model).double().eval()  # the hooks go on the copy
    inputs: list[torch.Tensor] = []
    hooks = [
        layer.self_attn.register_forward_pre_hook(lambda m, args: inputs.append(args[0]))
        for layer in model.encoder.layers
    ]
    model(torch.tensor([ids]))
    for hook in hooks:  # before the check below runs each attention again
        hook.remove()
    steps = []
    for layer, x in zip(model.encoder.layers, inputs, strict=True):
        attn = layer.self_attn
        T, H, dh = len(ids), attn.n_head, attn.d_head
        q, k, v = (
            t.view(T, H, dh).transpose(0, 1) for t in attn.in_proj(x[0]).chunk(3, dim=-1)
        )  # (H, T, dh) each
        scores = q @ k.transpose(-2, -1)  # (H, T, T)
        heads, weights = scaled_dot_product_attention(q, k, v)
        concat = heads.transpose(0, 1).reshape(T, H * dh)
        out = attn.out_proj(concat)
        assert torch.allclose(out, attn(x, x, x)[0], atol=1e-12)  # the steps are the module's
        named = dict(x=x[0], q=q, k=k, v=v, scores=scores, scaled=scores / math.sqrt(dh),
                     weights=weights, heads=heads, concat=concat, out=out)  # fmt: skip
        steps.append({name: t.tolist() for name, t in named.items()})
    return steps


# --- break-it ("Break it live") -------------------------------------------------------------------
# Inputs of the test vectors of every switch, besides the input it starts on.
BREAK_IT_INPUTS = [[3, 3, 3], [3, 1, 4, 1, 5, 9, 2, 6], [5, 2, 8, 1]]


def break_it_explorer(
    intact: dict[str, TokenClassifier], switches: dict[str, dict], challenges: dict
) -> str:
    """Write the broken models and their test vectors; return the explorer's HTML.

    ``switches``: name -> {"task", "model", "start", and optionally "pad_to", "scaled"}: the
    broken model (the intact one of its task when it is run padded to ``pad_to`` without the
    mask), the input the switch starts on, and ``scaled=False`` for a model that carries
    ``remove_score_scaling``'s hooks. ``challenges``: the numbers the page asserts for the
    built-in challenges (JSON-ready)."""
    spec, tests = {}, {}
    for name, switch in switches.items():
        task, model, start = switch["task"], switch["model"], list(switch["start"])
        pad_to, path = switch.get("pad_to"), _attention_file(task)
        spec[name] = {"task": task, "model": path, "pad_to": pad_to, "start": start}
        attn = model.encoder.layers[0].self_attn  # the sizes the switch's label names
        spec[name] |= {"d_k": attn.d_head, "n_layers": len(model.encoder.layers)}
        if model is not intact[task]:  # (attention_explorer exported the intact ones)
            blob = model_file(model, task, scaled=switch.get("scaled", True))
            spec[name]["model"] = write(f"explorers/broken-{name}.safetensors", blob)
        tests[name] = _vectors(model, [start, *BREAK_IT_INPUTS], pad_to)
    attrs = {
        "data-variants": _compact(spec),
        "data-intact": _compact({task: _attention_file(task) for task in intact}),
        "data-challenges": _compact(challenges),
    }
    cache.put(vectors_key("break-it"), tests)
    return _widget("break-it", attrs)


# --- learn ("Watch it learn") ---------------------------------------------------------------------
# The reversal inputs whose maps the explorer shows at every kept step: the Train page's sample,
# a short one and one as long as the task trains on.
LEARN_INPUTS = [[3, 1, 4, 1, 5, 9, 2, 6, 5], [7, 2, 8, 1, 8], [9, 8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3]]


def _rounded(t: torch.Tensor, digits: int = 6) -> list:
    return torch.round(t.double(), decimals=digits).tolist()


@torch.no_grad()
def learn_explorer(model: TokenClassifier, history: History, mirror_weight: dict, run: dict) -> str:
    """Write the kept steps of one run: the training loss at every step, the attention maps of
    LEARN_INPUTS at each kept step (rounded: a smaller file to fetch), run one sequence at a
    time as on the page, the page's measured weight on the mirrored key per layer and head
    (``mirror_weight``: step -> (L, H)) and ``run``, what the browser tests retrain it from.
    Returns the explorer's HTML."""
    steps = sorted(history.checkpoints)
    snapshot, maps = copy.deepcopy(model), []
    for step in steps:
        snapshot.load_state_dict(history.checkpoints[step])
        maps.append([_rounded(attention_maps(snapshot.encoder, torch.tensor([ids]))[:, 0])
                     for ids in LEARN_INPUTS])  # fmt: skip
    data = {
        "steps": steps,
        "loss": [round(v, 5) for v in history.loss],
        "inputs": LEARN_INPUTS,
        "maps": maps,
        "mirror": [_rounded(torch.as_tensor(mirror_weight[step]), 4) for step in steps],
        "run": run,
    }
    return _widget("learn", {"data-run": write("explorers/learn.json", _compact(data))})


# --- real text ("Read real text": a typed review, pinyin both ways, a blank to fill) -------------
# What the browser tests type, besides each explorer's first input: characters outside the
# vocabulary, Latin letters and digits, more than the model reads (cut, as in training), and
# the characters that Python's \s and JavaScript's \s disagree on being a space.
SENTIMENT_INPUTS = ["这本书写得很好，值得一读。", "齉龘靐，ok 123", "很差" * 40]
PINYIN_INPUTS = ["我不要一样的，不好也行。", "银行abc长城𠀋", "一不" * 30]
BLANK_INPUTS = ["we ___ the people", "the zyzzyva ___ , 1776 !", "___",
                "Don't STOP, naïve café U.S.A. 3.14 ___ !",
                "we\x1cthe\x85people\u3000___\ufeff."]  # fmt: skip
BLANK = re.compile(r"_+")  # the blank the reader types, as explorers/fill-blank.js reads it
TOP = 5  # guesses shown for a blank
CANDIDATES = ["states", "the", "we"]  # words the browser tests rank at every blank


def float16_weights(model: torch.nn.Module) -> torch.nn.Module:
    """A copy of ``model`` whose parameters are rounded to float16 (kept in float32): what the
    page downloads (``model_file``). Buffers (the positional table) stay as they are."""
    model = copy.deepcopy(model)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(p.half())
    return model


def _float64(model: torch.nn.Module) -> torch.nn.Module:
    """The float16-rounded weights in float64, as the page computes (the copy keeps ``model``)."""
    return float16_weights(model).double().eval()


def _text_widget(name: str, files: dict[str, str | bytes], tests: list[dict], start: str,
                 **data: str) -> str:  # fmt: skip
    """Write the explorer's files (a model: .safetensors) and test vectors; return its HTML, with
    ``data`` as further data attributes (``data-NAME``)."""
    suffix = {str: "json", bytes: "safetensors"}
    attrs = {
        f"data-{k}": write(f"explorers/{name}-{k}.{suffix[type(v)]}", v) for k, v in files.items()
    }
    cache.put(vectors_key(name), tests)
    return _widget(name, attrs | {"data-start": start} | {f"data-{k}": v for k, v in data.items()})


@torch.no_grad()
def sentiment_explorer(model: SentenceClassifier, vocab: Vocabulary, start: str) -> str:
    """The typed review: the model (float16 weights), its vocabulary and the package's
    probabilities and first-position attention (L, H, T) on ``start`` and SENTIMENT_INPUTS, read
    as the page reads a review: ``<cls>``, then its first max_len - 1 characters."""
    exact, tests = _float64(model), []
    for text in [start, *SENTIMENT_INPUTS]:
        ids = [CLS, *vocab.encode(text[: model.encoder.embedding.position.max_len - 1])]
        x = torch.tensor([ids])
        first = attention_maps(exact.encoder, x)[:, 0, :, 0]  # (L, H, T)
        tests.append({"text": text, "ids": ids, "p": exact(x)[0].softmax(-1).tolist(),
                      "attention": first.tolist()})  # fmt: skip
    files = {"model": model_file(model, "sentiment", torch.float16), "vocab": vocab.to_json()}
    return _text_widget("sentiment", files, tests, start)


@torch.no_grad()
def pinyin_explorer(models: dict[str, TokenClassifier], vocab: Vocabulary, classes: list[str],
                    start: str, most_frequent: dict[str, str],
                    on_bu: dict[str, float]) -> str:  # fmt: skip
    """Pinyin both ways: the models ("encoder" reads the whole sentence, "causal" with the causal
    mask), their vocabulary and readings (``classes``), each character's most frequent reading
    (``most_frequent``, counted on the training texts; the explorer's third row), each model's
    measured accuracy on 不 (``on_bu``: name -> fraction), and each model's reading and its
    probability at every position of the first max_len characters of ``start`` and
    PINYIN_INPUTS."""
    tests = []
    for text in [start, *PINYIN_INPUTS]:
        tests.append({"text": text})
        for name, model in models.items():
            ids = vocab.encode(text[: model.encoder.embedding.position.max_len])
            mask = causal_mask(len(ids)) if name == "causal" else None
            p, top = _float64(model)(torch.tensor([ids]), mask)[0].softmax(-1).max(-1)  # (T,)
            tests[-1] |= {"ids": ids, name: {"top": top.tolist(), "p": p.tolist()}}
    files = {f"model-{n}": model_file(m, n, torch.float16) for n, m in models.items()}
    files |= {"vocab": vocab.to_json(), "classes": _compact(classes)}
    files["frequent"] = _compact({c: r for c, r in most_frequent.items() if c in vocab})
    on_bu = {name: round(on_bu[name], 4) for name in models}
    return _text_widget("pinyin", files, tests, start, bu=_compact(on_bu))


def blank_ids(text: str, vocab: WordVocabulary, size: int) -> list[int]:
    """The ids a model of ``size`` positions reads for a sentence with one blank (``___``): the
    words around the blank (``blank_window``), ``<mask>`` for the blank."""
    left, right = (vocab.encode(words(part)) for part in BLANK.split(text))
    return blank_window(left, right, size)


@torch.no_grad()
def word_probabilities(model: TokenClassifier, ids: list[int]) -> torch.Tensor:
    """The model's probability for each word (the special tokens left out: entry k is id
    4 + k's) at the blank of ``ids``, as the page computes them: float16-rounded weights, in
    float64. Shape: (len(vocab) - 4,)."""
    logits = _float64(model)(torch.tensor([ids]))[0, ids.index(MASK)]  # (V,)
    return logits[len(SPECIALS) :].softmax(-1)


@torch.no_grad()
def fill_blank_explorer(model: TokenClassifier, vocab: WordVocabulary, start: str,
                        candidate: str) -> str:  # fmt: skip
    """Fill the blank: the model, its words, and the package's TOP guesses (ids and
    probabilities, the special tokens left out) at the blank of ``start`` and BLANK_INPUTS, read
    in the window of the model's max_len around the blank, and the rank (1 = the best) of each of
    CANDIDATES there; ``candidate``: the word the explorer's second box starts with."""
    size, tests = model.encoder.embedding.position.max_len, []
    for text in [start, *BLANK_INPUTS]:
        ids = blank_ids(text, vocab, size)
        p = word_probabilities(model, ids)
        top = p.topk(TOP)
        tests.append({"text": text, "ids": ids, "top": (top.indices + len(SPECIALS)).tolist(),
                      "p": top.values.tolist(), "candidates": {}})  # fmt: skip
        for word in CANDIDATES:
            (k,) = vocab.encode([word])
            q = p[k - len(SPECIALS)]
            rank = 1 + int((p > q).sum())
            tests[-1]["candidates"][word] = {"id": k, "rank": rank, "p": q.item()}
    files = {"model": model_file(model, "fill-blank", torch.float16)}
    files["words"] = _compact(list(vocab.words))
    return _text_widget("fill-blank", files, tests, start, candidate=candidate)


# --- a pretrained encoder ("A pretrained encoder": all-MiniLM-L6-v2 reads typed English) ------
# all-MiniLM-L6-v2 (encoder.pretrained: its folder and the pinned sha256). The page downloads its
# weights as int8 per row (``int8_rows``): 22.7 MB instead of 90.
BERT_FILE = "explorers/bert-minilm.safetensors"
BERT_CONFIG = ("hidden_size", "num_attention_heads", "intermediate_size", "num_hidden_layers",
               "layer_norm_eps", "max_position_embeddings", "vocab_size", "hidden_act")  # fmt: skip


def int8_rows(weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``weight`` (rows, columns) as int8 and one float32 scale per row: row r stands for
    q[r] * scale[r], scale[r] = max |weight[r]| / 127 (1 for a row of zeros)."""
    top = weight.abs().amax(dim=1)
    scale = torch.where(top > 0, top / 127, torch.ones_like(top)).float()
    q = torch.round(weight / scale[:, None]).clamp(-127, 127).to(torch.int8)
    return q, scale


def bert_weights(folder: Path | None = None) -> dict[str, torch.Tensor]:
    """BertModel's float32 tensors of the checkpoint in ``folder``, its sha256 checked, without the
    pooler and the position-id buffer (the page computes the last hidden states)."""
    path = (folder or minilm_folder()) / "model.safetensors"
    if (digest := hashlib.sha256(path.read_bytes()).hexdigest()) != MINILM_SHA256:
        raise ValueError(f"{path}: sha256 {digest}, not the pinned {MINILM_SHA256}")
    state = safetensors.torch.load_file(path)
    dropped = ("pooler.", "embeddings.position_ids")
    return {k: v for k, v in state.items() if not k.startswith(dropped)}


def bert_file(folder: Path | None = None) -> bytes:
    """The checkpoint in ``folder`` as the page reads it (model.js loadModel): each matrix
    NAME as int8 with its float32 NAME.scale per row, vectors in float32; in the metadata the
    configuration (``BERT_CONFIG`` of config.json), the WordPiece vocabulary (vocab.txt, one
    token a line: a token's id is its line) and the special tokens, matched as typed."""
    folder = folder or minilm_folder()
    tensors = {}
    for name, t in bert_weights(folder).items():
        if t.dim() == 2:
            tensors[name], tensors[f"{name}.scale"] = int8_rows(t)
        else:
            tensors[name] = t.float().contiguous()
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    tokenizer = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
    vocab = (folder / "vocab.txt").read_text(encoding="utf-8").splitlines()
    if vocab != sorted(tokenizer["model"]["vocab"], key=tokenizer["model"]["vocab"].get):
        raise ValueError("vocab.txt and tokenizer.json's vocabulary differ")
    special = [t["content"] for t in tokenizer["added_tokens"] if t["special"]]
    meta = {
        "task": "bert",
        "config": _compact({k: config[k] for k in BERT_CONFIG}),
        "vocab": "\n".join(vocab),
        "special": _compact(special),
    }
    return safetensors_file(tensors, meta)


def bert_explorers(
    start: str, look: tuple[str, str], sentences: list[str], folder: Path | None = None
) -> list[str]:
    """Write the page's file of the checkpoint in ``folder`` (``bert_file``); return the HTML of
    its two explorers: the attention of a typed sentence (``start`` first, shown from its token
    ``look[0]`` in the layer and head where it gives ``look[1]`` the most weight) and the
    similarity of typed sentences (``sentences`` first, one a line). Each fetches the file only
    when the reader presses its button, which says the file's size (data-size, bytes)."""
    blob = bert_file(folder)
    config = json.loads(((folder or minilm_folder()) / "config.json").read_text(encoding="utf-8"))
    attrs = {"data-model": write(BERT_FILE, blob), "data-size": str(len(blob))}
    layers, heads = config["num_hidden_layers"], config["num_attention_heads"]
    attrs["data-layers"], attrs["data-heads"] = str(layers), str(heads)  # the menus' lengths
    return [
        _widget("bert-attention", attrs | {"data-start": start, "data-look": " ".join(look)}),
        _widget("bert-similarity", attrs | {"data-start": "\n".join(sentences)}),
    ]
