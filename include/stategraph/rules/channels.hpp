// SG003: the channels a node or router names in `reads`, `writes` and `subscribes` are
// members of the graph's state, not of another struct.
#pragma once

#include <stategraph/detail/meta.hpp>
#include <stategraph/node.hpp>
#include <stategraph/schema.hpp>

#include <boost/mp11/algorithm.hpp>

#include <cstddef>
#include <type_traits>

namespace stategraph::rules {

namespace detail {
template <class S>
struct foreign_channel {
  template <class V>
  using fn = std::bool_constant<!std::is_same_v<state_of<V::value>, S>>;
};
template <class N>
using named_channels = boost::mp11::mp_append<typename node_traits<N>::reads_type::list,
                                              typename node_traits<N>::writes_type::list,
                                              typename node_traits<N>::subscribes_list>;
// The position of the first channel of N that is not a member of S (the count if none).
template <class S, class N>
using first_foreign_channel = boost::mp11::mp_find_if_q<named_channels<N>, foreign_channel<S>>;
}  // namespace detail

// ---- predicate -------------------------------------------------------------------------

// Every channel N declares (reads, writes, subscribes) is a member of S.
template <class S, class N>
concept channels_in_state =
    detail::first_foreign_channel<S, N>::value == boost::mp11::mp_size<detail::named_channels<N>>::value;

// ---- diagnostic ------------------------------------------------------------------------

template <class Node, auto Channel, class State>
struct SG003_channel_is_not_in_the_graph_state {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG003_channel_is_not_in_the_graph_state>,
                  "SG003: `reads`/`writes`/`subscribes` names a member of another struct than the graph's state");
  };
  static constexpr fail<> raised{};
};

// The diagnostic with N's first foreign channel; Name is how the graph names N.
template <class S, class Name, class N>
using foreign_channel_diagnostic = SG003_channel_is_not_in_the_graph_state<
    Name, boost::mp11::mp_at_c<detail::named_channels<N>, detail::first_foreign_channel<S, N>::value>::value, S>;

}  // namespace stategraph::rules
