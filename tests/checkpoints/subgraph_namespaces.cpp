// A graph with seams whose subgraphs' nodes use them: the run's context reaches the nodes
// of its subgraphs on a checkpointed thread, also when a paused subgraph is resumed; and a
// subgraph's checkpoints are reached by namespace (sg::checkpoint_ns): read, edited with
// update_state, and time-travelled to from a parent checkpoint. Both stores, both executors.
#include "fixtures.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <string>
#include <vector>

using namespace durable_test;

namespace durable_subgraph_ns {

struct Doc {
  std::string topic;
  std::string text;
  sg::append<std::string> log;
  std::string verdict;
};

struct reasoning {
  virtual ~reasoning() = default;
  virtual std::string think(const std::string& about) = 0;
};
struct prefixed_model : reasoning {
  std::string prefix;
  std::atomic<int> calls{0};
  explicit prefixed_model(std::string p) : prefix(std::move(p)) {}
  std::string think(const std::string& about) override {
    ++calls;
    return prefix + about;
  }
};
struct agent_ctx : sg::run_context {
  prefixed_model model;
  explicit agent_ctx(std::string prefix) : model(std::move(prefix)) {}
  template <class Seam>
  Seam& provide() {
    return model;
  }
};

std::atomic<int> draft_runs{0}, inspect_runs{0}, ask_runs{0};

// flow: plan -> review -> publish; review: draft -> check -> ask -> polish; check: inspect.
struct inspect {
  using seam = reasoning;
  using reads = sg::reads<&Doc::text>;
  using writes = sg::writes<&Doc::log>;
  auto operator()(sg::view<Doc, reads> in, agent_ctx& ctx) const {
    ++inspect_runs;
    return sg::write<&Doc::log>("inspect " + sg::seam<reasoning>(ctx).think(in.get<&Doc::text>()));
  }
};
using check_graph = sg::graph<Doc, sg::edge<sg::start, inspect>, sg::edge<inspect, sg::end>>;
struct check {};
using check_node = sg::subgraph<check, check_graph>;

struct draft {
  using seam = reasoning;
  using reads = sg::reads<&Doc::topic>;
  using writes = sg::writes<&Doc::text, &Doc::log>;
  auto operator()(sg::view<Doc, reads> in, agent_ctx& ctx) const {
    ++draft_runs;
    return sg::write<&Doc::text>(sg::seam<reasoning>(ctx).think(in.get<&Doc::topic>())) |
           sg::write<&Doc::log>(std::string("draft"));
  }
};
struct ask {
  using seam = reasoning;
  using writes = sg::writes<&Doc::log, &Doc::verdict>;
  auto operator()(sg::view<Doc, sg::reads<>>, agent_ctx& ctx) const {
    ++ask_runs;
    auto answer = ctx.interrupt<std::string>("publish?");
    return sg::write<&Doc::log>("asked:" + sg::seam<reasoning>(ctx).think(answer)) | sg::write<&Doc::verdict>(answer);
  }
};
struct polish {
  using reads = sg::reads<&Doc::text, &Doc::verdict>;
  using writes = sg::writes<&Doc::log>;
  auto operator()(sg::view<Doc, reads> in) const {
    return sg::write<&Doc::log>("polish " + in.get<&Doc::text>() + " " + in.get<&Doc::verdict>());
  }
};
using review_graph = sg::graph<Doc, sg::edge<sg::start, draft>, sg::edge<draft, check_node>, sg::edge<check_node, ask>,
                               sg::edge<ask, polish>, sg::edge<polish, sg::end>>;
struct review {};
using review_node = sg::subgraph<review, review_graph>;

struct plan {
  using seam = reasoning;
  using reads = sg::reads<&Doc::topic>;
  using writes = sg::writes<&Doc::log>;
  auto operator()(sg::view<Doc, reads> in, agent_ctx& ctx) const {
    return sg::write<&Doc::log>("plan " + sg::seam<reasoning>(ctx).think(in.get<&Doc::topic>()));
  }
};
struct publish {
  using writes = sg::writes<&Doc::log>;
  auto operator()(sg::view<Doc, sg::reads<>>) const { return sg::write<&Doc::log>(std::string("publish")); }
};
using flow = sg::graph<Doc, sg::edge<sg::start, plan>, sg::edge<plan, review_node>, sg::edge<review_node, publish>,
                       sg::edge<publish, sg::end>>;

constexpr auto in_review = sg::checkpoint_ns<review_node>;
constexpr auto in_check = sg::checkpoint_ns<review_node, check_node>;

void reset() { draft_runs = inspect_runs = ask_runs = 0; }

// Runs to the pause inside review/ask with context A; returns the parent's checkpoint there.
template <class App>
std::int64_t pause_in_review(App& app, const sg::thread_id& t, agent_ctx& a) {
  Doc paused = app.invoke(Doc{.topic = "owls"}, t, a);
  CHECK(paused.log.value() == strings{"plan A:owls"});  // review has not finished
  auto top = app.get_state(t);
  REQUIRE(top.has_value());
  REQUIRE(top->interrupts.size() == 1);
  CHECK(top->interrupts[0].path() == "review/ask");
  CHECK(top->next == strings{"review"});
  CHECK(a.model.calls == 3);  // plan, draft, inspect: ask paused before its call
  return top->checkpoint_id;
}

TEST_CASE_TEMPLATE("the run's context reaches the nodes of its subgraphs, paused and resumed", F, DURABLE_STORES_AND_EXECUTORS) {
  F fx;
  reset();
  auto app = sg::compile<flow>(sg::with_store(fx.store), F::executor());
  const sg::thread_id t{"ctx"};
  agent_ctx a("A:");
  pause_in_review(app, t, a);
  CHECK(draft_runs == 1);
  CHECK(inspect_runs == 1);

  // Resumed with another context: the answered node inside the subgraph uses B's seam.
  agent_ctx b("B:");
  auto id = app.get_state(t)->interrupts[0].id;
  Doc done = app.resume(t, sg::answers{{id, "yes"}}, b);
  CHECK(done.log.value() ==
        strings{"plan A:owls", "draft", "inspect A:A:owls", "asked:B:yes", "polish A:owls yes", "publish"});
  CHECK(done.text == "A:owls");
  CHECK(done.verdict == "yes");
  CHECK(b.model.calls == 1);
  CHECK(draft_runs == 1);  // the finished nodes of the child did not run again
  CHECK(ask_runs == 2);
}

TEST_CASE_TEMPLATE("a subgraph's checkpoints are read by namespace", F, DURABLE_STORES_AND_EXECUTORS) {
  F fx;
  reset();
  auto app = sg::compile<flow>(sg::with_store(fx.store), F::executor());
  const sg::thread_id t{"read"};
  CHECK_FALSE(app.get_state(t, in_review).has_value());  // never ran
  agent_ctx a("A:");
  pause_in_review(app, t, a);

  // The paused child: its state, what runs next, its interrupt, as the child's state type.
  auto child = app.get_state(t, in_review);
  REQUIRE(child.has_value());
  CHECK(child->values.text == "A:owls");
  CHECK(child->values.log.value() == strings{"plan A:owls", "draft", "inspect A:A:owls"});
  CHECK(child->next == strings{"ask"});
  REQUIRE(child->interrupts.size() == 1);
  CHECK(child->interrupts[0].id == app.get_state(t)->interrupts[0].id);
  CHECK(child->interrupts[0].ns == "review");

  // The parent's snapshot lists the paused subgraph and the checkpoint it continues from.
  auto top = app.get_state(t);
  REQUIRE(top->subgraphs.size() == 1);
  CHECK(top->subgraphs[0] == sg::subgraph_checkpoint{"review", child->checkpoint_id});

  // Two levels down: check ran to its end inside review.
  auto grandchild = app.get_state(t, in_check);
  REQUIRE(grandchild.has_value());
  CHECK(grandchild->next.empty());
  CHECK(grandchild->values.log.value() == strings{"plan A:owls", "draft", "inspect A:A:owls"});

  // History of the child's own thread, newest first; each read back by id.
  auto h = app.history(t, in_review);
  REQUIRE(h.size() == 3);  // the input, after draft, after check
  CHECK(h[0].checkpoint_id == child->checkpoint_id);
  CHECK(h[2].source == sg::checkpoint_source::input);
  CHECK(h[1].values.log.value() == strings{"plan A:owls", "draft"});
  CHECK(app.get_state(t, in_review, sg::checkpoint_id{h[1].checkpoint_id}).values.text == "A:owls");
  CHECK(app.history(t, in_review, {.limit = 1}).size() == 1);
  CHECK_THROWS_AS(app.get_state(t, in_review, sg::checkpoint_id{999}), sg::checkpoint_error);

  // The same through an app of the child graph on the subgraph's thread.
  auto child_app = sg::compile<review_graph>(sg::with_store(fx.store));
  CHECK(child_app.get_state(sg::subgraph_thread(t, "review"))->checkpoint_id == child->checkpoint_id);
}

TEST_CASE_TEMPLATE("update_state in a paused subgraph changes what the child sees when resumed", F, DURABLE_STORES_AND_EXECUTORS) {
  F fx;
  reset();
  auto app = sg::compile<flow>(sg::with_store(fx.store), F::executor());
  const sg::thread_id t{"edit"};
  agent_ctx a("A:");
  const auto paused_at = pause_in_review(app, t, a);

  // As if draft had written "edited": check runs again, then ask.
  const auto id = app.update_state(t, in_review, sg::write<&Doc::text>(std::string("edited")), sg::as_node<draft>);
  auto child = app.get_state(t, in_review);
  REQUIRE(child.has_value());
  CHECK(child->checkpoint_id == id);
  CHECK(child->source == sg::checkpoint_source::update);
  CHECK(child->values.text == "edited");
  CHECK(child->next == strings{"check"});
  CHECK(child->interrupts.empty());
  auto top = app.get_state(t);
  CHECK(top->checkpoint_id == paused_at);  // the parent's checkpoint is the same; its record names the new one
  CHECK(top->interrupts.empty());
  CHECK(top->subgraphs == std::vector<sg::subgraph_checkpoint>{{"review", id}});
  CHECK(top->next == strings{"review"});

  agent_ctx b("B:");
  app.resume(t, b);  // the child continues from the edit: check sees "edited", ask pauses again
  CHECK(inspect_runs == 2);
  CHECK(draft_runs == 1);
  REQUIRE(app.get_state(t)->interrupts.size() == 1);
  Doc done = app.resume(t, std::string("ok"), b);
  CHECK(done.text == "edited");
  CHECK(done.log.value() ==
        strings{"plan A:owls", "draft", "inspect A:A:owls", "inspect B:edited", "asked:B:ok", "polish edited ok", "publish"});

  // Over: no record at the head, so an update goes to the child's latest and the parent is unmoved.
  CHECK(app.get_state(t)->subgraphs.empty());
  const auto head = app.get_state(t)->checkpoint_id;
  app.update_state(t, in_review, sg::write<&Doc::verdict>(std::string("late")), sg::as_node<ask>);
  CHECK(app.get_state(t, in_review)->values.verdict == "late");
  CHECK(app.get_state(t)->checkpoint_id == head);
}

TEST_CASE_TEMPLATE("a fork from a parent checkpoint taken while the child was paused resumes the child as it was", F,
                   DURABLE_STORES_AND_EXECUTORS) {
  F fx;
  reset();
  auto app = sg::compile<flow>(sg::with_store(fx.store), F::executor());
  const sg::thread_id t{"travel"};
  agent_ctx a("A:");
  const auto paused_at = pause_in_review(app, t, a);
  const auto child_then = app.get_state(t, in_review)->checkpoint_id;
  Doc first = app.resume(t, std::string("yes"), a);
  CHECK(first.verdict == "yes");
  CHECK(app.get_state(t, in_review)->next.empty());  // the child's run is over

  // Time travel to the pause: the child continues from its checkpoint of then (draft and
  // check do not run again) and asks again, on a new branch of its history.
  agent_ctx c("C:");
  Doc again = app.resume(t, sg::checkpoint_id{paused_at}, c);
  CHECK(again.log.value() == strings{"plan A:owls"});
  CHECK(draft_runs == 1);
  CHECK(inspect_runs == 1);
  auto top = app.get_state(t);
  CHECK(top->source == sg::checkpoint_source::fork);
  CHECK(top->parent_id == paused_at);
  REQUIRE(top->interrupts.size() == 1);
  auto child = app.get_state(t, in_review);
  REQUIRE(child.has_value());
  CHECK(child->source == sg::checkpoint_source::fork);
  CHECK(child->parent_id == child_then);
  CHECK(child->values.log.value() == strings{"plan A:owls", "draft", "inspect A:A:owls"});
  CHECK(child->next == strings{"ask"});

  Doc second = app.resume(t, sg::answers{{top->interrupts[0].id, "no"}}, c);
  CHECK(second.verdict == "no");
  CHECK(second.log.value() ==
        strings{"plan A:owls", "draft", "inspect A:A:owls", "asked:C:no", "polish A:owls no", "publish"});
  CHECK(draft_runs == 1);
  // The first branch is as it was.
  CHECK(app.get_state(t, in_review, sg::checkpoint_id{child_then}).values.verdict.empty());
}

// Two nodes that ask at once inside a subgraph: answered one by one, then travelled back to.
struct left_ask {
  using writes = sg::writes<&Doc::log>;
  auto operator()(sg::view<Doc, sg::reads<>>, agent_ctx& ctx) const {
    return sg::write<&Doc::log>("left:" + ctx.interrupt<std::string>("left?"));
  }
};
struct right_ask {
  using writes = sg::writes<&Doc::log>;
  auto operator()(sg::view<Doc, sg::reads<>>, agent_ctx& ctx) const {
    return sg::write<&Doc::log>("right:" + ctx.interrupt<std::string>("right?"));
  }
};
using pair_graph = sg::graph<Doc, sg::edge<sg::start, left_ask>, sg::edge<sg::start, right_ask>,
                             sg::edge<left_ask, sg::end>, sg::edge<right_ask, sg::end>>;
struct pair {};
using pair_node = sg::subgraph<pair, pair_graph>;
using pair_flow = sg::graph<Doc, sg::edge<sg::start, pair_node>, sg::edge<pair_node, sg::end>>;

TEST_CASE_TEMPLATE("travelling back to a pause asks again what was answered after it", F, DURABLE_STORES_AND_EXECUTORS) {
  F fx;
  auto app = sg::compile<pair_flow>(sg::with_store(fx.store), F::executor());
  const sg::thread_id t{"pair"};
  agent_ctx a("A:");
  app.invoke(Doc{}, t, a);
  const auto pause = app.get_state(t);
  REQUIRE(pause->interrupts.size() == 2);
  app.resume(t, sg::answers{{pause->interrupts[0].id, "1"}}, a);  // left answered, right still asks
  REQUIRE(app.get_state(t)->interrupts.size() == 1);
  CHECK(app.resume(t, sg::answers{{pause->interrupts[1].id, "2"}}, a).log.value() == strings{"left:1", "right:2"});

  // Back to the first pause: both ask again (the later answer and left's kept result are not
  // part of that checkpoint), and other answers make another branch.
  app.resume(t, sg::checkpoint_id{pause->checkpoint_id}, a);
  const auto again = app.get_state(t);
  REQUIRE(again->interrupts.size() == 2);
  CHECK(again->interrupts[0].path() == "pair/left_ask");
  CHECK(again->interrupts[1].path() == "pair/right_ask");
  Doc other = app.resume(t, sg::answers{{again->interrupts[0].id, "x"}, {again->interrupts[1].id, "y"}}, a);
  CHECK(other.log.value() == strings{"left:x", "right:y"});
}

}  // namespace durable_subgraph_ns
