// W3f, the library side (see workloads.hpp for why each workload and side has its own file).
#include "workloads.hpp"

namespace bench {
namespace {
const auto app = sg::compile<w3f::graph>();
}  // namespace

w3f::CounterState w3f_library() { return app.invoke(w3f::CounterState{}); }

}  // namespace bench
