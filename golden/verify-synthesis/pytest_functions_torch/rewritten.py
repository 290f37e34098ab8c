"""Changed pytest functions of torch code run as written, original and rewrite: a test without
parameters is verified by its own assertions; a test that takes a fixture is left to --pytest."""
import torch

SYNTHESIS = {
    "verdicts": {"test_clamp": "verified", "test_in_folder": "unsynthesizable"},
    "reasons": {"test_clamp": "the test passes", "test_in_folder": "--pytest"},
}


def test_clamp():
    x = torch.tensor([-1.0, 2.0, -0.5])
    assert torch.equal(torch.relu(x), torch.tensor([0.0, 2.0, 0.0]))


def test_in_folder(tmp_path):
    torch.save(torch.relu(torch.ones(2)), tmp_path / "x.pt")
