// Interrupts anywhere, answered one by one: an interrupt two subgraphs deep pauses the
// whole run, with each subgraph checkpointed under its namespace; every pending interrupt
// has an id, and resume(thread, sg::answers{{id, value}, ...}) answers some or all of them;
// bad ids are refused with nothing changed. Every case runs on both stores and both
// executors.
#include "fixtures.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <string>
#include <vector>

using namespace durable_test;

namespace durable_answers {

struct Flow {
  sg::append<std::string> log;
  std::string verdict;
};

std::atomic<int> intake_runs{0}, draft_runs{0}, inspect_runs{0}, ask_runs{0}, polish_runs{0}, publish_runs{0},
    left_runs{0}, right_runs{0};
void reset_counts() {
  intake_runs = draft_runs = inspect_runs = ask_runs = polish_runs = publish_runs = left_runs = right_runs = 0;
}

// ---- three levels: flow -> review -> check ----------------------------------------------------

struct inspect {
  using writes = sg::writes<&Flow::log>;
  auto operator()(sg::view<Flow, sg::reads<>>) const {
    ++inspect_runs;
    return sg::write<&Flow::log>(std::string("inspect"));
  }
};
struct ask {
  using writes = sg::writes<&Flow::log, &Flow::verdict>;
  auto operator()(sg::view<Flow, sg::reads<>>) const {
    ++ask_runs;
    auto answer = sg::interrupt<std::string>("ok?");
    return sg::write<&Flow::log>("asked:" + answer) | sg::write<&Flow::verdict>(answer);
  }
};
using check_graph = sg::graph<Flow, sg::edge<sg::start, inspect>, sg::edge<inspect, ask>, sg::edge<ask, sg::end>>;
struct check {};
using check_node = sg::subgraph<check, check_graph>;

struct draft {
  using writes = sg::writes<&Flow::log>;
  auto operator()(sg::view<Flow, sg::reads<>>) const {
    ++draft_runs;
    return sg::write<&Flow::log>(std::string("draft"));
  }
};
struct polish {
  using reads = sg::reads<&Flow::verdict>;
  using writes = sg::writes<&Flow::log>;
  auto operator()(sg::view<Flow, reads> in) const {
    ++polish_runs;
    return sg::write<&Flow::log>("polish:" + in.get<&Flow::verdict>());
  }
};
using review_graph = sg::graph<Flow, sg::edge<sg::start, draft>, sg::edge<draft, check_node>,
                               sg::edge<check_node, polish>, sg::edge<polish, sg::end>>;
struct review {};
using review_node = sg::subgraph<review, review_graph>;

struct intake {
  using writes = sg::writes<&Flow::log>;
  auto operator()(sg::view<Flow, sg::reads<>>) const {
    ++intake_runs;
    return sg::write<&Flow::log>(std::string("intake"));
  }
};
struct publish {
  using writes = sg::writes<&Flow::log>;
  auto operator()(sg::view<Flow, sg::reads<>>) const {
    ++publish_runs;
    return sg::write<&Flow::log>(std::string("publish"));
  }
};
using flow_graph = sg::graph<Flow, sg::edge<sg::start, intake>, sg::edge<intake, review_node>,
                             sg::edge<review_node, publish>, sg::edge<publish, sg::end>>;

TEST_CASE_TEMPLATE("an interrupt two subgraphs deep pauses the run; resume continues inside the child", F,
                   DURABLE_STORES_AND_EXECUTORS) {
  reset_counts();
  F fx;
  auto app = sg::compile<flow_graph>(sg::with_store(fx.store), F::executor());
  const sg::thread_id t{"deep"};

  Flow paused = app.invoke(Flow{}, t);
  CHECK(paused.log == strings{"intake"});  // the review step did not complete
  auto s = app.get_state(t);
  REQUIRE(s.has_value());
  CHECK(s->next == strings{"review"});
  CHECK_FALSE(s->failed);
  REQUIRE(s->interrupts.size() == 1);
  const auto& in = s->interrupts[0];
  CHECK(in.node == "ask");
  CHECK(in.ns == "review/check");
  CHECK(in.path() == "review/check/ask");
  CHECK(in.index == 0);
  CHECK(nlohmann::json::parse(in.payload) == "ok?");
  CHECK(in.id == "review/check/ask:0@2");  // the child's checkpoint 2: its input, inspect

  // Each subgraph's checkpoints, under its namespace, read by an app of the child graph.
  auto review_app = sg::compile<review_graph>(sg::with_store(fx.store));
  auto review_state = review_app.get_state(sg::subgraph_thread(t, "review"));
  REQUIRE(review_state.has_value());
  CHECK(review_state->values.log == strings{"intake", "draft"});
  CHECK(review_state->next == strings{"check"});
  auto check_app = sg::compile<check_graph>(sg::with_store(fx.store));
  auto check_state = check_app.get_state(sg::subgraph_thread(t, "review/check"));
  REQUIRE(check_state.has_value());
  CHECK(check_state->values.log == strings{"intake", "draft", "inspect"});
  CHECK(check_state->next == strings{"ask"});
  REQUIRE(check_state->interrupts.size() == 1);
  CHECK(check_state->interrupts[0].path() == "ask");  // seen from the child itself

  Flow done = app.resume(t, sg::answers{{in.id, "yes"}});
  CHECK(done.log == strings{"intake", "draft", "inspect", "asked:yes", "polish:yes", "publish"});
  CHECK(done.verdict == "yes");
  // Only the interrupted node ran again.
  CHECK(intake_runs == 1);
  CHECK(draft_runs == 1);
  CHECK(inspect_runs == 1);
  CHECK(ask_runs == 2);
  CHECK(polish_runs == 1);
  CHECK(publish_runs == 1);
  auto after = app.get_state(t);
  CHECK(after->interrupts.empty());
  CHECK(after->next.empty());
  CHECK(after->values.log == done.log);
  CHECK(check_app.get_state(sg::subgraph_thread(t, "review/check"))->next.empty());

  // The next run of the subgraph starts anew: its thread's history goes on.
  app.invoke(Flow{}, t);
  auto again = app.get_state(t);
  REQUIRE(again->interrupts.size() == 1);
  CHECK(again->interrupts[0].id != in.id);
  CHECK(check_app.get_state(sg::subgraph_thread(t, "review/check"))->values.log ==
        strings{"intake", "draft", "inspect", "asked:yes", "polish:yes", "publish", "intake", "draft", "inspect"});
  CHECK(check_app.history(sg::subgraph_thread(t, "review/check")).size() == 5);
}

TEST_CASE_TEMPLATE("resume(value) answers the one pending interrupt, in a subgraph too", F, DURABLE_STORES_AND_EXECUTORS) {
  reset_counts();
  F fx;
  auto app = sg::compile<flow_graph>(sg::with_store(fx.store), F::executor());
  const sg::thread_id t{"value"};
  app.invoke(Flow{}, t);
  Flow done = app.resume(t, std::string("fine"));
  CHECK(done.log == strings{"intake", "draft", "inspect", "asked:fine", "polish:fine", "publish"});
  CHECK(ask_runs == 2);
  CHECK(inspect_runs == 1);
}

TEST_CASE_TEMPLATE("static interrupts before and after a subgraph node", F, DURABLE_STORES_AND_EXECUTORS) {
  reset_counts();
  F fx;
  auto before = sg::compile<flow_graph>(sg::with_store(fx.store), F::executor(), sg::interrupt_before<review_node>{});
  const sg::thread_id t{"static-before"};
  Flow paused = before.invoke(Flow{}, t);
  CHECK(paused.log == strings{"intake"});
  CHECK(before.get_state(t)->next == strings{"review"});
  CHECK(before.get_state(t)->interrupts.empty());
  CHECK(draft_runs == 0);
  before.resume(t);  // runs review, which pauses inside
  CHECK(draft_runs == 1);
  REQUIRE(before.get_state(t)->interrupts.size() == 1);
  Flow done = before.resume(t, std::string("ok"));
  CHECK(done.log == strings{"intake", "draft", "inspect", "asked:ok", "polish:ok", "publish"});

  auto after = sg::compile<flow_graph>(sg::with_store(fx.store), F::executor(), sg::interrupt_after<review_node>{});
  const sg::thread_id u{"static-after"};
  after.invoke(Flow{}, u);
  REQUIRE(after.get_state(u)->interrupts.size() == 1);
  Flow stopped = after.resume(u, std::string("ok"));
  CHECK(stopped.log == strings{"intake", "draft", "inspect", "asked:ok", "polish:ok"});
  CHECK(after.get_state(u)->next == strings{"publish"});
  CHECK(after.resume(u).log.back() == "publish");
}

// ---- two parallel branches that both ask ------------------------------------------------------

struct Pair {
  sg::append<std::string> log;
};
struct left {
  using writes = sg::writes<&Pair::log>;
  auto operator()(sg::view<Pair, sg::reads<>>) const {
    ++left_runs;
    return sg::write<&Pair::log>("left:" + sg::interrupt<std::string>("left?"));
  }
};
struct right {
  using writes = sg::writes<&Pair::log>;
  auto operator()(sg::view<Pair, sg::reads<>>) const {
    ++right_runs;
    return sg::write<&Pair::log>("right:" + sg::interrupt<std::string>("right?"));
  }
};
struct joined {
  using writes = sg::writes<&Pair::log>;
  auto operator()(sg::view<Pair, sg::reads<>>) const { return sg::write<&Pair::log>(std::string("joined")); }
};
using pair_graph = sg::graph<Pair, sg::edge<sg::start, left>, sg::edge<sg::start, right>,
                             sg::join<joined, left, right>, sg::edge<joined, sg::end>>;
// The same pair inside a subgraph.
struct branches {};
using branches_node = sg::subgraph<branches, pair_graph>;
using outer_pair_graph = sg::graph<Pair, sg::edge<sg::start, branches_node>, sg::edge<branches_node, sg::end>>;

std::string id_of(const std::vector<sg::interrupt_info>& pending, std::string_view path) {
  for (const auto& in : pending)
    if (in.path() == path) return in.id;
  FAIL("no pending interrupt at " << path);
  return {};
}

template <class App>
void answer_one_by_one(App& app, const sg::thread_id& t, const std::string& prefix) {
  app.invoke(Pair{}, t);
  CHECK(left_runs == 1);
  CHECK(right_runs == 1);
  auto s = app.get_state(t);
  REQUIRE(s->interrupts.size() == 2);
  const std::string left_id = id_of(s->interrupts, prefix + "left");
  const std::string right_id = id_of(s->interrupts, prefix + "right");
  CHECK(left_id != right_id);

  // One answer: left runs again and finishes, right stays paused with the same id.
  Pair half = app.resume(t, sg::answers{{left_id, "L"}});
  CHECK(half.log.empty());  // the step has not completed
  CHECK(left_runs == 2);
  CHECK(right_runs == 1);
  s = app.get_state(t);
  REQUIRE(s->interrupts.size() == 1);
  CHECK(s->interrupts[0].id == right_id);
  CHECK(nlohmann::json::parse(s->interrupts[0].payload) == "right?");

  Pair done = app.resume(t, sg::answers{{right_id, "R"}});
  CHECK(left_runs == 2);  // its finished write was kept
  CHECK(right_runs == 2);
  CHECK(done.log == strings{"left:L", "right:R", "joined"});
  CHECK(app.get_state(t)->interrupts.empty());
  CHECK(app.get_state(t)->next.empty());
}

TEST_CASE_TEMPLATE("two parallel branches paused at once, answered one by one", F, DURABLE_STORES_AND_EXECUTORS) {
  reset_counts();
  F fx;
  auto app = sg::compile<pair_graph>(sg::with_store(fx.store), F::executor());
  answer_one_by_one(app, sg::thread_id{"pair"}, "");
}

TEST_CASE_TEMPLATE("two parallel branches inside a subgraph, answered one by one", F, DURABLE_STORES_AND_EXECUTORS) {
  reset_counts();
  F fx;
  auto app = sg::compile<outer_pair_graph>(sg::with_store(fx.store), F::executor());
  answer_one_by_one(app, sg::thread_id{"inner-pair"}, "branches/");
}

TEST_CASE_TEMPLATE("both answered in one resume", F, DURABLE_STORES_AND_EXECUTORS) {
  reset_counts();
  F fx;
  auto app = sg::compile<pair_graph>(sg::with_store(fx.store), F::executor());
  const sg::thread_id t{"both"};
  app.invoke(Pair{}, t);
  auto s = app.get_state(t);
  REQUIRE(s->interrupts.size() == 2);
  Pair done = app.resume(t, sg::answers{{s->interrupts[1].id, "R"}, {s->interrupts[0].id, "L"}});
  CHECK(done.log == strings{"left:L", "right:R", "joined"});
  CHECK(left_runs == 2);
  CHECK(right_runs == 2);
}

// ---- bad answers ----------------------------------------------------------------------------

// What a thread's store holds: its checkpoints and pending writes, the subgraphs' included.
template <class Fx>
struct store_picture {
  sg::store_stats stats;
  std::vector<std::int64_t> ids;
  std::vector<std::string> pending;
  friend bool operator==(const store_picture&, const store_picture&) = default;
};
template <class Fx, class App>
store_picture<Fx> picture(Fx& fx, App& app, const sg::thread_id& t) {
  store_picture<Fx> p{fx.store.stats(), {}, {}};
  for (const auto& snap : app.history(t)) p.ids.push_back(snap.checkpoint_id);
  const auto now = app.get_state(t);
  for (const auto& in : now->interrupts) p.pending.push_back(in.id);
  return p;
}

TEST_CASE_TEMPLATE("answers naming no pending interrupt are refused and change nothing", F, DURABLE_STORES_AND_EXECUTORS) {
  reset_counts();
  F fx;
  auto app = sg::compile<pair_graph>(sg::with_store(fx.store), F::executor());
  const sg::thread_id t{"bad"};
  app.invoke(Pair{}, t);
  auto s = app.get_state(t);
  REQUIRE(s->interrupts.size() == 2);
  const std::string left_id = s->interrupts[0].id, right_id = s->interrupts[1].id;
  const auto before = picture(fx, app, t);

  CHECK_THROWS_WITH_AS(app.resume(t, sg::answers{{"nope", "x"}}), doctest::Contains("no pending interrupt 'nope'"),
                       sg::interrupt_id_error);
  // A good id with a bad one: refused whole, the good one is not written.
  CHECK_THROWS_AS(app.resume(t, sg::answers{{left_id, "x"}, {"nope", "x"}}), sg::interrupt_id_error);
  CHECK_THROWS_WITH_AS(app.resume(t, sg::answers{{left_id, "x"}, {left_id, "y"}}),
                       doctest::Contains("answered twice"), sg::interrupt_id_error);
  CHECK_THROWS_AS(app.resume(t, sg::answers{}), sg::checkpoint_error);
  // One value for two pending interrupts: which one it answers is unclear.
  CHECK_THROWS_WITH_AS(app.resume(t, std::string("x")), doctest::Contains("sg::answers"), sg::ambiguous_resume_error);
  CHECK(picture(fx, app, t) == before);
  CHECK(left_runs == 1);
  CHECK(right_runs == 1);
  try {
    app.resume(t, sg::answers{{"nope", "x"}});
  } catch (const sg::interrupt_id_error& e) {
    CHECK(e.id() == "nope");
    CHECK(std::string(e.what()).find(left_id) != std::string::npos);  // the message lists what is pending
  }

  // An id already answered is no longer pending.
  app.resume(t, sg::answers{{left_id, "L"}});
  const auto half = picture(fx, app, t);
  CHECK_THROWS_WITH_AS(app.resume(t, sg::answers{{left_id, "again"}}), doctest::Contains("already answered"),
                       sg::interrupt_id_error);
  CHECK(picture(fx, app, t) == half);
  CHECK(left_runs == 2);
  app.resume(t, sg::answers{{right_id, "R"}});
  CHECK_THROWS_AS(app.resume(t, sg::answers{{right_id, "R"}}), sg::interrupt_id_error);
  CHECK(app.get_state(t)->values.log == strings{"left:L", "right:R", "joined"});
}

TEST_CASE_TEMPLATE("a bad id for an interrupt inside a subgraph changes nothing either", F, DURABLE_STORES_AND_EXECUTORS) {
  reset_counts();
  F fx;
  auto app = sg::compile<flow_graph>(sg::with_store(fx.store), F::executor());
  const sg::thread_id t{"bad-deep"};
  app.invoke(Flow{}, t);
  const auto id = app.get_state(t)->interrupts.at(0).id;
  const auto before = picture(fx, app, t);
  CHECK_THROWS_AS(app.resume(t, sg::answers{{"review/check/ask:0@1", "x"}}), sg::interrupt_id_error);
  const auto after = picture(fx, app, t);
  CHECK(after.stats == before.stats);
  CHECK(after.ids == before.ids);
  CHECK(after.pending == before.pending);
  CHECK(after.stats.checkpoints == before.stats.checkpoints);
  CHECK(after.stats.pending_writes == before.stats.pending_writes);
  CHECK(ask_runs == 1);
  app.resume(t, sg::answers{{id, "yes"}});
  CHECK_THROWS_AS(app.resume(t, sg::answers{{id, "yes"}}), sg::interrupt_id_error);
}

}  // namespace durable_answers
