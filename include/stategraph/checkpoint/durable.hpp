// Checkpointed runs: what sg::compile returns when given sg::with_store(store). After the
// input and after every superstep it puts a checkpoint that holds only the channels the
// step changed; it resumes after a crash, a failure or an interrupt, lists history, edits
// state and forks from past checkpoints (semantics.md, "Checkpoints").
#pragma once

#include <stategraph/checkpoint/json.hpp>
#include <stategraph/checkpoint/long_threads.hpp>
#include <stategraph/checkpoint/writer.hpp>
#include <stategraph/run.hpp>
#include <stategraph/store/store.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
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
  bool failed = false;                     // the step after this checkpoint failed
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
  throw interrupt_signal{nlohmann::json(payload).dump(), k};
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
}  // namespace detail

template <class App, class Store, class Before, class After>
class durable_app {
 public:
  using state_type = typename App::state_type;
  using analysis_type = typename App::analysis_type;
  using position_type = typename App::position_type;
  using store_type = Store;

  durable_app(App app, Store& store, checkpoint_options options = {})
      : app_(std::move(app)),
        store_(&store),
        options_(options),
        heads_(std::make_shared<detail::head_cache<thread_head>>(options.cached_threads)),
        async_(std::make_shared<async_commits>()) {}

  // Every channel has a JSON codec (SG013); sg::compile checks it before building the app.
  static constexpr bool codecs_ok = detail::check_codecs<state_type>();

  // A run without a thread: nothing is stored.
  state_type invoke(state_type input, const run_config& config = {}) const { return app_.invoke(std::move(input), config); }

  // Applies `input` through the reducers onto the thread's latest state (a new state for a
  // new thread) and runs from start, checkpointing after the input and every step.
  state_type invoke(state_type input, const thread_id& thread, const run_config& config = {}) const {
    run_context ctx;
    return invoke(std::move(input), thread, ctx, config);
  }
  template <class Ctx>
    requires(!std::is_same_v<std::remove_const_t<Ctx>, run_config>)
  state_type invoke(state_type input, const thread_id& thread, Ctx& context, const run_config& config = {}) const {
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
    runner r(*this, thread.value, config.durability);
    r.load(fetch(thread, from));
    r.apply_input(std::move(input), checkpoint_source::fork, from.value);
    run_context ctx;
    return r.run(ctx, config, false);
  }

  // Continues the thread's latest checkpoint: after a crash, a failed step, or a static
  // interrupt. Nodes whose writes survived a failed step are not run again.
  state_type resume(const thread_id& thread, const run_config& config = {}) const {
    run_context ctx;
    return resume_with(thread, ctx, config);
  }
  template <class Ctx>
    requires(!std::is_same_v<std::remove_const_t<Ctx>, run_config>)
  state_type resume_with(const thread_id& thread, Ctx& context, const run_config& config = {}) const {
    runner r(*this, thread.value, config.durability);
    r.load(fetch_latest(thread));
    r.load_pending();
    if (!r.has_work())
      throw checkpoint_error("stategraph: thread '" + thread.value +
                             "' has nothing to resume (its run is over); nothing was changed");
    return r.run(context, config, true);
  }
  // Continues from an older checkpoint's next nodes, as a new branch of history.
  state_type resume(const thread_id& thread, checkpoint_id from, const run_config& config = {}) const {
    runner r(*this, thread.value, config.durability);
    r.load(fetch(thread, from));
    r.fork_here(from.value);
    run_context ctx;
    return r.run(ctx, config, true);
  }
  // Answers the pending interrupt(s): each interrupted node runs again and its
  // sg::interrupt call returns `value`.
  template <class V>
  state_type resume(const thread_id& thread, const V& value, const run_config& config = {}) const {
    runner r(*this, thread.value, config.durability);
    r.load(fetch_latest(thread));
    r.load_pending();
    r.answer_interrupts(nlohmann::json(value).dump());
    run_context ctx;
    return r.run(ctx, config, true);
  }

  std::optional<snapshot<state_type>> get_state(const thread_id& thread) const {
    auto latest = store_->get(thread.value);
    if (!latest) return std::nullopt;
    return read_snapshot(thread, *latest);
  }
  snapshot<state_type> get_state(const thread_id& thread, checkpoint_id id) const {
    return read_snapshot(thread, fetch(thread, id));
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
    static_assert(detail::update_fits<Node, patch<E...>>(), "stategraph: see the rule above");
    runner r(*this, thread.value);
    r.load(fetch_latest(thread));
    return r.update(std::move(update), analysis_type::template index<Node>::value);
  }

  bool delete_thread(const thread_id& thread) {
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

  snapshot<S> read_snapshot(const thread_id& thread, const stored_checkpoint& c) const {
    runner r(*this, thread.value);
    r.load(c);
    r.load_pending();
    snapshot<S> s;
    s.values = r.state;
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
    s.failed = r.has_failed_writes() && s.interrupts.empty();  // kept writes of a pause are no failure
    return s;
  }

  // One run's bookkeeping: the state, where the run stands, each channel's version, and
  // the observer hooks the app's step calls.
  class runner {
   public:
    static constexpr bool streams = false;
    static constexpr bool persists = true;

    runner(const durable_app& owner, std::string thread, durability mode = durability::sync)
        : self(owner), thread(std::move(thread)), mode(mode) {
      if (self.options_.cached_threads != 0) writer.run_tag = spare.run_tag = detail::new_run_tag();
    }
    runner(const runner&) = delete;
    runner& operator=(const runner&) = delete;
    ~runner() {
      if (in_flight) self.async_->worker->wait(job);  // the job points into this runner
    }

    S state{};
    position_type at{};

    // ---- loading ---------------------------------------------------------------------
    void load(const stored_checkpoint& c) {
      if (c.format_version < oldest_checkpoint_format_version || c.format_version > checkpoint_format_version)
        throw checkpoint_error("stategraph: checkpoint " + std::to_string(c.id) + " of thread '" + thread +
                               "' has format version " + std::to_string(c.format_version) + ", this build reads " +
                               std::to_string(oldest_checkpoint_format_version) + " to " +
                               std::to_string(checkpoint_format_version));
      auto meta = detail::parse_or_throw(c.metadata, "the checkpoint metadata");
      if (c.schema_hash != detail::schema_hash_text<S>()) throw checkpoint_error(schema_difference(c, meta));
      S loaded{};
      std::array<std::int64_t, channels> loaded_versions{};
      std::array<bool, channels> found{};
      std::array<detail::append_chain, channels> loaded_chains{};
      for (const auto& ch : c.channels) {
        detail::for_each_index<channels>([&]<std::size_t I>() {
          if (ch.channel != channel_name_at<S, I>()) return;
          detail::decode_channel<S, I>(loaded, ch.value, ch.appends);
          loaded_versions[I] = ch.version;
          found[I] = true;
          auto& chain = loaded_chains[I];
          chain = {ch.appends.size(), 0, ch.value.size()};
          for (const auto& piece : ch.appends) chain.piece_bytes += piece.size();
        });
      }
      for (std::size_t i = 0; i < channels; ++i)
        if (!found[i])
          throw checkpoint_error("stategraph: checkpoint " + std::to_string(c.id) + " of thread '" + thread +
                                 "' lacks channel '" + std::string(channel_names<S>()[i]) + "'");
      position_type pos{};
      detail::read_position<App>(
          meta, pos, max_version, [&](std::string_view name) { return node_index(name); },
          "checkpoint " + std::to_string(c.id) + " of thread '" + thread + "'");
      thread_step = c.step;
      state = std::move(loaded);
      versions = loaded_versions;
      chains = loaded_chains;
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
      for (auto& w : self.store_->pending_writes(thread, parent)) {
        auto [node, kind] = split_task(w.task);
        std::size_t i = node_index(node);
        if (w.index < 0 || w.index > max_interrupts)
          throw checkpoint_error("stategraph: a pending write of thread '" + thread + "' has index " +
                                 std::to_string(w.index) + ", out of range; nothing was loaded");
        if (kind == "result") {
          results[i] = detail::parse_or_throw(w.value, "a pending write");
        } else if (kind == "interrupt") {
          interrupts.push_back({node, static_cast<std::size_t>(w.index), w.value});
        } else if (kind == "resume") {
          auto& r = resumes[i];
          if (r.size() <= static_cast<std::size_t>(w.index)) r.resize(static_cast<std::size_t>(w.index) + 1);
          r[static_cast<std::size_t>(w.index)] = w.value;
        }
      }
      // An interrupt already answered is no longer open.
      std::erase_if(interrupts, [&](const interrupt_info& in) { return in.index < resumes[node_index(in.node)].size(); });
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
    bool has_work() const { return at.any() || has_failed_writes(); }

    std::vector<interrupt_info> open_interrupts() const { return interrupts; }
    bool has_failed_writes() const {
      return std::any_of(results.begin(), results.end(), [](const auto& r) { return r.has_value(); });
    }

    void answer_interrupts(const std::string& value) {
      if (interrupts.empty())
        throw checkpoint_error("stategraph: thread '" + thread + "' has no pending interrupt to resume; nothing was changed");
      std::vector<pending_write_put> rows;
      std::vector<std::string> tasks;
      tasks.reserve(interrupts.size());
      for (const auto& in : interrupts) {
        auto& r = resumes[node_index(in.node)];
        if (r.size() <= in.index) r.resize(in.index + 1);
        r[in.index] = value;
        tasks.push_back(in.node + "#resume");
      }
      for (std::size_t k = 0; k < interrupts.size(); ++k)
        rows.push_back({tasks[k], static_cast<std::int32_t>(interrupts[k].index), "__resume__", value});
      self.store_->put_writes(thread, parent, rows);
      interrupts.clear();
    }

    void fork_here(std::int64_t from) {
      ++thread_step;
      put(checkpoint_source::fork, all_channels(), from, true);
    }

    // ---- input and updates -------------------------------------------------------------
    void apply_input(S&& input, checkpoint_source source, std::int64_t from) {
      if (has_parent) ++thread_step;
      auto touched = detail::input_touches(input);
      before_merge(state);
      at = position_type{self.app_.first_frontier(state, std::move(input)), {}, 0, {}};
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
    template <class Ctx>
    S run(Ctx& context, const run_config& config, bool resuming) {
      if constexpr (!rules::check_all<typename App::graph_type, A, Ctx>()) {
        return state;  // the rule has printed its diagnostic
      } else {
      bool skip_before = resuming;
      try {
        while (at.any()) {
          if (!skip_before && scheduled().intersects(before_set)) break;
          skip_before = false;
          auto ran = scheduled();
          last_ran = ran;
          try {
            self.app_.step(state, at, context, config, *this);
          } catch (const detail::paused_step&) {
            break;
          }
          results = {};
          resumes = {};
          if (ran.intersects(after_set) && at.any()) break;
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

    // ---- observer hooks (engine/observer.hpp; called by app::step) ------------------------
    template <std::size_t I, class Slot>
    bool restore(Slot& slot) {
      if (!results[I]) return false;
      using R = typename Slot::value_type;
      slot.emplace(decode_result<R>(*results[I]));
      return true;
    }
    const std::vector<std::string>* resume_values(std::size_t node) const {
      return resumes[node].empty() ? nullptr : &resumes[node];
    }
    template <class Results, class Failures>
    void step_failed(std::size_t, const position_type&, Results& results_now, const Failures& failures) {
      keep_writes(results_now, failures);
    }
    template <class Results, class Failures>
    void step_paused(std::size_t, const position_type&, Results& results_now, const Failures& failures) {
      keep_writes(results_now, failures);
      std::vector<pending_write_put> rows;
      std::vector<std::string> tasks;
      std::vector<interrupt_signal> signals;
      for (std::size_t i = 0; i < A::size; ++i) {
        if (!failures[i]) continue;
        try {
          std::rethrow_exception(failures[i]);
        } catch (const interrupt_signal& s) {
          signals.push_back(s);
          tasks.push_back(std::string(App::node_names[i]) + "#interrupt");
        } catch (...) {
        }
      }
      for (std::size_t k = 0; k < signals.size(); ++k)
        rows.push_back({tasks[k], static_cast<std::int32_t>(signals[k].index), "__interrupt__", signals[k].payload});
      self.store_->put_writes(thread, parent, rows);
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
        const auto m = mode;
        mode = durability::sync;
        put(deferred_source, deferred_changed, deferred_from, deferred_whole);
        mode = m;
      }
    }

   private:
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
          auto m = nlohmann::json::parse(info.metadata, nullptr, false);
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
      j["update"] = detail::encode_patch(r.update);
      if constexpr (!std::is_same_v<std::remove_cvref_t<decltype(r.next)>, detail::absent_part>)
        j["next"] = r.next ? nlohmann::json(detail::encode_go(*r.next)) : nlohmann::json(nullptr);
      if constexpr (R::sends_work) {
        nlohmann::json sends = nlohmann::json::array();
        if constexpr (requires { r.sends.payload; }) sends.push_back(r.sends.payload);
        else
          for (const auto& s : r.sends) sends.push_back(s.payload);
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

    template <class Results, class Failures>
    void keep_writes(Results& results_now, const Failures& failures) {
      settle();
      std::vector<std::string> tasks, values;
      detail::for_each_index<A::size>([&]<std::size_t I>() {
        if constexpr (requires { detail::slot_at<I>(results_now).has_value(); })
          if (!failures[I] && detail::slot_at<I>(results_now) && !results[I]) {
            tasks.push_back(std::string(App::node_names[I]) + "#result");
            values.push_back(encode_result(*detail::slot_at<I>(results_now)).dump());
          }
      });
      std::vector<pending_write_put> rows;
      for (std::size_t k = 0; k < tasks.size(); ++k) rows.push_back({tasks[k], 0, "__result__", values[k]});
      if (!rows.empty()) self.store_->put_writes(thread, parent, rows);
    }

    std::int64_t put(checkpoint_source source, const detail::node_set<channels>& changed, std::int64_t from, bool whole) {
      if (mode == durability::exit) {  // one checkpoint for the run, from where it started
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
      // Async: two writers take turns, one encoding while the other's checkpoint commits.
      auto& w = mode == durability::async && last_writer == &this->writer ? spare : this->writer;
      w.encode_channels(state, changed, whole, versions, sizes_before, max_version + 1, chains,
                        self.options_.snapshot_every, ends_run());
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
      if (mode == durability::async) {
        job.put = cp;
        self.commit_worker().submit(job);
        in_flight = true;
        return no_checkpoint;  // known when finish_in_flight has waited for it
      }
      parent = self.store_->put(cp);
      has_parent = true;
      return parent;
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
    std::string thread;
    std::array<std::int64_t, channels> versions{};
    std::array<std::size_t, channels> sizes_before{};
    std::int64_t max_version = 0;
    std::int64_t parent = no_checkpoint;
    std::int64_t thread_step = 0;
    bool has_parent = false;
    std::array<std::optional<nlohmann::json>, A::size> results{};   // kept writes to replay
    std::array<std::vector<std::string>, A::size> resumes{};         // answers to interrupts
    std::vector<interrupt_info> interrupts;
    detail::checkpoint_writer<App> writer;  // its buffers are reused by every checkpoint of the run
    std::array<detail::append_chain, channels> chains{};
    durability mode;
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
};

// What sg::compile returns for a graph given a store (the seam run_options.hpp declares).
template <class App, class Store, class Before, class After>
struct app_with_store {
  using type = durable_app<App, Store, Before, After>;
};

}  // namespace stategraph
