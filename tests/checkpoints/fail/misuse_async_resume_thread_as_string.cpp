// EXPECT: async_resume_arguments_fit_no_overload<const char ?\*>
// EXPECT-gcc: misuse_async_resume_thread_as_string\.cpp:[0-9]+:[0-9]+: +required from here
// A thread named by a string where sg::thread_id goes, in async_resume: one error naming the
// arguments' types and what async_resume takes, not the checkpointed app's type.
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

using G = sg::graph<State, sg::edge<sg::start, bump>, sg::edge<bump, sg::end>>;

using App = decltype(sg::compile<G>(sg::with_store(std::declval<sg::memory_store&>())));

boost::asio::awaitable<void> run(const App& app, int& out) {
#ifdef SG_VIOLATION
  out = (co_await app.async_resume("t")).n;
#else
  out = (co_await app.async_resume(sg::thread_id{"t"})).n;
#endif
}

int main() {
  sg::memory_store store;
  auto app = sg::compile<G>(sg::with_store(store));
  int out = 0;
  boost::asio::io_context io;
  boost::asio::co_spawn(io, run(app, out), boost::asio::detached);
  io.run();
  return out == 1 ? 0 : 1;
}
