// Writes the pictures of docs/pictures.md: for each representative graph, its DOT (for
// `dot -Tpng`) and its Mermaid text, into the folder given as the first argument.
// scripts/render-graphs.sh runs it; a test checks that docs/img still matches its output.
#include <stategraph/pictures.hpp>
#include <stategraph/stategraph.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace sg = stategraph;

// ---- an agent and its tools (scenario 4) ------------------------------------------------

namespace agent_loop {
struct Msg {
  std::string role, content;
};
struct State {
  sg::append<Msg> messages;
  sg::counter<int> calls;
};
struct agent {
  using reads = sg::reads<&State::messages>;
  using writes = sg::writes<&State::messages, &State::calls>;
  auto operator()(sg::view<State, reads> in) const {
    const bool more = in.get<&State::messages>().size() < 5;
    return sg::write<&State::messages>(Msg{"ai", more ? "call tool" : "done"}) | sg::write<&State::calls>(1);
  }
};
struct tools {
  using reads = sg::reads<&State::messages>;
  using writes = sg::writes<&State::messages>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::messages>(Msg{"tool", "42"}); }
};
struct wants_tool {
  using reads = sg::reads<&State::messages>;
  sg::go<tools, sg::end> operator()(sg::view<State, reads> in) const {
    if (in.get<&State::messages>().back().content == "call tool") return sg::to<tools>;
    return sg::to<sg::end>;
  }
};
using graph = sg::graph<State, sg::edge<sg::start, agent>, sg::branch<agent, wants_tool>, sg::edge<tools, agent>>;
}  // namespace agent_loop

// ---- a staged turn with a lattice (scenario 5) ---------------------------------------------

namespace staged_turn {
struct anchor_plan {};
struct tool_loop {};
struct synthesize {};
struct post_turn {};

struct State {
  std::string question;
  sg::last_value<std::string> intent;
  sg::append<std::string> messages;
  sg::counter<int> tool_calls;
  sg::last_value<std::string> answer;
  sg::counter<int> attempts;
  sg::append<std::string> citations;
  sg::append<std::string> memory;
};

template <class Stage, class Reads, class Writes>
struct staged {
  using stage = Stage;
  using reads = Reads;
  using writes = Writes;
};

struct classify : staged<anchor_plan, sg::reads<&State::question>, sg::writes<&State::intent>> {
  auto operator()(sg::view<State, reads> in) const {
    return sg::write<&State::intent>(in.get<&State::question>().empty() ? "chat" : "ask");
  }
};
struct plan : staged<anchor_plan, sg::reads<&State::intent>, sg::writes<&State::messages>> {
  auto operator()(sg::view<State, reads> in) const {
    return sg::write<&State::messages>("plan: " + in.get<&State::intent>());
  }
};
struct llm : staged<tool_loop, sg::reads<&State::messages>, sg::writes<&State::messages>> {
  auto operator()(sg::view<State, reads> in) const {
    return sg::write<&State::messages>(in.get<&State::messages>().size() < 4 ? "call tool" : "enough");
  }
};
struct tools : staged<tool_loop, sg::reads<&State::messages>, sg::writes<&State::messages, &State::tool_calls>> {
  auto operator()(sg::view<State, reads>) const {
    return sg::write<&State::messages>("tool result") | sg::write<&State::tool_calls>(1);
  }
};
struct synthesizer;
struct recover : staged<post_turn, sg::reads<&State::messages>, sg::writes<&State::answer>> {
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::answer>("sorry"); }
};
struct after_llm {
  using reads = sg::reads<&State::messages, &State::tool_calls>;
  sg::go<tools, synthesizer, recover> operator()(sg::view<State, reads> in) const {
    if (in.get<&State::tool_calls>() > 8) return sg::to<recover>;
    if (in.get<&State::messages>().back() == "call tool") return sg::to<tools>;
    return sg::to<synthesizer>;
  }
};
// The guarded retry: a draft that fails its check goes round once more.
struct synthesizer
    : staged<synthesize, sg::reads<&State::messages, &State::attempts>, sg::writes<&State::answer, &State::attempts>> {
  using goes = sg::goes<synthesizer>;
  auto operator()(sg::view<State, reads> in) const {
    const int tries = in.get<&State::attempts>();
    auto update =
        sg::write<&State::answer>(std::string("draft ") + std::to_string(tries)) | sg::write<&State::attempts>(1);
    sg::go_all<synthesizer> again;
    if (tries == 0) again.add(sg::to<synthesizer>);
    return sg::command{std::move(update), again};
  }
};
struct citation : staged<post_turn, sg::reads<&State::answer>, sg::writes<&State::citations>> {
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::citations>("[1]"); }
};
struct memory_write : staged<post_turn, sg::reads<&State::answer, &State::citations>, sg::writes<&State::memory>> {
  auto operator()(sg::view<State, reads> in) const { return sg::write<&State::memory>(in.get<&State::answer>()); }
};

using lattice = sg::lattice<sg::transition<anchor_plan, tool_loop>, sg::transition<tool_loop, synthesize>,
                            sg::transition<tool_loop, post_turn>, sg::transition<synthesize, post_turn>,
                            sg::transition<synthesize, synthesize>, sg::within<anchor_plan>, sg::within<tool_loop>,
                            sg::within<post_turn>, sg::singleton<synthesize>>;
using graph = sg::graph<State, lattice, sg::edge<sg::start, classify>, sg::edge<classify, plan>, sg::edge<plan, llm>,
                        sg::branch<llm, after_llm>, sg::edge<tools, llm>, sg::edge<synthesizer, citation>,
                        sg::join<memory_write, synthesizer, citation>, sg::edge<recover, memory_write>,
                        sg::edge<memory_write, sg::end>>;
}  // namespace staged_turn

// ---- W2: fan-out to eight workers, then a join (benchmarks.md) -----------------------------

namespace fanout {
struct State {
  sg::counter<int> counter;
  sg::append<std::string> log;
};
// Outside the template: Clang 14 cannot read an in-class constexpr array from another
// in-class constexpr initializer of the same class template.
inline constexpr std::string_view step_names[] = {"split", "w1", "w2", "w3", "w4", "w5", "w6", "w7", "w8", "collect"};
template <int K>
struct step {
  static constexpr std::string_view name = step_names[K];
  using reads = sg::reads<>;
  using writes = sg::writes<&State::counter, &State::log>;
  auto operator()(sg::view<State, reads>) const {
    return sg::write<&State::counter>(1) | sg::write<&State::log>(std::string(name));
  }
};
using split = step<0>;
using collect = step<9>;
using graph = sg::graph<State, sg::edge<sg::start, split>, sg::edge<split, step<1>>, sg::edge<split, step<2>>,
                        sg::edge<split, step<3>>, sg::edge<split, step<4>>, sg::edge<split, step<5>>,
                        sg::edge<split, step<6>>, sg::edge<split, step<7>>, sg::edge<split, step<8>>,
                        sg::join<collect, step<1>, step<2>, step<3>, step<4>, step<5>, step<6>, step<7>, step<8>>,
                        sg::edge<collect, sg::end>>;
}  // namespace fanout

// ---- AgentCanvas: containers and grants (scenario 3, examples/canvas) ----------------------

namespace canvas {
struct Canvas {
  sg::bounded<std::string, 3> action_history;
  sg::last_value<std::string> active_plan;
  sg::counter<int> step_count;
  sg::last_value<int> position;
  sg::ephemeral<std::string> glimpse;
  sg::append<std::string> tracker_seen;
  sg::counter<int> tracker_count;
};
struct nav : sg::container<&Canvas::action_history, &Canvas::active_plan, &Canvas::step_count> {};
struct spatial : sg::container<&Canvas::position, &Canvas::glimpse> {};

struct Tracker {
  sg::append<std::string> seen;
  sg::counter<int> count;
};
struct record {
  using reads = sg::reads<>;
  using writes = sg::writes<&Tracker::seen, &Tracker::count>;
  auto operator()(sg::view<Tracker, reads>) const {
    return sg::write<&Tracker::seen>("tick") | sg::write<&Tracker::count>(1);
  }
};
using tracker_graph = sg::graph<Tracker, sg::edge<sg::start, record>, sg::edge<record, sg::end>>;
struct tracker {};
using tracker_node = sg::subgraph<tracker, tracker_graph, sg::maps<&Canvas::tracker_seen, &Tracker::seen>,
                                  sg::maps<&Canvas::tracker_count, &Tracker::count>>;

struct planner {
  using reads = sg::reads_from<>;
  using writes = sg::writes_to<nav>;
  auto operator()(sg::view<Canvas, reads>) const {
    return sg::write<&Canvas::active_plan>(std::string("explore")) | sg::write<&Canvas::step_count>(1);
  }
};
struct scout {
  using reads = sg::reads_from<nav>;
  using writes = sg::writes_to<spatial>;
  auto operator()(sg::view<Canvas, reads> in) const {
    return sg::write<&Canvas::position>(in.get<&Canvas::step_count>() * 10);
  }
};
struct mover {
  using reads = sg::reads_from<nav, spatial>;
  using writes = sg::writes_to<nav>;
  auto operator()(sg::view<Canvas, reads> in) const {
    return sg::write<&Canvas::action_history>("move to " + in.get<&Canvas::glimpse>());
  }
};
using graph = sg::graph<Canvas, sg::edge<sg::start, planner>, sg::edge<sg::start, scout>, sg::join<mover, planner, scout>,
                        sg::edge<mover, tracker_node>, sg::edge<tracker_node, sg::end>>;
}  // namespace canvas

namespace {
bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

template <class G>
bool write_pictures(const std::string& dir, std::string_view name, const sg::picture_options& options) {
  const std::string base = dir + "/" + std::string(name);
  return write_file(base + ".dot", sg::to_dot<G>(options)) && write_file(base + ".mmd", sg::to_mermaid<G>(options));
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <output folder>\n", argv[0]);
    return 2;
  }
  // Every graph drawn here is also a valid graph: compiling it checks every rule.
  (void)sg::compile<agent_loop::graph>();
  (void)sg::compile<staged_turn::graph>();
  (void)sg::compile<fanout::graph>();
  (void)sg::compile<canvas::graph>();

  const std::string dir = argv[1];
  std::error_code ignored;  // a folder that cannot be made shows up as a file that cannot be written
  std::filesystem::create_directories(dir, ignored);
  bool ok = write_pictures<agent_loop::graph>(dir, "agent", {.title = "agent and tools"});
  ok = ok && write_pictures<agent_loop::graph>(dir, "agent-channels",
                                               {.channels = true, .title = "agent and tools, with channels"});
  ok = ok && write_pictures<staged_turn::graph>(dir, "staged-turn", {.title = "a staged turn"});
  ok = ok && write_pictures<fanout::graph>(dir, "fanout-join", {.title = "W2: fan-out and join"});
  ok = ok && write_pictures<canvas::graph>(dir, "canvas-containers",
                                           {.containers = true,
                                            .direction = sg::picture_direction::left_right,
                                            .title = "AgentCanvas: containers and grants"});
  if (!ok) std::fprintf(stderr, "could not write into %s\n", argv[1]);
  return ok ? 0 : 1;
}
