// What a run tells whoever watches its steps: the engine's one seam. The general step calls
// these hooks on its Observer; a plain invoke's `quiet` has none and compiles to nothing.
//
//   streams = true     update(step, node, written channels)  before a result is merged
//                      tasks(step, active, failures, took, children)  after the tasks ran
//                      values(step, state)                    after the barrier
//   persists = true    restore<I>(result slot) -> bool        before the tasks: a result kept
//                                                             from an earlier attempt is put
//                                                             back, and its node is not run
//                      resume_values(node) -> const std::vector<std::string>*  answers to
//                                                             the node's interrupts, if any
//                      waits(node) -> bool                    the node has an unanswered
//                                                             interrupt: not run, the step pauses
//                      child_run(node) -> const void*         how a subgraph node runs its child
//                                                             (task_scope::child), or null
//                      step_failed(step, position, results, failures)  a node threw
//                      step_paused(step, position, results, failures)  only interrupts: the
//                                                             engine then throws paused_step
//                      before_merge(state)                    the state before the barrier
//                      step_done(state, position, changed channels)    after the barrier
//
// engine/stream.hpp's streamer streams; the checkpointed runner of <stategraph/checkpoint.hpp>
// persists. Nothing else in the core knows either.
#pragma once

namespace stategraph::detail {

struct quiet {
  static constexpr bool streams = false;
  static constexpr bool persists = false;
};

// Thrown out of a step whose only failures were interrupts, after step_paused: the run stops
// there, to be resumed from what the observer recorded.
struct paused_step {};

}  // namespace stategraph::detail
