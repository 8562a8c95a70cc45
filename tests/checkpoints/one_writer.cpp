// One writer per thread (semantics.md, "Threads, writers and machines"): a checkpointed app
// continues a thread only from the head it read; a writer that lost the race gets
// sg::conflict_error and nothing of its step is kept. Two OS threads (sharing one app, whose
// second run of the thread is refused up front with sg::thread_busy_error, or with an app
// each), two processes on one SQLite file, and two processes resuming one paused thread:
// every message lands once or its writer was told, and no step is committed twice.
#include "fixtures.hpp"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <latch>
#include <map>
#include <string>
#include <thread>
#include <vector>

using namespace durable_test;

namespace durable_one_writer {

struct Turn {
  sg::append<std::string> messages;
  sg::counter<int> replies;
};
struct reply {
  using reads = sg::reads<&Turn::messages>;
  using writes = sg::writes<&Turn::replies>;
  auto operator()(sg::view<Turn, reads>) const { return sg::write<&Turn::replies>(1); }
};
using turn_graph = sg::graph<Turn, sg::edge<sg::start, reply>, sg::edge<reply, sg::end>>;

std::string message(int writer, int i) { return std::to_string(writer).append(":").append(std::to_string(i)); }

struct outcome {
  int landed = 0, conflicts = 0, retried = 0, busy = 0;
  std::vector<std::string> returned;  // the messages whose invoke returned
};

// Sends `n` messages to thread "chat", one invoke each. On conflict_error it reloads the
// thread, as docs/checkpoints.md says to, and sends the message again only if it is not
// already in the head's state (its input checkpoint may have landed before the conflict).
template <class App>
outcome chat(App& app, int writer, int n, bool retry) {
  const sg::thread_id t{"chat"};
  outcome out;
  for (int i = 0; i < n; ++i) {
    const std::string m = message(writer, i);
    for (;;) {
      try {
        app.invoke(Turn{.messages = {m}}, t);
        ++out.landed;
        out.returned.push_back(m);
        break;
      } catch (const sg::conflict_error& e) {
        if (e.thread() != "chat" || e.actual() <= e.expected()) throw;
        ++out.conflicts;
        if (!retry) break;
        const auto now = app.get_state(t);
        const auto& have = now->values.messages.value();
        if (std::find(have.begin(), have.end(), m) != have.end()) break;
        ++out.retried;
      } catch (const sg::thread_busy_error& e) {
        // Two OS threads on one app: the second run of the thread is refused before it
        // reads or writes anything, so the message is simply sent again.
        if (e.thread() != "chat") throw;
        ++out.busy;
        if (!retry) break;
        std::this_thread::yield();
      }
    }
  }
  return out;
}

// The head holds each message at most once, every message whose invoke returned, and (when
// writers retried) every message sent; the history is one chain, each checkpoint continuing
// the one before it: no branch was left behind.
template <class App>
void check_chat(App& app, int writers, int n, const std::vector<std::string>& returned, bool all) {
  const sg::thread_id t{"chat"};
  const auto head = app.get_state(t);
  REQUIRE(head);
  std::map<std::string, int> count;
  for (const auto& m : head->values.messages.value()) ++count[m];
  // Not a structured binding: Clang 14 cannot capture one in the lambda CHECK_MESSAGE makes.
  for (const auto& entry : count)
    CHECK_MESSAGE(entry.second == 1, entry.first << " is in the state " << entry.second << " times");
  for (const auto& m : returned) CHECK_MESSAGE(count[m] == 1, m << " returned but is not in the state");
  if (all) CHECK(head->values.messages.value().size() == static_cast<std::size_t>(writers * n));
  const auto history = app.history(t);
  for (const auto& s : history) CHECK(s.parent_id == s.checkpoint_id - 1);
  // Every reply step that ran and committed follows an input that committed.
  CHECK(head->values.replies <= static_cast<int>(head->values.messages.value().size()));
}

TEST_CASE_TEMPLATE("one writer per thread: two OS threads, with one app or one each, lose no message", F,
                   DURABLE_FIXTURES) {
  for (const bool shared : {true, false})
  for (const bool retry : {false, true}) {
    CAPTURE(shared);
    CAPTURE(retry);
    F fx;
    // One app: a second run of the thread is refused up front (thread_busy_error). An app
    // each: both run, and the store refuses the loser's commit (conflict_error).
    auto app = sg::compile<turn_graph>(sg::with_store(fx.store));
    auto own = sg::compile<turn_graph>(sg::with_store(fx.store));
    constexpr int writers = 2, n = 150;
    std::vector<outcome> outcomes(writers);
    std::vector<std::exception_ptr> errors(writers);
    std::latch start(writers);
    std::vector<std::thread> threads;
    for (int w = 0; w < writers; ++w)
      threads.emplace_back([&, w] {
        try {
          start.arrive_and_wait();
          outcomes[static_cast<std::size_t>(w)] = chat(shared || w == 0 ? app : own, w, n, retry);
        } catch (...) {
          errors[static_cast<std::size_t>(w)] = std::current_exception();
        }
      });
    for (auto& th : threads) th.join();
    for (auto& e : errors)
      if (e) std::rethrow_exception(e);
    int landed = 0, conflicts = 0, busy = 0;
    std::vector<std::string> returned;
    for (const auto& o : outcomes) {
      landed += o.landed;
      conflicts += o.conflicts;
      busy += o.busy;
      returned.insert(returned.end(), o.returned.begin(), o.returned.end());
    }
    // One string: doctest prints a bare `const char*` operand as an address.
    const std::string what =
        std::string(F::name) + (retry ? ", retrying: " : ": ") + (shared ? "one app, " : "an app each, ");
    MESSAGE(what << landed << " invokes returned, " << conflicts
                  << " conflicts, " << busy << " refused as busy");
    // Every message either returned or its writer was told (conflict_error, thread_busy_error).
    if (!retry) CHECK(landed + conflicts + busy == writers * n);
    if (shared) CHECK(conflicts == 0);  // one app never lets two runs of the thread overlap
    if (!shared) CHECK(busy == 0);
    check_chat(app, writers, n, returned, retry);
  }
}

// Runs `body(k)` in `count` child processes that start together; true if each exited with 0.
template <class Body>
bool in_processes(int count, Body body) {
  int go[2];
  REQUIRE(::pipe(go) == 0);
  std::vector<pid_t> children;
  for (int k = 0; k < count; ++k) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(go[1]);
      char byte = 0;
      int code = ::read(go[0], &byte, 1) == 1 ? 0 : 3;  // wait for the start
      try {
        if (code == 0) code = body(k);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "child %d: %s\n", k, e.what());
        code = 2;
      }
      std::fflush(stderr);
      ::_exit(code);  // not into the parent's test runner
    }
    REQUIRE(pid > 0);
    children.push_back(pid);
  }
  ::close(go[0]);
  const char bytes[8] = {};
  CHECK(::write(go[1], bytes, static_cast<std::size_t>(count)) == count);
  ::close(go[1]);
  bool ok = true;
  for (pid_t pid : children) {
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  return ok;
}

TEST_CASE("one writer per thread: two processes continuing one thread on one SQLite file lose no message") {
  temp_db file("one-writer");
  constexpr int writers = 2, n = 100;
  CHECK(in_processes(writers, [&](int w) {
    sg::sqlite_store store(file.path());
    auto app = sg::compile<turn_graph>(sg::with_store(store));
    const auto o = chat(app, w, n, true);
    std::fprintf(stderr, "process %d: %d conflicts, %d resent\n", w, o.conflicts, o.retried);
    return 0;
  }));
  sg::sqlite_store store(file.path());
  auto app = sg::compile<turn_graph>(sg::with_store(store));
  check_chat(app, writers, n, {}, true);
  // One input and one reply checkpoint per message that landed, nothing more: a lost race
  // left no checkpoint.
  const auto head = app.get_state(sg::thread_id{"chat"});
  CHECK(static_cast<std::size_t>(head->checkpoint_id) == store.stats().checkpoints);
}

// ---- two processes resume one paused thread -------------------------------------------------

constexpr int work_steps = 30;

struct Job {
  sg::counter<int> done;
  sg::append<std::string> log;
};
struct plan {
  using reads = sg::reads<>;
  using writes = sg::writes<&Job::log>;
  auto operator()(sg::view<Job, reads>) const { return sg::write<&Job::log>(std::string("plan")); }
};
std::atomic<int> work_runs{0};
struct work {
  using reads = sg::reads<&Job::done>;
  using writes = sg::writes<&Job::done, &Job::log>;
  auto operator()(sg::view<Job, reads> in) const {
    ++work_runs;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // so the two resumes overlap
    return sg::write<&Job::done>(1) | sg::write<&Job::log>("work " + std::to_string(in.get<&Job::done>() + 1));
  }
};
struct more {
  using reads = sg::reads<&Job::done>;
  sg::go<work, sg::end> operator()(sg::view<Job, reads> in) const {
    if (in.get<&Job::done>() < work_steps) return sg::to<work>;
    return sg::to<sg::end>;
  }
};
using job_graph = sg::graph<Job, sg::edge<sg::start, plan>, sg::edge<plan, work>, sg::branch<work, more>>;

TEST_CASE("one writer per thread: two processes resuming one paused thread do not both run it") {
  temp_db file("one-writer-resume");
  const sg::thread_id t{"job"};
  {
    sg::sqlite_store store(file.path());
    auto app = sg::compile<job_graph>(sg::with_store(store), sg::interrupt_after<plan>{});
    app.invoke(Job{}, t);  // input, plan; paused before the work
    REQUIRE(app.get_state(t)->next == strings{"work"});
  }
  // Each child reports through its exit code: 10 + how many times it ran `work` if it
  // finished the run, 100 + runs if it lost to the other (conflict_error, or nothing left).
  std::vector<int> codes;
  int results[2];
  REQUIRE(::pipe(results) == 0);
  CHECK(in_processes(2, [&](int) {
    work_runs = 0;
    int code = 0;
    try {
      sg::sqlite_store store(file.path());
      auto app = sg::compile<job_graph>(sg::with_store(store), sg::interrupt_after<plan>{});
      app.resume(t);
      code = 10 + work_runs.load();
    } catch (const sg::conflict_error&) {
      code = 100 + work_runs.load();
    } catch (const sg::checkpoint_error&) {  // the other one had finished before this one read
      code = 100 + work_runs.load();
    }
    const unsigned char byte = static_cast<unsigned char>(code);
    return ::write(results[1], &byte, 1) == 1 ? 0 : 1;
  }));
  ::close(results[1]);
  unsigned char byte = 0;
  while (::read(results[0], &byte, 1) == 1) codes.push_back(byte);
  ::close(results[0]);
  REQUIRE(codes.size() == 2);
  std::sort(codes.begin(), codes.end());
  MESSAGE("the finishing resume ran work " << codes[0] - 10 << " times, the other " << codes[1] - 100);
  CHECK(codes[0] >= 10);
  CHECK(codes[0] < 100);  // exactly one finished ...
  CHECK(codes[1] >= 100);  // ... and the other was refused
  // Together they ran `work` at most once more than the run needs: the loser's one step.
  CHECK((codes[0] - 10) + (codes[1] - 100) <= work_steps + 1);

  sg::sqlite_store store(file.path());
  auto app = sg::compile<job_graph>(sg::with_store(store), sg::interrupt_after<plan>{});
  const auto head = app.get_state(t);
  REQUIRE(head);
  CHECK(head->values.done == work_steps);
  CHECK(head->values.log.value().size() == static_cast<std::size_t>(1 + work_steps));
  CHECK(head->next.empty());
  // input, plan, then one checkpoint per work step: none twice.
  CHECK(store.stats().checkpoints == static_cast<std::size_t>(2 + work_steps));
  for (const auto& s : app.history(t)) CHECK(s.parent_id == s.checkpoint_id - 1);
}

// ---- forks are not conflicts ----------------------------------------------------------------

TEST_CASE_TEMPLATE("one writer per thread: forks and time travel stay allowed and move the head", F,
                   DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<turn_graph>(sg::with_store(fx.store));
  const sg::thread_id t{"t"};
  app.invoke(Turn{.messages = {"a"}}, t);  // 1 input, 2 reply
  app.invoke(Turn{.messages = {"b"}}, t);  // 3, 4
  // Fork from checkpoint 2 (not the head): a new branch, not a conflict.
  const Turn forked = app.invoke(Turn{.messages = {"c"}}, t, sg::checkpoint_id{2});
  CHECK(forked.messages.value() == std::vector<std::string>{"a", "c"});
  auto head = app.get_state(t);
  CHECK(head->checkpoint_id == 6);
  CHECK(head->values.messages.value() == std::vector<std::string>{"a", "c"});
  // The thread continues from the fork's end; resume from an old checkpoint forks as well.
  CHECK(app.invoke(Turn{.messages = {"d"}}, t).messages.value() == std::vector<std::string>{"a", "c", "d"});
  CHECK(app.resume(t, sg::checkpoint_id{1}).messages.value() == std::vector<std::string>{"a"});
  CHECK(app.get_state(t)->checkpoint_id == 10);
  const auto id = app.update_state(t, sg::write<&Turn::replies>(5), sg::as_node<reply>);
  CHECK(id == 11);
  CHECK(app.get_state(t)->values.replies == 6);
}

// ---- retention seen from the app -----------------------------------------------------------

TEST_CASE_TEMPLATE("a pruned thread goes on from its head, and time travel works inside what is kept", F,
                   DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<turn_graph>(sg::with_store(fx.store));
  const sg::thread_id t{"t"};
  std::vector<std::string> sent;
  for (int i = 0; i < 20; ++i) {  // checkpoints 1 .. 40: an input and a reply per turn
    sent.push_back(message(0, i));
    app.invoke(Turn{.messages = {sent.back()}}, t);
  }
  CHECK(fx.store.prune(t.value, sg::keep_latest{6}) == 34);
  const auto history = app.history(t);
  REQUIRE(history.size() == 6);
  CHECK(history.front().checkpoint_id == 40);
  CHECK(history.back().checkpoint_id == 35);
  CHECK(history.back().parent_id == 34);  // the chain ends at the oldest kept checkpoint
  CHECK(history.front().values.messages.value() == sent);
  CHECK(history.back().values.messages.value() == std::vector<std::string>(sent.begin(), sent.begin() + 18));
  // A pruned id is a typed error, as an id that never existed.
  CHECK_THROWS_WITH_AS(app.get_state(t, sg::checkpoint_id{34}), doctest::Contains("has no checkpoint 34"),
                       sg::checkpoint_error);
  CHECK_THROWS_AS(app.invoke(Turn{.messages = {"x"}}, t, sg::checkpoint_id{3}), sg::checkpoint_error);
  CHECK(app.history(t).size() == 6);  // and nothing was written
  // The head goes on; a fork from a kept checkpoint works.
  sent.push_back("next");
  CHECK(app.invoke(Turn{.messages = {"next"}}, t).messages.value() == sent);
  const Turn forked = app.invoke(Turn{.messages = {"other"}}, t, sg::checkpoint_id{36});
  CHECK(forked.messages.value().size() == 19);
  CHECK(forked.messages.value().back() == "other");
  CHECK(forked.replies == 19);
}

}  // namespace durable_one_writer
