// W1 pipeline10, both sides (see workloads.hpp for why each workload has its own file).
#include "workloads.hpp"

namespace bench {
namespace {
const auto app = sg::compile<w1::graph>();
}  // namespace

State w1_library() { return app.invoke(State{}); }
hand::state w1_hand() { return hand::pipeline10(hand::state{}); }

}  // namespace bench
