// W2 fanout8, the library side (see workloads.hpp for why each workload and side has its
// own file).
#include "workloads.hpp"

namespace bench {
namespace {
const auto app = sg::compile<w2::graph>();
}  // namespace

State w2_library() { return app.invoke(State{}); }
State w2_pool() {
  // Built on first use, so the pool's threads exist only in runs that measure it.
  static const auto on_pool = sg::compile<w2::graph>(sg::with_executor(sg::thread_pool{2}));
  return on_pool.invoke(State{});
}

}  // namespace bench
