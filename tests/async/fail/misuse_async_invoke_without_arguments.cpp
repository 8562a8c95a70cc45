// EXPECT: async_invoke_arguments_fit_no_overload<>
// EXPECT-gcc: misuse_async_invoke_without_arguments\.cpp:[0-9]+:[0-9]+: +required from here
// EXPECT-clang: no_arguments<stategraph::rules::async_invoke_arguments_fit_no_overload<>>::no_arguments' requested here
// async_invoke with no argument: one error naming the entry point and what it takes, at the
// call's line, not the app's type.
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

using G = sg::graph<State, sg::edge<sg::start, bump>, sg::edge<bump, sg::end>>;
using App = decltype(sg::compile<G>());

boost::asio::awaitable<void> run(const App& app, int& out) {
#ifdef SG_VIOLATION
  out = (co_await app.async_invoke()).n;
#else
  out = (co_await app.async_invoke(State{41})).n;
#endif
}

int main() {
  auto app = sg::compile<G>();
  int out = 0;
  boost::asio::io_context io;
  boost::asio::co_spawn(io, run(app, out), boost::asio::detached);
  io.run();
  return out == 42 ? 0 : 1;
}
