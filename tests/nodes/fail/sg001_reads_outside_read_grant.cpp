// EXPECT: SG001
// EXPECT: SG001_reads_undeclared_channel<&State::position, stategraph::reads_from<nav> ?>
// SG001 through a read grant: the node is granted the container `nav` and reads `position`,
// a channel of `spatial`. The message names the grant, container and all.
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct State {
  sg::append<std::string> action_history;
  sg::last_value<std::string> active_plan;
  sg::last_value<int> position;
};

struct nav : sg::container<&State::action_history, &State::active_plan> {};
struct spatial : sg::container<&State::position> {};

struct report {
#ifdef SG_VIOLATION
  using reads = sg::reads_from<nav>;
#else
  using reads = sg::reads_from<nav, spatial>;
#endif
  using writes = sg::writes_to<nav>;
  auto operator()(sg::view<State, reads> in) const {
    return sg::write<&State::action_history>("at " + std::to_string(in.get<&State::position>()));
  }
};

using G = sg::graph<State, sg::edge<sg::start, report>, sg::edge<report, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{}).action_history.size() == 1 ? 0 : 1;
}
