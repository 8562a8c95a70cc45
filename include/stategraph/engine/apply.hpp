// What the runtime does to a state: fold a patch or a run's input into it through the
// channels' reducers, clear the ephemeral channels, and the set helpers the steps share.
#pragma once

#include <stategraph/channels.hpp>
#include <stategraph/detail/meta.hpp>
#include <stategraph/node.hpp>
#include <stategraph/schema.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace stategraph::detail {

// Folds a patch into the state, entry by entry, through each channel's reducer; marks the
// channels written in `changed` when the caller tracks them. Plain folds rather than
// std::apply and lambdas: every level of call is one more inlining decision the compiler
// may refuse on the hot path.
template <class S, class Entry, class Changed>
constexpr void apply_entry(S& state, Entry& e, Changed changed) {
  if (e.present()) {
    reduce_into(member<Entry::channel>(state), e.take());
    if constexpr (!std::is_same_v<Changed, std::nullptr_t>) changed->set(channel_index<S, Entry::channel>());
  }
}
template <class S, class Changed, class... E, std::size_t... K>
constexpr void apply_entries([[maybe_unused]] S& state, [[maybe_unused]] std::tuple<E...>& entries,
                             [[maybe_unused]] Changed changed, std::index_sequence<K...>) {
  (apply_entry(state, std::get<K>(entries), changed), ...);
}
template <class S, class Changed, class... E>
constexpr void apply_patch(S& state, patch<E...>&& p, Changed changed) {  // Changed: set* or nullptr_t
  apply_entries(state, p.entries, changed, std::index_sequence_for<E...>{});
}

// The names of the channels a patch writes, appended to `out` (a stream reuses its buffer).
template <class S, class... E>
void written_channels_into(const patch<E...>& p, std::vector<std::string_view>& out) {
  std::apply(
      [&](const auto&... e) {
        ((e.present() ? out.push_back(channel_name<std::remove_cvref_t<decltype(e)>::channel>()) : void()), ...);
      },
      p.entries);
}
template <class S, class... E>
std::vector<std::string_view> written_channels(const patch<E...>& p) {
  std::vector<std::string_view> out;
  written_channels_into<S>(p, out);
  return out;
}

// The input of a run is applied like an update onto a default-constructed state.
template <class S>
constexpr void apply_input(S& state, S&& input) {
  for_each_index<channel_count<S>>([&]<std::size_t I>() {
    auto& to = detail::field<I>(state);
    auto& from = detail::field<I>(input);
    using F = std::remove_reference_t<decltype(to)>;
    using V = typename channel_traits<F>::value_type;
    if constexpr (accepts_write<F, V&&>) {
      // Appending a whole list onto an empty one is the list itself (reducer_traits::appends):
      // take its buffer rather than move its elements one by one.
      if constexpr (appends_only<F> && std::is_move_assignable_v<V> && requires(const V& v) { v.empty(); }) {
        if (V& into = channel_traits<F>::value(to); into.empty()) {
          into = std::move(channel_traits<F>::value(from));
          return;
        }
      }
      reduce_into(to, std::move(channel_traits<F>::value(from)));
    } else {
      to = std::move(from);
    }
  });
}

// Whether `a == b` compiles for values of type V. std::equality_comparable alone says yes
// for a variant, pair, tuple, optional or container of a type without operator==: their
// operator== is declared for any element type and fails only when instantiated. So the
// elements are looked at too, and a value that cannot be compared counts as changed.
template <class V>
struct comparable_values : std::bool_constant<std::equality_comparable<V>> {};
template <class V>
inline constexpr bool comparable = comparable_values<std::remove_cv_t<V>>::value;
template <class... T>
struct comparable_values<std::variant<T...>> : std::bool_constant<(comparable<T> && ...)> {};
template <class... T>
struct comparable_values<std::tuple<T...>> : std::bool_constant<(comparable<T> && ...)> {};
template <class A, class B>
struct comparable_values<std::pair<A, B>> : std::bool_constant<comparable<A> && comparable<B>> {};
template <class T>
struct comparable_values<std::optional<T>> : std::bool_constant<comparable<T>> {};
template <class V>
  requires requires {
    typename V::value_type;
    typename V::iterator;
  } && (!std::is_same_v<typename V::value_type, V>)
struct comparable_values<V>
    : std::bool_constant<std::equality_comparable<V> && comparable<typename V::value_type>> {};

// The channels an input sets: a non-empty container, a value other than its default.
template <class S>
node_set<channel_count<S>> input_touches(const S& input) {
  node_set<channel_count<S>> touched{};
  for_each_index<channel_count<S>>([&]<std::size_t I>() {
    using F = field_type_t<S, I>;
    using V = typename channel_traits<F>::value_type;
    const V& v = channel_traits<F>::value(detail::field<I>(input));
    if constexpr (requires { v.empty(); }) {
      if (!v.empty()) touched.set(I);
    } else if constexpr (comparable<V>) {
      if (!(v == V{})) touched.set(I);
    } else {
      touched.set(I);
    }
  });
  return touched;
}

template <class S>
constexpr void clear_ephemeral(S& state) {
  for_each_index<channel_count<S>>([&]<std::size_t I>() {
    using F = field_type_t<S, I>;
    if constexpr (channel_traits<F>::kind == channel_kind::ephemeral)
      channel_traits<F>::value(detail::field<I>(state)) = typename channel_traits<F>::value_type{};
  });
}

template <class S>
constexpr void mark_ephemeral(node_set<channel_count<S>>& changed) {
  for_each_index<channel_count<S>>([&]<std::size_t I>() {
    if constexpr (channel_traits<field_type_t<S, I>>::kind == channel_kind::ephemeral) changed.set(I);
  });
}

template <class S>
inline constexpr bool has_ephemeral = [] {
  bool any = false;
  for_each_index<channel_count<S>>(
      [&]<std::size_t I>() { any = any || channel_traits<field_type_t<S, I>>::kind == channel_kind::ephemeral; });
  return any;
}();

// The index of a set's only member, or none when it has no member or several.
template <std::size_t N>
constexpr std::size_t only_member(const node_set<N>& s) {
  std::size_t found = none;
  for (std::size_t w = 0; w < s.words; ++w) {
    const std::uint64_t bits = s.bits[w];
    if (!bits) continue;
    if (found != none || (bits & (bits - 1))) return none;
    found = w * 64 + static_cast<std::size_t>(__builtin_ctzll(bits));
  }
  return found;
}
}  // namespace stategraph::detail
