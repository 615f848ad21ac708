"""The benchmark scripts: the floor computes what it says, padded batches have the padding they
claim, and a quick run writes the JSON the Performance page reads. Times are not asserted (they
belong to the script's output)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
import torch
from torch import nn

from benchmarks import bench_encoder_layer, harness, layers


@pytest.fixture(scope="module")
def bench():
    return SimpleNamespace(main=bench_encoder_layer, harness=harness, layers=layers)


def test_floor_is_the_layer_without_biases_and_residuals(bench):
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True).eval()
    x = torch.randn(2, 5, 16)
    floor = bench.layers.floor_forward(layer)(x)
    with torch.no_grad():
        for p in (layer.self_attn.in_proj_bias, layer.self_attn.out_proj.bias):
            p.zero_()
        layer.linear1.bias.zero_()
        layer.linear2.bias.zero_()
        a = layer.self_attn(x, x, x, need_weights=False)[0]
        y = layer.norm1(a)
        expected = layer.norm2(layer.linear2(torch.relu(layer.linear1(y))))
    torch.testing.assert_close(floor, expected, atol=1e-5, rtol=1e-5)


def test_fused_relu_variant_computes_the_layer(bench):
    torch.manual_seed(0)
    ref = nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True).eval()
    ours = bench.layers.EncoderLayer.from_torch(ref).eval()
    x = torch.randn(2, 5, 16)
    mask = torch.ones(2, 1, 1, 5, dtype=torch.bool)
    mask[0, ..., 3:] = False
    with torch.inference_mode():
        torch.testing.assert_close(bench.layers.fused_relu_forward(ours, x, mask), ours(x, mask))


def test_padded_batch_has_the_padding_it_claims(bench):
    args = SimpleNamespace(batch=8, d_model=4, device="cpu")
    x, kpm = bench.layers.batch(args, 64, 0.25, torch.float32)
    assert x.shape == (8, 64, 4)
    assert kpm.float().mean().item() == pytest.approx(0.25, abs=0.01)
    assert not kpm[0].any() and kpm[-1].sum() == 32  # lengths from S down to S / 2
    assert bench.layers.batch(args, 64, 0.0, torch.float32)[1] is None


def test_paired_ci_brackets_the_paired_ratio(bench):
    a = [1.0, 1.1, 0.9, 1.05, 0.95, 1.2, 1.0, 0.98] * 5
    b = [1.0] * len(a)
    lo, hi = bench.harness.paired_ci(a, b)
    assert lo <= bench.harness.paired_ratio(a, b) <= hi
    assert lo < hi
    assert bench.harness.paired_ci([2.0] * 10, [1.0] * 10) == [2.0, 2.0]  # no spread, no interval


def test_quick_run_writes_the_schema_the_page_reads(bench, tmp_path, capsys):
    out = tmp_path / "bench.json"
    bench.main.main(["--quick", "--no-memory", "--save", "--output", str(out)])
    data = json.loads(out.read_text())
    assert data["schema"] == 1
    assert data["config"]["quick"] is True and data["config"]["device"] == "cpu"
    assert len(data["machine"]["git_commit"]) == 40
    for mode, impls in (("inference", {"torch", "ours", "ours_explicit", "floor"}),
                        ("training", {"torch", "ours"})):  # fmt: skip
        rows = data["modes"][mode]
        assert [r["seq_len"] for r in rows] == data["config"]["seq_lens"]
        for row in rows:
            assert set(row["impls"]) == impls
            assert (row["dtype"], row["padding"]) == ("float32", 0.0)
            for name in impls - {"torch"}:
                lo, hi = row["paired_ci"][name]
                assert lo <= row["paired_ratio"][name] <= hi
            for stats in row["impls"].values():
                assert stats["q1_ms"] <= stats["median_ms"] <= stats["q3_ms"]
                assert len(stats["samples_ms"]) == row["repeats"]
    printed = capsys.readouterr().out
    assert "inference, float32, 0% padding" in printed
    assert "paired [95% CI]" in printed
