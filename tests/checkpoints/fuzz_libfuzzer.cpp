// libFuzzer entry point for the checkpoint decoder (clang only; see CMakeLists.txt): the
// fuzzer's input chooses what to corrupt and how, through the same driver as the seeded
// test. Anything other than success or an sg::error aborts, so libFuzzer keeps the input.
// SG_FUZZ_TARGETS=<bitmask of fuzz::target> limits what is corrupted (default: all).
#include "fuzz_driver.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::driver d;
  static const unsigned targets = [] {
    const char* s = std::getenv("SG_FUZZ_TARGETS");
    return s ? static_cast<unsigned>(std::strtoul(s, nullptr, 0)) : fuzz::checkpoint_targets | fuzz::pending_targets;
  }();
  fuzz::byte_source src(data, size);
  auto out = d.run_one(src, targets);
  if (!out.failure.empty()) {
    std::fprintf(stderr, "checkpoint decoder: %s\n", out.failure.c_str());
    std::abort();
  }
  return 0;
}
