// W3 loop1000, the hand-written side (see workloads.hpp for why each workload and side has its
// own file).
#include "workloads.hpp"

namespace bench {

hand::state w3_hand() { return hand::loop1000(hand::state{}); }

}  // namespace bench
