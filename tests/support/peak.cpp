#include "support/peak.h"

#include <vector>

#include "kernels/conv_kernels.h"
#include "kernels/isa.h"

namespace qwasm {
namespace testing_support {
namespace {

// Per-channel constants of an ordinary requantization, with the block of
// slack the kernels may read past the last channel (ConvRequantParams).
struct Requant {
  explicit Requant(size_t channels)
      : weight_scale(2 * channels, 1.0f), bias(2 * channels, 0.5f), multiplier(2 * channels, 0.01f) {}
  kernels::ConvRequantParams params() const {
    return {weight_scale.data(), bias.data(), multiplier.data(), 1.0f, 0.0f, 100, 0, 255};
  }
  std::vector<float> weight_scale, bias, multiplier;
};

}  // namespace

int32_t peak_qconv(size_t reps, size_t kblocks) {
  const kernels::QConvKernel& k = *kernels::find_qconv(kernels::best_isa());
  // mr rows of kblocks * kr input values (the last block may read kr - 1
  // past its row's end, as in the driver's buffer), weights [kblock][nr][kr].
  const size_t row = kblocks * k.kr;
  std::vector<int16_t> a(k.mr * row + k.kr), w(kblocks * k.nr * k.kr);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int16_t>(i % 11 - 5);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int16_t>(i % 13 - 6);
  // Consecutive output pixels of one channel plane, as the driver hands them.
  std::vector<uint8_t> out(k.mr * k.nr);
  std::vector<const int16_t*> rows(k.mr);
  std::vector<uint8_t*> c(k.mr);
  for (size_t m = 0; m < k.mr; ++m) rows[m] = a.data() + m * row, c[m] = out.data() + m;
  const ptrdiff_t segment = 0;
  const Requant rq(k.nr);
  const kernels::ConvRequantParams params = rq.params();
  int32_t sum = 0;
  for (size_t r = 0; r < reps; ++r) {
    k.fn(k.mr, k.nr, 1, kblocks, rows.data(), &segment, w.data(), c.data(), k.mr, &params);
    sum += out[r % out.size()];
  }
  return sum;
}

int32_t peak_qdwconv(size_t reps, bool sat16) {
  const kernels::QDwConvKernel& k =
      *kernels::find_qdwconv(kernels::best_isa(), sat16 ? kernels::DwConvMode::kSat16 : kernels::DwConvMode::kExact);
  constexpr size_t kChannels = 64, kTaps = 27, kPixels = kDwPeakPixels;  // 64 is a multiple of every cr
  const size_t ntaps = (kTaps + k.kr - 1) / k.kr * k.kr;
  // Pixel m reads taps m .. m + ntaps - 1 of a row of positions: a run of
  // kPixels along W with stride 1, every value in L1.
  std::vector<int16_t> a((ntaps + kPixels) * kChannels), w(ntaps * kChannels);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int16_t>(sat16 ? i % 251 : i % 23 - 11);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int16_t>(i % 13 - 6);
  std::vector<ptrdiff_t> taps(ntaps);
  for (size_t t = 0; t < ntaps; ++t) taps[t] = static_cast<ptrdiff_t>(t * kChannels);
  const Requant rq(kChannels);
  kernels::ConvRequantParams params = rq.params();
  const std::vector<int32_t> offsets(2 * kChannels, 1000);
  params.acc_offset = offsets.data();
  uint8_t out[kChannels * kPixels];
  int32_t sum = 0;
  for (size_t r = 0; r < reps; ++r) {
    k.fn(kChannels, kChannels, kPixels, sat16 ? kTaps : ntaps, a.data(), kChannels, taps.data(), w.data(), out, kPixels,
         &params);
    sum += out[r % sizeof(out)];
  }
  return sum;
}

}  // namespace testing_support
}  // namespace qwasm
