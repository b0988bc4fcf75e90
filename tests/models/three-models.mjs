// The three small 3D CNNs of tests/golden/models.json, layer for layer as
// generate.py builds them in PyTorch: a C3D-style stack, a 3D ResNet with
// basic blocks (FloatFunctional.addRelu skips, a strided 1x1x1 downsample),
// and an R(2+1)D-style network ((1,3,3) then (3,1,1) convolutions). Shared by
// the golden test and the model benchmark. `q` is the qwasm namespace.

// `widths`: the three convolutions' output channels (the goldens' are small;
// the model benchmark uses wider ones).
export function c3d(q, { widths = [8, 16, 16], classes = 5 } = {}) {
  const { nn, quantization } = q;
  const [c1, c2, c3] = widths;
  class C3D extends nn.Module {
    constructor() {
      super();
      this.quant = new quantization.QuantStub();
      this.conv1 = new nn.Conv3d(3, c1, 3, { padding: 1 });
      this.bn1 = new nn.BatchNorm3d(c1);
      this.relu1 = new nn.ReLU();
      this.pool1 = new nn.MaxPool3d([1, 2, 2]);
      this.conv2 = new nn.Conv3d(c1, c2, 3, { padding: 1 });
      this.bn2 = new nn.BatchNorm3d(c2);
      this.relu2 = new nn.ReLU();
      this.pool2 = new nn.MaxPool3d(2);
      this.conv3 = new nn.Conv3d(c2, c3, 3, { padding: 1 });
      this.bn3 = new nn.BatchNorm3d(c3);
      this.relu3 = new nn.ReLU();
      this.pool3 = new nn.AvgPool3d(2);
      this.gap = new nn.AdaptiveAvgPool3d(1);
      this.flatten = new nn.Flatten();
      this.dropout = new nn.Dropout(0.5);
      this.fc = new nn.Linear(c3, classes);
      this.dequant = new quantization.DeQuantStub();
    }

    forward(x) {
      let y = this.quant.forward(x);
      y = this.pool1.forward(this.relu1.forward(this.bn1.forward(this.conv1.forward(y))));
      y = this.pool2.forward(this.relu2.forward(this.bn2.forward(this.conv2.forward(y))));
      y = this.pool3.forward(this.relu3.forward(this.bn3.forward(this.conv3.forward(y))));
      y = this.dropout.forward(this.flatten.forward(this.gap.forward(y)));
      return this.dequant.forward(this.fc.forward(y));
    }
  }
  return new C3D();
}

export function resnet3d(q) {
  const { nn, quantization } = q;
  class Block extends nn.Module {
    constructor(cin, cout, stride) {
      super();
      this.conv1 = new nn.Conv3d(cin, cout, 3, { stride, padding: 1, bias: false });
      this.bn1 = new nn.BatchNorm3d(cout);
      this.relu1 = new nn.ReLU();
      this.conv2 = new nn.Conv3d(cout, cout, 3, { padding: 1, bias: false });
      this.bn2 = new nn.BatchNorm3d(cout);
      if (stride !== 1 || cin !== cout) {
        this.downsample = new nn.Sequential(
          new nn.Conv3d(cin, cout, 1, { stride, bias: false }),
          new nn.BatchNorm3d(cout),
        );
      }
      this.skip = new nn.quantized.FloatFunctional();
    }

    forward(x) {
      let y = this.relu1.forward(this.bn1.forward(this.conv1.forward(x)));
      y = this.bn2.forward(this.conv2.forward(y));
      const identity = this.downsample ? this.downsample.forward(x) : x;
      return this.skip.addRelu(y, identity);
    }
  }
  class ResNet3d extends nn.Module {
    constructor() {
      super();
      this.quant = new quantization.QuantStub();
      this.stem = new nn.Conv3d(3, 8, 3, { padding: 1, bias: false });
      this.stem_bn = new nn.BatchNorm3d(8);
      this.stem_relu = new nn.ReLU();
      this.layer1 = new Block(8, 8, 1);
      this.layer2 = new Block(8, 16, 2);
      this.gap = new nn.AdaptiveAvgPool3d(1);
      this.flatten = new nn.Flatten();
      this.fc = new nn.Linear(16, 5);
      this.dequant = new quantization.DeQuantStub();
    }

    forward(x) {
      let y = this.stem_relu.forward(this.stem_bn.forward(this.stem.forward(this.quant.forward(x))));
      y = this.layer2.forward(this.layer1.forward(y));
      return this.dequant.forward(this.fc.forward(this.flatten.forward(this.gap.forward(y))));
    }
  }
  return new ResNet3d();
}

export function r2plus1d(q) {
  const { nn, quantization } = q;
  class R2Plus1D extends nn.Module {
    constructor() {
      super();
      this.quant = new quantization.QuantStub();
      this.s1 = new nn.Conv3d(3, 8, [1, 3, 3], { padding: [0, 1, 1], bias: false });
      this.s1_bn = new nn.BatchNorm3d(8);
      this.s1_relu = new nn.ReLU();
      this.t1 = new nn.Conv3d(8, 8, [3, 1, 1], { padding: [1, 0, 0], bias: false });
      this.t1_bn = new nn.BatchNorm3d(8);
      this.t1_relu = new nn.ReLU();
      this.s2 = new nn.Conv3d(8, 16, [1, 3, 3], { stride: [1, 2, 2], padding: [0, 1, 1], bias: false });
      this.s2_bn = new nn.BatchNorm3d(16);
      this.s2_relu = new nn.ReLU();
      this.t2 = new nn.Conv3d(16, 16, [3, 1, 1], { stride: [2, 1, 1], padding: [1, 0, 0], bias: false });
      this.t2_bn = new nn.BatchNorm3d(16);
      this.t2_relu = new nn.ReLU();
      this.pool = new nn.MaxPool3d(2);
      this.gap = new nn.AdaptiveAvgPool3d(1);
      this.flatten = new nn.Flatten();
      this.fc = new nn.Linear(16, 5);
      this.dequant = new quantization.DeQuantStub();
    }

    forward(x) {
      let y = this.quant.forward(x);
      y = this.t1_relu.forward(
        this.t1_bn.forward(this.t1.forward(this.s1_relu.forward(this.s1_bn.forward(this.s1.forward(y))))),
      );
      y = this.t2_relu.forward(
        this.t2_bn.forward(this.t2.forward(this.s2_relu.forward(this.s2_bn.forward(this.s2.forward(y))))),
      );
      y = this.gap.forward(this.pool.forward(y));
      return this.dequant.forward(this.fc.forward(this.flatten.forward(y)));
    }
  }
  return new R2Plus1D();
}

export const MODELS = { 'C3D-style': c3d, '3D ResNet basic blocks': resnet3d, 'R(2+1)D': r2plus1d };

// PyTorch state_dict names -> qwasm property names.
const PARAM = { weight: 'weight', bias: 'bias', running_mean: 'runningMean', running_var: 'runningVar' };

/** Sets every float parameter from a state_dict ({name: {data, shape}}). */
export function loadStateDict(model, state) {
  for (const [key, value] of Object.entries(state)) {
    const i = key.lastIndexOf('.');
    const prop = PARAM[key.slice(i + 1)];
    if (!prop) throw new Error(`unknown parameter ${key}`);
    model.getSubmodule(key.slice(0, i))[prop] = value;
  }
}
