// EXPECT: update_state_arguments_fit_no_overload<stategraph::thread_id, stategraph::patch<
// EXPECT-gcc: misuse_update_state_without_as_node\.cpp:[0-9]+:[0-9]+: +required from here
// update_state without sg::as_node<Node> (which node the write is made as): one error
// naming the arguments' types and what update_state takes, in short lines.
#include <stategraph/checkpoint.hpp>
#include <stategraph/stategraph.hpp>
#include <stategraph/store/memory.hpp>

namespace sg = stategraph;

struct State {
  sg::counter<int> n;
};

struct bump {
  using reads = sg::reads<>;
  using writes = sg::writes<&State::n>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::n>(1); }
};

using G = sg::graph<State, sg::edge<sg::start, bump>, sg::edge<bump, sg::end>>;

int main() {
  sg::memory_store store;
  auto app = sg::compile<G>(sg::with_store(store));
  const sg::thread_id t{"t"};
  app.invoke(State{}, t);
#ifdef SG_VIOLATION
  app.update_state(t, sg::write<&State::n>(5));
#else
  app.update_state(t, sg::write<&State::n>(5), sg::as_node<bump>);
#endif
  return app.get_state(t)->values.n == 6 ? 0 : 1;
}
