// Sends through checkpoints: queued payloads are part of a checkpoint, survive a pause and
// a failed step, and a resumed run ends where a run never interrupted ends.
#include "fixtures.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

using namespace durable_test;

namespace durable_sends {

struct Map {
  std::vector<int> items;
  sg::counter<int> total;
  sg::append<std::string> log;
};

std::atomic<int> fan_runs{0}, square_runs{0}, flaky_failures{0};

struct square;
struct fan {
  using reads = sg::reads<&Map::items>;
  using sends = sg::sends<square>;
  std::vector<sg::send_to<square, int>> operator()(sg::view<Map, reads> in) const {
    ++fan_runs;
    std::vector<sg::send_to<square, int>> out;
    for (int x : in.get<&Map::items>()) out.push_back(sg::send<square>(x));
    return out;
  }
};
struct square {
  using writes = sg::writes<&Map::total, &Map::log>;
  auto operator()(sg::view<Map, sg::reads<>>, const int& x) const {
    ++square_runs;
    return sg::write<&Map::total>(x * x) | sg::write<&Map::log>("sq" + std::to_string(x));
  }
};
// Beside fan in the first step; throws while flaky_failures lasts.
struct flaky {
  using reads = sg::reads<>;
  using writes = sg::writes<&Map::log>;
  auto operator()(sg::view<Map, reads>) const {
    if (flaky_failures-- > 0) throw std::runtime_error("flaky");
    return sg::write<&Map::log>(std::string("flaky"));
  }
};
struct reduce {
  using reads = sg::reads<&Map::total>;
  using writes = sg::writes<&Map::log>;
  auto operator()(sg::view<Map, reads> in) const {
    return sg::write<&Map::log>("sum=" + std::to_string(in.get<&Map::total>()));
  }
};
using G = sg::graph<Map, sg::edge<sg::start, fan>, sg::edge<sg::start, flaky>, sg::edge<square, reduce>,
                    sg::edge<flaky, sg::end>, sg::edge<reduce, sg::end>>;

Map input() {
  Map m{};
  m.items = {1, 2, 3};
  return m;
}
const strings expected_log{"flaky", "sq1", "sq2", "sq3", "sum=14"};

void reset(int failures) {
  fan_runs = 0;
  square_runs = 0;
  flaky_failures = failures;
}

TEST_CASE_TEMPLATE("a checkpointed run with sends ends like a plain one", F, DURABLE_FIXTURES) {
  reset(0);
  const Map plain = sg::compile<G>().invoke(input());
  CHECK(plain.log == expected_log);
  F fx;
  auto app = sg::compile<G>(sg::with_store(fx.store));
  Map out = app.invoke(input(), sg::thread_id{"t"});
  CHECK(out.log == plain.log);
  CHECK(out.total == 14);
  // After step 1 the payloads wait in the checkpoint: the send target is what runs next.
  auto h = app.history(sg::thread_id{"t"});
  REQUIRE(h.size() == 4);
  CHECK(h[2].next == strings{"square"});
}

TEST_CASE_TEMPLATE("a kept send survives a failed step: each payload runs once on resume", F, DURABLE_FIXTURES) {
  reset(1);
  F fx;
  auto app = sg::compile<G>(sg::with_store(fx.store));
  const sg::thread_id t{"t"};
  CHECK_THROWS_AS(app.invoke(input(), t), sg::node_error);
  CHECK(fan_runs == 1);
  CHECK(square_runs == 0);
  Map out = app.resume(t);
  CHECK(fan_runs == 1);  // its sends were kept, not made again
  CHECK(square_runs == 3);
  CHECK(out.log == expected_log);
  CHECK(out.total == 14);
}

TEST_CASE_TEMPLATE("queued sends survive a static pause and a new app on the same store", F, DURABLE_FIXTURES) {
  reset(0);
  F fx;
  {
    auto app = sg::compile<G>(sg::with_store(fx.store), sg::interrupt_before<reduce>{});
    Map paused = app.invoke(input(), sg::thread_id{"t"});
    CHECK(paused.log == strings{"flaky", "sq1", "sq2", "sq3"});
    CHECK(app.get_state(sg::thread_id{"t"})->next == strings{"reduce"});
  }
  auto app = sg::compile<G>(sg::with_store(fx.store));
  Map out = app.resume(sg::thread_id{"t"});
  CHECK(out.log == expected_log);
  CHECK(square_runs == 3);
}

TEST_CASE_TEMPLATE("interrupt_before a send target pauses before its tasks run", F,
                   DURABLE_FIXTURES) {
  // square runs only as a send target: the pause looks at queued sends, not just at the
  // active nodes.
  reset(0);
  F fx;
  auto app = sg::compile<G>(sg::with_store(fx.store), sg::interrupt_before<square>{});
  Map paused = app.invoke(input(), sg::thread_id{"t"});
  CHECK(square_runs == 0);
  CHECK(paused.log == strings{"flaky"});
  CHECK(app.get_state(sg::thread_id{"t"})->next == strings{"square"});
}

}  // namespace durable_sends
