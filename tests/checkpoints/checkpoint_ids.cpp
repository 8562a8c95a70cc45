// Checkpoint ids that name no checkpoint: 0 (what `sg::checkpoint_id{}` holds) and below.
// Every call that takes a checkpoint_id refuses them with checkpoint_error naming the thread,
// and writes nothing; none of them stands for the thread's latest checkpoint.
#include "fixtures.hpp"

#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

using namespace durable_test;

namespace durable_checkpoint_ids {

// Everything the store holds for every thread, raw: equal before and after means nothing was
// written.
template <class Store>
std::string contents_of(const Store& store) {
  std::ostringstream out;
  auto st = store.stats();
  out << st.threads << '/' << st.checkpoints << '/' << st.values << '/' << st.pending_writes << '\n';
  for (const auto& thread : store.threads())
    for (const auto& info : store.list(thread)) {
      auto cp = store.get(thread, info.id);
      REQUIRE(cp.has_value());
      out << thread << '#' << cp->id << '<' << cp->parent << ' ' << cp->step << ' ' << cp->metadata << '\n';
      for (const auto& ch : cp->channels) out << "  " << ch.channel << '@' << ch.version << '=' << ch.value << '\n';
      for (const auto& w : store.pending_writes(thread, cp->id)) out << "  w " << w.task << '=' << w.value << '\n';
    }
  return out.str();
}

// The refusal: a checkpoint_error (an sg::error) that names the thread and the id.
template <class Call>
void refused(Call&& call, const std::string& thread, std::int64_t id) {
  try {
    call();
    FAIL_CHECK("checkpoint id " << id << " of thread '" << thread << "' was accepted");
  } catch (const sg::checkpoint_error& e) {
    const std::string message = e.what();
    INFO(message);
    CHECK(message.find("thread '" + thread + "'") != std::string::npos);
    CHECK(message.find("checkpoint id " + std::to_string(id) + " names no checkpoint") != std::string::npos);
  }
}

}  // namespace durable_checkpoint_ids
using namespace durable_checkpoint_ids;

TEST_CASE_TEMPLATE("checkpoint id 0 and checkpoint_id{} are refused by get_state, invoke and resume; nothing is written",
                   F, DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<chat_graph>(sg::with_store(fx.store));
  const sg::thread_id t{"ids"};
  app.invoke(Chat{.messages = {Msg{"user", "hi"}}}, t);
  REQUIRE(app.get_state(t)->checkpoint_id == 6);
  const auto before = contents_of(fx.store);

  const sg::checkpoint_id none{};
  CHECK(none.value == 0);
  for (const sg::checkpoint_id id : {none, sg::checkpoint_id{0}, sg::checkpoint_id{-1}, sg::checkpoint_id{-6}}) {
    INFO("checkpoint id " << id.value);
    refused([&] { (void)app.get_state(t, id); }, "ids", id.value);
    refused([&] { (void)app.invoke(Chat{.messages = {Msg{"user", "fork"}}}, t, id); }, "ids", id.value);
    refused([&] { (void)app.invoke(Chat{}, t, id, sg::run_config{}); }, "ids", id.value);
    refused([&] { (void)app.resume(t, id); }, "ids", id.value);
    refused([&] { (void)app.resume(t, id, sg::run_config{.recursion_limit = 5}); }, "ids", id.value);
  }
  // Written in place, as a careless caller would.
  refused([&] { (void)app.get_state(t, {}); }, "ids", 0);
  refused([&] { (void)app.invoke(Chat{}, t, sg::checkpoint_id{}); }, "ids", 0);
  refused([&] { (void)app.resume(t, sg::checkpoint_id{}); }, "ids", 0);
  CHECK_THROWS_AS(app.get_state(t, sg::checkpoint_id{}), sg::error);
  CHECK(contents_of(fx.store) == before);

  // A thread with no checkpoint at all: the id is refused first, and the thread is named.
  const sg::thread_id fresh{"fresh"};
  refused([&] { (void)app.get_state(fresh, sg::checkpoint_id{}); }, "fresh", 0);
  refused([&] { (void)app.invoke(Chat{}, fresh, sg::checkpoint_id{}); }, "fresh", 0);
  refused([&] { (void)app.resume(fresh, sg::checkpoint_id{}); }, "fresh", 0);
  CHECK_FALSE(app.get_state(fresh).has_value());
  CHECK(contents_of(fx.store) == before);

  // Real ids still work, and the latest is read by the overloads without an id.
  CHECK(app.get_state(t, sg::checkpoint_id{1}).checkpoint_id == 1);
  CHECK(app.get_state(t, sg::checkpoint_id{6}).checkpoint_id == 6);
  CHECK(app.get_state(t)->checkpoint_id == 6);
}

TEST_CASE_TEMPLATE("a fork from a real id keeps its parent chain; no fork ever gets parent 0 from a bad id", F,
                   DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<chat_graph>(sg::with_store(fx.store));
  const sg::thread_id t{"chain"};
  app.invoke(Chat{.messages = {Msg{"user", "hi"}}}, t);
  CHECK_THROWS_AS(app.invoke(Chat{.messages = {Msg{"user", "lost"}}}, t, sg::checkpoint_id{0}), sg::checkpoint_error);
  CHECK_THROWS_AS(app.resume(t, sg::checkpoint_id{0}), sg::checkpoint_error);

  app.invoke(Chat{.messages = {Msg{"user", "fork"}}}, t, sg::checkpoint_id{3});
  // Only the thread's first checkpoint has no parent; every other one chains back to it.
  std::vector<std::int64_t> roots;
  for (const auto& s : app.history(t))
    if (s.parent_id == sg::no_checkpoint) roots.push_back(s.checkpoint_id);
  CHECK(roots == std::vector<std::int64_t>{1});
  CHECK(app.get_state(t, sg::checkpoint_id{7}).parent_id == 3);
  CHECK(app.get_state(t)->values.messages.value().front().content == "hi");
}
