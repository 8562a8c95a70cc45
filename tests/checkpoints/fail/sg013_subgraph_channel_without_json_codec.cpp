// EXPECT: SG013
// EXPECT: SG013_channel_value_has_no_json_codec<.*blob.*, Blob>
// SG013: a checkpointed parent runs a subgraph whose own state has a channel (`Inner::blob`)
// whose value type has no JSON codec: a subgraph's state is stored like the parent's.
#include <stategraph/checkpoint.hpp>
#include <stategraph/stategraph.hpp>
#include <stategraph/store/memory.hpp>
#include <stategraph/subgraph.hpp>

#include <string>

namespace sg = stategraph;

struct Blob {
  int size = 0;
};
#ifndef SG_VIOLATION
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Blob, size)
#endif

struct Inner {
  std::string text;
  Blob blob;
};
struct measure {
  using reads = sg::reads<&Inner::text>;
  using writes = sg::writes<&Inner::blob>;
  auto operator()(sg::view<Inner, reads> in) const {
    return sg::write<&Inner::blob>(Blob{static_cast<int>(in.get<&Inner::text>().size())});
  }
};
using inner_graph = sg::graph<Inner, sg::edge<sg::start, measure>, sg::edge<measure, sg::end>>;

struct State {
  std::string draft;
};
struct review {};
using review_node = sg::subgraph<review, inner_graph, sg::maps<&State::draft, &Inner::text>>;
using G = sg::graph<State, sg::edge<sg::start, review_node>, sg::edge<review_node, sg::end>>;

int main() {
  sg::memory_store store;
  auto app = sg::compile<G>(sg::with_store(store));
  return app.invoke(State{"text"}, sg::thread_id{"t"}).draft == "text" ? 0 : 1;
}
