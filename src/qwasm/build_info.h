// Facts about how this core was compiled, for the tests that check the build
// is what it claims (asserts on in test builds, off in the release).
#pragma once

namespace qwasm {

constexpr bool asserts_enabled() {
#ifdef NDEBUG
  return false;
#else
  return true;
#endif
}

}  // namespace qwasm
