// oneTBB flow_graph peer for W1 and W2 of shared/design/benchmarks.md: the established C++
// dataflow graph doing the same work as the stategraph workloads (a node adds 1 to
// `counter` and appends its own name to `log`), written as a oneTBB user would.
//
// W1 pipeline10: ten serial function_nodes in a chain; the state travels by pointer and
//   each node updates it in place — in a chain nothing else can touch it.
// W2 fanout8: `split` updates the state, then its output goes to eight workers (a
//   function_node broadcasts to all its successors) that run with unlimited concurrency on
//   the snapshot and each return an update; a queueing join_node waits for all eight and
//   the `join` node merges them in worker order, then adds its own update.
//
// Each benchmark also runs inside a one-thread task_arena, the counterpart of stategraph's
// sequential executor. Both wall time (UseRealTime) and the whole process's CPU time are
// reported: worker threads do part of the work, so the main thread's CPU time alone would
// undercount it, and on a shared machine wall time also counts the time spent waiting for a
// core. The counter `units` is how many supersteps (W1) or invocations (W2) one iteration is.
#include <tbb/flow_graph.h>
#include <tbb/task_arena.h>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace {

namespace flow = tbb::flow;

struct state {
  int counter = 0;
  std::vector<std::string> log;
};

struct update {
  int counter = 0;
  std::string log;
};

void merge(state& s, update&& u) {
  s.counter += u.counter;
  s.log.push_back(std::move(u.log));
}

constexpr std::array<std::string_view, 10> chain_names = {"n1", "n2", "n3", "n4", "n5",
                                                          "n6", "n7", "n8", "n9", "n10"};
constexpr std::array<std::string_view, 8> worker_names = {"w1", "w2", "w3", "w4", "w5", "w6", "w7", "w8"};

// ---- W1 ------------------------------------------------------------------------------

class pipeline10 {
 public:
  using node = flow::function_node<state*, state*>;

  pipeline10() {
    for (auto name : chain_names) {
      nodes_.push_back(std::make_unique<node>(graph_, flow::serial, [name](state* s) {
        s->counter += 1;
        s->log.emplace_back(name);
        return s;
      }));
    }
    for (std::size_t i = 0; i + 1 < nodes_.size(); ++i) flow::make_edge(*nodes_[i], *nodes_[i + 1]);
  }

  state run() {
    state s;
    nodes_.front()->try_put(&s);
    graph_.wait_for_all();
    return s;
  }

  static bool finished_right(const state& s) {
    return s.counter == 10 && std::equal(s.log.begin(), s.log.end(), chain_names.begin(), chain_names.end());
  }

 private:
  flow::graph graph_;  // declared first: destroyed after the nodes that refer to it
  std::vector<std::unique_ptr<node>> nodes_;
};

// ---- W2 ------------------------------------------------------------------------------

template <std::size_t>
using update_slot = update;
template <class Seq>
struct updates_of;
template <std::size_t... I>
struct updates_of<std::index_sequence<I...>> {
  using type = std::tuple<update_slot<I>...>;
};
using eight_updates = updates_of<std::make_index_sequence<worker_names.size()>>::type;

class fanout8 {
 public:
  using split_node = flow::function_node<state*, const state*>;
  using worker_node = flow::function_node<const state*, update>;
  using join_node = flow::join_node<eight_updates, flow::queueing>;
  using merge_node = flow::function_node<eight_updates, flow::continue_msg>;

  fanout8()
      : split_(graph_, flow::serial,
               [](state* s) -> const state* {
                 s->counter += 1;
                 s->log.emplace_back("split");
                 return s;
               }),
        join_(graph_),
        merge_(graph_, flow::serial, [this](eight_updates u) {
          // The join node's own work: merge the workers in their order, then its own update.
          std::apply([this](auto&... each) { (merge(*current_, std::move(each)), ...); }, u);
          merge(*current_, update{1, "join"});
          return flow::continue_msg{};
        }) {
    for (auto name : worker_names)
      workers_.push_back(std::make_unique<worker_node>(
          graph_, flow::unlimited, [name](const state*) { return update{1, std::string(name)}; }));
    [this]<std::size_t... I>(std::index_sequence<I...>) {
      ((flow::make_edge(split_, *workers_[I]), flow::make_edge(*workers_[I], flow::input_port<I>(join_))), ...);
    }(std::make_index_sequence<worker_names.size()>{});
    flow::make_edge(join_, merge_);
  }

  state run() {
    state s;
    current_ = &s;
    split_.try_put(&s);
    graph_.wait_for_all();
    current_ = nullptr;
    return s;
  }

  static bool finished_right(const state& s) {
    if (s.counter != 10 || s.log.size() != 10 || s.log.front() != "split" || s.log.back() != "join") return false;
    return std::equal(s.log.begin() + 1, s.log.end() - 1, worker_names.begin(), worker_names.end());
  }

 private:
  flow::graph graph_;
  state* current_ = nullptr;
  split_node split_;
  std::vector<std::unique_ptr<worker_node>> workers_;
  join_node join_;
  merge_node merge_;
};

// ---- harness -----------------------------------------------------------------------------

// threads == 0: oneTBB's default arena (every core); otherwise an arena of that many threads.
// The graph is built inside the arena it runs in, since a flow::graph attaches to the arena
// current at its construction.
template <class Workload>
void measure(benchmark::State& st, double units, int threads) {
  auto body = [&] {
    Workload w;
    bool ok = true;
    for (auto _ : st) {
      state out = w.run();
      benchmark::DoNotOptimize(out);
      benchmark::ClobberMemory();
      ok = ok && Workload::finished_right(out);
    }
    if (!ok) st.SkipWithError("the workload did not produce its expected state");
  };
  if (threads == 0) {
    body();
  } else {
    tbb::task_arena arena(threads);
    arena.execute(body);
  }
  st.counters["units"] = units;
  st.counters["threads"] = threads == 0 ? tbb::this_task_arena::max_concurrency() : threads;
}

void w1(benchmark::State& st) { measure<pipeline10>(st, 10.0, static_cast<int>(st.range(0))); }
void w2(benchmark::State& st) { measure<fanout8>(st, 1.0, static_cast<int>(st.range(0))); }

double min_of(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }
double max_of(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }

void options(benchmark::internal::Benchmark* b) {
  b->ArgName("arena_threads")->Arg(0)->Arg(1)->UseRealTime()->MeasureProcessCPUTime()->Repetitions(10);
  b->ComputeStatistics("min", min_of)->ComputeStatistics("max", max_of);
}

}  // namespace

// arena_threads:0 is oneTBB's default arena (all cores), arena_threads:1 one thread.
BENCHMARK(w1)->Name("W1_pipeline10/onetbb")->Apply(options);
BENCHMARK(w2)->Name("W2_fanout8/onetbb")->Apply(options);

BENCHMARK_MAIN();
