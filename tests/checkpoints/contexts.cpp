// A user context reaches every durable entry point (contract §6): a graph whose nodes need a
// seam from the context answers an interrupt, resumes from a checkpoint and forks, each with
// the context it is given, on both executors.
#include "fixtures.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace durable_test;

namespace durable_contexts {

struct Draft {
  std::string topic;
  sg::append<std::string> log;
  std::string verdict;
};

struct reasoning {
  virtual ~reasoning() = default;
  virtual std::string think(const std::string& about) = 0;
};
struct prefixed_model : reasoning {
  std::string prefix;
  int calls = 0;
  explicit prefixed_model(std::string p) : prefix(std::move(p)) {}
  std::string think(const std::string& about) override {
    ++calls;
    return prefix + about;
  }
};
// Derives from sg::run_context for ctx.interrupt; provides the seam the nodes declare.
struct agent_ctx : sg::run_context {
  prefixed_model model;
  explicit agent_ctx(std::string prefix) : model(std::move(prefix)) {}
  template <class Seam>
  Seam& provide() {
    return model;
  }
};

struct think {
  using seam = reasoning;
  using reads = sg::reads<&Draft::topic>;
  using writes = sg::writes<&Draft::log>;
  auto operator()(sg::view<Draft, reads> in, agent_ctx& ctx) const {
    return sg::write<&Draft::log>(sg::seam<reasoning>(ctx).think(in.get<&Draft::topic>()));
  }
};
struct ask {
  using seam = reasoning;
  using reads = sg::reads<>;
  using writes = sg::writes<&Draft::log, &Draft::verdict>;
  auto operator()(sg::view<Draft, reads>, agent_ctx& ctx) const {
    auto answer = ctx.interrupt<std::string>("publish?");
    return sg::write<&Draft::log>(sg::seam<reasoning>(ctx).think(answer)) | sg::write<&Draft::verdict>(answer);
  }
};
using drafting = sg::graph<Draft, sg::edge<sg::start, think>, sg::edge<think, ask>, sg::edge<ask, sg::end>>;

// resume(thread, x) reads x one way: a value with a JSON codec answers, anything else is a context.
static_assert(sg::detail::resume_answer<std::string>);
static_assert(sg::detail::resume_answer<char[4]>);
static_assert(!sg::detail::resume_answer<agent_ctx>);
static_assert(sg::detail::user_context<agent_ctx> && sg::detail::user_context<sg::run_context>);
static_assert(!sg::detail::user_context<std::string> && !sg::detail::user_context<sg::run_config> &&
              !sg::detail::user_context<sg::checkpoint_id>);

template <class App>
void answers_resumes_and_forks(App& app) {
  const sg::thread_id t{"ctx"};

  // invoke with a context: think uses its seam, ask pauses.
  agent_ctx a("A:");
  Draft paused = app.invoke(Draft{.topic = "cats"}, t, a);
  CHECK(paused.log.value() == strings{"A:cats"});
  CHECK(a.model.calls == 1);
  REQUIRE(app.get_state(t)->interrupts.size() == 1);
  CHECK(app.get_state(t)->checkpoint_id == 2);

  // resume(thread, value, ctx): the answer, and the context's seam in the same node.
  Draft answered = app.resume(t, std::string("yes"), a);
  CHECK(answered.log.value() == strings{"A:cats", "A:yes"});
  CHECK(answered.verdict == "yes");
  CHECK(a.model.calls == 2);
  CHECK(app.get_state(t)->checkpoint_id == 3);
  CHECK(app.get_state(t)->next.empty());

  // resume(thread, checkpoint_id, ctx): checkpoint 2's next node (ask) runs again, with B's context.
  agent_ctx b("B:");
  Draft again = app.resume(t, sg::checkpoint_id{2}, b);
  CHECK(again.log.value() == strings{"A:cats"});  // paused again: a new branch has no answer yet
  auto fork = app.get_state(t);
  REQUIRE(fork.has_value());
  CHECK(fork->checkpoint_id == 4);
  CHECK(fork->parent_id == 2);
  CHECK(fork->source == sg::checkpoint_source::fork);
  REQUIRE(fork->interrupts.size() == 1);
  Draft b_done = app.resume(t, "no", b);
  CHECK(b_done.log.value() == strings{"A:cats", "B:no"});
  CHECK(b_done.verdict == "no");
  CHECK(b.model.calls == 1);
  CHECK(a.model.calls == 2);  // A's context was not used again

  // invoke(input, thread, checkpoint_id, ctx): a fork with new input, from the first checkpoint.
  agent_ctx c("C:");
  Draft forked = app.invoke(Draft{.topic = "dogs"}, t, sg::checkpoint_id{1}, c);
  CHECK(forked.log.value() == strings{"C:dogs"});
  CHECK(forked.topic == "dogs");
  CHECK(app.get_state(t)->parent_id > 0);
  Draft c_done = app.resume(t, std::string("maybe"), c);
  CHECK(c_done.log.value() == strings{"C:dogs", "C:maybe"});
  CHECK(c.model.calls == 2);

  // The old branch is as it was.
  CHECK(app.get_state(t, sg::checkpoint_id{3}).values.log.value() == strings{"A:cats", "A:yes"});
}

TEST_CASE_TEMPLATE("a context reaches invoke, resume with an answer, resume from a checkpoint and forks", F,
                   DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<drafting>(sg::with_store(fx.store));
  answers_resumes_and_forks(app);
}

TEST_CASE("the same on the thread pool") {
  sg::memory_store store;
  auto app = sg::compile<drafting>(sg::with_store(store), sg::with_executor(sg::thread_pool{2}));
  answers_resumes_and_forks(app);
}

TEST_CASE_TEMPLATE("resume(thread, ctx) continues a static interrupt with the context", F, DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<drafting>(sg::with_store(fx.store), sg::interrupt_before<ask>{});
  const sg::thread_id t{"static"};
  agent_ctx a("A:");
  CHECK(app.invoke(Draft{.topic = "owls"}, t, a).log.value() == strings{"A:owls"});
  CHECK(app.get_state(t)->next == strings{"ask"});
  CHECK(app.get_state(t)->interrupts.empty());

  agent_ctx d("D:");
  app.resume(t, d);  // ask runs with D's context and pauses on its dynamic interrupt
  REQUIRE(app.get_state(t)->interrupts.size() == 1);
  Draft done = app.resume(t, std::string("ok"), d, sg::run_config{.recursion_limit = 10});
  CHECK(done.log.value() == strings{"A:owls", "D:ok"});
  CHECK(d.model.calls == 1);
  CHECK(a.model.calls == 1);
}

}  // namespace durable_contexts
