// Pictures of a graph (contract §4): sg::to_mermaid<G>() and sg::to_dot<G>() draw the graph
// from its type alone — nodes, static edges, branches, commands, sends, joins, stages as
// clusters and, on request, the channels each node reads and writes, and the containers
// (sg::container) as clusters of their channels with each grant as a state edge.
//
// Both writers share one model built from sg::analysis, so the two pictures always agree,
// and everything is emitted in declaration order, so the text is stable and diffable.
#pragma once

#include <stategraph/containers.hpp>
#include <stategraph/detail/meta.hpp>
#include <stategraph/graph.hpp>
#include <stategraph/node.hpp>
#include <stategraph/schedule.hpp>
#include <stategraph/schema.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace stategraph {

enum class picture_direction { top_down, left_right };

struct picture_options {
  bool channels = false;  // also draw each channel, with read (channel → node) and write edges
  bool stages = true;     // draw each stage as a cluster (nodes of sg::any_stage stay outside)
  // Draw each container a grant names as a cluster of its channels, and each grant as a state
  // edge: read grant container → node, write grant node → container. Off by default, as
  // AgentCanvas hides state edges: they carry no data and crowd the control flow.
  bool containers = false;
  picture_direction direction = picture_direction::top_down;
  std::string_view title = {};
};

namespace detail::picture {

enum class vertex_kind { start, end, node, join, channel };

inline constexpr std::size_t no_stage = static_cast<std::size_t>(-1);

struct vertex {
  vertex_kind kind;
  std::string_view name;
  std::size_t stage = no_stage;  // index into model::stages
  std::size_t group = no_stage;  // a channel's container, index into model::containers
};

enum class link_kind {
  edge,
  branch,
  go_to,
  send,
  join_in,
  join_out,
  read,
  write,
  read_write,
  subscribe,
  grant_read,
  grant_write,
  grant_read_write
};

inline bool is_grant(link_kind k) {
  return k == link_kind::grant_read || k == link_kind::grant_write || k == link_kind::grant_read_write;
}
inline bool is_channel_link(link_kind k) {
  return k == link_kind::read || k == link_kind::write || k == link_kind::read_write || k == link_kind::subscribe ||
         is_grant(k);
}

struct link {
  std::size_t from, to;  // indices into model::vertices
  link_kind kind;
  std::string_view label = {};
  std::size_t group = no_stage;  // a grant's container: its end there is a channel of the cluster
};

// What both pictures draw. Vertices: __start__, the nodes in index order, __end__, the
// joins' barriers, then the channels in schema order.
struct model {
  std::vector<vertex> vertices;
  std::vector<std::string_view> stages;  // in order of first appearance
  std::string_view state_name;           // the cluster that holds the channels
  std::vector<std::string_view> containers;  // in order of first grant
  std::vector<link> links;
};

// A distinct address per type: stages are told apart by type, not by (unqualified) name.
template <class T>
inline constexpr char type_key = 0;

// How one node uses each channel of S, as bit flags per channel index.
enum channel_use : unsigned { uses_read = 1, uses_write = 2, uses_subscribe = 4 };

// channel_index reads addresses of a never-defined object: it must run at compile time.
template <class S, auto Channel>
inline constexpr std::size_t index_of_channel = channel_index<S, Channel>();

// A channel of another struct (SG003's business) has no index here and is skipped.
template <class S, auto... Channels>
void mark_channels(std::vector<unsigned>& use, unsigned flag) {
  ((index_of_channel<S, Channels> < channel_count<S> ? void(use[index_of_channel<S, Channels>] |= flag) : void()), ...);
  (void)flag;  // an empty declaration list uses it nowhere
}
template <class S, auto... Channels>
void mark_declared(std::vector<unsigned>& use, unsigned flag, reads<Channels...>*) {
  mark_channels<S, Channels...>(use, flag);
}
template <class S, auto... Channels>
void mark_declared(std::vector<unsigned>& use, unsigned flag, writes<Channels...>*) {
  mark_channels<S, Channels...>(use, flag);
}
template <class S, class... Values>
void mark_declared(std::vector<unsigned>& use, unsigned flag, mp_list<Values...>*) {
  mark_channels<S, Values::value...>(use, flag);
}

// The containers a grant names (none for a plain sg::reads / sg::writes).
template <class Grant>
struct grant_containers {
  using type = mp_list<>;
};
template <class Grant>
  requires requires { typename Grant::containers; }
struct grant_containers<Grant> {
  using type = typename Grant::containers;
};

enum grant_use : unsigned { grants_read = 1, grants_write = 2 };

// Containers as clusters of their channels, grants as links to and from them. A channel of
// two containers is drawn in each (a vertex belongs to one cluster).
template <class A>
void add_containers(model& m, std::size_t (*node_vertex)(std::size_t)) {
  using S = typename A::state_type;
  const auto names = channel_names<S>();
  std::vector<const void*> keys;
  std::vector<std::size_t> anchor;  // one vertex inside each container's cluster
  if (m.state_name.empty()) m.state_name = type_name<S>();
  auto container_index = [&]<class C>(std::type_identity<C>) {
    const void* key = &type_key<C>;
    const std::size_t k = static_cast<std::size_t>(std::find(keys.begin(), keys.end(), key) - keys.begin());
    if (k < keys.size()) return k;
    keys.push_back(key);
    m.containers.push_back(type_name<C>());
    anchor.push_back(no_stage);
    std::vector<unsigned> in(channel_count<S>, 0u);
    mark_declared<S>(in, 1u, static_cast<typename C::channels*>(nullptr));
    for (std::size_t c = 0; c < in.size(); ++c) {
      if (!in[c]) continue;
      // A channel drawn loose (picture_options::channels) moves into its first container.
      std::size_t v = 0;
      while (v < m.vertices.size() && !(m.vertices[v].kind == vertex_kind::channel && m.vertices[v].name == names[c] &&
                                        m.vertices[v].group == no_stage))
        ++v;
      if (v < m.vertices.size()) m.vertices[v].group = k;
      else m.vertices.push_back({vertex_kind::channel, names[c], no_stage, k});
      if (anchor[k] == no_stage) anchor[k] = v;
    }
    return k;
  };
  for_each_index<A::size>([&]<std::size_t I>() {
    using tr = node_traits<typename A::template node<I>>;
    std::vector<unsigned> use;
    auto grant = [&](std::size_t k, unsigned flag) {
      if (use.size() <= k) use.resize(k + 1, 0u);
      use[k] |= flag;
    };
    boost::mp11::mp_for_each<boost::mp11::mp_transform<std::type_identity, typename grant_containers<typename tr::reads_type>::type>>(
        [&](auto c) { grant(container_index(c), grants_read); });
    boost::mp11::mp_for_each<boost::mp11::mp_transform<std::type_identity, typename grant_containers<typename tr::writes_type>::type>>(
        [&](auto c) { grant(container_index(c), grants_write); });
    const std::size_t v = node_vertex(I);
    for (std::size_t k = 0; k < use.size(); ++k) {
      if (anchor[k] == no_stage) continue;  // a container of no channel has nothing to draw
      if (use[k] == (grants_read | grants_write)) m.links.push_back({anchor[k], v, link_kind::grant_read_write, {}, k});
      else if (use[k] == grants_read) m.links.push_back({anchor[k], v, link_kind::grant_read, {}, k});
      else if (use[k] == grants_write) m.links.push_back({v, anchor[k], link_kind::grant_write, {}, k});
    }
  });
}

template <class A>
model build(const picture_options& options) {
  using S = typename A::state_type;
  constexpr std::size_t n = A::size;
  constexpr std::size_t start_v = 0, end_v = n + 1;
  auto node_v = [](std::size_t i) { return i + 1; };

  model m;
  std::vector<const void*> stage_keys;
  m.vertices.push_back({vertex_kind::start, start::name});
  for_each_index<n>([&]<std::size_t I>() {
    using tr = node_traits<typename A::template node<I>>;
    std::size_t stage = no_stage;
    if (options.stages && !std::is_same_v<typename tr::stage, any_stage>) {
      const void* key = &type_key<typename tr::stage>;
      stage = static_cast<std::size_t>(std::find(stage_keys.begin(), stage_keys.end(), key) - stage_keys.begin());
      if (stage == stage_keys.size()) {
        stage_keys.push_back(key);
        m.stages.push_back(type_name<typename tr::stage>());
      }
    }
    m.vertices.push_back({vertex_kind::node, tr::name, stage});
  });
  m.vertices.push_back({vertex_kind::end, end::name});

  // Out-links grouped by source, sources in declaration order (__start__ first).
  auto add_branches_from = [&](std::size_t i) {
    const std::size_t source_v = node_v(i);
    for_each_index<A::branch_count>([&]<std::size_t B>() {
      using parts = typename A::template branch_parts<typename A::template branch_at<B>>;
      if (A::branch_table[B].source != i) return;
      std::string_view label = node_name<typename parts::router>();
      // A router may send instead of choosing (LangGraph's conditional edge returning Sends).
      constexpr link_kind kind = A::branch_table[B].sends ? link_kind::send : link_kind::branch;
      boost::mp11::mp_for_each<boost::mp11::mp_transform<std::type_identity, typename parts::targets>>(
          [&]<class T>(std::type_identity<T>) {
            constexpr std::size_t t = A::template index<T>::value;
            if constexpr (std::is_same_v<T, end>) m.links.push_back({source_v, end_v, kind, label});
            else if constexpr (t != none) m.links.push_back({source_v, node_v(t), kind, label});
          });
    });
  };
  for (std::size_t t = 0; t < n; ++t)
    if (A::table.from_start.test(t)) m.links.push_back({start_v, node_v(t), link_kind::edge});
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t from = node_v(i);
    for (std::size_t t = 0; t < n; ++t)
      if (A::table.successors[i].test(t)) m.links.push_back({from, node_v(t), link_kind::edge});
    if (A::table.to_end[i]) m.links.push_back({from, end_v, link_kind::edge});
    add_branches_from(i);
    for (std::size_t t = 0; t < n; ++t)
      if (A::table.goes[i].test(t)) m.links.push_back({from, node_v(t), link_kind::go_to, "goto"});
    if (A::table.goes_end[i]) m.links.push_back({from, end_v, link_kind::go_to, "goto"});
    for (std::size_t t = 0; t < n; ++t)
      if (A::table.sends[i].test(t)) m.links.push_back({from, node_v(t), link_kind::send, "send"});
  }

  for (const auto& row : A::table.join_rows) {
    if (row.into >= n) continue;
    const std::size_t bar = m.vertices.size();
    // The barrier belongs to its target: drawn inside the target's stage, it ranks before it.
    m.vertices.push_back({vertex_kind::join, m.vertices[node_v(row.into)].name, m.vertices[node_v(row.into)].stage});
    for (std::size_t s = 0; s < n; ++s)
      if (row.sources.test(s)) m.links.push_back({node_v(s), bar, link_kind::join_in});
    m.links.push_back({bar, node_v(row.into), link_kind::join_out});
  }

  if (options.channels) {
    const std::size_t first = m.vertices.size();
    m.state_name = type_name<S>();
    for (std::string_view name : channel_names<S>()) m.vertices.push_back({vertex_kind::channel, name});
    for_each_index<n>([&]<std::size_t I>() {
      using tr = node_traits<typename A::template node<I>>;
      std::vector<unsigned> use(channel_count<S>, 0u);
      mark_declared<S>(use, uses_read, static_cast<typename tr::reads_type*>(nullptr));
      mark_declared<S>(use, uses_write, static_cast<typename tr::writes_type*>(nullptr));
      mark_declared<S>(use, uses_subscribe, static_cast<typename tr::subscribes_list*>(nullptr));
      // One link per (node, channel): a channel read and written is one two-way link, and a
      // subscription (which wakes the node) replaces the plain read.
      for (std::size_t c = 0; c < use.size(); ++c) {
        const std::size_t v = node_v(I), ch = first + c;
        if (use[c] & uses_subscribe) m.links.push_back({ch, v, link_kind::subscribe});
        if ((use[c] & (uses_read | uses_subscribe | uses_write)) == (uses_read | uses_write))
          m.links.push_back({ch, v, link_kind::read_write});
        else if ((use[c] & (uses_read | uses_subscribe)) == uses_read) m.links.push_back({ch, v, link_kind::read});
        else if (use[c] & uses_write) m.links.push_back({v, ch, link_kind::write});
      }
    });
  }
  if (options.containers) add_containers<A>(m, +[](std::size_t i) { return i + 1; });
  return m;
}

// ---- text ------------------------------------------------------------------------------------

// Appends pieces in place. (Also keeps clear of `"literal" + std::string&&`, on which GCC 12
// gives a false -Wrestrict warning.)
inline void put(std::string& out, std::initializer_list<std::string_view> pieces) {
  for (std::string_view piece : pieces) out.append(piece);
}
inline std::string cat(std::initializer_list<std::string_view> pieces) {
  std::string out;
  put(out, pieces);
  return out;
}

// ---- ids: readable, unique, and legal in the target language ------------------------------

inline bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

inline bool is_plain_word(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_word_char(c)) return false;
  return true;
}

// Mermaid ids are words, and a few words are its own keywords (a node called `end` would
// close a subgraph).
inline std::string mermaid_word(std::string_view s) {
  std::string out;
  for (char c : s) out += is_word_char(c) ? c : '_';
  for (std::string_view keyword : {"end", "graph", "subgraph", "flowchart", "style", "class", "classDef", "click",
                                   "linkStyle", "default", "direction"})
    if (out == keyword) out += '_';
  return out;
}

// One id per vertex (and per stage, when `stage_ids` is set: Mermaid subgraphs share the
// namespace of nodes). Nodes keep their own names where possible; joins and channels get a
// prefix, and a clash gets a numeric suffix, so no name the user picks can merge two vertices.
inline std::vector<std::string> assign_ids(const model& m, bool mermaid_ids, std::vector<std::string>* stage_ids) {
  std::vector<std::string> taken;
  auto claim = [&](std::string id) {
    if (mermaid_ids) id = mermaid_word(id);
    std::string unique = id;
    for (int k = 2; std::find(taken.begin(), taken.end(), unique) != taken.end(); ++k)
      unique = id + "_" + std::to_string(k);
    taken.push_back(unique);
    return unique;
  };
  std::vector<std::string> ids(m.vertices.size());
  // Pseudo-nodes and nodes first, so a node is never renamed because of a join or channel.
  for (std::size_t v = 0; v < m.vertices.size(); ++v)
    if (m.vertices[v].kind != vertex_kind::join && m.vertices[v].kind != vertex_kind::channel)
      ids[v] = claim(std::string(m.vertices[v].name));
  for (std::size_t v = 0; v < m.vertices.size(); ++v) {
    if (m.vertices[v].kind == vertex_kind::join) ids[v] = claim(cat({"join_", m.vertices[v].name}));
    if (m.vertices[v].kind == vertex_kind::channel) ids[v] = claim(cat({"ch_", m.vertices[v].name}));
  }
  if (stage_ids) {
    for (std::string_view s : m.stages) stage_ids->push_back(claim(cat({"stage_", s})));
    stage_ids->push_back(claim(cat({"state_", m.state_name})));
    for (std::string_view c : m.containers) stage_ids->push_back(claim(cat({"container_", c})));
  }
  return ids;
}

// The vertices in drawing order, with each stage's nodes emitted together where the stage
// first appears: `visit(v)` for a free vertex, `open(s)`/`visit(v)`.../`close()` for a stage;
// the channels come last, as one group `open(stages.size())`...`close()`, with container k's
// channels nested inside it as `open(stages.size() + 1 + k)`...`close()`.
template <class Visit, class Open, class Close>
void for_each_vertex_clustered(const model& m, Visit visit, Open open, Close close) {
  std::vector<bool> done(m.stages.size(), false);
  bool any_channel = false;
  for (std::size_t v = 0; v < m.vertices.size(); ++v) {
    const std::size_t s = m.vertices[v].stage;
    if (m.vertices[v].kind == vertex_kind::channel) {
      any_channel = true;
    } else if (s == no_stage) {
      visit(v);
    } else if (!done[s]) {
      done[s] = true;
      open(s);
      for (std::size_t w = v; w < m.vertices.size(); ++w)
        if (m.vertices[w].stage == s) visit(w);
      close();
    }
  }
  if (!any_channel) return;
  open(m.stages.size());
  for (std::size_t v = 0; v < m.vertices.size(); ++v)
    if (m.vertices[v].kind == vertex_kind::channel && m.vertices[v].group == no_stage) visit(v);
  for (std::size_t k = 0; k < m.containers.size(); ++k) {
    open(m.stages.size() + 1 + k);
    for (std::size_t v = 0; v < m.vertices.size(); ++v)
      if (m.vertices[v].kind == vertex_kind::channel && m.vertices[v].group == k) visit(v);
    close();
  }
  close();
}

// ---- Mermaid --------------------------------------------------------------------------------

// Text inside ["..."] or |"..."|: entities for what Mermaid would read as syntax or HTML.
inline std::string mermaid_text(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '"': out += "#quot;"; break;
      case '<': out += "#lt;"; break;
      case '>': out += "#gt;"; break;
      case '&': out += "#amp;"; break;
      case '#': out += "#35;"; break;
      default: out += c;
    }
  }
  return out;
}

// The title goes into Mermaid's YAML front matter, as a double-quoted YAML scalar.
inline std::string yaml_quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + '"';
}

inline std::string mermaid(const model& m, const picture_options& options) {
  std::vector<std::string> stage_ids;
  const auto ids = assign_ids(m, true, &stage_ids);
  std::string out;
  if (!options.title.empty()) put(out, {"---\ntitle: ", yaml_quote(options.title), "\n---\n"});
  out += options.direction == picture_direction::left_right ? "flowchart LR\n" : "flowchart TD\n";

  std::string indent = "  ";
  auto declare = [&](std::size_t v) {
    const vertex& x = m.vertices[v];
    const std::string label = mermaid_text(x.name);
    out += indent + ids[v];
    switch (x.kind) {
      case vertex_kind::start:
      case vertex_kind::end: put(out, {"([\"", label, "\"])"}); break;
      case vertex_kind::node:
        if (ids[v] != x.name) put(out, {"[\"", label, "\"]"});
        break;
      case vertex_kind::join: out += "{{\"join\"}}"; break;
      case vertex_kind::channel: put(out, {"[(\"", label, "\")]"}); break;
    }
    out += '\n';
  };
  for_each_vertex_clustered(
      m, declare,
      [&](std::size_t s) {
        const std::string_view title = s < m.stages.size()    ? m.stages[s]
                                       : s == m.stages.size() ? m.state_name
                                                              : m.containers[s - m.stages.size() - 1];
        put(out, {indent, "subgraph ", stage_ids[s], " [\"", mermaid_text(title), "\"]\n"});
        indent += "  ";
      },
      [&] {
        indent.resize(indent.size() - 2);
        put(out, {indent, "end\n"});
      });

  std::string channel_links, grant_links;
  for (std::size_t k = 0; k < m.links.size(); ++k) {
    const link& l = m.links[k];
    const char* arrow = " --> ";
    switch (l.kind) {
      case link_kind::branch:
      case link_kind::go_to:
      case link_kind::subscribe: arrow = " -.-> "; break;
      case link_kind::send: arrow = " ==> "; break;
      case link_kind::read_write:
      case link_kind::grant_read_write: arrow = " <--> "; break;
      default: break;
    }
    // A grant's container end is the container's subgraph (Mermaid links subgraphs).
    std::string_view from_id = ids[l.from], to_id = ids[l.to];
    if (is_grant(l.kind)) (l.kind == link_kind::grant_write ? to_id : from_id) = stage_ids[m.stages.size() + 1 + l.group];
    put(out, {"  ", from_id, arrow});
    if (!l.label.empty()) {
      out.pop_back();
      if (is_plain_word(l.label)) put(out, {"|", l.label, "| "});
      else put(out, {"|\"", mermaid_text(l.label), "\"| "});
    }
    put(out, {to_id, "\n"});
    if (is_grant(l.kind)) put(grant_links, {grant_links.empty() ? "" : ",", std::to_string(k)});
    else if (is_channel_link(l.kind)) put(channel_links, {channel_links.empty() ? "" : ",", std::to_string(k)});
  }

  // Styles last, so the structure above reads on its own.
  auto list_of = [&](vertex_kind kind) {
    std::string list;
    for (std::size_t v = 0; v < m.vertices.size(); ++v)
      if (m.vertices[v].kind == kind) put(list, {list.empty() ? "" : ",", ids[v]});
    return list;
  };
  const std::string joins = list_of(vertex_kind::join), channels = list_of(vertex_kind::channel);
  out += "  classDef pseudo fill:#ffffff,stroke:#51608c\n";
  put(out, {"  class ", list_of(vertex_kind::start), ",", list_of(vertex_kind::end), " pseudo\n"});
  if (!joins.empty()) {
    out += "  classDef join fill:#333333,stroke:#333333,color:#ffffff\n";
    put(out, {"  class ", joins, " join\n"});
  }
  if (!channels.empty()) {
    out += "  classDef channel fill:#fff8e1,stroke:#b08800\n";
    put(out, {"  class ", channels, " channel\n"});
  }
  if (!channel_links.empty()) put(out, {"  linkStyle ", channel_links, " stroke:#b08800,stroke-width:1px\n"});
  if (!grant_links.empty()) put(out, {"  linkStyle ", grant_links, " stroke:#b08800,stroke-width:2px\n"});
  return out;
}

// ---- Graphviz DOT ---------------------------------------------------------------------------

inline std::string dot_quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + '"';
}

inline std::string dot(const model& m, const picture_options& options) {
  const bool lr = options.direction == picture_direction::left_right;
  const auto ids = assign_ids(m, false, nullptr);
  // Graphviz merges subgraphs of one name: two stage types of one unqualified name
  // (a::plan, b::plan) must still be two clusters.
  std::vector<std::string> clusters;
  for (std::string_view s : m.stages) {
    std::string name = cat({"cluster_", s});
    while (std::find(clusters.begin(), clusters.end(), name) != clusters.end()) name += '_';
    clusters.push_back(name);
  }
  // Containers: a space keeps their names apart from every stage's.
  std::vector<std::string> container_clusters;
  for (std::string_view c : m.containers) {
    std::string name = cat({"cluster container ", c});
    while (std::find(container_clusters.begin(), container_clusters.end(), name) != container_clusters.end())
      name += '_';
    container_clusters.push_back(name);
  }
  std::string out = "digraph stategraph {\n";
  out += lr ? "  rankdir=LR;\n" : "  rankdir=TB;\n";
  if (!m.containers.empty()) out += "  compound=true;\n";  // grants end at a cluster's border
  if (!options.title.empty()) put(out, {"  label=", dot_quote(options.title), ";\n  labelloc=t;\n"});
  out += "  fontname=\"Helvetica\";\n";
  out +=
      "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#eef1fb\", color=\"#51608c\", "
      "fontname=\"Helvetica\"];\n";
  out += "  edge [color=\"#333333\", fontname=\"Helvetica\", fontsize=10];\n";

  std::string indent = "  ";
  auto declare = [&](std::size_t v) {
    const vertex& x = m.vertices[v];
    out += indent + dot_quote(ids[v]);
    switch (x.kind) {
      case vertex_kind::start: out += " [shape=oval, fillcolor=\"#ffffff\", fontsize=10, height=0.3]"; break;
      case vertex_kind::end: out += " [shape=oval, fillcolor=\"#d6d0f8\", fontsize=10, height=0.3]"; break;
      case vertex_kind::node:
        if (ids[v] != x.name) put(out, {" [label=", dot_quote(x.name), "]"});
        break;
      // A barrier bar across the flow, as in activity diagrams.
      case vertex_kind::join:
        out += lr ? " [shape=box, style=filled, fillcolor=\"#333333\", label=\"\", width=0.08, height=0.6]"
                  : " [shape=box, style=filled, fillcolor=\"#333333\", label=\"\", width=0.6, height=0.08]";
        break;
      case vertex_kind::channel:
        put(out, {" [shape=cylinder, style=filled, fillcolor=\"#fff8e1\", color=\"#b08800\", label=", dot_quote(x.name),
                  "]"});
        break;
    }
    out += ";\n";
  };
  for_each_vertex_clustered(
      m, declare,
      [&](std::size_t s) {
        const std::string inner = indent + "  ";
        if (s < m.stages.size()) {
          put(out, {indent, "subgraph ", dot_quote(clusters[s]), " {\n"});
          put(out, {inner, "label=", dot_quote(m.stages[s]), ";\n"});
          put(out, {inner, "labeljust=l;\n", inner, "style=\"rounded,dashed\";\n", inner, "color=\"#8a8a8a\";\n"});
        } else if (s == m.stages.size()) {  // the channels; a cluster name no stage can take
          put(out, {indent, "subgraph \"cluster state\" {\n"});
          put(out, {inner, "label=", dot_quote(m.state_name), ";\n"});
          put(out, {inner, "labeljust=l;\n", inner, "style=\"rounded,filled\";\n", inner, "fillcolor=\"#fffdf5\";\n",
                    inner, "color=\"#d9c27a\";\n"});
        } else {  // a container, inside the state's cluster
          const std::size_t k = s - m.stages.size() - 1;
          put(out, {indent, "subgraph ", dot_quote(container_clusters[k]), " {\n"});
          put(out, {inner, "label=", dot_quote(m.containers[k]), ";\n"});
          put(out, {inner, "labeljust=l;\n", inner, "style=\"rounded,filled\";\n", inner, "fillcolor=\"#fff3c4\";\n",
                    inner, "color=\"#b08800\";\n"});
        }
        indent = inner;
      },
      [&] {
        indent.resize(indent.size() - 2);
        put(out, {indent, "}\n"});
      });

  for (const link& l : m.links) {
    put(out, {"  ", dot_quote(ids[l.from]), " -> ", dot_quote(ids[l.to])});
    std::string attrs;
    switch (l.kind) {
      case link_kind::edge: break;
      case link_kind::join_out: attrs = "label=\"join\""; break;  // the bar itself carries no text
      case link_kind::join_in: attrs = "arrowhead=none"; break;
      case link_kind::branch: attrs = "style=dashed"; break;
      case link_kind::go_to: attrs = "style=dotted"; break;
      case link_kind::send: attrs = "style=bold, arrowhead=normalnormal"; break;
      // Channel links must not pull the control flow out of shape: they do not rank nodes.
      case link_kind::read:
      case link_kind::write: attrs = "color=\"#b08800\", arrowsize=0.6, constraint=false"; break;
      case link_kind::read_write: attrs = "color=\"#b08800\", dir=both, arrowsize=0.6, constraint=false"; break;
      case link_kind::subscribe: attrs = "color=\"#b08800\", style=dashed, arrowsize=0.6, constraint=false"; break;
      // A state edge: bold, from or to the container's border.
      case link_kind::grant_read:
      case link_kind::grant_read_write:
        attrs = cat({"color=\"#b08800\", penwidth=2, constraint=false, ",
                     l.kind == link_kind::grant_read_write ? "dir=both, " : "",
                     "ltail=", dot_quote(container_clusters[l.group])});
        break;
      case link_kind::grant_write:
        attrs = cat({"color=\"#b08800\", penwidth=2, constraint=false, lhead=", dot_quote(container_clusters[l.group])});
        break;
    }
    if (!l.label.empty()) put(attrs, {attrs.empty() ? "" : ", ", "label=", dot_quote(l.label)});
    if (!attrs.empty()) put(out, {" [", attrs, "]"});
    out += ";\n";
  }
  return out + "}\n";
}

}  // namespace detail::picture

// The graph as a Mermaid flowchart (renders in GitHub Markdown). Bound lists the lambda
// nodes sg::compile would bind (decltype of each sg::node<Tag, ...>(f)), so their stages and
// channels are drawn; without them a tag is drawn by name only.
template <class G, class... Bound>
std::string to_mermaid(const picture_options& options = {}) {
  using A = analysis<G, detail::mp_list<std::decay_t<Bound>...>>;
  return detail::picture::mermaid(detail::picture::build<A>(options), options);
}

// The graph as Graphviz DOT (`dot -Tpng`).
template <class G, class... Bound>
std::string to_dot(const picture_options& options = {}) {
  using A = analysis<G, detail::mp_list<std::decay_t<Bound>...>>;
  return detail::picture::dot(detail::picture::build<A>(options), options);
}

// The graph of a compiled app, with its lambda nodes bound as sg::compile bound them.
template <class App>
  requires requires { typename App::analysis_type; }
std::string to_mermaid(const App&, const picture_options& options = {}) {
  return detail::picture::mermaid(detail::picture::build<typename App::analysis_type>(options), options);
}
template <class App>
  requires requires { typename App::analysis_type; }
std::string to_dot(const App&, const picture_options& options = {}) {
  return detail::picture::dot(detail::picture::build<typename App::analysis_type>(options), options);
}

}  // namespace stategraph
