"""The public API: what `encoder` exports, and the conventions its docstrings promise."""

import inspect
import typing

import pytest

import encoder

PUBLIC = sorted(encoder.__all__)
DATACLASSES = ["History", "Task", "Vocabulary", "WordVocabulary"]
NO_TENSORS = ["History", "evaluate", "lr_factor", "remove_score_scaling", "train"]
TAKES_A_MASK = ["scaled_dot_product_attention", "MultiHeadAttention", "EncoderLayer", "Encoder"]
MODULES = [n for n in PUBLIC if isinstance(getattr(encoder, n), type) and n not in DATACLASSES]


def test_all_lists_the_public_api():
    """`__all__` names exactly the public objects `encoder` imports from its modules, once."""
    imported = {
        name
        for name, obj in vars(encoder).items()
        if not name.startswith("_") and getattr(obj, "__module__", "").startswith("encoder.")
    }
    assert sorted(encoder.__all__) == sorted(imported)
    assert len(set(encoder.__all__)) == len(encoder.__all__)


def test_version():
    assert isinstance(encoder.__version__, str) and encoder.__version__.count(".") == 2


@pytest.mark.parametrize("name", TAKES_A_MASK)
def test_mask_convention_is_written_where_a_mask_is_taken(name):
    doc = inspect.getdoc(getattr(encoder, name))
    assert "True = may attend" in doc


@pytest.mark.parametrize("name", [n for n in PUBLIC if n not in NO_TENSORS])
def test_public_api_documents_shapes(name):
    obj = getattr(encoder, name)
    doc = inspect.getdoc(obj) or ""
    forward_doc = inspect.getdoc(obj.forward) if name in MODULES else ""
    if name in ("causal_mask", "sinusoidal_table"):  # the shape is in the one-line summary
        assert "(T, T)" in doc or "(n_positions, d_model)" in doc
    else:
        assert "Shape:" in doc or "Shape:" in (forward_doc or ""), name


@pytest.mark.parametrize("name", PUBLIC)
def test_public_api_is_type_hinted(name):
    obj = getattr(encoder, name)
    if name in MODULES:
        functions = [obj.__init__, obj.forward]
    else:
        functions = [obj.__init__] if name in DATACLASSES else [obj]
    for fn in functions:
        hints = typing.get_type_hints(fn)
        params = [p for p in inspect.signature(fn).parameters if p not in ("self", "args")]
        missing = [p for p in params if p not in hints]
        assert not missing, f"{name}.{fn.__name__}: no type hint for {missing}"
        assert "return" in hints, f"{name}.{fn.__name__}: no return type"
