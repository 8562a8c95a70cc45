// sg::write_inspector(store, thread, "thread.html"): one self-contained HTML page that shows
// a checkpointed thread — its graph (from the description the store recorded), a timeline of
// its checkpoints, and for the selected one the nodes that ran, the step's writes as a diff,
// the state as a tree, pending writes, failures and interrupts with their payloads.
//
// The page needs no network: its script and style are inline, and the graph is an SVG laid
// out by Graphviz's dot when the page is written (inspector_options::graph_renderer); without
// a working dot the page lays the graph out itself and says why. Values are embedded as the store's JSON
// text and parsed only when a checkpoint is selected; each checkpoint carries only the
// channels it changed (an append channel only its new pieces), so the page grows with what
// the thread wrote, not with its length times its state.
#pragma once

#include <stategraph/checkpoint/graph_description.hpp>
#include <stategraph/checkpoint/json_values.hpp>
#include <stategraph/detail/inspect_graphviz.hpp>
#include <stategraph/detail/inspect_page.hpp>
#include <stategraph/errors.hpp>
#include <stategraph/store/store.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace stategraph {

// The thread cannot be shown: it has no checkpoints in the store, or the store holds data of
// a newer format than this build reads. Nothing is written.
class inspect_error : public error {
 public:
  using error::error;
};

struct inspector_options {
  std::string title{};  // the page's title; the thread's id when empty
  // The program that lays the graph out, run as `PROGRAM -Tsvg -o OUT.svg IN.dot` (no shell;
  // looked up on PATH when it names no folder): Graphviz's dot or a program that acts like it.
  // Empty: the page lays the graph out itself. When the program cannot be started, fails or
  // writes no SVG, the page lays the graph out itself and shows the reason under it.
  std::string graph_renderer = "dot";
  std::chrono::milliseconds graph_renderer_timeout{30'000};  // then the renderer is stopped
};

// How the page's graph was drawn: what write_inspector returns, so a tool can say why the
// renderer was not used.
struct inspector_graph {
  bool recorded = false;     // the store holds the thread's graph description
  bool by_renderer = false;  // an SVG of inspector_options::graph_renderer is in the page
  std::string generator;     // the renderer's own name for itself ("graphviz version …"), if it gave one
  std::string fallback_reason;  // why the page lays the graph out itself (empty when by_renderer)
};

namespace detail::inspect {

// The JSON text a store holds, parsed; text that is not JSON stays a string.
inline nlohmann::json value_of(std::string_view text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return nlohmann::json(std::string(text));
  return j;
}

// What a later checkpoint needs of a channel to tell what changed.
struct channel_mark {
  std::int64_t version = 0;
  std::size_t value_hash = 0;
  std::size_t pieces = 0;
};

// The page's data: the description, then one record per checkpoint, oldest first.
template <class Store>
nlohmann::json thread_data(const Store& store, std::string_view thread, const inspector_options& options) {
  auto infos = store.list(thread);
  if (infos.empty())
    throw inspect_error("stategraph: thread '" + std::string(thread) + "' has no checkpoints in this store");
  std::reverse(infos.begin(), infos.end());

  nlohmann::json data;
  data["thread"] = std::string(thread);
  data["title"] = options.title.empty() ? std::string(thread) : options.title;
  data["graph"] = nullptr;
  if constexpr (graph_recording_store<Store>) {
    if (auto text = store.graph(thread)) {
      nlohmann::json g = nlohmann::json::parse(*text, nullptr, false);
      if (g.is_discarded() || !g.is_object() || !g.contains("format") || !g["format"].is_number_integer())
        throw inspect_error("stategraph: the graph description of thread '" + std::string(thread) +
                            "' is not one this build reads; nothing was written");
      if (g["format"].get<std::int64_t>() > graph_description_format)
        throw inspect_error("stategraph: thread '" + std::string(thread) + "' has a graph description of format " +
                            std::to_string(g["format"].get<std::int64_t>()) + "; this build reads format " +
                            std::to_string(graph_description_format) + " (a newer stategraph wrote it)");
      data["graph"] = std::move(g);
    }
  }

  std::unordered_map<std::int64_t, std::unordered_map<std::string, channel_mark>> marks;
  auto& out = data["checkpoints"] = nlohmann::json::array();
  const std::hash<std::string> hash;
  for (const auto& info : infos) {
    if (info.format_version > checkpoint_format_version)
      throw inspect_error("stategraph: checkpoint " + std::to_string(info.id) + " of thread '" + std::string(thread) +
                          "' has format version " + std::to_string(info.format_version) + "; this build reads up to " +
                          std::to_string(checkpoint_format_version) + " (a newer stategraph wrote it)");
    nlohmann::json r;
    r["id"] = info.id;
    r["parent"] = info.parent;
    r["step"] = info.step;
    r["source"] = std::string(to_string(info.source));
    auto meta = nlohmann::json::parse(info.metadata, nullptr, false);
    if (meta.is_object()) {
      meta.erase("schema");  // the stored schema list: long, and the same for every checkpoint
      r["meta"] = std::move(meta);
    } else {
      r["meta"] = nlohmann::json::object();
    }
    auto& deltas = r["d"] = nlohmann::json::array();
    const auto parent = marks.find(info.parent);
    auto& mine = marks[info.id];
    bool read_whole = true;
    if constexpr (written_values_store<Store>) {
      // What the checkpoint wrote, applied by the page to its parent's state: each value is
      // read once, however long the thread.
      if (parent != marks.end()) {
        read_whole = false;
        for (auto& v : store.written(thread, info.id)) {
          nlohmann::json d;
          d["c"] = std::move(v.channel);
          if (v.appended) d["a"] = nlohmann::json::array({std::move(v.value)});
          else d["v"] = std::move(v.value);
          deltas.push_back(std::move(d));
        }
      }
    }
    if (read_whole) {
      auto cp = store.get(thread, info.id);
      if (!cp) continue;  // pruned between the listing and this read
      for (const auto& c : cp->channels) {
        const channel_mark m{c.version, hash(c.value), c.appends.size()};
        mine[c.channel] = m;
        const channel_mark* before = nullptr;
        if (parent != marks.end())
          if (auto it = parent->second.find(c.channel); it != parent->second.end()) before = &it->second;
        if (before && before->version == m.version) continue;  // unchanged
        nlohmann::json d;
        d["c"] = c.channel;
        if (before && !c.appends.empty() && before->value_hash == m.value_hash && before->pieces <= m.pieces) {
          d["a"] = std::vector<std::string>(c.appends.begin() + static_cast<std::ptrdiff_t>(before->pieces),
                                            c.appends.end());  // only what this step appended
        } else {
          d["v"] = c.value;
          if (!c.appends.empty()) d["p"] = c.appends;
        }
        deltas.push_back(std::move(d));
      }
    }
    auto& writes = r["w"] = nlohmann::json::array();
    for (const auto& w : store.pending_writes(thread, info.id))
      writes.push_back({{"task", w.task}, {"index", w.index}, {"channel", w.channel}, {"value", w.value}});
    out.push_back(std::move(r));
  }
  return data;
}

// JSON inside <script>: no "</script>" or "<!--" can end or change the element.
inline std::string script_safe(const std::string& json) {
  std::string out;
  out.reserve(json.size() + json.size() / 16);
  for (char c : json) {
    if (c == '<') out += "\\u003c";
    else out += c;
  }
  return out;
}

}  // namespace detail::inspect

namespace detail::inspect {

// The graph's SVG by the renderer, or the reason the page draws it; the facts go into the
// page's data as "drawing".
inline std::string draw_graph(nlohmann::json& data, const inspector_options& options, inspector_graph& graph) {
  graph.recorded = data["graph"].is_object();
  nlohmann::json drawing{{"by", "page"}, {"renderer", options.graph_renderer}};
  std::string svg;
  if (!graph.recorded) {
    drawing["reason"] = "";  // the page says that no description was recorded
  } else if (options.graph_renderer.empty()) {
    graph.fallback_reason = "no renderer was asked for (inspector_options::graph_renderer is empty)";
  } else {
    try {
      auto dot = dot_of_description(data["graph"]);
      auto r = render_svg(options.graph_renderer, dot.text, options.graph_renderer_timeout);
      if (r.problem.empty()) {
        svg = std::move(r.svg);
        graph.by_renderer = true;
        graph.generator = r.generator;
        drawing["by"] = options.graph_renderer;
        drawing["generator"] = r.generator;
        drawing["ids"] = std::move(dot.ids);
      } else {
        graph.fallback_reason = std::move(r.problem);
      }
    } catch (const nlohmann::json::exception& e) {
      graph.fallback_reason = std::string("the graph description could not be turned into DOT (") + e.what() + ")";
    }
  }
  if (!graph.fallback_reason.empty()) drawing["reason"] = graph.fallback_reason;
  data["drawing"] = std::move(drawing);
  return svg;
}

template <class Store>
std::string page(const Store& store, std::string_view thread, const inspector_options& options,
                 inspector_graph& graph) {
  auto data = thread_data(store, thread, options);
  const std::string svg = draw_graph(data, options, graph);
  const std::string json = script_safe(data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  std::string html(page_head);
  html += svg;
  html += page_middle;
  html += json;
  html += page_tail;
  return html;
}

}  // namespace detail::inspect

// The page as text.
template <checkpoint_store Store>
std::string inspector_html(const Store& store, std::string_view thread, const inspector_options& options = {}) {
  inspector_graph graph;
  return detail::inspect::page(store, thread, options, graph);
}

// Writes the page to `path` (replacing it). Nothing is written when the thread cannot be shown.
template <checkpoint_store Store>
inspector_graph write_inspector(const Store& store, std::string_view thread, const std::filesystem::path& path,
                                const inspector_options& options = {}) {
  inspector_graph graph;
  const std::string page = detail::inspect::page(store, thread, options, graph);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(page.data(), static_cast<std::streamsize>(page.size()));
  out.close();
  if (!out) throw error("stategraph: could not write the inspector page to '" + path.string() + "'");
  return graph;
}

}  // namespace stategraph
