"""`tf.function(autograph=False)`: a Python `if` on a symbolic tensor raises; `tf.where`/`tf.cond` do not."""
import tensorflow as tf

GOLDEN = {
    # unsafe: the shape of `tf.linalg.matvec(...)` cannot be proven equal to the shape of `x`
    "unsafe_fixes": True,
    "findings": ["PML201:16", "PML201:22"],
    "framework": "tensorflow",
    "backends": ["tensorflow"],
    "original_broken": {"tensorflow": "OperatorNotAllowedInGraphError"},
}


@tf.function(autograph=False)
def double_or_flip(x):
    return tf.where(tf.reduce_all(x > 0), x * 2, -x)


@tf.function(autograph=False)
def smooth(x):
    # real work in a branch: tf.cond runs only the selected one
    y = tf.cond(tf.reduce_max(x) > 1, lambda: tf.linalg.matvec(tf.eye(2) * 0.5, x), lambda: x)
    return y


def golden_run():
    x = tf.constant([1., 2.])
    return [double_or_flip(x), double_or_flip(-x), smooth(x), smooth(x * 0.1)]
