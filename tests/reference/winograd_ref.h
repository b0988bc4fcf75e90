// Naive exact integer Winograd F(2, 3) transforms: the oracle for the
// Winograd kernels (kernels/winograd_kernels.h). Each point or output is the
// full tensor-product sum, in int64, written from the matrices directly; the
// kernels compute the same values dimension by dimension.
#pragma once
#include <cstddef>
#include <cstdint>

namespace qwasm {
namespace ref {

// B^T, G' = 2G and A^T of F(2, 3).
extern const int kWinogradBT[4][4];
extern const int kWinogradG2[4][3];
extern const int kWinogradAT[2][4];

// Point xi (mixed radix 4 over nd dimensions) of one channel's input tile:
// sum over taps t (radix 4) of prod_k B^T[xi_k][t_k] * tile(t). tile(t) reads
// d[sum_k t_k * strides[k]].
int64_t winograd_input_point(size_t nd, const int16_t* d, const ptrdiff_t* strides, size_t xi);

// Point xi of one (output, input) channel pair's transformed weights:
// sum over taps t (radix 3) of prod_k G'[xi_k][t_k] * g[t], g being the 3^nd
// taps, the outermost dimension most significant.
int64_t winograd_weight_point(size_t nd, const int32_t* g, size_t xi);

// Output o (mixed radix 2) of one channel: sum over points xi of
// prod_k A^T[o_k][xi_k] * m(xi), wrapped to int32 (the kernels' arithmetic),
// then shifted right by nd (exact division when the guard holds).
int32_t winograd_output_acc(size_t nd, const int32_t* m, size_t m_stride, size_t o);

}  // namespace ref
}  // namespace qwasm
