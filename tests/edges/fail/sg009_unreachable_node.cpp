// EXPECT: SG009
// EXPECT: SG009_node_is_unreachable_from_start<review>
// SG009: nothing leads from start to `review`.
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct State {
  sg::append<std::string> log;
};

struct draft {
  using reads = sg::reads<>;
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::log>(std::string("draft")); }
};
struct review {
  using reads = sg::reads<>;
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::log>(std::string("review")); }
};

using G = sg::graph<State, sg::edge<sg::start, draft>,
#ifdef SG_VIOLATION
                    sg::edge<draft, sg::end>,
#else
                    sg::edge<draft, review>,
#endif
                    sg::edge<review, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{}).log.size() == 2 ? 0 : 1;
}
