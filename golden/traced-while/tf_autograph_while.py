"""Must not change: with autograph on (the default), `tf.function` converts a `while` on a tensor into
`tf.while_loop` itself."""
import tensorflow as tf

GOLDEN = {
    "findings": [],
    "framework": "tensorflow",
    "backends": ["tensorflow"],
}


@tf.function
def halve(x):
    while tf.reduce_any(x > 1.):
        x = x / 2.
    return x


def golden_run():
    return [halve(tf.constant([4., 8.])), halve(tf.constant([64., 2.]))]
