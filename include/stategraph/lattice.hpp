// Stages and the lattice of allowed stage transitions (contract §3).
#pragma once

#include <stategraph/detail/meta.hpp>
#include <stategraph/node.hpp>

#include <type_traits>

namespace stategraph {

template <class From, class To>
struct transition {};
template <class Stage>
struct within {};  // edges between nodes of the same stage are allowed
template <class Stage>
struct singleton {};  // exactly one node may live in this stage
// A node of stage From may wake a reactive node of stage To through a channel it writes
// (a subscription), though no edge may go from From to To.
template <class From, class To>
struct wakes {};

template <class... Rules>
struct lattice {
  using rules = detail::mp_list<Rules...>;
};

struct no_lattice {  // every transition allowed
  using rules = detail::mp_list<>;
};

template <class T>
inline constexpr bool is_lattice = false;
template <class... Rules>
inline constexpr bool is_lattice<lattice<Rules...>> = true;
template <>
inline constexpr bool is_lattice<no_lattice> = true;

// May an edge go from a node of stage A to a node of stage B? Unstaged nodes (any_stage)
// and graphs without a lattice allow everything; a stage hands over to itself only when
// the lattice says `within<A>` or `transition<A, A>`.
template <class Lattice, class A, class B>
constexpr bool allows_transition() {
  if constexpr (std::is_same_v<Lattice, no_lattice> || std::is_same_v<A, any_stage> ||
                std::is_same_v<B, any_stage>) {
    return true;
  } else {
    using rules = typename Lattice::rules;
    return detail::contains<transition<A, B>, rules> ||
           (std::is_same_v<A, B> && detail::contains<within<A>, rules>);
  }
}

// May a node of stage A wake a subscriber of stage B? Whatever an edge may do, and what
// `wakes<A, B>` allows.
template <class Lattice, class A, class B>
constexpr bool allows_wake() {
  if constexpr (allows_transition<Lattice, A, B>()) return true;
  else return detail::contains<wakes<A, B>, typename Lattice::rules>;
}

template <class Lattice, class Stage>
constexpr bool is_singleton_stage() {
  return detail::contains<singleton<Stage>, typename Lattice::rules>;
}

}  // namespace stategraph
