// SG009: every node can be reached from start, and every node can reach end.
#pragma once

#include <stategraph/detail/meta.hpp>
#include <stategraph/rules/handovers.hpp>
#include <stategraph/schedule.hpp>

#include <boost/mp11/algorithm.hpp>

#include <array>
#include <cstddef>

namespace stategraph::rules {

// The first node of the graph A (an sg::analysis) analyses that start does not reach, and
// the first that does not reach end (A::size when there is none).
//
// Both walks visit each node and each hand-over once (a work list over the members of
// each set), so they cost O(N·N/64 + hand-overs) steps, not O(N²) or O(N³): the constant
// evaluators cap the steps of one evaluation.
namespace detail {
// `seen` and every node reachable from it along `edges` (a work list: each node once).
template <std::size_t N>
constexpr node_set<N> reached_along(node_set<N> seen, const std::array<node_set<N>, N>& edges) {
  std::array<std::size_t, N + 1> todo{};
  std::size_t top = 0;
  seen.for_each([&](std::size_t i) { todo[top++] = i; });
  while (top > 0) {
    node_set<N> fresh = edges[todo[--top]];
    fresh.remove(seen);
    seen |= fresh;
    fresh.for_each([&](std::size_t j) { todo[top++] = j; });
  }
  return seen;
}
// The first node start does not reach (N when there is none).
template <std::size_t N>
constexpr std::size_t first_unreached(node_set<N> start, const node_set<N>& woken_by_input,
                                      const std::array<node_set<N>, N>& next) {
  start |= woken_by_input;
  const node_set<N> seen = reached_along(start, next);
  for (std::size_t i = 0; i < N; ++i)
    if (!seen.test(i)) return i;
  return N;
}
// The first node that does not reach end (N when there is none).
template <std::size_t N>
constexpr std::size_t first_dead_end(const std::array<node_set<N>, N>& next, const std::array<bool, N>& ends) {
  // Walk backwards from the nodes that reach end, through each node's predecessors.
  std::array<node_set<N>, N> before{};
  for (std::size_t i = 0; i < N; ++i) next[i].for_each([&](std::size_t j) { before[j].set(i); });
  node_set<N> at_end{};
  for (std::size_t i = 0; i < N; ++i)
    if (ends[i]) at_end.set(i);
  const node_set<N> reached = reached_along(at_end, before);
  // Name a node with no way out at all before one that only leads to such a node: the
  // first is where an edge is missing.
  for (std::size_t i = 0; i < N; ++i)
    if (!reached.test(i) && !next[i].any()) return i;
  for (std::size_t i = 0; i < N; ++i)
    if (!reached.test(i)) return i;
  return N;
}
}  // namespace detail

template <class A>
struct reach_facts {
  // (Enumerators, not static members: see analysis::size.)
  enum : std::size_t {
    unreachable = detail::first_unreached<A::size>(
        A::table.from_start, A::reactive ? A::wakes_on_input : typename A::set{}, handovers<A>::next),
    dead_end = detail::first_dead_end<A::size>(handovers<A>::next, handovers<A>::ends)
  };
};

// ---- predicates ------------------------------------------------------------------------

// Every node of the graph A analyses can be reached from start.
template <class A>
concept all_reachable_from_start = std::size_t{reach_facts<A>::unreachable} == A::size;

// Every node of the graph can reach end.
template <class A>
concept all_reach_end = std::size_t{reach_facts<A>::dead_end} == A::size;

// ---- diagnostics -----------------------------------------------------------------------

template <class Node>
struct SG009_node_is_unreachable_from_start {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG009_node_is_unreachable_from_start>,
                  "SG009: no path leads from start to this node");
  };
  static constexpr fail<> raised{};
};

template <class Node>
struct SG009_node_cannot_reach_end {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG009_node_cannot_reach_end>, "SG009: no path leads from this node to end");
  };
  static constexpr fail<> raised{};
};

// The diagnostics with the first offender, named as the graph names it.
template <class A>
using unreachable_diagnostic =
    SG009_node_is_unreachable_from_start<boost::mp11::mp_at_c<typename A::names, reach_facts<A>::unreachable>>;
template <class A>
using dead_end_diagnostic = SG009_node_cannot_reach_end<boost::mp11::mp_at_c<typename A::names, reach_facts<A>::dead_end>>;

}  // namespace stategraph::rules
