// quantization.setEngine / getEngine: PyTorch's torch.backends.quantized.engine.
//
// The engine decides, when a quantized layer's weights are packed (its
// constructor and setWeightBias, as PyTorch's prepack), whose arithmetic the
// layer reproduces: under 'fbgemm' FBGEMM's; under 'x86' (PyTorch's default
// on x86 CPUs) oneDNN's for the convolutions PyTorch routes there and
// FBGEMM's for the rest (the core's conv_backend_for has the rule). The
// layer keeps its backend (module.backend) whatever the engine later is.
import { readChoice } from './args.mjs';
import { ENGINE } from './codes.mjs';

/** The engines qwasm reproduces (torch.backends.quantized.supported_engines on x86, less qnnpack and onednn). */
export const SUPPORTED_ENGINES = Object.freeze(['x86', 'fbgemm']);

const ENGINES = new Map(SUPPORTED_ENGINES.map((e) => [e, e]));
let current = 'x86';

/** torch.backends.quantized.engine = name. */
export function setEngine(name) {
  current = readChoice(name, ENGINES, 'engine', 'quantization.setEngine(name)');
}

/** torch.backends.quantized.engine. */
export function getEngine() {
  return current;
}

/** @internal An engine (by default the one in force) as the core takes it: its code (codes.mjs). */
export const engineCode = (name = current) => ENGINE.get(name);
