// EXPECT: stream_arguments_fit_no_overload<State, stategraph::stream_mode, count_ints>
// EXPECT-gcc: misuse_stream_callback_of_wrong_signature\.cpp:[0-9]+:[0-9]+: +required from here
// A stream callback that does not take the event: one error naming the arguments' types
// (the callback among them) and what stream takes, where "no matching function" printed the
// app's whole type in each candidate's note.
#include <stategraph/stategraph.hpp>

namespace sg = stategraph;

struct State {
  int n = 0;
};

struct bump {
  using reads = sg::reads<&State::n>;
  using writes = sg::writes<&State::n>;
  auto operator()(sg::view<State, reads> in) const { return sg::write<&State::n>(in.get<&State::n>() + 1); }
};

// A callback that takes an int, not the event (a class, as a lambda's type names its file's
// full path).
struct count_ints {
  int* events;
  void operator()(int) const { ++*events; }
};
using G = sg::graph<State, sg::edge<sg::start, bump>, sg::edge<bump, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  int events = 0;
#ifdef SG_VIOLATION
  app.stream(State{}, sg::stream_mode::updates, count_ints{&events});
#else
  app.stream(State{}, sg::stream_mode::updates, [&](const sg::event<State>&) { ++events; });
#endif
  return events == 1 ? 0 : 1;
}
