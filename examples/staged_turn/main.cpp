// A staged turn (scenarios §5): one assistant turn passes through four stages,
//
//   anchor_plan -> tool_loop -> synthesize -> post_turn
//
// plus a recovery edge tool_loop -> post_turn (a tool failed: skip synthesis) and a guarded
// retry synthesize -> synthesize (a bad draft is written again, at most max_attempts times).
// The lattice below is that picture as a type: an edge that goes against it, a second node
// in the singleton stage `synthesize`, or a write to an undeclared channel does not compile.
//
// The "model" and the tools are small deterministic stand-ins, so the output never changes.
#include <stategraph/stategraph.hpp>

#include <cctype>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sg = stategraph;

// ---- the state: one channel per fact the turn produces ----------------------------------

struct tool_request {
  std::string tool, argument;
};
struct tool_result {
  std::string tool, argument;
  long long value = 0;
  std::string unit, error;  // error is empty when the tool succeeded
};

struct State {
  std::string question;                 // a plain field: the last write wins
  sg::last_value<std::string> body;     // what the question is about, e.g. "mars"
  sg::append<std::string> plan;         // every write is appended
  sg::ephemeral<tool_request> request;  // the model's next tool call, readable for one step
  sg::append<tool_result> results;
  sg::counter<int> tool_rounds;  // every write is added
  sg::last_value<std::string> draft;
  sg::counter<int> attempts;  // synthesize attempts: the retry counter
  sg::last_value<std::string> answer;
  sg::append<std::string> citations;
  sg::append<std::string> memory;  // what the assistant remembers of past turns
};

inline constexpr int max_tool_rounds = 4;  // more than this: give up (recovery edge)
inline constexpr int max_attempts = 3;     // the bound on the guarded retry

// ---- stages and the lattice of allowed hand-overs ------------------------------------------

struct anchor_plan {};
struct tool_loop {};
struct synthesize {};
struct post_turn {};

// clang-format off
using turn_lattice = sg::lattice<
    sg::transition<anchor_plan, tool_loop>,
    sg::transition<tool_loop, synthesize>,
    sg::transition<tool_loop, post_turn>,    // the recovery edge
    sg::transition<synthesize, post_turn>,
    sg::transition<synthesize, synthesize>,  // the guarded retry
    sg::within<anchor_plan>, sg::within<tool_loop>, sg::within<post_turn>,
    sg::singleton<synthesize>>;              // exactly one node
// clang-format on

// ---- deterministic stand-ins for the outside world ---------------------------------------------

// "How long does sunlight take to reach Mars?" -> "mars"
std::string last_word(const std::string& text) {
  std::string word;
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (std::isalpha(u))
      word += static_cast<char>(std::tolower(u));
    else if (c == ' ')
      word.clear();
  }
  return word;
}

tool_result run_tool(const tool_request& r) {
  tool_result out{r.tool, r.argument};
  if (r.tool == "distance") {  // mean distance from the Sun, in km
    const std::pair<const char*, long long> table[] = {
        {"mercury", 57'900'000}, {"venus", 108'200'000}, {"earth", 149'600'000}, {"mars", 227'900'000}};
    for (const auto& [name, km] : table)
      if (r.argument == name) out.value = km, out.unit = "km";
    if (out.unit.empty()) out.error = "no planet named " + r.argument;
  } else if (r.tool == "light_time") {  // seconds light needs for that many km
    out.value = std::stoll(r.argument) / 299'792;
    out.unit = "s";
  } else {
    out.error = "no tool named " + r.tool;
  }
  return out;
}

std::string describe(const tool_result& r) {
  std::string call = r.tool + "(" + r.argument + ")";
  if (!r.error.empty()) return call + " failed: " + r.error;
  return call + " = " + std::to_string(r.value) + " " + r.unit;
}

std::string capitalised(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s;
}

// ---- anchor_plan: understand the question and plan the work -------------------------------

struct classify {
  using stage = anchor_plan;
  using reads = sg::reads<&State::question>;
  using writes = sg::writes<&State::body>;

  auto operator()(sg::view<State, reads> in) const {
    return sg::write<&State::body>(last_word(in.get<&State::question>()));
  }
};

struct planner {
  using stage = anchor_plan;
  using reads = sg::reads<&State::body>;
  using writes = sg::writes<&State::plan>;

  auto operator()(sg::view<State, reads> in) const {
    const std::string& body = in.get<&State::body>();
    return sg::write<&State::plan>(
        std::vector<std::string>{"distance(" + body + ")", "light_time(that distance)", "answer in minutes"});
  }
};

// ---- tool_loop: the model asks for tools until it has what it needs ------------------------------

struct tools;
struct synthesizer;
struct fallback;

// A scripted model: one tool call per round, following the plan. Once it has the light
// time, or once a tool failed, it asks for nothing: the node then returns an empty patch.
struct llm {
  using stage = tool_loop;
  using reads = sg::reads<&State::body, &State::results>;
  using writes = sg::writes<&State::request>;

  auto operator()(sg::view<State, reads> in) const {
    const auto& results = in.get<&State::results>();
    std::optional<tool_request> next;
    if (results.empty()) {
      next = tool_request{"distance", in.get<&State::body>()};
    } else if (results.back().tool == "distance" && results.back().error.empty()) {
      next = tool_request{"light_time", std::to_string(results.back().value)};
    }
    return sg::maybe_write<&State::request>(std::move(next));
  }
};

struct tools {
  using stage = tool_loop;
  using reads = sg::reads<&State::request>;
  using writes = sg::writes<&State::results, &State::tool_rounds>;

  auto operator()(sg::view<State, reads> in) const {
    return sg::write<&State::results>(run_tool(in.get<&State::request>())) | sg::write<&State::tool_rounds>(1);
  }
};

// After each model round: more tools, on to synthesis, or the recovery edge to post_turn.
struct after_llm {
  using reads = sg::reads<&State::request, &State::results, &State::tool_rounds>;

  sg::go<tools, synthesizer, fallback> operator()(sg::view<State, reads> in) const {
    const auto& results = in.get<&State::results>();
    if (!results.empty() && !results.back().error.empty()) return sg::to<fallback>;
    if (in.get<&State::request>().tool.empty()) return sg::to<synthesizer>;
    if (in.get<&State::tool_rounds>() >= max_tool_rounds) return sg::to<fallback>;
    return sg::to<tools>;
  }
};

// ---- synthesize: the one node of a singleton stage, with a guarded retry ---------------------------

struct citation;

// A scripted writer whose first attempt forgets the unit, so that the guard has work to do.
struct synthesizer {
  using stage = synthesize;
  using reads = sg::reads<&State::body, &State::results, &State::attempts>;
  using writes = sg::writes<&State::draft, &State::attempts>;

  auto operator()(sg::view<State, reads> in) const {
    long long seconds = in.get<&State::results>().back().value;
    std::string opening = "Sunlight reaches " + capitalised(in.get<&State::body>()) + " in about ";
    std::string draft = in.get<&State::attempts>() == 0
                            ? opening + std::to_string(seconds) + "."
                            : opening + std::to_string(seconds / 60) + " min " + std::to_string(seconds % 60) + " s.";
    return sg::write<&State::draft>(std::move(draft)) | sg::write<&State::attempts>(1);
  }
};

// The guard on synthesize -> synthesize: a draft without a unit goes back, a bounded number
// of times; after that it goes on as it is.
struct check_draft {
  using reads = sg::reads<&State::draft, &State::attempts>;

  sg::go<synthesizer, citation> operator()(sg::view<State, reads> in) const {
    const std::string& draft = in.get<&State::draft>();
    bool has_unit = draft.find(" s.") != std::string::npos || draft.find(" min") != std::string::npos;
    if (!has_unit && in.get<&State::attempts>() < max_attempts) return sg::to<synthesizer>;
    return sg::to<citation>;
  }
};

// ---- post_turn: cite, remember; or apologise when the tool loop failed --------------------------

struct citation {
  using stage = post_turn;
  using reads = sg::reads<&State::draft, &State::results>;
  using writes = sg::writes<&State::answer, &State::citations>;

  auto operator()(sg::view<State, reads> in) const {
    std::string answer = in.get<&State::draft>();
    std::vector<std::string> sources;
    for (const tool_result& r : in.get<&State::results>()) {
      std::string number = std::to_string(sources.size() + 1);
      sources.push_back("[" + number + "] " + describe(r));
      answer.append(sources.size() == 1 ? " [" : "[").append(number).append("]");
    }
    return sg::write<&State::answer>(std::move(answer)) | sg::write<&State::citations>(std::move(sources));
  }
};

// Reached from tool_loop by the recovery edge.
struct fallback {
  using stage = post_turn;
  using reads = sg::reads<&State::results>;
  using writes = sg::writes<&State::answer>;

  auto operator()(sg::view<State, reads> in) const {
    const auto& results = in.get<&State::results>();
    std::string why = !results.empty() && !results.back().error.empty() ? results.back().error : "too many tool rounds";
    return sg::write<&State::answer>("Sorry, I could not work that out (" + why + ").");
  }
};

struct memory_write {
  using stage = post_turn;
  using reads = sg::reads<&State::question, &State::answer>;
  using writes = sg::writes<&State::memory>;

  auto operator()(sg::view<State, reads> in) const {
    return sg::write<&State::memory>(in.get<&State::question>() + " -> " + in.get<&State::answer>());
  }
};

// ---- the graph ---------------------------------------------------------------------------------

// clang-format off
using turn_graph = sg::graph<State, turn_lattice,
    sg::edge<sg::start, classify>,
    sg::edge<classify, planner>,
    sg::edge<planner, llm>,
    sg::branch<llm, after_llm>,            // tools, synthesizer or fallback
    sg::edge<tools, llm>,
    sg::branch<synthesizer, check_draft>,  // retry, or on to citation
    sg::join<memory_write, synthesizer, citation>,  // waits for both
    sg::edge<fallback, memory_write>,
    sg::edge<memory_write, sg::end>>;
// clang-format on

// ---- run two turns and show what each stage produced ---------------------------------------------

std::string joined(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const std::string& item : items) out.append(out.empty() ? "" : separator).append(item);
  return out;
}

// One line per node that wrote something, grouped by stage.
void report(const State& s) {
  std::printf("  anchor_plan  classify      body = %s\n", s.body.c_str());
  std::printf("               planner       plan = %s\n", joined(s.plan, "; ").c_str());
  std::printf("  tool_loop    llm + tools   %d round(s):\n", static_cast<int>(s.tool_rounds));
  for (const tool_result& r : s.results) std::printf("                               %s\n", describe(r).c_str());
  if (s.attempts == 0) {
    std::printf("  synthesize   (skipped: after_llm took the recovery edge tool_loop -> post_turn)\n");
    std::printf("  post_turn    fallback      answer = %s\n", s.answer.c_str());
  } else {
    std::printf(
        "  synthesize   synthesizer   %d attempt(s) (check_draft sends a draft without a unit back, "
        "at most %d attempts)\n",
        static_cast<int>(s.attempts), max_attempts);
    std::printf("                             draft = %s\n", s.draft.c_str());
    std::printf("  post_turn    citation      answer = %s\n", s.answer.c_str());
    for (const std::string& c : s.citations) std::printf("                               %s\n", c.c_str());
  }
  std::printf("               memory_write  memory = %zu entr%s:\n", s.memory.size(),
              s.memory.size() == 1 ? "y" : "ies");
  for (const std::string& m : s.memory) std::printf("                               %s\n", m.c_str());
  std::printf("\n");
}

int main() {
  auto app = sg::compile<turn_graph>();
  std::printf("A staged turn: anchor_plan -> tool_loop -> synthesize -> post_turn\n\n");

  std::printf("Turn 1: How long does sunlight take to reach Mars?\n");
  State first = app.invoke(State{.question = "How long does sunlight take to reach Mars?"});
  report(first);

  // Turn 1's memory is passed in with the input: the input goes through the reducers, so
  // it is appended to the (empty) memory of the new run, and memory_write adds this turn's.
  std::printf("Turn 2: How long does sunlight take to reach Vulcan?\n");
  State second = app.invoke(State{.question = "How long does sunlight take to reach Vulcan?", .memory = first.memory});
  report(second);

  // Turn 1 takes 11 supersteps: classify, planner, 3 x llm and 2 x tools in turn,
  // 2 x synthesizer, citation, memory_write. A run that needs exactly L supersteps passes
  // under recursion_limit L; one more throws.
  const State again{.question = "How long does sunlight take to reach Mars?"};
  app.invoke(again, sg::run_config{.recursion_limit = 11});
  std::printf("Turn 1 takes 11 supersteps.\n  recursion_limit = 11: completes\n");
  try {
    app.invoke(again, sg::run_config{.recursion_limit = 10});
  } catch (const sg::recursion_limit_error& e) {
    std::printf("  recursion_limit = 10: throws sg::recursion_limit_error:\n    %s\n", e.what());
  }
}
