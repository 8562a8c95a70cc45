// W2 fanout8, the hand-written side (see workloads.hpp for why each workload and side has its
// own file).
#include "workloads.hpp"

namespace bench {

hand::state w2_hand() { return hand::fanout8(hand::state{}); }

}  // namespace bench
