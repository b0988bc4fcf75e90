// Helpers shared by the native tests of the quint8 ops (pooling, element-wise):
// tensors from integers, channels-last views, and error checks.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "qwasm/qtensor.h"
#include "qwasm/status.h"

namespace qwasm_test {

// A quint8 per-tensor tensor holding `ints`.
inline qwasm::QTensor q8(const std::vector<uint8_t>& ints, const qwasm::Shape& shape, double scale = 1.0,
                         double zp = 0) {
  qwasm::QTensor q;
  const qwasm::Status s =
      qwasm::make_per_tensor_quantized(ints.data(), ints.size(), shape, scale, zp, qwasm::DType::kQUInt8, &q);
  EXPECT_TRUE(s.ok()) << s.message;
  return q;
}

// x with channels-last strides (the same integers).
inline qwasm::QTensor as_channels_last(const qwasm::QTensor& x) {
  qwasm::QTensor y;
  EXPECT_TRUE(qwasm::as_memory_format(x, qwasm::MemoryFormat::kChannelsLast, &y).ok());
  return y;
}

inline std::vector<uint8_t> ints(const qwasm::QTensor& q) {
  return std::vector<uint8_t>(q.data(), q.data() + q.nbytes());
}

// s is an error of `code` whose message contains `text`.
inline void expect_error(const qwasm::Status& s, qwasm::StatusCode code, const std::string& text) {
  EXPECT_EQ(s.code, code) << s.message;
  EXPECT_NE(s.message.find(text), std::string::npos) << "message: " << s.message << "\nexpected: " << text;
}

}  // namespace qwasm_test
