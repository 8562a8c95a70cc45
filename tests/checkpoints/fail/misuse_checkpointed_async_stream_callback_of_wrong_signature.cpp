// EXPECT: checkpointed_async_stream_arguments_fit_no_overload<State, stategraph::thread_id, stategraph::stream_mode, count_ints>
// EXPECT-gcc: misuse_checkpointed_async_stream_callback_of_wrong_signature\.cpp:[0-9]+:[0-9]+: +required from here
// A checkpointed async stream whose callback does not take the event: one error naming the
// arguments' types and what async_stream takes, in short lines.
#include <stategraph/checkpoint/asio.hpp>
#include <stategraph/stategraph.hpp>
#include <stategraph/store/memory.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include <utility>

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

using App = decltype(sg::compile<G>(sg::with_store(std::declval<sg::memory_store&>())));

boost::asio::awaitable<void> run(const App& app, int& events) {
#ifdef SG_VIOLATION
  co_await app.async_stream(State{}, sg::thread_id{"t"}, sg::stream_mode::updates, count_ints{&events});
#else
  co_await app.async_stream(State{}, sg::thread_id{"t"}, sg::stream_mode::updates,
                            [&](const sg::event<State>&) { ++events; });
#endif
}

int main() {
  sg::memory_store store;
  auto app = sg::compile<G>(sg::with_store(store));
  int events = 0;
  boost::asio::io_context io;
  boost::asio::co_spawn(io, run(app, events), boost::asio::detached);
  io.run();
  return events == 1 ? 0 : 1;
}
