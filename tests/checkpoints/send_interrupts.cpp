// Interrupts inside sg::send tasks (the map-reduce fan-out): an interrupt pauses the step
// rather than failing it; each paused send task has its own interrupt id, answered one by
// one; the send tasks (and nodes) that finished keep their writes and do not run again; the
// queued payloads come back from the store. Also: a send task that throws keeps its
// siblings' writes, and an interrupted send inside a subgraph. Every case runs on both
// stores and both executors.
#include "fixtures.hpp"

#include <doctest/doctest.h>

#include <array>
#include <atomic>
#include <string>
#include <vector>

using namespace durable_test;

namespace durable_send_interrupts {

struct Batch {
  std::vector<int> items;
  sg::append<std::string> log;
  sg::counter<int> approved;
};

// Calls per item (send payload), and of the other nodes.
std::array<std::atomic<int>, 8> item_runs{};
std::atomic<int> fan_runs{0}, side_runs{0}, side2_runs{0}, collect_runs{0};
std::atomic<int> failures_left{0};  // review_item throws for item 3 while this lasts
void reset() {
  for (auto& r : item_runs) r = 0;
  fan_runs = side_runs = side2_runs = collect_runs = 0;
  failures_left = 0;
}

struct review_item;
struct fan {
  using reads = sg::reads<&Batch::items>;
  using sends = sg::sends<review_item>;
  std::vector<sg::send_to<review_item, int>> operator()(sg::view<Batch, reads> in) const {
    ++fan_runs;
    std::vector<sg::send_to<review_item, int>> out;
    for (int x : in.get<&Batch::items>()) out.push_back(sg::send<review_item>(x));
    return out;
  }
};
// An even item asks whether to approve it; an odd one is approved at once.
struct review_item {
  using writes = sg::writes<&Batch::log, &Batch::approved>;
  auto operator()(sg::view<Batch, sg::reads<>>, const int& x) const {
    ++item_runs[static_cast<std::size_t>(x)];
    if (x == 3 && failures_left-- > 0) throw std::runtime_error("item 3 failed");
    std::string answer = "auto";
    if (x % 2 == 0) answer = sg::interrupt<std::string>("approve " + std::to_string(x) + "?");
    return sg::write<&Batch::log>("item" + std::to_string(x) + ":" + answer) |
           sg::write<&Batch::approved>(answer == "no" ? 0 : 1);
  }
};
// Beside fan in the first step; side2 runs beside the send tasks in the second.
struct side {
  using writes = sg::writes<&Batch::log>;
  auto operator()(sg::view<Batch, sg::reads<>>) const {
    ++side_runs;
    return sg::write<&Batch::log>(std::string("side"));
  }
};
struct side2 {
  using writes = sg::writes<&Batch::log>;
  auto operator()(sg::view<Batch, sg::reads<>>) const {
    ++side2_runs;
    return sg::write<&Batch::log>(std::string("side2"));
  }
};
struct collect {
  using reads = sg::reads<&Batch::approved>;
  using writes = sg::writes<&Batch::log>;
  auto operator()(sg::view<Batch, reads> in) const {
    ++collect_runs;
    return sg::write<&Batch::log>("approved=" + std::to_string(in.get<&Batch::approved>()));
  }
};
using batch_graph = sg::graph<Batch, sg::edge<sg::start, fan>, sg::edge<sg::start, side>, sg::edge<side, side2>,
                              sg::edge<review_item, collect>, sg::edge<side2, sg::end>, sg::edge<collect, sg::end>>;

Batch input(std::vector<int> items) {
  Batch b{};
  b.items = std::move(items);
  return b;
}

const sg::interrupt_info& pending_for(const std::vector<sg::interrupt_info>& pending, std::size_t send) {
  for (const auto& in : pending)
    if (in.send == send) return in;
  FAIL("no pending interrupt of send task " << send);
  return pending.front();
}

TEST_CASE_TEMPLATE("several send tasks paused at once, answered one by one; finished tasks do not run again", F,
                   DURABLE_STORES_AND_EXECUTORS) {
  reset();
  F fx;
  auto app = sg::compile<batch_graph>(sg::with_store(fx.store), F::executor());
  const sg::thread_id t{"batch"};

  Batch paused = app.invoke(input({1, 2, 3, 4}), t);
  CHECK(paused.log == strings{"side"});  // the step of the send tasks did not complete
  CHECK(item_runs[1] == 1);
  CHECK(item_runs[2] == 1);
  CHECK(item_runs[3] == 1);
  CHECK(item_runs[4] == 1);
  CHECK(side2_runs == 1);

  auto s = app.get_state(t);
  REQUIRE(s.has_value());
  CHECK_FALSE(s->failed);
  CHECK(s->next == strings{"side2", "review_item"});
  REQUIRE(s->interrupts.size() == 2);
  // Items 2 and 4 are the send tasks at positions 1 and 3 of the step's queue.
  const auto& two = pending_for(s->interrupts, 1);
  const auto& four = pending_for(s->interrupts, 3);
  CHECK(two.node == "review_item");
  CHECK(two.path() == "review_item");
  CHECK(two.index == 0);
  CHECK(nlohmann::json::parse(two.payload) == "approve 2?");
  CHECK(nlohmann::json::parse(two.send_payload) == 2);
  CHECK(two.id == "review_item[1]:0@2");  // the step started from checkpoint 2 (input, step 1)
  CHECK(nlohmann::json::parse(four.payload) == "approve 4?");
  CHECK(nlohmann::json::parse(four.send_payload) == 4);
  CHECK(four.id == "review_item[3]:0@2");
  const std::string two_id = two.id, four_id = four.id;

  // One value for two pending interrupts is refused, as for nodes.
  CHECK_THROWS_AS(app.resume(t, std::string("yes")), sg::ambiguous_resume_error);

  // Item 4 answered by a new app on the same store: its payload comes back from the store.
  auto again = sg::compile<batch_graph>(sg::with_store(fx.store), F::executor());
  Batch half = again.resume(t, sg::answers{{four_id, "yes"}});
  CHECK(half.log == strings{"side"});  // item 2 still waits
  CHECK(item_runs[1] == 1);
  CHECK(item_runs[2] == 1);  // unanswered: not run
  CHECK(item_runs[3] == 1);
  CHECK(item_runs[4] == 2);
  CHECK(side2_runs == 1);
  s = again.get_state(t);
  REQUIRE(s->interrupts.size() == 1);
  CHECK(s->interrupts[0].id == two_id);
  CHECK(s->interrupts[0].send == std::optional<std::size_t>{1});
  CHECK_FALSE(s->failed);
  CHECK_THROWS_AS(again.resume(t, sg::answers{{four_id, "again"}}), sg::interrupt_id_error);  // answered already

  Batch done = app.resume(t, sg::answers{{two_id, "no"}});
  CHECK(done.log == strings{"side", "side2", "item1:auto", "item2:no", "item3:auto", "item4:yes", "approved=3"});
  CHECK(done.approved == 3);
  CHECK(fan_runs == 1);
  CHECK(side_runs == 1);
  CHECK(side2_runs == 1);
  CHECK(item_runs[1] == 1);
  CHECK(item_runs[2] == 2);
  CHECK(item_runs[3] == 1);
  CHECK(item_runs[4] == 2);
  CHECK(collect_runs == 1);
  s = app.get_state(t);
  CHECK(s->interrupts.empty());
  CHECK(s->next.empty());
  CHECK(s->values.log == done.log);
  // One checkpoint per completed step: input, step 1, the send step, collect.
  CHECK(app.history(t).size() == 4);
}

TEST_CASE_TEMPLATE("several send tasks answered in one resume, and resume(value) with one pending", F, DURABLE_STORES_AND_EXECUTORS) {
  reset();
  F fx;
  auto app = sg::compile<batch_graph>(sg::with_store(fx.store), F::executor());
  const sg::thread_id t{"all"};
  app.invoke(input({2, 4}), t);
  auto s = app.get_state(t);
  REQUIRE(s->interrupts.size() == 2);
  Batch done = app.resume(t, sg::answers{{s->interrupts[1].id, "yes"}, {s->interrupts[0].id, "no"}});
  CHECK(done.log == strings{"side", "side2", "item2:no", "item4:yes", "approved=1"});
  CHECK(item_runs[2] == 2);
  CHECK(item_runs[4] == 2);

  const sg::thread_id u{"one"};
  app.invoke(input({1, 6}), u);
  REQUIRE(app.get_state(u)->interrupts.size() == 1);
  CHECK(app.get_state(u)->interrupts[0].id == "review_item[1]:0@2");
  Batch one = app.resume(u, std::string("yes"));
  CHECK(one.log == strings{"side", "side2", "item1:auto", "item6:yes", "approved=2"});
  CHECK(item_runs[1] == 1);
  CHECK(item_runs[6] == 2);
}

TEST_CASE_TEMPLATE("a send task that throws fails its step; its finished siblings are kept", F, DURABLE_STORES_AND_EXECUTORS) {
  reset();
  failures_left = 1;
  F fx;
  auto app = sg::compile<batch_graph>(sg::with_store(fx.store), F::executor());
  const sg::thread_id t{"fail"};
  CHECK_THROWS_WITH_AS(app.invoke(input({1, 3, 5}), t), doctest::Contains("item 3 failed"), sg::node_error);
  auto s = app.get_state(t);
  CHECK(s->failed);
  CHECK(s->interrupts.empty());
  REQUIRE(s->errors.size() == 1);  // the failed send task, with what it threw
  CHECK(s->errors[0].node == "review_item");
  CHECK(s->errors[0].send == std::optional<std::size_t>{1});
  CHECK(s->errors[0].message == "item 3 failed");
  CHECK(s->values.log == strings{"side"});
  Batch done = app.resume(t);
  CHECK(done.log == strings{"side", "side2", "item1:auto", "item3:auto", "item5:auto", "approved=3"});
  CHECK(item_runs[1] == 1);
  CHECK(item_runs[3] == 2);
  CHECK(item_runs[5] == 1);
  CHECK(side2_runs == 1);
}

TEST_CASE_TEMPLATE("a send task that throws beside one that pauses fails the step; the pause is asked again", F,
                   DURABLE_STORES_AND_EXECUTORS) {
  reset();
  failures_left = 1;
  F fx;
  auto app = sg::compile<batch_graph>(sg::with_store(fx.store), F::executor());
  const sg::thread_id t{"fail-and-pause"};
  CHECK_THROWS_AS(app.invoke(input({2, 3}), t), sg::node_error);
  CHECK(app.get_state(t)->failed);
  app.resume(t);  // item 3 now succeeds; item 2 asks again
  CHECK(item_runs[3] == 2);
  CHECK(item_runs[2] == 2);
  auto s = app.get_state(t);
  REQUIRE(s->interrupts.size() == 1);
  CHECK(s->interrupts[0].send == std::optional<std::size_t>{0});
  // The first run's failure stays on record; the step's last run paused, so it is not failed.
  CHECK_FALSE(s->failed);
  REQUIRE(s->errors.size() == 1);
  CHECK(s->errors[0].send == std::optional<std::size_t>{1});
  Batch done = app.resume(t, std::string("yes"));
  CHECK(done.log == strings{"side", "side2", "item2:yes", "item3:auto", "approved=2"});
  CHECK(item_runs[3] == 2);
  CHECK(item_runs[2] == 3);
}

// ---- a send task paused inside a subgraph ------------------------------------------------

// The same fan-out as a child graph of Batch's shape (without the side nodes).
using child_graph =
    sg::graph<Batch, sg::edge<sg::start, fan>, sg::edge<review_item, collect>, sg::edge<collect, sg::end>>;
struct batch {};
using batch_node = sg::subgraph<batch, child_graph>;
struct publish {
  using reads = sg::reads<&Batch::approved>;
  using writes = sg::writes<&Batch::log>;
  auto operator()(sg::view<Batch, reads> in) const {
    return sg::write<&Batch::log>("publish " + std::to_string(in.get<&Batch::approved>()));
  }
};
using parent_graph =
    sg::graph<Batch, sg::edge<sg::start, batch_node>, sg::edge<batch_node, publish>, sg::edge<publish, sg::end>>;

TEST_CASE_TEMPLATE("a send task paused inside a subgraph is answered by its id", F, DURABLE_STORES_AND_EXECUTORS) {
  reset();
  F fx;
  auto app = sg::compile<parent_graph>(sg::with_store(fx.store), F::executor());
  const sg::thread_id t{"nested"};
  Batch paused = app.invoke(input({1, 2, 4}), t);
  CHECK(paused.log.empty());
  auto s = app.get_state(t);
  CHECK(s->next == strings{"batch"});
  REQUIRE(s->interrupts.size() == 2);
  const auto& two = pending_for(s->interrupts, 1);
  CHECK(two.ns == "batch");
  CHECK(two.path() == "batch/review_item");
  CHECK(two.id == "batch/review_item[1]:0@2");  // the child's checkpoint 2: its input, fan
  const std::string two_id = two.id, four_id = pending_for(s->interrupts, 2).id;
  // The child's checkpoints, read by an app of the child graph.
  auto child = sg::compile<child_graph>(sg::with_store(fx.store));
  auto inside = child.get_state(sg::subgraph_thread(t, "batch"));
  REQUIRE(inside.has_value());
  CHECK(inside->next == strings{"review_item"});
  CHECK(inside->interrupts.size() == 2);

  app.resume(t, sg::answers{{two_id, "yes"}});
  CHECK(item_runs[1] == 1);
  CHECK(item_runs[2] == 2);
  CHECK(item_runs[4] == 1);
  s = app.get_state(t);
  REQUIRE(s->interrupts.size() == 1);
  CHECK(s->interrupts[0].id == four_id);

  Batch done = app.resume(t, sg::answers{{four_id, "no"}});
  CHECK(done.log == strings{"item1:auto", "item2:yes", "item4:no", "approved=2", "publish 2"});
  CHECK(item_runs[1] == 1);
  CHECK(item_runs[2] == 2);
  CHECK(item_runs[4] == 2);
  CHECK(fan_runs == 1);
  CHECK(collect_runs == 1);
  CHECK(app.get_state(t)->interrupts.empty());
}

TEST_CASE_TEMPLATE("bad pending writes of send tasks are refused and change nothing", F, DURABLE_FIXTURES) {
  reset();
  F fx;
  tampering_store<typename F::store_type> store(fx.store);
  auto app = sg::compile<batch_graph>(sg::with_store(store));
  const sg::thread_id t{"bad"};
  app.invoke(input({1, 2}), t);
  const auto id = app.get_state(t)->interrupts.at(0).id;
  CHECK(id == "review_item[1]:0@2");
  const auto before = fx.store.stats();
  auto rename = [&](std::string from, std::string to) {
    store.tamper_writes = [from, to](std::int64_t, std::vector<sg::pending_write>& writes) {
      for (auto& w : writes)
        if (w.task == from) w.task = to;
    };
  };

  SUBCASE("a send task past the step's queue") {
    rename("review_item[1]#interrupt", "review_item[7]#interrupt");
    CHECK_THROWS_WITH_AS(app.get_state(t), doctest::Contains("names send task 7 of a step that sends 2"),
                         sg::checkpoint_error);
    CHECK_THROWS_AS(app.resume(t, sg::answers{{id, "yes"}}), sg::checkpoint_error);
  }
  SUBCASE("a send task of a node that is sent nothing") {
    rename("review_item[0]#result", "side2[0]#result");
    CHECK_THROWS_WITH_AS(app.resume(t, sg::answers{{id, "yes"}}), doctest::Contains("names send task 0"),
                         sg::checkpoint_error);
  }
  SUBCASE("a kept send result that does not decode") {
    store.tamper_writes = [](std::int64_t, std::vector<sg::pending_write>& writes) {
      for (auto& w : writes)
        if (w.task == "review_item[0]#result") w.value = R"({"update": [1, 2]})";
    };
    // Decoded before any task runs (on the calling thread, on either executor).
    CHECK_THROWS_WITH_AS(app.resume(t), doctest::Contains("review_item[0]#result"), sg::checkpoint_error);
  }
  CHECK(fx.store.stats() == before);
  CHECK(item_runs[1] == 1);
  CHECK(item_runs[2] == 1);
  store.tamper_writes = nullptr;
  CHECK(app.resume(t, sg::answers{{id, "yes"}}).log == strings{"side", "side2", "item1:auto", "item2:yes", "approved=2"});
}

TEST_CASE("a send task's interrupt without a store fails the run with sg::error") {
  reset();
  auto app = sg::compile<batch_graph>();
  CHECK_THROWS_AS(app.invoke(input({2})), sg::error);
}

}  // namespace durable_send_interrupts
