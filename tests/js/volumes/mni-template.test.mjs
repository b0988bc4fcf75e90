// The MNI152 2009c T1 template from nilearn's installed wheel (197x233x189,
// uint8, 1 mm RAS), where python3 has nilearn (a developer's machine): as
// stored, and rewritten by nibabel as LPI at 1.3 x 1 x 0.8 mm in a qform only
// (so reoriented and resampled): python/qwasm_volume.py and
// transforms.VolumeSegmentation give the same input bytes, and the same labels
// back on the stored grid from logits [x, 0.5, 1 - x].
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as qwasm from '../../../web/src/index.node.mjs';
import { ROOT } from '../readme-blocks.mjs';

const hasNilearn = spawnSync('python3', ['-c', 'import nilearn, nibabel'], { encoding: 'utf8' }).status === 0;
const work = mkdtempSync(join(tmpdir(), 'qwasm-mni-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const PYTHON = `import os, sys
sys.path.insert(0, ${JSON.stringify(join(ROOT, 'python'))})
import nibabel, nilearn, numpy as np
import qwasm_volume as qv
work = ${JSON.stringify(work)}
src = os.path.join(os.path.dirname(nilearn.__file__), "datasets", "data", "mni_icbm152_t1_tal_nlin_sym_09a_converted.nii.gz")
img = nibabel.load(src)
data = np.asarray(img.dataobj.get_unscaled())[::-1, :, ::-1]  # LPI
aff = np.diag([-1.3, 1.0, -0.8, 1.0]); aff[:3, 3] = [90, -126, 72]
lpi = nibabel.Nifti1Image(data, None)
lpi.header.set_qform(aff, code=1); lpi.header.set_sform(aff, code=0)
nibabel.save(lpi, os.path.join(work, "lpi.nii.gz"))
for name, path in (("stored", src), ("lpi", os.path.join(work, "lpi.nii.gz"))):
    x = qv.preprocess(path)
    x.tofile(os.path.join(work, name + ".x"))
    logits = np.concatenate([x, np.full_like(x, 0.5), np.float32(1) - x], axis=1)
    qv.labels_to_input(logits, path).reshape(-1, order="F").tofile(os.path.join(work, name + ".labels"))
    print(name, src if name == "stored" else path)
`;

(hasNilearn ? describe : describe.skip)('the MNI152 template (nilearn)', () => {
  const files = {};
  beforeAll(() => {
    const r = spawnSync('nice', ['python3', '-c', PYTHON], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
    for (const line of r.stdout.trim().split('\n')) {
      const [name, path] = line.split(' ');
      files[name] = path;
    }
  }, 180_000);

  test.each(['stored', 'lpi'])(
    '%s: the same input bytes and labels as the Python twin',
    async (name) => {
      const volume = await qwasm.io.readNifti(readFileSync(files[name]));
      const t = new qwasm.transforms.VolumeSegmentation();
      const started = Date.now();
      const x = t.forward(volume);
      console.log(
        `${name}: ${volume.dims.join('x')} ${volume.datatype} -> ${x.shape.join('x')} in ${Date.now() - started} ms`,
      );
      const want = new Float32Array(readFileSync(join(work, `${name}.x`)).buffer.slice(0));
      expect(x.data.length).toBe(want.length);
      expect(Buffer.from(x.data.buffer).equals(Buffer.from(want.buffer))).toBe(true);
      const n = x.data.length;
      const logits = new Float32Array(3 * n);
      for (let i = 0; i < n; i++) {
        logits[i] = x.data[i];
        logits[n + i] = 0.5;
        logits[2 * n + i] = Math.fround(1 - x.data[i]);
      }
      const labels = t.labels({ data: logits, shape: [1, 3, ...x.shape.slice(2)] }, volume);
      expect(Buffer.from(labels.data).equals(readFileSync(join(work, `${name}.labels`)))).toBe(true);
    },
    60_000,
  );
});
