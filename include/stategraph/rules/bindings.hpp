// SG015: what sg::compile's arguments bind. A lambda node binds the tag the graph names, so
// a tag bound twice would lose one of the two callables, and a tag the graph does not name
// would bind nothing; both are refused rather than ignored. A node instance passed twice is
// refused the same way (only one of them could run).
#pragma once

#include <stategraph/detail/meta.hpp>
#include <stategraph/schedule.hpp>

#include <boost/mp11/algorithm.hpp>

#include <array>
#include <cstddef>
#include <type_traits>

namespace stategraph::rules {

namespace detail {
template <class A>
struct bound_of;
template <class G, class Bound>
struct bound_of<analysis<G, Bound>> {
  using type = Bound;
};

// What an argument of sg::compile binds: a lambda node its tag, a node instance its type
// (when the graph names it); void for options and everything else.
template <class A, class B>
struct binding_key {
  using type =
      std::conditional_t<stategraph::detail::position_of<B, typename A::name_lookup>::value != stategraph::detail::none,
                         B, void>;
};
template <class A, class B>
  requires requires { typename B::tag; }
struct binding_key<A, B> {
  using type = typename B::tag;
};
template <class A>
struct keys_of {
  template <class B>
  using fn = typename binding_key<A, B>::type;
};
template <class A>
using binding_keys =
    boost::mp11::mp_remove_if<boost::mp11::mp_transform_q<keys_of<A>, typename bound_of<A>::type>, std::is_void>;

// The tags of the lambda nodes bound, in argument order.
template <class B>
struct tag_or_void {
  using type = void;
};
template <class B>
  requires requires { typename B::tag; }
struct tag_or_void<B> {
  using type = typename B::tag;
};
template <class B>
using tag_or_void_t = typename tag_or_void<B>::type;
template <class A>
using bound_tags = boost::mp11::mp_remove_if<boost::mp11::mp_transform<tag_or_void_t, typename bound_of<A>::type>,
                                             std::is_void>;

template <class A>
struct not_named {
  template <class T>
  using fn = std::bool_constant<stategraph::detail::position_of<T, typename A::name_lookup>::value ==
                                stategraph::detail::none>;
};
// The position of the first bound tag the graph does not name (the count if none).
template <class A>
using first_unnamed_tag = boost::mp11::mp_find_if_q<bound_tags<A>, not_named<A>>;

template <class... K>
constexpr std::size_t first_repeated_key(stategraph::detail::mp_list<K...>*) {
  using table = stategraph::detail::name_table<stategraph::detail::mp_list<K...>>;
  constexpr std::array<bool, sizeof...(K)> once{
      (stategraph::detail::position_in<K>(static_cast<const table*>(nullptr)) != stategraph::detail::none)...};
  for (std::size_t k = 0; k < once.size(); ++k)
    if (!once[k]) return k;
  return once.size();
}
// The position of the first key bound more than once (the count if none).
template <class A>
using first_repeated_binding =
    std::integral_constant<std::size_t, first_repeated_key(static_cast<binding_keys<A>*>(nullptr))>;
}  // namespace detail

// ---- predicates ------------------------------------------------------------------------

// Every lambda node bound to the graph A (an sg::analysis<G, Bound>) analyses has a tag
// that the graph names.
template <class A>
concept bound_tags_are_nodes =
    detail::first_unnamed_tag<A>::value == boost::mp11::mp_size<detail::bound_tags<A>>::value;

// No tag (lambda node) or node type is bound twice.
template <class A>
concept bound_once =
    detail::first_repeated_binding<A>::value == boost::mp11::mp_size<detail::binding_keys<A>>::value;

// ---- diagnostics -----------------------------------------------------------------------

template <class Tag>
struct SG015_bound_tag_is_not_a_node_of_the_graph {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG015_bound_tag_is_not_a_node_of_the_graph>,
                  "SG015: sg::compile binds a lambda node whose tag the graph does not name (no edge, branch or "
                  "join names it)");
  };
  static constexpr fail<> raised{};
};

template <class Node>
struct SG015_node_bound_twice {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG015_node_bound_twice>,
                  "SG015: sg::compile binds the same node twice (two lambda nodes with one tag, or one node type "
                  "passed twice); bind each once");
  };
  static constexpr fail<> raised{};
};

// The diagnostics with the first offending argument.
template <class A>
using unnamed_tag_diagnostic =
    SG015_bound_tag_is_not_a_node_of_the_graph<boost::mp11::mp_at_c<detail::bound_tags<A>, detail::first_unnamed_tag<A>::value>>;
template <class A>
using repeated_binding_diagnostic =
    SG015_node_bound_twice<boost::mp11::mp_at_c<detail::binding_keys<A>, detail::first_repeated_binding<A>::value>>;

}  // namespace stategraph::rules
