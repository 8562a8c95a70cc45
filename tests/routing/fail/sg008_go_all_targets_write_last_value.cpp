// EXPECT: SG008
// EXPECT: SG008_nodes_that_run_together_write_one_last_value_channel<&State::summary, short_form, long_form>
// SG008: the router may pick both short_form and long_form (sg::go_all), so they can run in
// one superstep, and both write `summary`, a last-value channel.
#include <stategraph/stategraph.hpp>

#include <string>

namespace sg = stategraph;

struct State {
  std::string text;
  std::string summary;
  std::string details;
};

struct read_text {
  using reads = sg::reads<>;
  using writes = sg::writes<&State::text>;
  auto operator()(sg::view<State, reads>) const { return sg::write<&State::text>(std::string("a b c")); }
};
struct short_form {
  using reads = sg::reads<&State::text>;
  using writes = sg::writes<&State::summary>;
  auto operator()(sg::view<State, reads> in) const { return sg::write<&State::summary>(in.get<&State::text>()); }
};

#ifdef SG_VIOLATION
inline constexpr auto long_form_channel = &State::summary;
#else
inline constexpr auto long_form_channel = &State::details;
#endif

struct long_form {
  using reads = sg::reads<&State::text>;
  using writes = sg::writes<long_form_channel>;
  auto operator()(sg::view<State, reads> in) const {
    return sg::write<long_form_channel>(in.get<&State::text>() + " (long)");
  }
};

struct pick {
  using reads = sg::reads<&State::text>;
  sg::go_all<short_form, long_form> operator()(sg::view<State, reads>) const {
    return {sg::to<short_form>, sg::to<long_form>};
  }
};

using G = sg::graph<State, sg::edge<sg::start, read_text>, sg::branch<read_text, pick>, sg::edge<short_form, sg::end>,
                    sg::edge<long_form, sg::end>>;

int main() {
  auto app = sg::compile<G>();
  return app.invoke(State{}).summary == "a b c" ? 0 : 1;
}
