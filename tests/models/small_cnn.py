"""A small 2D CNN with what image classifiers use, for the PT2E goldens and the
README's recipe test: Conv + BatchNorm + ReLU, max pooling, two residual
blocks (one with a strided 1x1 downsample), a pooled branch concatenated to
the trunk, global average pooling, flatten, dropout and two linear layers
(the first with ReLU). Each ReLU is its own module (torchao's
X86InductorQuantizer refuses a module called twice). Random initialisation
with a fixed seed: nothing is downloaded.
"""
import torch
from torch import nn


class _Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.relu1 = nn.ReLU()
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
        self.relu2 = nn.ReLU()

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        y = self.bn2(self.conv2(self.relu1(self.bn1(self.conv1(x)))))
        return self.relu2(y + identity)


class SmallCNN(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        self.pool = nn.MaxPool2d(2)
        self.block1 = _Block(16, 16, 1)
        self.block2 = _Block(16, 32, 2)
        self.branch = nn.AvgPool2d(3, 1, 1)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Linear(64, 32)
        self.relu = nn.ReLU()
        self.dropout = nn.Dropout(0.1)
        self.fc2 = nn.Linear(32, num_classes)

    def forward(self, x):
        x = self.block2(self.block1(self.pool(self.stem(x))))
        x = torch.cat([x, self.branch(x)], 1)
        x = torch.flatten(self.avgpool(x), 1)
        return self.fc2(self.dropout(self.relu(self.fc1(x))))


def float_model(seed=0, num_classes=10):
    """The float model in eval mode, BatchNorm statistics set to non-trivial values."""
    torch.manual_seed(seed)
    m = SmallCNN(num_classes)
    for mod in m.modules():
        if isinstance(mod, nn.BatchNorm2d):
            mod.running_mean.uniform_(-0.2, 0.2)
            mod.running_var.uniform_(0.5, 1.5)
            mod.weight.data.uniform_(0.5, 1.5)
            mod.bias.data.uniform_(-0.2, 0.2)
    return m.eval()
