# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# Paired with `paired_percent.py` by jupytext: the fix is reported, neither file is written.

# %%
import jax
import jax.numpy as jnp

# %%
@jax.jit
def step(x):
    if x.sum() > 0:
        return x * 2
    return -x
