#!/usr/bin/env python3
"""npm run verify:torch: the full-size checks that need PyTorch (npm test
never imports torch; its goldens are committed at reduced widths).

1. torchvision's r3d_18, mc3_18 and r2plus1d_18 at full width, quantized by
   PyTorch's eager flow under each quantized engine (x86, PyTorch's default,
   and fbgemm; python/qwasm_video.py, get_default_qconfig(engine), two
   calibration clips), exported with python/qwasm_export.py,
   then run by qwasm (scripts/verify-torch-run.mjs) on clips of batch 1 and
   2, 8 and 16 frames, 112x112: the logits' integers and the dequantized
   floats must equal PyTorch's bit for bit.
2. The README's Python blocks (the eager flow, and PT2E with QwasmQuantizer,
   which also needs torchao), run as written, and the README's JavaScript
   example for each on the file it writes.

Without torch it says so and exits 0. Seeds are fixed; clips come from the
LCG the tests use (values (byte - 128) / 64).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    try:
        import torch
        import torchvision  # noqa: F401
        import safetensors  # noqa: F401
    except ImportError as e:
        print(f"verify:torch: skipped: {e.name} is not installed (pip install torch torchvision safetensors)")
        return 0
    sys.path.insert(0, os.path.join(ROOT, "python"))
    sys.path.insert(0, os.path.join(ROOT, "tests", "models"))
    from qwasm_export import export
    from torch.ao.quantization import convert, get_default_qconfig, prepare
    from torchvision.models.video import resnet as tv
    from qwasm_video import quantizable_video_resnet
    from video_resnets import ARCHS, lcg_clip

    torch.set_num_threads(1)
    work = tempfile.mkdtemp(prefix="qwasm-verify-torch-")
    cases = []
    print(f"verify:torch: torch {torch.__version__}, work directory {work}")
    engines = [e for e in ("x86", "fbgemm") if not os.environ.get("QWASM_VERIFY_ENGINE") or e == os.environ["QWASM_VERIFY_ENGINE"]]
    archs = [a for a in ARCHS if not os.environ.get("QWASM_VERIFY_ARCH") or a == os.environ["QWASM_VERIFY_ARCH"]]
    for engine in engines:
        torch.backends.quantized.engine = engine
        for arch in archs:
            a = ARCHS.index(arch)
            t0 = time.time()
            torch.manual_seed(a)
            model = quantizable_video_resnet(getattr(tv, arch)())
            model.qconfig = get_default_qconfig(engine)
            prepare(model, inplace=True)
            with torch.no_grad():
                for k in range(2):
                    model(lcg_clip(100 + 10 * a + k, (1, 3, 16, 112, 112)))
            convert(model, inplace=True)
            path = os.path.join(work, f"{arch}_{engine}.qwasm.safetensors")
            export(model, lcg_clip(100 + 10 * a, (1, 3, 16, 112, 112)), path)
            logits = {}
            model.fc.register_forward_hook(lambda mod, inp, out: logits.__setitem__("q", out))
            for batch in (1, 2):
                for frames in (8, 16):
                    seed = 1000 + 100 * a + 10 * batch + frames
                    shape = [batch, 3, frames, 112, 112]
                    with torch.no_grad():
                        y = model(lcg_clip(seed, shape))
                    q = logits["q"]
                    cases.append({"name": f"{engine}: {arch} batch {batch} frames {frames}", "file": path,
                                  "seed": seed, "shape": shape, "y": y.flatten().tolist(),
                                  "logits": q.int_repr().flatten().tolist(), "scale": q.q_scale(),
                                  "zero_point": q.q_zero_point()})
            size = os.path.getsize(path)
            print(f"  {engine} {arch}: exported {size / 1e6:.1f} MB, PyTorch ran 4 clips ({time.time() - t0:.0f} s)")
    torch.backends.quantized.engine = "x86"  # the README's block runs under PyTorch's default
    with open(os.path.join(work, "cases.json"), "w") as f:
        json.dump(cases, f)
    r = subprocess.run(["node", os.path.join(ROOT, "scripts", "verify-torch-run.mjs"), os.path.join(work, "cases.json")])
    failed = r.returncode != 0

    # The README's Python blocks (the eager flow, then PT2E), each followed by
    # the JavaScript example that loads the file it writes.
    readme = open(os.path.join(ROOT, "README.md")).read()
    app = os.path.join(work, "readme-app")
    os.makedirs(os.path.join(app, "node_modules"))
    os.symlink(ROOT, os.path.join(app, "node_modules", "qwasm"))
    try:
        import torchao  # noqa: F401
    except ImportError:
        torchao = None
    try:
        import monai  # noqa: F401
    except ImportError:
        monai = None
    js_blocks = re.findall(r"^```js node\n(.*?)^```", readme, re.M | re.S)
    for python_block in re.findall(r"^```python run\n(.*?)^```", readme, re.M | re.S):
        if torchao is None and "torchao" in python_block:
            print("  README: the PT2E block skipped: torchao is not installed (pip install torchao)")
            continue
        if monai is None and "monai" in python_block:
            print("  README: the MONAI block skipped: monai is not installed (pip install monai)")
            continue
        written = re.findall(r'export\(.*"([\w.]+\.qwasm\.safetensors)"', python_block)
        t0 = time.time()
        subprocess.run([sys.executable, "-c", python_block], cwd=app, check=True)
        print(f"  README: a Python block wrote full-size {', '.join(written)} ({time.time() - t0:.0f} s)")
        # Each JavaScript example that loads a file this block wrote.
        for js_block in [b for b in js_blocks if any(f"'{w}'" in b for w in written)]:
            with open(os.path.join(app, "example.mjs"), "w") as f:
                f.write(js_block)
            out = subprocess.run(["node", "example.mjs"], cwd=app, capture_output=True, text=True)
            want = [m.strip() for m in re.findall(r"// → (.*)$", js_block, re.M)]
            got = out.stdout.strip().split("\n")
            if got == want and not out.stderr:
                print(f"    its JS example printed {got}")
            else:
                print(f"    FAILED: a JS example printed {got} (stderr {out.stderr!r}), the comments say {want}")
                failed = True
    shutil.rmtree(work, ignore_errors=True)
    print("verify:torch: " + ("FAILED" if failed else "every full-size check equals PyTorch"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
