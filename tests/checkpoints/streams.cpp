// Streaming a thread (contract §6): a checkpointed app streams a run on a thread in every
// mode, with or without a context, as a callback or a range, on both executors; its
// checkpoints mode reports each checkpoint as committed, and custom mode what nodes emit.
#include "fixtures.hpp"

#include <doctest/doctest.h>

#include <string>
#include <tuple>
#include <vector>

using namespace durable_test;

namespace durable_streams {

using step_node = std::tuple<std::size_t, std::string, strings>;
using checkpoint_row = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::string, strings>;

strings names(const std::vector<std::string_view>& v) { return strings(v.begin(), v.end()); }

template <class App>
void streams_updates_and_checkpoints(App& app, const sg::memory_store& store) {
  const sg::thread_id t{"s"};
  std::vector<step_node> updates;
  std::vector<checkpoint_row> checkpoints;
  std::vector<std::string> order;
  Chat out = app.stream(Chat{.messages = {Msg{"user", "hi"}}}, t,
                        sg::stream_mode::updates | sg::stream_mode::checkpoints | sg::stream_mode::values,
                        [&](const sg::event<Chat>& e) {
                          if (e.mode == sg::stream_mode::updates) {
                            updates.emplace_back(e.step, std::string(e.node), names(e.channels));
                            order.push_back("u" + std::to_string(e.step));
                          } else if (e.mode == sg::stream_mode::checkpoints) {
                            checkpoints.emplace_back(e.checkpoint.id, e.checkpoint.parent_id, e.checkpoint.step,
                                                     std::string(e.checkpoint.source), names(e.checkpoint.next));
                            order.push_back("c" + std::to_string(e.step));
                          } else {
                            order.push_back("v" + std::to_string(e.step));
                          }
                        });
  // The same run as invoke, stored the same way.
  CHECK(contents(out.messages) ==
        strings{"user:hi", "ai:call tool", "tool:42", "ai:call tool", "tool:42", "ai:done"});
  CHECK(out.calls == 3);
  CHECK(app.get_state(t)->checkpoint_id == 6);
  CHECK(store.stats().checkpoints == 6);
  CHECK(updates == std::vector<step_node>{{1, "agent", {"messages", "calls"}},
                                          {2, "tools", {"messages"}},
                                          {3, "agent", {"messages", "calls"}},
                                          {4, "tools", {"messages"}},
                                          {5, "agent", {"messages", "calls"}}});
  CHECK(checkpoints == std::vector<checkpoint_row>{{1, 0, 0, "input", {"agent"}},
                                                   {2, 1, 1, "loop", {"tools"}},
                                                   {3, 2, 2, "loop", {"agent"}},
                                                   {4, 3, 3, "loop", {"tools"}},
                                                   {5, 4, 4, "loop", {"agent"}},
                                                   {6, 5, 5, "loop", {}}});
  // Per step: the updates, then the checkpoint, then the state.
  CHECK(order == strings{"c0", "v0", "u1", "c1", "v1", "u2", "c2", "v2", "u3", "c3", "v3", "u4", "c4", "v4", "u5",
                         "c5", "v5"});

  // Continuing the thread: its next input's checkpoint continues the history.
  checkpoints.clear();
  app.stream(Chat{.messages = {Msg{"user", "again"}}}, t, sg::stream_mode::checkpoints, [&](const sg::event<Chat>& e) {
    checkpoints.emplace_back(e.checkpoint.id, e.checkpoint.parent_id, e.checkpoint.step,
                             std::string(e.checkpoint.source), names(e.checkpoint.next));
  });
  REQUIRE(checkpoints.size() == 2);
  CHECK(checkpoints[0] == checkpoint_row{7, 6, 6, "input", {"agent"}});
  CHECK(checkpoints[1] == checkpoint_row{8, 7, 7, "loop", {}});
  CHECK(app.get_state(t)->values.messages.back() == Msg{"ai", "done"});
}

TEST_CASE("a thread streams updates and checkpoints on the sequential executor") {
  sg::memory_store store;
  auto app = sg::compile<chat_graph>(sg::with_store(store));
  streams_updates_and_checkpoints(app, store);
}
TEST_CASE("a thread streams updates and checkpoints on the thread pool") {
  sg::memory_store store;
  auto app = sg::compile<chat_graph>(sg::with_store(store), sg::with_executor(sg::thread_pool{2}));
  streams_updates_and_checkpoints(app, store);
}

TEST_CASE_TEMPLATE("a thread streams as a range; the run is stored as invoke stores it", F, DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<chat_graph>(sg::with_store(fx.store));
  const sg::thread_id t{"range"};
  std::vector<std::size_t> steps;
  std::vector<std::int64_t> ids;
  for (const auto& e : app.stream(Chat{.messages = {Msg{"user", "hi"}}}, t,
                                  sg::stream_mode::values | sg::stream_mode::checkpoints)) {
    if (e.mode == sg::stream_mode::values) steps.push_back(e.values->messages.size());
    else ids.push_back(e.checkpoint.id);
  }
  CHECK(steps == std::vector<std::size_t>{1, 2, 3, 4, 5, 6});
  CHECK(ids == std::vector<std::int64_t>{1, 2, 3, 4, 5, 6});
  CHECK(contents(app.get_state(t)->values.messages).back() == "ai:done");

  // Stopping early leaves the thread at its last committed checkpoint, which resume continues.
  const sg::thread_id u{"range-stopped"};
  {
    auto events = app.stream(Chat{.messages = {Msg{"user", "hi"}}}, u, sg::stream_mode::checkpoints);
    auto it = events.begin();
    REQUIRE(it->checkpoint.id == 1);
    ++it;
    CHECK(it->checkpoint.id == 2);
  }
  CHECK(app.get_state(u)->checkpoint_id == 2);
  CHECK(app.resume(u).messages.back() == Msg{"ai", "done"});
}

TEST_CASE_TEMPLATE("a streamed thread pauses on an interrupt and resumes", F, DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<chat_graph>(sg::with_store(fx.store), sg::interrupt_before<tools>{});
  const sg::thread_id t{"paused"};
  std::vector<std::string> nodes;
  Chat paused = app.stream(Chat{.messages = {Msg{"user", "hi"}}}, t, sg::stream_mode::updates,
                           [&](const sg::event<Chat>& e) { nodes.emplace_back(e.node); });
  CHECK(nodes == strings{"agent"});
  CHECK(contents(paused.messages) == strings{"user:hi", "ai:call tool"});
  CHECK(app.get_state(t)->next == strings{"tools"});
  CHECK(app.resume(t).messages.size() == 4);
}

TEST_CASE("a thread streams debug events with a context, on the thread pool") {
  sg::memory_store store;
  auto app = sg::compile<chat_graph>(sg::with_store(store), sg::with_executor(sg::thread_pool{2}));
  sg::run_context ctx;
  std::vector<std::string> seen;
  app.stream(Chat{.messages = {Msg{"user", "hi"}}}, sg::thread_id{"debug"}, sg::stream_mode::debug, ctx,
             [&](const sg::event<Chat>& e) {
               seen.push_back(std::to_string(e.step) + (e.phase == sg::debug_phase::start ? " start " : " end ") +
                              std::string(e.node));
             });
  CHECK(seen == strings{"1 start agent", "1 end agent", "2 start tools", "2 end tools", "3 start agent", "3 end agent",
                        "4 start tools", "4 end tools", "5 start agent", "5 end agent"});
  CHECK(app.get_state(sg::thread_id{"debug"})->checkpoint_id == 6);
}

// ---- custom events through the context ---------------------------------------------------

struct Pair {
  std::string a, b;
};
struct token_ctx : sg::run_context, sg::emitter<std::string> {};
struct left {
  using writes = sg::writes<&Pair::a>;
  auto operator()(sg::view<Pair, sg::reads<>>, token_ctx& ctx) const {
    ctx.emit("l1");
    ctx.emit("l2");
    return sg::write<&Pair::a>("left");
  }
};
struct right {
  using writes = sg::writes<&Pair::b>;
  auto operator()(sg::view<Pair, sg::reads<>>, token_ctx& ctx) const {
    ctx.emit("r1");
    return sg::write<&Pair::b>("right");
  }
};
using pair_graph = sg::graph<Pair, sg::edge<sg::start, left>, sg::edge<sg::start, right>, sg::edge<left, sg::end>,
                             sg::edge<right, sg::end>>;

template <class App>
void streams_custom(App& app) {
  token_ctx ctx;
  std::vector<std::string> seen;
  Pair out = app.stream(Pair{}, sg::thread_id{"custom"}, sg::stream_mode::custom | sg::stream_mode::updates, ctx,
                        [&](const sg::event<Pair, std::string>& e) {
                          if (e.mode == sg::stream_mode::custom) seen.push_back(std::string(e.node) + ":" + *e.custom);
                          else seen.push_back("update:" + std::string(e.node));
                        });
  CHECK(out.a == "left");
  CHECK(out.b == "right");
  // In node order whatever the executor, before the step's updates.
  CHECK(seen == strings{"left:l1", "left:l2", "right:r1", "update:left", "update:right"});
  // A run that does not stream custom events drops them.
  Pair again = app.invoke(Pair{}, sg::thread_id{"custom"}, ctx);
  CHECK(again.a == "left");
}

TEST_CASE("custom events of a thread, in node order on both executors") {
  sg::memory_store store;
  auto seq = sg::compile<pair_graph>(sg::with_store(store));
  streams_custom(seq);
  sg::memory_store store2;
  auto pool = sg::compile<pair_graph>(sg::with_store(store2), sg::with_executor(sg::thread_pool{2}));
  for (int i = 0; i < 20; ++i) {
    store2.delete_thread("custom");
    streams_custom(pool);
  }
}

}  // namespace durable_streams
