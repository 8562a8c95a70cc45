// Not rules: an app's entry point called with arguments none of its overloads takes. A "no
// matching function" would print the app's whole type (graph, analysis, bound lambda nodes)
// in the error and in each candidate's note, lines of thousands of characters. Each entry
// point has one more overload instead, taking its first argument as `wrong_call`: it loses
// to every overload that fits (it needs a user-defined conversion where they need none) and
// is picked only when none fits; its converting constructor then fails at the caller's
// line with one error naming the entry point, the arguments' types and what it takes.
#pragma once

#include <stategraph/detail/meta.hpp>
#include <stategraph/events.hpp>
#include <stategraph/rules/inputs.hpp>
#include <stategraph/run_options.hpp>

#include <boost/mp11/list.hpp>

#include <string_view>
#include <type_traits>

namespace stategraph::rules {

// One diagnostic per entry point: its name is what the error shows first, its message what
// the entry point takes.

template <class... Arguments>
struct invoke_arguments_fit_no_overload {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<invoke_arguments_fit_no_overload>,
                  "app.invoke takes (input[, context][, run_config]): the state or a partial input, a named context");
  };
  static constexpr fail<> raised{};
};

template <class... Arguments>
struct stream_arguments_fit_no_overload {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<stream_arguments_fit_no_overload>,
                  "app.stream takes (state, stream_mode[, context], callback(const sg::event<S>&)[, run_config])");
  };
  static constexpr fail<> raised{};
};

template <class... Arguments>
struct async_invoke_arguments_fit_no_overload {
  template <int = 0>
  struct fail {
    static_assert(
        stategraph::detail::always_false<async_invoke_arguments_fit_no_overload>,
        "app.async_invoke takes (state[, context][, run_config][, async_options]) from <stategraph/asio.hpp>");
  };
  static constexpr fail<> raised{};
};

template <class... Arguments>
struct async_stream_arguments_fit_no_overload {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<async_stream_arguments_fit_no_overload>,
                  "app.async_stream takes (state, stream_mode[, context], callback[, run_config][, async_options]) "
                  "from <stategraph/asio.hpp>");
  };
  static constexpr fail<> raised{};
};

template <class... Arguments>
struct checkpointed_async_invoke_arguments_fit_no_overload {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<checkpointed_async_invoke_arguments_fit_no_overload>,
                  "checkpointed async_invoke takes (input, thread_id[, checkpoint_id][, context][, run_config][, "
                  "async_options])");
  };
  static constexpr fail<> raised{};
};

template <class... Arguments>
struct async_resume_arguments_fit_no_overload {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<async_resume_arguments_fit_no_overload>,
                  "async_resume takes (thread_id[, checkpoint_id | answer | sg::answers][, context][, run_config][, "
                  "async_options]) from <stategraph/checkpoint/asio.hpp>");
  };
  static constexpr fail<> raised{};
};

template <class... Arguments>
struct checkpointed_async_stream_arguments_fit_no_overload {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<checkpointed_async_stream_arguments_fit_no_overload>,
                  "checkpointed async_stream takes (state, thread_id, mode[, context], callback[, run_config][, "
                  "async_options])");
  };
  static constexpr fail<> raised{};
};

template <class... Arguments>
struct checkpointed_invoke_arguments_fit_no_overload {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<checkpointed_invoke_arguments_fit_no_overload>,
                  "checkpointed invoke takes (input, sg::thread_id{\"t\"}[, checkpoint_id][, context][, run_config])");
  };
  static constexpr fail<> raised{};
};

template <class... Arguments>
struct checkpointed_stream_arguments_fit_no_overload {
  template <int = 0>
  struct fail {
    static_assert(
        stategraph::detail::always_false<checkpointed_stream_arguments_fit_no_overload>,
        "checkpointed stream takes (state, sg::thread_id{\"t\"}, stream_mode[, context][, callback][, run_config])");
  };
  static constexpr fail<> raised{};
};

template <class... Arguments>
struct resume_arguments_fit_no_overload {
  template <int = 0>
  struct fail {
    static_assert(
        stategraph::detail::always_false<resume_arguments_fit_no_overload>,
        "resume takes (sg::thread_id{\"t\"}[, checkpoint_id | answer | sg::answers][, context][, run_config])");
  };
  static constexpr fail<> raised{};
};

template <class... Arguments>
struct get_state_arguments_fit_no_overload {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<get_state_arguments_fit_no_overload>,
                  "get_state takes (sg::thread_id{\"t\"}[, checkpoint_ns<...>][, checkpoint_id])");
  };
  static constexpr fail<> raised{};
};

template <class... Arguments>
struct history_arguments_fit_no_overload {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<history_arguments_fit_no_overload>,
                  "history takes (sg::thread_id{\"t\"}[, checkpoint_ns<...>][, list_options])");
  };
  static constexpr fail<> raised{};
};

template <class... Arguments>
struct update_state_arguments_fit_no_overload {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<update_state_arguments_fit_no_overload>,
                  "update_state takes (sg::thread_id{\"t\"}[, checkpoint_ns<...>], sg::write<&S::a>(x) | ..., "
                  "sg::as_node<Node>)");
  };
  static constexpr fail<> raised{};
};

// The entry points (short names: they appear in the notes): each says what its fitting
// overloads take first and chooses the diagnostic for the arguments given (decayed).
template <class S>
struct invoke_call {
  using expected = S;
  // (input, X) picked here: X did not bind as a context (Ctx&), so it is a temporary.
  template <class First, class... Rest>
  using diagnostic =
      std::conditional_t<!std::is_convertible_v<First, S> && !is_patch_v<First>,
                         run_input_is_neither_the_state_nor_a_patch<First, S>,
                         std::conditional_t<sizeof...(Rest) == 1 && !(std::is_same_v<Rest, run_config> && ...),
                                            second_argument_is_neither_a_named_context_nor_a_run_config<
                                                boost::mp11::mp_front<boost::mp11::mp_list<Rest..., void>>>,
                                            invoke_arguments_fit_no_overload<First, Rest...>>>;
};
template <class S>
struct stream_call {
  using expected = S;
  template <class First, class... Rest>
  using diagnostic = std::conditional_t<!std::is_convertible_v<First, S> && !is_patch_v<First>,
                                        run_input_is_neither_the_state_nor_a_patch<First, S>,
                                        stream_arguments_fit_no_overload<First, Rest...>>;
};
template <class S>
struct checkpointed_invoke_call {
  using expected = S;
  template <class First, class... Rest>
  using diagnostic = std::conditional_t<!std::is_convertible_v<First, S> && !is_patch_v<First>,
                                        run_input_is_neither_the_state_nor_a_patch<First, S>,
                                        checkpointed_invoke_arguments_fit_no_overload<First, Rest...>>;
};
template <class S>
struct async_invoke_call {
  using expected = S;
  template <class... Arguments>
  using diagnostic = async_invoke_arguments_fit_no_overload<Arguments...>;
};
template <class S>
struct checkpointed_stream_call {
  using expected = S;
  template <class... Arguments>
  using diagnostic = checkpointed_stream_arguments_fit_no_overload<Arguments...>;
};
template <class S>
struct async_stream_call {
  using expected = S;
  template <class... Arguments>
  using diagnostic = async_stream_arguments_fit_no_overload<Arguments...>;
};
template <class S>
struct checkpointed_async_invoke_call {
  using expected = S;
  template <class First, class... Rest>
  using diagnostic = std::conditional_t<!std::is_convertible_v<First, S> && !is_patch_v<First>,
                                        run_input_is_neither_the_state_nor_a_patch<First, S>,
                                        checkpointed_async_invoke_arguments_fit_no_overload<First, Rest...>>;
};
template <class S>
struct checkpointed_async_stream_call {
  using expected = S;
  template <class... Arguments>
  using diagnostic = checkpointed_async_stream_arguments_fit_no_overload<Arguments...>;
};
template <template <class...> class Diagnostic>
struct thread_call {
  using expected = thread_id;
  template <class... Arguments>
  using diagnostic = Diagnostic<Arguments...>;
};
struct resume_call : thread_call<resume_arguments_fit_no_overload> {};
struct get_state_call : thread_call<get_state_arguments_fit_no_overload> {};
struct history_call : thread_call<history_arguments_fit_no_overload> {};
struct update_state_call : thread_call<update_state_arguments_fit_no_overload> {};
struct async_resume_call : thread_call<async_resume_arguments_fit_no_overload> {};

// How a diagnostic shows an argument's type: a lambda as `lambda<R(Args...)>`, its call
// operator's signature (`generic_lambda` for a template one). Clang names a closure by its
// file's full path and position, which lengthens every line that names it; the caller's
// line, printed anyway, shows which lambda it is.
template <class Signature>
struct lambda {};
struct generic_lambda {};

template <class T>
constexpr bool is_lambda() {
  if constexpr (!std::is_class_v<T>) {
    return false;
  } else {
    // GCC: `<lambda(int)>`, after its scope; Clang: `(lambda at file.cpp:12:3)`.
    constexpr std::string_view name = stategraph::detail::type_name<T>();
    return name.starts_with("<lambda") || name.starts_with("(lambda at ");
  }
}

template <class CallOperator>
struct lambda_signature {
  using type = generic_lambda;
};
template <class R, class C, class... A>
struct lambda_signature<R (C::*)(A...) const> {
  using type = lambda<R(A...)>;
};
template <class R, class C, class... A>
struct lambda_signature<R (C::*)(A...)> {  // a mutable lambda
  using type = lambda<R(A...)>;
};
template <class R, class C, class... A>
struct lambda_signature<R (C::*)(A...) const noexcept> {
  using type = lambda<R(A...)>;
};
template <class R, class C, class... A>
struct lambda_signature<R (C::*)(A...) noexcept> {
  using type = lambda<R(A...)>;
};

template <class T>
struct shown_as {
  using type = T;
};
template <class T>
concept lambda_type = is_lambda<T>();  // a concept, so that the signature's case subsumes it
template <class T>
  requires lambda_type<T>
struct shown_as<T> {
  using type = generic_lambda;
};
template <class T>
  requires(lambda_type<T> && requires { &T::operator(); })
struct shown_as<T> {
  using type = typename lambda_signature<decltype(&T::operator())>::type;
};
template <class T>
using shown_t = typename shown_as<T>::type;

// The first parameter of an entry point's catch-all overload (as
// `std::type_identity_t<wrong_call<Entry, Rest...>>`, the other parameters being
// `const Rest&...`). It converts from anything but a type other than Entry::expected (what
// the fitting overloads take first) that converts to it, so that it never ties with them;
// the conversion, made at the caller's line, raises the entry point's diagnostic. An alias,
// so that the type printed at that line shows a lambda argument as shown_t does.
template <class Entry, class... Shown>
struct wrong_call_of {
  using expected = typename Entry::expected;
  template <class T>
    requires((!std::is_convertible_v<T, expected> || std::is_same_v<std::remove_cvref_t<T>, expected>) &&
             !std::is_same_v<std::remove_cvref_t<T>, wrong_call_of>)
  wrong_call_of(T&&) {  // NOLINT: converts implicitly, as the fitting overloads' argument would
    (void)typename Entry::template diagnostic<shown_t<std::decay_t<T>>, Shown...>{};
  }
};
template <class Entry, class... Rest>
using wrong_call = wrong_call_of<Entry, shown_t<Rest>...>;

// A call with no argument, which wrong_call cannot take (it is a first argument):
// `template <class Diagnostic = ...> entry(rules::no_arguments<Diagnostic> = {})`. The
// default argument's conversion, at the caller's line, raises the diagnostic, with no
// arguments: `invoke_arguments_fit_no_overload<>` (constexpr, so that both compilers compile
// the constructor there and print that line). A `{}` the caller writes converts too, but the
// entry point's fitting overload, not a template, wins the tie; `{...}` does not convert.
template <class Diagnostic>
struct no_arguments {
  constexpr no_arguments() {  // NOLINT: built from the default argument `{}`
    (void)Diagnostic{};
  }
};

}  // namespace stategraph::rules
