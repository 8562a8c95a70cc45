// EXPECT: SG007
// EXPECT: SG007_singleton_stage_holds_more_than_one_node<synthesize, draft, polish>
// SG007: the singleton stage `synthesize` holds two nodes, draft and polish.
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct State {
  sg::append<std::string> log;
};

struct tool_loop {};
struct synthesize {};

#ifdef SG_VIOLATION
using polish_stage = synthesize;
#else
using polish_stage = tool_loop;
#endif

struct draft {
  using stage = synthesize;
  using reads = sg::reads<>;
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::log>(std::string("draft")); }
};
struct polish {
  using stage = polish_stage;
  using reads = sg::reads<>;
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::log>(std::string("polish")); }
};

using turn = sg::lattice<sg::transition<synthesize, tool_loop>, sg::transition<synthesize, synthesize>,
                         sg::singleton<synthesize>>;

using G = sg::graph<State, turn, sg::edge<sg::start, draft>, sg::edge<draft, polish>, sg::edge<polish, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{}).log.size() == 2 ? 0 : 1;
}
