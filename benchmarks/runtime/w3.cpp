// W3 loop1000, both sides (see workloads.hpp for why each workload has its own file).
#include "workloads.hpp"

namespace bench {
namespace {
const auto app = sg::compile<w3::graph>();
}  // namespace

State w3_library() { return app.invoke(State{}); }
hand::state w3_hand() { return hand::loop1000(hand::state{}); }

}  // namespace bench
