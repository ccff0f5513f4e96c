"""Every bad argument of the Python API is a ValueError whose message, one line, starts with the
argument's name: a table of cases (function, argument, call, what the message says), and a test
that every parameter of every public function has at least one case."""
import functools
import inspect
import json
import os

import numpy as np
import pytest
import torch

import geoattn
from geoattn.capture_io import write_capture


def causal_rows(W=1, L=2, H=4, T=8, seed=0):
    """alpha [W, L, H, T, T]: softmax rows over keys 0..i."""
    g = torch.Generator().manual_seed(seed)
    scores = torch.randn(W, L, H, T, T, generator=g)
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
    return scores.masked_fill(mask, float("-inf")).softmax(-1)


ALPHA = causal_rows()
VALUES = torch.randn(1, 2, 2, 8, 4, generator=torch.Generator().manual_seed(1))
VOCAB, POSITIONS = 50, 16  # the tiny Llama's


def changed(x, index, value):
    x = x.clone()
    x[index] = value
    return x


def metrics(**change):
    """geoattn.metrics(ALPHA, VALUES) with some arguments changed."""
    args = dict(dict(alpha=ALPHA, values=VALUES, controls=0), **change)
    return geoattn.metrics(args.pop("alpha"), args.pop("values"), **args)


def intervene(e, **change):
    """geoattn.intervene on stories260K over two OpenWebText windows, some arguments changed: the
    kinds are checked before the command runs, the command's own reasons name the keyword."""
    repo = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    args = dict(dict(model=os.path.join(repo, "models", "stories260K"),
                     data=os.path.join(repo, "data", "openwebtext", "openwebtext-60docs.jsonl"), heads="2.1", ctx=32,
                     max_windows=2, bootstrap=0, quiet=True, out=e.file("intervene.json")), **change)
    return geoattn.intervene(args.pop("model"), args.pop("data"), **args)


def explain(e, **change):
    """geoattn.explain of the Env's capture (layer 1, head 3, the last query), some arguments changed."""
    return geoattn.explain(**dict(dict(capture=e.capture, head="1.3", check=False), **change))


def sinks(**change):
    args = dict(dict(attn=ALPHA, values=VALUES), **change)
    return geoattn.sinks(args.pop("attn"), args.pop("values"), **args)


@functools.lru_cache(maxsize=None)
def tiny_llama():
    """A randomly initialised 2-layer Llama of transformers (skips without transformers)."""
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=VOCAB, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                                      num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=POSITIONS)
    return transformers.LlamaForCausalLM(config).eval()


def capture(**change):
    args = dict(dict(model=tiny_llama(), input_ids=[1, 2, 3]), **change)
    return geoattn.hf.capture(args.pop("model"), args.pop("input_ids"), **args)


def cache(drop=(), layers=3, **replace):
    """A TransformerLens cache of `layers` layers, keys in `drop` left out."""
    out = {}
    for l in range(layers):
        out[f"blocks.{l}.attn.hook_pattern"] = ALPHA[:, l % 2]                  # [B, H, T, T]
        out[f"blocks.{l}.attn.hook_v"] = VALUES[:, l % 2].transpose(1, 2)       # [B, T, KV, d]
    out.update(replace)
    return {k: v for k, v in out.items() if k not in drop}


class Env:
    """Results and files the cases read: a measure and a sinks result, and bad files."""

    def __init__(self, folder):
        self.folder = str(folder)
        self.measure = metrics()
        self.sinks = sinks()
        self.sinks.save(self.file("s.json"))
        self.measure.save(self.file("fits.json"))  # a result a run can predict from
        self.deep = self.write("deep.json", "[" * 100000 + "]" * 100000)
        self.broken = self.write("broken.json", "{")
        self.a_list = self.write("list.json", "[1]")
        self.hollow = self.write("hollow.json", json.dumps({"schema": "geoattn.measure/1"}))
        self.loaded = geoattn.load(self.write("m1.json", json.dumps(dict(self.measure.doc, schema="geoattn.measure/1"))))
        arrays = {"alpha": ALPHA.numpy(), "values": VALUES.numpy(), "tokens": np.arange(8).reshape(1, 8),
                  "queries": np.arange(8)}
        self.capture, self.unmarked = self.file("c.safetensors"), self.file("unmarked.safetensors")
        write_capture(self.capture, {"format": "geoattn-capture-1"}, arrays)
        write_capture(self.unmarked, {}, arrays)

    def file(self, name):
        return os.path.join(self.folder, name)

    def write(self, name, text):
        with open(self.file(name), "w") as f:
            f.write(text)
        return self.file(name)


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    return Env(tmp_path_factory.mktemp("bad_inputs"))


hf = geoattn.hf
# (function, argument, call(env), a part of the message)
CASES = [
    ("metrics", "alpha", lambda e: metrics(alpha=[[1.0]]), "torch tensor"),
    ("metrics", "alpha", lambda e: metrics(alpha=ALPHA.long()), "dtype int64"),
    ("metrics", "alpha", lambda e: metrics(alpha=ALPHA[0]), "5 dims"),
    ("metrics", "alpha", lambda e: metrics(alpha=ALPHA * 1.1), "sum"),
    ("metrics", "alpha", lambda e: metrics(alpha=changed(ALPHA, (0, 0, 0, 2, 5), 0.5)), "causal"),
    ("metrics", "alpha", lambda e: metrics(alpha=-ALPHA), "negative"),
    ("metrics", "alpha", lambda e: metrics(alpha=ALPHA[:0], values=VALUES[:0]), "no windows"),
    ("metrics", "alpha", lambda e: metrics(alpha=ALPHA[:, :0], values=VALUES[:, :0]), "no layers"),
    ("metrics", "alpha", lambda e: metrics(alpha=ALPHA[:, :, :0]), "no heads"),
    ("metrics", "alpha", lambda e: metrics(alpha=ALPHA[:, :, :, :0], queries=[]), "no queries"),
    ("metrics", "alpha", lambda e: metrics(alpha=ALPHA[:, :, :, -1:, :0], values=VALUES[:, :, :, :0]), "no T"),
    ("metrics", "alpha", lambda e: metrics(alpha=ALPHA.to("meta"), values=VALUES.to("meta")), "meta"),
    ("metrics", "values", lambda e: metrics(values=VALUES[:, :, :, :6]), "does not fit"),
    ("metrics", "values", lambda e: metrics(values=torch.randn(1, 2, 3, 8, 4)), "do not divide"),
    ("metrics", "values", lambda e: metrics(values=changed(VALUES, (0, 1, 0, 3, 2), float("nan"))), "NaN"),
    ("metrics", "values", lambda e: metrics(values=VALUES[..., :0]), "no d"),
    ("metrics", "queries", lambda e: metrics(queries=[1, 2]), "2 positions"),
    ("metrics", "queries", lambda e: metrics(alpha=ALPHA[:, :, :, :3], queries=None), "give their positions"),
    ("metrics", "queries", lambda e: metrics(queries="first"), "'first'"),
    ("metrics", "queries", lambda e: metrics(alpha=ALPHA[:, :, :, -1:], queries=[7.5]), "integer positions"),
    ("metrics", "n", lambda e: metrics(n="0:4"), ""),
    ("metrics", "n", lambda e: metrics(n="bogus"), ""),
    ("metrics", "n", lambda e: metrics(n=[1, 99]), ""),
    ("metrics", "n", lambda e: metrics(n=[]), "at least one"),
    ("metrics", "n", lambda e: metrics(n=[1.0]), "list of N"),
    ("metrics", "controls", lambda e: metrics(controls=-1), ""),
    ("metrics", "controls", lambda e: metrics(controls=2**63), "0.."),
    ("metrics", "bootstrap", lambda e: metrics(bootstrap=1.5), "integer"),
    ("metrics", "bootstrap", lambda e: metrics(bootstrap=2**50), "more than this machine's"),
    ("metrics", "seed", lambda e: metrics(seed=2**64), str(2**64 - 1)),
    ("metrics", "seed", lambda e: metrics(seed=-1), ""),
    ("metrics", "distance", lambda e: metrics(distance="manhattan"), "euclidean"),
    ("metrics", "distance", lambda e: metrics(distance=np.array(["euclidean", "cosine"])), "euclidean"),
    ("metrics", "decay_k", lambda e: metrics(decay_k=0), ""),
    ("metrics", "decay_k", lambda e: metrics(decay_k=2**62), "max(64, T - 1) = 64"),
    ("metrics", "bootstrap_level", lambda e: metrics(bootstrap_level="token"), "'head'"),
    ("metrics", "bootstrap_unit", lambda e: metrics(bootstrap_unit="token"), "'document'"),
    ("metrics", "ci", lambda e: metrics(ci=100), "above 0 and below 100"),
    ("metrics", "ci", lambda e: metrics(ci="95"), "above 0 and below 100"),
    ("metrics", "envelopes", lambda e: metrics(envelopes=True), "'auto'"),
    ("metrics", "kappa", lambda e: metrics(kappa=0), "> 0"),
    ("metrics", "kappa", lambda e: metrics(kappa=float("inf")), "> 0"),
    ("metrics", "kappa_scan", lambda e: metrics(kappa_scan="0.5,0.25"), "ascending"),
    ("metrics", "kappa_scan", lambda e: metrics(kappa_scan=[1, 0]), "> 0"),
    ("metrics", "window_tokens", lambda e: metrics(window_tokens="windowed"), "'visible'"),
    ("metrics", "layer_windows", lambda e: metrics(layer_windows=[8]), "one per layer"),
    ("metrics", "layer_windows", lambda e: metrics(layer_windows="8"), "one per layer"),
    ("metrics", "kv_map", lambda e: metrics(kv_map=[0, 1]), "4 KV head"),
    ("metrics", "kv_map", lambda e: metrics(kv_map=[0, 1, 2, 3]), "0..1"),
    ("metrics", "kv_map", lambda e: metrics(kv_map=[0.5] * 4), "integers"),
    ("metrics", "docs", lambda e: metrics(docs=["a", "b"]), "1 document names"),
    ("metrics", "docs", lambda e: metrics(alpha=causal_rows(W=2), values=VALUES.expand(2, -1, -1, -1, -1), docs="ab"),
     "list of 2"),
    ("metrics", "docs", lambda e: metrics(docs=[None]), "strings or integers"),
    ("metrics", "threads", lambda e: metrics(threads=-2), ""),
    ("metrics", "threads", lambda e: metrics(threads=4097), "4096"),
    ("metrics", "metrics_memory_mb", lambda e: metrics(metrics_memory_mb=0), ""),
    ("metrics", "metrics_memory_mb", lambda e: metrics(metrics_memory_mb=2**50), ""),
    ("metrics", "source", lambda e: metrics(source=None), "string"),
    ("metrics", "metadata", lambda e: metrics(metadata="x"), "dict"),
    ("metrics", "metadata", lambda e: metrics(metadata={1: 2}), "string keys"),
    ("metrics", "metadata", lambda e: metrics(metadata={"a": {1}}), "not JSON"),

    ("sinks", "attn", lambda e: sinks(attn=ALPHA[:, :, :, :3]), "every query row"),
    ("sinks", "attn", lambda e: sinks(attn=ALPHA[:0], values=VALUES[:0]), "no windows"),
    ("sinks", "attn", lambda e: sinks(attn=ALPHA[:, :, :, :0, :0], values=VALUES[:, :, :, :0]), "no T"),
    ("sinks", "values", lambda e: sinks(values=VALUES[:, :1]), "does not fit"),
    ("sinks", "values", lambda e: sinks(values=VALUES[..., :0]), "no d"),
    ("sinks", "values", lambda e: sinks(values=VALUES.to("meta")), "meta"),
    ("sinks", "taus", lambda e: sinks(taus=[1.5]), "[0, 1)"),
    ("sinks", "taus", lambda e: sinks(taus="x"), "list"),
    ("sinks", "taus", lambda e: sinks(taus=[]), "at least one"),
    ("sinks", "taus", lambda e: sinks(taus=[float("nan")]), "[0, 1)"),
    ("sinks", "convention", lambda e: sinks(convention="paper"), "not one of geoattn or authors"),
    ("sinks", "convention", lambda e: sinks(convention=1), "string"),
    ("sinks", "eps", lambda e: sinks(eps=2), "[0, 1)"),
    ("sinks", "eps", lambda e: sinks(eps=True), "[0, 1)"),
    ("sinks", "residual", lambda e: sinks(residual=torch.zeros(1, 2, 7, 4)), "does not fit"),
    ("sinks", "residual", lambda e: sinks(residual=torch.zeros(1, 2, 8, 0)), "no D"),
    ("sinks", "residual", lambda e: sinks(residual=torch.zeros(1, 2, 8, 4, dtype=torch.long)), "dtype"),
    ("sinks", "tokens", lambda e: sinks(tokens=torch.zeros(1, 5, dtype=torch.long)), "[1, 8]"),
    ("sinks", "tokens", lambda e: sinks(tokens=-torch.ones(1, 8, dtype=torch.long)), "negative"),
    ("sinks", "tokens", lambda e: sinks(tokens=torch.zeros(1, 8, dtype=torch.bool)), "bool"),
    ("sinks", "tokens", lambda e: sinks(tokens=[[2**70] * 8]), "integer token ids"),
    ("sinks", "profile_positions", lambda e: sinks(profile_positions=0), ""),
    ("sinks", "profile_positions", lambda e: sinks(profile_positions=2**63), ""),
    ("sinks", "config", lambda e: sinks(config="x"), "dict"),
    ("sinks", "config", lambda e: sinks(config={"x": 1}), "unknown key"),
    ("sinks", "config", lambda e: sinks(config={"x": {1}}), "not JSON"),
    ("sinks", "threads", lambda e: sinks(threads=2**40), ""),
    ("sinks", "source", lambda e: sinks(source=5), "string"),
    ("sinks", "metadata", lambda e: sinks(metadata=[1]), "dict"),

    ("taxonomy", "result", lambda e: geoattn.taxonomy(42), "geoattn.Measure"),
    ("taxonomy", "result", lambda e: geoattn.taxonomy(e.sinks), "a sinks result"),
    ("taxonomy", "result", lambda e: geoattn.taxonomy(e.file("s.json")), "s.json"),
    ("taxonomy", "result", lambda e: geoattn.taxonomy(e.file("nope.json")), "nope.json"),
    ("taxonomy", "result", lambda e: geoattn.taxonomy(e.deep), "deep.json"),
    ("taxonomy", "result", lambda e: geoattn.taxonomy(e.folder), "folder"),
    ("taxonomy", "config", lambda e: geoattn.taxonomy(e.measure, config="x"), "dict"),
    ("taxonomy", "config", lambda e: geoattn.taxonomy(e.measure, config={"nope": 1}), "unknown key"),
    ("taxonomy", "config", lambda e: geoattn.taxonomy(e.measure, config={"reset_n_max": float("nan")}), "not JSON"),

    ("fits", "result", lambda e: geoattn.fits(e.sinks), "a sinks result, fits needs a measure result"),
    ("fits", "result", lambda e: geoattn.fits(e.file("s.json")), "a sinks result, fits needs a measure result"),
    ("fits", "result", lambda e: geoattn.fits(42), "geoattn.Measure"),
    ("fits", "result", lambda e: geoattn.fits(e.deep), "deep.json"),
    ("fits", "result", lambda e: geoattn.fits(e.hollow), "hollow.json"),

    ("load", "path", lambda e: geoattn.load(e.file("nope.json")), "nope.json"),
    ("load", "path", lambda e: geoattn.load(e.deep), "deep.json"),
    ("load", "path", lambda e: geoattn.load(e.broken), "broken.json"),
    ("load", "path", lambda e: geoattn.load(e.a_list), "not a measure or sinks result"),
    ("load", "path", lambda e: geoattn.load(e.hollow), "required key"),
    ("load", "path", lambda e: geoattn.load(e.folder), "folder"),
    ("load", "path", lambda e: geoattn.load(""), "empty"),
    ("load", "path", lambda e: geoattn.load(None), "file path"),

    ("read_capture", "path", lambda e: geoattn.read_capture(e.folder), "folder"),
    ("read_capture", "path", lambda e: geoattn.read_capture(""), "empty"),
    ("read_capture", "path", lambda e: geoattn.read_capture(7), "file path"),
    ("read_capture", "path", lambda e: geoattn.read_capture(e.broken), "broken.json"),

    ("Measure.save", "path", lambda e: e.measure.save(e.folder), "folder"),
    ("Measure.save", "path", lambda e: e.measure.save(""), "empty"),
    ("Measure.save", "path", lambda e: e.measure.save(None), "file path"),
    ("Measure.save", "path", lambda e: e.measure.save(e.file("m.json\0x")), "NUL"),
    ("Measure.save", "path", lambda e: e.measure.save(e.file(os.path.join("no", "m.json"))), "does not exist"),
    ("Measure.save", "save", lambda e: e.loaded.save(e.file("again.json")), "loaded from files"),
    ("Measure.save", "path", lambda e: metrics(predict_from=e.file("fits.json")).save(e.file("fits.json")),
     "fits.json: a file this command reads"),
    ("Measure.save", "path", lambda e: metrics(predict_from=e.file("fits.json")).save(e.file("fits.state.safetensors")),
     "fits.state.safetensors: a file this command reads"),
    ("Sinks.save", "path", lambda e: e.sinks.save(e.folder), "folder"),
    ("Sinks.save", "path", lambda e: e.sinks.save(""), "empty"),

    ("hf.capture", "model", lambda e: hf.capture("gpt2", [1, 2, 3]), "torch.nn.Module"),
    ("hf.capture", "model", lambda e: hf.capture(torch.nn.Linear(2, 2), [1, 2, 3]), "not a transformers model"),
    ("hf.capture", "input_ids", lambda e: hf.capture(torch.nn.Linear(2, 2), torch.zeros(2, 3)), "float32"),
    ("hf.capture", "input_ids", lambda e: capture(input_ids=[]), "empty"),
    ("hf.capture", "input_ids", lambda e: capture(input_ids=[[[1]]]), "[windows, T]"),
    ("hf.capture", "input_ids", lambda e: capture(input_ids=[1, 2, VOCAB]), f"0..{VOCAB - 1}"),
    ("hf.capture", "input_ids", lambda e: capture(input_ids=[1, -1]), "vocabulary"),
    ("hf.capture", "input_ids", lambda e: capture(input_ids=[1] * (POSITIONS + 1)), f"{POSITIONS} positions"),
    ("hf.capture", "input_ids", lambda e: capture(input_ids=[1, 2**70]), "integer token ids"),
    ("hf.capture", "input_ids", lambda e: capture(input_ids="abc"), "integer token ids"),
    ("hf.capture", "queries", lambda e: capture(queries=[5]), "0..2"),
    ("hf.capture", "queries", lambda e: capture(queries=[1.5]), "integer positions"),
    ("hf.capture", "queries", lambda e: capture(queries=[]), "positions"),
    ("hf.capture", "dtype", lambda e: capture(dtype=torch.bool), "torch.float32"),
    ("hf.capture", "dtype", lambda e: capture(dtype="float16"), "torch.float16"),
    ("hf.capture", "input_ids", lambda e: capture(input_ids=[2, 3]), "not the model's BOS 1"),
    ("hf.capture", "bos", lambda e: capture(bos="no"), "True or False"),

    ("hf.from_cache", "cache", lambda e: hf.from_cache({}), "no blocks"),
    ("hf.from_cache", "cache", lambda e: hf.from_cache([1]), "dict"),
    ("hf.from_cache", "cache", lambda e: hf.from_cache(cache(drop=["blocks.1.attn.hook_pattern"])),
     "blocks.1.attn.hook_pattern is missing"),
    ("hf.from_cache", "cache", lambda e: hf.from_cache(cache(drop=["blocks.0.attn.hook_v"])), "blocks.0.attn.hook_v"),
    ("hf.from_cache", "cache", lambda e: hf.from_cache(cache(**{"blocks.1.attn.hook_pattern": ALPHA[:, 1].long()})),
     "blocks.1.attn.hook_pattern: dtype int64"),
    ("hf.from_cache", "cache", lambda e: hf.from_cache(cache(**{"blocks.1.attn.hook_pattern": ALPHA[:, 1, :, :3, :3],
                                                         "blocks.1.attn.hook_v": VALUES[:, 1, :, :3].transpose(1, 2)})),
     "differ from blocks.0"),
    ("hf.from_cache", "cache", lambda e: hf.from_cache(cache(**{"blocks.1.attn.hook_v": torch.tensor(1.0)})),
     "[batch, T, kv_heads, d]"),
    ("hf.from_cache", "queries", lambda e: hf.from_cache(cache(), queries=[9]), "0..7"),
    ("hf.from_cache", "queries", lambda e: hf.from_cache(cache(), queries=None), "'last'"),
    ("hf.from_cache", "layers", lambda e: hf.from_cache(cache(), layers=0), ""),
    ("hf.from_cache", "layers", lambda e: hf.from_cache(cache(), layers=4), "no blocks.3.attn.hook_pattern"),
    ("hf.from_cache", "layers", lambda e: hf.from_cache(cache(), layers=1.5), "integer"),

    ("explain", "capture", lambda e: explain(e, capture=7), "a path"),
    ("explain", "capture", lambda e: explain(e, capture=None), "give a capture file"),
    ("explain", "capture", lambda e: explain(e, capture=e.file("nope.safetensors")), "no such file"),
    ("explain", "capture", lambda e: explain(e, capture=e.broken), "not a readable capture file"),
    ("explain", "capture", lambda e: explain(e, capture=e.unmarked), "not a geoattn capture file"),
    ("explain", "head", lambda e: explain(e, head="2.0"), "out of range (layers 0..1, heads 0..3)"),
    ("explain", "head", lambda e: explain(e, head="one.two"), "not L.H"),
    ("explain", "window", lambda e: explain(e, window=-1), "a window index"),
    ("explain", "window", lambda e: explain(e, window=1), "out of range (1 window in"),
    ("explain", "query", lambda e: explain(e, query=2.5), "a query position"),
    ("explain", "query", lambda e: explain(e, query=9), "not a captured query position"),
    ("explain", "n", lambda e: explain(e, n=0), "at least 1"),
    ("explain", "n", lambda e: explain(e, query=3, n=5), "out of range (1..4,"),
    ("explain", "model", lambda e: explain(e, model=7), "a path"),
    ("explain", "model", lambda e: explain(e, model=e.folder), "no tokenizer.json or tokenizer.model"),
    ("explain", "data", lambda e: explain(e, capture=None, data=e.broken), "needs model"),
    ("explain", "ctx", lambda e: explain(e, ctx=64), "not used without data"),
    ("explain", "ctx", lambda e: explain(e, capture=None, data=e.broken, model=e.folder, ctx=0), "at least 1"),
    ("explain", "window_tokens", lambda e: explain(e, window_tokens="all"), "visible or causal"),
    ("explain", "check", lambda e: explain(e, check="yes"), "True or False"),
    ("explain", "geoattn", lambda e: explain(e, check=True, geoattn=e.broken), "not an executable"),

    ("intervene", "model", lambda e: intervene(e, model=7), "a path, not 7"),
    ("intervene", "data", lambda e: intervene(e, data=[7]), "a path or a list of paths"),
    ("intervene", "heads", lambda e: intervene(e, heads="9.1"), "9.1 is not a head of the model's 5 layers x 8 heads"),
    ("intervene", "heads", lambda e: intervene(e, heads=2.1), "a string, not 2.1"),
    ("intervene", "taxonomy", lambda e: intervene(e, heads=None, taxonomy=e.hollow, label="Reset"), "not a geoattn taxonomy"),
    ("intervene", "label", lambda e: intervene(e, label=1), "a string, not 1"),
    ("intervene", "each", lambda e: intervene(e, each="yes"), "True or False"),
    ("intervene", "random_sets", lambda e: intervene(e, random_sets=1.5), "an integer"),
    ("intervene", "intervention", lambda e: intervene(e, intervention="keep:3"), "'keep:3' is not zero, mean"),
    ("intervene", "intervention", lambda e: intervene(e, intervention=[3]), "a string or a list of strings"),
    ("intervene", "policy", lambda e: intervene(e, policy=[1]), "a string or a list of strings"),
    ("intervene", "budget_from", lambda e: intervene(e, budget_from=e.hollow), "not used without"),
    ("intervene", "means_from", lambda e: intervene(e, means_from=e.capture), "not used without an intervention=mean"),
    ("intervene", "ctx", lambda e: intervene(e, ctx="32"), "an integer"),
    ("intervene", "max_windows", lambda e: intervene(e, max_windows=-2), "max_windows"),
    ("intervene", "window", lambda e: intervene(e, window=0), "a string"),
    ("intervene", "offset", lambda e: intervene(e, offset=0), "a string"),
    ("intervene", "seed", lambda e: intervene(e, seed=True), "an integer"),
    ("intervene", "shard", lambda e: intervene(e, shard="2/2"), "'2/2' is not i/n"),
    ("intervene", "checkpoint_every", lambda e: intervene(e, checkpoint_every=1.0), "an integer"),
    ("intervene", "restart", lambda e: intervene(e, restart=1), "True or False"),
    ("intervene", "per_forward", lambda e: intervene(e, per_forward="4"), "an integer"),
    ("intervene", "bootstrap", lambda e: intervene(e, bootstrap=0.5), "an integer"),
    ("intervene", "ci", lambda e: intervene(e, ci="95"), "a coverage in percent"),
    ("intervene", "ci", lambda e: intervene(e, ci=100), "100 is not a coverage in percent"),
    ("intervene", "device", lambda e: intervene(e, device=0), "a string"),
    ("intervene", "dtype", lambda e: intervene(e, dtype=32), "a string"),
    ("intervene", "threads", lambda e: intervene(e, threads="all"), "an integer"),
    ("intervene", "out", lambda e: intervene(e, out=3), "a path"),
    ("intervene", "quiet", lambda e: intervene(e, quiet="no"), "True or False"),
    ("intervene", "geoattn", lambda e: intervene(e, geoattn=e.broken), "not an executable"),

    # ---- strict reading: no pybind11 error with a tensor dump, no setting the run leaves unread,
    # ---- no weight where the mask leaves none, numbers in plain decimal, values echoed short
    ("metrics", "layer_windows", lambda e: metrics(layer_windows=[2**63, 0]), f"to {2**63 - 1}, one per layer"),
    ("metrics", "layer_windows", lambda e: metrics(layer_windows=[8.5, 0]), "one per layer"),
    ("metrics", "layer_windows", lambda e: metrics(layer_windows=[4, 0]), "outside the layer's window of 4"),
    ("metrics", "alpha", lambda e: metrics(alpha=changed(ALPHA, (0, 0, 0, 2, 5), 0.01)), "after the query"),
    ("metrics", "n", lambda e: metrics(n=""), "not a number"),
    ("metrics", "n", lambda e: metrics(n="1, 2"), "not a number"),
    ("metrics", "kappa", lambda e: metrics(envelopes="off", kappa=2), "not used with envelopes='off'"),
    ("metrics", "bootstrap_level", lambda e: metrics(bootstrap=0, bootstrap_level="head"), "not used with bootstrap=0"),
    ("metrics", "bootstrap_unit", lambda e: metrics(bootstrap=0, bootstrap_unit="window"), "not used with bootstrap=0"),
    ("metrics", "ci", lambda e: metrics(bootstrap=0, ci=90), "not used with bootstrap=0"),
    ("metrics", "kappa_scan", lambda e: metrics(kappa_scan="0x1p-2"), "ascending"),
    ("metrics", "kappa_scan", lambda e: metrics(kappa_scan="0.5,"), "ascending"),
    ("metrics", "kappa_scan", lambda e: metrics(kappa_scan=",".join(["1"] * 3000)), "..."),
    ("metrics", "predict_from", lambda e: metrics(predict_from=e.file("nope.json")), "nope.json: cannot open"),
    ("metrics", "predict_from", lambda e: metrics(predict_from=e.hollow), "not a measure result"),
    ("metrics", "predict_from", lambda e: metrics(predict_from=42), "expected a string"),
    ("metrics", "predict_from", lambda e: metrics(predict_from=""), "empty path"),
    ("metrics", "predict_from", lambda e: metrics(predict_from=e.file("s.json"), envelopes="off"), "are envelopes"),
]


@pytest.mark.parametrize("function,argument,call,says", CASES,
                         ids=[f"{f}-{a}-{i}" for i, (f, a, _, _) in enumerate(CASES)])
def test_a_bad_argument_is_named(env, function, argument, call, says):
    with pytest.raises(ValueError) as raised:
        call(env)
    message = str(raised.value)
    assert message.startswith(f"{argument}: "), message
    assert "\n" not in message and len(message) < 300, message
    assert says in message, message


def public_functions():
    """{name: function} of everything the package exports, with the methods of its classes and
    the functions of geoattn.hf."""
    out = {}
    for name in geoattn.__all__:
        obj = getattr(geoattn, name)
        if inspect.isfunction(obj):
            out[name] = obj
        elif inspect.isclass(obj):
            out.update((f"{name}.{m}", f) for m, f in vars(obj).items() if inspect.isfunction(f) and not m.startswith("_"))
    out.update((f"hf.{m}", f) for m, f in vars(geoattn.hf).items()
               if inspect.isfunction(f) and not m.startswith("_") and f.__module__ == geoattn.hf.__name__)
    return out


def test_every_argument_has_a_case():
    """A new argument without a case here (so, likely, without a check) fails this test."""
    covered = {(f, a) for f, a, _, _ in CASES}
    missing = [f"{f}({p})" for f, function in public_functions().items()
               for p in inspect.signature(function).parameters if p != "self" and (f, p) not in covered]
    assert not missing, f"arguments without a bad-input case: {missing}"
    assert {"metrics", "sinks", "taxonomy", "fits", "load", "read_capture", "explain", "hf.capture", "hf.from_cache",
            "Measure.save", "Sinks.save"} <= public_functions().keys()


def test_good_inputs_run():
    r = geoattn.metrics(ALPHA, VALUES, n="all", controls=2)
    assert r.heads["P_rmax"].shape == (2, 4, 8)
    assert r.n_grid.tolist() == list(range(1, 9))
    np_r = geoattn.metrics(ALPHA.numpy(), VALUES.numpy(), n="all", controls=2)
    assert np.array_equal(np_r.heads["P_rmax"], r.heads["P_rmax"], equal_nan=True)
    # the bounds themselves are accepted
    geoattn.metrics(ALPHA, VALUES, controls=0, seed=2**64 - 1, decay_k=64, n=np.array([1, 8]), kv_map=[0, 0, 1, 1],
                    queries=torch.arange(8), metadata={"k": [1, "a"]})


def test_bounds_of_a_model_are_accepted():
    alpha, values = capture(input_ids=[[0, VOCAB - 1] * (POSITIONS // 2)], queries="all", dtype=torch.float64,
                            bos=False)
    assert alpha.dtype == values.dtype == torch.float64 and alpha.shape == (1, 2, 2, POSITIONS, POSITIONS)
    c = cache(layers=2)
    assert hf.from_cache(c, layers=1)[0].shape == (1, 1, 4, 1, 8)
    assert hf.from_cache(c, queries=np.array([3, 7]))[0].shape == (1, 2, 4, 2, 8)


def test_a_module_built_for_another_torch_is_refused(monkeypatch):
    """The installed package records the torch it linked (geoattn/_build_info.py) and refuses to
    load beside another, in one line that says to reinstall, rather than crash in the loader."""
    from geoattn import _loader
    if os.environ.get("GEOATTN_NATIVE"):
        pytest.skip("GEOATTN_NATIVE: the module of a build tree, not an installed package")
    try:
        from geoattn import _build_info
    except ImportError:
        pytest.skip("no installed package (geoattn/_build_info.py)")
    assert _build_info.TORCH_VERSION == torch.__version__
    monkeypatch.setattr(_build_info, "TORCH_VERSION", "0.0.0")
    monkeypatch.setattr(_loader, "_module", None)
    with pytest.raises(ImportError, match=r"^geoattn was built against torch 0\.0\.0, and this environment has torch "
                                          r".*: reinstall geoattn here \(pip install --force-reinstall \./python\)$"):
        _loader.native()
