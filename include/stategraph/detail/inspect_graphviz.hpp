// The inspector's graph laid out by Graphviz: DOT made from a stored graph description (with
// the same writer as sg::to_dot, so the page and the pictures agree), and `dot -Tsvg` run on
// it. The program is started directly (posix_spawnp), never through a shell, and the DOT text
// reaches it through a file in a private temporary folder, so no name from the graph can reach
// a command line. Every failure is reported as a reason, never thrown: the page then lays the
// graph out itself (<stategraph/inspect.hpp>).
#pragma once

#include <stategraph/checkpoint/graph_description.hpp>
#include <stategraph/pictures.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#if __has_include(<spawn.h>) && __has_include(<sys/wait.h>) && __has_include(<unistd.h>)
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
extern char** environ;  // posix_spawn passes the caller's environment on (PATH among it)
#define STATEGRAPH_INSPECT_CAN_SPAWN 1
#else
#define STATEGRAPH_INSPECT_CAN_SPAWN 0
#endif

namespace stategraph::detail::inspect {

// DOT of a description's control flow (the channels are left out, as in the page's own
// layout), and the DOT id of each description vertex (empty for one not drawn): dot's SVG
// names each node by its id, in <g class="node"><title>id</title>.
struct description_dot {
  std::string text;
  std::vector<std::string> ids;
};

inline std::optional<picture::vertex_kind> vertex_kind_named(std::string_view name) {
  using picture::vertex_kind;
  for (auto k : {vertex_kind::start, vertex_kind::end, vertex_kind::node, vertex_kind::join, vertex_kind::channel})
    if (vertex_kind_name(k) == name) return k;
  return std::nullopt;
}

inline std::optional<picture::link_kind> control_link_named(std::string_view name) {
  using picture::link_kind;
  for (auto k : {link_kind::edge, link_kind::branch, link_kind::go_to, link_kind::send, link_kind::join_in,
                 link_kind::join_out})
    if (link_kind_name(k) == name) return k;
  return std::nullopt;
}

// Throws nlohmann::json::exception for a description whose fields have the wrong types.
inline description_dot dot_of_description(const nlohmann::json& g) {
  picture::model m;
  constexpr std::size_t none = static_cast<std::size_t>(-1);
  const auto& vertices = g.at("vertices");
  std::vector<std::size_t> at(vertices.size(), none);
  if (g.contains("stages"))
    for (const auto& s : g.at("stages")) m.stages.push_back(s.get_ref<const std::string&>());
  for (std::size_t i = 0; i < vertices.size(); ++i) {
    const auto kind = vertex_kind_named(vertices[i].at("kind").get_ref<const std::string&>());
    if (!kind || *kind == picture::vertex_kind::channel) continue;
    const auto stage = vertices[i].value("stage", std::int64_t{-1});
    const bool staged = stage >= 0 && static_cast<std::size_t>(stage) < m.stages.size();
    m.vertices.push_back({*kind, vertices[i].at("name").get_ref<const std::string&>(),
                          staged ? static_cast<std::size_t>(stage) : picture::no_stage});
    at[i] = m.vertices.size() - 1;
  }
  for (const auto& l : g.at("links")) {
    const auto kind = control_link_named(l.at("kind").get_ref<const std::string&>());
    const auto from = l.at("from").get<std::size_t>(), to = l.at("to").get<std::size_t>();
    if (!kind || from >= at.size() || to >= at.size() || at[from] == none || at[to] == none) continue;
    picture::link drawn{at[from], at[to], *kind};
    if (l.contains("label")) drawn.label = l.at("label").get_ref<const std::string&>();
    m.links.push_back(drawn);
  }
  description_dot out;
  out.text = picture::dot(m, picture_options{});
  const auto ids = picture::assign_ids(m, false, nullptr);
  out.ids.resize(vertices.size());
  for (std::size_t i = 0; i < at.size(); ++i)
    if (at[i] != none) out.ids[i] = ids[at[i]];
  return out;
}

// What a renderer made: the <svg> element, or why there is none.
struct rendered_svg {
  std::string svg;
  std::string problem;
  std::string generator;  // "graphviz version …", read from the SVG's comment when there
};

// A program's message on one line, shortened: it goes into a sentence of ours.
inline std::string one_line(std::string text, std::size_t limit = 300) {
  for (char& c : text)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  if (text.size() > limit) text = text.substr(0, limit) + " …";
  return text;
}

inline std::string read_file_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Runs `program -Tsvg -o OUT IN` with the DOT text in IN, waiting at most `timeout`.
inline rendered_svg render_svg(const std::string& program, const std::string& dot_text,
                               std::chrono::milliseconds timeout) {
  rendered_svg r;
#if STATEGRAPH_INSPECT_CAN_SPAWN
  namespace fs = std::filesystem;
  const std::string who = "'" + program + "'";
  std::error_code ec;
  const fs::path tmp = fs::temp_directory_path(ec);
  if (ec) {
    r.problem = "no temporary folder to run " + who + " in (" + ec.message() + ")";
    return r;
  }
  std::string pattern = (tmp / "sg-inspect-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    r.problem = "could not make a temporary folder to run " + who + " in (" + std::strerror(errno) + ")";
    return r;
  }
  const fs::path dir(pattern);
  struct remove_on_exit {
    fs::path dir;
    ~remove_on_exit() {
      std::error_code ignored;
      fs::remove_all(dir, ignored);
    }
  } cleanup{dir};
  const std::string in = (dir / "graph.dot").string(), out = (dir / "graph.svg").string(),
                    messages = (dir / "messages.txt").string();
  {
    std::ofstream f(in, std::ios::binary);
    f.write(dot_text.data(), static_cast<std::streamsize>(dot_text.size()));
    if (!f) {
      r.problem = "could not write the graph for " + who + " to " + in;
      return r;
    }
  }

  // stdin from /dev/null; stdout and stderr into one file (read back as the reason of a failure).
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, messages.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 2, 1);
  std::string arg_format = "-Tsvg", arg_out = "-o";
  std::vector<char*> argv{const_cast<char*>(program.c_str()), arg_format.data(), arg_out.data(),
                          const_cast<char*>(out.c_str()), const_cast<char*>(in.c_str()), nullptr};
  pid_t pid = 0;
  const int started = ::posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (started != 0) {
    r.problem = "could not start " + who + " (" + std::strerror(started) + ")";
    return r;
  }

  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      r.problem = "lost track of " + who + " (" + std::strerror(errno) + ")";
      return r;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      r.problem = who + " took longer than " + std::to_string(timeout.count()) + " ms and was stopped";
      return r;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
  const std::string said = one_line(read_file_text(messages));
  if (WIFSIGNALED(status)) {
    r.problem = who + " was ended by signal " + std::to_string(WTERMSIG(status)) + (said.empty() ? "" : ": " + said);
    return r;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    r.problem = who + " failed with exit status " + std::to_string(WEXITSTATUS(status)) +
                (said.empty() ? "" : ": " + said);
    return r;
  }
  std::string svg = read_file_text(out);
  const auto open = svg.find("<svg");
  const auto close = svg.rfind("</svg>");
  if (open == std::string::npos || close == std::string::npos || close < open) {
    r.problem = who + " wrote no SVG" + (said.empty() ? "" : ": " + said);
    return r;
  }
  // The XML prologue and doctype cannot stand inside HTML; the comment naming the generator is
  // kept as a fact for the page.
  const std::string mark = "<!-- Generated by ";
  if (const auto g = svg.find(mark); g != std::string::npos && g < open) {
    const auto end = svg.find(" -->", g);
    if (end != std::string::npos && end < open) r.generator = one_line(svg.substr(g + mark.size(), end - g - mark.size()));
  }
  r.svg = svg.substr(open, close + 6 - open);
#else
  (void)dot_text;
  (void)timeout;
  r.problem = "this platform has no posix_spawn to run '" + program + "' with";
#endif
  return r;
}

}  // namespace stategraph::detail::inspect
