// An agent and its tools (scenarios §4): the model either answers or asks for tool calls;
// the tools run them and report back; the loop ends when the model answers.
//
// The model is a scripted stand-in so that the run is deterministic and needs no network;
// a client for a real model would take its place in the `agent` node.
#include <stategraph/stategraph.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sg = stategraph;

struct tool_call {
  std::string tool, argument;
};

struct message {
  std::string role;  // "user", "ai" or "tool"
  std::string content;
  std::vector<tool_call> calls;  // what an "ai" message asks the tools to do
};

struct State {
  sg::append<message> messages;  // the conversation: every write is appended
  sg::counter<int> model_calls;  // every write is added
  sg::counter<int> tool_runs;
  sg::last_value<std::string> answer;  // the model's final reply, once it gives one
};

// ---- the model: canned replies -----------------------------------------------------------

// Replays its replies in order. Which one comes next depends only on how many replies the
// conversation already holds, so the agent node stays a function of the state it reads.
class scripted_model {
 public:
  explicit scripted_model(std::vector<message> replies) : replies_(std::move(replies)) {}

  message reply(const std::vector<message>& conversation) const {
    auto turn = static_cast<std::size_t>(
        std::count_if(conversation.begin(), conversation.end(), [](const message& m) { return m.role == "ai"; }));
    if (turn < replies_.size()) return replies_[turn];
    return {"ai", "I have nothing to add.", {}};
  }

 private:
  std::vector<message> replies_;
};

// ---- the tools: deterministic stand-ins ----------------------------------------------------

// "a op b" on integers, e.g. "17 * 23".
std::string calculate(const std::string& expression) {
  long long a = 0, b = 0;
  char op = 0;
  if (std::sscanf(expression.c_str(), "%lld %c %lld", &a, &op, &b) != 3) return "error: cannot parse";
  switch (op) {
    case '+':
      return std::to_string(a + b);
    case '-':
      return std::to_string(a - b);
    case '*':
      return std::to_string(a * b);
    case '/':
      return b == 0 ? "error: division by zero" : std::to_string(a / b);
    default:
      return std::string("error: unknown operator ") + op;
  }
}

// A clock that always says the same time, so that the output can be checked.
struct fixed_clock {
  std::string now;
};

// Where the audit node records what happened. It belongs to one run, so it is passed to
// invoke() as the run's context; a node asks for it by taking it as a second parameter.
struct audit_log {
  std::vector<std::string> lines;
};

// ---- nodes -----------------------------------------------------------------------------------

struct tools;

// Calls the model with the conversation and appends its reply. It returns only what it
// changed; `answer` is written only when the reply is final (maybe_write with an empty
// optional writes nothing). The node owns its model: sg::compile takes the instance.
struct agent {
  scripted_model model;

  using reads = sg::reads<&State::messages>;
  using writes = sg::writes<&State::messages, &State::model_calls, &State::answer>;

  auto operator()(sg::view<State, reads> in) const {
    message reply = model.reply(in.get<&State::messages>());
    std::optional<std::string> final_answer;
    if (reply.calls.empty()) final_answer = reply.content;
    return sg::write<&State::messages>(std::move(reply)) | sg::write<&State::model_calls>(1) |
           sg::maybe_write<&State::answer>(std::move(final_answer));
  }
};

// Runs every call the last reply asked for and appends one "tool" message per call.
struct tools {
  fixed_clock clock;

  using reads = sg::reads<&State::messages>;
  using writes = sg::writes<&State::messages, &State::tool_runs>;

  auto operator()(sg::view<State, reads> in) const {
    std::vector<message> results;
    for (const tool_call& call : in.get<&State::messages>().back().calls) {
      std::string value = call.tool == "calculator" ? calculate(call.argument)
                          : call.tool == "clock"    ? clock.now
                                                    : "error: no tool named " + call.tool;
      results.push_back({"tool", call.tool + "(" + call.argument + ") = " + value, {}});
    }
    int runs = static_cast<int>(results.size());
    // A range written to an append channel appends each element.
    return sg::write<&State::messages>(std::move(results)) | sg::write<&State::tool_runs>(runs);
  }
};

// The branch after `agent`: to `tools` while the last reply asks for tools, else the end.
struct next_step {
  using reads = sg::reads<&State::messages>;
  sg::go<tools, sg::end> operator()(sg::view<State, reads> in) const {
    if (!in.get<&State::messages>().back().calls.empty()) return sg::to<tools>;
    return sg::to<sg::end>;
  }
};

// A node may change nothing: this one returns an empty patch. It only records, outside the
// state, which tools the step before ran (a log, a metric, a trace span: side effects, not
// state). Returning void would say the same, once the library accepts it again (a known bug).
struct audit {
  using reads = sg::reads<&State::messages>;

  sg::patch<> operator()(sg::view<State, reads> in, audit_log& log) const {
    const auto& conversation = in.get<&State::messages>();
    auto first = conversation.end();
    while (first != conversation.begin() && std::prev(first)->role == "tool") --first;
    std::string line = "tools ran:";
    for (auto it = first; it != conversation.end(); ++it)
      line.append(" ").append(it->content, 0, it->content.find('('));
    log.lines.push_back(line);
    return {};
  }
};

// clang-format off
using agent_graph = sg::graph<State,
    sg::edge<sg::start, agent>,
    sg::branch<agent, next_step>,  // tools, or the end
    sg::edge<tools, agent>,        // report back to the model
    sg::edge<tools, audit>,        // audit runs beside agent, in the same superstep
    sg::edge<audit, sg::end>>;
// clang-format on

// ---- run ----------------------------------------------------------------------------------------

void print(const State& s, const audit_log& log) {
  for (const message& m : s.messages) {
    std::string calls;
    for (const tool_call& c : m.calls) calls.append(calls.empty() ? "" : ", ").append(c.tool + "(" + c.argument + ")");
    std::string text = m.content;
    if (!calls.empty()) text.append(text.empty() ? "" : " ").append("[asks for " + calls + "]");
    std::printf("  %-5s| %s\n", m.role.c_str(), text.c_str());
  }
  std::printf("\nanswer: %s\n", s.answer.c_str());
  std::printf("model calls: %d, tool runs: %d, messages: %zu\n", static_cast<int>(s.model_calls),
              static_cast<int>(s.tool_runs), s.messages.size());
  std::printf("audit log (written by a node that changes nothing in the state):\n");
  for (const std::string& line : log.lines) std::printf("  %s\n", line.c_str());
}

int main() {
  scripted_model model({
      {"ai", "", {{"calculator", "17 * 23"}, {"clock", ""}}},
      {"ai", "17 * 23 is 391; now adding 9.", {{"calculator", "391 + 9"}}},
      {"ai", "17 * 23 + 9 = 400, and it is 09:30 UTC.", {}},
  });
  // Nodes with data of their own are passed to sg::compile; the others are default-constructed.
  auto app = sg::compile<agent_graph>(agent{model}, tools{fixed_clock{"09:30 UTC"}});

  audit_log log;
  State out = app.invoke(State{.messages = {message{"user", "What is 17 * 23 + 9, and what time is it?", {}}}}, log);

  std::printf("An agent and its tools: the conversation after one invoke\n\n");
  print(out, log);
}
