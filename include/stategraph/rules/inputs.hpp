// SG014: a partial input (`app.invoke(sg::write<&S::a>(x) | sg::write<&S::b>(y))`) names
// each channel once: it says which channels the run starts with, and a channel named twice
// is a mistake, not an order of writes. Its channels are members of the graph's state
// (SG003) and its values convert to what the reducers take (SG004), as for a node's patch.
#pragma once

#include <stategraph/detail/meta.hpp>
#include <stategraph/node.hpp>
#include <stategraph/rules/channels.hpp>
#include <stategraph/rules/writes.hpp>
#include <stategraph/schema.hpp>

#include <boost/mp11/algorithm.hpp>

#include <cstddef>
#include <type_traits>

namespace stategraph::rules {

// How diagnostics name the writer of a partial input (where a node's rules name the node).
struct partial_input {};

namespace detail {
template <class E>
using entry_channel_value = std::integral_constant<decltype(E::channel), E::channel>;
template <class Patch>
using input_channels = boost::mp11::mp_transform<entry_channel_value, entries_of<Patch>>;
// The position of the first channel named a second time (the entry count if none).
template <class Patch, class L = input_channels<Patch>>
constexpr std::size_t first_repeated_channel() {
  std::size_t at = boost::mp11::mp_size<L>::value;
  boost::mp11::mp_for_each<boost::mp11::mp_iota<boost::mp11::mp_size<L>>>([&](auto k) {
    using C = boost::mp11::mp_at_c<L, decltype(k)::value>;
    using before = boost::mp11::mp_take_c<L, decltype(k)::value>;
    if (at == boost::mp11::mp_size<L>::value && boost::mp11::mp_contains<before, C>::value) at = decltype(k)::value;
  });
  return at;
}
template <class S>
struct foreign_entry {
  template <class E>
  using fn = std::bool_constant<!std::is_same_v<state_of<E::channel>, S>>;
};
}  // namespace detail

// ---- predicates ------------------------------------------------------------------------

// Patch, used as a partial input, names each channel at most once.
template <class Patch>
concept input_names_each_channel_once =
    detail::first_repeated_channel<Patch>() == boost::mp11::mp_size<detail::entries_of<Patch>>::value;

// Every entry of Patch writes a member of S.
template <class S, class Patch>
concept input_channels_in_state = boost::mp11::mp_find_if_q<detail::entries_of<Patch>, detail::foreign_entry<S>>::value ==
                                  boost::mp11::mp_size<detail::entries_of<Patch>>::value;

// ---- diagnostic ------------------------------------------------------------------------

template <auto Channel>
struct SG014_partial_input_names_channel_twice {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG014_partial_input_names_channel_twice>,
                  "SG014: a partial input names a channel twice; write each channel once");
  };
  static constexpr fail<> raised{};
};

// The check an invoke with a partial input runs: SG003, SG014, then SG004, each naming the
// first offending entry.
template <class S, class Patch>
constexpr bool check_partial_input() {
  using entries = detail::entries_of<Patch>;
  if constexpr (!input_channels_in_state<S, Patch>) {
    (void)SG003_channel_is_not_in_the_graph_state<
        partial_input,
        boost::mp11::mp_at_c<entries, boost::mp11::mp_find_if_q<entries, detail::foreign_entry<S>>::value>::channel,
        S>{};
    return false;
  } else if constexpr (!input_names_each_channel_once<Patch>) {
    (void)SG014_partial_input_names_channel_twice<
        boost::mp11::mp_at_c<entries, detail::first_repeated_channel<Patch>()>::channel>{};
    return false;
  } else if constexpr (!written_values_convert<Patch>) {
    (void)unconvertible_write_diagnostic<partial_input, Patch>{};
    return false;
  } else {
    return true;
  }
}

}  // namespace stategraph::rules

// ---- a run input of neither type -------------------------------------------------------
// The diagnostics of an app.invoke or app.stream given an input that is neither the state
// nor a partial input, or a temporary where the context goes (raised through
// rules/misuse.hpp, at the caller's line).
namespace stategraph::rules {

template <class Input, class S>
struct run_input_is_neither_the_state_nor_a_patch {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<run_input_is_neither_the_state_nor_a_patch>,
                  "app.invoke and app.stream take the state or a partial input (sg::write<&S::a>(x) | ...)");
  };
  static constexpr fail<> raised{};
};

template <class T>
inline constexpr bool is_patch_v = false;
template <class... E>
inline constexpr bool is_patch_v<patch<E...>> = true;

// A context is passed as a named object (nodes may change it), else a run_config.
template <class Argument>
struct second_argument_is_neither_a_named_context_nor_a_run_config {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<second_argument_is_neither_a_named_context_nor_a_run_config>,
                  "app.invoke(input, ctx): pass the context as a named object (an lvalue), or a run_config");
  };
  static constexpr fail<> raised{};
};

}  // namespace stategraph::rules
