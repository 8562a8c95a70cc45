// Power loss, as SQLite tests it: a child process runs a checkpointed run (21 supersteps
// with sends) on sg::sqlite_store through powerloss_vfs.hpp, which loses power at its n-th
// write: everything written since the last sync is lost (and, in the torn mode, the write in
// progress lands half done). The parent then opens the file with the normal VFS and checks
// that the store opens, PRAGMA integrity_check says ok, the thread loads, and its head is a
// checkpoint the run had committed, holding the state that checkpoint had; with
// synchronous = full, no acknowledged checkpoint is lost; with off (no syncs: SQLite promises
// nothing on power loss) a damaged file is allowed but must be refused with an sg::error. It
// does so at every write of the run, for each synchronous setting, in both modes, and
// resumes the thread to the end.
#include "powerloss_vfs.hpp"

#include "../common/temp_db.hpp"

#include <stategraph/checkpoint.hpp>
#include <stategraph/stategraph.hpp>
#include <stategraph/store/sqlite.hpp>

#include <doctest/doctest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace power_loss {

namespace sg = stategraph;

struct Run {
  sg::append<std::int64_t> values;
  sg::counter<int> rounds;
  std::string last;
  friend bool operator==(const Run& a, const Run& b) {
    return a.values.value() == b.values.value() && a.rounds.value() == b.rounds.value() && a.last == b.last;
  }
};

// A round is three supersteps: fan sends two payloads to square, the two squares run in one
// step, tally counts the round and loops.
struct square;
struct fan {
  using reads = sg::reads<&Run::rounds>;
  using sends = sg::sends<square>;
  std::vector<sg::send_to<square, std::int64_t>> operator()(sg::view<Run, reads> in) const {
    const std::int64_t r = in.get<&Run::rounds>();
    return {sg::send<square>(2 * r + 1), sg::send<square>(2 * r + 2)};
  }
};
struct square {
  using writes = sg::writes<&Run::values>;
  auto operator()(sg::view<Run, sg::reads<>>, const std::int64_t& x) const { return sg::write<&Run::values>(x * x); }
};
struct tally {
  using reads = sg::reads<&Run::values>;
  using writes = sg::writes<&Run::rounds, &Run::last>;
  auto operator()(sg::view<Run, reads> in) const {
    std::int64_t sum = 0;
    for (auto v : in.get<&Run::values>()) sum += v;
    return sg::write<&Run::rounds>(1) | sg::write<&Run::last>("sum " + std::to_string(sum));
  }
};
inline constexpr int rounds = 7;  // 21 supersteps, 22 checkpoints with the input's
struct again {
  using reads = sg::reads<&Run::rounds>;
  sg::go<fan, sg::end> operator()(sg::view<Run, reads> in) const {
    if (in.get<&Run::rounds>() < rounds) return sg::to<fan>;
    return sg::to<sg::end>;
  }
};
using graph = sg::graph<Run, sg::edge<sg::start, fan>, sg::edge<square, tally>, sg::branch<tally, again>>;

const sg::thread_id thread{"run"};

// Reports each put to the parent through a pipe: 'B' before the store is asked, 'A' with
// the id once it has acknowledged the checkpoint.
class reporting_store {
 public:
  reporting_store(sg::sqlite_store& inner, int fd) : inner_(&inner), fd_(fd) {}
  std::int64_t put(const sg::checkpoint_put& cp) {
    say("B\n");
    const auto id = inner_->put(cp);
    say("A " + std::to_string(id) + "\n");
    return id;
  }
  void put_writes(std::string_view t, std::int64_t id, std::span<const sg::pending_write_put> w) {
    inner_->put_writes(t, id, w);
  }
  std::optional<sg::stored_checkpoint> get(std::string_view t) const { return inner_->get(t); }
  std::optional<sg::stored_checkpoint> get(std::string_view t, std::int64_t id) const { return inner_->get(t, id); }
  std::vector<sg::checkpoint_info> list(std::string_view t, sg::list_options o = {}) const {
    return inner_->list(t, o);
  }
  std::vector<sg::pending_write> pending_writes(std::string_view t, std::int64_t id) const {
    return inner_->pending_writes(t, id);
  }
  bool delete_thread(std::string_view t) { return inner_->delete_thread(t); }
  std::vector<std::string> threads() const { return inner_->threads(); }
  sg::store_stats stats() const { return inner_->stats(); }

 private:
  void say(const std::string& s) const {
    if (::write(fd_, s.data(), s.size()) != static_cast<ssize_t>(s.size())) ::_exit(2);
  }
  sg::sqlite_store* inner_;
  int fd_;
};

// The child: the whole run, from creating the file to closing it, through the shim.
[[noreturn]] void child(const std::string& path, sg::sqlite_synchronous sync, long crash_at, powerloss::crash_mode mode,
                        int fd) {
  powerloss::install(crash_at, mode);
  try {
    {
      sg::sqlite_store store(path, {.synchronous = sync});
      reporting_store reporting(store, fd);
      auto app = sg::compile<graph>(sg::with_store(reporting));
      app.invoke(Run{}, thread);
    }
    powerloss::write_everything_out();
    ::_exit(powerloss::exit_finished);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "power-loss child: %s\n", e.what());
    ::_exit(1);
  }
}

struct child_result {
  int exit_code = -1;
  std::int64_t acknowledged = 0;  // the last checkpoint id the store acknowledged
  bool in_flight = false;         // a put had begun and was not acknowledged
};

child_result run_child(const std::string& path, sg::sqlite_synchronous sync, long crash_at, powerloss::crash_mode mode) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fds[0]);
    child(path, sync, crash_at, mode, fds[1]);
  }
  ::close(fds[1]);
  std::string said;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) said.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  child_result out;
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  for (std::size_t at = 0; at < said.size();) {
    const auto end = said.find('\n', at);
    const std::string line = said.substr(at, end - at);
    at = end + 1;
    if (line == "B") {
      out.in_flight = true;
    } else {
      out.acknowledged = std::stoll(line.substr(2));
      out.in_flight = false;
    }
  }
  return out;
}

std::string integrity(const std::string& path) {
  sqlite3* db = nullptr;
  std::string out = "cannot open";
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, nullptr) == SQLITE_OK) {
      out.clear();
      while (sqlite3_step(s) == SQLITE_ROW) out += reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
    } else {
      out = std::string("cannot check: ") + sqlite3_errmsg(db);
    }
    sqlite3_finalize(s);
  }
  sqlite3_close_v2(db);
  return out;
}

// The state at every checkpoint of a run that never lost power.
struct reference {
  std::map<std::int64_t, Run> at;
  Run final;
};
reference reference_run() {
  sg_test::temp_db file("power-reference");
  sg::sqlite_store store(file.path());
  auto app = sg::compile<graph>(sg::with_store(store));
  reference ref;
  ref.final = app.invoke(Run{}, thread);
  for (const auto& s : app.history(thread)) ref.at[s.checkpoint_id] = s.values;
  return ref;
}

struct tally_of_runs {
  int boundaries = 0, passed = 0, lost_acknowledged = 0, damaged = 0;
};

// Loses power at every write of the run in turn, until a run ends before its chosen write.
tally_of_runs every_boundary(sg::sqlite_synchronous sync, powerloss::crash_mode mode, const reference& ref) {
  tally_of_runs tally;
  for (long n = 1;; ++n) {
    sg_test::temp_db file("power-loss");
    const child_result r = run_child(file.path(), sync, n, mode);
    if (r.exit_code == powerloss::exit_finished) break;
    CAPTURE(n);
    CAPTURE(static_cast<int>(sync));
    CAPTURE(static_cast<int>(mode));
    REQUIRE(r.exit_code == powerloss::exit_crashed);
    ++tally.boundaries;
    bool ok = true;
    const std::string check = integrity(file.path());
    if (check != "ok" && sync == sg::sqlite_synchronous::off) {
      // SQLite promises nothing for `off` on power loss: a file left damaged must still be
      // refused with the store's typed error, never crash or throw anything else.
      ++tally.damaged;
      try {
        sg::sqlite_store store(file.path());
        auto app = sg::compile<graph>(sg::with_store(store));
        (void)app.get_state(thread);
        (void)app.history(thread);
      } catch (const sg::error&) {
      } catch (const std::exception& e) {
        FAIL_CHECK("a damaged file after power loss at write " << n << " threw " << std::string(e.what()));
        continue;
      }
      ++tally.passed;
      continue;
    }
    CHECK(check == "ok");
    ok = ok && check == "ok";
    try {
      sg::sqlite_store store(file.path());
      auto app = sg::compile<graph>(sg::with_store(store));
      const auto head = app.get_state(thread);
      const std::int64_t id = head ? head->checkpoint_id : 0;
      // A checkpoint the run had begun to commit, or an older one.
      CHECK(id <= r.acknowledged + (r.in_flight ? 1 : 0));
      ok = ok && id <= r.acknowledged + (r.in_flight ? 1 : 0);
      if (id < r.acknowledged) ++tally.lost_acknowledged;
      if (sync == sg::sqlite_synchronous::full) {
        CHECK(id >= r.acknowledged);  // nothing acknowledged is lost
        ok = ok && id >= r.acknowledged;
      }
      if (head) {
        REQUIRE(ref.at.count(id) == 1);
        CHECK(head->values == ref.at.at(id));
        ok = ok && head->values == ref.at.at(id);
        CHECK(app.history(thread).size() == static_cast<std::size_t>(id));
        // The thread goes on from there and ends as the run that never lost power.
        const Run end = head->next.empty() ? head->values : app.resume(thread);
        CHECK(end == ref.final);
        ok = ok && end == ref.final;
      }
    } catch (const std::exception& e) {
      FAIL_CHECK("after power loss at write " << n << ": " << std::string(e.what()));
      ok = false;
    }
    if (ok) ++tally.passed;
  }
  return tally;
}

TEST_CASE("power loss at every write of a checkpointed run, on every synchronous setting") {
  const reference ref = reference_run();
  REQUIRE(ref.at.size() == 3 * rounds + 1);
  const struct {
    sg::sqlite_synchronous sync;
    const char* name;
  } settings[] = {{sg::sqlite_synchronous::off, "off"},
                  {sg::sqlite_synchronous::normal, "normal"},
                  {sg::sqlite_synchronous::full, "full"}};
  for (const auto& s : settings)
    for (auto mode : {powerloss::crash_mode::lose_unsynced, powerloss::crash_mode::tear_last_write}) {
      const auto t = every_boundary(s.sync, mode, ref);
      const std::string what = std::string("synchronous=") + s.name + ", " +
                               (mode == powerloss::crash_mode::lose_unsynced ? "unsynced writes lost"
                                                                             : "the last write torn");
      MESSAGE(what << ": " << t.boundaries << " write boundaries, " << t.passed << " passed, " << t.lost_acknowledged
                   << " of them lost acknowledged checkpoints, " << t.damaged << " left the file damaged");
      if (s.sync != sg::sqlite_synchronous::off) CHECK(t.damaged == 0);
      if (s.sync == sg::sqlite_synchronous::full) CHECK(t.lost_acknowledged == 0);
      CHECK(t.boundaries > 20);
      CHECK(t.passed == t.boundaries);
    }
}

}  // namespace power_loss
