"""Must not be reported: `torch.compile` (dynamo) replays side effects on Python objects after its
graph: a module-level list, the caller's dict and `self` are updated on every call, as eagerly."""
import torch

GOLDEN = {
    "findings": [],
    "framework": "torch",
    "backends": ["torch"],
}

LOG = []


class Tracker:
    def __init__(self):
        self.last = None
        self.fast = torch.compile(self.update, backend="eager")

    def update(self, x, stats):
        y = x * 2
        LOG.append(y)
        stats["sum"] = y.sum()
        self.last = y
        return y + 1


def golden_run():
    t = Tracker()
    stats = {}
    sums = []
    for k in range(1, 4):
        t.fast(torch.ones(2) * k, stats)
        sums.append(stats["sum"].clone())
    return sums, t.last, torch.stack(LOG)
