// torch.sum over dims of a contiguous float32 tensor, in PyTorch 2.15's CPU
// order to the bit (aten/src/ATen/native/cpu/SumKernel.cpp cascade_sum, driven
// by TensorIterator): mean is this sum divided by the count
// (ReduceOps.cpp mean_out on CPU), and a reduction's order decides its bits.
//
// TensorIterator's geometry first (TensorIterator.cpp reorder_dimensions,
// coalesce_dimensions): its dimension 0 is the fastest; the reduced
// dimensions go first (the output's strides are 0 there), each group by the
// input's strides; neighbours whose strides chain merge; size-1 dimensions
// vanish. Then serial_for_each hands the kernel (size0, size1) blocks, one per
// index of the dimensions past the first two, and the kernel adds each block's
// sums into the output (zeroed first): `out += partial`.
//
// The kernel's sums are cascades (multi_row_sum: four levels of 16 or more
// rows, so that only values of similar size meet) over rows, four at a time
// (row_sum). Vectorized<float> is 8 lanes: SumKernel.cpp runs its AVX2 build
// on an AVX-512 machine (measured on torch 2.15: a 16-float row sums as two
// 8-lane vectors). A vector's lanes are independent columns, so a vector
// accumulator is `lanes` scalar columns here. Every addition is one float32
// addition (a Float32Array store rounds the double sum of two float32s as
// float32 addition does).
//
// As PyTorch with one thread (or inputs under its 32768-element grain): with
// more, PyTorch splits a large reduction between threads and the order changes.

const LANES = 8;
const LEVELS = 4;
const ILP = 4;

// utils::CeilLog2
function ceilLog2(x) {
  if (x <= 2) return 1;
  let bits = 0;
  for (let v = x - 1; v > 0; v = Math.floor(v / 2)) bits++;
  return bits;
}

// multi_row_sum: `cols` running sums (a row of `cols` values per index i < size), in cascade levels.
function multiRowSum(load, size, cols) {
  const power = Math.max(4, Math.floor(ceilLog2(size) / LEVELS));
  const step = 2 ** power;
  const acc = Array.from({ length: LEVELS }, () => new Float32Array(cols));
  let i = 0;
  while (i + step <= size) {
    for (let j = 0; j < step; j++, i++) for (let c = 0; c < cols; c++) acc[0][c] += load(i, c);
    for (let j = 1; j < LEVELS; j++) {
      for (let c = 0; c < cols; c++) {
        acc[j][c] += acc[j - 1][c];
        acc[j - 1][c] = 0;
      }
      // (i & (mask << j * power)) != 0, on numbers past 32 bits.
      if (Math.floor(i / 2 ** (j * power)) % step !== 0) break;
    }
  }
  for (; i < size; i++) for (let c = 0; c < cols; c++) acc[0][c] += load(i, c);
  for (let j = 1; j < LEVELS; j++) for (let c = 0; c < cols; c++) acc[0][c] += acc[j][c];
  return acc[0];
}

// row_sum of `lanes`-wide values: the row read as (-1, 4), four partial sums, the tail into the first.
function rowSum(load, size, lanes) {
  const sizeIlp = Math.floor(size / ILP);
  const partial = multiRowSum((i, c) => load(i * ILP + Math.floor(c / lanes), c % lanes), sizeIlp, ILP * lanes);
  for (let i = sizeIlp * ILP; i < size; i++) for (let l = 0; l < lanes; l++) partial[l] += load(i, l);
  for (let k = 1; k < ILP; k++) for (let l = 0; l < lanes; l++) partial[l] += partial[k * lanes + l];
  return partial.subarray(0, lanes);
}

// One (size0, size1) block of cascade_sum's loop: x at xBase with element
// strides inS, out at outBase with outS (0 along a reduced dimension).
function sumBlock(x, xBase, inS, out, outBase, outS, size0, size1) {
  let [i0, i1] = inS;
  let [o0, o1] = outS;
  let [n0, n1] = [size0, size1];
  if (o0 !== 0 && o1 === 0) [i0, i1, o0, o1, n0, n1] = [i1, i0, o1, o0, n1, n0];
  if (o0 !== 0 && o1 !== 0) {
    // Not a reduction (every dimension kept): out += x.
    for (let j = 0; j < n1; j++)
      for (let k = 0; k < n0; k++) out[outBase + j * o1 + k * o0] += x[xBase + j * i1 + k * i0];
    return;
  }
  if (i0 === 1 && n0 >= LANES) {
    // vectorized_inner_sum: whole vectors, then the scalar tail, then the lanes.
    const vectors = Math.floor(n0 / LANES);
    const total = new Float32Array(1);
    for (let j = 0; j < n1; j++) {
      const row = xBase + j * i1;
      const acc = rowSum((v, l) => x[row + v * LANES + l], vectors, LANES);
      total[0] = 0;
      for (let k = vectors * LANES; k < n0; k++) total[0] += x[row + k];
      for (let l = 0; l < LANES; l++) total[0] += acc[l];
      out[outBase + j * o1] += total[0];
    }
  } else if (i1 === 1 && n1 >= LANES) {
    // vectorized_outer_sum: blocks of 4 vectors of columns, then single vectors, then scalar columns.
    let j = 0;
    for (; j + ILP * LANES <= n1; j += ILP * LANES) {
      const base = xBase + j;
      const sums = multiRowSum((r, c) => x[base + r * i0 + c], n0, ILP * LANES);
      for (let c = 0; c < ILP * LANES; c++) out[outBase + (j + c) * o1] += sums[c];
    }
    for (; j + LANES <= n1; j += LANES) {
      const base = xBase + j;
      const sums = rowSum((r, l) => x[base + r * i0 + l], n0, LANES);
      for (let l = 0; l < LANES; l++) out[outBase + (j + l) * o1] += sums[l];
    }
    for (; j < n1; j++) {
      const base = xBase + j;
      out[outBase + j * o1] += rowSum((r) => x[base + r * i0], n0, 1)[0];
    }
  } else if (i0 < i1) {
    // scalar_inner_sum
    for (let j = 0; j < n1; j++) {
      const base = xBase + j * i1;
      out[outBase + j * o1] += rowSum((r) => x[base + r * i0], n0, 1)[0];
    }
  } else {
    // scalar_outer_sum: four columns at a time, then one by one.
    let j = 0;
    for (; j + ILP - 1 < n1; j += ILP) {
      const base = xBase + j * i1;
      const sums = multiRowSum((r, c) => x[base + r * i0 + c * i1], n0, ILP);
      for (let c = 0; c < ILP; c++) out[outBase + (j + c) * o1] += sums[c];
    }
    for (; j < n1; j++) {
      const base = xBase + j * i1;
      out[outBase + j * o1] += rowSum((r) => x[base + r * i0], n0, 1)[0];
    }
  }
}

/** Contiguous element strides of `shape`. */
export function contiguousStrides(shape) {
  const strides = new Array(shape.length);
  let step = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    strides[d] = step;
    step *= shape[d];
  }
  return strides;
}

/**
 * TensorIterator's dimensions of a reduction of a contiguous tensor of `shape`
 * over the dimensions `reduced` (a Set): [{size, inStride, outStride}], fastest
 * first, size-1 dimensions gone and chained neighbours merged.
 */
export function reductionGeometry(shape, reduced) {
  const inStrides = contiguousStrides(shape);
  const outStrides = contiguousStrides(shape.map((n, d) => (reduced.has(d) ? 1 : n)));
  const dims = shape
    .map((size, d) => ({ size, inStride: inStrides[d], outStride: reduced.has(d) ? 0 : outStrides[d] }))
    .filter((t) => t.size !== 1);
  // Reduced first, each group by the input's strides, smallest first (all distinct once size-1 dims are gone).
  dims.sort((a, b) =>
    (a.outStride === 0) !== (b.outStride === 0) ? (a.outStride === 0 ? -1 : 1) : a.inStride - b.inStride,
  );
  const merged = [];
  for (const t of dims) {
    const prev = merged[merged.length - 1];
    if (prev && prev.size * prev.inStride === t.inStride && prev.size * prev.outStride === t.outStride) {
      prev.size *= t.size;
    } else {
      merged.push({ ...t });
    }
  }
  return merged;
}

/**
 * torch.sum(x, dims, keepdim=True) of float32 data of `shape` (contiguous),
 * over the dimensions in `reduced` (a Set of non-negative dims): a new
 * Float32Array of the kept shape (reduced dims of size 1).
 */
export function cascadeSum(data, shape, reduced) {
  const outShape = shape.map((n, d) => (reduced.has(d) ? 1 : n));
  const out = new Float32Array(outShape.reduce((a, b) => a * b, 1));
  if (out.length === 0) return out;
  if (data.length === 0) return out; // a sum over an empty dimension: zeros
  const dims = reductionGeometry(shape, reduced);
  if (dims.length === 0) {
    out[0] += data[0];
    return out;
  }
  const d0 = dims[0];
  const d1 = dims[1] ?? { size: 1, inStride: 0, outStride: 0 };
  const rest = dims.slice(2);
  const index = new Array(rest.length).fill(0);
  let xBase = 0;
  let outBase = 0;
  for (;;) {
    sumBlock(data, xBase, [d0.inStride, d1.inStride], out, outBase, [d0.outStride, d1.outStride], d0.size, d1.size);
    let d = 0;
    for (; d < rest.length; d++) {
      index[d]++;
      xBase += rest[d].inStride;
      outBase += rest[d].outStride;
      if (index[d] < rest[d].size) break;
      xBase -= rest[d].inStride * rest[d].size;
      outBase -= rest[d].outStride * rest[d].size;
      index[d] = 0;
    }
    if (d === rest.length) return out;
  }
}
