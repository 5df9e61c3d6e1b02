"""The real-model evaluation of benchmarks/bench_real_model.py, in parts."""
