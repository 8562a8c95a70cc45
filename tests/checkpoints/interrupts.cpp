// Interrupts: static ones pause before or after named nodes; a dynamic one pauses the node
// that calls sg::interrupt, persists its payload, and on resume(thread, value) runs the
// node again from the top with interrupt returning the value. Subgraphs, parallel
// branches and answers by id: interrupt_answers.cpp.
#include "fixtures.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <string>
#include <vector>

using namespace durable_test;

namespace durable_interrupts {

// ---- static interrupts -------------------------------------------------------------------

TEST_CASE_TEMPLATE("interrupt_before pauses before each run of the node; resume continues", F, DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<chat_graph>(sg::with_store(fx.store), sg::interrupt_before<tools>{});
  const sg::thread_id t{"before"};

  Chat paused = app.invoke(Chat{.messages = {Msg{"user", "hi"}}}, t);
  CHECK(contents(paused.messages) == strings{"user:hi", "ai:call tool"});
  auto s = app.get_state(t);
  REQUIRE(s.has_value());
  CHECK(s->next == strings{"tools"});
  CHECK(s->checkpoint_id == 2);
  CHECK(s->interrupts.empty());

  Chat second = app.resume(t);
  CHECK(contents(second.messages) == strings{"user:hi", "ai:call tool", "tool:42", "ai:call tool"});
  CHECK(app.get_state(t)->next == strings{"tools"});

  Chat done = app.resume(t);
  CHECK(contents(done.messages) == strings{"user:hi", "ai:call tool", "tool:42", "ai:call tool", "tool:42", "ai:done"});
  CHECK(done.calls == 3);
  CHECK(app.get_state(t)->next.empty());
  CHECK(app.get_state(t)->checkpoint_id == 6);  // the pauses added no checkpoints
}

TEST_CASE_TEMPLATE("interrupt_after pauses once the node ran; resume continues", F, DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<chat_graph>(sg::with_store(fx.store), sg::interrupt_after<agent>{});
  const sg::thread_id t{"after"};

  Chat paused = app.invoke(Chat{.messages = {Msg{"user", "hi"}}}, t);
  CHECK(contents(paused.messages) == strings{"user:hi", "ai:call tool"});
  CHECK(app.get_state(t)->next == strings{"tools"});
  app.resume(t);
  CHECK(app.get_state(t)->values.messages.size() == 4);
  Chat done = app.resume(t);
  // The last agent run ends the run: nothing is left to pause before.
  CHECK(done.messages.size() == 6);
  CHECK(done.messages.back() == Msg{"ai", "done"});
  CHECK(app.get_state(t)->next.empty());
}

// ---- dynamic interrupts ------------------------------------------------------------------

struct Ask {
  sg::append<std::string> log;
  std::string answer;
  int number = 0;
};

std::atomic<int> approve_runs{0}, twice_runs{0}, side_runs{0}, finish_runs{0};

struct prepare {
  using reads = sg::reads<>;
  using writes = sg::writes<&Ask::log>;
  auto operator()(sg::view<Ask, reads>) const { return sg::write<&Ask::log>(std::string("prepared")); }
};
struct approve {
  using reads = sg::reads<&Ask::log>;
  using writes = sg::writes<&Ask::log, &Ask::answer>;
  auto operator()(sg::view<Ask, reads>, sg::run_context& ctx) const {
    ++approve_runs;
    auto yes = ctx.interrupt<std::string>("approve?");
    return sg::write<&Ask::log>("approved:" + yes) | sg::write<&Ask::answer>(yes);
  }
};
// Two pauses in one node: the first answer is kept while the second is asked.
struct twice {
  using reads = sg::reads<>;
  using writes = sg::writes<&Ask::log, &Ask::number>;
  auto operator()(sg::view<Ask, reads>) const {
    ++twice_runs;
    auto name = sg::interrupt<std::string>("name?");
    auto n = sg::interrupt<int>(nlohmann::json{{"ask", "number"}, {"max", 9}});
    return sg::write<&Ask::log>("twice:" + name + ":" + std::to_string(n)) | sg::write<&Ask::number>(n);
  }
};
// Runs beside approve in the same step, and must not run again when approve resumes.
struct side {
  using reads = sg::reads<>;
  using writes = sg::writes<&Ask::log>;
  auto operator()(sg::view<Ask, reads>) const {
    ++side_runs;
    return sg::write<&Ask::log>(std::string("side"));
  }
};
struct finish {
  using reads = sg::reads<&Ask::answer>;
  using writes = sg::writes<&Ask::log>;
  auto operator()(sg::view<Ask, reads> in) const {
    ++finish_runs;
    return sg::write<&Ask::log>("finished:" + in.get<&Ask::answer>());
  }
};

void reset_counts() {
  approve_runs = twice_runs = side_runs = finish_runs = 0;
}

using approve_graph = sg::graph<Ask, sg::edge<sg::start, prepare>, sg::edge<prepare, approve>,
                                sg::edge<approve, finish>, sg::edge<finish, sg::end>>;

TEST_CASE_TEMPLATE("a dynamic interrupt pauses and persists; resume(value) reruns the node", F, DURABLE_FIXTURES) {
  reset_counts();
  F fx;
  auto app = sg::compile<approve_graph>(sg::with_store(fx.store));
  const sg::thread_id t{"ask"};

  Ask paused = app.invoke(Ask{}, t);
  CHECK(paused.log == strings{"prepared"});
  CHECK(approve_runs == 1);
  auto s = app.get_state(t);
  REQUIRE(s.has_value());
  CHECK(s->next == strings{"approve"});
  CHECK(s->checkpoint_id == 2);  // input, prepare; the paused step made none
  REQUIRE(s->interrupts.size() == 1);
  CHECK(s->interrupts[0].node == "approve");
  CHECK(s->interrupts[0].index == 0);
  CHECK(nlohmann::json::parse(s->interrupts[0].payload) == "approve?");
  CHECK_FALSE(s->failed);

  Ask done = app.resume(t, std::string("yes"));
  CHECK(done.log == strings{"prepared", "approved:yes", "finished:yes"});
  CHECK(done.answer == "yes");
  CHECK(approve_runs == 2);  // again from the top
  CHECK(finish_runs == 1);
  auto after = app.get_state(t);
  CHECK(after->interrupts.empty());
  CHECK(after->next.empty());
  CHECK(after->values.log == done.log);
}

TEST_CASE_TEMPLATE("the pause survives the process: a new app and store handle resume it", F, DURABLE_FIXTURES) {
  reset_counts();
  if constexpr (std::is_same_v<F, sqlite_fixture>) {
    F fx;
    {
      auto app = sg::compile<approve_graph>(sg::with_store(fx.store));
      app.invoke(Ask{}, sg::thread_id{"later"});
    }
    sg::sqlite_store reopened(fx.file.path());
    auto app = sg::compile<approve_graph>(sg::with_store(reopened));
    REQUIRE(app.get_state(sg::thread_id{"later"})->interrupts.size() == 1);
    Ask done = app.resume(sg::thread_id{"later"}, std::string("ok"));
    CHECK(done.log == strings{"prepared", "approved:ok", "finished:ok"});
  }
}

TEST_CASE_TEMPLATE("a node with two interrupt calls needs two resumes", F, DURABLE_FIXTURES) {
  reset_counts();
  F fx;
  using G = sg::graph<Ask, sg::edge<sg::start, twice>, sg::edge<twice, sg::end>>;
  auto app = sg::compile<G>(sg::with_store(fx.store));
  const sg::thread_id t{"two"};

  app.invoke(Ask{}, t);
  auto s = app.get_state(t);
  REQUIRE(s->interrupts.size() == 1);
  CHECK(s->interrupts[0].index == 0);
  CHECK(nlohmann::json::parse(s->interrupts[0].payload) == "name?");

  Ask half = app.resume(t, std::string("ada"));
  CHECK(half.log.empty());
  CHECK(twice_runs == 2);
  s = app.get_state(t);
  REQUIRE(s->interrupts.size() == 1);
  CHECK(s->interrupts[0].node == "twice");
  CHECK(s->interrupts[0].index == 1);
  CHECK(nlohmann::json::parse(s->interrupts[0].payload) == nlohmann::json{{"ask", "number"}, {"max", 9}});
  CHECK(s->next == strings{"twice"});

  Ask done = app.resume(t, 7);
  CHECK(twice_runs == 3);
  CHECK(done.log == strings{"twice:ada:7"});
  CHECK(done.number == 7);
  CHECK(app.get_state(t)->interrupts.empty());
  CHECK(app.history(t).size() == 2);  // input and the one step that finally completed
}

using sibling_graph = sg::graph<Ask, sg::edge<sg::start, approve>, sg::edge<sg::start, side>, sg::edge<approve, finish>,
                                sg::edge<side, sg::end>, sg::edge<finish, sg::end>>;

template <class App>
void check_sibling_kept(App& app, const sg::thread_id& t) {
  Ask paused = app.invoke(Ask{}, t);
  CHECK(paused.log.empty());  // the step did not complete: nothing merged
  CHECK(side_runs == 1);
  auto s = app.get_state(t);
  CHECK(s->next == strings{"approve", "side"});
  REQUIRE(s->interrupts.size() == 1);
  CHECK(s->values.log.empty());

  Ask done = app.resume(t, std::string("go"));
  CHECK(side_runs == 1);
  CHECK(approve_runs == 2);
  // Merged in node order: approve before side.
  CHECK(done.log == strings{"approved:go", "side", "finished:go"});
}

TEST_CASE_TEMPLATE("a sibling that succeeded in the paused step does not run again", F, DURABLE_FIXTURES) {
  reset_counts();
  F fx;
  auto app = sg::compile<sibling_graph>(sg::with_store(fx.store));
  check_sibling_kept(app, sg::thread_id{"sib"});
}

TEST_CASE_TEMPLATE("the same on the thread pool", F, DURABLE_FIXTURES) {
  reset_counts();
  F fx;
  auto app = sg::compile<sibling_graph>(sg::with_store(fx.store), sg::with_executor(sg::thread_pool{2}));
  check_sibling_kept(app, sg::thread_id{"sib-pool"});
}

// A second node that asks, in the same step as approve (it leaves `answer` alone: SG008).
struct approve2 {
  using reads = sg::reads<>;
  using writes = sg::writes<&Ask::log>;
  auto operator()(sg::view<Ask, reads>, sg::run_context& ctx) const {
    ++approve_runs;
    return sg::write<&Ask::log>("approved:" + ctx.interrupt<std::string>("approve too?"));
  }
};

TEST_CASE_TEMPLATE("two nodes paused in one step: resume(value) is refused, sg::answers answers each", F,
                   DURABLE_FIXTURES) {
  // As LangGraph: with several interrupts pending, a lone value could answer any of them.
  reset_counts();
  F fx;
  using G = sg::graph<Ask, sg::edge<sg::start, approve>, sg::edge<sg::start, approve2>, sg::edge<approve, sg::end>,
                      sg::edge<approve2, sg::end>>;
  auto app = sg::compile<G>(sg::with_store(fx.store));
  const sg::thread_id t{"pair"};
  app.invoke(Ask{}, t);
  auto s = app.get_state(t);
  REQUIRE(s->interrupts.size() == 2);
  CHECK(s->interrupts[0].node == "approve");
  CHECK(s->interrupts[1].node == "approve2");
  CHECK(s->interrupts[0].id == "approve:0@1");
  CHECK(s->interrupts[1].id == "approve2:0@1");
  CHECK(approve_runs == 2);
  const auto before = fx.store.stats();
  CHECK_THROWS_AS(app.resume(t, std::string("both")), sg::ambiguous_resume_error);
  CHECK(fx.store.stats() == before);
  CHECK(approve_runs == 2);
  Ask done = app.resume(t, sg::answers{{"approve:0@1", "one"}, {"approve2:0@1", "two"}});
  CHECK(done.log == strings{"approved:one", "approved:two"});
  CHECK(approve_runs == 4);
  CHECK(app.get_state(t)->interrupts.empty());
}

TEST_CASE_TEMPLATE("a paused step is not reported as failed", F, DURABLE_FIXTURES) {
  reset_counts();
  F fx;
  auto app = sg::compile<sibling_graph>(sg::with_store(fx.store));
  app.invoke(Ask{}, sg::thread_id{"sib"});
  CHECK_FALSE(app.get_state(sg::thread_id{"sib"})->failed);
}

TEST_CASE_TEMPLATE("resume with a value and no pending interrupt throws and changes nothing", F, DURABLE_FIXTURES) {
  reset_counts();
  F fx;
  auto app = sg::compile<approve_graph>(sg::with_store(fx.store));
  const sg::thread_id t{"none"};
  app.invoke(Ask{}, t);
  app.resume(t, std::string("yes"));
  const auto before = fx.store.stats();
  const auto runs = approve_runs.load();

  CHECK_THROWS_AS(app.resume(t, std::string("again")), sg::checkpoint_error);
  CHECK_THROWS_WITH_AS(app.resume(t, std::string("again")), doctest::Contains("no pending interrupt"),
                       sg::checkpoint_error);
  CHECK(fx.store.stats() == before);
  CHECK(approve_runs == runs);
  CHECK(finish_runs == 1);

  // A static pause is not a dynamic interrupt either.
  auto paused_app = sg::compile<chat_graph>(sg::with_store(fx.store), sg::interrupt_before<tools>{});
  paused_app.invoke(Chat{.messages = {Msg{"user", "hi"}}}, sg::thread_id{"static"});
  const auto before_static = fx.store.stats();
  CHECK_THROWS_AS(paused_app.resume(sg::thread_id{"static"}, 1), sg::checkpoint_error);
  CHECK(fx.store.stats() == before_static);
  CHECK(paused_app.get_state(sg::thread_id{"static"})->next == strings{"tools"});
}

TEST_CASE("sg::interrupt in a run without a store is an sg::error") {
  using G = sg::graph<Ask, sg::edge<sg::start, twice>, sg::edge<twice, sg::end>>;
  auto plain = sg::compile<G>();
  CHECK_THROWS_AS(plain.invoke(Ask{}), sg::error);
}

}  // namespace durable_interrupts
