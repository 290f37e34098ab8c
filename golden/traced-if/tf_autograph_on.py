"""Must not change: with autograph on (the default), `tf.function` converts Python `if` itself."""
import tensorflow as tf

GOLDEN = {
    "findings": [],
    "framework": "tensorflow",
    "backends": ["tensorflow"],
}


@tf.function
def double_or_flip(x):
    if tf.reduce_all(x > 0):
        return x * 2
    return -x


def golden_run():
    x = tf.constant([1., 2.])
    return [double_or_flip(x), double_or_flip(-x)]
