// EXPECT: checkpointed_stream_arguments_fit_no_overload<State, stategraph::thread_id, stategraph::stream_mode, count_ints>
// EXPECT-gcc: misuse_checkpointed_stream_callback_of_wrong_signature\.cpp:[0-9]+:[0-9]+: +required from here
// A checkpointed stream whose callback does not take the event: one error naming the
// arguments' types and what stream takes, in short lines.
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

// A callback that takes an int, not the event (a class, as a lambda's type names its file's
// full path).
struct count_ints {
  int* events;
  void operator()(int) const { ++*events; }
};
using G = sg::graph<State, sg::edge<sg::start, bump>, sg::edge<bump, sg::end>>;

int main() {
  sg::memory_store store;
  auto app = sg::compile<G>(sg::with_store(store));
  int events = 0;
#ifdef SG_VIOLATION
  app.stream(State{}, sg::thread_id{"t"}, sg::stream_mode::updates, count_ints{&events});
#else
  app.stream(State{}, sg::thread_id{"t"}, sg::stream_mode::updates, [&](const sg::event<State>&) { ++events; });
#endif
  return events == 1 ? 0 : 1;
}
