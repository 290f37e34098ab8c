"""Must not be reported: `range(len(grads))` over a parameter that nothing shows to be an array. Here
it is the list `tape.gradient(loss, variables)` returns, one tensor per variable, of different shapes:
a short, fixed loop that is the model's structure, and `tf.range` would fail on it while tracing."""
import tensorflow as tf

GOLDEN = {
    "findings": [],
    "framework": "tensorflow",
    "backends": ["tensorflow"],
}


def agree(grads_a, grads_b):
    out = []
    for i in range(len(grads_a)):
        out.append(tf.where(tf.sign(grads_a[i]) == tf.sign(grads_b[i]), grads_a[i], 0.))
    return out


class Trainer:
    def __init__(self):
        self.variables = [tf.Variable(tf.ones((2, 3))), tf.Variable(tf.ones((3,)))]

    @tf.function
    def step(self, x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.linalg.matvec(self.variables[0], self.variables[1]) * x)
        g = tape.gradient(loss, self.variables)
        return agree(g, [-g[0], g[1]])


def golden_run():
    trainer = Trainer()  # tf.function holds its instance weakly
    return trainer.step(tf.constant([1.0, -2.0]))
