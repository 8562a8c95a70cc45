// The replay-diff harness (scenarios §5, determinism): sg::replay(app, store, thread)
// re-runs each recorded step of a thread from the checkpoint before it and compares what
// the nodes write now with the checkpoint after it. A node whose output is not a function of
// its input state (it reads a clock, a random source, a global) is named with the channel
// it wrote differently and both values.
#pragma once

#include <stategraph/checkpoint/durable.hpp>
#include <stategraph/checkpoint/json.hpp>
#include <stategraph/engine/apply.hpp>
#include <stategraph/engine/task.hpp>
#include <stategraph/schema.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace stategraph {

// The first write that differs from the record: the step (as snapshot::step numbers it),
// the node that wrote the channel in the replay (empty when no node of the step wrote it),
// the channel, and its value in the record and in the replay, as JSON text.
struct replay_divergence {
  std::int64_t step = 0;
  std::string node;
  std::string channel;
  std::string recorded;
  std::string replayed;
};

struct replay_report {
  std::size_t steps_replayed = 0;
  // Steps not replayed: an update_state or fork, a send target's step, a node that pauses
  // on an interrupt or throws.
  std::size_t steps_skipped = 0;
  std::optional<replay_divergence> divergence;

  bool clean() const noexcept { return !divergence.has_value(); }
  std::string describe() const {
    if (!divergence)
      return "replay: clean (" + std::to_string(steps_replayed) + " steps replayed, " + std::to_string(steps_skipped) +
             " skipped)";
    const replay_divergence& d = *divergence;
    return "replay: step " + std::to_string(d.step) + ", node " + (d.node.empty() ? std::string("(none)") : d.node) +
           ", channel " + d.channel + ": recorded " + d.recorded + ", replayed " + d.replayed;
  }
};

namespace detail {

template <class App, class Ctx>
struct replayer {
  using S = typename App::state_type;
  using A = typename App::analysis_type;
  static constexpr std::size_t C = channel_count<S>;
  using channel_set = node_set<C>;

  const App& app;
  Ctx& context;

  enum class outcome { replayed, skipped, no_node };
  // One step from `before` (its nodes `next`): the state the nodes' patches make, and per
  // channel the last node that wrote it.
  outcome step(const S& before, const std::vector<std::string>& next, S& after, std::array<std::size_t, C>& writer) const {
    after = before;
    writer.fill(A::size);
    if constexpr (has_ephemeral<S>) clear_ephemeral(after);
    bool ok = true;
    std::size_t ran = 0;
    for_each_index<A::size>([&]<std::size_t I>() {
      if (!ok) return;
      using N = typename A::template node<I>;
      const std::string_view name = node_traits<N>::name;
      if (std::find(next.begin(), next.end(), name) == next.end()) return;
      ++ran;
      if constexpr (!callable_with<N, S, Ctx>()) {
        ok = false;  // a send target: its payload is not recorded in the checkpoint
      } else {
        try {
          auto r = call_node(app.template node_instance<I>(), before, context, run_config{});
          if constexpr (requires { r.skipped; })
            if (r.skipped) return;
          channel_set changed{};
          apply_patch(after, std::move(r.update), &changed);
          changed.for_each([&](std::size_t c) { writer[c] = I; });
        } catch (const std::exception&) {  // an interrupt, or a failure: not replayed
          ok = false;
        }
      }
    });
    return !ok ? outcome::skipped : ran == 0 ? outcome::no_node : outcome::replayed;
  }

  static std::optional<replay_divergence> compare(std::int64_t step_no, const S& recorded, const S& replayed,
                                                  const std::array<std::size_t, C>& writer) {
    std::optional<replay_divergence> out;
    for_each_index<C>([&]<std::size_t I>() {
      if (out) return;
      std::string want = json_document(field<I>(recorded)).dump();
      std::string got = json_document(field<I>(replayed)).dump();
      if (want == got) return;
      replay_divergence d;
      d.step = step_no;
      if (writer[I] < A::size) d.node = std::string(app_node_names()[writer[I]]);
      d.channel = std::string(channel_names<S>()[I]);
      d.recorded = std::move(want);
      d.replayed = std::move(got);
      out = std::move(d);
    });
    return out;
  }
  static std::array<std::string_view, A::size> app_node_names() {
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return std::array<std::string_view, A::size>{node_traits<typename A::template node<I>>::name...};
    }(std::make_index_sequence<A::size>{});
  }
};

}  // namespace detail

namespace detail {
template <class DurableApp, class Ctx>
replay_report replay_durable(const DurableApp& app, const thread_id& thread, Ctx& context) {
  using S = typename DurableApp::state_type;
  std::vector<snapshot<S>> history = app.history(thread);
  std::reverse(history.begin(), history.end());  // oldest first
  replayer<typename DurableApp::app_type, Ctx> r{app.plain(), context};
  replay_report report;
  for (std::size_t k = 1; k < history.size(); ++k) {
    const snapshot<S>& before = history[k - 1];
    const snapshot<S>& after = history[k];
    if (after.parent_id != before.checkpoint_id || before.next.empty()) continue;
    if (after.source != checkpoint_source::loop || !before.interrupts.empty() || before.failed) {
      ++report.steps_skipped;
      continue;
    }
    S replayed{};
    std::array<std::size_t, channel_count<S>> writer{};
    const auto done = r.step(before.values, before.next, replayed, writer);
    if (done == decltype(r)::outcome::no_node) continue;  // the input's checkpoint: `next` is start
    if (done == decltype(r)::outcome::skipped) {
      ++report.steps_skipped;
      continue;
    }
    ++report.steps_replayed;
    if (auto d = r.compare(after.step, after.values, replayed, writer)) {
      report.divergence = std::move(d);
      return report;
    }
  }
  return report;
}
}  // namespace detail

// Replays `thread`, recorded in `store`, with `app` (the plain app of the same graph, or the
// checkpointed one) and reports the first divergent write. Each step starts from its
// recorded parent checkpoint, so the run's inputs and answered interrupts are the record's;
// nothing is written to the store. Nodes that take a context get `context` (a checkpointed
// run's sg::run_context when none is given).
template <class App, class Store, class Ctx>
replay_report replay(const App& app, Store& store, const thread_id& thread, Ctx& context) {
  if constexpr (requires { app.plain(); }) {
    return detail::replay_durable(app, thread, context);
  } else {
    durable_app<App, Store, detail::mp_list<>, detail::mp_list<>> durable(app, store);
    return detail::replay_durable(durable, thread, context);
  }
}
template <class App, class Store>
replay_report replay(const App& app, Store& store, const thread_id& thread) {
  run_context context;
  return replay(app, store, thread, context);
}

}  // namespace stategraph
