// EXPECT: SG012
// EXPECT: SG012_context_does_not_provide_the_seam<summarize, reasoning, app_context>
// SG012 when the node takes the context's own type: `summarize` declares the seam
// `reasoning` and takes an app_context&, which does not provide it. One error: sg::compile
// types the node with that context without a second error inside sg::seam.
#include <stategraph/stategraph.hpp>

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

struct summarize {
  using seam = reasoning;
  using reads = sg::reads<&State::text>;
  using writes = sg::writes<&State::summary>;
  auto operator()(sg::view<State, reads> in, app_context& ctx) const {
    return sg::write<&State::summary>(sg::seam<reasoning>(ctx).think(in.get<&State::text>()));
  }
};

using G = sg::graph<State, sg::edge<sg::start, summarize>, sg::edge<summarize, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  app_context ctx;
  return app.invoke(State{.text = "long"}, ctx).summary.empty() ? 1 : 0;
}
