// The app's runs on the frontier (part of app.hpp, which includes it at its end): steps of
// one node (run_alone, and chain links for graphs that only ever run one node at a time)
// and the general superstep (run_tasks, run_step).
#pragma once

#include <stategraph/app.hpp>

#include <array>
#include <cstddef>
#include <exception>
#include <utility>
#include <vector>

namespace stategraph {

template <class G, class A, class Executor>
template <class Ctx>
void app<G, A, Executor>::run_frontier(state_type& state, position_type& at, Ctx& context,
                                       const run_config& config) const {
  if constexpr (alone_path && one_at_a_time) {
    // Only steps of one node: the frontier is one index, and the general step is not even
    // compiled for this run.
    std::size_t current = detail::only_member(at.active);
    if (current == detail::none && at.active.any())
      throw error("stategraph: internal error: several nodes start a graph that runs one at a time");
    std::size_t step = at.step;
    const std::size_t limit = config.recursion_limit;
    while (current != detail::none) {
      if (step >= limit) over_limit(config, step, just(current));
      ++step;
      current = run_chain_link(current, state, at.arrived, context, config, step);
    }
    at.active = typename A::set{};
    at.step = step;
  } else {
    detail::quiet q;
    for (;;) {
      if constexpr (alone_path) {
        const std::size_t only = detail::only_member(at.active);
        if (only != detail::none && !pending_sends(at) && run_alone(only, state, at, context, config)) continue;
      }
      if (!run_step(state, at, context, config, q)) return;
    }
  }
}

template <class G, class A, class Executor>
template <class Ctx>
bool app<G, A, Executor>::run_alone(std::size_t i, state_type& state, position_type& at, Ctx& context,
                                    const run_config& config) const {
  if (!has_plain_call<Ctx>[i]) return false;
  if (at.step >= config.recursion_limit) over_limit(config, at.step, at.active);
  // The node's call is detail::node_task's (one function per node serves both kinds of step); its
  // result is built here, on the stack, rather than in a frame with a slot per node.
  alignas(alone_result<Ctx>.align) std::byte result[alone_result<Ctx>.size];
  // The node's failure is wrapped here, once, rather than in each node's function: a
  // handler per node cost GCC 12 about 5 s of code generation on dag_200 (findings.md).
  // What fails after the call (the merge, a router) propagates unwrapped, as before.
  try {
    task_table<Ctx>[i](node_at(i), state, context, config, nullptr, result);
  } catch (const interrupt_signal&) {
    throw error(detail::no_store_for_interrupt);
  } catch (...) {
    detail::fail_node(node_names[i], at.step + 1, std::current_exception());
  }
  finish_table<Ctx>[i](*this, i, result, state, at);
  return true;
}

// The barrier, for a step of one node: merge, then what runs next. Keyed by the result's
// type, not the node (nodes that write the same channels share it); destroys the result.
template <class G, class A, class Executor>
template <class Result>
void app<G, A, Executor>::finish_alone(const app& self, std::size_t i, void* result, state_type& state,
                                       position_type& at) {
  Result& r = *std::launder(static_cast<Result*>(result));
  struct destroy {
    Result& r;
    ~destroy() { r.~Result(); }
  } destroy_after{r};
  [[maybe_unused]] detail::node_set<channel_count<state_type>> changed{};
  if constexpr (detail::has_ephemeral<state_type>) detail::clear_ephemeral(state);
  if constexpr (A::reactive)
    detail::apply_patch(state, std::move(r.update), &changed);
  else
    detail::apply_patch(state, std::move(r.update), nullptr);
  typename A::set next = next_after(i, at.arrived);
  if constexpr (A::reactive) next |= A::woken_by(changed);
  if constexpr (!std::is_same_v<decltype(r.next), detail::absent_part>)
    if (r.next) add_targets(next, *r.next);
  // No sends were queued (the caller checked), so this step's sends are the next queues.
  if constexpr (has_sends) collect_sends(at.sends, r);
  self.route_alone(i, state, next, at.sends);
  at.active = next;
  at.step += 1;
}

template <class G, class A, class Executor>
template <class Ctx>
inline std::size_t app<G, A, Executor>::run_chain_link(std::size_t i, state_type& state, arrivals& arrived,
                                                       Ctx& context, const run_config& config,
                                                       std::size_t step_no) const {
  return chain_links_from<0>(i, state, arrived, context, config, step_no);
}

// detail::fold_chunk nodes from From on (Clang caps a fold expression at 256 operands), then
// the rest.
template <class G, class A, class Executor>
template <std::size_t From, class Ctx>
inline std::size_t app<G, A, Executor>::chain_links_from(std::size_t i, state_type& state, arrivals& arrived,
                                                         Ctx& context, const run_config& config,
                                                         std::size_t step_no) const {
  constexpr std::size_t count = A::size - From < detail::fold_chunk ? A::size - From : detail::fold_chunk;
  if constexpr (From + count < A::size)
    if (i >= From + count) return chain_links_from<From + count>(i, state, arrived, context, config, step_no);
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    std::size_t next = detail::none;
    (void)((i == From + I && (next = chain_link_at<From + I>(state, arrived, context, config, step_no), true)) || ...);
    return next;
  }
  (std::make_index_sequence<count>{});
}

template <class G, class A, class Executor>
template <std::size_t I, class Ctx>
inline std::size_t app<G, A, Executor>::chain_link_at(state_type& state, arrivals& arrived, Ctx& context,
                                                      const run_config& config, std::size_t step_no) const {
  // At most one of what follows names a node (one_at_a_time): keep the one that does.
  std::size_t next = detail::none;
  auto take = [&](std::size_t t) {
    if (t != detail::none) next = t;
  };
  if constexpr (plain_t<I, Ctx>::value) {  // a node without a plain call is skipped, as run_step does
    auto r = detail::attempt_call(detail::slot_at<I>(nodes_), state, context, config, step_no);
    if constexpr (detail::has_ephemeral<state_type>) detail::clear_ephemeral(state);
    detail::apply_patch(state, std::move(r.update), nullptr);
    if constexpr (!std::is_same_v<decltype(r.next), detail::absent_part>)
      if (r.next) take(first_target(*r.next));
  } else if constexpr (detail::has_ephemeral<state_type>) {
    detail::clear_ephemeral(state);
  }
  if constexpr (A::table.successors[I].any()) take(detail::only_member(A::table.successors[I]));
  if constexpr (A::join_count > 0) take(detail::only_member(next_after(I, arrived)));
  constexpr std::size_t first = branches_from.offsets[I];
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    (take(first_target(detail::call_router(detail::slot_at<branches_from.members[first + K]>(routers_), state))), ...);
  }
  (std::make_index_sequence<branches_from.offsets[I + 1] - first>{});
  return next;
}

template <class G, class A, class Executor>
template <class Ctx, class Observer, class Frame>
void app<G, A, Executor>::run_tasks(const typename A::set& active, Frame& f) const {
  detail::task_outputs out{f.failures.data()};
  if constexpr (Frame::timed) {
    out.took = f.took.data();
    out.children = f.children.data();
    out.mode = f.observer.mode;
  }
  // One node's task: its call, with the failure capture, timing and durable scope around
  // it. A durable run skips a node whose kept writes were put back into its slot.
  auto call = [&](std::size_t i) {
    task_table<Ctx>[i](node_at(i), f.state, f.context, f.config, result_at<Ctx>(f.results, i), nullptr);
  };
  auto node_task = [&](std::size_t i) {
    if constexpr (Observer::durable) {
      if (f.replayed.test(i)) return;
      detail::task_outputs mine = out;
      mine.resume = f.observer.resume_values(i);
      detail::run_node_task<Frame::timed, true>(call, i, mine);
    } else {
      detail::run_node_task<Frame::timed, false>(call, i, out);
    }
  };
  if constexpr (has_sends) {
    detail::for_each_index<A::size>([&]<std::size_t I>() {
      if constexpr (!std::is_same_v<queue_t<I>, detail::no_queue>)
        detail::slot_at<I>(f.sent).resize(std::get<I>(f.queues).size());
    });
  }
  if constexpr (std::is_same_v<Executor, sequential>) {
    if constexpr (has_sends) {
      detail::for_each_index<A::size>([&]<std::size_t I>() {
        if constexpr (plain_t<I, Ctx>::value)
          if (active.test(I)) node_task(I);
        for (std::size_t k = 0; k < std::get<I>(f.queues).size(); ++k) run_send_task<I, Ctx, Observer>(f, k);
      });
    } else {
      active.for_each([&](std::size_t i) { node_task(i); });
    }
  } else {
    if constexpr (has_sends) {
      static constexpr auto send_table = []<std::size_t... I>(std::index_sequence<I...>) {
        return std::array<void (*)(Frame&, std::size_t), A::size>{&run_send_task<I, Ctx, Observer>...};
      }
      (std::make_index_sequence<A::size>{});
      std::vector<std::pair<std::size_t, std::size_t>> tasks;  // (node, send index or none)
      detail::for_each_index<A::size>([&]<std::size_t I>() {
        if constexpr (plain_t<I, Ctx>::value)
          if (active.test(I)) tasks.emplace_back(I, detail::none);
        for (std::size_t k = 0; k < std::get<I>(f.queues).size(); ++k) tasks.emplace_back(I, k);
      });
      auto task = [&](std::size_t t) {
        auto [node, k] = tasks[t];
        if (k == detail::none)
          node_task(node);
        else
          send_table[node](f, k);
      };
      executor_.for_each_task(tasks.size(), task);
    } else {
      std::array<std::size_t, A::size> tasks{};
      std::size_t count = 0;
      for (std::size_t i = 0; i < A::size; ++i)
        if (active.test(i)) tasks[count++] = i;
      auto task = [&](std::size_t k) { node_task(tasks[k]); };
      executor_.for_each_task(count, task);
    }
  }
}

template <class G, class A, class Executor>
template <class Ctx, class Observer>
bool app<G, A, Executor>::run_step(state_type& state, position_type& at, Ctx& context, const run_config& config,
                                   Observer& observer) const {
  if (!at.any()) return false;
  if (at.step >= config.recursion_limit) over_limit(config, at.step, at.active);
  const std::size_t step_no = at.step + 1;
  auto ran = at.active;  // the nodes that run in this step, as a node or as a send target
  if constexpr (has_sends)
    detail::for_each_index<A::size>([&]<std::size_t I>() {
      if (!std::get<I>(at.sends).empty()) ran.set(I);
    });

  using frame_t = frame<Ctx, Observer>;
  frame_t f{*this, state, context, config, at.sends, observer};
  if constexpr (Observer::durable) {
    // Kept writes are decoded here, on the calling thread, before any task runs: one that
    // does not decode refuses the whole step with nothing run (and nothing stored).
    detail::for_each_index<A::size>([&]<std::size_t I>() {
      if constexpr (plain_t<I, Ctx>::value)
        if (at.active.test(I) && observer.template replay<I>(detail::slot_at<I>(f.results))) f.replayed.set(I);
    });
  }
  run_tasks<Ctx, Observer>(at.active, f);
  if constexpr (Observer::streams) observer.tasks(step_no, at.active, f.failures, f.took, f.children);
  // A failed step leaves the state as it was; a durable run keeps the writes of the nodes
  // that succeeded, and pauses (rather than fails) when the only trouble was interrupts.
  std::size_t failed = A::size;
  bool paused = false;
  for (std::size_t i = 0; i < A::size && failed == A::size; ++i)
    if (f.failures[i]) {
      if (detail::is_interrupt(f.failures[i]))
        paused = true;
      else
        failed = i;
    }
  if (failed < A::size) {
    if constexpr (Observer::durable) observer.step_failed(step_no, at, f.results, f.failures);
    detail::fail_node(node_names[failed], step_no, f.failures[failed]);
  }
  if (paused) {
    if constexpr (Observer::durable) {
      observer.step_paused(step_no, at, f.results, f.failures);
      throw detail::run_paused{};
    } else {
      throw error(detail::no_store_for_interrupt);
    }
  }
  if constexpr (has_sends)
    detail::for_each_index<A::size>([&]<std::size_t I>() {
      if constexpr (!std::is_same_v<queue_t<I>, detail::no_queue>)
        for (auto& slot : detail::slot_at<I>(f.sent))
          if (slot.failure) detail::fail_node(node_names[I], step_no, slot.failure);
    });

  // The barrier: merge in node order (a node's own run, then its sends in send order),
  // then decide what runs next.
  barrier<Observer> b{state, observer, at.active, step_no};
  if constexpr (Observer::durable) observer.before_merge(state);
  if constexpr (detail::has_ephemeral<state_type>) {
    detail::clear_ephemeral(state);
    if constexpr (Observer::durable) detail::mark_ephemeral<state_type>(b.changed);
  }
  ran.for_each([&](std::size_t i) { merge_table<Ctx, Observer>[i](f, b, i); });
  typename A::set next = A::static_next(ran, at.arrived);
  if constexpr (A::reactive) next |= A::woken_by(b.changed);
  next |= b.next;
  run_routers(state, ran, next, b.next_sends);
  at.active = next;
  at.sends = std::move(b.next_sends);
  at.step = step_no;
  if constexpr (Observer::durable) observer.step_done(state, at, b.changed);
  if constexpr (Observer::streams) observer.values(step_no, state);
  return at.any();
}
}  // namespace stategraph
