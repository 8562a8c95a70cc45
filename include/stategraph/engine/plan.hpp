// The steps of a fixed plan (a static acyclic graph on the sequential executor): each is a
// known set of nodes, called on the state of the step start and merged in node order, with
// no frontier and no dispatch. Keyed by the step's node types, not by the graph (see
// engine/task.hpp for why).
#pragma once

#include <stategraph/engine/apply.hpp>
#include <stategraph/engine/step.hpp>
#include <stategraph/engine/task.hpp>
#include <stategraph/run_options.hpp>

#include <array>
#include <cstddef>
#include <exception>
#include <new>
#include <tuple>
#include <utility>

namespace stategraph::detail {

// Step is a template argument so that each call's step number is a constant, as in the
// hand-written code.
template <std::size_t Step, class S, class Ctx, class... N>
[[gnu::always_inline]] inline void fixed_step(S& state, Ctx& context, const run_config& config, const N&... nodes) {
  // A fixed plan's frontier is fixed at compile time (next_fixed), nothing reads which
  // channels changed, and it has no sends: the barrier is the merge alone.
  next_fixed next;
  no_changes none;
  std::tuple<> no_sends;
  if constexpr (sizeof...(N) == 1) {
    auto r = guarded_call(nodes..., state, context, config, Step);
    barrier<void, false>(state, next, &none, no_sends, r);
  } else {
    // Each result is built in its place, in node order (see in_order).
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wmissing-braces"  // the brace elision is the point
#endif
    in_order<node_result_t<N, S, Ctx>...> results{
        deferred{[&] { return guarded_call(nodes, state, context, config, Step); }}...};
#if defined(__clang__)
#pragma clang diagnostic pop
#endif
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      barrier<void, false>(state, next, &none, no_sends, results.template get<K>()...);
    }
    (std::index_sequence_for<N...>{});
  }
}

// A task's result, built in place (no move of the node's result) when the task runs.
template <class R>
struct result_slot {
  alignas(R) unsigned char bytes[sizeof(R)];
  bool built = false;
  result_slot() = default;
  result_slot(const result_slot&) = delete;
  result_slot& operator=(const result_slot&) = delete;
  ~result_slot() {
    if (built) get().~R();
  }
  template <class F>
  void build(const F& make) {
    ::new (static_cast<void*>(bytes)) R(make());
    built = true;
  }
  R& get() noexcept { return *std::launder(reinterpret_cast<R*>(bytes)); }
};

// What the tasks of a fixed step on a pool share: the step-start state, the nodes, a
// result slot and a failure per node.
template <class S, class Ctx, class Nodes, class Slots, std::size_t Count>
struct pool_step_frame {
  const S& state;
  Ctx& context;
  const run_config& config;
  const Nodes& nodes;
  Slots slots{};
  std::array<std::exception_ptr, Count> failures{};
};

// The kind of a fixed step, for the pool's estimate of its size.
template <std::size_t Step, class... N>
struct pool_step_kind {};

template <std::size_t K, std::size_t Step, class Frame>
void run_pool_step_task(Frame& f) {
  try {
    std::get<K>(f.slots).build([&] { return guarded_call(std::get<K>(f.nodes), f.state, f.context, f.config, Step); });
  } catch (...) {
    f.failures[K] = std::current_exception();
  }
}

// A step of several nodes of a fixed plan on sg::thread_pool. Inline (a small step), it is
// the sequential step. On the workers every task runs, then the first failure in node order
// is thrown, as a step on the frontier does, and the results merge in node order.
template <std::size_t Step, class Executor, class S, class Ctx, class... N>
void fixed_step_on(const Executor& executor, S& state, Ctx& context, const run_config& config, const N&... nodes) {
  if constexpr (sizeof...(N) == 1) {
    fixed_step<Step>(state, context, config, nodes...);
  } else {
    // Inline, the step is the sequential one, its results built in place.
    auto in_order = [&] { fixed_step<Step>(state, context, config, nodes...); };
    auto on_workers = [&](const auto& dispatch) {
      using nodes_type = std::tuple<const N&...>;
      using frame = pool_step_frame<S, Ctx, nodes_type, std::tuple<result_slot<node_result_t<N, S, Ctx>>...>,
                                    sizeof...(N)>;
      const nodes_type of{nodes...};
      frame f{state, context, config, of};
      static constexpr auto tasks = []<std::size_t... K>(std::index_sequence<K...>) {
        return std::array<void (*)(frame&), sizeof...(N)>{&run_pool_step_task<K, Step, frame>...};
      }(std::index_sequence_for<N...>{});
      auto task = [&](std::size_t i) { tasks[i](f); };
      dispatch(task);
      for (const auto& failure : f.failures)
        if (failure) std::rethrow_exception(failure);
      next_fixed next;
      no_changes none;
      std::tuple<> no_sends;
      [&]<std::size_t... K>(std::index_sequence<K...>) {
        barrier<void, false>(state, next, &none, no_sends, std::get<K>(f.slots).get()...);
      }(std::index_sequence_for<N...>{});
    };
    executor.template run_step<pool_step_kind<Step, N...>>(sizeof...(N), in_order, on_workers);
  }
}

// A long plan's steps are functions of their own (STATEGRAPH_OUT_OF_LINE, engine/step.hpp),
// so that a chain of a thousand nodes does not become one huge function to optimise.

// A step of several nodes of a long plan.
template <std::size_t Step, class S, class Ctx, class... N>
STATEGRAPH_OUT_OF_LINE void fixed_step_call(S& state, Ctx& context, const run_config& config, const N&... nodes) {
  fixed_step<Step>(state, context, config, nodes...);
}

// A step of one node of a long plan: the same barrier, but no handler of its own (a handler
// per node is costly code generation). `running` holds the step while its node runs, so
// that the caller's one handler wraps only the node's failure, as guarded_call would.
template <std::size_t Step, class S, class Ctx, class N>
STATEGRAPH_OUT_OF_LINE void lone_plan_step(S& state, Ctx& context, const run_config& config, const N& node,
                                           std::size_t& running) {
  running = Step;
  auto r = call_node(node, state, context, config);
  running = none;
  next_fixed next;
  no_changes unchanged;
  std::tuple<> no_sends;
  barrier<void, false>(state, next, &unchanged, no_sends, r);
}

// A step of several nodes of a long plan, called from the app's one pack expansion over its
// steps: the node indices M pick the step's nodes out of the app's storage.
template <std::size_t Step, class S, class Ctx, class Nodes, std::size_t... M>
[[gnu::always_inline]] inline void plan_step(S& state, Ctx& context, const run_config& config, const Nodes& nodes,
                                             std::index_sequence<M...>) {
  fixed_step_call<Step>(state, context, config, slot_at<M>(nodes)...);
}

// The members of every step of a plan, flattened: step St's nodes are
// members[offsets[St]] .. members[offsets[St + 1] - 1], in node order.
// (A node can run in several steps of a plan.) Also the branches leaving each node.
template <std::size_t Groups, std::size_t Total>
struct plan_members {
  std::array<std::size_t, Groups + 1> offsets{};
  std::array<std::size_t, Total> members{};
};
template <std::size_t Steps, class Set>
constexpr std::size_t plan_runs(const std::array<Set, Steps>& steps) {
  std::size_t total = 0;
  for (const Set& s : steps) total += s.count();
  return total;
}
template <std::size_t Total, std::size_t Steps, class Set>
constexpr auto flatten_plan(const std::array<Set, Steps>& steps) {
  plan_members<Steps, Total> out{};
  std::size_t k = 0;
  for (std::size_t st = 0; st < Steps; ++st) {
    out.offsets[st] = k;
    steps[st].for_each([&](std::size_t i) { out.members[k++] = i; });
  }
  out.offsets[Steps] = k;
  return out;
}

// What the app reads off a graph's tables for its branches and chain links, computed here,
// keyed by sizes: a lambda in the app's member initializers is a closure type, its call
// operator and its conversion to a function pointer, each a symbol that spells the graph.

// Each branch's source node.
template <class Set, std::size_t B>
constexpr std::array<std::size_t, B> branch_sources_of(const std::array<branch_info<Set>, B>& branches) {
  std::array<std::size_t, B> out{};
  for (std::size_t b = 0; b < B; ++b) out[b] = branches[b].source;
  return out;
}
// Per node, the branches that leave it, in branch order. Counted, then placed: O(nodes +
// branches) constant-evaluation steps, not their product.
template <std::size_t N, std::size_t B>
constexpr plan_members<N, B> branches_leaving(const std::array<std::size_t, B>& sources) {
  plan_members<N, B> out{};
  for (std::size_t b = 0; b < B; ++b)
    if (sources[b] < N) ++out.offsets[sources[b] + 1];
  for (std::size_t i = 0; i < N; ++i) out.offsets[i + 1] += out.offsets[i];
  std::array<std::size_t, N + 1> at = out.offsets;
  for (std::size_t b = 0; b < B; ++b)
    if (sources[b] < N) out.members[at[sources[b]]++] = b;
  return out;
}
// The nodes that may run again right after themselves (a loop of one node).
template <std::size_t N, std::size_t J, std::size_t B>
constexpr std::array<bool, N> self_loops_of(const graph_tables<N, J>& t,
                                            const std::array<branch_info<node_set<N>>, B>& branches) {
  std::array<bool, N> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = t.successors[i].test(i) || t.goes[i].test(i);
  for (const auto& b : branches)
    if (b.source < N && b.targets.test(b.source)) out[b.source] = true;
  for (const auto& row : t.join_rows)
    if (row.into < N && row.sources.test(row.into)) out[row.into] = true;
  return out;
}
// Each node's one static successor, or none.
template <std::size_t N, std::size_t J>
constexpr std::array<std::size_t, N> only_successors(const graph_tables<N, J>& t) {
  std::array<std::size_t, N> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = only_member(t.successors[i]);
  return out;
}

}  // namespace stategraph::detail
