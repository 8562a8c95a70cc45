// EXPECT: SG002
// EXPECT: SG002_node_writes_undeclared_channel<fetch, &State::calls>
// SG002 through a coroutine node: the rules see the patch its awaitable produces, which
// writes `calls`, while its `writes` lists only `log`.
#include <stategraph/asio.hpp>

#include <string>

namespace sg = stategraph;

struct State {
  sg::append<std::string> log;
  sg::counter<int> calls;
};

struct fetch {
  using writes = sg::writes<&State::log>;
#ifdef SG_VIOLATION
  boost::asio::awaitable<sg::patch<sg::entry<&State::calls, int>>> operator()(sg::view<State, sg::reads<>>) const {
    co_return sg::write<&State::calls>(1);
  }
#else
  boost::asio::awaitable<sg::patch<sg::entry<&State::log, std::string>>> operator()(sg::view<State, sg::reads<>>) const {
    co_return sg::write<&State::log>(std::string("fetched"));
  }
#endif
};

using G = sg::graph<State, sg::edge<sg::start, fetch>, sg::edge<fetch, sg::end>>;

int main() { return sg::compile<G>().invoke(State{}).log.size() == 1 ? 0 : 1; }
