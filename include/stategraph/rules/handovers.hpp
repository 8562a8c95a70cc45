// What the graph-wide rules (SG006, SG009) read off a graph: every hand-over from one node
// to another that a run can make, and the nodes that can hand over to end.
#pragma once

#include <stategraph/schedule.hpp>

#include <array>
#include <cstddef>

namespace stategraph::rules {

// A is an sg::analysis.
template <class A>
struct handovers {
  static constexpr std::size_t n = A::size;

  // Every node-to-node hand-over the graph declares: edges, branches, joins, goes, sends.
  static constexpr std::array<typename A::set, n> declared = [] {
    std::array<typename A::set, n> out{};
    for (std::size_t i = 0; i < n; ++i) {
      out[i] = A::table.successors[i];
      out[i] |= A::table.goes[i];
      out[i] |= A::table.sends[i];
    }
    for (auto& row : A::table.join_rows)
      if (row.into < n) row.sources.for_each([&](std::size_t i) { out[i].set(row.into); });
    for (const auto& b : A::branch_table)
      if (b.source < n) out[b.source] |= b.targets;
    return out;
  }();
  // Every node-to-node hand-over a run can make: the declared ones and the subscriptions.
  static constexpr std::array<typename A::set, n> next = [] {
    std::array<typename A::set, n> out = declared;
    if constexpr (A::reactive)
      for (std::size_t i = 0; i < n; ++i) out[i] |= A::may_wake(i);
    return out;
  }();
  static constexpr std::array<bool, n> ends = [] {
    std::array<bool, n> out{};
    for (std::size_t i = 0; i < n; ++i) out[i] = A::table.to_end[i] || A::table.goes_end[i];
    for (const auto& b : A::branch_table)
      if (b.source < n && b.to_end) out[b.source] = true;
    return out;
  }();
};

}  // namespace stategraph::rules
