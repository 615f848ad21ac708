"""Benchmarks of the package against PyTorch; run `python -m benchmarks.bench_encoder_layer`."""
