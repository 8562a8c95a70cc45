// SG002 and SG004: what a node's patch writes against what the node declares. A patch
// writes only channels of the node's `writes` (SG002), each with a value the channel's
// reducer accepts (SG004). Checked on what each node returns and on a checkpointed app's
// update_state, which writes as a node.
#pragma once

#include <stategraph/channels.hpp>
#include <stategraph/calls.hpp>
#include <stategraph/detail/meta.hpp>
#include <stategraph/node.hpp>
#include <stategraph/schema.hpp>

#include <boost/mp11/algorithm.hpp>

#include <cstddef>
#include <type_traits>

namespace stategraph::rules {

namespace detail {
template <class Writes>
struct undeclared_write {
  template <class E>
  using fn = std::bool_constant<!stategraph::detail::contains<stategraph::detail::entry_channel<E>, Writes>>;
};
struct unconvertible_write {
  template <class E>
  using fn = std::bool_constant<!accepts_write<field_of<E::channel>, typename E::value_type&&>>;
};
template <class Patch>
using entries_of = boost::mp11::mp_rename<Patch, stategraph::detail::mp_list>;
// The position of the patch's first entry that breaks the rule (the entry count if none).
template <class Node, class Patch>
using first_undeclared_write =
    boost::mp11::mp_find_if_q<entries_of<Patch>, undeclared_write<typename node_traits<Node>::writes_type::list>>;
template <class Patch>
using first_unconvertible_write = boost::mp11::mp_find_if_q<entries_of<Patch>, unconvertible_write>;
}  // namespace detail

// ---- predicates ------------------------------------------------------------------------

// Every entry of Patch (an sg::patch<...>) writes a channel of Node's `writes`.
template <class Node, class Patch>
concept writes_declared =
    detail::first_undeclared_write<Node, Patch>::value == boost::mp11::mp_size<detail::entries_of<Patch>>::value;

// Every entry of Patch holds a value its channel's reducer accepts.
template <class Patch>
concept written_values_convert =
    detail::first_unconvertible_write<Patch>::value == boost::mp11::mp_size<detail::entries_of<Patch>>::value;

// ---- diagnostics -----------------------------------------------------------------------

template <class Node, auto Channel>
struct SG002_node_writes_undeclared_channel {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG002_node_writes_undeclared_channel>,
                  "SG002: the node's patch writes a channel outside its `writes`");
  };
  static constexpr fail<> raised{};
};

template <class Node, auto Channel, class Value>
struct SG004_written_value_does_not_convert {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG004_written_value_does_not_convert>,
                  "SG004: the value written does not convert to what the channel's reducer accepts");
  };
  static constexpr fail<> raised{};
};

// The diagnostics with the patch's first offending entry; Name is how the graph names Node.
template <class Name, class Node, class Patch>
using undeclared_write_diagnostic = SG002_node_writes_undeclared_channel<
    Name, boost::mp11::mp_at_c<detail::entries_of<Patch>, detail::first_undeclared_write<Node, Patch>::value>::channel>;
template <class Name, class Patch,
          class E = boost::mp11::mp_at_c<detail::entries_of<Patch>, detail::first_unconvertible_write<Patch>::value>>
using unconvertible_write_diagnostic = SG004_written_value_does_not_convert<Name, E::channel, typename E::value_type>;

}  // namespace stategraph::rules
