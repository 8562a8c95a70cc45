// EXPECT: get_state_arguments_fit_no_overload<stategraph::thread_id, int>
// EXPECT-gcc: misuse_get_state_checkpoint_id_as_int\.cpp:[0-9]+:[0-9]+: +required from here
// A checkpoint named by a bare number where sg::checkpoint_id goes: one error naming the
// arguments' types and what get_state takes, in short lines.
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
  auto first = app.get_state(t, 1);
#else
  auto first = app.get_state(t, sg::checkpoint_id{1});
#endif
  return first.values.n == 0 ? 0 : 1;
}
