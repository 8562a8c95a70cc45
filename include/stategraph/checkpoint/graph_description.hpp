// The graph's description a checkpointed app records in its store (graph_recording_store in
// store/store.hpp) when it first writes a thread, so a tool can draw a thread's graph without
// the code that ran it (<stategraph/inspect.hpp>). It is JSON made from the same model as
// sg::to_mermaid and sg::to_dot, so the three always agree:
//
//   {"format": 1, "state": "...", "stages": ["plan", ...],
//    "vertices": [{"kind": "start|end|node|join|channel", "name": "...", "stage": -1|i}, ...],
//    "links": [{"from": v, "to": v, "kind": "edge|branch|goto|send|join_in|join_out|read|write|
//               read_write|subscribe", "label": "..."}, ...],
//    "channels": [{"name": "...", "kind": "last_value|ephemeral|accumulator", "reducer": "...",
//                  "appends": bool}, ...],
//    "mermaid": "flowchart TD ..."}
//
// "format" grows when a field changes meaning; a reader refuses a newer one.
#pragma once

#include <stategraph/channels.hpp>
#include <stategraph/pictures.hpp>
#include <stategraph/schema.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace stategraph {

inline constexpr int graph_description_format = 1;

namespace detail {

constexpr std::string_view vertex_kind_name(picture::vertex_kind k) {
  switch (k) {
    case picture::vertex_kind::start: return "start";
    case picture::vertex_kind::end: return "end";
    case picture::vertex_kind::node: return "node";
    case picture::vertex_kind::join: return "join";
    case picture::vertex_kind::channel: return "channel";
  }
  return "?";
}

constexpr std::string_view link_kind_name(picture::link_kind k) {
  switch (k) {
    case picture::link_kind::edge: return "edge";
    case picture::link_kind::branch: return "branch";
    case picture::link_kind::go_to: return "goto";
    case picture::link_kind::send: return "send";
    case picture::link_kind::join_in: return "join_in";
    case picture::link_kind::join_out: return "join_out";
    case picture::link_kind::read: return "read";
    case picture::link_kind::write: return "write";
    case picture::link_kind::read_write: return "read_write";
    case picture::link_kind::subscribe: return "subscribe";
    case picture::link_kind::grant_read: return "grant_read";  // drawn with picture_options::containers only
    case picture::link_kind::grant_write: return "grant_write";
    case picture::link_kind::grant_read_write: return "grant_read_write";
  }
  return "?";
}

constexpr std::string_view channel_kind_name(channel_kind k) {
  switch (k) {
    case channel_kind::last_value: return "last_value";
    case channel_kind::ephemeral: return "ephemeral";
    case channel_kind::accumulator: return "accumulator";
  }
  return "?";
}

template <class A>
std::string graph_description_text() {
  using S = typename A::state_type;
  picture_options options;
  options.channels = true;
  const picture::model m = picture::build<A>(options);
  nlohmann::json j;
  j["format"] = graph_description_format;
  j["state"] = std::string(type_name<S>());
  j["stages"] = nlohmann::json::array();
  for (std::string_view s : m.stages) j["stages"].push_back(std::string(s));
  j["vertices"] = nlohmann::json::array();
  for (const auto& v : m.vertices)
    j["vertices"].push_back({{"kind", vertex_kind_name(v.kind)},
                             {"name", std::string(v.name)},
                             {"stage", v.stage == picture::no_stage ? -1 : static_cast<std::int64_t>(v.stage)}});
  j["links"] = nlohmann::json::array();
  for (const auto& l : m.links)
    j["links"].push_back(
        {{"from", l.from}, {"to", l.to}, {"kind", link_kind_name(l.kind)}, {"label", std::string(l.label)}});
  j["channels"] = nlohmann::json::array();
  for_each_index<channel_count<S>>([&]<std::size_t I>() {
    using traits = channel_traits<field_type_t<S, I>>;
    j["channels"].push_back({{"name", std::string(channel_name_at<S, I>())},
                             {"kind", channel_kind_name(traits::kind)},
                             {"reducer", std::string(type_name<typename traits::reducer>())},
                             {"appends", reducer_traits<typename traits::reducer>::appends}});
  });
  // The picture without channels: the one a reader draws first.
  j["mermaid"] = picture::mermaid(picture::build<A>(picture_options{}), picture_options{});
  return j.dump();
}

// A description and its key: the key names the text (FNV-1a of it), so two apps of one
// graph share one stored description and a changed graph gets a new one.
struct graph_record {
  std::string key, text;
};

inline std::string graph_key_of(std::string_view text) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char out[24];
  std::snprintf(out, sizeof out, "g1-%016llx", static_cast<unsigned long long>(h));
  return out;
}

// Made once per graph type: the description depends on the types alone.
template <class A>
const graph_record& graph_record_of() {
  static const graph_record record = [] {
    graph_record r;
    r.text = graph_description_text<A>();
    r.key = graph_key_of(r.text);
    return r;
  }();
  return record;
}

}  // namespace detail

// The description sg::compile's checkpointed app records for this app's graph.
template <class App>
  requires requires { typename App::analysis_type; }
std::string graph_description(const App&) {
  return detail::graph_record_of<typename App::analysis_type>().text;
}

}  // namespace stategraph
