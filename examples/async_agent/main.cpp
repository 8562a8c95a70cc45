// An agent loop whose model and tool nodes await simulated I/O (timers): 1,000 conversations
// run at once on one thread. Conversation 7's model hangs on its first call; its timeout
// cancels that attempt and the retry policy answers on the second. Conversation 13 is
// cancelled while its tool runs: its run ends with sg::cancelled_error, nothing of that
// step merged.
#include <stategraph/asio.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

namespace sg = stategraph;
namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace agent {

struct Chat {
  sg::append<std::string> messages;
  sg::counter<int> tool_rounds;
};
using message = sg::patch<sg::entry<&Chat::messages, std::string>>;
using tool_message = sg::patch<sg::entry<&Chat::messages, std::string>, sg::entry<&Chat::tool_rounds, int>>;

// One conversation's services: how long its model and tool take (the simulated network).
struct conversation {
  int id = 0;
  int model_calls = 0;
  int tool_calls = 0;
  std::chrono::milliseconds model_latency{20};
  std::chrono::milliseconds tool_latency{30};
  bool model_hangs_once = false;
};

asio::awaitable<void> network(std::chrono::milliseconds d) {
  asio::steady_timer t(co_await asio::this_coro::executor, d);
  co_await t.async_wait(asio::use_awaitable);
}

struct model {
  static constexpr sg::timeout_policy timeout{.limit = 200ms};
  static constexpr sg::retry_policy retry{.max_attempts = 3, .initial_interval = 0.05, .jitter = false};
  using reads = sg::reads<&Chat::tool_rounds>;
  using writes = sg::writes<&Chat::messages>;
  asio::awaitable<message> operator()(sg::view<Chat, reads> in, conversation& c) const {
    ++c.model_calls;
    if (c.model_hangs_once && c.model_calls == 1) co_await network(std::chrono::hours(1));  // never answers
    co_await network(c.model_latency);
    if (in.get<&Chat::tool_rounds>() == 0) co_return sg::write<&Chat::messages>("ai: call lookup(" + std::to_string(c.id) + ")");
    co_return sg::write<&Chat::messages>("ai: the answer for " + std::to_string(c.id) + " is " + std::to_string(c.id * 2));
  }
};

struct tool {
  using writes = sg::writes<&Chat::messages, &Chat::tool_rounds>;
  asio::awaitable<tool_message> operator()(sg::view<Chat, sg::reads<>>, conversation& c) const {
    ++c.tool_calls;
    co_await network(c.tool_latency);
    co_return sg::write<&Chat::messages>("tool: lookup(" + std::to_string(c.id) + ") = " + std::to_string(c.id * 2)) |
        sg::write<&Chat::tool_rounds>(1);
  }
};

// After the model: run the tool it asked for, or finish.
struct wants_tool {
  using reads = sg::reads<&Chat::messages>;
  sg::go<tool, sg::end> operator()(sg::view<Chat, reads> in) const {
    const auto& m = in.get<&Chat::messages>();
    if (!m.empty() && m.back().rfind("ai: call", 0) == 0) return sg::to<tool>;
    return sg::to<sg::end>;
  }
};

using graph = sg::graph<Chat, sg::edge<sg::start, model>, sg::branch<model, wants_tool>, sg::edge<tool, model>>;

}  // namespace agent

int main() {
  using namespace agent;
  constexpr int count = 1000;
  const auto app = sg::compile<graph>();

  asio::io_context io;  // one thread: this one
  std::vector<conversation> conversations(count);
  std::vector<Chat> results(count);
  std::vector<std::exception_ptr> failures(count);
  std::vector<bool> finished(count, false);
  asio::cancellation_signal cancel_13;
  for (int i = 0; i < count; ++i) {
    conversation& c = conversations[static_cast<std::size_t>(i)];
    c.id = i;
    c.model_latency = std::chrono::milliseconds(10 + i % 20);
    c.tool_latency = i == 13 ? std::chrono::milliseconds(std::chrono::hours(1)) : std::chrono::milliseconds(20 + i % 10);
    c.model_hangs_once = i == 7;
    auto done = [&, i](std::exception_ptr e, Chat out) {
      const auto k = static_cast<std::size_t>(i);
      failures[k] = e;
      results[k] = std::move(out);
      finished[k] = true;
    };
    if (i == 13)
      asio::co_spawn(io, app.async_invoke(Chat{}, c), asio::bind_cancellation_slot(cancel_13.slot(), done));
    else
      asio::co_spawn(io, app.async_invoke(Chat{}, c), done);
  }
  // Conversation 13's user gives up while its tool is still running.
  asio::steady_timer give_up(io, 150ms);
  give_up.async_wait([&](boost::system::error_code) { cancel_13.emit(asio::cancellation_type::terminal); });

  const auto started = std::chrono::steady_clock::now();
  io.run();
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);

  int answered = 0, cancelled = 0, model_calls = 0, tool_calls = 0;
  for (std::size_t k = 0; k < count; ++k) {
    model_calls += conversations[k].model_calls;
    tool_calls += conversations[k].tool_calls;
    if (!finished[k]) continue;
    if (!failures[k]) {
      if (results[k].messages.size() == 3 && results[k].messages.back() == "ai: the answer for " + std::to_string(k) +
                                                                                  " is " + std::to_string(k * 2))
        ++answered;
      continue;
    }
    try {
      std::rethrow_exception(failures[k]);
    } catch (const sg::cancelled_error& e) {
      ++cancelled;
      std::printf("conversation %zu: %s\n", k, e.what());
    } catch (const std::exception& e) {
      std::printf("conversation %zu failed: %s\n", k, e.what());
    }
  }
  std::printf("conversation 7: the model was called %d times; %s\n", conversations[7].model_calls,
              results[7].messages.back().c_str());
  std::printf("conversations: %d, answered: %d, cancelled: %d\n", count, answered, cancelled);
  std::printf("model calls: %d, tool calls: %d\n", model_calls, tool_calls);
  std::printf("one thread, %lld ms of wall time (each conversation waits 60 ms to 100 ms)\n",
              static_cast<long long>(took.count()));
}
