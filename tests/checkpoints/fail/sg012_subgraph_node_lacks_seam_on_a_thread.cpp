// EXPECT: SG012
// EXPECT: SG012_context_does_not_provide_the_seam_in_a_subgraph<stategraph::rules::node_path<review, checking, check>, reasoning, app_context>
// SG012 on a checkpointed app: `check`, a node two levels down (inside `review`, then
// `checking`), declares the seam `reasoning`; the context given to invoke on a thread
// reaches it, but does not provide that seam.
#include <stategraph/stategraph.hpp>
#include <stategraph/subgraph.hpp>
#include <stategraph/checkpoint.hpp>
#include <stategraph/store/memory.hpp>

#include <string>

namespace sg = stategraph;

struct State {
  std::string text;
  std::string summary;
};

struct reasoning {
  std::string think(const std::string& s) { return "short: " + s; }
};

#ifdef SG_VIOLATION
struct app_context {
  int budget = 3;
};
#else
struct app_context : reasoning {
  int budget = 3;
};
#endif

struct check {
  using seam = reasoning;
  using reads = sg::reads<&State::text>;
  using writes = sg::writes<&State::summary>;
  template <class Ctx>
  auto operator()(sg::view<State, reads> in, Ctx& ctx) const {
    return sg::write<&State::summary>(sg::seam<reasoning>(ctx).think(in.get<&State::text>()));
  }
};
using check_graph = sg::graph<State, sg::edge<sg::start, check>, sg::edge<check, sg::end>>;
struct checking {};
using check_node = sg::subgraph<checking, check_graph>;

struct tidy {  // needs no seam
  using reads = sg::reads<&State::text>;
  using writes = sg::writes<&State::text>;
  auto operator()(sg::view<State, reads> in) const { return sg::write<&State::text>(in.get<&State::text>()); }
};
using review_graph = sg::graph<State, sg::edge<sg::start, tidy>, sg::edge<tidy, check_node>, sg::edge<check_node, sg::end>>;
struct review {};
using review_node = sg::subgraph<review, review_graph>;

using G = sg::graph<State, sg::edge<sg::start, review_node>, sg::edge<review_node, sg::end>>;

int main() {
  sg::memory_store store;
  auto app = sg::compile<G>(sg::with_store(store));
  app_context ctx;
  return app.invoke(State{.text = "long"}, sg::thread_id{"t"}, ctx).summary.empty() ? 1 : 0;
}
