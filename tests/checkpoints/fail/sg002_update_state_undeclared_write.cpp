// EXPECT: SG002
// EXPECT: SG002_node_writes_undeclared_channel<tools, &State::calls>
// SG002 through update_state: the patch is written as node `tools`, whose `writes` lists
// only `log`, but it writes `calls`.
#include <stategraph/checkpoint.hpp>
#include <stategraph/stategraph.hpp>
#include <stategraph/store/memory.hpp>

#include <string>

namespace sg = stategraph;

struct State {
  sg::append<std::string> log;
  sg::counter<int> calls;
};

struct tools {
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, sg::reads<>>) const { return sg::write<&State::log>(std::string("tool")); }
};

using G = sg::graph<State, sg::edge<sg::start, tools>, sg::edge<tools, sg::end>>;

int main() {
  sg::memory_store store;
  auto app = sg::compile<G>(sg::with_store(store));
  const sg::thread_id t{"t"};
  app.invoke(State{}, t);
#ifdef SG_VIOLATION
  app.update_state(t, sg::write<&State::calls>(1), sg::as_node<tools>);
#else
  app.update_state(t, sg::write<&State::log>(std::string("edited")), sg::as_node<tools>);
#endif
  return app.get_state(t)->values.log.size() == 2 ? 0 : 1;
}
