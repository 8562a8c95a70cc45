// Small graphs whose pictures the tests spell out in full: each exercises one kind of link.
#pragma once

#include <stategraph/containers.hpp>
#include <stategraph/graph.hpp>
#include <stategraph/lattice.hpp>
#include <stategraph/node.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace pictures_test {
namespace sg = stategraph;

// Expected pictures are raw strings that open with a newline, so their lines line up.
inline std::string text(std::string_view raw) { return std::string(raw.substr(1)); }

// ---- a static chain ---------------------------------------------------------------------
struct Count {
  sg::counter<int> steps;
};
struct first {
  using reads = sg::reads<>;
  using writes = sg::writes<&Count::steps>;
  auto operator()(sg::view<Count, reads>) const { return sg::write<&Count::steps>(1); }
};
struct second : first {};
using chain = sg::graph<Count, sg::edge<sg::start, first>, sg::edge<first, second>, sg::edge<second, sg::end>>;

// ---- a branch: an agent and its tools ---------------------------------------------------------
struct Chat {
  sg::append<std::string> messages;
  sg::counter<int> calls;
  std::string topic;  // nobody reads or writes it: drawn all the same
};
struct tools;
struct agent {
  using reads = sg::reads<&Chat::messages>;
  using writes = sg::writes<&Chat::messages, &Chat::calls>;
  auto operator()(sg::view<Chat, reads> in) const {
    const bool more = in.get<&Chat::messages>().size() < 3;
    return sg::write<&Chat::messages>(std::string(more ? "call tool" : "done")) | sg::write<&Chat::calls>(1);
  }
};
struct tools {
  using reads = sg::reads<&Chat::messages>;
  using writes = sg::writes<&Chat::messages>;
  auto operator()(sg::view<Chat, reads>) const { return sg::write<&Chat::messages>(std::string("42")); }
};
struct route {
  using reads = sg::reads<&Chat::messages>;
  sg::go<tools, sg::end> operator()(sg::view<Chat, reads> in) const {
    if (in.get<&Chat::messages>().back() == "call tool") return sg::to<tools>;
    return sg::to<sg::end>;
  }
};
using agent_loop = sg::graph<Chat, sg::edge<sg::start, agent>, sg::branch<agent, route>, sg::edge<tools, agent>>;

// ---- a join: merge waits for both sides ---------------------------------------------------
struct Log {
  sg::append<std::string> log;
};
// Names live outside the templates: Clang 14 cannot read an in-class constexpr array from
// another in-class constexpr initializer of the same class template.
inline constexpr std::string_view part_names[] = {"split", "left", "right", "merge"};
template <int K>
struct part {
  static constexpr std::string_view name = part_names[K];
  using reads = sg::reads<>;
  using writes = sg::writes<&Log::log>;
  auto operator()(sg::view<Log, reads>) const { return sg::write<&Log::log>(std::string(name)); }
};
using fork_join = sg::graph<Log, sg::edge<sg::start, part<0>>, sg::edge<part<0>, part<1>>, sg::edge<part<0>, part<2>>,
                            sg::join<part<3>, part<1>, part<2>>, sg::edge<part<3>, sg::end>>;

// ---- stages: two clusters, and one node of no stage outside them ----------------------------
struct think {};
struct act {};
inline constexpr std::string_view staged_names[] = {"sketch", "refine", "execute"};
template <class Stage, int K>
struct staged {
  static constexpr std::string_view name = staged_names[K];
  using stage = Stage;
  using reads = sg::reads<>;
  using writes = sg::writes<&Log::log>;
  auto operator()(sg::view<Log, reads>) const { return sg::write<&Log::log>(std::string(name)); }
};
struct audit {  // outside the lattice, said explicitly (SG018)
  using stage = sg::any_stage;
  using reads = sg::reads<&Log::log>;
  using writes = sg::writes<>;
  sg::patch<> operator()(sg::view<Log, reads>) const { return {}; }
};
using two_stages =
    sg::graph<Log, sg::lattice<sg::transition<think, act>, sg::within<think>>, sg::edge<sg::start, staged<think, 0>>,
              sg::edge<staged<think, 0>, staged<think, 1>>, sg::edge<staged<think, 1>, staged<act, 2>>,
              sg::edge<staged<act, 2>, audit>, sg::edge<audit, sg::end>>;

// Two stage types of one unqualified name are still two stages.
namespace first_team {
struct plan {};
}  // namespace first_team
namespace second_team {
struct plan {};
}  // namespace second_team
using namesake_stages = sg::graph<Log, sg::edge<sg::start, staged<first_team::plan, 0>>,
                                  sg::edge<staged<first_team::plan, 0>, staged<second_team::plan, 1>>,
                                  sg::edge<staged<second_team::plan, 1>, sg::end>>;

// ---- commands and sends ----------------------------------------------------------------------
struct Work {
  sg::append<std::string> done;
  sg::counter<int> rounds;
};
struct worker;
struct manager {  // a command: an update plus where to go
  using reads = sg::reads<&Work::rounds>;
  using writes = sg::writes<&Work::rounds>;
  using goes = sg::goes<worker, sg::end>;
  auto operator()(sg::view<Work, reads> in) const {
    if (in.get<&Work::rounds>() < 2)
      return sg::command{sg::write<&Work::rounds>(1), sg::go<worker, sg::end>(sg::to<worker>)};
    return sg::command{sg::write<&Work::rounds>(0), sg::go<worker, sg::end>(sg::to<sg::end>)};
  }
};
struct worker {
  using reads = sg::reads<>;
  using writes = sg::writes<&Work::done>;
  auto operator()(sg::view<Work, reads>) const { return sg::write<&Work::done>(std::string("w")); }
};
struct piece {  // runs once per send, with the payload
  using reads = sg::reads<>;
  using writes = sg::writes<&Work::done>;
  auto operator()(sg::view<Work, reads>, const int& x) const { return sg::write<&Work::done>(std::to_string(x)); }
};
struct mapper {  // a node that sends
  using reads = sg::reads<>;
  using writes = sg::writes<>;
  using sends = sg::sends<piece>;
  std::vector<sg::send_to<piece, int>> operator()(sg::view<Work, reads>) const {
    return {sg::send<piece>(1), sg::send<piece>(2)};
  }
};
struct scatter {  // a router that sends
  using reads = sg::reads<&Work::rounds>;
  std::vector<sg::send_to<piece, int>> operator()(sg::view<Work, reads> in) const {
    return {sg::send<piece>(10 + in.get<&Work::rounds>())};
  }
};
using commands_and_sends = sg::graph<Work, sg::edge<sg::start, manager>, sg::edge<sg::start, mapper>,
                                     sg::edge<worker, manager>, sg::branch<worker, scatter>, sg::edge<piece, sg::end>>;

// ---- a reactive node: subscriptions --------------------------------------------------------
struct Watch {
  sg::counter<int> ticks;
  sg::append<std::string> seen;
};
struct ticker {
  using reads = sg::reads<>;
  using writes = sg::writes<&Watch::ticks>;
  auto operator()(sg::view<Watch, reads>) const { return sg::write<&Watch::ticks>(1); }
};
struct watcher {
  using reads = sg::reads<&Watch::ticks, &Watch::seen>;
  using subscribes = sg::subscribes<&Watch::ticks>;
  using writes = sg::writes<&Watch::seen>;
  auto operator()(sg::view<Watch, reads>) const { return sg::write<&Watch::seen>(std::string("tick")); }
};
using reactive = sg::graph<Watch, sg::edge<sg::start, ticker>, sg::edge<ticker, watcher>, sg::edge<watcher, sg::end>>;

// ---- names Mermaid cannot take as ids -------------------------------------------------------
struct Odd {
  sg::append<std::string> plan;
};
inline constexpr std::string_view odd_names_list[] = {"worker<1>", "end", "say \"hi\" #1", "ch_plan"};
template <int K>
struct odd {
  static constexpr std::string_view name = odd_names_list[K];
  using reads = sg::reads<&Odd::plan>;
  using writes = sg::writes<>;
  sg::patch<> operator()(sg::view<Odd, reads>) const { return {}; }
};
using odd_names = sg::graph<Odd, sg::edge<sg::start, odd<0>>, sg::edge<odd<0>, odd<1>>, sg::edge<odd<1>, odd<2>>,
                            sg::edge<odd<2>, odd<3>>, sg::edge<odd<3>, sg::end>>;

// ---- a lambda node: the graph names only its tag --------------------------------------------
struct summarize_tag {};
inline auto make_summarize() {
  return sg::node<summarize_tag, think, sg::reads<&Log::log>, sg::writes<&Log::log>>(
      [](sg::view<Log, sg::reads<&Log::log>> in) {
        return sg::write<&Log::log>(std::to_string(in.get<&Log::log>().size()));
      });
}
using summarize_node = decltype(make_summarize());
using with_lambda =
    sg::graph<Log, sg::edge<sg::start, part<0>>, sg::edge<part<0>, summarize_tag>, sg::edge<summarize_tag, sg::end>>;

// ---- containers and grants (AgentCanvas) -------------------------------------------------------
struct Canvas {
  sg::append<std::string> history;
  sg::last_value<std::string> plan;
  sg::last_value<int> position;
  sg::counter<int> ticks;  // in no container
};
struct nav : sg::container<&Canvas::history, &Canvas::plan> {};
struct spatial : sg::container<&Canvas::position> {};
struct planner {
  using writes = sg::writes_to<nav>;
  auto operator()(sg::view<Canvas, sg::reads<>>) const { return sg::write<&Canvas::plan>(std::string("explore")); }
};
struct scout {
  using reads = sg::reads_from<nav>;
  using writes = sg::writes_to<spatial>;
  auto operator()(sg::view<Canvas, reads>) const { return sg::write<&Canvas::position>(1); }
};
struct mover {
  using reads = sg::reads_from<nav, spatial>;
  using writes = sg::writes_to<nav, sg::writes<&Canvas::ticks>>;
  auto operator()(sg::view<Canvas, reads>) const { return sg::write<&Canvas::history>(std::string("moved")); }
};
using canvas = sg::graph<Canvas, sg::edge<sg::start, planner>, sg::edge<sg::start, scout>, sg::join<mover, planner, scout>,
                         sg::edge<mover, sg::end>>;

}  // namespace pictures_test
