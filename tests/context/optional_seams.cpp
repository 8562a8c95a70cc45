// Optional seams (scenarios §5, Pleach's optional nodes): a node whose seam is
// `sg::optional_seam<S>` runs only when the run's context provides S. Without it the node is
// skipped: it counts as having run and written nothing, so its edges pass through. The
// context's type decides when it can (derives from S or has provide<S>(): always runs;
// neither provide<S>() nor find<S>(): never runs), and find<S>() decides per call otherwise.
#include <stategraph/stategraph.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

// One namespace per file: the suite builds in unity batches (tests/CMakeLists.txt).
namespace unity_context_optional_seams {

namespace sg = stategraph;

namespace optional_seam_cases {  // named: Clang cannot reflect types with internal linkage

struct State {
  std::string text;
  sg::append<std::string> log;
  sg::append<std::string> entities;
};

struct extractor {
  virtual ~extractor() = default;
  virtual std::vector<std::string> extract(const std::string& text) = 0;
};
struct capitals : extractor {  // the words that start with a capital letter
  int calls = 0;
  std::vector<std::string> extract(const std::string& text) override {
    ++calls;
    std::vector<std::string> out;
    std::string word;
    for (char c : text + " ") {
      if (c != ' ') word += c;
      else {
        if (!word.empty() && word[0] >= 'A' && word[0] <= 'Z') out.push_back(word);
        word.clear();
      }
    }
    return out;
  }
};

struct read_in {
  using reads = sg::reads<&State::text>;
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::log>("read"); }
};
struct extract_entities {
  using seam = sg::optional_seam<extractor>;
  using reads = sg::reads<&State::text>;
  using writes = sg::writes<&State::entities, &State::log>;
  template <class Ctx>
  auto operator()(sg::view<State, reads> in, Ctx& ctx) const {
    std::vector<std::string> found = sg::seam<extractor>(ctx).extract(in.get<&State::text>());
    return sg::write<&State::entities>(found) | sg::write<&State::log>("extract");
  }
};
struct answer {
  using reads = sg::reads<&State::entities>;
  using writes = sg::writes<&State::log>;
  auto operator()(sg::view<State, reads> in) const {
    return sg::write<&State::log>("answer with " + std::to_string(in.get<&State::entities>().size()));
  }
};
using G = sg::graph<State, sg::edge<sg::start, read_in>, sg::edge<read_in, extract_entities>,
                    sg::edge<extract_entities, answer>, sg::edge<answer, sg::end>>;

// The context's type says the seam is there: the node always runs.
struct with_extractor {
  capitals found;
  template <class Seam>
  Seam& provide() {
    return found;
  }
};
// The context's type says it is not: the node never runs, and needs no code for it.
struct without_extractor {
  int budget = 3;
};
// The context may hold one: find() tells at each call.
struct maybe_extractor {
  capitals found;
  bool enabled = false;
  template <class Seam>
  Seam* find() {
    return enabled ? &found : nullptr;
  }
};

using strings = std::vector<std::string>;

}  // namespace optional_seam_cases
using namespace optional_seam_cases;

TEST_CASE("an optional seam the context's type provides: the node runs") {
  with_extractor ctx;
  State out = sg::compile<G>().invoke(State{.text = "Ada met Grace in London"}, ctx);
  CHECK(out.entities == strings{"Ada", "Grace", "London"});
  CHECK(out.log == strings{"read", "extract", "answer with 3"});
  CHECK(ctx.found.calls == 1);
  static_assert(!sg::detail::skipped_by_type<extract_entities, with_extractor>);
}

TEST_CASE("an optional seam the context's type lacks: the node is skipped at compile time, its edges pass through") {
  static_assert(sg::detail::skipped_by_type<extract_entities, without_extractor>);
  static_assert(sg::detail::skipped_by_type<extract_entities, sg::detail::no_context>);
  auto app = sg::compile<G>();
  without_extractor ctx;
  State out = app.invoke(State{.text = "Ada met Grace"}, ctx);
  CHECK(out.entities.empty());
  CHECK(out.log == strings{"read", "answer with 0"});  // answer still runs after the skipped node
  State plain = app.invoke(State{.text = "Ada met Grace"});  // no context at all
  CHECK(plain.log == strings{"read", "answer with 0"});
  // A skipped node writes nothing: the streamed updates name only the nodes that ran.
  strings updated;
  app.stream(State{.text = "Ada"}, sg::stream_mode::updates, [&](const sg::event<State>& e) { updated.emplace_back(e.node); });
  CHECK(updated == strings{"read_in", "answer"});
}

TEST_CASE("an optional seam found at run time: find() decides per call") {
  static_assert(sg::detail::skipped_at_run_time<extract_entities, maybe_extractor>);
  auto app = sg::compile<G>();
  maybe_extractor ctx;
  State absent = app.invoke(State{.text = "Ada met Grace"}, ctx);
  CHECK(absent.entities.empty());
  CHECK(absent.log == strings{"read", "answer with 0"});
  CHECK(ctx.found.calls == 0);
  ctx.enabled = true;
  State present = app.invoke(State{.text = "Ada met Grace"}, ctx);
  CHECK(present.entities == strings{"Ada", "Grace"});
  CHECK(present.log == strings{"read", "extract", "answer with 2"});
  CHECK(ctx.found.calls == 1);
}

}  // namespace unity_context_optional_seams
