// Checkpointed runs on sg::postgres_store through sg::with_store: a thread continued by
// another store object (another worker), an interrupt resumed there, and two writers of one
// thread from two OS threads, each with its own store object, conflicting without losing a
// message or committing a step twice.
#include "../checkpoints/fixtures.hpp"
#include "postgres_fixture.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <latch>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using durable_test::Chat;
using durable_test::chat_graph;
using durable_test::contents;
using durable_test::Msg;
using durable_test::strings;

namespace {

std::unique_ptr<sg::postgres_store> open_app_store(const sg_test::temp_schema& schema) {
  return std::make_unique<sg::postgres_store>(sg_test::postgres_conninfo(), sg::postgres_options{.schema = schema.name()});
}

}  // namespace

TEST_CASE("postgres app: a thread is continued by another store object and its history reads back") {
  sg_test::temp_schema schema("app_thread");
  const sg::thread_id t{"chat"};
  {
    auto store = open_app_store(schema);
    auto app = sg::compile<chat_graph>(sg::with_store(*store));
    Chat out = app.invoke(Chat{.messages = {Msg{"user", "hi"}}}, t);
    CHECK(contents(out.messages) == strings{"user:hi", "ai:call tool", "tool:42", "ai:call tool", "tool:42", "ai:done"});
    CHECK(app.get_state(t)->checkpoint_id == 6);
  }
  auto store = open_app_store(schema);  // another worker
  auto app = sg::compile<chat_graph>(sg::with_store(*store));
  Chat again = app.invoke(Chat{.messages = {Msg{"user", "more"}}}, t);
  CHECK(again.messages.size() == 8);
  CHECK(again.messages[6] == Msg{"user", "more"});
  CHECK(again.messages[7] == Msg{"ai", "done"});
  CHECK(again.calls == 4);
  const auto history = app.history(t);
  REQUIRE(history.size() == 8);
  for (const auto& s : history) CHECK(s.parent_id == s.checkpoint_id - 1);
  // Time travel: the state after the first agent step, read back whole.
  const auto early = app.get_state(t, sg::checkpoint_id{2});
  CHECK(early.checkpoint_id == 2);
  CHECK(contents(early.values.messages.value()) == strings{"user:hi", "ai:call tool"});
  // Each step wrote only what changed: the messages as appended pieces, not whole lists.
  CHECK(store->stats().value_bytes < 2'000);
}

namespace pg_failure {
struct Job {
  sg::append<std::string> log;
};
std::atomic<int> left{0};
struct flaky {
  using reads = sg::reads<>;
  using writes = sg::writes<&Job::log>;
  auto operator()(sg::view<Job, reads>) const {
    if (left-- > 0) throw std::runtime_error("flaky broke");
    return sg::write<&Job::log>(std::string("flaky"));
  }
};
struct steady {
  using reads = sg::reads<>;
  using writes = sg::writes<&Job::log>;
  auto operator()(sg::view<Job, reads>) const { return sg::write<&Job::log>(std::string("steady")); }
};
using graph = sg::graph<Job, sg::edge<sg::start, flaky>, sg::edge<sg::start, steady>, sg::edge<flaky, sg::end>,
                        sg::edge<steady, sg::end>>;
}  // namespace pg_failure

TEST_CASE("postgres app: a failed step's message is recorded, read by another store object, and kept after resume") {
  sg_test::temp_schema schema("app_failure");
  const sg::thread_id t{"job"};
  pg_failure::left = 2;
  {
    auto store = open_app_store(schema);
    auto app = sg::compile<pg_failure::graph>(sg::with_store(*store));
    CHECK_THROWS_WITH_AS(app.invoke(pg_failure::Job{}, t), doctest::Contains("flaky broke"), sg::node_error);
  }
  auto store = open_app_store(schema);  // another worker
  auto app = sg::compile<pg_failure::graph>(sg::with_store(*store));
  const auto rows = store->pending_writes(t.value, 1);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0] == sg::pending_write{"flaky#error", 0, "__error__", R"({"message":"flaky broke","type":"std::runtime_error"})"});
  CHECK(rows[1].task == "steady#result");
  auto s = app.get_state(t);
  CHECK(s->failed);
  REQUIRE(s->errors.size() == 1);
  CHECK(s->errors[0].node == "flaky");
  CHECK(s->errors[0].message == "flaky broke");
  CHECK(s->errors[0].type == "std::runtime_error");
  CHECK_THROWS_AS(app.resume(t), sg::node_error);  // a second attempt
  CHECK(app.get_state(t)->errors[0].attempts == 2);
  pg_failure::Job out = app.resume(t);
  CHECK(out.log.value() == strings{"flaky", "steady"});
  CHECK(app.get_state(t)->errors.empty());
  CHECK(app.get_state(t, sg::checkpoint_id{1}).errors.at(0).attempts == 2);
  CHECK(store->stats().pending_writes == 3);
}

TEST_CASE("postgres app: an interrupt pauses, and another store object resumes it") {
  sg_test::temp_schema schema("app_interrupt");
  const sg::thread_id t{"ask"};
  {
    auto store = open_app_store(schema);
    auto app = sg::compile<chat_graph>(sg::with_store(*store), sg::interrupt_before<durable_test::tools>{});
    Chat paused = app.invoke(Chat{.messages = {Msg{"user", "hi"}}}, t);
    CHECK(contents(paused.messages) == strings{"user:hi", "ai:call tool"});
    CHECK(app.get_state(t)->next == strings{"tools"});
  }
  auto store = open_app_store(schema);
  auto app = sg::compile<chat_graph>(sg::with_store(*store), sg::interrupt_before<durable_test::tools>{});
  REQUIRE(app.get_state(t)->next == strings{"tools"});
  CHECK(app.get_state(t)->checkpoint_id == 2);
  Chat second = app.resume(t);
  CHECK(contents(second.messages) == strings{"user:hi", "ai:call tool", "tool:42", "ai:call tool"});
  Chat done = app.resume(t);
  CHECK(done.messages.back() == Msg{"ai", "done"});
  CHECK(done.calls == 3);
  CHECK(app.get_state(t)->next.empty());
  CHECK(app.get_state(t)->checkpoint_id == 6);
}

// Named: Clang cannot reflect a state type with internal linkage.
namespace postgres_app {

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

}  // namespace postgres_app

using postgres_app::Turn;
using postgres_app::turn_graph;

TEST_CASE("postgres app: two writers of one thread from two OS threads conflict and lose nothing") {
  sg_test::temp_schema schema("app_writers");
  constexpr int writers = 2, n = 40;
  const sg::thread_id t{"chat"};
  std::vector<int> conflicts(writers);
  std::vector<std::vector<std::string>> returned(writers);
  std::vector<std::exception_ptr> errors(writers);
  std::latch start(writers);
  std::vector<std::thread> threads;
  for (int w = 0; w < writers; ++w)
    threads.emplace_back([&, w] {
      try {
        auto store = open_app_store(schema);  // each writer its own connection pool, as two workers
        auto app = sg::compile<turn_graph>(sg::with_store(*store));
        start.arrive_and_wait();
        for (int i = 0; i < n; ++i) {
          const std::string m = std::to_string(w) + ":" + std::to_string(i);
          for (;;) {
            try {
              app.invoke(Turn{.messages = {m}}, t);
              returned[static_cast<std::size_t>(w)].push_back(m);
              break;
            } catch (const sg::conflict_error& e) {
              if (e.thread() != "chat" || e.actual() <= e.expected()) throw;
              ++conflicts[static_cast<std::size_t>(w)];
              // Reload; send again only if the message's input checkpoint did not land.
              const auto now = app.get_state(t);
              const auto& have = now->values.messages.value();
              if (std::find(have.begin(), have.end(), m) != have.end()) break;
            }
          }
        }
      } catch (...) {
        errors[static_cast<std::size_t>(w)] = std::current_exception();
      }
    });
  for (auto& th : threads) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  MESSAGE((conflicts[0] + conflicts[1]) << " conflicts between two writers of " << n << " messages each");

  auto store = open_app_store(schema);
  auto app = sg::compile<turn_graph>(sg::with_store(*store));
  const auto head = app.get_state(t);
  REQUIRE(head);
  std::map<std::string, int> count;
  for (const auto& m : head->values.messages.value()) ++count[m];
  CHECK(count.size() == static_cast<std::size_t>(writers * n));  // every message, once
  for (const auto& entry : count) CHECK_MESSAGE(entry.second == 1, entry.first << " is there " << entry.second << " times");
  for (const auto& r : returned)
    for (const auto& m : r) CHECK(count[m] == 1);
  CHECK(head->values.replies <= writers * n);
  for (const auto& s : app.history(t)) CHECK(s.parent_id == s.checkpoint_id - 1);  // one chain, no branch
}
