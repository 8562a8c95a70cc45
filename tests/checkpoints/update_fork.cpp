// Editing and branching history: update_state writes as a node and makes that node's
// successors the next nodes; invoking or resuming from a past checkpoint starts a new
// branch whose parent is that checkpoint, and leaves the old branch as it was.
#include "fixtures.hpp"

#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

using namespace durable_test;

namespace durable_update_fork {

// The parent chain from a checkpoint back to the thread's first, as ids.
template <class App>
std::vector<std::int64_t> chain(const App& app, const sg::thread_id& t, std::int64_t from) {
  std::vector<std::int64_t> out;
  for (auto id = from; id != sg::no_checkpoint; id = app.get_state(t, sg::checkpoint_id{id}).parent_id)
    out.push_back(id);
  return out;
}

template <class App>
std::map<std::int64_t, strings> all_messages(const App& app, const sg::thread_id& t) {
  std::map<std::int64_t, strings> out;
  for (const auto& s : app.history(t)) out[s.checkpoint_id] = contents(s.values.messages);
  return out;
}

TEST_CASE_TEMPLATE("update_state writes as a node; its successors run next on resume", F, DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<chat_graph>(sg::with_store(fx.store));
  const sg::thread_id t{"upd"};
  app.invoke(Chat{.messages = {Msg{"user", "hi"}}}, t);
  REQUIRE(app.get_state(t)->checkpoint_id == 6);

  auto id = app.update_state(t, sg::write<&Chat::messages>(Msg{"tool", "manual"}), sg::as_node<tools>);
  CHECK(id == 7);
  auto s = app.get_state(t);
  REQUIRE(s.has_value());
  CHECK(s->checkpoint_id == 7);
  CHECK(s->parent_id == 6);
  CHECK(s->source == sg::checkpoint_source::update);
  CHECK(s->next == strings{"agent"});  // tools -> agent
  CHECK(s->values.messages.size() == 7);
  CHECK(s->values.messages.back() == Msg{"tool", "manual"});
  CHECK(s->values.calls == 3);

  Chat out = app.resume(t);
  CHECK(contents(out.messages) ==
        strings{"user:hi", "ai:call tool", "tool:42", "ai:call tool", "tool:42", "ai:done", "tool:manual", "ai:done"});
  CHECK(out.calls == 4);
  CHECK(app.get_state(t)->checkpoint_id == 8);
  CHECK(app.get_state(t)->next.empty());

  // A counter written through update_state goes through its reducer.
  app.update_state(t, sg::write<&Chat::calls>(10), sg::as_node<agent>);
  CHECK(app.get_state(t)->values.calls == 14);
}

TEST_CASE_TEMPLATE("update_state stores only the channels it wrote", F, DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<chat_graph>(sg::with_store(fx.store));
  const sg::thread_id t{"upd-cost"};
  app.invoke(Chat{.messages = {Msg{"user", "hi"}}}, t);
  auto before = fx.store.stats();
  app.update_state(t, sg::write<&Chat::calls>(1), sg::as_node<agent>);
  auto after = fx.store.stats();
  CHECK(after.checkpoints == before.checkpoints + 1);
  CHECK(after.values == before.values + 1);            // the counter, not the messages
  CHECK(after.value_bytes == before.value_bytes + 1);  // "4"
}

TEST_CASE_TEMPLATE("update_state and a resumed fork take a step like any other checkpoint", F,
                   DURABLE_FIXTURES) {
  // As in LangGraph, each checkpoint of a chain is its parent's step + 1, whatever wrote it.
  F fx;
  auto app = sg::compile<chat_graph>(sg::with_store(fx.store));
  const sg::thread_id t{"upd-step"};
  app.invoke(Chat{.messages = {Msg{"user", "hi"}}}, t);
  app.update_state(t, sg::write<&Chat::calls>(1), sg::as_node<agent>);
  CHECK(app.get_state(t)->step == 6);
  app.resume(t, sg::checkpoint_id{2});
  CHECK(app.get_state(t, sg::checkpoint_id{8}).step == 2);  // the fork of checkpoint 2 (step 1)
}

TEST_CASE_TEMPLATE("update_state as a node with a branch: the router chooses the next nodes", F, DURABLE_FIXTURES) {
  // The router runs on the updated state, as at the end of a step the node ran in.
  F fx;
  auto app = sg::compile<chat_graph>(sg::with_store(fx.store));
  const sg::thread_id t{"upd-branch"};
  app.invoke(Chat{.messages = {Msg{"user", "hi"}}}, t);
  app.update_state(t, sg::write<&Chat::messages>(Msg{"ai", "call tool"}), sg::as_node<agent>);
  CHECK(app.get_state(t)->next == strings{"tools"});
  // Resuming runs what the router chose: tools, then agent, which now says done.
  Chat out = app.resume(t);
  CHECK(contents(out.messages).back() == "ai:done");
  CHECK(contents(out.messages).size() == 9);
  // The same update with a reply that asks for nothing: the router ends the run.
  app.update_state(t, sg::write<&Chat::messages>(Msg{"ai", "thanks"}), sg::as_node<agent>);
  CHECK(app.get_state(t)->next.empty());
}

TEST_CASE_TEMPLATE("invoking from a past checkpoint forks; the old branch stays intact", F, DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<chat_graph>(sg::with_store(fx.store));
  const sg::thread_id t{"fork"};
  app.invoke(Chat{.messages = {Msg{"user", "hi"}}}, t);
  const auto old = all_messages(app, t);
  REQUIRE(old.size() == 6);

  Chat forked = app.invoke(Chat{.messages = {Msg{"user", "fork"}}}, t, sg::checkpoint_id{3});
  CHECK(contents(forked.messages) ==
        strings{"user:hi", "ai:call tool", "tool:42", "user:fork", "ai:call tool", "tool:42", "ai:done"});
  CHECK(forked.calls == 3);  // 1 before the fork, 2 after

  auto fork_point = app.get_state(t, sg::checkpoint_id{7});
  CHECK(fork_point.source == sg::checkpoint_source::fork);
  CHECK(fork_point.parent_id == 3);
  CHECK(fork_point.next == strings{"agent"});
  CHECK(contents(fork_point.values.messages) == strings{"user:hi", "ai:call tool", "tool:42", "user:fork"});

  auto latest = app.get_state(t);
  REQUIRE(latest.has_value());
  CHECK(latest->checkpoint_id == 10);
  CHECK(chain(app, t, 10) == std::vector<std::int64_t>{10, 9, 8, 7, 3, 2, 1});
  CHECK(chain(app, t, 6) == std::vector<std::int64_t>{6, 5, 4, 3, 2, 1});

  // Every checkpoint of the old branch reads back exactly as before the fork.
  auto now = all_messages(app, t);
  CHECK(now.size() == 10);
  for (const auto& [id, msgs] : old) CHECK(now.at(id) == msgs);

  // A later invoke continues the newest checkpoint, the fork's end.
  Chat next = app.invoke(Chat{.messages = {Msg{"user", "more"}}}, t);
  CHECK(next.messages.size() == 9);
  CHECK(next.messages[3] == Msg{"user", "fork"});
}

TEST_CASE_TEMPLATE("resuming from a past checkpoint runs its next nodes on a new branch", F, DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<chat_graph>(sg::with_store(fx.store));
  const sg::thread_id t{"refork"};
  Chat original = app.invoke(Chat{.messages = {Msg{"user", "hi"}}}, t);
  const auto old = all_messages(app, t);

  REQUIRE(app.get_state(t, sg::checkpoint_id{2}).next == strings{"tools"});
  Chat again = app.resume(t, sg::checkpoint_id{2});
  // Replaying the same nodes from checkpoint 2 reaches the same end as the first time.
  CHECK(contents(again.messages) == contents(original.messages));
  CHECK(again.calls == original.calls);

  auto h = app.history(t);
  REQUIRE(h.size() == 6 + 5);  // a fork checkpoint, then tools, agent, tools, agent
  CHECK(h.front().checkpoint_id == 11);
  auto fork_point = app.get_state(t, sg::checkpoint_id{7});
  CHECK(fork_point.source == sg::checkpoint_source::fork);
  CHECK(fork_point.parent_id == 2);
  CHECK(fork_point.next == strings{"tools"});
  CHECK(chain(app, t, 11) == std::vector<std::int64_t>{11, 10, 9, 8, 7, 2, 1});
  auto now = all_messages(app, t);
  for (const auto& [id, msgs] : old) CHECK(now.at(id) == msgs);
}

TEST_CASE_TEMPLATE("a fork edited with update_state before it runs: time travel", F, DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<chat_graph>(sg::with_store(fx.store));
  const sg::thread_id t{"edit-fork"};
  app.invoke(Chat{.messages = {Msg{"user", "hi"}}}, t);
  // Branch from checkpoint 2 (before the first tool call) without running a step: a limit
  // of 0 supersteps stops the run right after the fork checkpoint.
  CHECK_THROWS_AS(app.resume(t, sg::checkpoint_id{2}, sg::run_config{.recursion_limit = 0}), sg::recursion_limit_error);
  auto fork_point = app.get_state(t);
  REQUIRE(fork_point.has_value());
  CHECK(fork_point->checkpoint_id == 7);
  CHECK(fork_point->source == sg::checkpoint_source::fork);
  CHECK(fork_point->next == strings{"tools"});

  // Answer in the tool's place, then let the agent carry on from there.
  app.update_state(t, sg::write<&Chat::messages>(Msg{"tool", "edited"}), sg::as_node<tools>);
  CHECK(app.get_state(t)->next == strings{"agent"});
  Chat out = app.resume(t);
  CHECK(contents(out.messages) ==
        strings{"user:hi", "ai:call tool", "tool:edited", "ai:call tool", "tool:42", "ai:done"});
  // The original branch still ends as it did.
  CHECK(contents(app.get_state(t, sg::checkpoint_id{6}).values.messages) ==
        strings{"user:hi", "ai:call tool", "tool:42", "ai:call tool", "tool:42", "ai:done"});
}

}  // namespace durable_update_fork

namespace durable_update_reactive {

struct Tally {
  sg::counter<int> rounds;
  int total = 0;
};
struct planner {
  using writes = sg::writes<&Tally::rounds>;
  auto operator()(sg::view<Tally, sg::reads<>>) const { return sg::write<&Tally::rounds>(1); }
};
struct on_rounds {
  using subscribes = sg::subscribes<&Tally::rounds>;
  using reads = sg::reads<&Tally::rounds>;
  using writes = sg::writes<&Tally::total>;
  auto operator()(sg::view<Tally, reads> in) const { return sg::write<&Tally::total>(in.get<&Tally::rounds>() * 10); }
};
using tally_graph = sg::graph<Tally, sg::edge<sg::start, planner>, sg::edge<planner, sg::end>, sg::edge<on_rounds, sg::end>>;

}  // namespace durable_update_reactive

TEST_CASE_TEMPLATE("update_state as a node wakes the subscribers of the channels it changed", F, DURABLE_FIXTURES) {
  using namespace durable_update_reactive;
  F fx;
  auto app = sg::compile<tally_graph>(sg::with_store(fx.store));
  const sg::thread_id t{"reactive-update"};
  Tally first = app.invoke(Tally{}, t);
  CHECK(first.rounds == 1);
  CHECK(first.total == 10);  // on_rounds reacted to planner's write

  // Written as planner, as if it had run: planner leads to end, but the write changed
  // rounds, so its subscriber runs next.
  app.update_state(t, sg::write<&Tally::rounds>(4), sg::as_node<planner>);
  auto s = app.get_state(t);
  REQUIRE(s.has_value());
  CHECK(s->values.rounds == 5);
  CHECK(s->next == strings{"on_rounds"});
  Tally out = app.resume(t);
  CHECK(out.total == 50);
  CHECK(app.get_state(t)->next.empty());
}
