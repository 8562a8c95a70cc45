// EXPECT: async_stream_arguments_fit_no_overload<State, stategraph::stream_mode, count_ints>
// EXPECT-gcc: misuse_async_stream_callback_of_wrong_signature\.cpp:[0-9]+:[0-9]+: +required from here
// An async stream whose callback does not take the event: one error naming the arguments'
// types and what async_stream takes, in short lines.
#include <stategraph/asio.hpp>
#include <stategraph/stategraph.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

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
using App = decltype(sg::compile<G>());

boost::asio::awaitable<void> run(const App& app, int& events) {
#ifdef SG_VIOLATION
  co_await app.async_stream(State{}, sg::stream_mode::updates, count_ints{&events});
#else
  co_await app.async_stream(State{}, sg::stream_mode::updates, [&](const sg::event<State>&) { ++events; });
#endif
}

int main() {
  auto app = sg::compile<G>();
  int events = 0;
  boost::asio::io_context io;
  boost::asio::co_spawn(io, run(app, events), boost::asio::detached);
  io.run();
  return events == 1 ? 0 : 1;
}
