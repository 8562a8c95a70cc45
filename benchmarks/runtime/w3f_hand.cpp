// W3f, the hand-written side (see workloads.hpp for why each workload and side has its own
// file).
#include "workloads.hpp"

namespace bench {

hand::counter_state w3f_hand() { return hand::loop_bound(hand::counter_state{}); }

}  // namespace bench
