// Edges, branches, joins and the graph type (contract §4). A graph is only a type: the
// analysis lives in schedule.hpp, the rules in rules.hpp.
#pragma once

#include <stategraph/detail/meta.hpp>
#include <stategraph/lattice.hpp>
#include <stategraph/node.hpp>

#include <type_traits>

namespace stategraph {

template <class From, class To>
struct edge {};

// After Source runs, Router (a type with `reads` and a call operator returning go<...> or
// go_all<...>) chooses what runs next.
template <class Source, class Router>
struct branch {};

// Target runs once every source has run since Target last ran (possibly in different steps).
template <class Target, class... Sources>
struct join {
  static_assert(sizeof...(Sources) > 0, "a join needs at least one source");
};

namespace detail {
template <class E>
struct element_nodes {  // what a graph element names, in declaration order
  using type = mp_list<>;
};
template <class A, class B>
struct element_nodes<edge<A, B>> {
  using type = mp_list<A, B>;
};
template <class T, class... S>
struct element_nodes<join<T, S...>> {
  using type = mp_list<T, S...>;
};

template <class T>
inline constexpr bool is_pseudo = std::is_same_v<T, start> || std::is_same_v<T, end>;

template <class T>
struct is_branch : std::false_type {};
template <class S, class R>
struct is_branch<branch<S, R>> : std::true_type {};
template <class T>
struct is_join : std::false_type {};
template <class T, class... S>
struct is_join<join<T, S...>> : std::true_type {};
template <class T>
struct is_edge : std::false_type {};
template <class A, class B>
struct is_edge<edge<A, B>> : std::true_type {};
}  // namespace detail

template <class State, class... Elements>
struct graph {
  using state_type = State;
  using lattice_type = no_lattice;
  using elements = detail::mp_list<Elements...>;
};

template <class State, class Lattice, class... Elements>
  requires is_lattice<Lattice>
struct graph<State, Lattice, Elements...> {
  using state_type = State;
  using lattice_type = Lattice;
  using elements = detail::mp_list<Elements...>;
};

}  // namespace stategraph
