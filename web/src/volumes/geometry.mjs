// The geometry of a NIfTI-1 volume: the voxel-to-world affine from the header
// (sform, else qform, else the voxel sizes), the quaternion the qform stores,
// and the axis permutation and flips that bring a volume to RAS+. Every step
// is written out in float64 scalar arithmetic, in the order
// python/qwasm_volume.py writes it, so that both sides agree to the bit
// (docs/numerics.md, "Volumes"). Matrices are 4x4, row-major, 16 numbers.

/** The 4x4 of srow_x, srow_y, srow_z (float32 values, exact in float64). */
export function sformMatrix(srow) {
  return [...srow[0], ...srow[1], ...srow[2], 0, 0, 0, 1];
}

/**
 * NIfTI-1's qform (nifti1_io.c nifti_quatern_to_mat44): the rotation of the
 * unit quaternion (a, b, c, d), a = sqrt(1 - b² - c² - d²), times the voxel
 * sizes, the third negated when qfac < 0, plus the offsets.
 */
export function qformMatrix(b, c, d, qx, qy, qz, dx, dy, dz, qfac) {
  let a = 1 - (b * b + c * c + d * d);
  if (a < 1e-7) {
    // b, c, d are a unit vector (a 180 degree turn): normalised as nifti1_io does
    a = 1 / Math.sqrt(b * b + c * c + d * d);
    b *= a;
    c *= a;
    d *= a;
    a = 0;
  } else {
    a = Math.sqrt(a);
  }
  const xd = dx > 0 ? dx : 1;
  const yd = dy > 0 ? dy : 1;
  const zd = (dz > 0 ? dz : 1) * (qfac < 0 ? -1 : 1);
  return [
    (a * a + b * b - c * c - d * d) * xd,
    2 * (b * c - a * d) * yd,
    2 * (b * d + a * c) * zd,
    qx,
    2 * (b * c + a * d) * xd,
    (a * a + c * c - b * b - d * d) * yd,
    2 * (c * d - a * b) * zd,
    qy,
    2 * (b * d - a * c) * xd,
    2 * (c * d + a * b) * yd,
    (a * a + d * d - c * c - b * b) * zd,
    qz,
    0,
    0,
    0,
    1,
  ];
}

/** Determinant of a 3x3 held as 9 numbers, row-major. */
function det3(m) {
  return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6]);
}

/** The 3x3 linear part of a 4x4. */
const linearPart = (A) => [A[0], A[1], A[2], A[4], A[5], A[6], A[8], A[9], A[10]];

/** Euclidean length of column j of a 3x3: the voxel size along input axis j. */
export function columnNorm(m, j) {
  return Math.sqrt(m[j] * m[j] + m[3 + j] * m[3 + j] + m[6 + j] * m[6 + j]);
}

/**
 * The orthogonal factor of a nonsingular 3x3's polar decomposition (the
 * rotation nearest to it, as an SVD's P Qᵀ), by Newton's iteration
 * X ← (X + X⁻ᵀ) / 2 (X⁻ᵀ = cofactors / det), 100 steps at most, stopping when no
 * entry moves by more than 1e-15. Null for a singular matrix.
 */
export function polarOrthogonal(m) {
  let x = m.slice();
  for (let step = 0; step < 100; step++) {
    const det = det3(x);
    if (!(Math.abs(det) > 1e-12) || !Number.isFinite(det)) return null;
    const cof = [
      x[4] * x[8] - x[5] * x[7],
      x[5] * x[6] - x[3] * x[8],
      x[3] * x[7] - x[4] * x[6],
      x[2] * x[7] - x[1] * x[8],
      x[0] * x[8] - x[2] * x[6],
      x[1] * x[6] - x[0] * x[7],
      x[1] * x[5] - x[2] * x[4],
      x[2] * x[3] - x[0] * x[5],
      x[0] * x[4] - x[1] * x[3],
    ];
    let moved = 0;
    const next = new Array(9);
    for (let i = 0; i < 9; i++) {
      next[i] = 0.5 * (x[i] + cof[i] / det);
      moved = Math.max(moved, Math.abs(next[i] - x[i]));
    }
    x = next;
    if (moved <= 1e-15) break;
  }
  return x;
}

/**
 * nibabel.orientations.io_orientation(affine) followed by the mapping to RAS+:
 * for each output axis a (R, A, S), the input (stored) axis it comes from and
 * whether it runs backwards. The columns are divided by their lengths, the
 * nearest rotation taken (polarOrthogonal), then each input axis in turn takes
 * the world axis of its largest |entry| among those not yet taken (the first
 * on a tie, as numpy's argmax). Throws for a singular affine.
 * @returns {{from: number[], flip: boolean[], spacing: number[]}} spacing: the
 *   voxel size along each output axis (the affine's column lengths).
 */
export function rasOrientation(affine, ctx) {
  const m = linearPart(affine);
  const norms = [0, 1, 2].map((j) => columnNorm(m, j));
  if (!norms.every((n) => n > 0 && Number.isFinite(n))) {
    throw new RangeError(`${ctx}: the affine has a zero or non-finite voxel axis (column lengths ${norms.join(', ')})`);
  }
  const unit = m.map((v, i) => v / norms[i % 3]);
  const r = polarOrthogonal(unit);
  if (r === null) throw new RangeError(`${ctx}: the affine is singular: its voxel axes do not span 3-D space`);
  const from = [-1, -1, -1];
  const flip = [false, false, false];
  const spacing = [0, 0, 0];
  for (let j = 0; j < 3; j++) {
    let best = -1;
    let bestAbs = 0;
    for (let i = 0; i < 3; i++) {
      const v = Math.abs(r[i * 3 + j]);
      if (v > bestAbs) {
        best = i;
        bestAbs = v;
      }
    }
    if (best < 0) throw new RangeError(`${ctx}: the affine's axes cannot be matched to world axes`);
    from[best] = j;
    flip[best] = r[best * 3 + j] < 0;
    spacing[best] = norms[j];
    for (let k = 0; k < 3; k++) r[best * 3 + k] = 0; // this world axis is taken
  }
  return { from, flip, spacing };
}

/**
 * NIfTI-1's quaternion of an affine (nifti1_io.c nifti_mat44_to_quatern): the
 * voxel sizes are the column lengths, the rotation the nearest orthogonal
 * matrix, qfac -1 when it is a reflection (its third column then negated).
 */
export function affineToQuatern(A) {
  const m = linearPart(A);
  const pixdim = [0, 1, 2].map((j) => columnNorm(m, j));
  const unit = m.map((v, i) => v / pixdim[i % 3]);
  const r = polarOrthogonal(unit);
  if (r === null) return null;
  let qfac = 1;
  if (det3(r) <= 0) {
    qfac = -1;
    r[2] = -r[2];
    r[5] = -r[5];
    r[8] = -r[8];
  }
  const [r11, r12, r13, r21, r22, r23, r31, r32, r33] = r;
  let a = r11 + r22 + r33 + 1;
  let b;
  let c;
  let d;
  if (a > 0.5) {
    a = 0.5 * Math.sqrt(a);
    b = (0.25 * (r32 - r23)) / a;
    c = (0.25 * (r13 - r31)) / a;
    d = (0.25 * (r21 - r12)) / a;
  } else {
    const xd = 1 + r11 - (r22 + r33);
    const yd = 1 + r22 - (r11 + r33);
    const zd = 1 + r33 - (r11 + r22);
    if (xd > 1) {
      b = 0.5 * Math.sqrt(xd);
      c = (0.25 * (r12 + r21)) / b;
      d = (0.25 * (r13 + r31)) / b;
      a = (0.25 * (r32 - r23)) / b;
    } else if (yd > 1) {
      c = 0.5 * Math.sqrt(yd);
      b = (0.25 * (r12 + r21)) / c;
      d = (0.25 * (r23 + r32)) / c;
      a = (0.25 * (r13 - r31)) / c;
    } else {
      d = 0.5 * Math.sqrt(zd);
      b = (0.25 * (r13 + r31)) / d;
      c = (0.25 * (r23 + r32)) / d;
      a = (0.25 * (r21 - r12)) / d;
    }
    if (a < 0) {
      b = -b;
      c = -c;
      d = -d;
    }
  }
  return { b, c, d, qoffset: [A[3], A[7], A[11]], pixdim, qfac };
}
