// SG012: with the run's context known (at invoke), every seam a node declares is provided
// by that context: the context derives from the seam, or has `Seam& provide<Seam>()`. A
// subgraph node passes the run's context to its child's nodes, so their seams count too,
// at any depth.
#pragma once

#include <stategraph/calls.hpp>
#include <stategraph/node.hpp>
#include <stategraph/schedule.hpp>

#include <boost/mp11/algorithm.hpp>

#include <type_traits>

namespace stategraph::rules {

// ---- predicate -------------------------------------------------------------------------

// N declares no seam, or an optional one (the node is skipped without it), or Ctx provides
// it (any_context: the context is not known yet).
template <class N, class Ctx>
concept seam_provided = std::is_void_v<typename node_traits<N>::seam> ||
                        !std::is_void_v<stategraph::detail::optional_seam_t<N>> ||
                        std::is_same_v<Ctx, stategraph::detail::any_context> ||
                        stategraph::detail::provides_seam<Ctx, typename node_traits<N>::seam>;

// The subgraph nodes that lead to a node inside a subgraph, and the node: `review/check`.
template <class... Nodes>
struct node_path {};

namespace detail {
template <class Found, class Name>
struct prefixed {
  using type = Found;
};
// A node inside Name's child, not yet found: (path, seam) with Name before the path.
template <class... P, class Seam, class Name>
struct prefixed<stategraph::detail::mp_list<node_path<P...>, Seam>, Name> {
  using type = stategraph::detail::mp_list<node_path<Name, P...>, Seam>;
};

template <class N, class Name>
struct path_name {
  using type = Name;
};
template <class N, class Name>
  requires requires { typename N::tag_type; }
struct path_name<N, Name> {
  using type = typename N::tag_type;  // the subgraph's own name, not sg::subgraph<...>
};

template <class Ctx>
struct seam_search {
  // void when N and every node inside it (a subgraph's child, at any depth) have their seams
  // from Ctx; otherwise mp_list<node_path<...>, Seam> for the first that does not.
  template <class Name, class N>
  struct missing {
    using type = std::conditional_t<seam_provided<N, Ctx>, void,
                                    stategraph::detail::mp_list<node_path<Name>, typename node_traits<N>::seam>>;
  };
  template <class Name, class N>
    requires requires { typename N::child_graph; }
  struct missing<Name, N> {
    using A = analysis<typename N::child_graph>;
    template <class Pair>
    using of = typename missing<boost::mp11::mp_first<Pair>, boost::mp11::mp_second<Pair>>::type;
    using found = boost::mp11::mp_remove<
        boost::mp11::mp_transform<of, boost::mp11::mp_transform<stategraph::detail::mp_list, typename A::names,
                                                                typename A::nodes>>,
        void>;
    using type = typename prefixed<boost::mp11::mp_eval_if<boost::mp11::mp_empty<found>, void, boost::mp11::mp_front, found>,
                                   typename path_name<N, Name>::type>::type;
  };
};
}  // namespace detail

// A subgraph node N: every node inside it has its seam from Ctx (true for any other node).
template <class Name, class N, class Ctx>
concept subgraph_seams_provided =
    !requires { typename N::child_graph; } || std::is_same_v<Ctx, stategraph::detail::any_context> ||
    std::is_void_v<typename detail::seam_search<Ctx>::template missing<Name, N>::type>;

// ---- diagnostic ------------------------------------------------------------------------

template <class Node, class Seam, class Context>
struct SG012_context_does_not_provide_the_seam {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG012_context_does_not_provide_the_seam>,
                  "SG012: the node's seam is not provided by the runtime context (derive the context from the "
                  "seam, or give it `Seam& provide<Seam>()`)");
  };
  static constexpr fail<> raised{};
};

// Path: node_path<subgraph, ..., node> from the parent's node to the node inside that
// declares the seam.
template <class Path, class Seam, class Context>
struct SG012_context_does_not_provide_the_seam_in_a_subgraph {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG012_context_does_not_provide_the_seam_in_a_subgraph>,
                  "SG012: a node inside a subgraph declares a seam that the runtime context does not provide (the "
                  "parent's context reaches the subgraph's nodes: derive it from the seam, or give it "
                  "`Seam& provide<Seam>()`)");
  };
  static constexpr fail<> raised{};
};

}  // namespace stategraph::rules
