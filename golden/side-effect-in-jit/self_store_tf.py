"""`tf.function` on a method: the method and the helper it calls through `self` record tensors on
`self`. They run while tracing only, so `self` keeps symbolic tensors of the graph, never a call's
values (measured: three calls append one entry, and using a stored tensor afterwards raises
`TypeError`: it is out of scope). Not executed, for the reason argument_writes_tf.py gives."""
import tensorflow as tf

GOLDEN = {
    "findings": ["PML501:21", "PML501:25"],
    "framework": "tensorflow",
}


class Controller:
    def __init__(self):
        self.history = []
        self.last_gain = None

    @tf.function
    def __call__(self, error):
        gain = self.gain_for(error)
        self.history.append(gain * error)
        return gain * error

    def gain_for(self, error):
        self.last_gain = 0.5 + 0.1 * tf.reduce_mean(tf.abs(error))
        return self.last_gain
