// What app.stream() reports: the state after each step (values), what each node wrote
// (updates), and when each node started and ended (debug).
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stategraph {

enum class stream_mode : unsigned { values = 1, updates = 2, debug = 4 };

constexpr stream_mode operator|(stream_mode a, stream_mode b) {
  return static_cast<stream_mode>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
constexpr bool has_mode(stream_mode set, stream_mode m) {
  return (static_cast<unsigned>(set) & static_cast<unsigned>(m)) != 0;
}

enum class debug_phase { start, end, error };

template <class State>
struct event {
  stream_mode mode{};
  std::size_t step = 0;                     // 1-based superstep
  std::string_view node;                    // updates, debug: the node's name
  std::vector<std::string_view> channels;   // updates: the channels the node wrote, in order
  std::optional<State> values;              // values: the state after the step
  debug_phase phase = debug_phase::start;   // debug
  std::chrono::nanoseconds duration{};      // debug, at end/error
  std::string error;                        // debug, at error: what the exception said
};

}  // namespace stategraph
