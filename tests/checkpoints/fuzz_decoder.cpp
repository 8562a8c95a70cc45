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

void fuzz_targets(unsigned targets, const char* what) {
  const std::uint64_t seed =
      env_or("SG_FUZZ_SEED", (std::uint64_t{std::random_device{}()} << 32) | std::random_device{}());
  const std::uint64_t iterations = env_or("SG_FUZZ_ITERATIONS", 4000);
  std::cout << "fuzz " << what << ": seed " << seed << ", " << iterations << " cases" << std::endl;
  auto& d = shared_driver();
  const bool verbose = std::getenv("SG_FUZZ_VERBOSE") != nullptr;
  std::uint64_t refused = 0, failures = 0;
  for (std::uint64_t i = 0; i < iterations; ++i) {
    fuzz::random_source src(seed + i);  // each case replays alone with SG_FUZZ_SEED=seed+i, 1 iteration
    auto out = d.run_one(src, targets);
    if (out.refused) ++refused;
    if (verbose) std::cout << (out.refused ? "refused: " : "accepted: ") << out.where << '\n';
    if (!out.failure.empty()) {
      ++failures;
      if (failures <= 5) FAIL_CHECK("case seed " << seed + i << ": " << out.failure);
    }
  }
  std::cout << "fuzz " << what << ": " << iterations << " cases, " << refused
            << " refused with sg::error where the untouched text is accepted, " << failures << " failures" << std::endl;
  CHECK(failures == 0);
  CHECK(refused * 4 > iterations);  // the mutations do reach the decoder, and it notices
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
  CHECK(writes_of("failed") == "sender#result/0 worker_a#error/0 worker_b#result/0 ");
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

TEST_CASE("fuzz: a checkpoint's step, format version and channel versions at the edge of their types") {
  fuzz_targets(static_cast<unsigned>(fuzz::target::numbers), "row numbers");
}

TEST_CASE("fuzz: every stored text nested past sg::max_json_depth is refused before it is decoded") {
  // Wrapped 100,000 deep, each would have overflowed the stack in a recursive conversion.
  auto& base = const_cast<sg::memory_store&>(shared_driver().base());
  const std::string open(100'000, '['), close(100'000, ']');
  for (const char* thread : fuzz::driver::threads) {
    const auto latest = base.get(thread);
    REQUIRE(latest.has_value());
    for (std::size_t k = 0; k <= latest->channels.size(); ++k) {  // each channel, then the metadata
      CAPTURE(thread);
      CAPTURE(k);
      durable_test::tampering_store<sg::memory_store> view(base);
      view.discard_writes = true;
      view.tamper_checkpoint = [&](sg::stored_checkpoint& c) {
        if (k == c.channels.size())
          c.metadata = open + c.metadata + close;
        else
          c.channels[k].value = open + c.channels[k].value + close;
      };
      auto app = sg::compile<fuzz::graph>(sg::with_store(view));
      CHECK_THROWS_WITH_AS(app.get_state(sg::thread_id{thread}), doctest::Contains("nests deeper than 512"),
                           sg::checkpoint_error);
      CHECK_THROWS_AS(app.resume(sg::thread_id{thread}), sg::checkpoint_error);
    }
    // And each pending write's value.
    const auto writes = base.pending_writes(thread, latest->id);
    for (std::size_t k = 0; k < writes.size(); ++k) {
      CAPTURE(thread);
      CAPTURE(writes[k].task);
      durable_test::tampering_store<sg::memory_store> view(base);
      view.discard_writes = true;
      view.tamper_writes = [&](std::int64_t, std::vector<sg::pending_write>& w) {
        if (k < w.size() && w[k].task.find("#interrupt") == std::string::npos) w[k].value = open + w[k].value + close;
      };
      auto app = sg::compile<fuzz::graph>(sg::with_store(view));
      if (writes[k].task.find("#interrupt") != std::string::npos) continue;  // a payload the caller reads
      CHECK_THROWS_WITH_AS(app.resume(sg::thread_id{thread}), doctest::Contains("nests deeper than 512"),
                           sg::checkpoint_error);
    }
  }
}

TEST_CASE("fuzz: pending writes with odd indices load or throw sg::error") {
  fuzz_targets(static_cast<unsigned>(fuzz::target::write_index), "pending write indices");
}

// Makes the first integer of a stored text `huge`; false if the text has none.
bool make_huge(std::string& text, const char* huge) {
  auto j = nlohmann::json::parse(text);
  nlohmann::json* at = nullptr;
  if (j.is_number_integer())
    at = &j;
  else if (j.is_array() && !j.empty() && j[0].is_object())
    at = &j[0]["qty"];
  else if (j.is_array() && !j.empty())
    at = &j[0];
  else if (j.is_object() && !j.empty())
    at = &j.begin().value();
  if (at == nullptr || !at->is_number_integer()) return false;
  *at = nlohmann::json::parse(huge);
  text = j.dump();
  return true;
}

TEST_CASE("fuzz: numbers outside every integer type are refused, not converted") {
  // An integer of each integer-holding channel of the fuzzed state (a plain int, a vector,
  // a map, a bounded channel, a user type's field) made a number no integer holds: every
  // entry point that reads it refuses it (and UBSan checks that nothing converted it).
  auto& base = const_cast<sg::memory_store&>(shared_driver().base());
  for (const char* channel : {"count", "numbers", "tags", "recent", "items"}) {
    for (const char* huge : {"1e300", "-1e30", "3.5"}) {
      CAPTURE(channel);
      CAPTURE(huge);
      durable_test::tampering_store<sg::memory_store> view(base);
      view.discard_writes = true;  // the base stays as built
      bool changed = false;
      view.tamper_checkpoint = [&](sg::stored_checkpoint& c) {
        for (auto& ch : c.channels) {
          if (ch.channel != channel) continue;
          bool done = make_huge(ch.value, huge);
          for (auto& piece : ch.appends) done = done || make_huge(piece, huge);
          changed = changed || done;
        }
      };
      auto app = sg::compile<fuzz::graph>(sg::with_store(view));
      CHECK_THROWS_WITH_AS(app.get_state(sg::thread_id{"done"}), doctest::Contains("does not decode"),
                           sg::checkpoint_error);
      CHECK(changed);
      CHECK_THROWS_AS(app.history(sg::thread_id{"done"}), sg::checkpoint_error);
      CHECK_THROWS_AS(app.invoke(fuzz::Fz{}, sg::thread_id{"done"}), sg::checkpoint_error);
    }
  }
}

}  // namespace durable_fuzz
