// The chaos test: three worker processes serve 200 runs of a looping graph whose node takes
// 2 ms, while one of them, picked at random, is killed with SIGKILL about every 0.3 s for
// about 30 s and started again. Every run must end done, with the state a sequential run of
// the same graph (no store, no queue) ends with, and the database must show each step
// committed once. Prints what the kills hit. SG_CHAOS_SECONDS, SG_CHAOS_LEASE_MS and
// SG_CHAOS_HEARTBEAT_MS change the length of the chaos and the workers' lease and heartbeat.
#include "postgres_fixture.hpp"

#include <stategraph/checkpoint.hpp>
#include <stategraph/stategraph.hpp>
#include <stategraph/store/postgres_queue.hpp>

#include <doctest/doctest.h>

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <new>
#include <random>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

namespace sg = stategraph;
using namespace std::chrono_literals;

// Named: Clang cannot reflect a state type with internal linkage.
namespace postgres_chaos {

// `spin` runs until `steps` reaches `goal`. Each step folds the step number into `acc` and
// logs it, so a step applied twice, skipped or run out of order changes the final state; the
// input logs "in", so an input applied twice shows too.
struct Loop {
  int goal = 0;
  std::int64_t seed = 0;
  sg::counter<int> steps;
  std::int64_t acc = 0;
  sg::append<std::string> log;
};

inline int node_ms = 0;                                    // the workers' node waits; the reference does not
inline std::atomic<std::int64_t>* executions = nullptr;    // node executions of every worker (shared memory)

inline std::int64_t mix(std::int64_t acc, std::int64_t seed, int n) {
  auto x = static_cast<std::uint64_t>(acc) * 6364136223846793005ULL + static_cast<std::uint64_t>(seed) +
           static_cast<std::uint64_t>(n);
  x ^= x >> 29;
  return static_cast<std::int64_t>(x & ((std::uint64_t{1} << 48) - 1));
}

struct spin {
  using reads = sg::reads<&Loop::steps, &Loop::acc, &Loop::seed>;
  using writes = sg::writes<&Loop::steps, &Loop::acc, &Loop::log>;
  auto operator()(sg::view<Loop, reads> in) const {
    if (node_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(node_ms));
    if (executions != nullptr) executions->fetch_add(1);
    const int n = in.get<&Loop::steps>() + 1;
    const std::int64_t acc = mix(in.get<&Loop::acc>(), in.get<&Loop::seed>(), n);
    return sg::write<&Loop::steps>(1) | sg::write<&Loop::acc>(acc) |
           sg::write<&Loop::log>(std::to_string(n) + ":" + std::to_string(acc % 1000));
  }
};
struct again {
  using reads = sg::reads<&Loop::steps, &Loop::goal>;
  sg::go<spin, sg::end> operator()(sg::view<Loop, reads> in) const {
    if (in.get<&Loop::steps>() < in.get<&Loop::goal>()) return sg::to<spin>;
    return sg::to<sg::end>;
  }
};
using loop_graph = sg::graph<Loop, sg::edge<sg::start, spin>, sg::branch<spin, again>>;

}  // namespace postgres_chaos

using namespace postgres_chaos;

namespace {

constexpr int runs = 200;
constexpr int worker_count = 3;
constexpr std::size_t concurrency = 3;

// Goals of 100 to 140 steps: the 2 ms waits alone make a run take a quarter of a second or
// more, so many kills find runs in progress however fast the queue and the store are.
int goal_of(int i) { return 100 + (i * 37) % 41; }
Loop input_of(int i) {
  return Loop{.goal = goal_of(i), .seed = 1000003LL * i + 17, .log = std::vector<std::string>{"in"}};
}
std::string thread_of(int i) { return "chaos-" + std::to_string(i); }

double setting(const char* name, double otherwise) {
  const char* s = std::getenv(name);
  return s != nullptr && *s != '\0' ? std::atof(s) : otherwise;
}
const double seconds = setting("SG_CHAOS_SECONDS", 30);
// A heartbeat slower than the lease (SG_CHAOS_LEASE_MS=150 SG_CHAOS_HEARTBEAT_MS=1000) has
// live workers' runs taken over too, not only dead ones'.
const auto lease = std::chrono::milliseconds(static_cast<int>(setting("SG_CHAOS_LEASE_MS", 800)));
const auto heartbeat = std::chrono::milliseconds(static_cast<int>(setting("SG_CHAOS_HEARTBEAT_MS", 150)));

sg::postgres_options options_for(const sg_test::temp_schema& schema) {
  return sg::postgres_options{.schema = schema.name(), .pool_size = concurrency + 1};
}

// What the test process shares with its workers: memory mapped before the fork.
struct shared_board {
  std::atomic<std::int64_t> executions{0};  // node executions in every worker
  std::atomic<bool> stop{false};            // the workers return once it is set
};

// A worker process: serves until the board says stop. Forked from the test process (which
// has no other thread), it opens connections of its own and never returns into doctest. Not
// exit_when_idle: runs keep arriving, and the queue may be empty between two of them.
pid_t start_worker(const sg_test::temp_schema& schema, const std::string& name, shared_board* board) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  int code = 0;
  try {
    node_ms = 2;
    executions = &board->executions;
    sg::postgres_store store(sg_test::postgres_conninfo(), options_for(schema));
    sg::postgres_queue queue(sg_test::postgres_conninfo(), options_for(schema));
    auto app = sg::compile<loop_graph>(sg::with_store(store));
    std::stop_source stop;
    std::jthread watch([&](std::stop_token st) {
      while (!st.stop_requested() && !board->stop.load()) std::this_thread::sleep_for(10ms);
      stop.request_stop();
    });
    sg::serve(app, queue,
              {.concurrency = concurrency, .lease = lease, .heartbeat = heartbeat, .poll = 5ms,
               .stop = stop.get_token(), .name = name});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "chaos worker %s: %s\n", name.c_str(), e.what());
    code = 3;
  }
  ::_exit(code);
}

std::int64_t scalar(const sg_test::temp_schema& schema, const std::string& sql_with_at) {
  std::string sql = sql_with_at;
  const std::string prefix = "\"" + schema.name() + "\".";
  for (std::size_t at = sql.find('@'); at != std::string::npos; at = sql.find('@', at + prefix.size()))
    sql.replace(at, 1, prefix);
  PGconn* c = PQconnectdb(sg_test::postgres_conninfo().c_str());
  PGresult* r = PQexec(c, sql.c_str());
  std::int64_t out = -1;
  if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1) out = std::atoll(PQgetvalue(r, 0, 0));
  PQclear(r);
  PQfinish(c);
  return out;
}

}  // namespace

TEST_CASE("chaos: three workers killed with SIGKILL again and again; every run completes, each step committed once") {
  sg_test::temp_schema schema("chaos");
  void* shared = ::mmap(nullptr, sizeof(shared_board), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  REQUIRE(shared != MAP_FAILED);
  auto* board = new (shared) shared_board{};

  sg::postgres_store store(sg_test::postgres_conninfo(), options_for(schema));
  sg::postgres_queue queue(sg_test::postgres_conninfo(), options_for(schema));

  // A quarter of the runs wait from the start; the rest arrive evenly over the first 80% of
  // the chaos, so runs are in progress for all of it whatever the machine's speed.
  constexpr int upfront = runs / 4;
  std::vector<std::int64_t> ids;
  for (int i = 0; i < upfront; ++i) ids.push_back(queue.submit(sg::thread_id{thread_of(i)}, input_of(i)));
  const auto arrival_gap = std::chrono::duration<double>(seconds * 0.8 / (runs - upfront));

  std::array<pid_t, worker_count> pids{};
  std::array<std::string, worker_count> names{};
  // A failed REQUIRE must not leave workers serving a dropped schema.
  struct reaper {
    std::array<pid_t, worker_count>& pids;
    ~reaper() {
      for (pid_t& pid : pids)
        if (pid > 0) {
          ::kill(pid, SIGKILL);
          ::waitpid(pid, nullptr, 0);
          pid = 0;
        }
    }
  } reap{pids};
  int incarnations = 0;
  auto launch = [&](int w) {
    names[static_cast<std::size_t>(w)] = "w" + std::to_string(w) + "." + std::to_string(incarnations++);
    pids[static_cast<std::size_t>(w)] = start_worker(schema, names[static_cast<std::size_t>(w)], board);
    REQUIRE(pids[static_cast<std::size_t>(w)] > 0);
  };
  for (int w = 0; w < worker_count; ++w) launch(w);

  std::mt19937 rng(20261202);
  std::uniform_int_distribution<int> pick(0, worker_count - 1);
  std::uniform_int_distribution<int> gap_ms(200, 400);
  int kills = 0, kills_mid_run = 0, runs_orphaned = 0, unexpected_exits = 0;
  const auto t0 = std::chrono::steady_clock::now();
  auto since = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  auto next_kill = t0 + std::chrono::milliseconds(gap_ms(rng));
  int submitted = upfront;
  while (since() < seconds) {
    const auto now = std::chrono::steady_clock::now();
    while (submitted < runs && now - t0 >= arrival_gap * (submitted - upfront + 1)) {
      ids.push_back(queue.submit(sg::thread_id{thread_of(submitted)}, input_of(submitted)));
      ++submitted;
    }
    if (now >= next_kill) {
      const int w = pick(rng);
      const auto wi = static_cast<std::size_t>(w);
      int status = 0;
      if (::waitpid(pids[wi], &status, WNOHANG) == pids[wi]) {
        ++unexpected_exits;  // a worker that died or left by itself
      } else {
        REQUIRE(::kill(pids[wi], SIGKILL) == 0);
        REQUIRE(::waitpid(pids[wi], &status, 0) == pids[wi]);
        REQUIRE(WIFSIGNALED(status));
        ++kills;
        // The dead cannot change a row, and no one else may claim its runs before their
        // leases expire: the runs it holds now are those it held when it died.
        int held = 0;
        for (const auto& r : queue.list(sg::run_status::running))
          if (r.worker == names[wi]) ++held;
        if (held > 0) ++kills_mid_run;
        runs_orphaned += held;
      }
      launch(w);
      next_kill += std::chrono::milliseconds(gap_ms(rng));  // the pace holds whatever a kill costs
    }
    std::this_thread::sleep_for(5ms);
  }
  while (submitted < runs) {  // only when the loop above was cut short
    ids.push_back(queue.submit(sg::thread_id{thread_of(submitted)}, input_of(submitted)));
    ++submitted;
  }
  const double chaos_ended = since();
  const std::int64_t left_at_end = queue.unfinished();

  // The workers left standing finish the rest (orphaned runs once their leases expire).
  const auto deadline = std::chrono::steady_clock::now() + 25s;
  while (queue.unfinished() > 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(20ms);
  const double all_done = since();
  board->stop = true;
  for (int w = 0; w < worker_count; ++w) {
    const auto wi = static_cast<std::size_t>(w);
    int status = 0;
    pid_t got = 0;
    const auto until = std::chrono::steady_clock::now() + 10s;
    while ((got = ::waitpid(pids[wi], &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(10ms);
    if (got == 0) {
      ::kill(pids[wi], SIGKILL);
      ::waitpid(pids[wi], &status, 0);
      FAIL_CHECK("worker " << names[wi] << " did not stop when asked");
    } else {
      CHECK_MESSAGE((WIFEXITED(status) && WEXITSTATUS(status) == 0), "worker " << names[wi] << " status " << status);
    }
    pids[wi] = 0;
  }

  // Every run done, its result and its thread's state those of a sequential run.
  const auto reference = sg::compile<loop_graph>();
  auto app = sg::compile<loop_graph>(sg::with_store(store));
  int done = 0, equal = 0, stored_equal = 0, taken_over = 0, extra_attempts = 0, chains = 0, max_attempts = 0;
  std::int64_t steps_expected = 0;
  for (int i = 0; i < runs; ++i) {
    const auto r = queue.get(ids[static_cast<std::size_t>(i)]);
    if (r.status == sg::run_status::done) ++done;
    else if (i - done < 3)  // the first few that are not, to show why
      MESSAGE(thread_of(i) << ": run " << r.id << " " << sg::to_string(r.status) << " after " << r.attempts
                           << " attempts: " << r.error);
    if (r.attempts > 1) ++taken_over;
    extra_attempts += r.attempts - 1;
    max_attempts = std::max(max_attempts, r.attempts);
    const Loop expected = reference.invoke(input_of(i));
    steps_expected += goal_of(i);
    auto same = [&](const Loop& got) {
      return got.goal == expected.goal && got.seed == expected.seed && got.steps == expected.steps &&
             got.acc == expected.acc && got.log.value() == expected.log.value();
    };
    if (r.status == sg::run_status::done && same(sg::state_from_json<Loop>(r.result))) ++equal;
    const auto snap = app.get_state(sg::thread_id{thread_of(i)});
    if (snap && snap->next.empty() && same(snap->values)) ++stored_equal;
    // The thread's history is one chain: ids 1..goal+1, each the child of the one before,
    // the input checkpoint first and then one per step, in order.
    const auto history = store.list(thread_of(i));
    bool chain = history.size() == static_cast<std::size_t>(goal_of(i) + 1);
    for (const auto& c : history) chain = chain && c.parent == c.id - 1 && c.step == c.id - 1;
    if (chain) ++chains;
    else if (chains == i && !history.empty())  // the first broken one, to show how
      MESSAGE(thread_of(i) << ": " << history.size() << " checkpoints, head " << history.front().id << " parent "
                           << history.front().parent << " step " << history.front().step);
  }
  // In the database itself, over every checkpoint ever committed (the store keeps them all):
  // no (thread, step) twice, and as many checkpoints as the runs have steps and inputs.
  const std::int64_t duplicate_steps = scalar(
      schema, "SELECT count(*) FROM (SELECT thread, step FROM @sg_checkpoints GROUP BY thread, step HAVING count(*) > 1) d");
  const std::int64_t checkpoints = scalar(schema, "SELECT count(*) FROM @sg_checkpoints");
  const std::int64_t node_runs = board->executions.load();

  MESSAGE("chaos: " << runs << " runs (" << steps_expected << " steps, a 2 ms node), " << worker_count
                    << " workers x " << concurrency << ", lease " << lease.count() << " ms, heartbeat " << heartbeat.count() << " ms; chaos " << chaos_ended
                    << " s (" << left_at_end << " runs not done then), all done at " << all_done << " s");
  MESSAGE("kills: " << kills << " (SIGKILL), " << kills_mid_run << " mid-run, holding " << runs_orphaned
                    << " runs in all; worker incarnations " << incarnations << "; unexpected exits "
                    << unexpected_exits);
  MESSAGE("runs: done " << done << ", equal to the sequential reference " << equal << " (stored state " << stored_equal
                        << "), taken over " << taken_over << " (" << extra_attempts << " claims after the first), most attempts " << max_attempts);
  MESSAGE("steps: committed " << checkpoints - runs << " of " << steps_expected << ", (thread, step) committed twice "
                              << duplicate_steps << ", one chain per thread " << chains << "; node executions "
                              << node_runs << " (" << node_runs - steps_expected << " run again after a kill)");
  std::printf("chaos figures: runs %d done %d equal %d taken_over %d kills %d mid_run %d orphaned %d "
              "duplicate_steps %lld node_reruns %lld chaos_s %.1f left %lld total_s %.1f\n",
              runs, done, equal, taken_over, kills, kills_mid_run, runs_orphaned,
              static_cast<long long>(duplicate_steps), static_cast<long long>(node_runs - steps_expected), chaos_ended,
              static_cast<long long>(left_at_end), all_done);

  CHECK(done == runs);
  CHECK(equal == runs);
  CHECK(stored_equal == runs);
  CHECK(chains == runs);
  CHECK(duplicate_steps == 0);
  CHECK(checkpoints == steps_expected + runs);
  CHECK(node_runs >= steps_expected);  // at least once
  CHECK(unexpected_exits == 0);
  // The chaos did happen: a kill about every 0.3 s, many of them with runs in progress.
  CHECK(kills >= static_cast<int>(seconds / 0.3 * 0.7));
  CHECK(kills_mid_run >= kills / 4);
  CHECK(extra_attempts >= runs_orphaned);  // each run a kill left behind was claimed again
  board->~shared_board();
  ::munmap(shared, sizeof(shared_board));
}
