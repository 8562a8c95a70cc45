// A review desk: a graph with seams whose subgraph pauses inside for two humans, checkpointed
// in a SQLite file. One context — the desk, which provides the `writer` seam, lets nodes ask
// (ctx.interrupt) and emit progress (ctx.emit) — reaches every node, in the subgraph too, on
// every call: the streamed first run, each answer, the time travel.
//
//   brief -> review -> publish          review: draft -> {fact_check, legal} -> polish
//
// The run pauses inside `review` where fact_check and legal each ask; they are answered one
// by one (sg::answers); the subgraph's own checkpoint is read by namespace
// (sg::checkpoint_ns<review_node>); then the thread travels back to the pause and is
// answered differently, the child continuing from its checkpoint of then.
#include <stategraph/checkpoint.hpp>
#include <stategraph/stategraph.hpp>
#include <stategraph/store/sqlite.hpp>
#include <stategraph/subgraph.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace sg = stategraph;

namespace review_desk {

struct Article {
  std::string topic;
  std::string text;
  sg::append<std::string> notes;
  std::string verdict;
};

// The seam: whatever writes prose. The desk's is a deterministic stand-in for a model.
struct writer {
  virtual ~writer() = default;
  virtual std::string write(const std::string& about) = 0;
};
struct house_writer : writer {
  int calls = 0;
  std::string write(const std::string& about) override {
    ++calls;
    return "<" + about + ">";
  }
};
// The one context of every call: the seam, interrupts, custom events.
struct desk : sg::run_context, sg::emitter<std::string> {
  house_writer pen;
  template <class Seam>
  Seam& provide() {
    return pen;
  }
};

// ---- the review subgraph -----------------------------------------------------------------
struct draft {
  using seam = writer;
  using reads = sg::reads<&Article::topic>;
  using writes = sg::writes<&Article::text>;
  auto operator()(sg::view<Article, reads> in, desk& ctx) const {
    ctx.emit("drafting " + in.get<&Article::topic>());
    return sg::write<&Article::text>(sg::seam<writer>(ctx).write(in.get<&Article::topic>()));
  }
};
struct fact_check {
  using seam = writer;
  using reads = sg::reads<&Article::text>;
  using writes = sg::writes<&Article::notes>;
  auto operator()(sg::view<Article, reads> in, desk& ctx) const {
    auto answer = ctx.interrupt<std::string>("facts of " + in.get<&Article::text>() + "?");
    return sg::write<&Article::notes>("facts " + sg::seam<writer>(ctx).write(answer));
  }
};
struct legal {
  using seam = writer;
  using reads = sg::reads<&Article::text>;
  using writes = sg::writes<&Article::notes>;
  auto operator()(sg::view<Article, reads> in, desk& ctx) const {
    auto answer = ctx.interrupt<std::string>("legal on " + in.get<&Article::text>() + "?");
    return sg::write<&Article::notes>("legal " + sg::seam<writer>(ctx).write(answer));
  }
};
struct polish {
  using reads = sg::reads<&Article::notes>;
  using writes = sg::writes<&Article::verdict>;
  auto operator()(sg::view<Article, reads> in) const {
    return sg::write<&Article::verdict>("ready after " + std::to_string(in.get<&Article::notes>().size()) + " notes");
  }
};
using review_graph = sg::graph<Article, sg::edge<sg::start, draft>, sg::edge<draft, fact_check>,
                               sg::edge<draft, legal>, sg::join<polish, fact_check, legal>,
                               sg::edge<polish, sg::end>>;
struct review {};
using review_node = sg::subgraph<review, review_graph>;

// ---- the desk's graph ----------------------------------------------------------------------
struct brief {
  using seam = writer;
  using reads = sg::reads<&Article::topic>;
  using writes = sg::writes<&Article::notes>;
  auto operator()(sg::view<Article, reads> in, desk& ctx) const {
    ctx.emit("briefing");
    return sg::write<&Article::notes>("brief " + sg::seam<writer>(ctx).write(in.get<&Article::topic>()));
  }
};
struct publish {
  using reads = sg::reads<&Article::text, &Article::verdict>;
  using writes = sg::writes<&Article::notes>;
  auto operator()(sg::view<Article, reads> in) const {
    return sg::write<&Article::notes>("published " + in.get<&Article::text>() + ", " + in.get<&Article::verdict>());
  }
};
using desk_graph = sg::graph<Article, sg::edge<sg::start, brief>, sg::edge<brief, review_node>,
                             sg::edge<review_node, publish>, sg::edge<publish, sg::end>>;

constexpr auto in_review = sg::checkpoint_ns<review_node>;

template <class App>
void show_pending(const App& app, const sg::thread_id& t) {
  auto s = app.get_state(t);
  for (const auto& in : s->interrupts) std::printf("  pending %s: %s\n", in.path().c_str(), in.payload.c_str());
  for (const auto& sub : s->subgraphs)
    std::printf("  paused subgraph %s at its checkpoint %lld\n", sub.ns.c_str(), static_cast<long long>(sub.checkpoint_id));
}
void show_notes(const char* title, const Article& a) {
  std::printf("%s:", title);
  for (const auto& n : a.notes) std::printf(" [%s]", n.c_str());
  std::printf(" verdict '%s'\n", a.verdict.c_str());
}

}  // namespace review_desk

int main() {
  using namespace review_desk;
  const auto file = std::filesystem::temp_directory_path() / ("review_desk-" + std::to_string(::getpid()) + ".db");
  {
    sg::sqlite_store store{file.string()};
    auto app = sg::compile<desk_graph>(sg::with_store(store));
    const sg::thread_id t{"article-7"};
    desk ctx;

    // 1. Streamed on the thread: updates, the nodes' emits (the subgraph's too), checkpoints.
    std::printf("stream:\n");
    app.stream(Article{.topic = "tides"}, t, sg::stream_mode::updates | sg::stream_mode::custom | sg::stream_mode::checkpoints,
               ctx, [](const sg::event_for<Article, desk>& e) {
                 if (e.mode == sg::stream_mode::custom)
                   std::printf("  custom %s: %s\n", std::string(e.node).c_str(), e.custom->c_str());
                 else if (e.mode == sg::stream_mode::updates)
                   std::printf("  update %s\n", std::string(e.node).c_str());
                 else if (e.mode == sg::stream_mode::checkpoints)
                   std::printf("  checkpoint %lld (%s)\n", static_cast<long long>(e.checkpoint.id),
                               std::string(e.checkpoint.source).c_str());
               });
    const auto paused = app.get_state(t);
    std::printf("paused inside review at checkpoint %lld:\n", static_cast<long long>(paused->checkpoint_id));
    show_pending(app, t);

    // 2. The subgraph's own checkpoint, by namespace.
    auto child = app.get_state(t, in_review);
    std::printf("review's state: text '%s', next:", child->values.text.c_str());
    for (const auto& n : child->next) std::printf(" %s", n.c_str());
    std::printf("\n");

    // 3. Answered one by one, with the same context.
    const auto pending = paused->interrupts;
    app.resume(t, sg::answers{{pending[0].id, "tides are lunar"}}, ctx);
    std::printf("after answering %s:\n", pending[0].path().c_str());
    show_pending(app, t);
    Article done = app.resume(t, sg::answers{{pending[1].id, "no claims"}}, ctx);
    show_notes("done", done);

    // 4. Time travel to the pause: review continues from its checkpoint of then (draft does
    //    not run again), both ask again, and are answered at once, differently.
    const int pen_calls = ctx.pen.calls;
    app.resume(t, sg::checkpoint_id{paused->checkpoint_id}, ctx);
    std::printf("back at the pause (draft ran again: %s):\n", ctx.pen.calls == pen_calls ? "no" : "yes");
    show_pending(app, t);
    const auto again = app.get_state(t)->interrupts;
    Article second = app.resume(t, sg::answers{{again[0].id, "tides are solar too"}, {again[1].id, "cite NOAA"}}, ctx);
    show_notes("second branch", second);
    std::printf("review's checkpoints: %zu; the desk's: %zu; the pen wrote %d times\n",
                app.history(t, in_review).size(), app.history(t).size(), ctx.pen.calls);
  }
  std::filesystem::remove(file);
  for (const char* suffix : {"-wal", "-shm"}) std::filesystem::remove(file.string() + suffix);
}
