// Reflection of the state struct: channel count, the index of a member pointer, and each
// channel's name, all at compile time: with Boost.PFR and no registration by default, or
// with Boost.Hana for a Hana Struct when <stategraph/hana.hpp> is included. A member of
// type sg::composite<Child> is flattened: its channels are the parent's, named
// "member.channel", and sg::in<&Parent::member, &Child::channel> names one of them.
#pragma once

#include <stategraph/channels.hpp>
#include <stategraph/detail/meta.hpp>

#include <boost/pfr/core.hpp>
#include <boost/pfr/tuple_size.hpp>

#include <array>
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>

// The fake object below is declared and never defined on purpose.
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wundefined-var-template"
#endif

namespace stategraph {

namespace detail {

template <auto MP>
struct member_pointer;
template <class C, class F, F C::*MP>
struct member_pointer<MP> {
  using class_type = C;
  using field_type = F;
};

template <class Outer, class Inner>
struct channel_path;
}  // namespace detail

// A child state embedded in a parent state: its channels become channels of the parent,
// named with the member's name as prefix ("tracker.seen"). It derives from the child state,
// so the child's own member pointers reach into it.
template <class S>
struct composite : S {
  using composite_state = S;
};

namespace detail {
// The key of a channel inside a composite: the composite member, then the child's channel
// (a member pointer, or another path for a composite inside a composite). A structural
// value, so it is a template argument wherever a member pointer is.
template <class Outer, class Inner>
struct channel_path {
  Outer outer;
  Inner inner;
};
template <class O, class I, channel_path<O, I> P>
struct member_pointer<P> {
  using class_type = typename member_pointer<P.outer>::class_type;
  using field_type = typename member_pointer<P.inner>::field_type;
};

// The key is made even when misused, so the assertion is the only error.
template <auto Composite, auto Channel>
consteval channel_path<decltype(Composite), decltype(Channel)> path_to() {
  static_assert(std::is_same_v<typename member_pointer<Composite>::field_type,
                               composite<typename member_pointer<Channel>::class_type>>,
                "stategraph: sg::in<&Parent::member, &Child::channel> needs a member of type sg::composite<Child>");
  return {Composite, Channel};
}

template <class T>
inline constexpr bool is_channel_path = false;
template <class O, class I>
inline constexpr bool is_channel_path<channel_path<O, I>> = true;

// The member a channel key names in a state object: `s.*MP` for a member pointer, and
// through the composite for a path (the child's member pointers apply to the composite,
// which derives from the child state).
template <auto MP, class S>
constexpr auto& member(S& s) noexcept {
  if constexpr (is_channel_path<std::remove_cv_t<decltype(MP)>>) return member<MP.inner>(s.*(MP.outer));
  else return s.*MP;
}

// An object that is declared and never defined: only the addresses of its members are
// used, in constant expressions, to match member pointers with PFR's field indices and
// to read the members' names from the compiler.
template <class S>
struct fake_object {
  static const S value;
};

template <class P>
struct address_box {  // Clang 14 takes a subobject's address as an NTTP only inside a class
  P pointer;
};
template <class P>
address_box(P) -> address_box<P>;

template <auto Box>
constexpr std::string_view pretty_address() {
  return __PRETTY_FUNCTION__;
}

// Boost.PFR reflects aggregates only. Rule SG016 refuses any other state (rules/state.hpp);
// a count of zero keeps PFR's own assertions from following that diagnostic.
template <class S>
constexpr std::size_t aggregate_field_count() {
  if constexpr (std::is_aggregate_v<S>)
    return boost::pfr::tuple_size_v<S>;
  else
    return 0;
}

// A class, so that naming the alias below does not reflect S (GCC would, for a non-aggregate).
template <std::size_t I, class S>
struct aggregate_field {
  using type = boost::pfr::tuple_element_t<I, S>;
};

}  // namespace detail

// sg::in<&Canvas::tracker, &Tracker::seen>: the channel `tracker.seen` of Canvas, usable
// wherever a member pointer names a channel (reads, writes, view::get, write, containers).
template <auto Composite, auto Channel>
inline constexpr auto in = detail::path_to<Composite, Channel>();

// How a state type is reflected: its channel count, each field's type, a reference to each
// field, and each field's name. The default reads an aggregate with Boost.PFR;
// <stategraph/hana.hpp> specialises it for Hana Structs (the second parameter is for
// such enable_if specialisations).
template <class S, class = void>
struct state_reflection {
  // The state must be an aggregate (SG016); a specialisation need not say so.
  static constexpr bool needs_aggregate = true;
  static constexpr std::size_t size = detail::aggregate_field_count<S>();

  template <std::size_t I>
  using field = typename detail::aggregate_field<I, S>::type;

  template <std::size_t I, class T>
  static constexpr auto& get(T& s) noexcept {
    return boost::pfr::get<I>(s);
  }

  template <std::size_t I>
  static constexpr std::string_view name() {
    constexpr std::string_view s = detail::pretty_address<detail::address_box{
        &boost::pfr::get<I>(detail::fake_object<S>::value)}>();
    // The member name is the identifier before the closing ")}" (GCC) or "}]" (Clang).
    constexpr auto close = s.rfind('}');
    constexpr auto stop = s[close - 1] == ')' ? close - 1 : close;
    constexpr auto start = s.find_last_of(".:", stop) + 1;
    return s.substr(start, stop - start);
  }
};

namespace detail {
template <class T>
struct composite_of {
  using type = void;
};
template <class S>
struct composite_of<composite<S>> {
  using type = S;
};
template <class T>
inline constexpr bool is_composite = !std::is_void_v<typename composite_of<T>::type>;

// An array, not a fold: Clang refuses a fold over more than 256 channels.
template <class S, std::size_t... I>
constexpr bool any_composite(std::index_sequence<I...>) {
  constexpr bool hit[] = {is_composite<typename state_reflection<S>::template field<I>>..., false};
  return first_true(hit, sizeof...(I)) < sizeof...(I);
}
template <class S>
inline constexpr bool has_composites = any_composite<S>(std::make_index_sequence<state_reflection<S>::size>{});

template <class S>
struct flat_reflection;

// A state without composites is reflected as its state_reflection says, untouched: only
// a state with an sg::composite member pays for the flattening.
template <class S>
using reflection_of = std::conditional_t<has_composites<S>, flat_reflection<S>, state_reflection<S>>;
}  // namespace detail

template <class S>
inline constexpr std::size_t channel_count = detail::reflection_of<S>::size;

template <class S, std::size_t I>
using field_type_t = typename detail::reflection_of<S>::template field<I>;

template <class S, std::size_t I>
constexpr std::string_view channel_name_at();

namespace detail {
template <std::size_t I, class S>
constexpr auto& field(S& s) noexcept;

// A state with composite members: member i spans channel_count of its child (a composite)
// or one channel; channel I is found in the member whose span holds it.
template <class S>
struct flat_reflection {
 private:
  using raw = state_reflection<S>;
  template <std::size_t M>
  using member_type = typename raw::template field<M>;
  template <std::size_t M>
  using child = typename composite_of<member_type<M>>::type;

  static constexpr auto starts = []<std::size_t... M>(std::index_sequence<M...>) {
    std::array<std::size_t, sizeof...(M) + 1> at{};
    std::size_t n = 0, k = 0;
    ((at[k++] = n, n += [] {
        if constexpr (is_composite<member_type<M>>) return channel_count<child<M>>;
        else return std::size_t{1};
      }()),
     ...);
    at[k] = n;
    return at;
  }(std::make_index_sequence<raw::size>{});

  // The member that holds channel I.
  template <std::size_t I>
  static constexpr std::size_t owner = [] {
    std::size_t m = 0;
    while (starts[m + 1] <= I) ++m;
    return m;
  }();

  template <class Child, class T>
  using like = std::conditional_t<std::is_const_v<T>, const Child, Child>;

  // "member.channel", kept in static storage for the string_view handed out.
  template <std::size_t I>
  struct joined {
    static constexpr std::string_view prefix = raw::template name<owner<I>>();
    static constexpr std::string_view rest = channel_name_at<child<owner<I>>, I - starts[owner<I>]>();
    static constexpr auto text = [] {
      std::array<char, prefix.size() + 1 + rest.size()> out{};
      std::size_t k = 0;
      for (char c : prefix) out[k++] = c;
      out[k++] = '.';
      for (char c : rest) out[k++] = c;
      return out;
    }();
  };

 public:
  static constexpr std::size_t size = starts[raw::size];

  template <std::size_t I, class T>
  static constexpr auto& get(T& s) noexcept {
    constexpr std::size_t m = owner<I>;
    if constexpr (is_composite<member_type<m>>)
      return detail::field<I - starts[m]>(static_cast<like<child<m>, T>&>(raw::template get<m>(s)));
    else
      return raw::template get<m>(s);
  }

  template <std::size_t I>
  using field = std::remove_cvref_t<decltype(get<I>(std::declval<S&>()))>;

  template <std::size_t I>
  static constexpr std::string_view name() {
    if constexpr (is_composite<member_type<owner<I>>>)
      return std::string_view(joined<I>::text.data(), joined<I>::text.size());
    else
      return raw::template name<owner<I>>();
  }
};
}  // namespace detail

// The position of the first channel of S whose member type F has P<F>::value (the count if
// none): how a rule finds the channel its diagnostic names.
template <class S, template <class> class P>
constexpr std::size_t first_channel_where() {
  return []<std::size_t... I>(std::index_sequence<I...>) {
    constexpr bool hit[] = {P<field_type_t<S, I>>::value..., false};
    return detail::first_true(hit, sizeof...(I));
  }(std::make_index_sequence<channel_count<S>>{});
}

template <class S, std::size_t I>
constexpr std::string_view channel_name_at() {
  return detail::reflection_of<S>::template name<I>();
}

namespace detail {
// The state's I-th channel (the wrapper, e.g. the sg::counter<int>), whatever reflects it.
template <std::size_t I, class S>
constexpr auto& field(S& s) noexcept {
  return reflection_of<std::remove_const_t<S>>::template get<I>(s);
}

// The state's I-th member as a constant both compilers print with its name (GCC
// `&...value.State::messages`, Clang `{&value.messages}`): how a diagnostic names a channel
// it knows only by its index.
template <class S, std::size_t I>
inline constexpr auto member_at = address_box{&field<I>(fake_object<S>::value)};
}  // namespace detail

// The index of the channel a member pointer names, or channel_count<S> if it names none.
// consteval: the fake object has no definition, so this must never run.
template <class S, auto MP>
consteval std::size_t channel_index() {
  using mp = detail::member_pointer<MP>;
  if constexpr (!std::is_same_v<typename mp::class_type, S>) {
    return channel_count<S>;
  } else {
    std::size_t found = channel_count<S>;
    const void* target = &detail::member<MP>(detail::fake_object<S>::value);
    detail::for_each_index<channel_count<S>>([&]<std::size_t I>() {
      if (static_cast<const void*>(&detail::field<I>(detail::fake_object<S>::value)) == target) found = I;
    });
    return found;
  }
}

template <auto MP>
using state_of = typename detail::member_pointer<MP>::class_type;

template <auto MP>
using field_of = typename detail::member_pointer<MP>::field_type;

// The channel's own member name: channel_name<&State::messages>() == "messages".
template <auto MP>
constexpr std::string_view channel_name() {
  return channel_name_at<state_of<MP>, channel_index<state_of<MP>, MP>()>();
}

template <class S>
constexpr std::array<std::string_view, channel_count<S>> channel_names() {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<std::string_view, channel_count<S>>{channel_name_at<S, I>()...};
  }(std::make_index_sequence<channel_count<S>>{});
}

}  // namespace stategraph

#if defined(__clang__)
#pragma clang diagnostic pop
#endif
