// Checkpointed runs: what sg::compile returns when given sg::with_store(store). After the
// input and after every superstep it puts a checkpoint that holds only the channels the
// step changed; it resumes after a crash, a failure or an interrupt, lists history, edits
// state and forks from past checkpoints (semantics.md, "Checkpoints").
#pragma once

#include <stategraph/checkpoint/graph_description.hpp>
#include <stategraph/checkpoint/json.hpp>
#include <stategraph/checkpoint/long_threads.hpp>
#include <stategraph/checkpoint/writer.hpp>
#include <stategraph/run.hpp>
#include <stategraph/stop.hpp>
#include <stategraph/store/store.hpp>
#include <stategraph/subgraph.hpp>

#include <nlohmann/json.hpp>

#if __has_include(<cxxabi.h>)
#include <cxxabi.h>
#endif

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <exception>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <unordered_set>
#include <utility>
#include <vector>

namespace stategraph {

// A checkpoint by its store's id (1, 2, 3, ...). Below 1, `checkpoint_id{}` included, it names
// none and is refused, never read as "the latest": that is the overload without an id.
struct checkpoint_id {
  std::int64_t value = no_checkpoint;
};

// A pause a node asked for with sg::interrupt(payload).
struct interrupt_info {
  std::string node;
  std::size_t index = 0;  // the node's first, second, ... interrupt call
  std::string payload;    // JSON text
  std::string ns;         // the subgraph the node runs in ("review/check"); empty in the top graph
  // Answers this interrupt: resume(thread, sg::answers{{id, value}}). Made of what the store
  // holds (path, index, the checkpoint its step started from), so it stays the same until
  // the interrupt is answered.
  std::string id;
  // When the node ran as the target of an sg::send: which of the step's sends to it paused
  // (its position in the queue; the id names it "node[k]"), and that send's payload (JSON text).
  std::optional<std::size_t> send{};
  std::string send_payload{};
  std::string path() const { return ns.empty() ? node : ns + "/" + node; }
};

// A task that failed in the step after a checkpoint (LangGraph's task `error`): what it
// threw, as the store keeps it (a pending write of the reserved channel "__error__"). The
// record stays with the checkpoint whose step failed: a resume that then succeeds puts the
// next checkpoint and leaves the record as history; one that fails again adds an attempt.
struct task_error {
  std::string node;
  std::string message;  // what() of what the node threw
  std::string type;     // its type ("std::runtime_error") where the platform names it, else empty
  std::string ns;       // the subgraph the node runs in; empty in the top graph
  // When the node ran as the target of an sg::send: which of the step's sends to it failed.
  std::optional<std::size_t> send{};
  std::size_t attempts = 1;  // how many runs of this step from this checkpoint it failed in
  std::string path() const { return ns.empty() ? node : ns + "/" + node; }
};

// Answers to pending interrupts by id: resume(thread, sg::answers{{id1, v1}, {id2, v2}}).
struct answer {
  std::string id;
  nlohmann::json value;
};
class answers {
 public:
  answers() = default;
  answers(std::initializer_list<answer> list) : list_(list) {}
  answers& add(std::string id, nlohmann::json value) {
    list_.push_back({std::move(id), std::move(value)});
    return *this;
  }
  const std::vector<answer>& list() const noexcept { return list_; }

 private:
  std::vector<answer> list_;
};

// An answer names an interrupt id that is not pending (unknown, or already answered), or
// names one twice: nothing was written.
class interrupt_id_error : public checkpoint_error {
 public:
  interrupt_id_error(std::string id, const std::string& message) : checkpoint_error(message), id_(std::move(id)) {}
  const std::string& id() const noexcept { return id_; }

 private:
  std::string id_;
};
// resume(thread, value) while several interrupts are pending: which one the value answers
// is unclear (LangGraph refuses it too); answer each with sg::answers. Nothing was written.
class ambiguous_resume_error : public checkpoint_error {
 public:
  using checkpoint_error::checkpoint_error;
};

// An invoke, resume, stream or update_state of a thread that this app (or a copy of it) is
// running already: an earlier call has not returned, or a streamed range of it has not
// finished and is still alive. Refused before anything runs or is read; the first run goes
// on undisturbed. (Another app or process on the same store is told at commit time, with
// sg::conflict_error.)
class thread_busy_error : public error {
 public:
  explicit thread_busy_error(std::string thread)
      : error("stategraph: thread '" + thread +
              "' is already running in this app (a run or a stream of it has not finished); "
              "nothing was run or written"),
        thread_(std::move(thread)) {}
  const std::string& thread() const noexcept { return thread_; }

 private:
  std::string thread_;
};

// The thread a subgraph's checkpoints are stored under: the run's thread and the
// subgraph's namespace, `thread|parent/child`. A durable app compiled on the child graph
// with the same store reads them (get_state, history).
inline thread_id subgraph_thread(const thread_id& thread, std::string_view ns) {
  return thread_id{thread.value + "|" + std::string(ns)};
}

// A subgraph's checkpoints by namespace (LangGraph's checkpoint_ns): the path of subgraph
// nodes from the app's graph down, `sg::checkpoint_ns<review, check>` for "review/check".
template <class... SubgraphNodes>
struct checkpoint_ns_t {};
template <class... SubgraphNodes>
inline constexpr checkpoint_ns_t<SubgraphNodes...> checkpoint_ns{};

// A subgraph paused inside a checkpoint's step: its namespace and the checkpoint of its own
// (under subgraph_thread(thread, ns)) that a resume continues from.
struct subgraph_checkpoint {
  std::string ns;
  std::int64_t checkpoint_id = no_checkpoint;
  friend bool operator==(const subgraph_checkpoint&, const subgraph_checkpoint&) = default;
};

// One checkpoint as the app reads it back.
template <class State>
struct snapshot {
  State values{};
  std::vector<std::string> next;  // the nodes that run next; empty when the run is over
  std::int64_t checkpoint_id = no_checkpoint;
  std::int64_t parent_id = no_checkpoint;
  std::int64_t step = 0;
  checkpoint_source source = checkpoint_source::loop;
  std::vector<interrupt_info> interrupts;  // pending dynamic interrupts
  // The step after this checkpoint failed (and did not then pause on an interrupt): its
  // failed tasks are in `errors`; a store written before errors were recorded may have only
  // the kept writes of the nodes that succeeded, which also count.
  bool failed = false;
  std::vector<task_error> errors;  // the tasks that failed in the step after this checkpoint, by node
  // The subgraphs paused inside this checkpoint's step, at any depth, outermost first (as
  // LangGraph's get_state(config, subgraphs=True)); read each with get_state(thread, checkpoint_ns<...>).
  std::vector<subgraph_checkpoint> subgraphs;
};

template <class Node>
struct as_node_t {};
template <class Node>
inline constexpr as_node_t<Node> as_node{};

// Pauses the node that calls it. The first time, the run stops and persists with `payload`
// as the interrupt's value; after app.resume(thread, value) the node runs again from the
// top and this call returns `value`. Needs a checkpointed run.
template <class R = nlohmann::json, class P>
R interrupt(const P& payload) {
  auto* task = detail::current_task;
  if (!task) throw error("stategraph: sg::interrupt was called outside a checkpointed run");
  std::size_t k = task->next_interrupt++;
  if (task->resume && k < task->resume->size())
    return detail::decode_value<R>(detail::parse_or_throw((*task->resume)[k], "a resume value"), "a resume value");
  throw interrupt_signal{detail::json_text(payload), k};
}

// The context a checkpointed run passes to nodes that take one, when the caller gives
// none: `operator()(sg::view<S, reads>, sg::run_context& ctx)` and `ctx.interrupt(x)`.
struct run_context {
  template <class R = nlohmann::json, class P>
  R interrupt(const P& payload) const {
    return stategraph::interrupt<R>(payload);
  }
};

namespace detail {
// The name of the exception being handled ("std::runtime_error"), where the C++ ABI says it.
inline std::string current_exception_type() {
#if __has_include(<cxxabi.h>)
  const std::type_info* t = abi::__cxa_current_exception_type();
  if (t == nullptr) return {};
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(t->name(), nullptr, nullptr, &status), std::free);
  return status == 0 && name ? std::string(name.get()) : std::string(t->name());
#else
  return {};
#endif
}
// The value of a task's "__error__" row: {"message": what(), "type": its type's name}.
inline std::string error_record(const std::exception_ptr& cause) {
  nlohmann::json j;
  std::string type;
  try {
    std::rethrow_exception(cause);
  } catch (const stop_signal& s) {
    j["message"] = s.deadline ? "the run passed its deadline" : "the run was cancelled";
    type = "stategraph::stop_signal";
  } catch (const std::exception& e) {
    j["message"] = e.what();
    type = current_exception_type();
  } catch (...) {
    j["message"] = "an exception not derived from std::exception";
    type = current_exception_type();
  }
  if (!type.empty()) j["type"] = std::move(type);
  // replace: a what() that is not UTF-8 is kept, its bad bytes shown as U+FFFD.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
// (message, type) of such a row, parsed (JSON that is not JSON or nests too deep is refused
// as any stored text is); JSON of another shape is the message itself.
inline std::pair<std::string, std::string> read_error_record(const nlohmann::json& j) {
  if (j.is_object() && j.contains("message") && j["message"].is_string())
    return {j["message"].get<std::string>(),
            j.contains("type") && j["type"].is_string() ? j["type"].get<std::string>() : std::string()};
  if (j.is_string()) return {j.get<std::string>(), {}};
  return {j.dump(), {}};
}
}  // namespace detail

namespace detail {
// update_state writes as a node: the node's `writes` bound the patch (SG002, SG004; the
// predicates of rules/writes.hpp, as for what a node returns).
template <class Node, class... E>
constexpr bool update_fits_impl(patch<E...>*) {
  if constexpr (!rules::writes_declared<Node, patch<E...>>) {
    (void)rules::undeclared_write_diagnostic<Node, Node, patch<E...>>{};
    return false;
  } else if constexpr (!rules::written_values_convert<patch<E...>>) {
    (void)rules::unconvertible_write_diagnostic<Node, patch<E...>>{};
    return false;
  } else {
    return true;
  }
}
template <class Node, class P>
constexpr bool update_fits() {
  return update_fits_impl<Node>(static_cast<P*>(nullptr));
}

// What a durable entry point takes as an interrupt's answer (a value with a JSON codec) and
// as a user context (anything else but the other arguments), so that resume(thread, x)
// reads x one way.
template <class V>
concept resume_answer = !std::is_same_v<std::remove_cvref_t<V>, run_config> &&
                        !std::is_same_v<std::remove_cvref_t<V>, checkpoint_id> &&
                        (detail::codable<std::remove_cvref_t<V>>() || std::is_constructible_v<nlohmann::json, const V&>);
// What a misused get_state returns: usable as either overload's result (a snapshot or an
// optional one), so that the diagnostic stays the one error.
template <class Snapshot>
struct any_snapshot : Snapshot {
  const Snapshot* operator->() const { return this; }
  const Snapshot& operator*() const { return *this; }
  explicit operator bool() const { return false; }
  bool has_value() const { return false; }
  const Snapshot& value() const { return *this; }
};
// What the plain app's stream takes after (state, mode): the thread-less stream forwards only
// these, so that other arguments reach the catch-all overload (rules/misuse.hpp).
template <class S, class... Args>
inline constexpr bool plain_stream_fits = false;
template <class S>
inline constexpr bool plain_stream_fits<S> = true;
template <class S, class A>
inline constexpr bool plain_stream_fits<S, A> =
    std::is_convertible_v<A, const run_config&> || std::is_invocable_v<std::remove_reference_t<A>&, const event<S>&>;
template <class S, class A, class B>
inline constexpr bool plain_stream_fits<S, A, B> =
    (std::is_invocable_v<std::remove_reference_t<A>&, const event<S>&> &&
     std::is_convertible_v<B, const run_config&>) ||
    (std::is_lvalue_reference_v<A> &&
     std::is_invocable_v<std::remove_reference_t<B>&, const event_for<S, std::remove_reference_t<A>>&>);
template <class S, class A, class B, class C>
inline constexpr bool plain_stream_fits<S, A, B, C> =
    std::is_lvalue_reference_v<A> &&
    std::is_invocable_v<std::remove_reference_t<B>&, const event_for<S, std::remove_reference_t<A>>&> &&
    std::is_convertible_v<C, const run_config&>;
template <class Ctx>
concept user_context = !std::is_same_v<std::remove_const_t<Ctx>, run_config> &&
                       !std::is_same_v<std::remove_const_t<Ctx>, checkpoint_id> &&
                       !std::is_same_v<std::remove_const_t<Ctx>, thread_id> &&
                       !std::is_same_v<std::remove_const_t<Ctx>, answers> && !resume_answer<Ctx>;
}  // namespace detail

namespace detail {
// The threads an app is running now, shared by its copies.
class running_threads {
 public:
  bool claim(const std::string& thread) {
    std::lock_guard lock(mutex_);
    return threads_.insert(thread).second;
  }
  void release(const std::string& thread) noexcept {
    std::lock_guard lock(mutex_);
    threads_.erase(thread);
  }

 private:
  std::mutex mutex_;
  std::unordered_set<std::string> threads_;
};
// Holds a thread as running from its construction (thread_busy_error if it is already) until
// it is released or destroyed.
class thread_claim {
 public:
  thread_claim(std::shared_ptr<running_threads> running, std::string thread)
      : running_(std::move(running)), thread_(std::move(thread)) {
    if (!running_->claim(thread_)) {
      running_.reset();
      throw thread_busy_error(thread_);
    }
  }
  thread_claim(thread_claim&& other) noexcept
      : running_(std::move(other.running_)), thread_(std::move(other.thread_)) {}
  thread_claim(const thread_claim&) = delete;
  thread_claim& operator=(const thread_claim&) = delete;
  thread_claim& operator=(thread_claim&&) = delete;
  ~thread_claim() { release(); }
  void release() noexcept {
    if (running_) running_->release(thread_);
    running_.reset();
  }

 private:
  std::shared_ptr<running_threads> running_;
  std::string thread_;
};

// The shared state of a streamed run on a thread that a range walks through step by step:
// the run's runner, which hands each step to a streamer made for that step.
template <class Durable>
struct durable_stream_session {
  using state_type = typename Durable::state_type;
  using event_type = event<state_type>;
  struct push {
    std::deque<event_type>* to;
    void operator()(event_type&& e) const { to->push_back(std::move(e)); }
  };
  using stream_type = streamer<state_type, Durable::analysis_type::size, push>;
  using runner_type = typename Durable::template runner_of<stream_type>;

  durable_stream_session(const Durable& app, std::string thread, run_config c, stream_mode m)
      : claim(app.claim(thread)), config(c), mode(m), runner(app, std::move(thread), c.durability, nullptr) {
    runner.mode = mode;
  }
  thread_claim claim;  // the thread runs until the stream ends or the session is destroyed
  run_config config;
  stream_mode mode;
  typename Durable::run_context_type context{};
  runner_type runner;
  std::deque<event_type> pending{};
  bool running = true;
  bool skip_before = false;

  template <class F>
  void start(F&& begin) {
    with_stream([&](stream_type& s) {
      begin(runner);
      s.values(0, runner.state);
    });
  }
  void fill() {  // runs steps until there is an event to show or the run is over
    if constexpr (!rules::check_all<typename Durable::app_type::graph_type, typename Durable::analysis_type,
                                    typename Durable::run_context_type>()) {
      running = false;
      claim.release();
    } else {
      with_stream([&](stream_type&) {
        try {
          while (pending.empty() && running) running = runner.step_once(context, config, skip_before);
        } catch (...) {
          running = false;
          try {  // what the run finished is still committed, as in runner::run
            runner.settle();
          } catch (...) {
          }
          claim.release();
          throw;
        }
        if (!running) {
          runner.settle();
          claim.release();
        }
      });
    }
  }

 private:
  template <class F>
  void with_stream(F&& f) {
    push sink{&pending};
    stream_type s{mode, Durable::app_type::node_names, sink};
    runner.stream_ = &s;
    struct reset {
      runner_type& r;
      ~reset() { r.stream_ = nullptr; }
    } after{runner};
    f(s);
  }
};

// Where a subgraph's checkpoint is, as seen from a checkpoint of the run above it.
struct ns_place {
  std::string ns;                          // "review/check"
  std::int64_t checkpoint = no_checkpoint;  // the subgraph's checkpoint (none if it never ran)
  bool recorded = false;                   // the checkpoint above records it (paused there)
  std::string row_thread, row_task;         // where that record is: thread, checkpoint, task
  std::int64_t row_checkpoint = no_checkpoint;
  std::int32_t next_row = 0;               // the index a newer record takes
};
template <class N>
concept subgraph_node = requires(const N& n) {
  typename N::child_app;
  n.child();
};
}  // namespace detail

namespace detail {
// The seam to checkpointed async runs: declared here, defined by <stategraph/checkpoint/asio.hpp>.
template <class Durable>
struct async_durable_runs;
// Whether a checkpointed app's async_invoke, async_resume, async_stream take these arguments
// (once that header defines the runs); if not, their catch-all overloads raise one error.
template <class Durable, class, class... Args>
struct async_durable_invoke_fits : std::false_type {};
template <class Durable, class... Args>
struct async_durable_invoke_fits<Durable, std::void_t<decltype(async_durable_runs<Durable>::invoke(
                                              std::declval<const Durable&>(), std::declval<Args>()...))>,
                                 Args...> : std::true_type {};
template <class Durable, class, class... Args>
struct async_durable_resume_fits : std::false_type {};
template <class Durable, class... Args>
struct async_durable_resume_fits<Durable, std::void_t<decltype(async_durable_runs<Durable>::resume(
                                              std::declval<const Durable&>(), std::declval<Args>()...))>,
                                 Args...> : std::true_type {};
template <class Durable, class, class... Args>
struct async_durable_stream_fits : std::false_type {};
template <class Durable, class... Args>
struct async_durable_stream_fits<Durable, std::void_t<decltype(async_durable_runs<Durable>::stream(
                                              std::declval<const Durable&>(), std::declval<Args>()...))>,
                                 Args...> : std::true_type {};
}  // namespace detail

template <class App, class Store, class Before, class After>
class durable_app {
  template <class, class, class, class>
  friend class durable_app;  // a parent runs its subgraphs' checkpointed runs
  template <class>
  friend struct detail::async_durable_runs;  // awaits the runner's steps

 public:
  using state_type = typename App::state_type;
  using analysis_type = typename App::analysis_type;
  using position_type = typename App::position_type;
  using store_type = Store;
  using app_type = App;
  using run_context_type = run_context;

  durable_app(App app, Store& store, checkpoint_options options = {})
      : app_(std::move(app)),
        store_(&store),
        options_(options),
        heads_(std::make_shared<detail::head_cache<thread_head>>(options.cached_threads)),
        async_(std::make_shared<async_commits>()) {}


 private:
  template <class Stream>
  class runner_of;
  using runner = runner_of<detail::quiet>;
  template <class Stream>
  static stream_mode stream_mode_of(const Stream& s) {
    if constexpr (requires { s.mode; })
      return s.mode;
    else
      return stream_mode{};
  }
  template <class Session>
  friend struct detail::durable_stream_session;

 public:
  // Every value the app stores has a JSON codec (SG013); sg::compile checks it first.
  static constexpr bool codecs_ok = detail::check_graph_codecs<analysis_type>();

  // A run without a thread: nothing is stored.
  state_type invoke(state_type input, const run_config& config = {}) const { return app_.invoke(std::move(input), config); }

  // Every durable entry point takes an optional user context as its last argument before
  // the run_config (contract §6); without one, nodes that take a context get a run_context.
  // Applies `input` through the reducers onto the thread's latest state (a new state for a
  // new thread) and runs from start, checkpointing after the input and every step.
  state_type invoke(state_type input, const thread_id& thread, const run_config& config = {}) const {
    run_context ctx;
    return invoke(std::move(input), thread, ctx, config);
  }
  template <detail::user_context Ctx>
  state_type invoke(state_type input, const thread_id& thread, Ctx& context, const run_config& config = {}) const {
    const auto running = claim(thread.value);
    runner r(*this, thread.value, config.durability);
    if (!r.resume_cached()) {
      auto latest = store_->get(thread.value);
      if (latest) r.load(*latest);
    }
    r.apply_input(std::move(input), checkpoint_source::input, r.loaded_id());
    state_type out = r.run(context, config, false);
    r.keep_head();
    return out;
  }
  // Forks: applies `input` onto the state of checkpoint `from` and runs from start; the new
  // checkpoints continue a new branch whose parent is `from`.
  state_type invoke(state_type input, const thread_id& thread, checkpoint_id from, const run_config& config = {}) const {
    run_context ctx;
    return invoke(std::move(input), thread, from, ctx, config);
  }
  template <detail::user_context Ctx>
  state_type invoke(state_type input, const thread_id& thread, checkpoint_id from, Ctx& context,
                    const run_config& config = {}) const {
    const auto running = claim(thread.value);
    runner r(*this, thread.value, config.durability);
    r.load(fetch(thread, from));
    r.apply_input(std::move(input), checkpoint_source::fork, from.value);
    return r.run(context, config, false);
  }

  // The same with a partial input (`sg::write<&S::a>(x) | ...`): only the channels it names
  // are written, through their reducers; every other channel keeps the thread's value.
  template <class... E>
  state_type invoke(patch<E...> input, const thread_id& thread, const run_config& config = {}) const {
    run_context ctx;
    return invoke(std::move(input), thread, ctx, config);
  }
  template <detail::user_context Ctx, class... E>
  state_type invoke(patch<E...> input, const thread_id& thread, Ctx& context, const run_config& config = {}) const {
    if constexpr (!rules::check_partial_input<state_type, patch<E...>>()) {
      return {};
    } else {
      const auto running = claim(thread.value);
      runner r(*this, thread.value, config.durability);
      auto latest = store_->get(thread.value);
      if (latest) r.load(*latest);
      r.apply_partial(std::move(input), checkpoint_source::input, latest ? latest->id : no_checkpoint);
      return r.run(context, config, false);
    }
  }
  template <class... E>
  state_type invoke(patch<E...> input, const thread_id& thread, checkpoint_id from, const run_config& config = {}) const {
    run_context ctx;
    return invoke(std::move(input), thread, from, ctx, config);
  }
  template <detail::user_context Ctx, class... E>
  state_type invoke(patch<E...> input, const thread_id& thread, checkpoint_id from, Ctx& context,
                    const run_config& config = {}) const {
    if constexpr (!rules::check_partial_input<state_type, patch<E...>>()) {
      return {};
    } else {
      const auto running = claim(thread.value);
      runner r(*this, thread.value, config.durability);
      r.load(fetch(thread, from));
      r.apply_partial(std::move(input), checkpoint_source::fork, from.value);
      return r.run(context, config, false);
    }
  }
  // Without a thread, as the plain app: nothing is stored.
  template <class... E>
  state_type invoke(patch<E...> input, const run_config& config = {}) const {
    return app_.invoke(std::move(input), config);
  }
  template <detail::user_context Ctx, class... E>
  state_type invoke(patch<E...> input, Ctx& context, const run_config& config = {}) const {
    return app_.invoke(std::move(input), context, config);
  }

  // Continues the thread's latest checkpoint: after a crash, a failed step, or a static
  // interrupt. Nodes whose writes survived a failed step are not run again.
  state_type resume(const thread_id& thread, const run_config& config = {}) const {
    run_context ctx;
    return resume(thread, ctx, config);
  }
  template <detail::user_context Ctx>
  state_type resume(const thread_id& thread, Ctx& context, const run_config& config = {}) const {
    const auto running = claim(thread.value);
    runner r(*this, thread.value, config.durability);
    r.load(fetch_latest(thread));
    r.load_pending();
    if (!r.has_work())
      throw checkpoint_error("stategraph: thread '" + thread.value +
                             "' has nothing to resume (its run is over); nothing was changed");
    return r.run(context, config, true);
  }
  template <detail::user_context Ctx>
  [[deprecated("use resume(thread, ctx)")]] state_type resume_with(const thread_id& thread, Ctx& context,
                                                                    const run_config& config = {}) const {
    return resume(thread, context, config);
  }
  // Continues from an older checkpoint's next nodes, as a new branch of history.
  state_type resume(const thread_id& thread, checkpoint_id from, const run_config& config = {}) const {
    run_context ctx;
    return resume(thread, from, ctx, config);
  }
  template <detail::user_context Ctx>
  state_type resume(const thread_id& thread, checkpoint_id from, Ctx& context, const run_config& config = {}) const {
    const auto running = claim(thread.value);
    runner r(*this, thread.value, config.durability);
    r.load(fetch(thread, from));
    if constexpr (has_subgraphs)
      r.fork_with_pending(from.value, true);  // a subgraph paused there continues from its checkpoint of then
    else
      r.fork_here(from.value);
    return r.run(context, config, true);
  }
  // Answers the one pending interrupt: the interrupted node runs again and its sg::interrupt
  // call returns `value`. With several pending: ambiguous_resume_error (use sg::answers).
  template <detail::resume_answer V>
  state_type resume(const thread_id& thread, const V& value, const run_config& config = {}) const {
    run_context ctx;
    return resume(thread, value, ctx, config);
  }
  template <detail::resume_answer V, detail::user_context Ctx>
  state_type resume(const thread_id& thread, const V& value, Ctx& context, const run_config& config = {}) const {
    const auto running = claim(thread.value);
    runner r(*this, thread.value, config.durability);
    r.load(fetch_latest(thread));
    r.load_pending();
    r.answer_interrupts(detail::json_text(value));
    return r.run(context, config, true);
  }

  // Streams a run on the thread: what invoke(input, thread[, ctx]) does, reporting each step
  // to `callback` as app.stream does, and, in stream_mode::checkpoints, each checkpoint as
  // it is committed.
  template <class Callback>
    requires std::is_invocable_v<Callback&, const event<state_type>&>
  state_type stream(state_type input, const thread_id& thread, stream_mode mode, Callback&& callback,
                    const run_config& config = {}) const {
    run_context ctx;
    return stream(std::move(input), thread, mode, ctx, callback, config);
  }
  template <detail::user_context Ctx, class Callback>
    requires std::is_invocable_v<Callback&, const event_for<state_type, Ctx>&>
  state_type stream(state_type input, const thread_id& thread, stream_mode mode, Ctx& context, Callback&& callback,
                    const run_config& config = {}) const {
    using event_t = event_for<state_type, Ctx>;
    auto sink = [&](event_t&& e) { callback(static_cast<const event_t&>(e)); };
    const auto running = claim(thread.value);
    detail::streamer<S, A::size, decltype(sink), typename detail::custom_of<Ctx>::type> s{mode, App::node_names, sink};
    runner_of<decltype(s)> r(*this, thread.value, config.durability, &s);
    start_stream(r, std::move(input), thread);
    s.values(0, r.state);
    return r.run(context, config, false);
  }
  // The same as a range-v3 input range of events: each step runs when the range reaches it.
  // The range refers to this app, which must outlive it.
  auto stream(state_type input, const thread_id& thread, stream_mode mode, const run_config& config = {}) const {
    using session = detail::durable_stream_session<durable_app>;
    auto s = std::make_shared<session>(*this, thread.value, config, mode);
    s->start([&](auto& r) { start_stream(r, std::move(input), thread); });
    return detail::stream_range<session>(std::move(s));
  }
  // A run without a thread, as the plain app streams it: nothing is stored.
  template <class... Args>
    requires detail::plain_stream_fits<state_type, Args...>
  auto stream(state_type input, stream_mode mode, Args&&... args) const {
    return app_.stream(std::move(input), mode, std::forward<Args>(args)...);
  }
  template <detail::user_context Ctx>
  state_type invoke(state_type input, Ctx& context, const run_config& config = {}) const {
    return app_.invoke(std::move(input), context, config);
  }
  // Answers pending interrupts by id (interrupt_info::id, anywhere in the subgraphs): the
  // nodes answered run again, the others stay paused with their interrupts pending. An id
  // that is not pending is interrupt_id_error, and nothing is written.
  state_type resume(const thread_id& thread, const answers& given, const run_config& config = {}) const {
    run_context ctx;
    return resume(thread, given, ctx, config);
  }
  template <detail::user_context Ctx>
  state_type resume(const thread_id& thread, const answers& given, Ctx& context, const run_config& config = {}) const {
    const auto running = claim(thread.value);
    runner r(*this, thread.value, config.durability);
    r.load(fetch_latest(thread));
    r.load_pending();
    r.answer(given);
    return r.run(context, config, true);
  }

  // Async runs (opt-in: #include <stategraph/checkpoint/asio.hpp>), awaited on an Asio
  // executor: `co_await app.async_invoke(input, thread[, ctx][, run_config][, sg::async_options])`
  // and async_resume(thread[, value or sg::answers][, ctx][, run_config][, sg::async_options]).
  template <class... Args>
    requires detail::async_durable_invoke_fits<durable_app, void, Args...>::value
  auto async_invoke(Args&&... args) const {
    return detail::async_durable_runs<durable_app>::invoke(*this, std::forward<Args>(args)...);
  }
  template <class... Args>
    requires detail::async_durable_resume_fits<durable_app, void, Args...>::value
  auto async_resume(Args&&... args) const {
    return detail::async_durable_runs<durable_app>::resume(*this, std::forward<Args>(args)...);
  }
  // `co_await app.async_stream(input, thread, mode[, ctx], callback[, run_config][,
  // sg::async_options])`: what stream(input, thread, mode, ...) reports and commits, awaited.
  template <class... Args>
    requires detail::async_durable_stream_fits<durable_app, void, Args...>::value
  auto async_stream(Args&&... args) const {
    return detail::async_durable_runs<durable_app>::stream(*this, std::forward<Args>(args)...);
  }
  // Arguments none of them takes, or no <stategraph/checkpoint/asio.hpp>: one error at the
  // caller's line (rules/misuse.hpp).
  template <class... Rest>
  auto async_invoke(
      std::type_identity_t<rules::wrong_call<rules::checkpointed_async_invoke_call<state_type>, Rest...>>,
      const Rest&...) const {
    return typename detail::async_result_of<App>::type{};
  }
  template <class... Rest>
  auto async_resume(std::type_identity_t<rules::wrong_call<rules::async_resume_call, Rest...>>, const Rest&...) const {
    return typename detail::async_result_of<App>::type{};
  }
  template <class... Rest>
  auto async_stream(
      std::type_identity_t<rules::wrong_call<rules::checkpointed_async_stream_call<state_type>, Rest...>>,
      const Rest&...) const {
    return typename detail::async_result_of<App>::type{};
  }

  // invoke(input, thread, ctx, config), or resume(thread, ctx, config) when `input` is null,
  // stopped by `limits` before any step (sg::invoke_stoppable, sg::resume_stoppable).
  template <class Ctx>
  state_type run_stoppable(state_type* input, const thread_id& thread, const run_limits& limits, Ctx& context,
                           const run_config& config) const {
    const auto running = claim(thread.value);
    runner r(*this, thread.value, config.durability);
    auto before_step = [&](const position_type& at) { detail::check_limits<App>(limits, at); };
    if (input) {
      if (!r.resume_cached()) {
        auto latest = store_->get(thread.value);
        if (latest) r.load(*latest);
      }
      r.apply_input(std::move(*input), checkpoint_source::input, r.loaded_id());
      state_type out = r.run(context, config, false, before_step);
      r.keep_head();
      return out;
    }
    r.load(fetch_latest(thread));
    r.load_pending();
    if (!r.has_work())
      throw checkpoint_error("stategraph: thread '" + thread.value +
                             "' has nothing to resume (its run is over); nothing was changed");
    return r.run(context, config, true, before_step);
  }

  // Arguments no overload takes: one error at the caller's line, naming the entry point and
  // the arguments' types, not this app's type (rules/misuse.hpp).
  template <class... Rest>
  state_type invoke(std::type_identity_t<rules::wrong_call<rules::checkpointed_invoke_call<state_type>, Rest...>>,
                    const Rest&...) const {
    return {};
  }
  template <class... Rest>
  state_type stream(std::type_identity_t<rules::wrong_call<rules::checkpointed_stream_call<state_type>, Rest...>>,
                    const Rest&...) const {
    return {};
  }
  template <class... Rest>
  state_type resume(std::type_identity_t<rules::wrong_call<rules::resume_call, Rest...>>,
                    const Rest&...) const {
    return {};
  }
  template <class... Rest>
  detail::any_snapshot<snapshot<state_type>> get_state(
      std::type_identity_t<rules::wrong_call<rules::get_state_call, Rest...>>, const Rest&...) const {
    return {};
  }
  template <class... Rest>
  std::vector<snapshot<state_type>> history(
      std::type_identity_t<rules::wrong_call<rules::history_call, Rest...>>, const Rest&...) const {
    return {};
  }
  template <class... Rest>
  std::int64_t update_state(
      std::type_identity_t<rules::wrong_call<rules::update_state_call, Rest...>>, const Rest&...) {
    return 0;
  }
  // No argument at all (rules::no_arguments).
  template <class Diagnostic = rules::checkpointed_invoke_arguments_fit_no_overload<>>
  state_type invoke(rules::no_arguments<Diagnostic> = {}) const {
    return {};
  }
  template <class Diagnostic = rules::checkpointed_stream_arguments_fit_no_overload<>>
  state_type stream(rules::no_arguments<Diagnostic> = {}) const {
    return {};
  }
  template <class Diagnostic = rules::resume_arguments_fit_no_overload<>>
  state_type resume(rules::no_arguments<Diagnostic> = {}) const {
    return {};
  }
  template <class Diagnostic = rules::get_state_arguments_fit_no_overload<>>
  detail::any_snapshot<snapshot<state_type>> get_state(rules::no_arguments<Diagnostic> = {}) const {
    return {};
  }
  template <class Diagnostic = rules::history_arguments_fit_no_overload<>>
  std::vector<snapshot<state_type>> history(rules::no_arguments<Diagnostic> = {}) const {
    return {};
  }
  template <class Diagnostic = rules::update_state_arguments_fit_no_overload<>>
  std::int64_t update_state(rules::no_arguments<Diagnostic> = {}) {
    return 0;
  }

  std::optional<snapshot<state_type>> get_state(const thread_id& thread) const {
    auto latest = store_->get(thread.value);
    if (!latest) return std::nullopt;
    return read_snapshot(thread, *latest, true);
  }
  snapshot<state_type> get_state(const thread_id& thread, checkpoint_id id) const {
    auto c = fetch(thread, id);
    bool head = true;
    if constexpr (has_subgraphs) {
      auto newest = store_->list(thread.value, {.limit = 1});
      head = !newest.empty() && newest.front().id == c.id;
    }
    return read_snapshot(thread, c, head);
  }
  // Newest first. A std::vector, so range-v3 views filter it.
  std::vector<snapshot<state_type>> history(const thread_id& thread, list_options options = {}) const {
    std::vector<snapshot<state_type>> out;
    for (const auto& info : store_->list(thread.value, options)) out.push_back(get_state(thread, checkpoint_id{info.id}));
    return out;
  }

  // Writes `update` into the thread's latest state as if node `Node` had written it (the
  // node's `writes` bound it: SG002), and makes Node's successors the next nodes. Returns
  // the new checkpoint's id.
  template <class Node, class... E>
  std::int64_t update_state(const thread_id& thread, patch<E...> update, as_node_t<Node>) {
    if constexpr (!detail::update_fits<Node, patch<E...>>()) {
      return 0;  // the rule's diagnostic is the one error
    } else {
      const auto running = claim(thread.value);
      runner r(*this, thread.value);
      r.load(fetch_latest(thread));
      return r.update(std::move(update), analysis_type::template index<Node>::value);
    }
  }

  // ---- a subgraph's checkpoints, by namespace (checkpoint_ns<node, ...>) ---------------
  // The subgraph's checkpoint that the thread's latest checkpoint records for it (where it
  // paused, or what update_state made of it since), else the latest of its own thread;
  // nullopt if it never ran. A snapshot of the child's state type.
  template <class First, class... Path>  // a first node: `get_state(t, {})` is a checkpoint id
  auto get_state(const thread_id& thread, checkpoint_ns_t<First, Path...>) const {
    return at_ns<First, Path...>(thread.value, {}, head_of(thread.value), [&](const auto& d, const detail::ns_place& p) {
      std::optional<snapshot<typename std::remove_cvref_t<decltype(d)>::state_type>> out;
      if (p.checkpoint != no_checkpoint) out = d.read_ns(thread.value, p.ns, checkpoint_id{p.checkpoint});
      return out;
    });
  }
  // One checkpoint of the subgraph's own, by id (history lists them).
  template <class First, class... Path>
  auto get_state(const thread_id& thread, checkpoint_ns_t<First, Path...>, checkpoint_id id) const {
    return at_ns<First, Path...>(thread.value, {}, no_checkpoint, [&](const auto& d, const detail::ns_place& p) {
      return d.read_ns(thread.value, p.ns, id);
    });
  }
  // The subgraph's checkpoints, newest first: every run of it on this thread.
  template <class First, class... Path>
  auto history(const thread_id& thread, checkpoint_ns_t<First, Path...>, list_options options = {}) const {
    return at_ns<First, Path...>(thread.value, {}, no_checkpoint, [&](const auto& d, const detail::ns_place& p) {
      std::vector<snapshot<typename std::remove_cvref_t<decltype(d)>::state_type>> out;
      for (const auto& info : store_->list(subgraph_thread(thread, p.ns).value, options))
        out.push_back(d.read_ns(thread.value, p.ns, checkpoint_id{info.id}));
      return out;
    });
  }
  // Writes `update` into the subgraph's checkpoint that get_state(thread, ns) reads, as if
  // the child's node `Node` had written it; Node's successors run next in the child. If the
  // subgraph is paused, the thread's latest checkpoint then records the new checkpoint, and
  // resuming continues the child from it (its interrupts there are gone: the child runs
  // Node's successors). Returns the new checkpoint's id (in the subgraph's thread).
  template <class First, class... Path, class Node, class... E>
  std::int64_t update_state(const thread_id& thread, checkpoint_ns_t<First, Path...>, patch<E...> update, as_node_t<Node>) {
    if constexpr (!detail::update_fits<Node, patch<E...>>()) {
      return 0;  // the rule's diagnostic is the one error
    } else {
      const auto running = claim(thread.value);
      const auto at = head_of(thread.value);
      return at_ns<First, Path...>(thread.value, {}, at, [&](const auto& d, const detail::ns_place& p) {
        using child = typename std::remove_cvref_t<decltype(d)>::analysis_type;
        static_assert(child::template index<Node>::value != detail::none,
                      "stategraph: update_state in a subgraph writes as a node of that subgraph's graph");
        if (p.checkpoint == no_checkpoint)
          throw checkpoint_error("stategraph: subgraph '" + p.ns + "' of thread '" + thread.value +
                                 "' has no checkpoint; nothing was changed");
        if (p.recorded) {  // the record is rewritten where it is, so that must still be its thread's head
          const auto head = head_of(p.row_thread);
          if (head != p.row_checkpoint) throw conflict_error(p.row_thread, p.row_checkpoint, head);
        }
        const std::int64_t id =
            d.update_ns(thread.value, p.ns, p.checkpoint, std::move(update), child::template index<Node>::value);
        if (p.recorded) {
          const std::string record = paused_record(id);
          const pending_write_put row{p.row_task, p.next_row, "__subgraph__", record};
          store_->put_writes(p.row_thread, p.row_checkpoint, std::span<const pending_write_put>(&row, 1));
        }
        return id;
      });
    }
  }

  bool delete_thread(const thread_id& thread) {
    const auto running = claim(thread.value);
    heads_->drop(thread.value);
    return store_->delete_thread(thread.value);
  }
  // How many threads' latest states the app holds (checkpoint_options::cached_threads).
  std::size_t cached_threads() const { return heads_->size(); }
  Store& store() const noexcept { return *store_; }
  const App& plain() const noexcept { return app_; }

 private:
  using A = analysis_type;
  using S = state_type;
  static constexpr std::size_t channels = channel_count<S>;
  static constexpr bool has_subgraphs = []<std::size_t... I>(std::index_sequence<I...>) {
    return (detail::subgraph_node<typename A::template node<I>> || ...);
  }(std::make_index_sequence<A::size>{});

  std::int64_t head_of(const std::string& store_thread) const {
    const auto head = store_->list(store_thread, list_options{.before = std::nullopt, .limit = 1});
    return head.empty() ? no_checkpoint : head.front().id;
  }
  static std::string paused_record(std::int64_t child_checkpoint) {
    return "{\"checkpoint\":" + std::to_string(child_checkpoint) + "}";
  }
  // The checkpoint of the subgraph at the end of the path (First, Rest...), from checkpoint
  // `here` of this app's run under `ns` (none: look no record up); `f(child app, place)`.
  template <class First, class... Rest, class F>
  decltype(auto) at_ns(const std::string& root, const std::string& ns, std::int64_t here, F&& f) const {
    constexpr std::size_t I = A::template index<First>::value;
    static_assert(I != detail::none, "stategraph: checkpoint_ns names a node that is not in the graph");
    if constexpr (I != detail::none) {
      using N = typename A::template node<I>;
      static_assert(detail::subgraph_node<N>, "stategraph: checkpoint_ns names a node that is not a subgraph");
      using child_durable = durable_app<typename N::child_app, Store, detail::mp_list<>, detail::mp_list<>>;
      child_durable d(app_.template node_instance<I>().child(), *store_);
      detail::ns_place p;
      const std::string name(App::node_names[I]);
      p.ns = ns.empty() ? name : ns + "/" + name;
      p.row_thread = ns.empty() ? root : subgraph_thread(thread_id{root}, ns).value;
      p.row_checkpoint = here;
      p.row_task = name + "#subgraph";
      if (here != no_checkpoint)
        for (const auto& w : store_->pending_writes(p.row_thread, here)) {
          if (w.task != p.row_task || w.index < p.next_row) continue;
          p.recorded = true;
          p.next_row = w.index + 1;
          p.checkpoint = runner::recorded_checkpoint(w.value);
        }
      if (p.checkpoint <= 0) p.checkpoint = head_of(subgraph_thread(thread_id{root}, p.ns).value);
      if constexpr (sizeof...(Rest) == 0)
        return f(d, p);
      else
        return d.template at_ns<Rest...>(root, p.ns, p.checkpoint, std::forward<F>(f));
    }
  }
  // A subgraph's checkpoint read as its run sees it (interrupt ids and paths with its namespace).
  snapshot<S> read_ns(const std::string& root, const std::string& ns, checkpoint_id id) const {
    auto c = fetch(subgraph_thread(thread_id{root}, ns), id);
    return read_snapshot(thread_id{root}, c, head_of(subgraph_thread(thread_id{root}, ns).value) == c.id, ns);
  }
  template <class... E>
  std::int64_t update_ns(const std::string& root, const std::string& ns, std::int64_t at, patch<E...>&& update,
                         std::size_t node) const {
    runner r(*this, root, durability::sync, nullptr, ns);
    r.load(fetch(thread_id{r.thread}, checkpoint_id{at}));
    if (head_of(r.thread) != at) r.fork_with_pending(at, false);  // an older checkpoint: a new branch from it
    return r.update(std::move(update), node);
  }
  // Marks the thread as running in this app for as long as the claim lives (thread_busy_error
  // if it is already).
  detail::thread_claim claim(const std::string& thread) const { return {running_, thread}; }

  template <class Runner>
  void start_stream(Runner& r, state_type&& input, const thread_id& thread) const {
    auto latest = store_->get(thread.value);
    if (latest) r.load(*latest);
    r.apply_input(std::move(input), checkpoint_source::input, latest ? latest->id : no_checkpoint);
  }

  // A thread's latest checkpoint as a run left it: what loading it would give, kept so the
  // next invoke of the thread need not read it back. `checkpoint`, `metadata` (with its run
  // tag) and `file_version` are checked against the store before it is used.
  struct thread_head {
    S state;
    position_type at;
    std::array<std::int64_t, channels> versions;
    std::array<detail::append_chain, channels> chains;
    std::int64_t max_version, checkpoint, thread_step, file_version;
    std::string metadata;
  };
  // The commit worker of async runs, made by the first one.
  struct async_commits {
    std::mutex mutex;
    std::unique_ptr<detail::put_worker<Store>> worker;
  };
  detail::put_worker<Store>& commit_worker() const {
    std::lock_guard lock(async_->mutex);
    if (!async_->worker) async_->worker = std::make_unique<detail::put_worker<Store>>(*store_);
    return *async_->worker;
  }
  // A version of the store's file that any other writer's commit changes, for stores that
  // can be written behind this process's back (sqlite_store::file_version).
  std::int64_t file_version() const {
    if constexpr (requires(const Store& s) { s.file_version(); })
      return store_->file_version();
    else
      return 0;
  }

  stored_checkpoint fetch_latest(const thread_id& thread) const {
    auto c = store_->get(thread.value);
    if (!c) throw checkpoint_error("stategraph: thread '" + thread.value + "' has no checkpoint");
    return std::move(*c);
  }
  // Checked before the store is asked: no id below 1 reaches it, so none can mean its latest.
  stored_checkpoint fetch(const thread_id& thread, checkpoint_id id) const {
    if (id.value < 1)
      throw checkpoint_error("stategraph: thread '" + thread.value + "': checkpoint id " + std::to_string(id.value) +
                             " names no checkpoint (ids start at 1; the overload without an id reads the latest)"
                             "; nothing was changed");
    auto c = store_->get(thread.value, id.value);
    if (!c) throw checkpoint_error("stategraph: thread '" + thread.value + "' has no checkpoint " + std::to_string(id.value));
    return std::move(*c);
  }

  // A subgraph's pending interrupts are its latest checkpoint's: only the thread's head lists
  // them (an older checkpoint's paused subgraph has gone on since).
  snapshot<S> read_snapshot(const thread_id& thread, const stored_checkpoint& c, bool head,
                            const std::string& ns = {}) const {
    runner r(*this, thread.value, durability::sync, nullptr, ns);
    r.load(c);
    r.load_pending();
    snapshot<S> s;
    if constexpr (has_subgraphs) r.collect_paused(s.subgraphs);
    if (!head) r.paused_children = {};
    s.values = std::move(r.state);  // the runner is done with it
    for (std::size_t i = 0; i < A::size; ++i)
      if (r.at.active.test(i)) s.next.emplace_back(App::node_names[i]);
    detail::for_each_index<A::size>([&]<std::size_t I>() {
      if constexpr (!std::is_same_v<typename App::template queue_for_node<I>, detail::no_queue>)
        if (!std::get<I>(r.at.sends).empty() && !r.at.active.test(I)) s.next.emplace_back(App::node_names[I]);
    });
    s.checkpoint_id = c.id;
    s.parent_id = c.parent;
    s.step = c.step;
    s.source = c.source;
    s.interrupts = r.open_interrupts();
    s.errors = std::move(r.errors);
    // Kept writes of a pause are no failure.
    s.failed = (r.has_failed_writes() || !s.errors.empty()) && s.interrupts.empty();
    return s;
  }

  // One run's bookkeeping: the state, where the run stands, each channel's version, and
  // the observer hooks the app's step calls. A streamed run's runner also hands each step to
  // its streamer (engine/stream.hpp); a plain one has none (Stream = detail::quiet).
  template <class Stream>
  class runner_of {
    template <class, class, class, class>
    friend class durable_app;  // a parent's runner runs and reads its subgraphs' runners

   public:
    static constexpr bool streams = Stream::streams;
    static constexpr bool persists = true;

    // `ns` is empty for the app's own run, the subgraph's path for a subgraph's run.
    runner_of(const durable_app& owner, std::string thread, durability commits = durability::sync,
              Stream* stream = nullptr, std::string ns = {})
        : stream_(stream),
          self(owner),
          thread(ns.empty() ? thread : subgraph_thread(thread_id{thread}, ns).value),
          root(std::move(thread)),
          ns(std::move(ns)),
          commits(commits) {
      if (self.options_.cached_threads != 0) {
        const auto tag = detail::new_run_tag();
        writer.tag_run(tag);
        spare.tag_run(tag);
      }
      detail::for_each_index<A::size>([&]<std::size_t I>() {
        if constexpr (detail::subgraph_node<node_type<I>>) {
          auto link = std::make_shared<const child_link<I>>(*this);
          child_links[I] = static_cast<const detail::durable_child<typename node_type<I>::child_app>*>(link.get());
          owned_links.push_back(std::move(link));
        }
      });
    }
    runner_of(const runner_of&) = delete;
    runner_of& operator=(const runner_of&) = delete;
    ~runner_of() {
      if (in_flight) self.async_->worker->wait(job);  // the job points into this runner
    }

    S state{};
    position_type at{};
    Stream* stream_;
    stream_mode mode = stream_ ? stream_mode_of(*stream_) : stream_mode{};  // read by the step when streaming

    // ---- loading ---------------------------------------------------------------------
    void load(const stored_checkpoint& c) {
      if (c.format_version < oldest_checkpoint_format_version || c.format_version > checkpoint_format_version)
        throw checkpoint_error("stategraph: checkpoint " + std::to_string(c.id) + " of thread '" + thread +
                               "' has format version " + std::to_string(c.format_version) + ", this build reads " +
                               std::to_string(oldest_checkpoint_format_version) + " to " +
                               std::to_string(checkpoint_format_version));
      const std::string where = "checkpoint " + std::to_string(c.id) + " of thread '" + thread + "'";
      auto meta =
          at_field(where, "metadata", [&] { return detail::parse_or_throw(c.metadata, "the checkpoint metadata"); });
      if (c.schema_hash != detail::schema_hash_text<S>()) throw checkpoint_error(schema_difference(c, meta));
      if (c.step < 0 || c.step >= max_count) throw corrupt(where, "step", std::to_string(c.step) + " is out of range");
      S loaded{};
      std::array<std::int64_t, channels> loaded_versions{};
      std::array<bool, channels> found{};
      std::array<detail::append_chain, channels> loaded_chains{};
      for (const auto& ch : c.channels) {
        bool known = false;
        detail::for_each_index<channels>([&]<std::size_t I>() {
          if (ch.channel != channel_name_at<S, I>()) return;
          known = true;
          const std::string field = "channel '" + ch.channel + "'";
          if (found[I]) throw corrupt(where, field, "is listed twice");
          if (ch.version < 0) throw corrupt(where, field, "has version " + std::to_string(ch.version));
          at_field(where, field, [&] { detail::decode_channel<S, I>(loaded, ch.value, ch.appends); });
          loaded_versions[I] = ch.version;
          found[I] = true;
          auto& chain = loaded_chains[I];
          chain = {ch.appends.size(), 0, ch.value.size()};
          for (const auto& piece : ch.appends) chain.piece_bytes += piece.size();
        });
        if (!known) throw corrupt(where, "channel '" + ch.channel + "'", "is not a channel of this schema");
      }
      for (std::size_t i = 0; i < channels; ++i)
        if (!found[i])
          throw checkpoint_error("stategraph: checkpoint " + std::to_string(c.id) + " of thread '" + thread +
                                 "' lacks channel '" + std::string(channel_names<S>()[i]) + "'");
      position_type pos{};
      std::int64_t loaded_max = 0;
      detail::read_position<App>(
          meta, pos, loaded_max, [&](std::string_view name) { return node_index(name); }, where);
      // Each put adds one to the highest version, and no channel is newer than it.
      std::int64_t newest = 0;
      for (const std::int64_t v : loaded_versions) newest = std::max(newest, v);
      if (pos.step >= static_cast<std::size_t>(max_count))
        throw corrupt(where, "metadata", "run_step " + std::to_string(pos.step) + " is out of range");
      if (loaded_max < newest || loaded_max >= max_count)
        throw corrupt(where, "metadata", "max_version " + std::to_string(loaded_max) +
                                             " is out of range (channels are at versions up to " +
                                             std::to_string(newest) + ")");
      max_version = loaded_max;
      thread_step = c.step;
      state = std::move(loaded);
      versions = loaded_versions;
      chains = loaded_chains;
      joined = {};
      at = std::move(pos);
      parent = c.id;
      has_parent = true;
    }

    // Takes the thread's state from the app's cache if the store's head is still the
    // checkpoint the cache holds (same id, same metadata with its run tag, no other writer
    // on the file since); false if it must be loaded.
    bool resume_cached() {
      if (self.options_.cached_threads == 0) return false;
      auto h = self.heads_->take(thread);
      if (!h) return false;
      const auto head = self.store_->list(thread, list_options{.before = std::nullopt, .limit = 1});
      if (head.empty() || head.front().id != h->checkpoint || head.front().metadata != h->metadata ||
          self.file_version() != h->file_version)
        return false;
      state = std::move(h->state);
      at = std::move(h->at);
      versions = h->versions;
      chains = h->chains;
      joined = {};
      max_version = h->max_version;
      thread_step = h->thread_step;
      parent = h->checkpoint;
      has_parent = true;
      return true;
    }
    // Hands the state to the app's cache after a run that ended with a checkpoint of its own.
    void keep_head() {
      if (self.options_.cached_threads == 0 || last_writer == nullptr || in_flight || deferred) return;
      self.heads_->keep(thread, thread_head{std::move(state), std::move(at), versions, chains, max_version, parent,
                                            thread_step, self.file_version(), last_writer->metadata});
    }
    std::int64_t loaded_id() const { return has_parent ? parent : no_checkpoint; }

    void load_pending() {
      const std::string where = "checkpoint " + std::to_string(parent) + " of thread '" + thread + "'";
      errors.clear();
      for (auto& w : self.store_->pending_writes(thread, parent)) {
        const std::string field = "pending write '" + w.task + "'";
        const auto split = split_task(w.task);  // not a structured binding: Clang 14 cannot capture one
        const auto task = split_send(split.first);
        const std::string& node = task.first;
        const std::string& kind = split.second;
        std::size_t i = at_field(where, field, [&] { return node_index(node); });
        if (w.index < 0 || w.index > max_interrupts)
          throw corrupt(where, field, "has index " + std::to_string(w.index) + ", out of range");
        if (kind == "error") {  // a record for readers: nothing of it runs again
          note_error(node, task.second,
                     at_field(where, field, [&] { return detail::parse_or_throw(w.value, "a failure record"); }));
          continue;
        }
        if (task.second) {
          load_pending_send(where, field, w, i, *task.second, kind);
          continue;
        }
        if (kind == "result") {
          results[i] = at_field(where, field, [&] { return detail::parse_or_throw(w.value, "a pending write"); });
        } else if (kind == "interrupt") {
          interrupts.push_back({node, static_cast<std::size_t>(w.index), w.value, ns,
                                interrupt_id(node, static_cast<std::size_t>(w.index)), std::nullopt, {}});
        } else if (kind == "subgraph") {
          paused_children.set(i);
          if (w.index >= paused_row[i]) {  // the newest record says where the child continues
            paused_row[i] = w.index + 1;
            paused_at[i] = at_field(where, field, [&] { return recorded_checkpoint(w.value); });
          }
        } else if (kind == "resume") {
          // Parsed here only to refuse a corrupt answer before anything runs; the node decodes it.
          at_field(where, field, [&] { (void)detail::parse_or_throw(w.value, "a resume value"); });
          auto& r = resumes[i];
          if (r.size() <= static_cast<std::size_t>(w.index)) r.resize(static_cast<std::size_t>(w.index) + 1);
          r[static_cast<std::size_t>(w.index)] = w.value;
        } else {
          throw corrupt(where, field, "is of an unknown kind '" + kind + "'");
        }
      }
      // In node order, as the step ran them (the store returns them by task name).
      std::stable_sort(errors.begin(), errors.end(), [&](const task_error& x, const task_error& y) {
        return std::pair(node_index(x.node), x.send) < std::pair(node_index(y.node), y.send);
      });
      // An interrupt already answered is no longer open.
      std::erase_if(interrupts, [&](const interrupt_info& in) {
        const auto* answered = in.send ? send_resume_values(node_index(in.node), *in.send) : &resumes[node_index(in.node)];
        return answered && in.index < answered->size();
      });
    }

    // The nodes the next step runs: the active ones and the targets of queued sends.
    typename A::set scheduled() const {
      auto s = at.active;
      detail::for_each_index<A::size>([&]<std::size_t I>() {
        if constexpr (!std::is_same_v<typename App::template queue_for_node<I>, detail::no_queue>)
          if (!std::get<I>(at.sends).empty()) s.set(I);
      });
      return s;
    }

    static constexpr std::int32_t max_interrupts = 1 << 16;  // per node: more is corrupted data
    // Steps and versions count up by one per checkpoint from what was stored: one at or past
    // 2^62 is corrupt, and counting from below it cannot overflow in any thread's lifetime.
    static constexpr std::int64_t max_count = std::int64_t{1} << 62;
    bool has_work() const { return at.any() || has_failed_writes(); }

    std::vector<interrupt_info> open_interrupts() const {
      std::vector<interrupt_info> out;
      for (auto& open : collect_open()) out.push_back(std::move(open.info));
      return out;
    }
    bool has_failed_writes() const {
      return !send_results.empty() ||
             std::any_of(results.begin(), results.end(), [](const auto& r) { return r.has_value(); });
    }

    void answer_interrupts(const std::string& value) {
      auto open = collect_open();
      if (open.empty())
        throw checkpoint_error("stategraph: thread '" + thread + "' has no pending interrupt to resume; nothing was changed");
      if (open.size() > 1)
        throw ambiguous_resume_error("stategraph: thread '" + thread + "' has " + std::to_string(open.size()) +
                                     " pending interrupts (" + id_list(open) +
                                     "); answer each by id with resume(thread, sg::answers{{id, value}, ...}); "
                                     "nothing was changed");
      write_answers(open, {value});
    }

    // Every id is checked before anything is written.
    void answer(const answers& given) {
      auto open = collect_open();
      if (given.list().empty())
        throw checkpoint_error("stategraph: resume of thread '" + thread + "' was given no answers; nothing was changed");
      std::vector<open_interrupt> chosen;
      std::vector<std::string> values;
      for (const auto& a : given.list()) {
        if (std::any_of(chosen.begin(), chosen.end(), [&](const open_interrupt& o) { return o.info.id == a.id; }))
          throw interrupt_id_error(a.id, "stategraph: interrupt '" + a.id + "' of thread '" + thread +
                                             "' is answered twice in one resume; nothing was changed");
        auto it = std::find_if(open.begin(), open.end(), [&](const open_interrupt& o) { return o.info.id == a.id; });
        if (it == open.end())
          throw interrupt_id_error(a.id, "stategraph: thread '" + thread + "' has no pending interrupt '" + a.id +
                                             "' (unknown, or already answered); pending: " +
                                             (open.empty() ? std::string("none") : id_list(open)) +
                                             "; nothing was changed");
        chosen.push_back(*it);
        values.push_back(a.value.dump());
      }
      write_answers(chosen, values);
    }

    // ---- subgraphs ---------------------------------------------------------------------
    // A `#subgraph` record's value: the child's checkpoint to continue from; 0 (its thread's
    // latest) for a record that names none.
    static std::int64_t recorded_checkpoint(const std::string& value) {
      const auto j = detail::parse_or_throw(value, "a subgraph's record");
      if (j.is_null()) return 0;
      if (j.is_object() && j.contains("checkpoint") && j["checkpoint"].is_number_integer() &&
          j["checkpoint"].template get<std::int64_t>() >= 1)
        return j["checkpoint"].template get<std::int64_t>();
      throw checkpoint_error("stategraph: names no checkpoint of the subgraph");
    }
    // A fork from checkpoint `from`, which this runner has loaded, that keeps the pauses
    // pending there: its interrupts and the subgraphs paused inside (or only the latter),
    // each subgraph at its first record, where it paused when the step after `from` first
    // ran. Answers, kept results and newer records are not kept: they came after, so the
    // answered nodes ask again, as after a fork of the app.
    void fork_with_pending(std::int64_t from, bool subgraphs_only) {
      fork_here(from);
      carry_pending(from, subgraphs_only);
    }
    void carry_pending(std::int64_t from, bool subgraphs_only) {
      const auto rows = self.store_->pending_writes(thread, from);
      std::vector<pending_write_put> kept;
      std::vector<std::int32_t> first;  // per kept row, the index it had
      for (const auto& w : rows) {
        const auto hash = w.task.rfind('#');
        const std::string_view kind = hash == std::string::npos ? std::string_view{} : std::string_view(w.task).substr(hash + 1);
        if (kind == "subgraph") {  // the record with the lowest index, written as the fork's first
          auto it = std::find_if(kept.begin(), kept.end(), [&](const pending_write_put& k) { return k.task == w.task; });
          if (it == kept.end()) {
            kept.push_back({w.task, 0, w.channel, w.value});
            first.push_back(w.index);
          } else if (auto& at = first[static_cast<std::size_t>(it - kept.begin())]; w.index < at) {
            it->value = w.value;
            at = w.index;
          }
        } else if (!subgraphs_only && kind == "interrupt") {
          kept.push_back({w.task, w.index, w.channel, w.value});
          first.push_back(w.index);
        }
      }
      if (kept.empty()) return;
      settle();  // the fork's checkpoint is committed: the writes go to it
      self.store_->put_writes(thread, parent, kept);
      load_pending();
    }
    // The subgraphs paused inside this run's step, and those inside them, outermost first.
    void collect_paused(std::vector<subgraph_checkpoint>& out) const {
      detail::for_each_index<A::size>([&]<std::size_t I>() {
        if constexpr (detail::subgraph_node<node_type<I>>) {
          if (!paused_children.test(I) || results[I]) return;
          using child_durable = durable_app<typename node_type<I>::child_app, Store, detail::mp_list<>, detail::mp_list<>>;
          child_durable d(self.app_.template node_instance<I>().child(), *self.store_);
          typename child_durable::runner r(d, root, durability::sync, nullptr, child_ns<I>());
          // Absent when the store's thread names are not this run's: an app of a child graph
          // reading a subgraph's thread directly does not see the subgraphs inside it.
          const auto c = self.store_->get(r.thread, paused_at[I] > 0 ? paused_at[I] : d.head_of(r.thread));
          if (!c) return;
          out.push_back({child_ns<I>(), c->id});
          r.load(*c);
          r.load_pending();
          r.collect_paused(out);
        }
      });
    }
    // Node I's subgraph, run checkpointed under its namespace. A child that paused in this
    // step's earlier attempt continues from its latest checkpoint (its interrupted nodes
    // run again, its finished ones do not); otherwise the child starts anew, continuing its
    // thread's history. A pause inside pauses node I (interrupt_signal::in_subgraph).
    template <std::size_t I, class CA, class Ctx>
    typename CA::state_type run_child(const CA& app, typename CA::state_type start, Ctx& context) const {
      child_session<I> s(app, *self.store_, root, child_ns<I>());
      open_child<I>(s, std::move(start));
      auto out = s.r.run(context, config_now ? *config_now : run_config{}, s.resuming);
      return close_child<I>(s, std::move(out));
    }
    // Node I's child run, set up (open_child) and checked (close_child) apart from its steps:
    // an async run awaits the steps in between.
    template <std::size_t I>
    struct child_session {
      using child_app = typename A::template node<I>::child_app;
      using child_durable = durable_app<child_app, Store, detail::mp_list<>, detail::mp_list<>>;
      child_session(const child_app& app, Store& store, const std::string& root, std::string ns)
          : d(app, store), r(d, root, durability::sync, nullptr, std::move(ns)) {}
      child_durable d;
      typename child_durable::runner r;
      bool resuming = false;
    };
    template <std::size_t I>
    void open_child(child_session<I>& s, typename A::template node<I>::child_app::state_type start) const {
      auto& d = s.d;
      auto& r = s.r;
      s.resuming = paused_children.test(I);
      if (s.resuming) {  // from the checkpoint the parent's record names: the child's head, or an older one (a fork)
        const std::int64_t head = d.head_of(r.thread);
        const std::int64_t from = paused_at[I] > 0 ? paused_at[I] : head;
        r.load(d.fetch(thread_id{r.thread}, checkpoint_id{from}));
        if (from == head)
          r.load_pending();
        else
          r.fork_with_pending(from, false);
      } else {
        auto latest = self.store_->get(r.thread);
        if (latest) r.load(*latest);
        r.restart(std::move(start), latest ? latest->id : no_checkpoint);
      }
    }
    template <std::size_t I, class CS>
    CS close_child(child_session<I>& s, CS out) const {
      stopped_at[I] = s.r.parent;
      if (s.r.at.any()) throw interrupt_signal{{}, 0, true};
      return out;
    }
    // For an async run: node I's child run, opened on the step's state (the subgraph node's
    // own input), and the node's result from the child's final state.
    template <std::size_t I>
    std::unique_ptr<child_session<I>> open_child_on(const S& parent_state) const {
      const auto& node = self.app_.template node_instance<I>();
      auto s = std::make_unique<child_session<I>>(node.child(), *self.store_, root, child_ns<I>());
      open_child<I>(*s, node.child_input(parent_state));
      return s;
    }
    template <std::size_t I>
    auto child_result(const S& parent_state, child_session<I>& s,
                      typename A::template node<I>::child_app::state_type out) const {
      return self.app_.template node_instance<I>().child_output(parent_state, close_child<I>(s, std::move(out)));
    }
    // A subgraph's new run: a new state from `input`, continuing the thread's history.
    void restart(S&& input, std::int64_t from) {
      if (has_parent) ++thread_step;
      state = S{};
      before_merge(state);
      at = position_type{self.app_.first_frontier(state, std::move(input)), {}, 0, {}};
      put(checkpoint_source::input, all_channels(), from, true);
    }

    void fork_here(std::int64_t from) {
      ++thread_step;
      put(checkpoint_source::fork, all_channels(), from, true);
    }

    // ---- input and updates -------------------------------------------------------------
    void apply_input(S&& input, checkpoint_source source, std::int64_t from) {
      if (has_parent) ++thread_step;
      auto touched = detail::input_touches(input);
      // A whole input overwrites every last-value channel: one it changes is stored, even
      // when the input holds the default value.
      detail::for_each_index<channels>([&]<std::size_t I>() {
        using F = field_type_t<S, I>;
        using V = typename channel_traits<F>::value_type;
        if constexpr (channel_traits<F>::kind != channel_kind::accumulator) {
          if constexpr (detail::comparable<V>) {
            if (!(channel_traits<F>::value(detail::field<I>(state)) == channel_traits<F>::value(detail::field<I>(input))))
              touched.set(I);
          } else {
            touched.set(I);
          }
        }
      });
      before_merge(state);
      at = position_type{self.app_.first_frontier(state, std::move(input)), {}, 0, {}};
      bool whole = source == checkpoint_source::fork || !has_parent;
      put(source, whole ? all_channels() : touched, from, whole);
    }

    template <class... E>
    void apply_partial(patch<E...>&& input, checkpoint_source source, std::int64_t from) {
      if (has_parent) ++thread_step;
      before_merge(state);
      detail::node_set<channels> touched{};
      at = position_type{self.app_.first_frontier(state, std::move(input), touched), {}, 0, {}};
      bool whole = source == checkpoint_source::fork || !has_parent;
      put(source, whole ? all_channels() : touched, from, whole);
    }

    template <class... E>
    std::int64_t update(patch<E...>&& p, std::size_t node) {
      before_merge(state);
      detail::node_set<channels> changed{};
      self.app_.update_as(state, std::move(p), node, changed, at);
      at.step = 0;
      ++thread_step;
      return put(checkpoint_source::update, changed, parent, false);
    }

    // ---- running -----------------------------------------------------------------------
    // `before_step(at)` is called before each step that runs (sg::invoke_stoppable checks
    // its limits there).
    template <class Ctx, class BeforeStep = detail::no_check>
    S run(Ctx& context, const run_config& config, bool resuming, BeforeStep&& before_step = {}) {
      if constexpr (!rules::check_all<typename App::graph_type, A, Ctx>()) {
        return state;  // the rule has printed its diagnostic
      } else {
        bool skip_before = resuming;
        try {
          while (step_once(context, config, skip_before, before_step)) {
          }
        } catch (...) {
          // What the run finished is still committed (exit mode: the steps before the error).
          try {
            settle();
          } catch (...) {
          }
          throw;
        }
        settle();
      }
      return state;
    }
    // One superstep; false when the run stops: over, paused, or at a static interrupt.
    template <class Ctx, class BeforeStep = detail::no_check>
    bool step_once(Ctx& context, const run_config& config, bool& skip_before, BeforeStep&& before_step = {}) {
      typename A::set ran{};
      if (!begin_step(context, config, skip_before, ran)) return false;
      before_step(at);
      try {
        self.app_.step(state, at, context, config, *this);
      } catch (const detail::paused_step&) {
        return false;
      }
      return end_step(ran);
    }
    // What step_once does around the step itself (an async run awaits the step between them):
    // false if the run stops before it; `ran` gets the nodes it runs.
    template <class Ctx>
    bool begin_step(Ctx& context, const run_config& config, bool& skip_before, typename A::set& ran) {
      if (!at.any()) return false;
      if (!skip_before && scheduled().intersects(before_set)) return false;
      skip_before = false;
      config_now = &config;
      if constexpr (has_subgraphs) bind_children(context);
      ran = scheduled();
      last_ran = ran;
      return true;
    }
    // After a step that was not paused: false if the run stops here (a static interrupt after).
    bool end_step(const typename A::set& ran) {
      // Emptied in place: a step without kept writes or answers pays a test per node, not a
      // reassignment of every slot.
      for (auto& r : results) r.reset();
      for (auto& r : resumes) r.clear();
      send_results.clear();
      send_resumes.clear();
      interrupts.clear();
      paused_children = {};
      if constexpr (has_subgraphs) paused_row = {};
      return !(ran.intersects(after_set) && at.any());
    }

    // ---- stream hooks (a streamed run only) -----------------------------------------------
    template <class Set, class Failures, class Took, class Children>
    void tasks(std::size_t step, const Set& active, const Failures& failures, const Took& took, Children& children) {
      stream_->tasks(step, active, failures, took, children);
    }
    template <class Patch>
    void update(std::size_t step, std::string_view node, const Patch& patch) {
      stream_->update(step, node, patch);
    }
    void values(std::size_t step, const S& s) { stream_->values(step, s); }
    auto custom_scope(std::size_t node)
      requires(Stream::streams)
    {
      return stream_->custom_scope(node);
    }

    // ---- observer hooks (engine/observer.hpp; called by app::step) ------------------------
    template <std::size_t I, class Slot>
    bool restore(Slot slot) {
      if (!results[I]) return false;
      using R = typename Slot::value_type;
      at_field("checkpoint " + std::to_string(parent) + " of thread '" + thread + "'",
               "pending write '" + std::string(App::node_names[I]) + "#result'",
               [&] { slot.emplace(decode_result<R>(*results[I])); });
      return true;
    }
    const std::vector<std::string>* resume_values(std::size_t node) const {
      return resumes[node].empty() ? nullptr : &resumes[node];
    }
    bool waits(std::size_t node) const {
      return !interrupts.empty() && std::any_of(interrupts.begin(), interrupts.end(),
                         [&](const interrupt_info& in) { return !in.send && App::node_names[node] == in.node; });
    }
    // The same for send task k of node I (k: its position in the node's queue of this step).
    template <std::size_t I, class R>
    bool restore_send(std::size_t k, std::optional<R>& slot) {
      const auto kept = send_results.find({I, k});
      if (kept == send_results.end()) return false;
      at_field("checkpoint " + std::to_string(parent) + " of thread '" + thread + "'",
               "pending write '" + send_key(App::node_names[I], k) + "#result'",
               [&] { slot.emplace(decode_result<R>(kept->second)); });
      return true;
    }
    const std::vector<std::string>* send_resume_values(std::size_t node, std::size_t k) const {
      const auto answers = send_resumes.find({node, k});
      return answers == send_resumes.end() || answers->second.empty() ? nullptr : &answers->second;
    }
    bool send_waits(std::size_t node, std::size_t k) const {
      return !interrupts.empty() && std::any_of(interrupts.begin(), interrupts.end(), [&](const interrupt_info& in) {
               return in.send == k && App::node_names[node] == in.node;
             });
    }
    const void* child_run(std::size_t node) const { return child_links[node]; }
    template <class Results, class Failures, class Sends>
    void step_failed(std::size_t, const position_type&, Results& results_now, const Failures& failures, Sends& sent) {
      settle();  // the writes go to the step's starting checkpoint, committed first
      pending_rows rows;
      keep_writes(results_now, failures, rows);
      keep_send_writes(sent, rows);
      record_errors(failures, sent, rows);
      self.store_->put_writes(thread, parent, rows.rows);
    }
    template <class Results, class Failures, class Sends>
    void step_paused(std::size_t, const position_type&, Results& results_now, const Failures& failures, Sends& sent) {
      settle();
      pending_rows rows;
      keep_writes(results_now, failures, rows);
      keep_send_writes(sent, rows);
      store_send_interrupts(sent, rows);
      for (std::size_t i = 0; i < A::size; ++i) {
        if (!failures[i] || waits(i)) continue;  // a waiting node's interrupt is stored already
        try {
          std::rethrow_exception(failures[i]);
        } catch (const interrupt_signal& s) {
          const std::string node(App::node_names[i]);
          if (s.in_subgraph)  // where the child stopped, in a record newer than any before
            rows.add(node + "#subgraph", paused_row[i], "__subgraph__", paused_record(stopped_at[i]));
          else
            rows.add(node + "#interrupt", static_cast<std::int32_t>(s.index), "__interrupt__", s.payload);
        } catch (...) {
        }
      }
      self.store_->put_writes(thread, parent, rows.rows);
    }
    void before_merge(const S& s) {
      if (deferred) return;  // the deferred checkpoint appends from the last one committed
      detail::for_each_index<channels>([&]<std::size_t I>() {
        if constexpr (detail::appends_only<field_type_t<S, I>>)
          sizes_before[I] = channel_traits<field_type_t<S, I>>::value(detail::field<I>(s)).size();
      });
    }
    void step_done(const S&, const position_type&, const detail::node_set<channels>& changed) {
      ++thread_step;
      finish_in_flight();
      put(checkpoint_source::loop, changed, parent, false);
    }

    // Commits what the run holds back (the deferred checkpoint of exit mode, the one in
    // flight of async mode), so `parent` is the thread's latest checkpoint.
    void settle() {
      finish_in_flight();
      if (deferred) {
        deferred = false;
        const auto m = commits;
        commits = durability::sync;
        put(deferred_source, deferred_changed, deferred_from, deferred_whole);
        commits = m;
      }
    }

   private:
    template <std::size_t I>
    using node_type = typename A::template node<I>;

    // Runs node I's child with the context of the step that runs it (bind_children).
    template <std::size_t I>
    struct child_link final : detail::durable_child<typename node_type<I>::child_app> {
      using child_app = typename node_type<I>::child_app;
      using child_state = typename child_app::state_type;
      using run_fn = child_state (*)(const runner_of&, const child_app&, child_state, void*);
      explicit child_link(const runner_of& r) : owner(r) {}
      std::string_view node() const noexcept override { return App::node_names[I]; }
      child_state run(const child_app& app, child_state start) const override {
        return with(owner, app, std::move(start), context);
      }
      template <class Ctx>
      static child_state run_with(const runner_of& r, const child_app& app, child_state start, void* context) {
        return r.template run_child<I>(app, std::move(start), *static_cast<Ctx*>(context));
      }
      const runner_of& owner;
      mutable run_fn with = nullptr;
      mutable void* context = nullptr;
    };
    // The context a step's subgraph nodes hand their children: the run's own, whatever its type.
    template <class Ctx>
    void bind_children(Ctx& context) const {
      detail::for_each_index<A::size>([&]<std::size_t I>() {
        if constexpr (detail::subgraph_node<node_type<I>>) {
          const auto* link = static_cast<const child_link<I>*>(
              static_cast<const detail::durable_child<typename node_type<I>::child_app>*>(child_links[I]));
          link->with = &child_link<I>::template run_with<Ctx>;
          link->context = const_cast<void*>(static_cast<const void*>(&context));
        }
      });
    }
    template <std::size_t I>
    std::string child_ns() const {
      return ns.empty() ? std::string(App::node_names[I]) : ns + "/" + std::string(App::node_names[I]);
    }

    // A pending interrupt, here or in a subgraph, with where its answer is written.
    struct open_interrupt {
      interrupt_info info;
      std::string thread;  // the store's thread: this run's or a subgraph's
      std::int64_t checkpoint = no_checkpoint;
    };
    std::string interrupt_id(const std::string& node, std::size_t index) const {
      return (ns.empty() ? node : ns + "/" + node) + ":" + std::to_string(index) + "@" + std::to_string(parent);
    }
    // A send task's name in pending writes and interrupt ids: its node and its position in
    // the node's queue of the step, "worker[2]" (the queue is in the step's checkpoint).
    static std::string send_key(std::string_view node, std::size_t k) {
      return std::string(node).append("[").append(std::to_string(k)).append("]");
    }
    static std::string task_key(const interrupt_info& in) { return in.send ? send_key(in.node, *in.send) : in.node; }
    // "worker[2]" -> ("worker", 2); a plain node's name -> (name, none).
    static std::pair<std::string, std::optional<std::size_t>> split_send(const std::string& task) {
      const auto open = task.rfind('[');
      if (open == std::string::npos || task.size() < open + 3 || task.back() != ']') return {task, std::nullopt};
      std::size_t k = 0;
      for (std::size_t c = open + 1; c + 1 < task.size(); ++c) {
        if (task[c] < '0' || task[c] > '9' || k > max_interrupts) return {task, std::nullopt};
        k = k * 10 + static_cast<std::size_t>(task[c] - '0');
      }
      return {task.substr(0, open), k};
    }
    // How many send tasks node `node` has in the step (its queue's length).
    std::size_t queued_sends(std::size_t node) const {
      std::size_t n = 0;
      detail::for_each_index<A::size>([&]<std::size_t I>() {
        if constexpr (!std::is_same_v<typename App::template queue_for_node<I>, detail::no_queue>)
          if (I == node) n = std::get<I>(at.sends).size();
      });
      return n;
    }
    std::string send_payload_text(std::size_t node, std::size_t k) const {
      std::string out;
      detail::for_each_index<A::size>([&]<std::size_t I>() {
        if constexpr (!std::is_same_v<typename App::template queue_for_node<I>, detail::no_queue>)
          if (I == node) out = detail::json_document(std::get<I>(at.sends)[k]).dump();
      });
      return out;
    }
    // A pending write of send task k of node i: a kept result, an interrupt, an answer.
    void load_pending_send(const std::string& where, const std::string& field, const pending_write& w, std::size_t i,
                           std::size_t k, const std::string& kind) {
      const std::size_t queued = queued_sends(i);
      if (k >= queued)
        throw corrupt(where, field, "names send task " + std::to_string(k) + " of a step that sends " +
                                        std::to_string(queued) + " to that node");
      const std::string node(App::node_names[i]);
      if (kind == "result") {
        send_results[{i, k}] = at_field(where, field, [&] { return detail::parse_or_throw(w.value, "a pending write"); });
      } else if (kind == "interrupt") {
        const auto index = static_cast<std::size_t>(w.index);
        interrupts.push_back({node, index, w.value, ns, interrupt_id(send_key(node, k), index), k, send_payload_text(i, k)});
      } else if (kind == "resume") {
        at_field(where, field, [&] { (void)detail::parse_or_throw(w.value, "a resume value"); });
        auto& r = send_resumes[{i, k}];
        if (r.size() <= static_cast<std::size_t>(w.index)) r.resize(static_cast<std::size_t>(w.index) + 1);
        r[static_cast<std::size_t>(w.index)] = w.value;
      } else {
        throw corrupt(where, field, "is of an unknown kind '" + kind + "' for a send task");
      }
    }
    static std::string id_list(const std::vector<open_interrupt>& open) {
      std::string out;
      for (const auto& o : open) out.append(out.empty() ? "" : ", ").append(o.info.id);
      return out;
    }
    // This run's pending interrupts, then those of the subgraphs paused inside, in node order.
    std::vector<open_interrupt> collect_open() const {
      std::vector<open_interrupt> out;
      for (const auto& in : interrupts) out.push_back({in, thread, parent});
      detail::for_each_index<A::size>([&]<std::size_t I>() {
        if constexpr (detail::subgraph_node<node_type<I>>) {
          if (!paused_children.test(I) || results[I]) return;
          using child_durable = durable_app<typename node_type<I>::child_app, Store, detail::mp_list<>, detail::mp_list<>>;
          child_durable d(self.app_.template node_instance<I>().child(), *self.store_);
          typename child_durable::runner r(d, root, durability::sync, nullptr, child_ns<I>());
          const auto c = self.store_->get(r.thread, paused_at[I] > 0 ? paused_at[I] : d.head_of(r.thread));
          if (!c) return;  // as in collect_paused
          r.load(*c);
          r.load_pending();
          for (auto& o : r.collect_open()) out.push_back({std::move(o.info), std::move(o.thread), o.checkpoint});
        }
      });
      return out;
    }
    // One put_writes per thread the answers go to; this run's own answers also feed its
    // nodes' next calls.
    void write_answers(const std::vector<open_interrupt>& chosen, const std::vector<std::string>& values) {
      std::vector<std::string> tasks;
      for (const auto& o : chosen) tasks.push_back(task_key(o.info) + "#resume");
      std::vector<bool> done(chosen.size(), false);
      for (std::size_t k = 0; k < chosen.size(); ++k) {
        if (done[k]) continue;
        std::vector<pending_write_put> rows;
        for (std::size_t j = k; j < chosen.size(); ++j)
          if (!done[j] && chosen[j].thread == chosen[k].thread) {
            rows.push_back({tasks[j], static_cast<std::int32_t>(chosen[j].info.index), "__resume__",
                            values.size() == 1 ? values[0] : values[j]});
            done[j] = true;
          }
        self.store_->put_writes(chosen[k].thread, chosen[k].checkpoint, rows);
      }
      for (std::size_t k = 0; k < chosen.size(); ++k) {
        if (chosen[k].thread != thread) continue;
        const auto& in = chosen[k].info;
        auto& r = in.send ? send_resumes[{node_index(in.node), *in.send}] : resumes[node_index(in.node)];
        if (r.size() <= in.index) r.resize(in.index + 1);
        r[in.index] = values.size() == 1 ? values[0] : values[k];
        std::erase_if(interrupts, [&](const interrupt_info& i) { return i.id == in.id; });
      }
    }

    static constexpr typename A::set make_set(detail::mp_list<>*) { return {}; }
    template <class... N>
    static constexpr typename A::set make_set(detail::mp_list<N...>*) {
      typename A::set s{};
      ((A::template index<N>::value != detail::none ? s.set(A::template index<N>::value) : void()), ...);
      return s;
    }
    static constexpr typename A::set before_set = make_set(static_cast<Before*>(nullptr));
    static constexpr typename A::set after_set = make_set(static_cast<After*>(nullptr));

    static detail::node_set<channels> all_channels() {
      detail::node_set<channels> all{};
      for (std::size_t i = 0; i < channels; ++i) all.set(i);
      return all;
    }

    std::size_t node_index(std::string_view name) const {
      for (std::size_t i = 0; i < A::size; ++i)
        if (App::node_names[i] == name) return i;
      throw checkpoint_error("stategraph: checkpoint of thread '" + thread + "' names node '" + std::string(name) +
                             "', which this graph does not have");
    }
    // Corrupt stored data, named by where it is (checkpoint and thread) and which field.
    static checkpoint_error corrupt(const std::string& where, const std::string& field, const std::string& why) {
      return checkpoint_error("stategraph: " + where + ", " + field + ": " + why + "; nothing was loaded");
    }
    // Runs `f`; a checkpoint_error it throws is thrown again with where and which field.
    template <class F>
    static decltype(auto) at_field(const std::string& where, const std::string& field, F&& f) {
      try {
        return f();
      } catch (const checkpoint_error& e) {
        std::string_view what = e.what();
        if (what.starts_with("stategraph: ")) what.remove_prefix(12);
        throw checkpoint_error("stategraph: " + where + ", " + field + ": " + std::string(what));
      }
    }
    static std::pair<std::string, std::string> split_task(const std::string& task) {
      auto hash = task.rfind('#');
      if (hash == std::string::npos) return {task, ""};
      return {task.substr(0, hash), task.substr(hash + 1)};
    }

    // The stored schema list is in the thread's first checkpoint (format 1: in every one).
    std::string schema_difference(const stored_checkpoint& c, const nlohmann::json& meta) const {
      std::string msg = "stategraph: thread '" + thread + "' was checkpointed with another schema; channels that differ:";
      nlohmann::json listed = meta.is_object() && meta.contains("schema") ? meta["schema"] : nlohmann::json();
      if (listed.is_null())
        for (const auto& info : self.store_->list(thread, {})) {
          if (info.schema_hash != c.schema_hash) continue;
          auto m = detail::parse_stored(info.metadata);
          if (m.is_object() && m.contains("schema")) listed = m["schema"];
        }
      std::vector<std::pair<std::string, std::string>> theirs;
      if (listed.is_array())
        for (const auto& f : listed)
          if (f.is_array() && f.size() == 2 && f[0].is_string() && f[1].is_string())
            theirs.emplace_back(f[0].template get<std::string>(), f[1].template get<std::string>());
      auto ours = detail::schema_fields<S>();
      for (const auto& field : ours) {
        auto it = std::find_if(theirs.begin(), theirs.end(), [&](const auto& t) { return t.first == field.first; });
        // append(), not operator+: GCC 12 warns falsely (-Wrestrict) on the temporaries.
        if (it == theirs.end()) msg.append(" ").append(field.first).append(" (new)");
        else if (it->second != field.second)
          msg.append(" ").append(field.first).append(" (").append(it->second).append(" -> ").append(field.second).append(")");
      }
      for (const auto& field : theirs)
        if (std::none_of(ours.begin(), ours.end(), [&](const auto& o) { return o.first == field.first; }))
          msg.append(" ").append(field.first).append(" (removed)");
      return msg + "; nothing was loaded";
    }

    template <class R>
    static nlohmann::json encode_result(const R& r) {
      nlohmann::json j;
      if constexpr (requires { r.skipped; })
        if (r.skipped) return nlohmann::json{{"skipped", true}};  // its optional seam was missing
      j["update"] = detail::encode_patch(r.update);
      if constexpr (!std::is_same_v<std::remove_cvref_t<decltype(r.next)>, detail::absent_part>)
        j["next"] = r.next ? nlohmann::json(detail::encode_go(*r.next)) : nlohmann::json(nullptr);
      if constexpr (R::sends_work) {
        nlohmann::json sends = nlohmann::json::array();
        if constexpr (requires { r.sends.payload; }) sends.push_back(detail::json_document(r.sends.payload));
        else
          for (const auto& s : r.sends) sends.push_back(detail::json_document(s.payload));
        j["sends"] = std::move(sends);
      }
      return j;
    }
    template <class R>
    static R decode_result(const nlohmann::json& j) {
      try {
        return decode_result_unchecked<R>(j);
      } catch (const nlohmann::json::exception& e) {
        throw checkpoint_error(std::string("stategraph: a pending write does not decode: ") + e.what());
      }
    }
    template <class R>
    static R decode_result_unchecked(const nlohmann::json& j) {
      R r{};
      if constexpr (requires { r.skipped; })
        if (j.contains("skipped")) {
          r.skipped = true;
          return r;
        }
      r.update = detail::decode_patch_as<typename R::patch_type>(j.at("update"));
      if constexpr (!std::is_same_v<decltype(r.next), detail::absent_part>)
        if (!j.at("next").is_null())
          r.next = detail::decode_go(j.at("next"), static_cast<typename R::go_type*>(nullptr));
      if constexpr (R::sends_work) {
        using sends_t = decltype(r.sends);
        if constexpr (requires { r.sends.payload; }) {
          r.sends.payload = detail::decode_value<decltype(r.sends.payload)>(j.at("sends").at(0), "a pending send");
        } else {
          for (const auto& p : j.at("sends"))
            r.sends.push_back({detail::decode_value<decltype(typename sends_t::value_type{}.payload)>(p, "a pending send")});
        }
      }
      return r;
    }

    // The rows of one put_writes and the text they point into (a deque: adding keeps the
    // earlier texts where they are).
    struct pending_rows {
      std::deque<std::string> text;
      std::vector<pending_write_put> rows;
      void add(std::string task, std::int32_t index, std::string_view channel, std::string value) {
        const std::string& t = text.emplace_back(std::move(task));
        const std::string& v = text.emplace_back(std::move(value));
        rows.push_back({t, index, channel, v});
      }
    };

    template <class Results, class Failures>
    void keep_writes(Results& results_now, const Failures& failures, pending_rows& rows) {
      detail::for_each_index<A::size>([&]<std::size_t I>() {
        if constexpr (requires { detail::slot_at<I>(results_now).has_value(); })
          if (!failures[I] && detail::slot_at<I>(results_now) && !results[I])
            rows.add(std::string(App::node_names[I]) + "#result", 0, "__result__",
                     encode_result(*detail::slot_at<I>(results_now)).dump());
      });
    }
    // The results of the send tasks that succeeded in a failed or paused step, kept as
    // pending writes of their tasks ("worker[2]#result"): they are not run again.
    template <class Sends>
    void keep_send_writes(Sends& sent, pending_rows& rows) {
      if constexpr (detail::send_plan<A>::any) {
        detail::for_each_index<A::size>([&]<std::size_t I>() {
          if constexpr (!std::is_same_v<typename App::template queue_for_node<I>, detail::no_queue>) {
            const auto& slots = detail::slot_at<I>(sent);
            for (std::size_t k = 0; k < slots.size(); ++k)
              if (slots[k].result && !slots[k].failure && !send_results.contains({I, k}))
                rows.add(send_key(App::node_names[I], k) + "#result", 0, "__result__",
                         encode_result(*slots[k].result).dump());
          }
        });
      }
    }
    // The interrupts of send tasks in a paused step, one pending write each ("worker[2]#interrupt").
    template <class Sends>
    void store_send_interrupts(Sends& sent, pending_rows& rows) {
      if constexpr (detail::send_plan<A>::any) {
        detail::for_each_index<A::size>([&]<std::size_t I>() {
          if constexpr (!std::is_same_v<typename App::template queue_for_node<I>, detail::no_queue>) {
            const auto& slots = detail::slot_at<I>(sent);
            for (std::size_t k = 0; k < slots.size(); ++k) {
              if (!slots[k].failure || send_waits(I, k)) continue;  // a waiting task's interrupt is stored already
              try {
                std::rethrow_exception(slots[k].failure);
              } catch (const interrupt_signal& sig) {
                rows.add(send_key(App::node_names[I], k) + "#interrupt", static_cast<std::int32_t>(sig.index),
                         "__interrupt__", sig.payload);
              } catch (...) {
              }
            }
          }
        });
      }
    }

    // What each task of a failed step threw, one "__error__" row per task ("b#error",
    // "worker[2]#error"), so readers can say why. Its index counts the failed runs of the step
    // from this checkpoint: each attempt keeps its own row (the first write of a row wins).
    template <class Failures, class Sends>
    void record_errors(const Failures& failures, Sends& sent, pending_rows& rows) {
      std::vector<std::pair<std::string, std::exception_ptr>> failed;
      for (std::size_t i = 0; i < A::size; ++i)
        if (failures[i] && !detail::is_interrupt(failures[i])) failed.emplace_back(std::string(App::node_names[i]), failures[i]);
      if constexpr (detail::send_plan<A>::any) {
        detail::for_each_index<A::size>([&]<std::size_t I>() {
          if constexpr (!std::is_same_v<typename App::template queue_for_node<I>, detail::no_queue>) {
            const auto& slots = detail::slot_at<I>(sent);
            for (std::size_t k = 0; k < slots.size(); ++k)
              if (slots[k].failure && !detail::is_interrupt(slots[k].failure))
                failed.emplace_back(send_key(App::node_names[I], k), slots[k].failure);
          }
        });
      }
      if (failed.empty()) return;
      // Attempts before this one: the rows already there (read on this failure path only).
      std::map<std::string, std::int32_t, std::less<>> earlier;
      for (const auto& w : self.store_->pending_writes(thread, parent))
        if (w.channel == "__error__") {
          auto& next = earlier[w.task];
          next = std::max(next, w.index + 1);
        }
      for (auto& [task, cause] : failed) {
        std::string key = task + "#error";
        const auto before = earlier.find(key);
        rows.add(std::move(key), before == earlier.end() ? 0 : std::min(before->second, max_interrupts),
                 "__error__", detail::error_record(cause));
      }
    }
    // A "#error" row read back: the task's newest attempt, and how many there were.
    void note_error(const std::string& node, std::optional<std::size_t> send, const nlohmann::json& record) {
      auto [message, type] = detail::read_error_record(record);
      auto it = std::find_if(errors.begin(), errors.end(), [&](const task_error& e) { return e.node == node && e.send == send; });
      if (it == errors.end()) {
        errors.push_back({node, std::move(message), std::move(type), ns, send, 1});
        return;
      }
      ++it->attempts;  // rows come in (task, index) order: a later one is a newer attempt
      it->message = std::move(message);
      it->type = std::move(type);
    }

    std::int64_t put(checkpoint_source source, const detail::node_set<channels>& changed, std::int64_t from, bool whole) {
      if (commits == durability::exit) {  // one checkpoint for the run, from where it started
        if (!deferred) {
          deferred = true;
          deferred_source = source;
          deferred_from = from;
          deferred_whole = whole;
          deferred_changed = changed;
        } else {
          deferred_whole = deferred_whole || whole;
          deferred_changed |= changed;
        }
        return parent;
      }
      if (from == no_checkpoint) record_graph();
      // Async: two writers take turns, one encoding while the other's checkpoint commits.
      auto& w = commits == durability::async && last_writer == &this->writer ? spare : this->writer;
      w.encode_channels(state, changed, whole, versions, sizes_before, max_version + 1, chains,
                        self.options_.snapshot_every, ends_run(), joined);
      if (whole || changed.any()) ++max_version;
      w.encode_position(at, max_version, from == no_checkpoint);  // the schema list: a thread's first only
      last_writer = &w;
      checkpoint_put cp;
      cp.thread = thread;
      cp.parent = from;
      cp.step = thread_step;
      cp.source = source;
      cp.format_version = checkpoint_format_version;
      cp.schema_hash = detail::schema_hash_text<S>();
      cp.metadata = w.metadata;
      cp.channels = w.rows;
      // A fork starts a branch from a checkpoint chosen on purpose; everything else continues
      // the head this run read, and the store refuses it (conflict_error) if another writer moved it.
      cp.mode = source == checkpoint_source::fork ? put_mode::fork : put_mode::continue_head;
      if (commits == durability::async) {
        job.put = cp;
        self.commit_worker().submit(job);
        in_flight = true;
        return no_checkpoint;  // known when finish_in_flight has waited for it
      }
      parent = self.store_->put(cp);
      has_parent = true;
      if constexpr (streams) {
        if (has_mode(mode, stream_mode::checkpoints)) {
          checkpoint_event e{parent, from, thread_step, to_string(source), {}};
          const auto next = scheduled();
          for (std::size_t i = 0; i < A::size; ++i)
            if (next.test(i)) e.next.push_back(App::node_names[i]);
          stream_->checkpoint(at.step, std::move(e));
        }
      }
      return parent;
    }

    // A thread's first checkpoint: the store learns which graph runs it (once per graph).
    void record_graph() const {
      if constexpr (graph_recording_store<Store>) {
        const auto& g = detail::graph_record_of<A>();
        self.store_->put_graph(thread, g.key, g.text);
      }
    }

    // Whether the checkpoint being put is the run's last: nothing left to run, or a static
    // interrupt stops the run here.
    bool ends_run() const {
      return !at.any() || scheduled().intersects(before_set) || (last_ran.intersects(after_set) && at.any());
    }

    void finish_in_flight() {
      if (!in_flight) return;
      self.async_->worker->wait(job);
      in_flight = false;
      if (job.error) std::rethrow_exception(job.error);
      parent = job.id;
      has_parent = true;
    }

    const durable_app& self;
    std::string thread;  // the store's thread: the run's own, or a subgraph's (subgraph_thread)
    std::string root;    // the run's thread, as the caller named it
    std::string ns;      // the subgraph's path; empty for the app's own run
    std::array<std::int64_t, channels> versions{};
    std::array<std::size_t, channels> sizes_before{};
    std::int64_t max_version = 0;
    std::int64_t parent = no_checkpoint;
    std::int64_t thread_step = 0;
    bool has_parent = false;
    std::array<std::optional<nlohmann::json>, A::size> results{};   // kept writes to replay
    std::array<std::vector<std::string>, A::size> resumes{};         // answers to interrupts
    // The same for send tasks, by (node, position in its queue of the step)
    std::map<std::pair<std::size_t, std::size_t>, nlohmann::json> send_results;
    std::map<std::pair<std::size_t, std::size_t>, std::vector<std::string>> send_resumes;
    std::vector<interrupt_info> interrupts;
    std::vector<task_error> errors;  // the failures recorded against the loaded checkpoint
    typename A::set paused_children{};  // subgraph nodes paused inside in this step's last attempt
    std::array<std::int64_t, A::size> paused_at{};   // the child checkpoint each one's record names (0: latest)
    std::array<std::int32_t, A::size> paused_row{};  // the index of a newer record
    mutable std::array<std::int64_t, A::size> stopped_at{};  // where each child's run of this step stopped
    std::array<const void*, A::size> child_links{};  // runner::child_run
    std::vector<std::shared_ptr<const void>> owned_links;
    const run_config* config_now = nullptr;
    detail::checkpoint_writer<App> writer;  // its buffers are reused by every checkpoint of the run
    std::array<detail::append_chain, channels> chains{};
    std::array<std::string, channels> joined{};  // writer.hpp: texts of values this run wrote whole
    durability commits;  // when checkpoints are committed (run_config::durability)
    const detail::checkpoint_writer<App>* last_writer = nullptr;  // of the last checkpoint put
    // async: the second writer, and the checkpoint being committed while the next step runs
    detail::checkpoint_writer<App> spare;
    detail::put_job job;
    bool in_flight = false;
    typename A::set last_ran{};  // the nodes of the step being run
    // exit: the one checkpoint the run will put, grown by each step
    bool deferred = false, deferred_whole = false;
    checkpoint_source deferred_source = checkpoint_source::loop;
    std::int64_t deferred_from = no_checkpoint;
    detail::node_set<channels> deferred_changed{};
  };

  App app_;
  Store* store_;
  checkpoint_options options_;
  std::shared_ptr<detail::head_cache<thread_head>> heads_;
  std::shared_ptr<async_commits> async_;
  std::shared_ptr<detail::running_threads> running_ = std::make_shared<detail::running_threads>();
};

// What sg::compile returns for a graph given a store (the seam run_options.hpp declares).
template <class App, class Store, class Before, class After>
struct app_with_store {
  using type = durable_app<App, Store, Before, After>;
};

}  // namespace stategraph
