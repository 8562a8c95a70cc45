// EXPECT: stream_arguments_fit_no_overload<State, stategraph::stream_mode, stategraph::rules::lambda<void ?\(int\)> ?>
// EXPECT-gcc: misuse_stream_lambda_callback_of_wrong_signature\.cpp:[0-9]+:[0-9]+: +required from here
// A lambda callback that does not take the event: the error shows it by its signature,
// `lambda<void(int)>`, where Clang named its type by the file's full path and position (the
// caller's line is printed anyway).
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

using G = sg::graph<State, sg::edge<sg::start, bump>, sg::edge<bump, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  int events = 0;
#ifdef SG_VIOLATION
  app.stream(State{}, sg::stream_mode::updates, [&events](int) { ++events; });
#else
  app.stream(State{}, sg::stream_mode::updates, [&](const sg::event<State>&) { ++events; });
#endif
  return events == 1 ? 0 : 1;
}
