// SPDX-License-Identifier: MIT OR Apache-2.0
#include "filecoin/seal.hpp"

#include "filecoin/sha256.hpp"
#include "util/error.hpp"

namespace cuzk::filecoin {

namespace {

// One level up: a node per group of `arity`, over the pool when it is worth it.
std::vector<PoseidonFr> level_up(MerkleHasher h, const std::vector<PoseidonFr>& nodes, size_t arity, ThreadPool* pool) {
  std::vector<PoseidonFr> up(nodes.size() / arity);
  auto run = [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) up[i] = merkle_node(h, std::span<const PoseidonFr>(nodes).subspan(i * arity, arity));
  };
  if (pool && up.size() >= 1024)
    pool->parallel_for(up.size(), run, 256);
  else
    run(0, up.size());
  return up;
}

PorPathLevel path_level(const std::vector<PoseidonFr>& level, size_t arity, uint64_t idx) {
  PorPathLevel l;
  l.index = size_t(idx % arity);
  const uint64_t lo = idx - l.index;
  for (size_t k = 0; k < arity; ++k)
    if (k != l.index) l.siblings.push_back(level[lo + k]);
  return l;
}

PoseidonFr label_of(const Bytes32& replica_id, uint32_t layer, uint64_t node, const std::vector<PoseidonFr>* cur,
                    const std::vector<PoseidonFr>* prev, const StackedGraph& graph) {
  uint8_t head[64] = {};
  std::copy(replica_id.begin(), replica_id.end(), head);
  for (int i = 0; i < 4; ++i) head[32 + i] = uint8_t(layer >> (24 - 8 * i));
  for (int i = 0; i < 8; ++i) head[36 + i] = uint8_t(node >> (56 - 8 * i));
  Sha256 h;
  h.update(head);
  if (node > 0) {
    uint32_t p[kGraphDegree];
    graph.parents(uint32_t(node), p);
    const size_t n = prev ? kGraphDegree : kGraphDrgDegree;
    Bytes32 b[kGraphDegree];
    for (size_t k = 0; k < n; ++k) b[k] = fr_to_bytes(k < kGraphDrgDegree ? (*cur)[p[k]] : (*prev)[p[k]]);
    for (size_t k = 0; k < circuit::kTotalParents; ++k) h.update(b[k % n]);
  }
  Bytes32 d = h.finish();
  d[31] &= 0x3f;
  return fr_from_bytes(d, "label");
}

}  // namespace

StoredTree::StoredTree(const TreeShape& shape, std::vector<PoseidonFr> leaves, ThreadPool* pool)
    : shape_(shape), leaves_(leaves.size()) {
  shape.base_path_length(leaves.size());  // validates
  const size_t trees = shape.base_tree_count();
  const size_t per = leaves.size() / trees;
  for (size_t t = 0; t < trees; ++t) {
    std::vector<std::vector<PoseidonFr>> levels;
    levels.emplace_back(leaves.begin() + ptrdiff_t(t * per), leaves.begin() + ptrdiff_t((t + 1) * per));
    while (levels.back().size() > 1) levels.push_back(level_up(shape.hasher, levels.back(), shape.base, pool));
    upper_.resize(1);
    upper_[0].push_back(levels.back()[0]);
    base_.push_back(std::move(levels));
  }
  if (shape.sub) upper_.push_back(level_up(shape.hasher, upper_.back(), shape.sub, pool));
  if (shape.top) upper_.push_back(level_up(shape.hasher, upper_.back(), shape.top, pool));
  root_ = upper_.back().at(0);
}

std::vector<PorPathLevel> StoredTree::path(uint64_t leaf) const {
  if (leaf >= leaves_)
    throw InvalidArgument("tree path: leaf " + std::to_string(leaf) + " of " + std::to_string(leaves_));
  const uint64_t per = leaves_ / base_.size();
  std::vector<PorPathLevel> out;
  const auto& levels = base_[leaf / per];
  uint64_t idx = leaf % per;
  for (size_t l = 0; l + 1 < levels.size(); ++l, idx /= shape_.base)
    out.push_back(path_level(levels[l], shape_.base, idx));
  idx = leaf / per;
  if (shape_.sub) out.push_back(path_level(upper_[0], shape_.sub, idx)), idx /= shape_.sub;
  if (shape_.top) out.push_back(path_level(upper_[1], shape_.top, idx));
  return out;
}

SealedSector seal_sector(const PorepCircuitConfig& config, std::vector<PoseidonFr> data, const SealIds& ids,
                         ThreadPool* pool) {
  config.validate();
  if (data.size() != config.nodes)
    throw InvalidArgument("seal: " + std::to_string(data.size()) + " data nodes for a sector of " +
                          std::to_string(config.nodes));
  SealedSector s;
  s.config = config;
  s.tree_d = StoredTree(config.tree_d(), data, pool);
  s.comm_d = fr_to_bytes(s.tree_d.root());
  s.replica_id = replica_id_of(ids.prover_id, ids.sector_id, ids.ticket, s.comm_d, ids.porep_id);
  const StackedGraph graph(config.nodes, ids.porep_id, ids.api);
  // Labels in node order (each depends on earlier nodes of its layer).
  s.labels.resize(config.layers, std::vector<PoseidonFr>(config.nodes));
  for (size_t layer = 1; layer <= config.layers; ++layer) {
    auto& cur = s.labels[layer - 1];
    const auto* prev = layer > 1 ? &s.labels[layer - 2] : nullptr;
    for (uint64_t node = 0; node < config.nodes; ++node)
      cur[node] = label_of(s.replica_id, uint32_t(layer), node, &cur, prev, graph);
  }
  std::vector<PoseidonFr> columns(config.nodes), replica(config.nodes);
  auto fill = [&](size_t b, size_t e) {
    std::vector<PoseidonFr> col(config.layers);
    for (size_t n = b; n < e; ++n) {
      for (size_t l = 0; l < config.layers; ++l) col[l] = s.labels[l][n];
      columns[n] = poseidon_hash(config.layers, col);
      replica[n] = data[n] + s.labels.back()[n];
    }
  };
  if (pool)
    pool->parallel_for(config.nodes, fill, 256);
  else
    fill(0, config.nodes);
  s.tree_c = StoredTree(config.tree, std::move(columns), pool);
  s.tree_r = StoredTree(config.tree, std::move(replica), pool);
  s.comm_c = fr_to_bytes(s.tree_c.root());
  s.comm_r_last = fr_to_bytes(s.tree_r.root());
  const PoseidonFr pair[2] = {s.tree_c.root(), s.tree_r.root()};
  s.comm_r = fr_to_bytes(poseidon_hash(2, pair));
  s.data = std::move(data);
  return s;
}

PorepWitness porep_vanilla_witness(const SealedSector& s, const StackedGraph& graph,
                                   std::span<const uint64_t> challenges) {
  PorepWitness w;
  w.replica_id = fr_from_bytes(s.replica_id, "replica_id");
  w.comm_d = s.tree_d.root();
  w.comm_r = fr_from_bytes(s.comm_r, "comm_r");
  w.comm_r_last = s.tree_r.root();
  w.comm_c = s.tree_c.root();
  auto column = [&](uint64_t node) {
    PorepColumnWitness c;
    for (const auto& layer : s.labels) c.rows.push_back(layer[node]);
    c.path = s.tree_c.path(node);
    return c;
  };
  for (uint64_t c : challenges) {
    PorepChallengeWitness ch;
    ch.challenge = c;
    ch.data_leaf = s.data.at(c);
    ch.comm_d_path = s.tree_d.path(c);
    ch.comm_r_last_path = s.tree_r.path(c);
    ch.comm_c_path = s.tree_c.path(c);
    uint32_t p[kGraphDegree];
    graph.parents(uint32_t(c), p);
    for (size_t k = 0; k < kGraphDegree; ++k)
      (k < kGraphDrgDegree ? ch.drg_parents : ch.exp_parents).push_back(column(p[k]));
    w.challenges.push_back(std::move(ch));
  }
  return w;
}

}  // namespace cuzk::filecoin
