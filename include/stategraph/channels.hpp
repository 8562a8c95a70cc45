// Channel wrappers and reducers (contract §1).
//
// A reducer is any type Op with `T Op::operator()(T, U)` (or a static one). The built-in
// reducers also offer `into(T&, U&&)`, an in-place form the runtime prefers so that an
// append does not move the whole vector in and out of the reducer. What else the library
// may assume of a reducer, it asks reducer_traits (below the reducers); a new reducer kind
// declares it there and nowhere else.
#pragma once

#include <concepts>
#include <cstddef>
#include <iterator>
#include <type_traits>
#include <utility>
#include <vector>

namespace stategraph {

// ---- reducers ------------------------------------------------------------------------

// The written value replaces the old one (LangGraph's LastValue).
struct replace {
  template <class T, class U>
    requires std::is_constructible_v<T, U&&>
  constexpr T operator()(T, U&& u) const {
    return T(std::forward<U>(u));
  }
  template <class T, class U>
    requires std::is_assignable_v<T&, U&&>
  static constexpr void into(T& acc, U&& u) {
    acc = std::forward<U>(u);
  }
  template <class T>
    requires std::copy_constructible<T>
  static constexpr T delta(const T&, const T& after) {
    return after;
  }
};

// Writes are added to the value (operator+=).
struct sum {
  template <class T, class U>
    requires requires(T& a, const U& b) { a += b; }
  constexpr T operator()(T acc, const U& u) const {
    acc += u;
    return acc;
  }
  template <class T, class U>
    requires requires(T& a, const U& b) { a += b; }
  static constexpr void into(T& acc, const U& u) {
    acc += u;
  }
  template <class T>
    requires requires(const T& a) { static_cast<T>(a - a); }
  static constexpr T delta(const T& before, const T& after) {
    return static_cast<T>(after - before);
  }
};

namespace detail {
template <class C, class U>
concept range_of = requires(const U& u) {
  std::begin(u);
  std::end(u);
} && std::is_convertible_v<decltype(*std::begin(std::declval<const U&>())), typename C::value_type>;

template <class C, class U>
constexpr void insert_back(C& c, U&& u) {
  if constexpr (std::is_constructible_v<typename C::value_type, U&&>) {
    c.emplace_back(std::forward<U>(u));  // one move (or construction) straight into place
  } else if constexpr (std::is_rvalue_reference_v<U&&>) {
    c.insert(c.end(), std::make_move_iterator(std::begin(u)), std::make_move_iterator(std::end(u)));
  } else {
    c.insert(c.end(), std::begin(u), std::end(u));
  }
}
template <class C, class U>
concept appendable = std::is_constructible_v<typename C::value_type, U&&> || range_of<C, std::remove_cvref_t<U>>;
}  // namespace detail

// Appends one element, or every element of a range (LangGraph's operator.add on lists).
struct concat {
  static constexpr bool appends = true;
  template <class C, class U>
    requires detail::appendable<C, U>
  constexpr C operator()(C acc, U&& u) const {
    detail::insert_back(acc, std::forward<U>(u));
    return acc;
  }
  template <class C, class U>
    requires detail::appendable<C, U>
  static constexpr void into(C& acc, U&& u) {
    detail::insert_back(acc, std::forward<U>(u));
  }
};

// Appends like concat, then keeps only the last N elements.
template <std::size_t N>
struct keep_last {
  template <class C, class U>
    requires detail::appendable<C, U>
  constexpr C operator()(C acc, U&& u) const {
    into(acc, std::forward<U>(u));
    return acc;
  }
  template <class C, class U>
    requires detail::appendable<C, U>
  static constexpr void into(C& acc, U&& u) {
    detail::insert_back(acc, std::forward<U>(u));
    if (acc.size() > N) acc.erase(acc.begin(), acc.begin() + static_cast<std::ptrdiff_t>(acc.size() - N));
  }
};

// Inserts one element, or every element of a range, into a set-like container.
struct set_union {
  template <class S, class U>
    requires std::is_constructible_v<typename S::value_type, U&&> || detail::range_of<S, std::remove_cvref_t<U>>
  constexpr S operator()(S acc, U&& u) const {
    into(acc, std::forward<U>(u));
    return acc;
  }
  template <class S, class U>
    requires std::is_constructible_v<typename S::value_type, U&&> || detail::range_of<S, std::remove_cvref_t<U>>
  static constexpr void into(S& acc, U&& u) {
    if constexpr (std::is_constructible_v<typename S::value_type, U&&>) {
      acc.insert(typename S::value_type(std::forward<U>(u)));
    } else {
      acc.insert(std::begin(u), std::end(u));
    }
  }
  // The new set holds the old one: adding all of it again gives the new set.
  template <class S>
    requires std::copy_constructible<S>
  static S delta(const S&, const S& after) {
    return after;
  }
};

// ---- what a reducer tells the library --------------------------------------------------

namespace detail {
template <class Op>
inline constexpr bool declares_appends = false;
template <class Op>
  requires requires { Op::appends; }
inline constexpr bool declares_appends<Op> = static_cast<bool>(Op::appends);
}  // namespace detail

// The engine, the subgraph mapping and the checkpoint codec ask a reducer what it
// guarantees here. A reducer answers with static members of the same names (or, for a type
// you cannot change, a specialization of reducer_traits); the defaults promise nothing.
template <class Op>
struct reducer_traits {
  // `static constexpr bool appends = true;`: a write of a whole value appends its elements
  // at the end of the current value, and nothing else changes it. Then a change is its new
  // tail: a checkpoint stores only the new elements, a subgraph hands back only those, and
  // a run's input is taken whole onto an empty channel. The value must be a sequence
  // (size, end, insert, and construction from two iterators), as std::vector is.
  static constexpr bool appends = detail::declares_appends<Op>;

  // `static T delta(const T& before, const T& after)`: the one write that turns `before`
  // into `after` (Op applied to before and the delta gives after). A subgraph hands a
  // child's change back to the parent through it; without it (and without appends) the
  // parent's channel is assigned the child's value.
  template <class T>
  static constexpr bool has_delta = requires(const T& v) {
    { Op::delta(v, v) } -> std::convertible_to<T>;
  };
};

// ---- channel wrappers ----------------------------------------------------------------

enum class channel_kind { last_value, ephemeral, accumulator };

namespace detail {
// A wrapper reads like its value. For a class type it *is* its value (it derives from it),
// so `state.messages.size()` and range-for work; for a scalar it converts to it.
template <class T, bool = std::is_class_v<T> && !std::is_final_v<T>>
struct channel_storage : T {
  using T::T;
  constexpr channel_storage() = default;
  constexpr channel_storage(const T& v) : T(v) {}
  constexpr channel_storage(T&& v) : T(std::move(v)) {}
  constexpr T& value() & { return *this; }
  constexpr const T& value() const& { return *this; }
};

template <class T>
struct channel_storage<T, false> {
  T stored{};
  constexpr channel_storage() = default;
  template <class U>
    requires std::is_constructible_v<T, U&&>
  constexpr channel_storage(U&& u) : stored(std::forward<U>(u)) {}
  constexpr operator const T&() const { return stored; }
  constexpr T& value() & { return stored; }
  constexpr const T& value() const& { return stored; }
  constexpr const T* operator->() const { return &stored; }
};
}  // namespace detail

// A channel type describes itself with three members; plain fields get the same through
// channel_traits below.
template <class T, class Op>
struct reduced : detail::channel_storage<T> {
  using detail::channel_storage<T>::channel_storage;
  using value_type = T;
  using reducer = Op;
  static constexpr channel_kind kind = channel_kind::accumulator;
};

template <class T>
struct last_value : detail::channel_storage<T> {
  using detail::channel_storage<T>::channel_storage;
  using value_type = T;
  using reducer = replace;
  static constexpr channel_kind kind = channel_kind::last_value;
};

// Written in one step, readable in the next, cleared at that step's barrier.
template <class T>
struct ephemeral : detail::channel_storage<T> {
  using detail::channel_storage<T>::channel_storage;
  using value_type = T;
  using reducer = replace;
  static constexpr channel_kind kind = channel_kind::ephemeral;
};

template <class T>
struct append : detail::channel_storage<std::vector<T>> {
  using detail::channel_storage<std::vector<T>>::channel_storage;
  using value_type = std::vector<T>;
  using reducer = concat;
  static constexpr channel_kind kind = channel_kind::accumulator;
};

template <class T>
struct counter : detail::channel_storage<T> {
  using detail::channel_storage<T>::channel_storage;
  using value_type = T;
  using reducer = sum;
  static constexpr channel_kind kind = channel_kind::accumulator;
};

template <class T, std::size_t N>
struct bounded : detail::channel_storage<std::vector<T>> {
  static_assert(N > 0, "a bounded channel keeps at least one element");
  using detail::channel_storage<std::vector<T>>::channel_storage;
  using value_type = std::vector<T>;
  using reducer = keep_last<N>;
  static constexpr channel_kind kind = channel_kind::accumulator;
};

// A write that sets the channel's value whatever its reducer: what a subgraph hands back
// for a channel whose reducer cannot express the child's change as one more write.
template <class T>
struct assign_value {
  T value;
  friend constexpr bool operator==(const assign_value&, const assign_value&) = default;
};

// ---- traits --------------------------------------------------------------------------

template <class F>
struct channel_traits {  // a plain field: last value wins
  using value_type = F;
  using reducer = replace;
  static constexpr channel_kind kind = channel_kind::last_value;
  static constexpr F& value(F& f) { return f; }
  static constexpr const F& value(const F& f) { return f; }
};

template <class F>
  requires requires {
    typename F::value_type;
    typename F::reducer;
    F::kind;
  }
struct channel_traits<F> {
  using value_type = typename F::value_type;
  using reducer = typename F::reducer;
  static constexpr channel_kind kind = F::kind;
  static constexpr value_type& value(F& f) { return f.value(); }
  static constexpr const value_type& value(const F& f) { return f.value(); }
};

namespace detail {
template <class V>
concept tail_sequence = requires(V& v, const V& cv, std::size_t k) {
  cv.size();
  cv[k];
  v.insert(v.end(), cv.begin() + static_cast<std::ptrdiff_t>(k), cv.end());
  V(cv.begin() + static_cast<std::ptrdiff_t>(k), cv.end());
};
// A channel whose writes append to its value (reducer_traits<...>::appends) and whose value
// is a sequence: a change of it is its new tail.
template <class F>
inline constexpr bool appends_only = reducer_traits<typename channel_traits<F>::reducer>::appends &&
                                     tail_sequence<typename channel_traits<F>::value_type>;
}  // namespace detail

// Can a channel of field type F take a write of type U?
namespace detail {
template <class U>
inline constexpr bool is_assign = false;
template <class T>
inline constexpr bool is_assign<assign_value<T>> = true;
}  // namespace detail

template <class F, class U>
concept accepts_write =
    std::is_invocable_v<typename channel_traits<F>::reducer, typename channel_traits<F>::value_type, U> ||
    (detail::is_assign<std::remove_cvref_t<U>> &&
     std::is_assignable_v<typename channel_traits<F>::value_type&, decltype(std::declval<U>().value)>);

// Folds one write into a channel, in place when the reducer can.
template <class F, class U>
constexpr void reduce_into(F& field, U&& u) {
  using tr = channel_traits<F>;
  using op = typename tr::reducer;
  auto& acc = tr::value(field);
  if constexpr (detail::is_assign<std::remove_cvref_t<U>>) {
    acc = std::forward<U>(u).value;
  } else if constexpr (requires { op::into(acc, std::forward<U>(u)); }) {
    op::into(acc, std::forward<U>(u));
  } else {
    acc = op{}(std::move(acc), std::forward<U>(u));
  }
}

}  // namespace stategraph
