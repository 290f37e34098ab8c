"""A `tf.function` method called as `self.step(...)` with a Python float time that grows every step:
tf.function traces once per Python value, so every call traces. Reported with the stable key
(`tf.constant`); the second loop passes a tensor and is left alone."""
import tensorflow as tf

GOLDEN = {
    "findings": ["PML401:22"],
    "framework": "tensorflow",
    "backends": ["tensorflow"],
    "messages": {"PML401:22": "`t` is a new Python number each iteration"},
}


class Oscillator:
    @tf.function
    def step(self, x, t):
        return x + 0.1 * tf.sin(x + t)

    def run(self, x, steps):
        t = 0.0
        for _ in range(steps):
            x = self.step(x, t)
            t += 0.25
        return x

    def run_traced(self, x, steps):
        t = 0.0
        for _ in range(steps):
            x = self.step(x, tf.constant(t))
            t += 0.25
        return x


def golden_run():
    sim = Oscillator()
    x = tf.constant([0.0, 0.5, 1.0])
    return sim.run(x, 3), sim.run_traced(x, 3)
