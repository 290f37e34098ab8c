"""Must not change: `tf.function` keeps a Python int argument a Python value (one trace per value), so
`range(n)` and `if flag:` on it are Python control flow there; nothing needs declaring static."""
import tensorflow as tf

GOLDEN = {
    "findings": [],
    "framework": "tensorflow",
    "backends": ["tensorflow"],
}


@tf.function
def smooth(x, n: int, flag: bool):
    for _ in range(n):
        x = 0.5 * (x + tf.roll(x, 1, axis=0))
    if flag:
        x = -x
    return x


def golden_run():
    x = tf.constant([1., 2., 4., 8.])
    return [smooth(x, 2, False), smooth(x, 3, True)]
