"""`tf.function` refuses a write into a Python container argument while tracing (`ValueError`: it
"should not modify its Python input arguments"); with `tf.config.run_functions_eagerly(True)` the write
updates the caller's dict. Not executed here: in the golden harness the eager run of this case still
traced the `tf.function` and raised the same `ValueError`, so it has no eager result to compare."""
import tensorflow as tf

GOLDEN = {
    "findings": ["PML501:15"],
    "framework": "tensorflow",
}


@tf.function
def accumulate(totals, x):
    totals["sum"] = totals["sum"] + tf.reduce_sum(x)
    return x * 2


def golden_run():
    totals = {"sum": tf.constant(0.)}
    for k in range(3):
        accumulate(totals, tf.constant([1., 2.]) * k)
    return totals["sum"]
