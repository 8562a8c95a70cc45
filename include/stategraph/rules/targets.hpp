// SG005: what a graph names is a node of it. Every `goes`/`sends` target of a node is a
// node of the graph (or end, for goes); every edge, branch and join names nodes (start
// only as a source, end only as a target); and no element is declared twice.
#pragma once

#include <stategraph/calls.hpp>
#include <stategraph/detail/meta.hpp>
#include <stategraph/graph.hpp>
#include <stategraph/node.hpp>
#include <stategraph/schedule.hpp>

#include <boost/mp11/algorithm.hpp>

#include <array>
#include <cstddef>
#include <type_traits>

namespace stategraph::rules {

namespace detail {
using boost::mp11::mp_at_c;
using boost::mp11::mp_find_if_q;
using boost::mp11::mp_size;
using stategraph::detail::mp_list;

// ---- a node's targets ----
template <class A>
struct not_a_node_of {
  template <class T>
  using fn = std::bool_constant<!std::is_same_v<T, end> &&
                                stategraph::detail::position_of<T, typename A::name_lookup>::value ==
                                    stategraph::detail::none>;
};
template <class Targets, std::size_t Bad, bool Found = (Bad < mp_size<Targets>::value)>
struct stray_at {
  using type = mp_at_c<Targets, Bad>;
};
template <class Targets, std::size_t Bad>
struct stray_at<Targets, Bad, false> {
  using type = void;
};
// The first `goes`/`sends` target of N that is not a node of the graph A analyses (void
// when all are), found with the graph's name table.
template <class A, class N>
struct first_stray_target {
  using targets = boost::mp11::mp_append<typename node_traits<N>::goes_list, typename node_traits<N>::sends_list>;
  using type = typename stray_at<targets, mp_find_if_q<targets, not_a_node_of<A>>::value>::type;
};

// ---- the graph's elements ----
// A graph names a lambda node by its tag: the tag stands for the node bound to it.
// (A class, not a variable template: an instantiated variable is a symbol whose name would
// carry the graph type, see schedule.hpp.)
template <class A, class T>
struct names_a_node : std::bool_constant<stategraph::detail::node_like<typename A::template resolve_t<T>>> {};

template <class A, class E>
struct element_ok : std::true_type {};
template <class A, class From, class To>
struct element_ok<A, edge<From, To>>
    : std::bool_constant<(std::is_same_v<From, start> || names_a_node<A, From>::value) &&
                         (std::is_same_v<To, end> || names_a_node<A, To>::value)> {};
template <class A, class Src, class R>
struct element_ok<A, branch<Src, R>> : std::bool_constant<names_a_node<A, Src>::value> {};
template <class A, class T, class... Ss>
struct element_ok<A, join<T, Ss...>>
    : std::bool_constant<names_a_node<A, T>::value && (names_a_node<A, Ss>::value && ...)> {};
template <class A>
struct element_bad {
  template <class E>
  using fn = std::bool_constant<!element_ok<A, E>::value>;
};
template <class A>
using first_bad_element = stategraph::detail::find_if_q<typename A::elements, element_bad<A>>;

// The position of the first element declared twice (the element count if none): one lookup
// per element in a table of the elements (name_table: a type it holds twice is found
// nowhere); mp_unique would take O(elements²) steps.
template <class... E>
constexpr std::size_t first_repeated(mp_list<E...>*) {
  using table = stategraph::detail::name_table<mp_list<E...>>;
  constexpr std::array<bool, sizeof...(E)> once{
      (stategraph::detail::position_in<E>(static_cast<const table*>(nullptr)) != stategraph::detail::none)...};
  for (std::size_t k = 0; k < once.size(); ++k)
    if (!once[k]) return k;
  return once.size();
}
template <class A>
using first_repeated_element =
    std::integral_constant<std::size_t, first_repeated(static_cast<typename A::elements*>(nullptr))>;

// What the messages name of an element: its source and its target.
template <class E>
struct element_ends {
  using from = E;
  using to = E;
};
template <class A, class B>
struct element_ends<edge<A, B>> {
  using from = A;
  using to = B;
};
template <class Src, class R>
struct element_ends<branch<Src, R>> {
  using from = Src;
  using to = R;
};
template <class T, class... Ss>
struct element_ends<join<T, Ss...>> {
  using from = boost::mp11::mp_front<boost::mp11::mp_list<Ss...>>;
  using to = T;
};
}  // namespace detail

// ---- predicates ------------------------------------------------------------------------

// Every `goes`/`sends` target of node N is a node of the graph A (an sg::analysis) analyses.
template <class A, class N>
concept targets_are_nodes = std::is_void_v<typename detail::first_stray_target<A, N>::type>;

// Every edge, branch and join of the graph names nodes of it.
template <class A>
concept elements_name_nodes = detail::first_bad_element<A>::value == detail::mp_size<typename A::elements>::value;

// No edge, branch or join is declared twice.
template <class A>
concept elements_declared_once =
    detail::first_repeated_element<A>::value == detail::mp_size<typename A::elements>::value;

// ---- diagnostics -----------------------------------------------------------------------

template <class Node, class Target>
struct SG005_target_is_not_a_node_of_the_graph {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG005_target_is_not_a_node_of_the_graph>,
                  "SG005: a `goes`/`sends` target is not a node of the graph (no edge, branch or join names it)");
  };
  static constexpr fail<> raised{};
};

template <class From, class To>
struct SG005_edge_names_something_that_is_not_a_node {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG005_edge_names_something_that_is_not_a_node>,
                  "SG005: an edge, branch or join names something that is not a node (or start as a target, "
                  "or end as a source)");
  };
  static constexpr fail<> raised{};
};

template <class From, class To>
struct SG005_edge_declared_twice {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG005_edge_declared_twice>, "SG005: the same edge is declared twice");
  };
  static constexpr fail<> raised{};
};

// The diagnostics with the first offending element of the graph A analyses.
template <class A, class E = detail::element_ends<detail::mp_at_c<typename A::elements, detail::first_bad_element<A>::value>>>
using bad_element_diagnostic = SG005_edge_names_something_that_is_not_a_node<typename E::from, typename E::to>;
template <class A,
          class E = detail::element_ends<detail::mp_at_c<typename A::elements, detail::first_repeated_element<A>::value>>>
using repeated_element_diagnostic = SG005_edge_declared_twice<typename E::from, typename E::to>;

}  // namespace stategraph::rules
