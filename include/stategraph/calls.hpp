// How the runtime and the rules see a node's call: its view, whether it can be called, and
// what its result means (an update, goto targets, sends).
#pragma once

#include <stategraph/detail/meta.hpp>
#include <stategraph/graph.hpp>
#include <stategraph/node.hpp>

#include <boost/mp11/algorithm.hpp>

#include <concepts>
#include <cstddef>
#include <type_traits>
#include <vector>

namespace stategraph {
// `using seam = sg::optional_seam<extractor>;`: the node runs only when the run's context
// provides the seam; otherwise it is skipped (it counts as having run and written nothing).
template <class Seam>
struct optional_seam {
  using type = Seam;
};

// Hands a node the seam it declared (`using seam = reasoning;`) from its context.
namespace detail {
struct any_context;
}
template <class Seam, class Ctx>
Seam& seam(Ctx& context) {
  if constexpr (std::is_same_v<Ctx, detail::any_context>) {
    // Only ever instantiated while sg::compile asks what a generic node returns; never run.
    static Seam* never = nullptr;
    return *never;
  } else if constexpr (std::derived_from<Ctx, Seam>) {
    return context;
  } else if constexpr (requires { context.template provide<Seam>(); }) {
    return context.template provide<Seam>();
  } else if constexpr (requires { context.template find<Seam>(); }) {
    // An optional seam found at run time: the node runs only when find() gave one.
    return *context.template find<Seam>();
  } else {
    // A context without the seam: SG012 refuses it where it is passed to invoke, and no
    // second error is raised here (sg::compile types a node that takes that context).
    static Seam* never = nullptr;
    return *never;
  }
}
// A command whose goto is sends: LangGraph's Command(update=..., goto=[Send(...), ...]).
template <class Patch, class T, class P>
command(Patch, send_to<T, P>) -> command<Patch, send_to<T, P>>;
template <class Patch, class T, class P>
command(Patch, std::vector<send_to<T, P>>) -> command<Patch, std::vector<send_to<T, P>>>;
}  // namespace stategraph

namespace stategraph::detail {

// Lets a call-operator check accept a node that takes a runtime context we do not know yet.
struct any_context {
  template <class T>
  operator T&() const;
};
// A coroutine node's (or router's) result stands for the value it produces. Specialised by
// the opt-in <stategraph/asio.hpp> for boost::asio::awaitable<T>, which also says how a
// synchronous executor waits for one; the core names no Asio type.
template <class R>
struct async_result {
  static constexpr bool is_async = false;
  using type = R;
};
template <class R>
using awaited_t = typename async_result<R>::type;
struct no_context {};

// A node that no send targets keeps no queue.
struct no_queue {
  static constexpr bool empty() { return true; }
  static constexpr std::size_t size() { return 0; }
  static constexpr void clear() {}
  friend constexpr bool operator==(const no_queue&, const no_queue&) = default;
};

template <class Send>
using target_of_send = typename Send::target_type;

template <class R>
struct send_traits {
  static constexpr bool is_send = false;
  using sends = mp_list<>;
};
template <class T, class P>
struct send_traits<send_to<T, P>> {
  static constexpr bool is_send = true;
  using sends = mp_list<send_to<T, P>>;
};
template <class T, class P>
struct send_traits<std::vector<send_to<T, P>>> {
  static constexpr bool is_send = true;
  using sends = mp_list<send_to<T, P>>;
};
template <class P, class G>
struct send_traits<command<P, G>> : send_traits<G> {};

template <class R>
inline constexpr bool is_command = false;
template <class P, class G>
inline constexpr bool is_command<command<P, G>> = true;

// Where a result keeps its sends: the result itself, or a command's goto.
template <class R>
struct sends_holder {
  using type = R;
  template <class X>
  static X&& take(X&& r) {
    return std::move(r);
  }
};
template <class P, class G>
struct sends_holder<command<P, G>> {
  using type = G;
  static G&& take(command<P, G>&& c) { return std::move(c.next); }
};

template <class R>
struct result_kind {
  static constexpr bool supported = false;
  using patch_type = void;
  using go_type = void;
};
template <>
struct result_kind<void> {
  static constexpr bool supported = true;
  using patch_type = patch<>;
  using go_type = void;
};
template <class... E>
struct result_kind<patch<E...>> {
  static constexpr bool supported = true;
  using patch_type = patch<E...>;
  using go_type = void;
};
template <class P, class G>
struct result_kind<command<P, G>> {  // G: a go<...>, or sends (LangGraph's Command(goto=[Send(...)]))
  static constexpr bool supported = result_kind<P>::supported && (is_go<G>::value || send_traits<G>::is_send);
  using patch_type = P;
  using go_type = std::conditional_t<is_go<G>::value, G, void>;
};

// The view N is called with (knows N, for SG001), and the one messages print.
template <class N, class S>
using node_view_t = node_view<S, typename node_traits<N>::reads_type, typename named_node<N>::type>;
template <class N, class S>
using declared_view_t = view<S, typename node_traits<N>::reads_type>;

// A seam is a service a node needs from the runtime context: the context derives from it,
// or hands it out with `provide<Seam>()`.
template <class Ctx, class Seam>
concept provides_seam = std::derived_from<Ctx, Seam> || requires(Ctx& c) {
  { c.template provide<Seam>() } -> std::convertible_to<Seam&>;
};
// A context that may hold an optional seam, known only at run time: `Seam* find<Seam>()`,
// null when it has none.
template <class Ctx, class Seam>
concept may_provide_seam = requires(Ctx& c) {
  { c.template find<Seam>() } -> std::convertible_to<Seam*>;
};

template <class T>
struct optional_seam_of {
  using type = void;
};
template <class Seam>
struct optional_seam_of<optional_seam<Seam>> {
  using type = Seam;
};
// The seam N declares optional (void when it declares none, or a required one).
template <class N>
using optional_seam_t = typename optional_seam_of<typename node_traits<N>::seam>::type;

// N's optional seam is absent from Ctx's type: the node never runs with this context.
template <class N, class Ctx>
concept skipped_by_type = !std::is_void_v<optional_seam_t<N>> && !std::is_same_v<Ctx, any_context> &&
                          !provides_seam<Ctx, optional_seam_t<N>> && !may_provide_seam<Ctx, optional_seam_t<N>>;
// Ctx may or may not hold N's optional seam: each call looks.
template <class N, class Ctx>
concept skipped_at_run_time = !std::is_void_v<optional_seam_t<N>> && !std::is_same_v<Ctx, any_context> &&
                              !provides_seam<Ctx, optional_seam_t<N>> && may_provide_seam<Ctx, optional_seam_t<N>>;
// The context a node is checked with: a node its context skips is still checked, as
// sg::compile checks it (with a context that provides anything).
template <class N, class Ctx>
using checked_context_t = std::conditional_t<skipped_by_type<N, Ctx>, any_context, Ctx>;

template <class N, class S, class Ctx>
constexpr bool callable_with() {
  if constexpr (skipped_by_type<N, Ctx>) return callable_with<N, S, any_context>();
  else if constexpr (std::is_same_v<Ctx, no_context>) return callable_as<const N&, node_view_t<N, S>>;
  else return callable_as<const N&, node_view_t<N, S>, Ctx&> || callable_as<const N&, node_view_t<N, S>>;
}

// call_type, looked up only when its ::type is named (so only for the call that is made).
// Not mp11's mp_defer: that alias checks both calls' validity when std::conditional_t names
// them, which costs every node a second check.
template <class F, class... Args>
struct lazy_call_type {
  using type = call_type<F, Args...>;
};

// The result of calling node N with its view (and the context, when it takes one).
template <class N, class S, class Ctx>
struct call_result {
  using type = void;
  static constexpr bool callable = false;
};
template <class N, class S, class Ctx>
  requires(callable_with<N, S, Ctx>() && !skipped_by_type<N, Ctx>)
struct call_result<N, S, Ctx> {
  static constexpr bool callable = true;
  static constexpr bool with_context =
      !std::is_same_v<Ctx, no_context> && callable_as<const N&, node_view_t<N, S>, Ctx&>;
  using type = awaited_t<
      std::remove_cvref_t<typename std::conditional_t<with_context, lazy_call_type<const N&, node_view_t<N, S>, Ctx&>,
                                                      lazy_call_type<const N&, node_view_t<N, S>>>::type>>;
};

// A node its context skips is typed as sg::compile types it.
template <class N, class S, class Ctx>
  requires(skipped_by_type<N, Ctx>)
struct call_result<N, S, Ctx> : call_result<N, S, any_context> {};

// A send target is called with its payload after the view (and the context, if it takes one).
template <class N, class S, class P, class Ctx>
constexpr bool send_callable_with() {
  if constexpr (std::is_same_v<Ctx, no_context>) return callable_as<const N&, node_view_t<N, S>, const P&>;
  else
    return callable_as<const N&, node_view_t<N, S>, const P&, Ctx&> ||
           callable_as<const N&, node_view_t<N, S>, const P&>;
}
template <class N, class S, class P, class Ctx>
struct send_call_result {
  using type = void;
  static constexpr bool callable = false;
};
template <class N, class S, class P, class Ctx>
  requires(send_callable_with<N, S, P, Ctx>())
struct send_call_result<N, S, P, Ctx> {
  static constexpr bool callable = true;
  static constexpr bool with_context =
      !std::is_same_v<Ctx, no_context> && callable_as<const N&, node_view_t<N, S>, const P&, Ctx&>;
  using type = awaited_t<std::remove_cvref_t<typename std::conditional_t<
      with_context, lazy_call_type<const N&, node_view_t<N, S>, const P&, Ctx&>,
      lazy_call_type<const N&, node_view_t<N, S>, const P&>>::type>>;
};

template <class T>
concept node_like = std::is_class_v<T> && !is_pseudo<T> &&
                    (requires { &T::operator(); } || requires { typename T::reads; } ||
                     requires { typename T::writes; } || requires { typename T::tag; });

template <class Entry>
using entry_channel = value_t<Entry::channel>;

template <class R>
using send_targets_of = boost::mp11::mp_transform<target_of_send, typename send_traits<R>::sends>;

template <class T, class P>
struct result_kind<send_to<T, P>> {
  static constexpr bool supported = true;
  using patch_type = patch<>;
  using go_type = void;
};
template <class T, class P>
struct result_kind<std::vector<send_to<T, P>>> {
  static constexpr bool supported = true;
  using patch_type = patch<>;
  using go_type = void;
};

}  // namespace stategraph::detail
