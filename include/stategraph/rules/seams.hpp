// SG012: with the run's context known (at invoke), every seam a node declares is provided
// by that context: the context derives from the seam, or has `Seam& provide<Seam>()`.
#pragma once

#include <stategraph/calls.hpp>
#include <stategraph/node.hpp>

#include <type_traits>

namespace stategraph::rules {

// ---- predicate -------------------------------------------------------------------------

// N declares no seam, or Ctx provides it (any_context: the context is not known yet).
template <class N, class Ctx>
concept seam_provided = std::is_void_v<typename node_traits<N>::seam> ||
                        std::is_same_v<Ctx, stategraph::detail::any_context> ||
                        stategraph::detail::provides_seam<Ctx, typename node_traits<N>::seam>;

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

}  // namespace stategraph::rules
