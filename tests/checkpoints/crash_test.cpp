// Crash safety (semantics.md, "Checkpoints"): a process killed at any point resumes from
// its last checkpoint to the same final state as a run that was never killed. A child
// process runs crash_graph on a SQLite file and is killed with SIGKILL at random moments;
// each time a new child continues from the file, and the end is compared with a run never
// killed: same values, and a history of exactly one checkpoint per step, each the parent of
// the next (a step that was redone left no second checkpoint; none was lost).
//
// Each durability mode runs its share of the trials and is held to what it promises: sync
// and async leave a chain of whole checkpoints after every kill (async may have lost the
// step being committed, which the next child redoes); exit leaves the run all or nothing.
//
// SG_CRASH_SEED=<n> replays a run; SG_CRASH_TRIALS=<n> changes the number of trials.
#include "crash_graph.hpp"
#include "fixtures.hpp"

#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <thread>

#ifndef SG_CRASH_CHILD
#error "SG_CRASH_CHILD must name the crash_child program"
#endif

namespace durable_crash {

using clock_type = std::chrono::steady_clock;
using crash_graph::Tick;

const char* mode_name(sg::durability mode) {
  return mode == sg::durability::sync ? "sync" : mode == sg::durability::async ? "async" : "exit";
}

pid_t spawn(const std::string& db, sg::durability mode) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const char* argv[] = {SG_CRASH_CHILD, db.c_str(), mode_name(mode), nullptr};
    ::execv(SG_CRASH_CHILD, const_cast<char* const*>(argv));
    ::_exit(127);
  }
  return pid;
}

// How the child ended: its exit code, or -signal.
int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
  }
  if (WIFSIGNALED(status)) return -WTERMSIG(status);
  return WEXITSTATUS(status);
}

std::uint64_t seed_from_env() {
  if (const char* s = std::getenv("SG_CRASH_SEED")) return std::strtoull(s, nullptr, 10);
  return (std::uint64_t{std::random_device{}()} << 32) | std::random_device{}();
}

int trials_from_env() {
  if (const char* s = std::getenv("SG_CRASH_TRIALS")) return std::max(1, std::atoi(s));
  return 50;
}

std::int64_t checkpoints_in(const std::string& db) {
  sg::sqlite_store store(db);
  return static_cast<std::int64_t>(store.stats().checkpoints);
}

// Waits until the child has written `target` checkpoints in all (polling the file through a
// second connection, as another process may), or has ended. Returns its status if it ended.
std::optional<int> wait_for_progress(pid_t pid, const std::string& db, std::int64_t target) {
  sg::sqlite_store store(db);
  const auto deadline = clock_type::now() + std::chrono::seconds(60);
  while (clock_type::now() < deadline) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
    if (static_cast<std::int64_t>(store.stats().checkpoints) >= target) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return std::nullopt;
}

// What a killed child left is whole: a chain of checkpoints, each the parent of the next, the
// latest loadable (sync, async); for exit, nothing or the complete run.
void check_consistent(const std::string& db, sg::durability mode) {
  sg::sqlite_store store(db);
  auto infos = store.list(crash_graph::thread);
  if (infos.empty()) return;
  auto app = sg::compile<crash_graph::graph>(sg::with_store(store));
  auto s = app.get_state(sg::thread_id{crash_graph::thread});
  REQUIRE(s.has_value());
  if (mode == sg::durability::exit) {
    CHECK(infos.size() == 1);
    CHECK(s->next.empty());
    CHECK(s->values.rounds == crash_graph::rounds);
    return;
  }
  for (const auto& info : infos) CHECK(info.parent == info.id - 1);
  CHECK(s->values.values.size() <= static_cast<std::size_t>(crash_graph::rounds));
}

// The file holds the complete run, step by step (exit: in one checkpoint), equal to the
// reference.
void check_complete(const std::string& db, const Tick& reference, sg::durability mode) {
  sg::sqlite_store store(db);
  auto app = sg::compile<crash_graph::graph>(sg::with_store(store));
  const sg::thread_id t{crash_graph::thread};
  auto s = app.get_state(t);
  REQUIRE(s.has_value());
  CHECK(s->next.empty());
  CHECK(s->values == reference);
  if (mode == sg::durability::exit) {
    CHECK(s->checkpoint_id == 1);
    CHECK(s->step == crash_graph::steps);
    CHECK(s->source == sg::checkpoint_source::input);
    CHECK(store.list(crash_graph::thread).size() == 1);
    CHECK(store.stats().pending_writes == 0);
    return;
  }
  CHECK(s->checkpoint_id == crash_graph::steps + 1);
  CHECK(s->step == crash_graph::steps);
  auto infos = store.list(crash_graph::thread);
  REQUIRE(infos.size() == static_cast<std::size_t>(crash_graph::steps + 1));
  for (const auto& info : infos) {
    CHECK(info.parent == info.id - 1);
    CHECK(info.step == info.id - 1);
    CHECK(info.source == (info.id == 1 ? sg::checkpoint_source::input : sg::checkpoint_source::loop));
  }
  CHECK(store.stats().pending_writes == 0);
}

void kill_and_resume(sg::durability mode, int trials, std::mt19937_64& rng) {
  const std::string mode_text = mode_name(mode);  // doctest prints a bare const char* as an address
  CAPTURE(mode_text);
  // The reference: the same graph run in this process without a store.
  const Tick reference = sg::compile<crash_graph::graph>().invoke(Tick{});
  REQUIRE(reference.rounds == crash_graph::rounds);
  REQUIRE(reference.values.size() == static_cast<std::size_t>(crash_graph::rounds));

  // A child never killed reaches it too. Its duration, and that of a child with nothing
  // left to do (start-up alone), set the range of kill moments.
  std::int64_t full_us = 0, startup_us = 0;
  {
    durable_test::temp_db file("crash-ref");
    auto t0 = clock_type::now();
    REQUIRE(wait_for(spawn(file.path(), mode)) == 0);
    full_us = std::chrono::duration_cast<std::chrono::microseconds>(clock_type::now() - t0).count();
    check_complete(file.path(), reference, mode);
    t0 = clock_type::now();
    REQUIRE(wait_for(spawn(file.path(), mode)) == 0);
    startup_us = std::chrono::duration_cast<std::chrono::microseconds>(clock_type::now() - t0).count();
    check_complete(file.path(), reference, mode);
  }
  const double per_checkpoint_us =
      static_cast<double>(std::max<std::int64_t>(full_us - startup_us, 0)) / (crash_graph::steps + 1);

  int kills = 0, killed_mid_run = 0, killed_before_first = 0, finished_before_kill = 0;
  const auto started = clock_type::now();
  // One trial: a child killed once or twice, then one left alone. `after_progress`: every
  // kill waits for progress (the top-up below), not half of them.
  const auto trial_run = [&](int trial, bool after_progress) {
    CAPTURE(trial);
    durable_test::temp_db file("crash");
    const int kills_this_trial = 1 + static_cast<int>(rng() % 2);
    for (int k = 0; k < kills_this_trial; ++k) {
      const auto before = checkpoints_in(file.path());
      const pid_t pid = spawn(file.path(), mode);
      std::optional<int> ended;
      // exit writes nothing to wait for
      if (mode == sg::durability::exit || (!after_progress && rng() % 2 == 0)) {
        // A moment between the child's start and the time its remaining steps should take:
        // often in start-up, before the first checkpoint, or after the last.
        const auto window = startup_us + static_cast<std::int64_t>(
                                             per_checkpoint_us * static_cast<double>(crash_graph::steps + 1 - before));
        std::this_thread::sleep_for(
            std::chrono::microseconds(static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(window + 1))));
      } else {
        // A moment after a random amount of progress, whatever the machine's load: once the
        // child has written a chosen checkpoint, within the next one.
        const auto remaining = crash_graph::steps + 1 - before;
        const auto target =
            before + 1 +
            static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(std::max<std::int64_t>(1, remaining * 3 / 4)));
        ended = wait_for_progress(pid, file.path(), target);
        if (!ended)
          std::this_thread::sleep_for(std::chrono::microseconds(
              static_cast<std::int64_t>(rng() % (static_cast<std::uint64_t>(per_checkpoint_us) + 1))));
      }
      ::kill(pid, SIGKILL);
      const int how = ended ? *ended : wait_for(pid);
      ++kills;
      const auto after = checkpoints_in(file.path());
      if (how == 0)
        ++finished_before_kill;
      else if (after == 0)
        ++killed_before_first;
      else if (after > before && after < crash_graph::steps + 1)
        ++killed_mid_run;
      CHECK((how == 0 || how == -SIGKILL));
      check_consistent(file.path(), mode);
    }
    // Then a child left alone finishes from wherever the last one stopped.
    REQUIRE(wait_for(spawn(file.path(), mode)) == 0);
    check_complete(file.path(), reference, mode);
  };
  int trial = 0;
  for (; trial < trials; ++trial) trial_run(trial, false);
  // Enough kills must land inside runs, after some progress, or the test tests little. A
  // loaded machine (the parent descheduled while its child finishes) can make even the kills
  // that wait for progress miss: top up with such trials, within a bound. An exit run leaves
  // no progress to see.
  if (mode != sg::durability::exit)
    for (int extra = 0; killed_mid_run * 5 < kills && extra < 2 * trials; ++extra) trial_run(trial++, true);
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(clock_type::now() - started).count();
  std::cout << "crash test, " << mode_name(mode) << ": " << trial << " trials, " << kills << " kills in " << took << " ms (an unkilled run takes "
            << full_us / 1000.0 << " ms, start-up alone " << startup_us / 1000.0 << " ms): " << killed_mid_run
            << " killed mid-run after making progress, " << killed_before_first << " before the first checkpoint, "
            << finished_before_kill << " finished before the kill" << std::endl;
  CHECK(trials >= 1);
  if (mode != sg::durability::exit) CHECK(killed_mid_run * 5 >= kills);
}

TEST_CASE("a child killed with SIGKILL at random moments resumes to the state of a run never killed") {
  const std::uint64_t seed = seed_from_env();
  const int trials = trials_from_env();
  std::cout << "crash test: seed " << seed << " (replay with SG_CRASH_SEED=" << seed << "), " << trials << " trials"
            << std::endl;
  MESSAGE("crash test seed " << seed);
  std::mt19937_64 rng(seed);
  // The trials shared out: two fifths each to sync and async, the rest to exit.
  const int each = std::max(1, trials * 2 / 5);
  kill_and_resume(sg::durability::sync, each, rng);
  kill_and_resume(sg::durability::async, each, rng);
  kill_and_resume(sg::durability::exit, std::max(1, trials - 2 * each), rng);
}

}  // namespace durable_crash
