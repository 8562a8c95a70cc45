// What a node declares and what it returns (contract §2): reads/writes/stage, the view
// it reads through, patches, go/to for routers, commands and sends, lambda nodes.
#pragma once

#include <stategraph/channels.hpp>
#include <stategraph/detail/meta.hpp>
#include <stategraph/rules/declared_targets.hpp>
#include <stategraph/rules/reads.hpp>
#include <stategraph/schema.hpp>

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace stategraph {

// ---- declarations --------------------------------------------------------------------

template <auto... Channels>
struct reads {
  using list = detail::mp_list<detail::value_t<Channels>...>;
};
template <auto... Channels>
struct writes {
  using list = detail::mp_list<detail::value_t<Channels>...>;
};
template <auto... Channels>
struct subscribes {
  using list = detail::mp_list<detail::value_t<Channels>...>;
};
template <class... Nodes>
struct goes {
  using list = detail::mp_list<Nodes...>;
};
template <class... Nodes>
struct sends {
  using list = detail::mp_list<Nodes...>;
};

struct any_stage {};  // the stage of a node that declares none

namespace detail {
// sg::node's default stage: the lambda node declares none (SG018 refuses it in a staged graph).
struct stage_not_declared {};
}  // namespace detail

// The pseudo-nodes where a run starts and ends.
struct start {
  static constexpr std::string_view name = "__start__";
};
struct end {
  static constexpr std::string_view name = "__end__";
};

// ---- view: read-only access to exactly the declared channels ------------------------

namespace detail {
struct view_access;
}

// Reads is sg::reads<...> or a read grant (sg::reads_from<...>, containers.hpp): what the
// view may hand out is rules::reads_declared's answer for either.
template <class State, class Reads>
class view {
 public:
  using state_type = State;
  using reads_type = Reads;

  constexpr explicit view(const State& s) noexcept : state_(&s) {}

  // The value of a declared channel, as its value type (a wrapper's value, a plain field).
  template <auto Channel>
  constexpr decltype(auto) get() const noexcept {
    if constexpr (!rules::reads_declared<Channel, reads_type>) {
      (void)rules::SG001_reads_undeclared_channel<Channel, reads_type>{};
      // Hand back the channel's real value, so the node's code compiles on and the rule's
      // message stays the only one.
      if constexpr (std::is_same_v<state_of<Channel>, State>) return channel_traits<field_of<Channel>>::value(detail::member<Channel>(*state_));
      else return 0;
    } else {
      return channel_traits<field_of<Channel>>::value(detail::member<Channel>(*state_));
    }
  }

 private:
  friend struct detail::view_access;
  const State* state_;
};

namespace detail {
// For the library's own composite nodes (subgraphs), which hand the whole state on.
struct view_access {
  template <class State, class Reads>
  static const State& state(const view<State, Reads>& v) noexcept {
    return *v.state_;
  }
};

// The view the library hands a node: an sg::view that knows its node, so a read outside
// `reads` in a generic (`auto`) call operator, checked when the library instantiates it,
// names the node (SG001). A call operator taking sg::view<State, reads> receives the base:
// its body was checked when it was parsed, before any node was known. An aggregate, built
// as `{view}`: a constructor would be one more function per node for the compiler to optimise.
template <class State, class Reads, class Node>
class node_view : public view<State, Reads> {
 public:
  template <auto Channel>
  constexpr decltype(auto) get() const noexcept {
    if constexpr (!rules::reads_declared<Channel, Reads>) {
      (void)rules::SG001_node_reads_undeclared_channel<Node, Channel, Reads>{};
      // The channel's real value, so the node's code compiles on (one error).
      if constexpr (std::is_same_v<state_of<Channel>, State>)
        return channel_traits<field_of<Channel>>::value(view_access::state(*this).*Channel);
      else
        return 0;
    } else {
      return view<State, Reads>::template get<Channel>();
    }
  }
};
}  // namespace detail

// ---- patches ---------------------------------------------------------------------------

template <auto Channel, class V, bool Optional = false>
struct entry {
  static constexpr auto channel = Channel;
  using value_type = V;
  V value;
  entry() = default;
  // Lets write() build the entry inside the patch's tuple instead of moving it there.
  template <class U>
    requires(!std::is_same_v<std::remove_cvref_t<U>, entry> && std::is_constructible_v<V, U &&>)
  constexpr explicit entry(U&& u) : value(std::forward<U>(u)) {}
  static constexpr bool present() { return true; }
  V&& take() { return std::move(value); }
};
template <auto Channel, class V>
struct entry<Channel, V, true> {
  static constexpr auto channel = Channel;
  using value_type = V;
  std::optional<V> value;
  bool present() const { return value.has_value(); }
  V&& take() { return std::move(*value); }
};

// A partial update: one entry per write, applied in order through each channel's reducer.
template <class... Entries>
struct patch {
  std::tuple<Entries...> entries;

  template <class... Others>
  friend constexpr patch<Entries..., Others...> operator|(patch&& a, patch<Others...>&& b) {
    return {std::tuple_cat(std::move(a.entries), std::move(b.entries))};
  }
};

// `write<&State::x>(v)`: a patch of one entry. Whether the channel can take v is checked
// where the graph is compiled (SG004), where the node that wrote it is known.
// A string literal is kept as a std::string: a patch owns what it writes.
template <class V>
using written_t = std::conditional_t<std::is_same_v<std::decay_t<V>, const char*> || std::is_same_v<std::decay_t<V>, char*>,
                                     std::string, std::decay_t<V>>;

template <auto Channel, class V>
constexpr patch<entry<Channel, written_t<V>>> write(V&& v) {
  return {std::tuple<entry<Channel, written_t<V>>>(std::forward<V>(v))};
}
// A write that may not happen: an empty optional changes nothing.
template <auto Channel, class V>
constexpr patch<entry<Channel, V, true>> maybe_write(std::optional<V> v) {
  return {{entry<Channel, V, true>{std::move(v)}}};
}

// ---- routing: go<...>, to<T>, command, send --------------------------------------------

template <class T>
struct target {
  using type = T;
};
template <class T>
inline constexpr target<T> to{};

// One of the declared targets, chosen at run time.
template <class... Ts>
class go {
 public:
  using targets = detail::mp_list<Ts...>;
  static_assert(sizeof...(Ts) > 0 && sizeof...(Ts) < 64, "sg::go takes 1 to 63 targets");

  // SG010 is checked in the signature, where the router returns (declared_targets.hpp).
  template <class T, std::size_t = sizeof(rules::returned_target_check<T, Ts...>)>
  constexpr go(target<T>) noexcept : index_(static_cast<std::uint8_t>(detail::index_in<T, targets>)) {}
  template <class... Us>
    requires(detail::contains<Us, targets> && ...)
  constexpr go(go<Us...> other) noexcept : index_(0) {
    constexpr std::uint8_t map[] = {static_cast<std::uint8_t>(detail::index_in<Us, targets>)...};
    index_ = map[other.index()];
  }
  constexpr std::size_t index() const noexcept { return index_; }
  constexpr std::uint64_t mask() const noexcept { return std::uint64_t{1} << index_; }
  template <class T>
  constexpr bool is() const noexcept {
    return index_ == detail::index_in<T, targets>;
  }

 private:
  std::uint8_t index_;
};

// Any subset of the declared targets, all of which run in the next step.
template <class... Ts>
class go_all {
 public:
  using targets = detail::mp_list<Ts...>;
  static_assert(sizeof...(Ts) < 64, "sg::go_all takes at most 63 targets");

  constexpr go_all() noexcept = default;
  template <class... Us>
  constexpr go_all(target<Us>... chosen) noexcept {
    (add(chosen), ...);
  }
  template <class T, std::size_t = sizeof(rules::returned_target_check<T, Ts...>)>
  constexpr go_all& add(target<T>) noexcept {
    if constexpr (rules::declares_target<T, Ts...>) mask_ |= std::uint64_t{1} << detail::index_in<T, targets>;
    return *this;
  }
  constexpr std::uint64_t mask() const noexcept { return mask_; }
  template <class T>
  constexpr bool has() const noexcept {
    return (mask_ >> detail::index_in<T, targets>) & 1u;
  }

 private:
  std::uint64_t mask_ = 0;
};

template <class T>
struct is_go : std::false_type {};
template <class... Ts>
struct is_go<go<Ts...>> : std::true_type {};
template <class... Ts>
struct is_go<go_all<Ts...>> : std::true_type {};

// An update together with goto targets (in addition to the node's static edges).
template <class Patch, class Go>
struct command {
  Patch update;
  Go next;
};
template <class Patch, class T>
command(Patch, target<T>) -> command<Patch, go<T>>;
template <class Patch, class... Ts>
command(Patch, go<Ts...>) -> command<Patch, go<Ts...>>;
template <class Patch, class... Ts>
command(Patch, go_all<Ts...>) -> command<Patch, go_all<Ts...>>;

// One task for Target in the next step, with payload as its input.
template <class Target, class Payload>
struct send_to {
  using target_type = Target;
  Payload payload;
};
template <class Target, class Payload>
constexpr send_to<Target, std::decay_t<Payload>> send(Payload&& p) {
  return {std::forward<Payload>(p)};
}

// ---- lambda nodes ------------------------------------------------------------------------

template <class Tag, class Stage, class Reads, class Writes, class F>
struct lambda_node {
  using tag = Tag;
  using stage = Stage;
  using reads = Reads;
  using writes = Writes;
  static constexpr std::string_view name = detail::type_name<Tag>();
  F fn;

  // Constrained, so asking whether the node takes a context does not instantiate the lambda.
  template <class... Args>
    requires std::invocable<const F&, Args...>
  constexpr decltype(auto) operator()(Args&&... args) const {
    return fn(std::forward<Args>(args)...);
  }
};

namespace detail {
// The type that names a node in messages: a lambda node's tag, a class node itself.
template <class N>
struct named_node {
  using type = N;
};
template <class Tag, class Stage, class Reads, class Writes, class F>
struct named_node<lambda_node<Tag, Stage, Reads, Writes, F>> {
  using type = Tag;
};
}  // namespace detail

// `sg::node<classify_tag, anchor_plan, sg::reads<...>, sg::writes<...>>(lambda)`: the graph
// names the tag; sg::compile binds the tag to this callable.
template <class Tag, class Stage = detail::stage_not_declared, class Reads = reads<>, class Writes = writes<>, class F>
constexpr lambda_node<Tag, Stage, Reads, Writes, std::decay_t<F>> node(F&& f) {
  return {std::forward<F>(f)};
}

// ---- what the library reads off a node type -----------------------------------------------

namespace detail {
#define STATEGRAPH_MEMBER_TYPE_OR(trait, member, expr)                     \
  template <class N, class Default>                                       \
  struct trait {                                                          \
    using type = Default;                                                 \
  };                                                                      \
  template <class N, class Default>                                       \
    requires requires { typename N::member; }                             \
  struct trait<N, Default> {                                              \
    using type = expr;                                                    \
  };
STATEGRAPH_MEMBER_TYPE_OR(stage_or, stage, typename N::stage)
STATEGRAPH_MEMBER_TYPE_OR(reads_or, reads, typename N::reads)
STATEGRAPH_MEMBER_TYPE_OR(writes_or, writes, typename N::writes)
STATEGRAPH_MEMBER_TYPE_OR(goes_or, goes, typename N::goes::list)
STATEGRAPH_MEMBER_TYPE_OR(sends_or, sends, typename N::sends::list)
STATEGRAPH_MEMBER_TYPE_OR(subscribes_or, subscribes, typename N::subscribes::list)
STATEGRAPH_MEMBER_TYPE_OR(seam_or, seam, typename N::seam)
#undef STATEGRAPH_MEMBER_TYPE_OR

template <class Stage>
struct stage_or_any {
  using type = Stage;
};
template <>
struct stage_or_any<stage_not_declared> {
  using type = any_stage;
};
template <class N>
concept declares_stage =
    requires { typename N::stage; } && !std::is_same_v<typename stage_or<N, stage_not_declared>::type, stage_not_declared>;

// A node renames itself with a static `name`; a data member that happens to be called
// `name` (a node's own state) is not one.
template <class N>
concept declares_static_name = requires { N::name; } && !std::is_member_pointer_v<decltype(&N::name)>;

template <class N>
constexpr std::string_view node_name() {
  if constexpr (declares_static_name<N>) return std::string_view(N::name);
  else return type_name<N>();
}
}  // namespace detail

template <class N>
struct node_traits {
  static constexpr std::string_view name = detail::node_name<N>();
  using stage = typename detail::stage_or_any<typename detail::stage_or<N, any_stage>::type>::type;
  static constexpr bool declares_stage = detail::declares_stage<N>;
  using reads_type = typename detail::reads_or<N, reads<>>::type;
  using writes_type = typename detail::writes_or<N, writes<>>::type;
  using goes_list = typename detail::goes_or<N, detail::mp_list<>>::type;
  using sends_list = typename detail::sends_or<N, detail::mp_list<>>::type;
  using subscribes_list = typename detail::subscribes_or<N, detail::mp_list<>>::type;
  using seam = typename detail::seam_or<N, void>::type;
  static constexpr bool declares_reads = requires { typename N::reads; };
  static constexpr bool declares_writes = requires { typename N::writes; };
  static constexpr bool declares_subscribes = requires { typename N::subscribes; };
};

// `operator()(sg::view_for<State, answer> in)`: the view of a class node or router that
// names it, so a read outside its `reads` names the node (SG001) in a non-generic call
// operator too. Written inside the node's own class, where the node is still incomplete; the
// view is instantiated only where the call operator's body is compiled, in which the node is
// complete, so its `reads` are known there. It is an sg::view<State, reads> for what it is
// passed to, and it is built from one: the library's view, or a test's.
template <class State, class Node>
class view_for : public detail::node_view<State, typename detail::reads_or<Node, reads<>>::type, Node> {
  using declared_reads = typename detail::reads_or<Node, reads<>>::type;
  using base = detail::node_view<State, declared_reads, Node>;

 public:
  constexpr explicit view_for(const State& s) noexcept : base{view<State, declared_reads>(s)} {}
  constexpr view_for(const view<State, declared_reads>& v) noexcept  // NOLINT: implicit, as the library passes its view
      : base{v} {}
};

}  // namespace stategraph
