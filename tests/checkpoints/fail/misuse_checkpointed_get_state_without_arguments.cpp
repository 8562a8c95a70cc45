// EXPECT: get_state_arguments_fit_no_overload<>
// EXPECT-gcc: misuse_checkpointed_get_state_without_arguments\.cpp:[0-9]+:[0-9]+: +required from here
// A checkpointed app's get_state with no argument: one error naming the entry point and what it
// takes, at the call's line, where "no matching function" printed the app's type (the plain
// app's inside durable_app<...>) in each candidate's note.
#include <stategraph/checkpoint.hpp>
#include <stategraph/stategraph.hpp>
#include <stategraph/store/memory.hpp>

#include <cstdint>
#include <optional>

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
  auto latest = app.get_state();
#else
  auto latest = app.get_state(t);
#endif
  return latest->values.n == 1 ? 0 : 1;
}
