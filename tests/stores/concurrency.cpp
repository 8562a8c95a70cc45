// Conformance under concurrency: several threads, and several processes where the store's
// data outlives a process (every store but the memory one).
#include "fixtures.hpp"

#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <atomic>
#include <latch>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace store_test;

namespace {

constexpr int writers = 4;

// Enough puts to overlap for long; fewer where each one commits to a file.
template <class F>
constexpr int puts_per_writer = F::shared_backing ? 60 : 2000;

// Writer w puts a chain of its own in thread "own-w", and a branch of its own (each put a
// deliberate fork) interleaved with every other writer's in thread "shared": ids there must
// come out unique and dense. Each checkpoint says who wrote it (metadata) and what (x), and
// keeps the writer's first `tag` value unchanged, so a read that resolved the wrong value
// would show. Pending writes go to the writer's own head.
template <class Store>
void write_chains(Store& s, int w, int n) {
  const std::string me = std::to_string(w);
  std::int64_t own = sg::no_checkpoint, shared = sg::no_checkpoint;
  for (int i = 0; i < n; ++i) {
    const std::string x = me + ":" + std::to_string(i);
    const std::vector<ch> channels{{"tag", 1, i == 0 ? std::optional<std::string>("tag" + me) : std::nullopt},
                                   {"x", i + 1, x}};
    own = put(s, "own-" + me, channels, {.parent = own, .step = i, .metadata = me});
    shared = put(s, "shared", channels, {.parent = shared, .step = i, .metadata = me, .mode = sg::put_mode::fork});
    const std::string task = "writer-" + me;  // named: the put holds views, not strings
    const std::vector<sg::pending_write_put> pw{{task, i, "x", x}};
    s.put_writes("own-" + me, own, pw);
  }
}

template <class Store>
void check_chains(const Store& s, int n) {
  for (int w = 0; w < writers; ++w) {
    const std::string me = std::to_string(w);
    const auto own = s.list("own-" + me);
    REQUIRE(own.size() == static_cast<std::size_t>(n));
    for (std::size_t k = 0; k < own.size(); ++k) {
      CHECK(own[k].id == static_cast<std::int64_t>(n - static_cast<int>(k)));
      CHECK(own[k].parent == own[k].id - 1);
    }
    const auto latest = s.get("own-" + me);
    REQUIRE(latest);
    CHECK(joined(*latest, "x") == me + ":" + std::to_string(n - 1));
    CHECK(joined(*latest, "tag") == "tag" + me);
    for (const auto& info : own)
      CHECK(s.pending_writes("own-" + me, info.id) ==
            std::vector<sg::pending_write>{{"writer-" + me, static_cast<std::int32_t>(info.step), "x",
                                            me + ":" + std::to_string(info.step)}});
  }

  const auto shared = s.list("shared");
  REQUIRE(shared.size() == static_cast<std::size_t>(writers * n));
  std::map<std::int64_t, sg::checkpoint_info> by_id;
  for (const auto& info : shared) by_id[info.id] = info;
  REQUIRE(by_id.size() == shared.size());  // unique ids ...
  CHECK(by_id.begin()->first == 1);        // ... and dense
  CHECK(by_id.rbegin()->first == writers * n);
  std::map<std::string, int> firsts;
  for (const auto& [id, info] : by_id) {
    auto cp = s.get("shared", id);
    REQUIRE(cp);
    CHECK(joined(*cp, "x") == info.metadata + ":" + std::to_string(info.step));
    CHECK(joined(*cp, "tag") == "tag" + info.metadata);
    if (info.parent == sg::no_checkpoint) {
      ++firsts[info.metadata];
    } else {
      // Each chain stays the writer's own: the parent was written by the same writer one step before.
      const auto& parent = by_id.at(info.parent);
      CHECK(parent.metadata == info.metadata);
      CHECK(parent.step == info.step - 1);
      CHECK(parent.id < id);
    }
  }
  CHECK(firsts.size() == writers);
  const auto stats = s.stats();
  CHECK(stats.threads == writers + 1);
  CHECK(stats.checkpoints == static_cast<std::size_t>(2 * writers * n));
  CHECK(stats.values == static_cast<std::size_t>(2 * writers * (n + 1)));  // x every step, tag once
  CHECK(stats.pending_writes == static_cast<std::size_t>(writers * n));
}

}  // namespace

TEST_CASE_TEMPLATE("concurrent writers on one store object", F, STORE_FIXTURES) {
  F f;
  std::vector<std::thread> threads;
  std::vector<std::exception_ptr> errors(writers);
  std::latch start(writers);  // all at once, so the writers really overlap
  for (int w = 0; w < writers; ++w)
    threads.emplace_back([&, w] {
      try {
        start.arrive_and_wait();
        write_chains(*f.store, w, puts_per_writer<F>);
      } catch (...) {
        errors[static_cast<std::size_t>(w)] = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  check_chains(*f.store, puts_per_writer<F>);
}

TEST_CASE_TEMPLATE("concurrent writers, one store object (connection) each", F, STORE_FIXTURES) {
  if constexpr (!F::shared_backing) {
    MESSAGE("this store's data lives in one object: nothing to share between handles");
  } else {
    F f;
    std::vector<std::thread> threads;
    std::vector<std::exception_ptr> errors(writers);
    std::latch start(writers);
    for (int w = 0; w < writers; ++w)
      threads.emplace_back([&, w] {
        try {
          auto own = f.open();
          start.arrive_and_wait();
          write_chains(*own, w, puts_per_writer<F>);
        } catch (...) {
          errors[static_cast<std::size_t>(w)] = std::current_exception();
        }
      });
    for (auto& t : threads) t.join();
    for (auto& e : errors)
      if (e) std::rethrow_exception(e);
    check_chains(*f.store, puts_per_writer<F>);
  }
}

namespace {

// One writer per thread: writer w continues the head of thread "race" `n` times, retrying
// after each conflict_error with the head it then reads. Each accepted put appends the piece
// "w:i" to `log`, and its writer then tries to keep a pending write on it (refused once the
// head has moved on). Returns how many conflicts the writer met.
template <class Store>
int race_for_head(Store& s, int w, int n) {
  const std::string me = std::to_string(w);
  int conflicts = 0;
  for (int i = 0; i < n;) {
    const auto head = s.get("race");
    const std::string piece = me + ":" + std::to_string(i);
    const std::int64_t parent = head ? head->id : sg::no_checkpoint;
    const std::int64_t version = head ? head->channels[0].version + 1 : 1;
    try {
      const auto id = put(s, "race", {{"log", version, piece, true}}, {.parent = parent, .metadata = me});
      ++i;
      const std::vector<sg::pending_write_put> pw{{piece, 0, "log", piece}};
      try {
        s.put_writes("race", id, pw);
      } catch (const sg::conflict_error&) {
      }
    } catch (const sg::conflict_error& e) {
      if (e.expected() != parent || e.actual() <= parent) throw;  // the error must name both heads
      ++conflicts;
    }
  }
  return conflicts;
}

// Every accepted put is in the head's log exactly once, in commit order: nothing was lost,
// nothing was written twice, and the history is one unbroken chain.
template <class Store>
void check_race(const Store& s, int n) {
  const auto history = s.list("race");
  REQUIRE(history.size() == static_cast<std::size_t>(writers * n));
  for (const auto& info : history) CHECK(info.parent == info.id - 1);
  const auto head = s.get("race");
  REQUIRE(head);
  std::map<std::string, int> seen;
  seen[head->channels[0].value] += 1;
  for (const auto& piece : head->channels[0].appends) seen[piece] += 1;
  CHECK(seen.size() == static_cast<std::size_t>(writers * n));
  for (int w = 0; w < writers; ++w)
    for (int i = 0; i < n; ++i) CHECK(seen[std::to_string(w) + ":" + std::to_string(i)] == 1);
  // A pending write is kept only where its checkpoint was still the head.
  std::size_t kept = 0;
  for (const auto& info : history)
    for (const auto& pw : s.pending_writes("race", info.id)) {
      ++kept;
      const auto log = s.get("race", info.id)->channels[0];
      CHECK(pw.task == (log.appends.empty() ? log.value : log.appends.back()));  // the writer of that checkpoint
    }
  CHECK(s.stats().pending_writes == kept);
}

}  // namespace

TEST_CASE_TEMPLATE("one writer per thread: threads racing for one thread's head lose nothing", F, STORE_FIXTURES) {
  F f;
  constexpr int n = F::shared_backing ? 40 : 500;
  std::vector<std::thread> threads;
  std::vector<std::exception_ptr> errors(writers);
  std::atomic<int> conflicts{0};
  std::latch start(writers);
  for (int w = 0; w < writers; ++w)
    threads.emplace_back([&, w] {
      try {
        start.arrive_and_wait();
        conflicts += race_for_head(*f.store, w, n);
      } catch (...) {
        errors[static_cast<std::size_t>(w)] = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  MESSAGE(conflicts.load() << " conflicts among " << writers << " writers of " << n << " puts each");
  check_race(*f.store, n);
}

// Runs `body` in `count` child processes at once; true if every child exited with 0.
template <class Body>
bool in_processes(int count, Body body) {
  std::vector<pid_t> children;
  for (int k = 0; k < count; ++k) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      int code = 0;
      try {
        body(k);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "child %d: %s\n", k, e.what());
        code = 1;
      }
      // _exit: the child must not run the parent's destructors (its open store, doctest).
      std::fflush(stderr);
      ::_exit(code);
    }
    REQUIRE(pid > 0);
    children.push_back(pid);
  }
  bool all_ok = true;
  for (pid_t pid : children) {
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    all_ok = all_ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  return all_ok;
}

TEST_CASE_TEMPLATE("several processes write the same store", F, STORE_FIXTURES) {
  if constexpr (!F::shared_backing) {
    MESSAGE("this store's data lives in one process");
  } else {
    F f;
    CHECK(in_processes(writers, [&](int w) { write_chains(*f.open(), w, puts_per_writer<F>); }));
    check_chains(*f.store, puts_per_writer<F>);
  }
}

TEST_CASE_TEMPLATE("one writer per thread: processes racing for one thread's head lose nothing", F, STORE_FIXTURES) {
  if constexpr (!F::shared_backing) {
    MESSAGE("this store's data lives in one process");
  } else {
    F f;
    constexpr int n = 40;
    CHECK(in_processes(writers, [&](int w) { race_for_head(*f.open(), w, n); }));
    check_race(*f.store, n);
  }
}

TEST_CASE_TEMPLATE("a writer killed at any moment leaves only whole checkpoints", F, STORE_FIXTURES) {
  if constexpr (!F::shared_backing) {
    MESSAGE("this store's data lives in one process");
  } else {
    F f;
    std::mt19937 rng(20240601);
    std::uniform_int_distribution<int> delay_us(1'000, 25'000);
    for (int trial = 0; trial < 8; ++trial) {
      int ready[2];  // the writer says when its first put is in, so every trial kills a busy writer
      REQUIRE(::pipe(ready) == 0);
      const pid_t pid = ::fork();
      if (pid == 0) {
        // Continues the thread from its latest checkpoint until killed.
        try {
          auto s = f.open();
          auto latest = s->get("t");
          std::int64_t parent = latest ? latest->id : sg::no_checkpoint;
          bool told = false;
          for (std::int64_t step = latest ? latest->step + 1 : 0;; ++step) {
            const auto n = std::to_string(step);
            parent = put(*s, "t",
                         {{"tag", 1, step == 0 ? std::optional<std::string>("tag") : std::nullopt},
                          {"x", step + 1, "x" + n},
                          {"log", step + 1, "p" + n, true}},
                         {.parent = parent, .step = step});
            if (!told) told = ::write(ready[1], "!", 1) == 1;
          }
        } catch (const std::exception& e) {
          std::fprintf(stderr, "writer: %s\n", e.what());
        }
        ::_exit(1);  // never back into the parent's test runner
      }
      REQUIRE(pid > 0);
      ::close(ready[1]);
      char byte = 0;
      CHECK(::read(ready[0], &byte, 1) == 1);
      ::close(ready[0]);
      std::this_thread::sleep_for(std::chrono::microseconds(delay_us(rng)));
      ::kill(pid, SIGKILL);
      int status = 0;
      REQUIRE(::waitpid(pid, &status, 0) == pid);
      CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL));
    }
    auto reopened = f.open();
    const auto history = reopened->list("t");
    REQUIRE(!history.empty());
    MESSAGE(history.size() << " checkpoints written by 8 writers killed with SIGKILL");
    for (const auto& info : history) {  // newest first: ids dense, one unbroken chain
      CHECK(info.parent == info.id - 1);
      CHECK(info.step == info.id - 1);
    }
    std::string log = "p0";
    for (std::int64_t step = 1; step < static_cast<std::int64_t>(history.size()); ++step)
      log += "|p" + std::to_string(step);
    const auto latest = reopened->get("t");
    REQUIRE(latest);
    CHECK(joined(*latest, "log") == log);
    CHECK(joined(*latest, "x") == "x" + std::to_string(latest->step));
    CHECK(joined(*latest, "tag") == "tag");
    CHECK(reopened->stats().values == 2 * history.size() + 1);  // nothing half-written left behind
  }
}
