// Per-node retry policy: a node declares `static constexpr sg::retry_policy retry{...};`.
// The fields and defaults are LangGraph's RetryPolicy (intervals in seconds).
#pragma once

#include <stategraph/errors.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <exception>
#include <functional>
#include <random>
#include <stdexcept>
#include <thread>

namespace stategraph {

// Retries anything but programming errors: std::logic_error and what derives from it
// (invalid_argument, out_of_range, ...) — the counterpart of LangGraph not retrying
// ValueError and TypeError.
inline bool retry_unless_logic_error(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::logic_error&) {
    return false;
  } catch (...) {
    return true;
  }
}

struct retry_policy {
  std::size_t max_attempts = 3;   // including the first
  double initial_interval = 0.5;  // seconds before the second attempt
  double backoff_factor = 2.0;
  double max_interval = 128.0;
  bool jitter = true;  // adds a uniform [0, 1) s to each interval
  bool (*retry_on)(const std::exception_ptr&) = &retry_unless_logic_error;

  // The pause before attempt `attempt` + 1 (attempt counts from 1), without jitter.
  constexpr double interval(std::size_t attempt) const {
    double d = initial_interval;
    for (std::size_t i = 1; i < attempt && d < max_interval; ++i) d *= backoff_factor;
    return std::min(d, max_interval);
  }
};

// Per-node timeout: a node declares `static constexpr sg::timeout_policy timeout{.limit = 50ms};`.
// Each attempt gets `limit`; one that runs past it fails with sg::timed_out (retried like
// any failure), and the last such attempt fails the step with sg::timeout_error. An async
// run cancels the attempt when the limit passes; a synchronous executor cannot stop a call,
// so it lets the node finish, discards its result, and fails the attempt the same way.
struct timeout_policy {
  std::chrono::nanoseconds limit{};  // zero: no limit
};

namespace detail {
template <class N>
constexpr bool has_timeout = requires {
  { N::timeout } -> std::convertible_to<timeout_policy>;
};

template <class N>
constexpr bool has_retry = requires {
  { N::retry } -> std::convertible_to<retry_policy>;
};

// Calls f until it succeeds, the policy gives up, or the exception is not retryable.
template <class F, class Sleep, class Random>
decltype(auto) with_retries(const retry_policy& policy, Sleep& sleep, Random& random, F&& f) {
  for (std::size_t attempt = 1;; ++attempt) {
    try {
      return f();
    } catch (const interrupt_signal&) {
      throw;  // a pause, not a failure
    } catch (const stop_signal&) {
      throw;  // the run stops: no attempt is left
    } catch (...) {
      auto e = std::current_exception();
      if (attempt >= policy.max_attempts || !policy.retry_on(e)) throw;
      double seconds = policy.interval(attempt);
      if (policy.jitter) seconds += std::uniform_real_distribution<double>(0.0, 1.0)(random);
      sleep(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(seconds)));
    }
  }
}
}  // namespace detail

}  // namespace stategraph
