// Numbers in error messages, printed the way JavaScript prints them (1.5, not
// 1.500000; NaN and Infinity by their JS names).
#pragma once
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace qwasm {

inline std::string format_number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  char buf[32];
  if (v == std::floor(v) && std::fabs(v) < 9007199254740992.0) {  // integers in full, like JS
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.17g", v);
  // Prefer the shortest form that round-trips.
  for (int prec = 1; prec <= 17; ++prec) {
    char shortest[32];
    std::snprintf(shortest, sizeof shortest, "%.*g", prec, v);
    if (std::strtod(shortest, nullptr) == v) return shortest;
  }
  return buf;
}

// A float32 the way JavaScript prints Math.fround of it: the shortest
// decimal that reads back as the same float (3.4e+38, not 3.3999999521443642e+38).
inline std::string format_float(float v) {
  if (!std::isfinite(v) || (v == std::floor(v) && std::fabs(v) < 16777216.0f)) return format_number(v);
  char buf[32];
  for (int prec = 1; prec <= 9; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, static_cast<double>(v));
    if (std::strtof(buf, nullptr) == v) return buf;
  }
  return format_number(v);
}

}  // namespace qwasm
