// EXPECT: SG008
// EXPECT: SG008_nodes_that_run_together_write_one_last_value_channel_of_container<nav, &State::active_plan, planner, replanner>
// SG008 through write grants: planner and replanner both follow start and both are granted
// write access to the container `nav`, whose `active_plan` keeps the last value. A node
// granted read access only (sg::reads_from) is no writer: the fixed program's replanner reads
// nav and writes only `spatial`.
#include <stategraph/stategraph.hpp>

#include <string>
#include <vector>

namespace sg = stategraph;

struct State {
  sg::append<std::string> action_history;
  sg::last_value<std::string> active_plan;
  sg::counter<int> step_count;
  sg::last_value<int> position;
};

struct nav : sg::container<&State::action_history, &State::active_plan, &State::step_count> {};
struct spatial : sg::container<&State::position> {};

struct planner {
  using reads = sg::reads_from<>;
  using writes = sg::writes_to<nav>;
  auto operator()(sg::view<State, reads>) const {
    return sg::write<&State::active_plan>(std::string("go north")) | sg::write<&State::step_count>(1);
  }
};
struct replanner {
  using reads = sg::reads_from<nav>;
#ifdef SG_VIOLATION
  using writes = sg::writes_to<nav, spatial>;
#else
  using writes = sg::writes_to<spatial>;
#endif
  auto operator()(sg::view<State, reads> in) const { return sg::write<&State::position>(in.get<&State::step_count>()); }
};

using G = sg::graph<State, sg::edge<sg::start, planner>, sg::edge<sg::start, replanner>, sg::edge<planner, sg::end>,
                    sg::edge<replanner, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{}).active_plan == "go north" ? 0 : 1;
}
