// The corruption matrix: one case per kind of damage a SQLite store's file can carry, in
// five families (bad files, bad metadata, bad rows, bad values, bad pending writes). Each
// case builds a thread, closes the store, damages the file as another program (or the
// disk) would, and then asserts two things of every entry point that reads the damage:
// it throws the one error type of its family (sg::store_format_error: the file is not a
// usable store; sg::checkpoint_error: a checkpoint's content is wrong), and not one byte
// of the file changed.
#include "fixtures.hpp"
#include "sql_tools.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

using namespace durable_test;
using durable_sql::sql;

// The damage is done to rows older than the head; a head that stored its append channels
// whole again (snapshot_every) would not read them, so these apps keep every piece.
static const sg::checkpoint_options every_piece{.snapshot_every = 0};

namespace durable_matrix {

// ---- the threads the cases damage --------------------------------------------------------

// A step with one node that fails and one that succeeds: the success is kept as a pending
// write of checkpoint 1.
struct Pair {
  sg::append<std::string> log;
  sg::counter<int> n;
};
struct ok {
  using reads = sg::reads<>;
  using writes = sg::writes<&Pair::log, &Pair::n>;
  auto operator()(sg::view<Pair, reads>) const {
    return sg::write<&Pair::log>(std::string("ok")) | sg::write<&Pair::n>(1);
  }
};
struct broken {
  using reads = sg::reads<>;
  using writes = sg::writes<&Pair::log>;
  auto operator()(sg::view<Pair, reads>) const {
    throw std::runtime_error("broken");
    return sg::write<&Pair::log>(std::string("never"));
  }
};
using pair_graph = sg::graph<Pair, sg::edge<sg::start, ok>, sg::edge<sg::start, broken>, sg::edge<ok, sg::end>,
                             sg::edge<broken, sg::end>>;

// A node paused on a question whose answer it reads as nlohmann::json.
struct Ask {
  sg::append<std::string> log;
};
struct asker {
  using reads = sg::reads<>;
  using writes = sg::writes<&Ask::log>;
  auto operator()(sg::view<Ask, reads>, sg::run_context& ctx) const {
    const nlohmann::json answer = ctx.interrupt(std::string("name?"));
    return sg::write<&Ask::log>(answer.dump());
  }
};
using ask_graph = sg::graph<Ask, sg::edge<sg::start, asker>, sg::edge<asker, sg::end>>;

enum class base { chat, pair, ask };
enum class expect { format, checkpoint };

struct matrix_case {
  const char* family;
  const char* name;
  base on;
  std::function<void(const std::string& path)> damage;
  expect error;
  bool read_by_snapshots = true;  // false: only resume decodes it (a kept result's patch)
};

// ---- damage ----------------------------------------------------------------------------

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}
void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

auto by_sql(std::string statement) {
  return [statement = std::move(statement)](const std::string& path) { sql(path, statement); };
}
// The latest checkpoint of thread `t` (chat: 6) has its metadata's `from` replaced by `to`.
auto in_metadata(std::string from, std::string to) {
  return by_sql("UPDATE checkpoints SET metadata = replace(metadata, '" + from + "', '" + to + "') WHERE id = 6");
}
auto metadata_is(std::string text) { return by_sql("UPDATE checkpoints SET metadata = '" + text + "' WHERE id = 6"); }
// Channel `channel` of checkpoint `id` gets the stored value `value`.
auto value_of(const char* channel, int id, std::string value) {
  return by_sql("UPDATE checkpoints SET vals = sg_set_value(vals, '" + std::string(channel) + "', '" + value +
                "') WHERE id = " + std::to_string(id));
}
std::string nested(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

std::vector<matrix_case> cases() {
  const auto bad_file = [](const char* name, std::function<void(const std::string&)> f) {
    return matrix_case{"bad file", name, base::chat, std::move(f), expect::format};
  };
  const auto metadata = [](const char* name, std::function<void(const std::string&)> f) {
    return matrix_case{"bad metadata", name, base::chat, std::move(f), expect::checkpoint};
  };
  const auto row = [](const char* name, std::function<void(const std::string&)> f, expect e) {
    return matrix_case{"bad row", name, base::chat, std::move(f), e};
  };
  const auto value = [](const char* name, std::function<void(const std::string&)> f) {
    return matrix_case{"bad value", name, base::chat, std::move(f), expect::checkpoint};
  };
  const auto pending = [](const char* name, std::function<void(const std::string&)> f, expect e = expect::checkpoint,
                          base on = base::pair) {
    return matrix_case{"bad pending write", name, on, std::move(f), e};
  };
  const auto kept_result = [](const char* name, std::function<void(const std::string&)> f) {
    return matrix_case{"bad pending write", name, base::pair, std::move(f), expect::checkpoint, false};
  };
  const auto truncate_to = [](double share, std::uintmax_t plus) {
    return [=](const std::string& path) {
      const auto size = std::filesystem::file_size(path);
      std::filesystem::resize_file(path, static_cast<std::uintmax_t>(static_cast<double>(size) * share) + plus);
    };
  };
  const auto scramble_from = [](std::size_t offset) {
    return [=](const std::string& path) {
      std::string b = bytes_of(path);
      std::uint32_t x = 2463534242u;
      for (std::size_t k = offset; k < b.size(); ++k) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        b[k] = static_cast<char>(x);
      }
      write_bytes(path, b);
    };
  };
  const std::string ask_row = "INSERT INTO pending_writes SELECT 'a', max(id), 'asker#resume', 0, '__resume__', ";
  return {
      // -- bad files: not a store, another version, damaged pages ----------------------------
      bad_file("a text file", [](const std::string& p) { write_bytes(p, std::string(5000, 'x')); }),
      bad_file("a file of zeros", [](const std::string& p) { write_bytes(p, std::string(8192, '\0')); }),
      bad_file("another application's database",
               by_sql("PRAGMA application_id = 0; DROP TABLE stategraph_store; DROP TABLE pending_writes;"
                      " DROP TABLE checkpoints; DROP TABLE threads; CREATE TABLE notes (body TEXT)")),
      bad_file("another schema version", by_sql("UPDATE stategraph_store SET value = 99")),
      bad_file("schema version 1", by_sql("UPDATE stategraph_store SET value = 1")),
      bad_file("the schema version row gone", by_sql("DELETE FROM stategraph_store")),
      bad_file("a schema version that is text", by_sql("UPDATE stategraph_store SET value = 'three'")),
      bad_file("the version table gone", by_sql("DROP TABLE stategraph_store")),
      bad_file("the checkpoints table gone", by_sql("DROP TABLE checkpoints")),
      bad_file("the pending writes table gone", by_sql("DROP TABLE pending_writes")),
      bad_file("truncated to half", truncate_to(0.5, 0)),
      bad_file("truncated inside a page", truncate_to(0.5, 1000)),
      bad_file("truncated to its header", truncate_to(0, 100)),
      bad_file("every page after the first scrambled", scramble_from(4096)),
      bad_file("the header's magic broken", [](const std::string& p) {
        std::string b = bytes_of(p);
        b[0] = 'X';
        write_bytes(p, b);
      }),
      // -- bad metadata: the position a checkpoint resumes from ------------------------------
      metadata("truncated", by_sql("UPDATE checkpoints SET metadata = substr(metadata, 1, 20) WHERE id = 6")),
      metadata("empty", metadata_is("")),
      metadata("not an object", metadata_is("[]")),
      metadata("run_step missing", in_metadata("\"run_step\":", "\"gone\":")),
      metadata("run_step a string", metadata_is("{\"run_step\":\"five\"}")),
      metadata("run_step 1e300", in_metadata("\"run_step\":5", "\"run_step\":1e300")),
      metadata("run_step -1", in_metadata("\"run_step\":5", "\"run_step\":-1")),
      metadata("run_step 2.5", in_metadata("\"run_step\":5", "\"run_step\":2.5")),
      metadata("next naming a node the graph lacks", in_metadata("\"next\":[]", "\"next\":[\"ghost\"]")),
      metadata("next not a list of names", in_metadata("\"next\":[]", "\"next\":[7]")),
      metadata("joins of the wrong count", in_metadata("\"arrived\":[]", "\"arrived\":[[]]")),
      metadata("sends to a node the graph lacks", in_metadata("\"sends\":{}", "\"sends\":{\"ghost\":[1]}")),
      metadata("max_version 2^63-1", in_metadata("\"max_version\":", "\"max_version\":9223372036854775807,\"x\":")),
      metadata("max_version 2^63", in_metadata("\"max_version\":", "\"max_version\":9223372036854775808,\"x\":")),
      metadata("max_version below a channel's version", in_metadata("\"max_version\":", "\"max_version\":0,\"x\":")),
      metadata("max_version -1e30", in_metadata("\"max_version\":", "\"max_version\":-1e30,\"x\":")),
      metadata("nested 100,000 deep", metadata_is(nested(100'000))),
      // -- bad rows: the columns and lists of a checkpoint row --------------------------------
      row("a channel list that is not one", by_sql("UPDATE checkpoints SET channels = '9:x 1 1\n' WHERE id = 6"),
          expect::format),
      row("a channel list naming an origin past 2^32",
          by_sql("UPDATE checkpoints SET channels = replace(channels, ' 6\n', ' 99999999999\n') WHERE id = 6"),
          expect::format),
      row("a value list that is not one", by_sql("UPDATE checkpoints SET vals = '1:m 1 9:b' WHERE id = 6"),
          expect::format),
      row("an append chain missing a piece", by_sql("UPDATE checkpoints SET vals = '' WHERE id = 3"), expect::format),
      row("an unknown source", by_sql("UPDATE checkpoints SET source = 'sideways' WHERE id = 6"), expect::format),
      row("a format version past int", by_sql("UPDATE checkpoints SET format_version = 4294967298 WHERE id = 6"),
          expect::format),
      row("another format version", by_sql("UPDATE checkpoints SET format_version = 99 WHERE id = 6"),
          expect::checkpoint),
      row("format version 0", by_sql("UPDATE checkpoints SET format_version = 0 WHERE id = 6"), expect::checkpoint),
      row("step -1", by_sql("UPDATE checkpoints SET step = -1 WHERE id = 6"), expect::checkpoint),
      row("step 2^63-1", by_sql("UPDATE checkpoints SET step = 9223372036854775807 WHERE id = 6"),
          expect::checkpoint),
      row("another schema hash", by_sql("UPDATE checkpoints SET schema_hash = 'ffffffffffffffff' WHERE id = 6"),
          expect::checkpoint),
      row("a channel missing", by_sql("UPDATE checkpoints SET channels = substr(channels, 1, instr(channels, '5:calls')"
                                      " - 1) WHERE id = 6"),
          expect::checkpoint),
      row("a negative channel version",
          by_sql("UPDATE checkpoints SET channels = replace(channels, '5:calls ', '5:calls -') WHERE id = 6"),
          expect::checkpoint),
      row("a channel listed twice",
          by_sql("UPDATE checkpoints SET channels = channels || substr(channels, 1, instr(channels, char(10)))"
                 " WHERE id = 6"),
          expect::checkpoint),
      // -- bad values: a channel's stored JSON -------------------------------------------------
      value("truncated", by_sql("UPDATE checkpoints SET vals = sg_set_value(vals, 'messages', substr(sg_value(vals,"
                                " 'messages'), 1, 9)) WHERE id = 1")),
      value("empty", value_of("messages", 1, "")),
      value("garbage in an appended piece", value_of("messages", 4, "[{\"role\":")),
      value("not UTF-8", value_of("messages", 1, "[{\"role\":\"user\",\"content\":\"\xff\"}]")),
      value("an object where a list belongs", value_of("messages", 1, "{\"role\":\"user\"}")),
      value("a message missing a field", value_of("messages", 1, "[{\"role\":\"user\"}]")),
      value("a counter that is a string", value_of("calls", 6, "\"three\"")),
      value("a counter that is true", value_of("calls", 6, "true")),
      value("a counter 1e300", value_of("calls", 6, "1e300")),
      value("a counter 3.5", value_of("calls", 6, "3.5")),
      value("a counter 2^31", value_of("calls", 6, "2147483648")),
      value("nested 1,000,000 deep", value_of("messages", 1, nested(1'000'000))),
      // -- bad pending writes: a failed step's kept results, interrupt answers ------------------
      pending("a truncated value", by_sql("UPDATE pending_writes SET value = substr(value, 1, 7) WHERE channel = '__result__'")),
      kept_result("a value of the wrong type", by_sql("UPDATE pending_writes SET value = '{\"update\":[5,\"x\"]}' WHERE channel = '__result__'")),
      kept_result("a patch of the wrong length", by_sql("UPDATE pending_writes SET value = '{\"update\":[]}' WHERE channel = '__result__'")),
      kept_result("a result of the wrong shape", by_sql("UPDATE pending_writes SET value = '{}' WHERE channel = '__result__'")),
      pending("a value nested 100,000 deep", by_sql("UPDATE pending_writes SET value = '" + nested(100'000) + "' WHERE channel = '__result__'")),
      pending("a node the graph lacks", by_sql("UPDATE pending_writes SET task = 'ghost#result' WHERE channel = '__result__'")),
      pending("an unknown kind", by_sql("UPDATE pending_writes SET task = 'ok#bogus' WHERE channel = '__result__'")),
      pending("no kind", by_sql("UPDATE pending_writes SET task = 'ok' WHERE channel = '__result__'")),
      pending("a negative index", by_sql("UPDATE pending_writes SET idx = -3 WHERE channel = '__result__'")),
      pending("an index past the interrupt limit", by_sql("UPDATE pending_writes SET idx = 70000 WHERE channel = '__result__'")),
      pending("an index past int32", by_sql("UPDATE pending_writes SET idx = 1099511627776 WHERE channel = '__result__'"), expect::format),
      pending("an answer nested 100,000 deep", by_sql(ask_row + "'" + nested(100'000) + "' FROM checkpoints"),
              expect::checkpoint, base::ask),
      pending("a truncated answer", by_sql(ask_row + "'{\"a\":' FROM checkpoints"), expect::checkpoint, base::ask),
  };
}

// ---- running a case --------------------------------------------------------------------

void build(base on, const std::string& path) {
  sg::sqlite_store store(path);
  switch (on) {
    case base::chat: {
      auto app = sg::compile<chat_graph>(sg::with_store(store, every_piece));
      app.invoke(Chat{.messages = {Msg{"user", "hi"}}}, sg::thread_id{"t"});
      REQUIRE(app.get_state(sg::thread_id{"t"})->checkpoint_id == 6);
      break;
    }
    case base::pair: {
      auto app = sg::compile<pair_graph>(sg::with_store(store, every_piece));
      CHECK_THROWS_AS(app.invoke(Pair{}, sg::thread_id{"p"}), sg::node_error);
      REQUIRE(store.stats().pending_writes == 2);  // ok's result, broken's error
      break;
    }
    case base::ask: {
      auto app = sg::compile<ask_graph>(sg::with_store(store, every_piece));
      app.invoke(Ask{}, sg::thread_id{"a"});
      REQUIRE(app.get_state(sg::thread_id{"a"})->interrupts.size() == 1);
      break;
    }
  }
}

// Every entry point that reads what the case damaged; each must throw E.
template <class E, class App>
void each_refuses(App& app, const matrix_case& c) {
  const base on = c.on;
  if constexpr (std::is_same_v<typename App::state_type, Chat>) {
    const sg::thread_id t{"t"};
    CHECK_THROWS_AS(app.get_state(t), E);
    CHECK_THROWS_AS(app.get_state(t, sg::checkpoint_id{6}), E);
    CHECK_THROWS_AS(app.history(t), E);
    CHECK_THROWS_AS(app.resume(t), E);
    CHECK_THROWS_AS(app.invoke(Chat{}, t), E);
    CHECK_THROWS_AS(app.update_state(t, sg::write<&Chat::calls>(1), sg::as_node<agent>), E);
  } else {  // pending writes are read by snapshots and by resume
    const sg::thread_id t{on == base::pair ? "p" : "a"};
    if (c.read_by_snapshots) {
      CHECK_THROWS_AS(app.get_state(t), E);
      CHECK_THROWS_AS(app.history(t), E);
    }
    CHECK_THROWS_AS(app.resume(t), E);
  }
}

template <class E>
void refused(const matrix_case& c, const std::string& path) {
  try {
    sg::sqlite_store store(path);
    switch (c.on) {
      case base::chat: {
        auto app = sg::compile<chat_graph>(sg::with_store(store, every_piece));
        each_refuses<E>(app, c);
        break;
      }
      case base::pair: {
        auto app = sg::compile<pair_graph>(sg::with_store(store, every_piece));
        each_refuses<E>(app, c);
        break;
      }
      case base::ask: {
        auto app = sg::compile<ask_graph>(sg::with_store(store, every_piece));
        each_refuses<E>(app, c);
        break;
      }
    }
  } catch (const E&) {
    // Refused on opening: for a file that is not a usable store, the first thing to refuse.
    CHECK(std::is_same_v<E, sg::store_format_error>);
  }
}

TEST_CASE("the corruption matrix: every kind of damage is a typed error, and no byte of the file changes") {
  const auto all = cases();
  std::map<std::string, int> per_family;
  for (const auto& c : all) {
    CAPTURE(c.family);
    CAPTURE(c.name);
    ++per_family[c.family];
    temp_db file("matrix");
    build(c.on, file.path());  // the store is closed: its WAL is folded into the file
    c.damage(file.path());
    REQUIRE_FALSE(std::filesystem::exists(file.path() + "-wal"));
    const std::string damaged = bytes_of(file.path());
    if (c.error == expect::format)
      refused<sg::store_format_error>(c, file.path());
    else
      refused<sg::checkpoint_error>(c, file.path());
    CHECK(bytes_of(file.path()) == damaged);
    CHECK_FALSE(std::filesystem::exists(file.path() + "-wal"));  // nothing was left to fold in either
  }
  MESSAGE("corruption matrix: " << all.size() << " cases");
  CHECK(all.size() >= 54);
  for (const char* family : {"bad file", "bad metadata", "bad row", "bad value", "bad pending write"})
    CHECK(per_family[family] >= 5);
}

}  // namespace durable_matrix
