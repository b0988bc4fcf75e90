"""fixtures/: .npy and .safetensors files for the io tests, with the values they hold."""
import os

import numpy as np

from .common import SEED, arr, output_path, write


def io_fixtures():
    """Files written by real numpy and safetensors for the io.loadNpy /
    io.loadSafetensors tests, with the values they hold."""
    from safetensors.numpy import save_file
    out = os.path.dirname(output_path("fixtures/expected.json"))
    rng = np.random.default_rng(SEED)
    expected = {}

    def npy(name, a):
        np.save(os.path.join(out, name), a)
        expected[name] = {"shape": list(a.shape), "values": arr(np.ascontiguousarray(a).astype(np.float32).reshape(-1))}

    npy("weight_f32.npy", rng.standard_normal((8, 3, 3, 3, 3)).astype(np.float32))
    npy("activation_f64.npy", rng.standard_normal((2, 4, 5, 3)))
    npy("half_f16.npy", rng.standard_normal((6, 7)).astype(np.float16))
    npy("big_endian_f4.npy", rng.standard_normal((5, 4)).astype(">f4"))
    npy("scalar_f32.npy", np.float32(3.25).reshape(()))
    np.save(os.path.join(out, "fortran_f32.npy"), np.asfortranarray(rng.standard_normal((3, 4)).astype(np.float32)))
    np.save(os.path.join(out, "int32.npy"), np.arange(12, dtype=np.int32).reshape(3, 4))
    tensors = {
        "conv1.weight": rng.standard_normal((16, 3, 3, 3, 3)).astype(np.float32),
        "conv1.bias": rng.standard_normal((16,)).astype(np.float32),
        "fc.weight": rng.standard_normal((10, 32)).astype(np.float64),
        "emb.half": rng.standard_normal((4, 6)).astype(np.float16),
        "steps": np.arange(5, dtype=np.int64),
    }
    save_file(tensors, os.path.join(out, "model.safetensors"), metadata={"format": "pt"})
    for k, v in tensors.items():
        expected[f"model.safetensors:{k}"] = {"shape": list(v.shape), "values": arr(v.astype(np.float32).reshape(-1))}
    write("fixtures/expected.json", [{"file": k, **v} for k, v in expected.items()])
