// Every error the library throws derives from sg::error and says what, where and why.
#pragma once

#include <chrono>
#include <cstddef>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace stategraph {

class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A run needed more supersteps than its recursion_limit allows.
class recursion_limit_error : public error {
 public:
  recursion_limit_error(std::size_t limit, std::size_t step, std::vector<std::string_view> active)
      : error(message(limit, step, active)), limit_(limit), step_(step), active_(std::move(active)) {}

  std::size_t limit() const noexcept { return limit_; }
  std::size_t step() const noexcept { return step_; }  // the step that would have run
  const std::vector<std::string_view>& active_nodes() const noexcept { return active_; }

 private:
  static std::string message(std::size_t limit, std::size_t step, const std::vector<std::string_view>& active) {
    std::string m = "stategraph: recursion limit of " + std::to_string(limit) +
                    " supersteps reached before step " + std::to_string(step) + "; still active:";
    for (auto n : active) m.append(" ").append(n);
    return m + " (raise it with run_config::recursion_limit)";
  }
  std::size_t limit_, step_;
  std::vector<std::string_view> active_;
};

// A node threw: its step failed and the state stays as it was at the start of that step.
class node_error : public error {
 public:
  node_error(std::string_view node, std::size_t step, std::exception_ptr cause)
      : error(message(node, step, cause)), node_(node), step_(step), cause_(std::move(cause)) {}

  std::string_view node() const noexcept { return node_; }
  std::size_t step() const noexcept { return step_; }
  const std::exception_ptr& cause() const noexcept { return cause_; }
  [[noreturn]] void rethrow_cause() const { std::rethrow_exception(cause_); }

 private:
  static std::string message(std::string_view node, std::size_t step, const std::exception_ptr& cause) {
    std::string why = "an exception not derived from std::exception";
    try {
      std::rethrow_exception(cause);
    } catch (const std::exception& e) {
      why = e.what();
    } catch (...) {
    }
    return "stategraph: node '" + std::string(node) + "' failed in step " + std::to_string(step) + ": " + why;
  }
  std::string node_;
  std::size_t step_;
  std::exception_ptr cause_;
};

// What an attempt of a node that ran past its sg::timeout_policy fails with: a retry policy
// sees it (and retries it, unless its retry_on says otherwise).
class timed_out : public error {
 public:
  explicit timed_out(std::chrono::nanoseconds limit)
      : error("timed out after " + std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(limit).count()) +
              " ms"),
        limit_(limit) {}
  std::chrono::nanoseconds limit() const noexcept { return limit_; }

 private:
  std::chrono::nanoseconds limit_;
};

// A node ran past its timeout on its last attempt: its step failed like a throwing node's
// (nothing of it is merged). The cause is the sg::timed_out of that attempt.
class timeout_error : public node_error {
 public:
  timeout_error(std::string_view node, std::size_t step, std::exception_ptr cause, std::chrono::nanoseconds limit)
      : node_error(node, step, std::move(cause)), limit_(limit) {}
  std::chrono::nanoseconds limit() const noexcept { return limit_; }

 private:
  std::chrono::nanoseconds limit_;
};

// A run was cancelled while a step ran: that step merged nothing; `nodes()` are the nodes it
// was running (a node that received sends is named once).
class cancelled_error : public error {
 public:
  cancelled_error(std::size_t step, std::vector<std::string> nodes, std::string_view why = "cancelled")
      : error(message(step, nodes, why)), step_(step), nodes_(std::move(nodes)) {}
  std::size_t step() const noexcept { return step_; }
  const std::vector<std::string>& nodes() const noexcept { return nodes_; }

 private:
  static std::string message(std::size_t step, const std::vector<std::string>& nodes, std::string_view why) {
    std::string m = "stategraph: run " + std::string(why) + " in step " + std::to_string(step) + "; running:";
    for (const auto& n : nodes) m.append(" ").append(n);
    return m;
  }
  std::size_t step_;
  std::vector<std::string> nodes_;
};

// A run passed its deadline (sg::async_options::deadline): cancelled like cancelled_error.
class deadline_error : public cancelled_error {
 public:
  deadline_error(std::size_t step, std::vector<std::string> nodes)
      : cancelled_error(step, std::move(nodes), "passed its deadline") {}
};

// Two writes to one last-value channel in one step, found at run time. The compiler
// refuses such graphs (SG008) whenever its analysis of the graph completes; this is the
// guard for graphs too large for that analysis.
class invalid_update_error : public error {
 public:
  invalid_update_error(std::string_view channel, std::size_t step)
      : error("stategraph: channel '" + std::string(channel) + "' is a last-value channel and received " +
              "more than one write in step " + std::to_string(step) + "; give it a reducer"),
        channel_(channel),
        step_(step) {}
  std::string_view channel() const noexcept { return channel_; }
  std::size_t step() const noexcept { return step_; }

 private:
  std::string_view channel_;
  std::size_t step_;
};

// What a node throws when it sees that its run was asked to stop (sg::stoppable): not a
// std::exception, so that retry policies and a node's `catch (const std::exception&)` let it
// through; the run reports sg::cancelled_error (or sg::deadline_error).
struct stop_signal {
  bool deadline = false;  // the run's deadline passed, rather than its stop token
};

// What sg::interrupt throws to pause a run. Not an sg::error and not a std::exception: a
// node's `catch (const std::exception&)` does not swallow it. (Catch-all blocks must
// rethrow it.)
struct interrupt_signal {
  std::string payload;  // JSON text
  std::size_t index = 0;  // which interrupt call of the node this is
  bool in_subgraph = false;  // the node is a subgraph paused inside: its interrupts are its child's
};

}  // namespace stategraph
