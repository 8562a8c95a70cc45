// EXPECT: checkpointed_stream_arguments_fit_no_overload<>
// EXPECT-gcc: misuse_checkpointed_stream_without_arguments\.cpp:[0-9]+:[0-9]+: +required from here
// A checkpointed app's stream with no argument: one error naming the entry point and what it
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
#ifdef SG_VIOLATION
  State out = app.stream();
#else
  State out = app.stream(State{}, t, sg::stream_mode::values, [](const sg::event<State>&) {});
#endif
  return out.n == 1 ? 0 : 1;
}
