// What a run is given besides its input: its limits (run_config) and the options
// sg::compile takes (a store, static interrupts, an executor); where a run stands between
// two steps (run_position); what compile returns for a graph that broke a rule.
#pragma once

#include <stategraph/detail/meta.hpp>
#include <stategraph/events.hpp>
#include <stategraph/executor.hpp>

#include <array>
#include <chrono>
#include <cstddef>
#include <exception>
#include <functional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace stategraph {

// LangGraph Python's default since 2026 (LangGraph.js keeps 25). A run that needs exactly
// `recursion_limit` supersteps passes; one more throws recursion_limit_error.
inline constexpr std::size_t default_recursion_limit = 10'000;

// When a checkpointed run commits its checkpoints, as LangGraph names the modes (what each
// can lose in a crash: docs/checkpoints.md, "Long threads").
enum class durability {
  sync,   // each step's checkpoint is committed before the next step starts
  async,  // a step's checkpoint is committed while the next step runs
  exit,   // one checkpoint when the run ends, pauses or fails
};

struct run_config {
  std::size_t recursion_limit = default_recursion_limit;
  // How a retry waits (tests inject a recorder; empty = std::this_thread::sleep_for).
  std::function<void(std::chrono::nanoseconds)> sleep{};
  stategraph::durability durability = stategraph::durability::sync;  // checkpointed runs only
};

// Checkpointed runs (opt-in: #include <stategraph/checkpoint.hpp>).
struct thread_id {
  std::string value;
  friend bool operator==(const thread_id&, const thread_id&) = default;
};
// How a checkpointed app keeps long threads cheap to continue (docs/checkpoints.md, "Long
// threads").
struct checkpoint_options {
  // A run's last checkpoint stores an append channel whole again once it has this many
  // appended pieces after its last whole value and they weigh an eighth of that value (or
  // sooner, once they outweigh it): a load parses at most this many pieces or an eighth
  // more than the value, and the bytes written per turn stay flat as the value grows.
  // 0: never (each load joins every piece since the thread's first; the fewest bytes).
  std::size_t snapshot_every = 128;
  // Threads whose latest state the app keeps after running them, so continuing one reads no
  // values (0: none). Each is checked against the store's head before it is used.
  std::size_t cached_threads = 64;
};
template <class Store>
struct store_option {
  Store* store;
  checkpoint_options options{};
};
template <class Store>
constexpr store_option<Store> with_store(Store& store, checkpoint_options options = {}) {
  return {&store, options};
}
// Static interrupts: pause a checkpointed run before these nodes run, or after they ran.
template <class... Nodes>
struct interrupt_before {
  using list = detail::mp_list<Nodes...>;
};
template <class... Nodes>
struct interrupt_after {
  using list = detail::mp_list<Nodes...>;
};
// The seam to the opt-in stores: the app sg::compile returns for a graph given a store and
// static interrupts. Declared here, defined by <stategraph/checkpoint.hpp>, so the core
// names no store and no codec.
template <class App, class Store, class Before, class After>
struct app_with_store;
namespace detail {
// The seam to the opt-in async runs: declared here, defined by <stategraph/asio.hpp>.
template <class App>
struct async_runs;
// Whether app.async_invoke takes these arguments (an async run's overloads, once defined).
template <class App, class, class... Args>
struct async_invoke_fits : std::false_type {};
template <class App, class... Args>
struct async_invoke_fits<
    App, std::void_t<decltype(async_runs<App>::invoke(std::declval<const App&>(), std::declval<Args>()...))>, Args...>
    : std::true_type {};
// Whether app.async_stream takes these arguments.
template <class App, class, class... Args>
struct async_stream_fits : std::false_type {};
template <class App, class... Args>
struct async_stream_fits<
    App, std::void_t<decltype(async_runs<App>::stream(std::declval<const App&>(), std::declval<Args>()...))>, Args...>
    : std::true_type {};
// What app.async_invoke returns: the run's awaitable once <stategraph/asio.hpp> defines it,
// else the state (for the catch-all overload, which has raised its one error).
template <class App, class = void>
struct async_result_of {
  using type = typename App::state_type;
};
template <class App>
struct async_result_of<App, std::void_t<decltype(async_runs<App>::invoke(
                                std::declval<const App&>(), std::declval<typename App::state_type>()))>> {
  using type = decltype(async_runs<App>::invoke(std::declval<const App&>(), std::declval<typename App::state_type>()));
};
}  // namespace detail

template <class Executor>
struct executor_option {
  Executor executor;
};
template <class Executor>
constexpr executor_option<Executor> with_executor(Executor e) {
  return {std::move(e)};
}

namespace detail {

template <class T>
struct is_executor_option : std::false_type {};
template <class E>
struct is_executor_option<executor_option<E>> : std::true_type {};

template <class T>
using list_of = typename T::list;
template <class T>
concept is_complete = requires {
  sizeof(T);
};

template <class T>
struct is_store_option : std::false_type {};
template <class S>
struct is_store_option<store_option<S>> : std::true_type {};
template <class T>
struct is_before : std::false_type {};
template <class... N>
struct is_before<interrupt_before<N...>> : std::true_type {};
template <class T>
struct is_after : std::false_type {};
template <class... N>
struct is_after<interrupt_after<N...>> : std::true_type {};

template <class... Args>
struct executor_among {
  using type = sequential;
};
template <class First, class... Rest>
struct executor_among<First, Rest...> {
  using type = typename executor_among<Rest...>::type;
};
template <class E, class... Rest>
struct executor_among<executor_option<E>, Rest...> {
  using type = E;
};

// Whether any queue holds a payload. Out of run_position: a lambda there, through std::apply,
// instantiates a dozen functions whose names spell the whole graph.
inline bool any_queued(const std::tuple<>&) { return false; }
template <class... Q>
bool any_queued(const std::tuple<Q...>& queues) {
  return std::apply([](const auto&... q) { return (!q.empty() || ...); }, queues);
}
}  // namespace detail

// Where a run stands between two supersteps: besides the state, all that decides what
// runs next.
template <class A, class Queues = std::tuple<>>
struct run_position {
  typename A::set active{};
  std::array<typename A::set, A::join_count> arrived{};
  std::size_t step = 0;  // supersteps completed
  Queues sends{};        // per node: the payloads sent to it, to run in the next step

  bool any() const { return active.any() || detail::any_queued(sends); }
};

// A graph that broke a rule: the compiler has already said which. Calls compile quietly so
// the diagnostic stays the only message.
template <class G>
struct invalid_app {
  // Never runs (the program does not compile), and builds no state: the state may be the
  // mistake (SG016).
  template <class... Args>
  typename G::state_type invoke(Args&&...) const {
    std::terminate();
  }
  template <class... Args>
  std::vector<event<typename G::state_type>> stream(Args&&...) const {
    return {};
  }
};

}  // namespace stategraph
