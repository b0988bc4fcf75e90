// Observer arithmetic against values worked out by hand from observer.py.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "qwasm/observer.h"

using namespace qwasm;

namespace {
const float kEps = std::ldexp(1.0f, -23);

void qparams(float mn, float mx, QScheme scheme, DType dtype, ObserverRange r, float* scale, double* zp) {
  calculate_qparams(&mn, &mx, 1, scheme, dtype, r, kEps, scale, zp);
}
}  // namespace

TEST(ObserverRange, DefaultsAndReduceRange) {
  ObserverRange r;
  ASSERT_TRUE(observer_range(DType::kQUInt8, false, false, 0, 0, &r).ok());
  EXPECT_EQ(r.quant_min, 0);
  EXPECT_EQ(r.quant_max, 255);
  ASSERT_TRUE(observer_range(DType::kQInt8, true, false, 0, 0, &r).ok());
  EXPECT_EQ(r.quant_min, -64);
  EXPECT_EQ(r.quant_max, 63);
  ASSERT_TRUE(observer_range(DType::kQInt8, true, true, -127, 127, &r).ok());
  EXPECT_EQ(r.quant_min, -64);  // Python floor division
  EXPECT_EQ(r.quant_max, 63);
  EXPECT_EQ(observer_range(DType::kQUInt8, false, true, 1, 255, &r).code, StatusCode::kRangeError);
  EXPECT_EQ(observer_range(DType::kQUInt8, false, true, 0, 256, &r).code, StatusCode::kRangeError);
}

TEST(ObserverQParams, AffineAllZeroGivesEpsScale) {
  float s;
  double zp;
  qparams(0.f, 0.f, QScheme::kPerTensorAffine, DType::kQUInt8, {0, 255, false}, &s, &zp);
  EXPECT_EQ(s, kEps);
  EXPECT_EQ(zp, 0);
}

TEST(ObserverQParams, NothingObservedGivesOneAndZero) {
  float s;
  double zp;
  qparams(INFINITY, -INFINITY, QScheme::kPerTensorAffine, DType::kQUInt8, {0, 255, false}, &s, &zp);
  EXPECT_EQ(s, 1.0f);
  EXPECT_EQ(zp, 0);
}

TEST(ObserverQParams, AffineAndSymmetric) {
  float s;
  double zp;
  qparams(-1.f, 3.f, QScheme::kPerTensorAffine, DType::kQUInt8, {0, 255, false}, &s, &zp);
  EXPECT_EQ(s, 4.0f / 255.0f);
  EXPECT_EQ(zp, 64);  // 0 - round(-1 / (4/255)) = round(63.75) = 64
  qparams(-1.f, 3.f, QScheme::kPerTensorSymmetric, DType::kQUInt8, {0, 255, false}, &s, &zp);
  EXPECT_EQ(s, 3.0f / 127.5f);
  EXPECT_EQ(zp, 128);
  qparams(-1.f, 3.f, QScheme::kPerTensorSymmetric, DType::kQUInt8, {0, 200, true}, &s, &zp);
  EXPECT_EQ(zp, 100);
  qparams(-1.f, 3.f, QScheme::kPerChannelSymmetric, DType::kQInt8, {-128, 127, false}, &s, &zp);
  EXPECT_EQ(zp, 0);
}

TEST(ObserverQParams, FloatQParams) {
  float s;
  double zp;
  qparams(-1.f, 3.f, QScheme::kPerChannelAffineFloatQParams, DType::kQUInt8, {0, 255, false}, &s, &zp);
  EXPECT_EQ(s, 4.0f / 255.0f);
  EXPECT_EQ(zp, static_cast<double>(1.0f / s));
  qparams(2.f, 2.f, QScheme::kPerChannelAffineFloatQParams, DType::kQUInt8, {0, 255, false}, &s, &zp);
  EXPECT_EQ(s, 1.0f);
  EXPECT_EQ(zp, -2.0);
}

TEST(ObserverAminmax, PerChannelAndNonFinite) {
  const float x[6] = {1, -2, 3, 4, 5, -6};  // shape [2, 3]
  float mn[3], mx[3];
  ASSERT_TRUE(aminmax(x, {2, 3}, true, 1, mn, mx).ok());
  EXPECT_EQ(mn[0], 1);
  EXPECT_EQ(mx[0], 4);
  EXPECT_EQ(mn[2], -6);
  EXPECT_EQ(mx[2], 3);
  const float bad[2] = {1, NAN};
  EXPECT_EQ(aminmax(bad, {2}, false, 0, mn, mx).code, StatusCode::kRangeError);
}
