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

// Arguments: the channel read, then what `reads` declares. The view does not know its node,
// so the message cannot name it.
template <auto Channel, class Reads>
struct SG001_reads_undeclared_channel {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG001_reads_undeclared_channel>,
                  "SG001: a node or router reads a channel outside its `reads`; add it to `reads`");
  };
  static constexpr fail<> raised{};
};

}  // namespace stategraph::rules
