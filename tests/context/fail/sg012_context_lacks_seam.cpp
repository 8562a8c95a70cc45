// EXPECT: SG012
// EXPECT: SG012_context_does_not_provide_the_seam<summarize, reasoning, app_context>
// SG012: `summarize` declares the seam `reasoning`, but the context passed to invoke does not
// provide it (it neither derives from it nor has provide<reasoning>()).
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
  template <class Ctx>
  auto operator()(sg::view<State, reads> in, Ctx& ctx) const {
    return sg::write<&State::summary>(sg::seam<reasoning>(ctx).think(in.get<&State::text>()));
  }
};

using G = sg::graph<State, sg::edge<sg::start, summarize>, sg::edge<summarize, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  app_context ctx;
  return app.invoke(State{.text = "long"}, ctx).summary.empty() ? 1 : 0;
}
