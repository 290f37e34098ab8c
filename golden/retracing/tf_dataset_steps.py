"""A `tf.function` training step given the step number. Counted by the builtin `enumerate`, the step is
a new Python number every iteration: tf.function traces once per Python value, so every call traces
(reported with the stable key). Counted by `Dataset.enumerate()`, the step is a tensor and one trace
serves every call: left alone (it used to be reported too, read as the builtin's counter)."""
import tensorflow as tf

GOLDEN = {
    "findings": ["PML401:23"],
    "framework": "tensorflow",
    "backends": ["tensorflow"],
    "messages": {"PML401:23": "`step` is a new Python number each iteration"},
}


@tf.function
def train_step(w, batch, step):
    decay = 1.0 / (1.0 + 0.1 * tf.cast(step, tf.float32))
    return w - decay * tf.reduce_mean(batch) * w


def train_listed(w, batches):
    for step, batch in enumerate(batches):
        w = train_step(w, batch, step)
    return w


def train_dataset(w, dataset):
    for step, batch in dataset.enumerate():
        w = train_step(w, batch, step)
    return w


def golden_run():
    batches = [tf.constant([0.5, 1.0]), tf.constant([0.25, 0.75]), tf.constant([1.0, 2.0])]
    w = tf.constant(1.0)
    return train_listed(w, batches), train_dataset(w, tf.data.Dataset.from_tensor_slices(tf.stack(batches)))
