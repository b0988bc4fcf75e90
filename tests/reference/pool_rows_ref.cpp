#include "reference/pool_rows_ref.h"

namespace qwasm {
namespace ref {

void rowmax_qu8(size_t n, size_t rows, const uint8_t* const* in, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) {
    int m = 0;
    for (size_t r = 0; r < rows; ++r) m = in[r][i] > m ? in[r][i] : m;
    out[i] = static_cast<uint8_t>(m);
  }
}

void rowsum_qu8(size_t n, size_t rows, const uint8_t* const* in, int64_t* out) {
  for (size_t i = 0; i < n; ++i) {
    int64_t s = 0;
    for (size_t r = 0; r < rows; ++r) s += in[r][i];
    out[i] = s;
  }
}

}  // namespace ref
}  // namespace qwasm
