// SG001: a node or router reads only the channels its `reads` declares. The view checks
// it where the node reads (node.hpp includes this header), so the message points at the
// line of the read.
#pragma once

#include <stategraph/detail/meta.hpp>

namespace stategraph::rules {

// ---- predicate -------------------------------------------------------------------------

// Channel is one of Reads (an sg::reads<...>).
template <auto Channel, class Reads>
concept reads_declared = stategraph::detail::contains<stategraph::detail::value_t<Channel>, typename Reads::list>;

// ---- diagnostic ------------------------------------------------------------------------

// Arguments: the channel read, then what `reads` declares. Raised by sg::view, which does
// not know its node: a call operator taking sg::view<State, reads> is checked where it is
// parsed, before any graph names it, and the location is the line of the read (a node that
// takes sg::view_for<State, Node> instead gets the message below).
template <auto Channel, class Reads>
struct SG001_reads_undeclared_channel {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG001_reads_undeclared_channel>,
                  "SG001: a node or router reads a channel outside its `reads`; add it to `reads`");
  };
  static constexpr fail<> raised{};
};

// Arguments: the node (a lambda node's tag), the channel read, what `reads` declares.
// Raised by the view the library hands a generic call operator (`auto in`), which it
// instantiates knowing the node, and by sg::view_for<State, Node>, which names it.
template <class Node, auto Channel, class Reads>
struct SG001_node_reads_undeclared_channel {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG001_node_reads_undeclared_channel>,
                  "SG001: the node reads a channel outside its `reads`; add it to `reads`");
  };
  static constexpr fail<> raised{};
};

}  // namespace stategraph::rules
