// SG013: every value a checkpointed graph stores has a JSON codec: each channel's value (of
// the graph and of every subgraph in it), each write a node returns (kept as a pending
// write when its step fails or pauses, a subgraph's sg::assign_value included) and each send
// payload (queued in the checkpoint). "Has a codec" is sg::json_codable, the codec's own
// dispatch (checkpoint/json_values.hpp), so what this rule accepts is what the codec writes
// and reads. Opt-in like the codec itself: the core never includes this header,
// checkpoint/json.hpp does.
#pragma once

#include <stategraph/calls.hpp>
#include <stategraph/channels.hpp>
#include <stategraph/checkpoint/json_values.hpp>
#include <stategraph/detail/meta.hpp>
#include <stategraph/node.hpp>
#include <stategraph/schema.hpp>
#include <stategraph/send.hpp>

#include <boost/mp11/algorithm.hpp>

#include <array>
#include <cstddef>
#include <type_traits>

#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wundefined-var-template"
#endif

namespace stategraph {
namespace rules {

namespace detail {
namespace sd = stategraph::detail;

template <class S, std::size_t I>
using channel_value_t = typename channel_traits<field_type_t<S, I>>::value_type;

// The index of S's first channel without a codec (the channel count if none).
template <class S>
constexpr std::size_t first_channel_without_codec() {
  std::size_t at = channel_count<S>;
  sd::for_each_index<channel_count<S>>([&]<std::size_t I>() {
    if (at == channel_count<S> && !json_codable<channel_value_t<S, I>>) at = I;
  });
  return at;
}

// The entries of a node's patch whose value has no codec.
template <class E>
using entry_codable = std::bool_constant<json_codable<typename E::value_type>>;
template <class P>
struct uncodable_entries {
  using type = sd::mp_list<>;
};
template <class... E>
struct uncodable_entries<patch<E...>> {
  using type = boost::mp11::mp_remove_if<sd::mp_list<E...>, entry_codable>;
};

// What node N returns when called plainly (a node that only runs as a send target keeps no
// pending write: it runs again).
template <class S, class N>
using node_patch_t = typename sd::result_kind<typename sd::call_result<N, S, sd::any_context>::type>::patch_type;

template <class Send>
using payload_codable = std::bool_constant<json_codable<std::remove_cvref_t<decltype(std::declval<Send&>().payload)>>>;
template <class A>
using uncodable_sends = boost::mp11::mp_remove_if<typename sd::send_plan<A>::all, payload_codable>;
}  // namespace detail

// ---- predicates ------------------------------------------------------------------------

// Every channel of the state S has a JSON codec.
template <class S>
concept channels_have_json_codecs = detail::first_channel_without_codec<S>() == channel_count<S>;

// Every value node N of a graph on state S writes has a JSON codec.
template <class S, class N>
concept writes_have_json_codecs = boost::mp11::mp_empty<typename detail::uncodable_entries<detail::node_patch_t<S, N>>::type>::value;

// Every payload sent in the graph analysed by A has a JSON codec.
template <class A>
concept sends_have_json_codecs = boost::mp11::mp_empty<detail::uncodable_sends<A>>::value;

// ---- diagnostics -----------------------------------------------------------------------

#define SG013_HOW_TO_FIX                                                                              \
  "give the type nlohmann to_json/from_json (e.g. NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE); numbers, "     \
  "bool, std::string, nlohmann::json, std::optional, std::variant, std::chrono::duration and the "    \
  "standard containers of such types have one"

template <auto Channel, class Value>
struct SG013_channel_value_has_no_json_codec {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG013_channel_value_has_no_json_codec>,
                  "SG013: a checkpointed graph has a channel whose value type has no JSON codec; " SG013_HOW_TO_FIX);
  };
  static constexpr fail<> raised{};
};

template <class Node, auto Channel, class Value>
struct SG013_node_write_has_no_json_codec {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG013_node_write_has_no_json_codec>,
                  "SG013: a node of a checkpointed graph writes a value whose type has no JSON codec (a step "
                  "that fails or pauses keeps it as a pending write); write the channel's own type, or " SG013_HOW_TO_FIX);
  };
  static constexpr fail<> raised{};
};

template <class Target, class Payload>
struct SG013_send_payload_has_no_json_codec {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG013_send_payload_has_no_json_codec>,
                  "SG013: a checkpointed graph sends a payload whose type has no JSON codec (queued sends are "
                  "stored in the checkpoint); " SG013_HOW_TO_FIX);
  };
  static constexpr fail<> raised{};
};

#undef SG013_HOW_TO_FIX

// ---- the checks ------------------------------------------------------------------------

// The channels of a state. The channel is named by its address in a boxed object: Clang
// prints it as {&value.<channel>}, GCC as (&...State::<channel>).
template <class S>
constexpr bool check_codecs() {
  if constexpr (!channels_have_json_codecs<S>) {
    constexpr std::size_t bad = detail::first_channel_without_codec<S>();
    (void)SG013_channel_value_has_no_json_codec<
        stategraph::detail::address_box{&stategraph::detail::field<bad>(stategraph::detail::fake_object<S>::value)},
        detail::channel_value_t<S, bad>>{};
    return false;
  } else {
    return true;
  }
}

template <class A>
constexpr bool check_graph_codecs();

// What one node writes.
template <class S, class Name, class N>
constexpr bool check_write_codecs() {
  if constexpr (!stategraph::detail::callable_with<N, S, stategraph::detail::any_context>()) {
    return true;
  } else if constexpr (!writes_have_json_codecs<S, N>) {
    using E = boost::mp11::mp_front<typename detail::uncodable_entries<detail::node_patch_t<S, N>>::type>;
    (void)SG013_node_write_has_no_json_codec<Name, E::channel, typename E::value_type>{};
    return false;
  } else {
    return true;
  }
}

// One node: a subgraph's whole child graph first, then what the node writes.
template <class S, class Name, class N>
constexpr bool check_node_codecs() {
  if constexpr (requires { typename N::child_app::analysis_type; }) {
    if constexpr (!check_graph_codecs<typename N::child_app::analysis_type>()) return false;
    else return check_write_codecs<S, Name, N>();
  } else {
    return check_write_codecs<S, Name, N>();
  }
}

template <class A, class... Name, class... N>
constexpr bool check_nodes_codecs(stategraph::detail::mp_list<Name...>*, stategraph::detail::mp_list<N...>*) {
  return stategraph::detail::all_true(std::array<bool, sizeof...(N)>{
      std::bool_constant<check_node_codecs<typename A::state_type, Name, N>()>::value...});
}

// The check sg::compile runs for a checkpointed app: the channels, the sends, each node.
template <class A>
constexpr bool check_graph_codecs() {
  if constexpr (!check_codecs<typename A::state_type>()) {
    return false;
  } else if constexpr (!sends_have_json_codecs<A>) {
    using bad = boost::mp11::mp_front<detail::uncodable_sends<A>>;
    (void)SG013_send_payload_has_no_json_codec<typename bad::target_type,
                                               std::remove_cvref_t<decltype(std::declval<bad&>().payload)>>{};
    return false;
  } else {
    return check_nodes_codecs<A>(static_cast<typename A::names*>(nullptr), static_cast<typename A::nodes*>(nullptr));
  }
}

}  // namespace rules
}  // namespace stategraph

#if defined(__clang__)
#pragma clang diagnostic pop
#endif
