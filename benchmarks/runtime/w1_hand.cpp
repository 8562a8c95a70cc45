// W1 pipeline10, the hand-written side (see workloads.hpp for why each workload and side has its
// own file).
#include "workloads.hpp"

namespace bench {

hand::state w1_hand() { return hand::pipeline10(hand::state{}); }

}  // namespace bench
