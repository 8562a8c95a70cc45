// W1 pipeline10, the library side (see workloads.hpp for why each workload and side has its
// own file).
#include "workloads.hpp"

namespace bench {
namespace {
const auto app = sg::compile<w1::graph>();
}  // namespace

State w1_library() { return app.invoke(State{}); }

}  // namespace bench
