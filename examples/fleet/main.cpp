// A fleet: a producer submits 100 threads to a run queue in PostgreSQL, two worker processes
// serve them, one is killed with SIGKILL halfway, and the survivor finishes its runs once
// their leases expire. Then every thread is checked against a run that was never killed.
//
//   fleet CONNINFO                 the producer and overseer (starts the two workers)
//   fleet CONNINFO worker NAME     a worker: sg::serve until no run is pending or running
//
// Each thread is a small order pipeline: `step` runs until the order's items are handled,
// each step taking a few milliseconds of simulated I/O.
#include <stategraph/checkpoint.hpp>
#include <stategraph/stategraph.hpp>
#include <stategraph/store/postgres.hpp>
#include <stategraph/store/postgres_queue.hpp>

#include <libpq-fe.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace sg = stategraph;
using namespace std::chrono_literals;

namespace fleet {

struct Order {
  int items = 0;
  sg::counter<int> handled;
  sg::append<std::string> log;
};
inline bool simulate_io = false;  // the workers wait; the reference run does not
struct step {
  using reads = sg::reads<&Order::handled, &Order::items>;
  using writes = sg::writes<&Order::handled, &Order::log>;
  auto operator()(sg::view<Order, reads> in) const {
    if (simulate_io) std::this_thread::sleep_for(8ms);  // a call to another service
    const int n = in.get<&Order::handled>() + 1;
    return sg::write<&Order::handled>(1) | sg::write<&Order::log>("item " + std::to_string(n) + " of " +
                                                                  std::to_string(in.get<&Order::items>()));
  }
};
struct more {
  using reads = sg::reads<&Order::handled, &Order::items>;
  sg::go<step, sg::end> operator()(sg::view<Order, reads> in) const {
    if (in.get<&Order::handled>() < in.get<&Order::items>()) return sg::to<step>;
    return sg::to<sg::end>;
  }
};
using order_graph = sg::graph<Order, sg::edge<sg::start, step>, sg::branch<step, more>>;

}  // namespace fleet

namespace {

constexpr int orders = 100;
const sg::postgres_options options{.schema = "fleet_example", .pool_size = 6};

int items_of(int i) { return 2 + i % 4; }

int worker(const std::string& conninfo, const std::string& name) {
  fleet::simulate_io = true;
  sg::postgres_store store(conninfo, options);
  sg::postgres_queue queue(conninfo, options);
  auto app = sg::compile<fleet::order_graph>(sg::with_store(store));
  const auto stats = sg::serve(app, queue,
                               {.concurrency = 4, .lease = 1s, .heartbeat = 200ms, .poll = 5ms, .exit_when_idle = true,
                                .name = name});
  std::printf("worker %s: claimed %zu, done %zu\n", name.c_str(), stats.claimed, stats.done);
  return 0;
}

pid_t start_worker(const std::string& conninfo, const char* name) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execl("/proc/self/exe", "fleet", conninfo.c_str(), "worker", name, static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

void drop_schema(const std::string& conninfo) {
  PGconn* c = PQconnectdb(conninfo.c_str());
  PQsetNoticeProcessor(c, [](void*, const char*) {}, nullptr);
  PQclear(PQexec(c, "DROP SCHEMA IF EXISTS fleet_example CASCADE"));
  PQfinish(c);
}

}  // namespace

int main(int argc, char** argv) {
  const char* env = std::getenv("SG_TEST_POSTGRES");
  if (argc < 2 && env == nullptr) {
    std::fprintf(stderr, "usage: fleet CONNINFO [worker NAME]  (or set SG_TEST_POSTGRES)\n");
    return 2;
  }
  const std::string conninfo = argc >= 2 ? argv[1] : env;
  if (argc >= 4 && std::string(argv[2]) == "worker") return worker(conninfo, argv[3]);

  drop_schema(conninfo);
  sg::postgres_store store(conninfo, options);
  sg::postgres_queue queue(conninfo, options);
  auto app = sg::compile<fleet::order_graph>(sg::with_store(store));

  std::vector<std::int64_t> runs;
  for (int i = 0; i < orders; ++i)
    runs.push_back(queue.submit(sg::thread_id{"order-" + std::to_string(i)}, fleet::Order{.items = items_of(i)}));
  std::printf("submitted %d runs\n", orders);
  std::fflush(stdout);  // before fork: the workers must not inherit what is buffered
  const auto t0 = std::chrono::steady_clock::now();
  auto since = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };

  pid_t a = start_worker(conninfo, "A");
  pid_t b = start_worker(conninfo, "B");
  while (queue.list(sg::run_status::done).size() < orders / 2) std::this_thread::sleep_for(2ms);
  ::kill(a, SIGKILL);
  int status = 0;
  ::waitpid(a, &status, 0);
  std::size_t held = 0;
  for (const auto& r : queue.list(sg::run_status::running))
    if (r.worker == "A") ++held;
  std::printf("worker A killed by SIGKILL: %s, holding %zu runs\n", WIFSIGNALED(status) ? "yes" : "no", held);
  std::fflush(stdout);
  const double killed_at = since();
  ::waitpid(b, &status, 0);
  std::printf("the survivor finished in %.1f s after the kill\n", since() - killed_at);

  // Every thread against a run never killed: the plain app, no store.
  const auto reference = sg::compile<fleet::order_graph>();
  std::size_t done = 0, equal = 0, twice = 0, taken_over = 0;
  for (int i = 0; i < orders; ++i) {
    const auto r = queue.get(runs[static_cast<std::size_t>(i)]);
    if (r.status == sg::run_status::done) ++done;
    if (r.attempts > 1) ++taken_over;
    const auto expected = reference.invoke(fleet::Order{.items = items_of(i)});
    const auto got = sg::state_from_json<fleet::Order>(r.result);
    if (got.handled == expected.handled && got.log.value() == expected.log.value()) ++equal;
    // One chain per thread: a step committed twice would branch it or leave a gap.
    const auto history = store.list("order-" + std::to_string(i));
    for (const auto& c : history)
      if (c.parent != c.id - 1) ++twice;
    if (history.size() != static_cast<std::size_t>(items_of(i) + 1)) ++twice;
  }
  std::printf("done: %zu of %d\n", done, orders);
  std::printf("runs taken over after the kill: %zu (claimed twice)\n", taken_over);
  std::printf("final states equal to a run never killed: %zu of %d\n", equal, orders);
  std::printf("steps committed twice: %zu\n", twice);

  // Finished runs and their events stay until pruned: kept a week, none of these goes;
  // kept until now, all of them do.
  const std::size_t week = queue.prune(sg::older_than{std::chrono::days(7)});
  const std::size_t all = queue.prune(sg::older_than{std::chrono::system_clock::now()});
  std::printf("runs pruned: %zu kept a week, %zu kept until now\n", week, all);
  drop_schema(conninfo);
  return done == orders && equal == orders && twice == 0 && taken_over == held && week == 0 && all == orders ? 0 : 1;
}
