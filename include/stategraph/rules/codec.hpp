// SG013: every channel of a checkpointed graph has a JSON codec (nlohmann's to_json and
// from_json for its value type). Opt-in like the codec itself: the core never includes
// this header, checkpoint/json.hpp does.
#pragma once

#include <stategraph/channels.hpp>
#include <stategraph/detail/meta.hpp>
#include <stategraph/schema.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>

#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wundefined-var-template"
#endif

namespace stategraph {

template <class T>
concept json_codable = requires(nlohmann::json& j, const nlohmann::json& cj, const T& v, T& out) {
  nlohmann::adl_serializer<T>::to_json(j, v);
  nlohmann::adl_serializer<T>::from_json(cj, out);
};

namespace rules {

namespace detail {
template <class S, std::size_t I>
using channel_value_t = typename channel_traits<field_type_t<S, I>>::value_type;

// The index of S's first channel without a codec (the channel count if none).
template <class S>
constexpr std::size_t first_channel_without_codec() {
  std::size_t at = channel_count<S>;
  stategraph::detail::for_each_index<channel_count<S>>([&]<std::size_t I>() {
    if (at == channel_count<S> && !json_codable<channel_value_t<S, I>>) at = I;
  });
  return at;
}
}  // namespace detail

// ---- predicate -------------------------------------------------------------------------

// Every channel of the state S has a JSON codec.
template <class S>
concept channels_have_json_codecs = detail::first_channel_without_codec<S>() == channel_count<S>;

// ---- diagnostic ------------------------------------------------------------------------

template <auto Channel, class Value>
struct SG013_channel_value_has_no_json_codec {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG013_channel_value_has_no_json_codec>,
                  "SG013: a checkpointed graph has a channel whose value type has no JSON codec; give it "
                  "nlohmann to_json/from_json (e.g. NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE)");
  };
  static constexpr fail<> raised{};
};

// The check sg::compile runs for a checkpointed app. The channel is named by its address
// in a boxed object: Clang prints it as {&value.<channel>}, GCC as (&...State::<channel>).
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

}  // namespace rules
}  // namespace stategraph

#if defined(__clang__)
#pragma clang diagnostic pop
#endif
