// What the graph-wide rules (SG006, SG009) read off a graph: every hand-over from one node
// to another that a run can make, and the nodes that can hand over to end.
#pragma once

#include <stategraph/schedule.hpp>

#include <array>
#include <cstddef>

namespace stategraph::rules {

// The facts are computed by functions keyed by the graph's sizes and read off its tables:
// a lambda in each member's initializer would be a closure type, its call operator and its
// conversion to a function pointer, three symbols that spell the whole graph.
namespace detail {
using stategraph::detail::branch_info;
using stategraph::detail::graph_tables;
using stategraph::detail::node_set;
using stategraph::detail::reactive_tables;

// Every node-to-node hand-over the graph declares: edges, branches, joins, goes, sends.
template <std::size_t N, std::size_t J, std::size_t B>
constexpr std::array<node_set<N>, N> declared_handovers(const graph_tables<N, J>& t,
                                                        const std::array<branch_info<node_set<N>>, B>& branches) {
  std::array<node_set<N>, N> out{};
  for (std::size_t i = 0; i < N; ++i) {
    out[i] = t.successors[i];
    out[i] |= t.goes[i];
    out[i] |= t.sends[i];
  }
  for (const auto& row : t.join_rows)
    if (row.into < N) row.sources.for_each([&](std::size_t i) { out[i].set(row.into); });
  for (const auto& b : branches)
    if (b.source < N) out[b.source] |= b.targets;
  return out;
}
// The declared hand-overs and, in a reactive graph, the subscriptions.
template <std::size_t N, std::size_t C>
constexpr std::array<node_set<N>, N> run_handovers(const std::array<node_set<N>, N>& declared, bool reactive,
                                                   const reactive_tables<N, C>& r) {
  std::array<node_set<N>, N> out = declared;
  if (reactive)
    for (std::size_t i = 0; i < N; ++i) out[i] |= stategraph::detail::woken_by(r, r.writes[i]);
  return out;
}
// The nodes that can hand over to end.
template <std::size_t N, std::size_t J, std::size_t B>
constexpr std::array<bool, N> ends_of(const graph_tables<N, J>& t,
                                      const std::array<branch_info<node_set<N>>, B>& branches) {
  std::array<bool, N> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = t.to_end[i] || t.goes_end[i];
  for (const auto& b : branches)
    if (b.source < N && b.to_end) out[b.source] = true;
  return out;
}
}  // namespace detail

// A is an sg::analysis.
template <class A>
struct handovers {
  enum : std::size_t { n = A::size };  // (an enumerator: see analysis::size)
  // Every node-to-node hand-over the graph declares: edges, branches, joins, goes, sends.
  static constexpr std::array<typename A::set, n> declared = detail::declared_handovers(A::table, A::branch_table);
  // Every node-to-node hand-over a run can make: the declared ones and the subscriptions.
  static constexpr std::array<typename A::set, n> next = detail::run_handovers(declared, A::reactive, A::reactivity);
  static constexpr std::array<bool, n> ends = detail::ends_of(A::table, A::branch_table);
};

}  // namespace stategraph::rules
