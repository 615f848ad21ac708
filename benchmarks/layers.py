"""The implementations compared, and the batches they run on.

``torch``  ``nn.TransformerEncoderLayer(d, h, ff, dropout=0.0, batch_first=True)``: post-norm,
           ReLU, the defaults. In ``eval()`` under ``torch.inference_mode()`` it takes its fast
           path (one fused call for the whole layer; with a padding mask, a masked softmax
           over the full (B, H, S, S) scores).
``ours``   ``EncoderLayer.from_torch(torch_layer)``: the same weights, so the same numbers.
``ours_explicit`` (inference) our layer with the attention written out (``need_weights=True``),
           building the (B, H, S, S) weights: what the fused kernel saves.
``ours_fused_relu`` (inference, ``--fused-relu``) our layer with the first product of the
           feed-forward network and its ReLU in one call, ``torch._addmm_activation`` (the
           private op torch's fast path uses): what one pass fewer over the hidden layer saves.
``floor``  (inference, no padding) not a layer: only the work no layer built from PyTorch's
           operators can skip (four bias-free products, the attention kernel, the ReLU, two
           norms). Its output is wrong; its time bounds the others from below.

A padded batch has 25 % padding (``--padding 0.25``): sequence lengths fall evenly from S to
S/2 across the batch, so the mean is 3/4 S.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.harness import Call
from encoder import EncoderLayer


def build_layers(args, dtype: torch.dtype) -> tuple[nn.TransformerEncoderLayer, EncoderLayer]:
    torch.manual_seed(0)
    ref = nn.TransformerEncoderLayer(
        args.d_model, args.n_head, args.d_ff, dropout=0.0, batch_first=True
    ).to(args.device, dtype)
    return ref, EncoderLayer.from_torch(ref)


def batch(args, S: int, padding: float, dtype: torch.dtype):
    """x (B, S, d) and torch's key_padding_mask (B, S), True = padding; None without padding."""
    torch.manual_seed(1)
    B = args.batch
    x = torch.randn(B, S, args.d_model, device=args.device, dtype=dtype)
    if not padding:
        return x, None
    step = 2 * padding * S / max(B - 1, 1)
    lengths = torch.tensor([S - round(b * step) for b in range(B)], device=args.device)
    return x, torch.arange(S, device=args.device)[None, :] >= lengths[:, None]


def explicit_forward(layer: EncoderLayer, x: torch.Tensor, mask=None) -> torch.Tensor:
    """``layer(x, mask)`` in eval mode (post-norm), with the attention written out."""
    a, _ = layer.self_attn(x, x, x, mask, need_weights=True)
    x = layer.norm1(x + a)
    return layer.norm2(x + layer.ff(x))


def fused_relu_forward(layer: EncoderLayer, x: torch.Tensor, mask=None) -> torch.Tensor:
    """``layer(x, mask)`` in eval mode (post-norm), the FFN's bias and ReLU in the product."""
    x = layer.norm1(x + layer.self_attn(x, x, x, mask))
    lin1, lin2 = layer.ff.linear1, layer.ff.linear2
    h = torch._addmm_activation(lin1.bias, x.reshape(-1, x.size(-1)), lin1.weight.t())
    return layer.norm2(x + lin2(h).view_as(x))


def floor_forward(layer: nn.TransformerEncoderLayer):
    """The unavoidable work of ``layer`` as a function of x: see ``floor`` above.

    Weights are copied once, transposed to (in, out), outside the timed call.
    """
    attn = layer.self_attn
    d, h = attn.embed_dim, attn.num_heads
    w_qkv, w_o, w_1, w_2 = (
        w.detach().t().contiguous()
        for w in (
            attn.in_proj_weight,
            attn.out_proj.weight,
            layer.linear1.weight,
            layer.linear2.weight,
        )
    )
    n1, n2 = layer.norm1, layer.norm2

    def run(x: torch.Tensor) -> torch.Tensor:
        B, S, _ = x.shape
        qkv = (x.reshape(B * S, d) @ w_qkv).view(B, S, 3, h, d // h).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2])  # (B, h, S, d/h)
        a = a.transpose(1, 2).reshape(B * S, d) @ w_o
        y = F.layer_norm(a, (d,), n1.weight, n1.bias, n1.eps)
        z = (y @ w_1).relu_() @ w_2
        return F.layer_norm(z, (d,), n2.weight, n2.bias, n2.eps).view(B, S, d)

    return run


def inference_fns(
    ref, ours, x, kpm, explicit: bool, floor: bool, fused_relu: bool = False
) -> dict[str, Call]:
    ref.eval()
    ours.eval()
    mask = None if kpm is None else ~kpm[:, None, None, :]  # ours: True = may attend
    fns = {
        "torch": (None, lambda: ref(x, src_key_padding_mask=kpm)),
        "ours": (None, lambda: ours(x, mask)),
    }
    if explicit:
        fns["ours_explicit"] = (None, lambda: explicit_forward(ours, x, mask))
    if fused_relu:
        fns["ours_fused_relu"] = (None, lambda: fused_relu_forward(ours, x, mask))
    if floor and kpm is None:
        run = floor_forward(ref)
        fns["floor"] = (None, lambda: run(x))
    return fns


def training_fns(ref, ours, x, kpm) -> dict[str, Call]:
    """name -> (reset the gradients, forward + backward of the sum of the output)."""
    ref.train()
    ours.train()
    mask = None if kpm is None else ~kpm[:, None, None, :]
    return {
        "torch": (
            lambda: ref.zero_grad(set_to_none=True),
            lambda: ref(x, src_key_padding_mask=kpm).sum().backward(),
        ),
        "ours": (lambda: ours.zero_grad(set_to_none=True), lambda: ours(x, mask).sum().backward()),
    }


# ------------------------------------------------ where the time goes at short S (CUDA only)


def cuda_graph(fn: Callable[[], object]) -> Callable[[], object]:
    """``fn`` captured once as a CUDA graph (inference mode): replays launch it in one call."""
    with torch.inference_mode():
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                fn()
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            fn()
    return graph.replay


def launch_overhead_fns(ref, ours, x) -> dict[str, Call]:
    """Both layers (inference, no padding) as CUDA graphs and compiled by torch.compile."""
    ref.eval()
    ours.eval()
    fns: dict[str, Call] = {}
    for name, layer in (("torch", ref), ("ours", ours)):
        try:
            fns[f"{name}, CUDA graph"] = (None, cuda_graph(lambda layer=layer: layer(x)))
        except RuntimeError as e:  # a layer that cannot be captured says why
            print(f"  {name}: no CUDA graph: {str(e).splitlines()[0]}", flush=True)
        compiled = torch.compile(layer)
        fns[f"{name}, compiled"] = (None, lambda compiled=compiled: compiled(x))
    return fns
