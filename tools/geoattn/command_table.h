#pragma once
// The commands of geoattn, once (commands.h builds both programs from it; the tests list the
// commands from it too): X(name, needs, description), needs Plain, Torch or Python
// (commands.h, Needs). No includes: a table only.

// X(name, needs, description): add_<name> binds its flags and action (cmd_<name>.cpp).
#define GEOATTN_COMMANDS(X)                                                                                          \
  X(capture, Torch, "Run a checkpoint and save attention rows and value states (safetensors)")                       \
  X(inspect, Torch, "Describe and fully validate a checkpoint; predict its memory")                                 \
  X(measure, Torch, "Top-N Precision/Recall/F for every head over a text shard -> JSON")                             \
  X(metrics, Plain, "Top-N Precision/Recall/F of a capture file (geoattn capture layout) -> JSON")                   \
  X(merge, Plain, "Merge result JSONs of shards of one measure or sinks run (their .state.safetensors sidecars)")    \
  X(bounds, Torch, "Theorems 1-2 / Corollary 1 bounds beside the measured P and R (SPEC §5)")                        \
  X(taxonomy, Plain,                                                                                                 \
    "Label every head Retriever / Mixer / Reset by its signature, or Unlabelled, from a measure JSON, with the "    \
    "labels' sensitivity to the thresholds (SPEC §6)")                                                              \
  X(sinks, Torch,                                                                                                    \
    "Attention sinks and reference frames per head and layer (sink mass, dormant heads, reference points, "         \
    "attention graph, frame types) -> JSON")                                                                         \
  X(intervene, Torch,                                                                                                \
    "Intervene on heads (zero, top-N, sink-recent, random keys) and measure the next-token loss, KL and top-1 "    \
    "agreement against the plain model, with bootstrap intervals over documents -> JSON")                         \
  X(bench, Torch, "Benchmarks (the figures of docs/performance.md)")                                                 \
  X(summary, Python, "The per-layer summary of a result, or its per-head table: sort, filter, CSV, JSON")           \
  X(explain, Python, "One head's top-N selection token by token: alpha, distances, r_min, r_max, figure")          \
  X(compare, Python, "Two runs side by side: B - A per layer and N, bootstrap intervals over documents")            \
  X(report, Python, "One self-contained HTML page of a run: settings, tables, verdicts, figures")
