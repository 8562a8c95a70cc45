// W3 loop1000, the library side (see workloads.hpp for why each workload and side has its
// own file).
#include "workloads.hpp"

namespace bench {
namespace {
const auto app = sg::compile<w3::graph>();
}  // namespace

State w3_library() { return app.invoke(State{}); }

}  // namespace bench
