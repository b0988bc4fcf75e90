// Naive exact integer Winograd transforms, F(2, 3) (m = 2) and F(4, 3)
// along the innermost active dimension with F(2, 3) along the others (m = 4),
// nd 1 to 3, and F(4, 3) along both dimensions of a two-dimensional tile
// (m = 44, kernels::kWinogradF43Both): the oracle for the Winograd kernels
// (kernels/winograd_kernels.h). Each point or output is the full
// tensor-product sum, in int64, written from the matrices directly; the
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
// B^T, G'' (24G with each row divided by its own factor, 6 4 4 1 1 24)
// and A'' (A^T with each column times that factor) of F(4, 3).
extern const int kWinogradF43BT[6][6];
extern const int kWinogradF43G[6][3];
extern const int kWinogradF43AT[4][6];

// Point xi (mixed radix: 6 along an F(4, 3) dimension, 4 along an F(2, 3) one) of one channel's input
// tile: sum over taps t (the same radix) of prod_k B^T[xi_k][t_k] * tile(t).
// tile(t) reads d[sum_k t_k * strides[k]].
int64_t winograd_input_point(size_t m, size_t nd, const int16_t* d, const ptrdiff_t* strides, size_t xi);

// Point xi of one (output, input) channel pair's transformed weights:
// sum over taps t (radix 3) of prod_k G'[xi_k][t_k] * g[t], g being the 3^nd
// taps, the outermost dimension most significant.
int64_t winograd_weight_point(size_t m, size_t nd, const int32_t* g, size_t xi);

// Output o (mixed radix: 4 along an F(4, 3) dimension, 2 along an F(2, 3)
// one) of one channel: y = sum over points xi of prod_k A[o_k][xi_k] *
// points(xi), wrapped to int32 (the kernels' arithmetic), then divided by the
// transforms' scale: m = 2, y >> nd (exact when the guard holds); m = 4,
// y = 3 * 2^s * acc mod 2^32 (s = nd + 2) with |acc| < 2^(29 - nd) under the
// guard, so the int32 z with 3z = y mod 2^32 is 2^s * acc and acc is
// floor(z / 2^s) (z found by trial division here, by 3's inverse in the
// kernels), defined for any y; m = 44, the same with 9 * 2^6 * acc
// (|acc| < 2^25).
int32_t winograd_output_acc(size_t m, size_t nd, const int32_t* points, size_t stride, size_t o);

}  // namespace ref
}  // namespace qwasm
