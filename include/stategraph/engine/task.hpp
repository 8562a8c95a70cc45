// One node's call as the runtime makes it, and what a step keeps of it: its result slot,
// its failure, the scope sg::interrupt reads. Everything here is keyed by the node's own
// type, never by the graph's: GCC builds the assembler name of every function it
// instantiates, and a name that carries app<graph<…>> is as long as the graph — per node,
// that made compiling the app quadratic in the node count.
#pragma once

#include <stategraph/calls.hpp>
#include <stategraph/errors.hpp>
#include <stategraph/events.hpp>
#include <stategraph/node.hpp>
#include <stategraph/retry.hpp>
#include <stategraph/run_options.hpp>
#include <stategraph/send.hpp>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <new>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace stategraph::detail {

// What a result holds in place of a part its node's type rules out (no command target, no
// sends): empty, and [[no_unique_address]], so nothing is stored or zeroed per step.
struct absent_part {};

// A node's result as the runtime keeps it: its update and, for a command, where it goes.
template <class R>
struct step_result {
  using patch_type = typename result_kind<R>::patch_type;
  using go_type = typename result_kind<R>::go_type;
  static constexpr bool sends_work = send_traits<R>::is_send;
  patch_type update;
  [[no_unique_address]] std::conditional_t<std::is_void_v<go_type>, absent_part, std::optional<go_type>> next{};
  [[no_unique_address]] std::conditional_t<sends_work, typename sends_holder<R>::type, absent_part> sends{};
};

// What a node with a plain call returns, as the general step's result_store and a lone
// step's storage are keyed (a node without one has a slot type with no value_type).
template <class R>
struct result_tag {
  using value_type = R;
};

// A general step's result of node I, as the step's result_store holds it: where the value
// is built, and the flag that says it was.
template <class R>
class box_ref {
 public:
  using value_type = R;
  box_ref(void* value, bool* engaged) noexcept : value_(value), engaged_(engaged) {}
  void* place() const noexcept { return value_; }  // build an R there, then set()
  void set() const noexcept { *engaged_ = true; }
  void emplace(R&& r) const {
    reset();
    ::new (value_) R(std::move(r));
    *engaged_ = true;
  }
  void reset() const noexcept {
    if (*engaged_) {
      (**this).~R();
      *engaged_ = false;
    }
  }
  bool has_value() const noexcept { return *engaged_; }
  explicit operator bool() const noexcept { return *engaged_; }
  R& operator*() const noexcept { return *std::launder(static_cast<R*>(value_)); }

 private:
  void* value_;
  bool* engaged_;
};

template <class Box>
struct box_value {
  using type = void;  // a node with no plain call: no result
};
template <class Box>
  requires requires { typename Box::value_type; }
struct box_value<Box> {
  using type = typename Box::value_type;
};
template <class R>
void destroy_value(void* p) noexcept {
  std::launder(static_cast<R*>(p))->~R();
}
struct value_need {
  std::size_t size = 0;
  std::size_t align = 1;
};
template <class R>
constexpr value_need need_of() {
  if constexpr (std::is_void_v<R>)
    return {};
  else
    return {sizeof(R), alignof(R)};
}

// Where N values of the given sizes lie in one buffer, and the buffer's size and alignment.
// A function keyed by N, not a lambda in result_store: a closure there is three symbols
// whose names spell every node's result type.
template <std::size_t N>
struct store_layout {
  std::array<std::size_t, N> at{};
  std::size_t size = 1;
  std::size_t align = 1;
};
template <std::size_t N>
constexpr store_layout<N> layout_of(const std::array<value_need, N>& needs) {
  store_layout<N> out{};
  std::size_t end = 0;
  for (std::size_t i = 0; i < N; ++i) {
    const value_need& n = needs[i];
    end = (end + n.align - 1) / n.align * n.align;
    out.at[i] = end;
    end += n.size;
    if (n.align > out.align) out.align = n.align;
  }
  out.size = end > 0 ? end : 1;
  return out;
}

// The results of a general step's nodes (Box: each node's result_tag type, or a type
// without value_type for a node with no plain call): values at offsets computed at compile
// time in one buffer, and one flag per node. Node i's result is reached through tables
// rather than a struct of one member per node: such a struct has a constructor, a
// destructor and an offset function as long as the graph.
template <class... Box>
class result_store {
  static constexpr std::size_t count = sizeof...(Box);
  static constexpr store_layout<count> layout =
      layout_of<count>(std::array<value_need, count>{need_of<typename box_value<Box>::type>()...});
  using destroy_fn = void (*)(void*) noexcept;
  template <class R>
  static constexpr destroy_fn destroy_of() {
    if constexpr (std::is_void_v<R> || std::is_trivially_destructible_v<R>)
      return nullptr;
    else
      return &destroy_value<R>;
  }
  static constexpr std::array<destroy_fn, count> destroy = {destroy_of<typename box_value<Box>::type>()...};

 public:
  result_store() noexcept {}
  ~result_store() {
    for (std::size_t i = 0; i < count; ++i)
      if (engaged_[i] && destroy[i]) destroy[i](bytes_ + layout.at[i]);
  }
  result_store(const result_store&) = delete;
  result_store& operator=(const result_store&) = delete;

  void* place(std::size_t i) noexcept { return bytes_ + layout.at[i]; }
  bool* engaged(std::size_t i) noexcept { return &engaged_[i]; }
 private:
  alignas(layout.align) unsigned char bytes_[layout.size];
  bool engaged_[count > 0 ? count : 1]{};
};
// Node I's result in a store, or, for a node without a plain call, a type with none of a
// result's operations (as the node's slot type has no value_type).
struct no_box {};
template <std::size_t I, class... Box>
auto slot_at(result_store<Box...>& s) noexcept {
  using R = typename box_value<table_at<at_table<mp_list<Box...>>, I>>::type;
  if constexpr (std::is_void_v<R>)
    return no_box{};
  else
    return box_ref<R>{s.place(I), s.engaged(I)};
}

// Converts to what its function returns: emplacing one of these into an optional builds
// the value in place from the function's result, with no move.
template <class F>
struct deferred {
  F make;
  operator std::invoke_result_t<F&>() { return make(); }
};
template <class F>
deferred(F) -> deferred<F>;

// The results of a step's nodes, each built in place from a `deferred` call, first to
// last: the members of an aggregate are initialised in declaration order (a std::tuple's
// elements are not — libstdc++ builds them last to first — and moving results into one
// costs a move of every written value). Built with brace elision, `{d0, d1, d2}`, which GCC
// compiles to less code than nested braces or constructors.
template <class... R>
struct in_order;
template <class R>
struct in_order<R> {
  R first;
  template <std::size_t K>
  R& get() {
    static_assert(K == 0);
    return first;
  }
};
template <class R, class... Rest>
struct in_order<R, Rest...> {
  R first;
  in_order<Rest...> rest;
  template <std::size_t K>
  auto& get() {
    if constexpr (K == 0)
      return first;
    else
      return rest.template get<K - 1>();
  }
};

// Indexed storage: element I is a base slot<I, T>, so reaching it is one derived-to-base
// conversion (no std::tuple_element/_Nth_type walk, no recursive _Tuple_impl).
template <std::size_t I, class T>
struct slot {
  T value;
};
template <class Seq, class... T>
struct slots_base;
template <std::size_t... I, class... T>
struct slots_base<std::index_sequence<I...>, T...> : slot<I, T>... {
  slots_base() = default;
  template <class... U>
  explicit slots_base(std::in_place_t, U&&... u) : slot<I, T>{std::forward<U>(u)}... {}
};
template <class... T>
struct slots : slots_base<std::index_sequence_for<T...>, T...> {
  using slots_base<std::index_sequence_for<T...>, T...>::slots_base;
};
template <std::size_t I, class T>
constexpr T& slot_at(slot<I, T>& s) noexcept {
  return s.value;
}
template <std::size_t I, class T>
constexpr const T& slot_at(const slot<I, T>& s) noexcept {
  return s.value;
}

// Where each element of a slots object lies within it (the same for every object of the
// type): read once off an object, so that element i is reached without a function per i
// (nor one here: each base is named, not deduced by slot_at). The table is one store per
// element and runs once a program: g++ compiles it unoptimised, since its optimiser spends
// far longer on those stores (alias walks, the block vectorizer) than they will ever take.
#if defined(__GNUC__) && !defined(__clang__)
#define STATEGRAPH_DETAIL_UNOPTIMIZED [[gnu::optimize("O0")]]
#else
#define STATEGRAPH_DETAIL_UNOPTIMIZED
#endif
template <class... T>
STATEGRAPH_DETAIL_UNOPTIMIZED std::array<std::ptrdiff_t, sizeof...(T)> slot_offsets(const slots<T...>& s) {
  const char* base = reinterpret_cast<const char*>(&s);
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<std::ptrdiff_t, sizeof...(T)>{
        (reinterpret_cast<const char*>(&static_cast<const slot<I, T>&>(s).value) - base)...};
  }
  (std::index_sequence_for<T...>{});
}
#undef STATEGRAPH_DETAIL_UNOPTIMIZED
template <class... T>
const void* slot_address(const slots<T...>& s, std::size_t i) noexcept {
  static const auto offsets = slot_offsets(s);
  return reinterpret_cast<const char*>(&s) + offsets[i];
}

// Where sg::interrupt finds the node it runs in and the values a resume gave it.
struct task_scope {
  std::size_t node = 0;
  const std::vector<std::string>* resume = nullptr;  // JSON texts, one per interrupt call
  std::size_t next_interrupt = 0;
  // How a checkpointed run runs this node's subgraph (a durable_child, read by subgraph.hpp);
  // null for a node that is no subgraph.
  const void* child = nullptr;
};
inline thread_local task_scope* current_task = nullptr;

struct task_scope_guard {
  task_scope* previous;
  explicit task_scope_guard(task_scope* s) noexcept : previous(current_task) { current_task = s; }
  ~task_scope_guard() { current_task = previous; }
  task_scope_guard(const task_scope_guard&) = delete;
  task_scope_guard& operator=(const task_scope_guard&) = delete;
};

// What a step holds for a node whose interrupt is still unanswered: the node is not run, and
// the step pauses again.
inline const std::exception_ptr& unanswered_interrupt() {
  static const std::exception_ptr e = std::make_exception_ptr(interrupt_signal{});
  return e;
}

inline bool is_interrupt(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const interrupt_signal&) {
    return true;
  } catch (...) {
    return false;
  }
}

inline std::minstd_rand& jitter_source() {
  thread_local std::minstd_rand source{std::random_device{}()};
  return source;
}
// ---- calling one node ------------------------------------------------------------------

// The call layers below are forced inline: out of line, each is a call and a return around
// the node's own code. They are also few and free of lambdas: GCC runs its early passes on
// every function instantiated, inlined or not, and a layer keyed by the node is one more
// function per node.

// The node's own call: its view, a send's payload (none for a plain call), and the context
// when it takes one.
template <class N, class S, class Ctx, class... Payload>
[[gnu::always_inline]] inline decltype(auto) raw_call(const N& n, const S& state, Ctx& context,
                                                      const Payload&... payload) {
  using view_t = node_view_t<N, S>;
  if constexpr (!std::is_same_v<Ctx, no_context> && callable_as<const N&, view_t, const Payload&..., Ctx&>)
    return n(view_t{declared_view_t<N, S>(state)}, payload..., context);
  else
    return n(view_t{declared_view_t<N, S>(state)}, payload...);
}

// The result of a node whose optional seam the context may lack: `skipped` when it did, and
// then nothing of it is merged (its patch holds default values, not writes).
template <class Base>
struct skippable_result : Base {
  bool skipped = false;
};

// A value a node produced, as the runtime keeps it (a coroutine node's awaited result).
template <class R>
step_result<R> to_step_result(R&& r) {
  using out = step_result<R>;
  if constexpr (out::sends_work && !is_command<R>)
    return out{{}, {}, std::move(r)};
  else if constexpr (out::sends_work)
    return out{std::move(r.update), {}, sends_holder<R>::take(std::move(r))};
  else if constexpr (std::is_void_v<typename out::go_type>)
    return out{std::move(r)};
  else
    return out{std::move(r.update), std::move(r.next)};
}

// The call's result as the runtime keeps it (step_result), built in place from the call.
// A coroutine node on a synchronous executor is waited for here (async_result::wait).
template <class N, class S, class Ctx, class... Payload>
[[gnu::always_inline]] inline auto call_node_present(const N& n, const S& state, Ctx& context,
                                                     const Payload&... payload) {
  using R = decltype(raw_call(n, state, context, payload...));
  using out = step_result<awaited_t<std::remove_cvref_t<R>>>;
  if constexpr (async_result<std::remove_cvref_t<R>>::is_async) {
    using waits = async_result<std::remove_cvref_t<R>>;
    if constexpr (std::is_void_v<typename waits::type>) {
      waits::wait(raw_call(n, state, context, payload...));
      return out{};
    } else {
      return to_step_result(waits::wait(raw_call(n, state, context, payload...)));
    }
  } else if constexpr (std::is_void_v<R>) {
    raw_call(n, state, context, payload...);
    return out{};
  } else if constexpr (out::sends_work && !is_command<R>) {
    return out{{}, {}, raw_call(n, state, context, payload...)};
  } else if constexpr (out::sends_work) {  // a command whose goto is sends
    auto c = raw_call(n, state, context, payload...);
    return out{std::move(c.update), {}, sends_holder<R>::take(std::move(c))};
  } else if constexpr (std::is_void_v<typename out::go_type>) {
    return out{raw_call(n, state, context, payload...)};
  } else {
    auto c = raw_call(n, state, context, payload...);
    return out{std::move(c.update), std::move(c.next)};
  }
}
// A node with an optional seam is not called when the context lacks it: it counts as having
// run and returned nothing (decided here by the context's type, or per call by find()).
template <class N, class S, class Ctx, class... Payload>
[[gnu::always_inline]] inline auto call_node_once(const N& n, const S& state, Ctx& context,
                                                  const Payload&... payload) {
  if constexpr (skipped_by_type<N, Ctx>) {
    return skippable_result<step_result<void>>{{}, true};
  } else if constexpr (skipped_at_run_time<N, Ctx>) {
    using out = skippable_result<decltype(call_node_present(n, state, context, payload...))>;
    if (context.template find<optional_seam_t<N>>() == nullptr) return out{{}, true};
    return out{call_node_present(n, state, context, payload...), false};
  } else {
    return call_node_present(n, state, context, payload...);
  }
}
template <class Node, class F>
auto with_node_retries(const run_config& config, F&& once) {
  if constexpr (has_retry<Node>) {
    auto sleep = [&](std::chrono::nanoseconds d) {
      if (config.sleep)
        config.sleep(d);
      else
        std::this_thread::sleep_for(d);
    };
    return with_retries(Node::retry, sleep, jitter_source(), once);
  } else {
    return once();
  }
}
// One attempt of a node with a timeout_policy, on a synchronous executor: the call cannot be
// stopped, so one that ran past the limit has its result discarded and fails.
template <class N, class F>
auto timed_attempt(F&& once) {
  const auto started = std::chrono::steady_clock::now();
  auto r = once();
  if (N::timeout.limit.count() > 0 && std::chrono::steady_clock::now() - started > N::timeout.limit)
    throw timed_out(N::timeout.limit);
  return r;
}
// What a node called with its view alone returns.
template <class N, class S>
using view_call_t = std::remove_cvref_t<decltype(std::declval<const N&>()(std::declval<node_view_t<N, S>>()))>;
// A node called as it stands: no retry or timeout policy, no optional seam, no context taken,
// a patch returned. Most nodes are; their call is call_node alone, not the layers above it.
template <class N, class S, class Ctx>
concept called_directly =
    !has_timeout<N> && !has_retry<N> && std::is_void_v<optional_seam_t<N>> &&
    (std::is_same_v<Ctx, no_context> || !callable_as<const N&, node_view_t<N, S>, Ctx&>) &&
    std::is_same_v<typename result_kind<view_call_t<N, S>>::patch_type, view_call_t<N, S>>;

// A node's call with its retry policy: what the step keeps in the node's result slot.
template <class N, class S, class Ctx>
[[gnu::always_inline]] inline auto call_node(const N& n, const S& state, Ctx& context, const run_config& config) {
  if constexpr (called_directly<N, S, Ctx>)
    return step_result<view_call_t<N, S>>{n(node_view_t<N, S>{declared_view_t<N, S>(state)})};
  else if constexpr (has_timeout<N>)
    return with_node_retries<N>(config,
                                [&] { return timed_attempt<N>([&] { return call_node_once(n, state, context); }); });
  else if constexpr (has_retry<N>)
    return with_node_retries<N>(config, [&] { return call_node_once(n, state, context); });
  else
    return call_node_once(n, state, context);
}
template <class N, class S, class Ctx>
using node_result_t = decltype(call_node(std::declval<const N&>(), std::declval<const S&>(), std::declval<Ctx&>(),
                                         std::declval<const run_config&>()));

// The same for a send: the node takes the payload after its view.
template <class N, class S, class Payload, class Ctx>
[[gnu::always_inline]] inline auto call_send(const N& n, const S& state, const Payload& payload, Ctx& context,
                                             const run_config& config) {
  if constexpr (has_timeout<N>)
    return with_node_retries<N>(
        config, [&] { return timed_attempt<N>([&] { return call_node_once(n, state, context, payload); }); });
  else if constexpr (has_retry<N>)
    return with_node_retries<N>(config, [&] { return call_node_once(n, state, context, payload); });
  else
    return call_node_once(n, state, context, payload);
}

// A router's choice on the merged state.
template <class R, class S>
auto call_router(const R& router, const S& state) {
  using result = std::remove_cvref_t<decltype(router(std::declval<node_view_t<R, S>>()))>;
  if constexpr (async_result<result>::is_async)
    return async_result<result>::wait(router(node_view_t<R, S>{declared_view_t<R, S>(state)}));
  else
    return router(node_view_t<R, S>{declared_view_t<R, S>(state)});
}

// What a go<...> or go_all<...> chose, into `next`: `targets` are the indices of its
// targets in declaration order (none for end). Shared by routers and commands.
template <class Set, class Go>
void add_chosen(Set& next, const Go& chosen, const std::size_t* targets) {
  if constexpr (requires { chosen.index(); }) {  // a go<...>: exactly one target
    if (const std::size_t t = targets[chosen.index()]; t != none) next.set(t);
  } else {
    for (std::uint64_t mask = chosen.mask(); mask; mask &= mask - 1)
      if (const std::size_t t = targets[static_cast<std::size_t>(__builtin_ctzll(mask))]; t != none) next.set(t);
  }
}

// A branch whose router chooses nodes: its choice into `next`. (A class, so that the app can
// pick between it and its own send routing by type: see app::route_of.)
template <class R, class S, class Set, class Queues>
struct go_route {
  static void call(const void* router, const S& state, Set& next, Queues&, const std::size_t* targets) {
    add_chosen(next, call_router(*static_cast<const R*>(router), state), targets);
  }
};

// A node's failure as the caller sees it. A subgraph's failure already names the child
// node as "parent/child": keep that name, with this run's step.
[[noreturn]] inline void fail_node(std::string_view node, std::size_t step, const std::exception_ptr& cause) {
  try {
    std::rethrow_exception(cause);
  } catch (const node_error& inner) {
    if (inner.node().size() > node.size() && inner.node().substr(0, node.size()) == node &&
        inner.node()[node.size()] == '/')
      throw node_error(std::string(inner.node()), step, inner.cause());
  } catch (const timed_out& t) {
    throw timeout_error(node, step, cause, t.limit());
  } catch (...) {
  }
  throw node_error(node, step, cause);
}

inline constexpr const char* no_store_for_interrupt =
    "stategraph: a node called sg::interrupt, which needs a checkpoint store: compile the graph "
    "with sg::with_store(...) and run it on a thread";

// A node's call in a step of its own, or in a fixed plan: a failure is thrown at once, as a
// step on the frontier would report it.
// Forced inline like the layers below: a fixed plan calls it on the sequential executor and
// from the pool's tasks, and two callers would leave it out of line for both.
template <class N, class S, class Ctx>
[[gnu::always_inline]] inline node_result_t<N, S, Ctx> guarded_call(const N& n, const S& state, Ctx& context,
                                                                    const run_config& config, std::size_t step) {
  try {
    return call_node(n, state, context, config);
  } catch (...) {
    fail_node(node_traits<N>::name, step, std::current_exception());
  }
}
// Called in a handler, for a node's call where an interrupt can reach it (a step of one
// node on the frontier): without a store an interrupt is the caller's mistake, not the node's.
[[noreturn]] inline void fail_attempt(std::string_view node, std::size_t step) {
  try {
    throw;
  } catch (const interrupt_signal&) {
    throw error(no_store_for_interrupt);
  } catch (...) {
    fail_node(node, step, std::current_exception());
  }
}

// A node's call where an interrupt can reach it, with a handler of its own (see call_mark
// for the alternative).
template <class N, class S, class Ctx>
node_result_t<N, S, Ctx> attempt_call(const N& n, const S& state, Ctx& context, const run_config& config,
                                      std::size_t step) {
  try {
    return call_node(n, state, context, config);
  } catch (...) {
    fail_attempt(node_traits<N>::name, step);
  }
}

// Which node's call failed, and in which step, for one handler around many nodes' code;
// `unmarked` where each node's call has its own handler (attempt_call).
struct unmarked {};
struct call_failure {
  std::size_t node = none;
  std::size_t step = 0;
};
// Called in the handler around marked calls: the node's failure as fail_attempt reports it,
// or what was thrown after the call, as it was.
[[noreturn, gnu::noinline, gnu::cold]] inline void fail_marked(const call_failure& failure,
                                                               const std::string_view* node_names) {
  if (failure.node == none) throw;
  fail_attempt(node_names[failure.node], failure.step);
}
// Armed around a node's call, it leaves the node and step in `failure` if the call throws. A
// cleanup is far less code per node than a handler, and disarmed it compiles to nothing.
struct call_mark {
  call_failure& failure;
  std::size_t node;
  std::size_t step;
  bool armed = true;
  ~call_mark() {
    if (armed) failure = {node, step};
  }
};

// ---- one node's task in a step on the frontier -------------------------------------------

struct untimed {};

// Where a task reports besides its result slot (arrays indexed by node; `took` and
// `children` are null unless the run is streamed), and what a durable run resumes it with.
struct task_outputs {
  std::exception_ptr* failures;
  std::chrono::nanoseconds* took = nullptr;
  child_events* children = nullptr;
  stream_mode mode{};
  const std::vector<std::string>* resume = nullptr;  // the values a resume gave this node
  const void* child = nullptr;                       // task_scope::child
};

// Runs task `index` (`call` fills its result slot); a failure is kept, not thrown, so that
// the step can report the first one in node order after every task ran. Not a template on
// the node: one copy per kind of run serves every node.
template <bool Timed, bool Durable, class Call>
void run_node_task(const Call& call, std::size_t index, const task_outputs& out) {
  [[maybe_unused]] std::chrono::steady_clock::time_point started;
  if constexpr (Timed)
    if (out.took) started = std::chrono::steady_clock::now();
  // A streamed run collects what the subgraphs of this task report (sg::subgraph reads it).
  [[maybe_unused]] auto forwarding = [&] {
    if constexpr (Timed) {
      out.children[index].mode = out.mode;
      return child_events_scope{&out.children[index]};
    } else {
      return untimed{};
    }
  }();
  if constexpr (Durable) {
    task_scope scope{index, out.resume, 0, out.child};
    task_scope_guard guard(&scope);
    try {
      call(index);
    } catch (...) {
      out.failures[index] = std::current_exception();
    }
  } else {
    try {
      call(index);
    } catch (...) {
      out.failures[index] = std::current_exception();
    }
  }
  if constexpr (Timed)
    if (out.took) out.took[index] = std::chrono::steady_clock::now() - started;
}

// A node's call in a step on the frontier, keyed by the node's type: its result built at
// `place`, then `built` set (a general step's result_store; null for a step of one node,
// whose caller owns the result). Failure capture, timing and the durable scope are the
// caller's.
template <class N, class Box, class S, class Ctx>
void node_task(const void* node, const S& state, Ctx& context, const run_config& config, void* place, bool* built) {
  if constexpr (requires { typename Box::value_type; }) {  // else no plain call: only a send target
    using R = typename Box::value_type;
    ::new (place) R(call_node(*static_cast<const N*>(node), state, context, config));
    if (built) *built = true;
  }
}

}  // namespace stategraph::detail
