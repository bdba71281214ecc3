"""Solvers, one module per objective, sharing the compiled turn kernels."""
