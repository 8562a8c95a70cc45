// The parent's user context reaches the nodes of its subgraphs, at any depth: their seams,
// their emits, on both executors, invoked and streamed.
#include <stategraph/stategraph.hpp>
#include <stategraph/subgraph.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <string>
#include <type_traits>
#include <vector>

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_subgraphs_contexts {

namespace sg = stategraph;

namespace subgraph_contexts {  // named: Clang cannot reflect types with internal linkage

using strings = std::vector<std::string>;

struct State {
  std::string topic;
  sg::append<std::string> log;
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
// Provides the seam, and emits strings in custom mode.
struct agent_ctx : sg::emitter<std::string> {
  prefixed_model model;
  explicit agent_ctx(std::string prefix) : model(std::move(prefix)) {}
  template <class Seam>
  Seam& provide() {
    return model;
  }
};

struct outline {  // a node of the parent that uses the seam
  using seam = reasoning;
  using reads = sg::reads<&State::topic>;
  using writes = sg::writes<&State::log>;
  template <class Ctx>
  auto operator()(sg::view<State, reads> in, Ctx& ctx) const {
    return sg::write<&State::log>("outline " + sg::seam<reasoning>(ctx).think(in.get<&State::topic>()));
  }
};
struct critique {  // a node two subgraphs deep that uses the seam and emits
  using seam = reasoning;
  using reads = sg::reads<&State::topic>;
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, reads> in, agent_ctx& ctx) const {
    ctx.emit("critiquing " + in.get<&State::topic>());
    return sg::write<&State::log>("critique " + sg::seam<reasoning>(ctx).think(in.get<&State::topic>()));
  }
};
using critique_graph = sg::graph<State, sg::edge<sg::start, critique>, sg::edge<critique, sg::end>>;
struct critic {};
using critic_node = sg::subgraph<critic, critique_graph>;

struct draft {  // a node one subgraph deep that uses the seam
  using seam = reasoning;
  using reads = sg::reads<&State::topic>;
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, reads> in, agent_ctx& ctx) const {
    return sg::write<&State::log>("draft " + sg::seam<reasoning>(ctx).think(in.get<&State::topic>()));
  }
};
using writing_graph = sg::graph<State, sg::edge<sg::start, draft>, sg::edge<draft, critic_node>,
                                sg::edge<critic_node, sg::end>>;
struct writing {};
using writing_node = sg::subgraph<writing, writing_graph>;

// A subgraph with its own schema, fed by maps: its node gets the same context.
struct Notes {
  std::string subject;
  sg::append<std::string> items;
};
struct note {
  using seam = reasoning;
  using reads = sg::reads<&Notes::subject>;
  using writes = sg::writes<&Notes::items>;
  auto operator()(sg::view<Notes, reads> in, agent_ctx& ctx) const {
    return sg::write<&Notes::items>("note " + sg::seam<reasoning>(ctx).think(in.get<&Notes::subject>()));
  }
};
using notes_graph = sg::graph<Notes, sg::edge<sg::start, note>, sg::edge<note, sg::end>>;
struct noting {};
using notes_node = sg::subgraph<noting, notes_graph, sg::maps<&State::topic, &Notes::subject>,
                                sg::maps<&State::log, &Notes::items>>;

// SG012's predicate sees through subgraph nodes, at any depth (a flat list, as in rules/).
struct no_seams {};
static_assert(sg::rules::subgraph_seams_provided<writing, writing_node, agent_ctx>);
static_assert(!sg::rules::subgraph_seams_provided<writing, writing_node, no_seams>);
static_assert(!sg::rules::subgraph_seams_provided<critic, critic_node, no_seams>);  // the node one level down
static_assert(sg::rules::subgraph_seams_provided<writing, writing_node, sg::detail::any_context>);  // not known yet
static_assert(sg::rules::subgraph_seams_provided<outline, outline, no_seams>);  // no subgraph: SG012's own check
static_assert(std::is_same_v<sg::rules::detail::seam_search<no_seams>::missing<writing, writing_node>::type,
                             sg::detail::mp_list<sg::rules::node_path<writing, draft>, reasoning>>);

using essay = sg::graph<State, sg::edge<sg::start, outline>, sg::edge<outline, writing_node>,
                        sg::edge<outline, notes_node>, sg::edge<writing_node, sg::end>, sg::edge<notes_node, sg::end>>;

std::string joined(const strings& list) {
  std::string out;
  for (const auto& s : list) out.append(out.empty() ? "" : " ").append(s);
  return out;
}


template <class App>
void runs_with_the_context(const App& app) {
  agent_ctx ctx("M:");
  State out = app.invoke(State{.topic = "owls"}, ctx);
  // outline; then writing and noting in one step (their writes merge in node order: noting's
  // child appended its note at the step's start state, writing's child two entries).
  CHECK(out.log.value() == strings{"outline M:owls", "draft M:owls", "critique M:owls", "note M:owls"});
  CHECK(ctx.model.calls == 4);

  // Streamed: the children's updates come up named parent/child (each node's before the
  // step's own updates), their emits as the parent node's.
  agent_ctx streamed("S:");
  std::vector<std::string> updates, custom;
  app.stream(State{.topic = "bats"}, sg::stream_mode::updates | sg::stream_mode::custom, streamed,
             [&](const sg::event_for<State, agent_ctx>& e) {
               if (e.mode == sg::stream_mode::updates) updates.emplace_back(e.node);
               if (e.mode == sg::stream_mode::custom) custom.push_back(std::string(e.node) + ": " + *e.custom);
             });
  CHECK(streamed.model.calls == 4);
  CHECK(joined(updates) == "outline writing/draft writing/critic/critique writing/critic noting/note writing noting");
  CHECK(custom == strings{"writing: critiquing bats"});

  // Custom mode alone: the child is not streamed, its emits still reach the parent's stream.
  agent_ctx quiet("Q:");
  custom.clear();
  app.stream(State{.topic = "rats"}, sg::stream_mode::custom, quiet, [&](const sg::event_for<State, agent_ctx>& e) {
    custom.push_back(std::string(e.node) + ": " + *e.custom);
  });
  CHECK(custom == strings{"writing: critiquing rats"});
}

TEST_CASE("the parent's context reaches the nodes of its subgraphs, at any depth") {
  auto app = sg::compile<essay>();
  runs_with_the_context(app);
}

TEST_CASE("the same on the thread pool") {
  auto app = sg::compile<essay>(sg::with_executor(sg::thread_pool{2}));
  runs_with_the_context(app);
}

// A child whose nodes take no context, and one whose node takes it without a seam.
struct counter_ctx {
  std::atomic<int> used{0};
};
struct plain_step {
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::log>(std::string("plain")); }
};
struct counted_step {
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, sg::reads<>>, counter_ctx& ctx) const {
    ++ctx.used;
    return sg::write<&State::log>(std::string("counted"));
  }
};
using steps_graph = sg::graph<State, sg::edge<sg::start, plain_step>, sg::edge<plain_step, counted_step>,
                              sg::edge<counted_step, sg::end>>;
struct steps {};
using steps_node = sg::subgraph<steps, steps_graph>;
using steps_parent = sg::graph<State, sg::edge<sg::start, steps_node>, sg::edge<steps_node, sg::end>>;

TEST_CASE("a child's node that takes the context gets the parent's; nodes that take none run as before") {
  auto app = sg::compile<steps_parent>();
  counter_ctx ctx;
  CHECK(app.invoke(State{}, ctx).log.value() == strings{"plain", "counted"});
  CHECK(ctx.used == 1);
  CHECK(app.invoke(State{}, ctx).log.value() == strings{"plain", "counted"});
  CHECK(ctx.used == 2);
}

}  // namespace subgraph_contexts

}  // namespace unity_subgraphs_contexts
