// QuantStub / DeQuantStub mark where a float model's quantized region starts
// and ends (float identities until convert()); nn.quantized.Quantize and
// nn.quantized.DeQuantize (quantize-modules.mjs) are what convert() puts in
// their place. Public as quantization.QuantStub / DeQuantStub (PyTorch's
// torch.ao.quantization namespace); they sit with the modules so that the op
// descriptors (web/src/ops/), below the quantization flow, can name them.
import { Module } from './module.mjs';

/** torch.ao.quantization.QuantStub: the identity, until convert() makes it a Quantize. */
export class QuantStub extends Module {
  forward(x) {
    return x;
  }
}

/** torch.ao.quantization.DeQuantStub: the identity, until convert() makes it a DeQuantize. */
export class DeQuantStub extends Module {
  forward(x) {
    return x;
  }
}
