// Pleach (scenarios §5): a staged turn whose bookkeeping is reactive, whose extractor is
// optional, and whose determinism is checked by replaying the recorded thread.
//
//   anchor_plan: intent_detector        -> tool_loop: tool_call -> synthesize: respond
//   post_turn:   cost_rollup (reactive: subscribes to `tokens`, woken by every writer)
//   anchor_plan: extract_entities (optional seam: runs only when the context has an extractor)
//
// The lattice allows the edges, and `sg::wakes` allows the wake-ups of the post_turn roll-up
// by the stages that write `tokens`; every node names its stage (SG018).
#include <stategraph/checkpoint.hpp>
#include <stategraph/stategraph.hpp>
#include <stategraph/store/memory.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace sg = stategraph;

struct State {
  std::string question;
  sg::append<std::string> entities;
  sg::last_value<std::string> intent;
  sg::last_value<std::string> tool_result;
  sg::last_value<std::string> answer;
  sg::last_value<std::string> stamp;
  sg::counter<int> tokens;
  sg::counter<int> cost;  // tokens seen by the roll-up, summed
};

struct anchor_plan {};
struct tool_loop {};
struct synthesize {};
struct post_turn {};

// clang-format off
using turn_lattice = sg::lattice<
    sg::within<anchor_plan>,
    sg::transition<anchor_plan, tool_loop>,
    sg::transition<tool_loop, synthesize>,
    sg::singleton<synthesize>,
    sg::wakes<anchor_plan, post_turn>,   // writers of `tokens` may wake the roll-up
    sg::wakes<tool_loop, post_turn>,
    sg::wakes<synthesize, post_turn>>;
// clang-format on

// ---- the optional extractor ---------------------------------------------------------------

struct extractor {
  virtual ~extractor() = default;
  virtual std::vector<std::string> extract(const std::string& text) = 0;
};
struct capitalised_words : extractor {
  std::vector<std::string> extract(const std::string& text) override {
    std::vector<std::string> out;
    std::string word;
    for (char c : text + " ") {
      if (c != ' ' && c != '?') {
        word += c;
      } else {
        if (!word.empty() && word[0] >= 'A' && word[0] <= 'Z') out.push_back(word);
        word.clear();
      }
    }
    return out;
  }
};
struct with_extractor {  // the context's type says: the extractor is there
  capitalised_words words;
  template <class Seam>
  Seam& provide() {
    return words;
  }
};
struct without_extractor {};  // the context's type says: no extractor; the node is skipped

// ---- nodes ----------------------------------------------------------------------------------

struct intent_detector {
  using stage = anchor_plan;
  using reads = sg::reads<&State::question>;
  using writes = sg::writes<&State::intent, &State::tokens>;
  auto operator()(sg::view<State, reads> in) const {
    const std::string& q = in.get<&State::question>();
    return sg::write<&State::intent>(q.find("weather") != std::string::npos ? std::string("weather") : std::string("chat")) |
           sg::write<&State::tokens>(static_cast<int>(q.size()) / 4);
  }
};
struct extract_entities {
  using stage = anchor_plan;
  using seam = sg::optional_seam<extractor>;
  using reads = sg::reads<&State::question>;
  using writes = sg::writes<&State::entities>;
  template <class Ctx>
  auto operator()(sg::view<State, reads> in, Ctx& ctx) const {
    return sg::write<&State::entities>(sg::seam<extractor>(ctx).extract(in.get<&State::question>()));
  }
};
struct tool_call {
  using stage = tool_loop;
  using reads = sg::reads<&State::intent, &State::entities>;
  using writes = sg::writes<&State::tool_result, &State::tokens>;
  auto operator()(sg::view<State, reads> in) const {
    std::string where = in.get<&State::entities>().empty() ? std::string("somewhere") : in.get<&State::entities>().front();
    return sg::write<&State::tool_result>(in.get<&State::intent>() + "(" + where + ") = sunny") | sg::write<&State::tokens>(7);
  }
};
template <bool Clock>
struct respond {
  using stage = synthesize;
  using reads = sg::reads<&State::tool_result>;
  using writes = sg::writes<&State::answer, &State::stamp, &State::tokens>;
  static constexpr std::string_view name = "respond";
  auto operator()(sg::view<State, reads> in) const {
    // The planted nondeterminism: a stamp read from a clock, not from the state.
    static int ticks = 0;
    std::string stamp = Clock ? "at tick " + std::to_string(++ticks) : std::string("at tick 0");
    return sg::write<&State::answer>("It is " + in.get<&State::tool_result>()) | sg::write<&State::stamp>(stamp) |
           sg::write<&State::tokens>(11);
  }
};
struct cost_rollup {
  using stage = post_turn;
  using subscribes = sg::subscribes<&State::tokens>;
  using reads = sg::reads<&State::tokens>;
  using writes = sg::writes<&State::cost>;
  auto operator()(sg::view<State, reads> in) const { return sg::write<&State::cost>(in.get<&State::tokens>()); }
};

template <bool Clock>
using turn = sg::graph<State, turn_lattice, sg::edge<sg::start, intent_detector>, sg::edge<sg::start, extract_entities>,
                       sg::join<tool_call, intent_detector, extract_entities>, sg::edge<tool_call, respond<Clock>>,
                       sg::edge<respond<Clock>, sg::end>, sg::edge<cost_rollup, sg::end>>;

void show(const char* title, const State& s) {
  std::printf("%s\n  entities:", title);
  for (const auto& e : s.entities) std::printf(" %s", e.c_str());
  if (s.entities.empty()) std::printf(" (none)");
  std::printf("\n  answer: %s\n  tokens %d, cost roll-up %d\n", s.answer.c_str(), static_cast<int>(s.tokens),
              static_cast<int>(s.cost));
}

int main() {
  const State question{.question = "what is the weather in Lisbon?"};

  // The optional extractor, present and absent: one graph, two contexts.
  auto plain = sg::compile<turn<false>>();
  with_extractor has;
  without_extractor lacks;
  show("with an extractor:", plain.invoke(question, has));
  show("without one (extract_entities skipped, its edges pass through):", plain.invoke(question, lacks));

  // Replay: a deterministic turn replays clean; a clock-reading respond is named.
  sg::memory_store store;
  auto steady = sg::compile<turn<false>>(sg::with_store(store));
  steady.invoke(question, sg::thread_id{"steady"}, has);
  std::printf("%s\n", sg::replay(steady, store, sg::thread_id{"steady"}, has).describe().c_str());

  auto clocked = sg::compile<turn<true>>(sg::with_store(store));
  clocked.invoke(question, sg::thread_id{"clocked"}, has);
  std::printf("%s\n", sg::replay(clocked, store, sg::thread_id{"clocked"}, has).describe().c_str());
}
