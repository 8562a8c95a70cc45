// EXPECT: SG002
// EXPECT: SG002_node_writes_undeclared_channel<seed, .*\{&Canvas::tracker, &Tracker::seen\}>
// SG002 on a composite's channel: `seed` writes `tracker.seen` (the key
// sg::in<&Canvas::tracker, &Tracker::seen>), but its `writes` lists only `tracker.count`.
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct Tracker {
  sg::append<std::string> seen;
  sg::counter<int> count;
};
struct record {
  using writes = sg::writes<&Tracker::seen, &Tracker::count>;
  auto operator()(sg::view<Tracker, sg::reads<>>) const { return sg::write<&Tracker::seen>("tick") | sg::write<&Tracker::count>(1); }
};
using tracker_graph = sg::graph<Tracker, sg::edge<sg::start, record>, sg::edge<record, sg::end>>;

struct Canvas {
  sg::last_value<int> position;
  sg::composite<Tracker> tracker;
};
struct tracker {};
using tracker_node = sg::subgraph<tracker, tracker_graph, sg::flatten<&Canvas::tracker>>;

struct seed {
#ifdef SG_VIOLATION
  using writes = sg::writes<sg::in<&Canvas::tracker, &Tracker::count>>;
#else
  using writes = sg::writes<sg::in<&Canvas::tracker, &Tracker::count>, sg::in<&Canvas::tracker, &Tracker::seen>>;
#endif
  auto operator()(sg::view<Canvas, sg::reads<>>) const {
    return sg::write<sg::in<&Canvas::tracker, &Tracker::count>>(2) | sg::write<sg::in<&Canvas::tracker, &Tracker::seen>>("seed");
  }
};
using canvas_graph =
    sg::graph<Canvas, sg::edge<sg::start, seed>, sg::edge<seed, tracker_node>, sg::edge<tracker_node, sg::end>>;

int main() {
  const Canvas out = sg::compile<canvas_graph>().invoke(Canvas{});
  return out.tracker.seen.size() == 2 && out.tracker.count == 3 ? 0 : 1;
}
