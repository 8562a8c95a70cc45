// What a run tells whoever watches its steps: the engine's one seam. The general step calls
// these hooks on its Observer; a plain invoke's `quiet` has none and compiles to nothing.
//
//   streams = true     update(step, node, patch)              before a result is merged
//                      tasks(step, active, failures, took, children)  after the tasks ran
//                      values(step, state)                    after the barrier
//                      custom_scope(node) (optional)          held around each task of the
//                                                             node: where ctx.emit writes
//                      checkpoint(step, checkpoint_event)     a checkpointed run committed one
//   persists = true    restore<I>(box_ref) -> bool            before the tasks: a result kept
//                                                             from an earlier attempt is put
//                                                             back (emplace), and its node is
//                                                             not run
//                      resume_values(node) -> const std::vector<std::string>*  answers to
//                                                             the node's interrupts, if any
//                      waits(node) -> bool                    the node has an unanswered
//                                                             interrupt: not run, the step pauses
//                      child_run(node) -> const void*         how a subgraph node runs its child
//                                                             (task_scope::child), or null
//                      restore_send<I>(k, result) -> bool     the same for send task k of node I
//                      send_resume_values(node, k), send_waits(node, k)  the same for a send task
//                      step_failed(step, position, results, failures, sends)  a node or a send
//                                                             task threw
//                      step_paused(step, position, results, failures, sends)  only interrupts:
//                                                             the engine then throws paused_step
//                      before_merge(state)                    the state before the barrier
//                      step_done(state, position, changed channels)    after the barrier
//
// engine/stream.hpp's streamer streams; the checkpointed runner of <stategraph/checkpoint.hpp>
// persists. Nothing else in the core knows either.
#pragma once

#include <cstddef>

namespace stategraph::detail {

struct quiet {
  static constexpr bool streams = false;
  static constexpr bool persists = false;
};

struct no_custom_scope {};
template <class Observer>
auto custom_scope(Observer& observer, std::size_t node) {
  if constexpr (requires { observer.custom_scope(node); })
    return observer.custom_scope(node);
  else
    return no_custom_scope{};
}

// Thrown out of a step whose only failures were interrupts, after step_paused: the run stops
// there, to be resumed from what the observer recorded.
struct paused_step {};

}  // namespace stategraph::detail
