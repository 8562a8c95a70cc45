// The state of benchmarks.md's W1–W3 workloads, shared by several test files: a counter
// (sum) and a log (append of strings) to which every node appends its own name, so a
// run's log shows which nodes ran and in what merge order.
#pragma once

#include <stategraph/stategraph.hpp>
#include <string>
#include <vector>

// Named (not anonymous): Clang 14 cannot reflect a state type without linkage.
namespace unit {

namespace sg = stategraph;

struct Logged {
  sg::counter<int> counter;
  sg::append<std::string> log;
};

using strings = std::vector<std::string>;

// A node that adds 1 to the counter and appends its own name. Nodes derive from it with
// themselves as the argument (`struct a : logs_name<a> {};`); a test file declares its nodes
// in its own namespace so that equal names in two files stay two types.
template <class Self>
struct logs_name {
  using reads = sg::reads<>;
  using writes = sg::writes<&Logged::counter, &Logged::log>;
  auto operator()(sg::view<Logged, reads>) const {
    return sg::write<&Logged::counter>(1) | sg::write<&Logged::log>(std::string(sg::node_traits<Self>::name));
  }
};

// Routes back to Node until the counter reaches Limit, then ends (the W3 shape).
template <class Node, int Limit>
struct loop_until {
  using reads = sg::reads<&Logged::counter>;
  sg::go<Node, sg::end> operator()(sg::view<Logged, reads> in) const {
    if (in.get<&Logged::counter>() < Limit) return sg::to<Node>;
    return sg::to<sg::end>;
  }
};

}  // namespace unit
