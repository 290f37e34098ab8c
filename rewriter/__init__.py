"""phiml-rewrite: make PhiML, JAX, PyTorch and TensorFlow code correct and fast under jit."""
__version__ = "0.1.0"
