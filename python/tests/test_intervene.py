"""geoattn intervene against upstream transformers applying the same interventions to its own
attention (a registered attention function that edits the probability rows after the float32
softmax, or removes a head's output before o_proj): the plain loss and every intervention's
mean next-token loss difference, KL and top-1 agreement, on the same windows (the CLI's own
tokens, from a capture of the same shard). Mean ablation's means are the reference's own first
pass over the windows; a budget's N per head is read from the CLI's result and applied as each
head's own top-n. A real trained LLaMA (stories15M), SmolLM2-135M (GQA,
30 layers) and Gemma-3-270M (windowed layers: sliding-window attention)."""
import json
import os

import numpy as np
import pytest

from conftest import DOCS, REPO, in_ci, model_dir, real_model, run

torch = pytest.importorskip("torch") if not in_ci() else __import__("torch")
transformers = pytest.importorskip("transformers") if not in_ci() else __import__("transformers")

import geoattn  # noqa: E402
import geoattn.schema  # noqa: E402

# The edits of each (layer, head), set per run: {"by_head": {(l, h): (policy, n)}, policy one of
# "zero", "mean", "record", "top-n", "sink-recent"; "means" / "sums": {(l, h): [d]}}.
EDIT: dict = {}


def _keep(probs, mask, policy, n):
    """The kept keys of rows `probs` [B, h, T, T] (float32) as the CLI's policies keep them."""
    T = probs.shape[-1]
    i = torch.arange(T).view(T, 1)
    j = torch.arange(T).view(1, T)
    seen = mask if mask is not None else (j <= i)
    if policy == "top-n":
        top = probs.topk(min(n, T), dim=-1).indices
        return torch.zeros_like(probs, dtype=torch.bool).scatter(-1, top, True) & seen
    if policy == "sink-recent":
        return seen & ((j == 0) | ((i - j) < n))
    raise ValueError(policy)


def edited_attention(module, query, key, value, attention_mask, scaling, dropout=0.0, **kwargs):
    """transformers' eager attention (modeling_llama.eager_attention_forward), with EDIT applied
    to the heads of this layer."""
    groups = query.shape[1] // key.shape[1]
    key_states = key.repeat_interleave(groups, dim=1)
    value_states = value.repeat_interleave(groups, dim=1)
    scores = torch.matmul(query, key_states.transpose(2, 3)) * scaling
    softcap = getattr(module, "attn_logit_softcapping", None) or kwargs.get("softcap")
    if softcap:
        scores = torch.tanh(scores / softcap) * softcap
    if attention_mask is not None:
        scores = scores + attention_mask[:, :, :, : key_states.shape[-2]]
    probs = torch.nn.functional.softmax(scores, dim=-1, dtype=torch.float32)
    layer = module.layer_idx
    mine = {h: rule for (l, h), rule in EDIT.get("by_head", {}).items() if l == layer}
    rows_edited = sorted(h for h, (policy, _) in mine.items() if policy in ("top-n", "sink-recent"))
    if rows_edited:
        idx = torch.tensor(rows_edited)
        rows = probs[:, idx]
        seen = None if attention_mask is None else (attention_mask[:, :, :, : key_states.shape[-2]] == 0)
        keep = torch.cat([_keep(rows[:, k:k + 1], seen, *mine[h]) for k, h in enumerate(rows_edited)], dim=1)
        kept = rows * keep
        dropped = ((rows > 0) & ~keep).any(-1, keepdim=True)
        probs = probs.clone()
        probs[:, idx] = torch.where(dropped, kept / kept.sum(-1, keepdim=True), rows)
    probs = probs.to(query.dtype)
    out = torch.matmul(probs, value_states)
    if any(policy in ("zero", "mean") for policy, _ in mine.values()):
        out = out.clone()
    for h, (policy, _) in sorted(mine.items()):
        if policy == "zero":
            out[:, h] = 0
        elif policy == "mean":
            out[:, h] = EDIT["means"][(layer, h)].to(out.dtype)
        elif policy == "record":  # mean ablation's first pass: every position's output, summed
            EDIT["sums"][(layer, h)] = EDIT["sums"].get((layer, h), 0) + out[0, h].double().sum(0)
    return out.transpose(1, 2).contiguous(), probs


def reference(model, windows, by_head):
    """(plain loss, loss difference, KL, top-1 agreement) per predicted token over `windows`, each
    head of `by_head` edited as it says."""
    means = None
    meaned = [key for key, (policy, _) in by_head.items() if policy == "mean"]
    if meaned:  # each head's output averaged over every position of the windows
        EDIT.clear()
        EDIT.update(by_head={key: ("record", 0) for key in meaned}, sums={})
        with torch.no_grad():
            for ids in windows:
                model(torch.tensor(ids).view(1, -1))
        positions = sum(len(ids) for ids in windows)
        means = {key: (total / positions).float() for key, total in EDIT["sums"].items()}
        EDIT.clear()
    totals = np.zeros(5)  # loss plain, loss, kl, agree, tokens
    for ids in windows:
        x = torch.tensor(ids).view(1, -1)
        EDIT.clear()
        with torch.no_grad():
            p = torch.log_softmax(model(x).logits[0, :-1].double(), -1)
            EDIT.update(by_head=by_head, means=means)
            q = torch.log_softmax(model(x).logits[0, :-1].double(), -1)
        EDIT.clear()
        nxt = x[0, 1:].view(-1, 1)
        totals += [-p.gather(1, nxt).sum().item(), -q.gather(1, nxt).sum().item(),
                   (p.exp() * (p - q)).sum().item(), (p.argmax(-1) == q.argmax(-1)).sum().item(), len(ids) - 1]
    return totals[0] / totals[4], (totals[1] - totals[0]) / totals[4], totals[2] / totals[4], totals[3] / totals[4]


def rule(intervention):
    """(policy, n) of an intervention's text: "top-n:8" -> ("top-n", 8), "mean" -> ("mean", 0)."""
    policy, _, n = intervention.partition(":")
    return policy, int(n or 0)


def check_model(geoattn_bin, tmp_path, model_path, data, ctx, windows, cases, taxonomy=None):
    """geoattn intervene of each case against the reference on the CLI's own windows (a
    "policy:LABEL=INTERVENTION,..." case over the classes of `taxonomy`)."""
    capture = tmp_path / "windows.safetensors"
    run(geoattn_bin, "capture", "--quiet", "--model", model_path, "--data", data, "--ctx", ctx, "--max-windows",
        windows, "--out", capture)
    ids = np.asarray(geoattn.read_capture(str(capture))["tokens"]).tolist()
    from transformers.masking_utils import ALL_MASK_ATTENTION_FUNCTIONS, AttentionMaskInterface

    transformers.AttentionInterface.register("geoattn_edited", edited_attention)
    AttentionMaskInterface.register("geoattn_edited", ALL_MASK_ATTENTION_FUNCTIONS["eager"])  # additive, 0 where seen
    model = transformers.AutoModelForCausalLM.from_pretrained(model_path, dtype=torch.float32,
                                                              attn_implementation="geoattn_edited").eval()
    for heads, intervention in cases:
        out = tmp_path / "iv.json"
        budget = []
        if intervention.startswith("budget:"):  # the budgets from a measure of other windows of the shard
            run(geoattn_bin, "measure", "--quiet", "--model", model_path, "--data", data, "--ctx", ctx, "--max-windows",
                windows, "--offset", "hashed", "--bootstrap", 0, "--out", tmp_path / "budgets.json")
            budget = ["--budget-from", tmp_path / "budgets.json"]
        if intervention.startswith("policy:"):  # each class of the taxonomy its own way
            tax = json.load(open(taxonomy))
            items = [item.split("=", 1) for item in intervention[len("policy:"):].split(",")]
            which = ["--taxonomy", taxonomy] + [x for label, iv in items for x in ("--policy", f"{label}={iv}")]
            by_head = {(h["layer"], h["head"]): rule(iv) for label, iv in items for h in tax["heads"] if h["label"] == label}
        else:
            which = ["--heads", ",".join(f"{l}.{h}" for l, h in heads), "--intervention", intervention]
            by_head = {} if intervention.startswith("budget:") else {head: rule(intervention) for head in heads}
        run(geoattn_bin, "intervene", "--quiet", "--model", model_path, "--data", data, "--ctx", ctx,
            "--max-windows", windows, *which, "--bootstrap", 100, *budget, "--out", out)
        doc = json.load(open(out))
        assert geoattn.schema.problem(doc, "geoattn.intervene-1.schema.json") is None
        if intervention.startswith("budget:"):  # each head's own N, applied as its own top-n
            budgets = dict(zip(heads, doc["interventions"][0]["budgets"]))
            assert len(set(budgets.values())) > 1, budgets  # the heads' budgets differ
            by_head = {head: ("top-n", n) for head, n in budgets.items()}
        loss_plain, loss_diff, kl, top1 = reference(model, ids, by_head)
        got = doc["interventions"][0]
        where = f"{os.path.basename(model_path)} {intervention} on {heads}"
        assert abs(doc["loss_plain"] - loss_plain) <= 1e-4, (where, doc["loss_plain"], loss_plain)
        assert abs(got["loss_diff"] - loss_diff) <= 2e-4, (where, got["loss_diff"], loss_diff)
        assert abs(got["kl"] - kl) <= 2e-4, (where, got["kl"], kl)
        assert abs(got["top1_agreement"] - top1) <= 1.5 / (len(ids) * (ctx - 1)), (where, got["top1_agreement"], top1)
        assert got["loss_diff"] != 0 or intervention.endswith(f":{ctx}"), where  # the edit did something


def test_stories15m_interventions_equal_transformers(geoattn_bin, tmp_path):
    check_model(geoattn_bin, tmp_path, model_dir("stories15M"), DOCS, 128, 4,
                [([(4, 5)], "sink-recent:16"), ([(4, 5)], "zero"), ([(2, 1), (3, 0)], "top-n:8"),
                 ([(0, 0), (5, 5)], "top-n:128"), ([(4, 5), (1, 2)], "mean"),
                 ([(l, h) for l in range(6) for h in range(6)], "budget:R_rmin:0.7"),
                 ([], "policy:Mixer=top-n:8,Retriever=mean,Unlabelled=sink-recent:16")],
                taxonomy=os.path.join(REPO, "docs", "findings", "stories15M", "taxonomy.json"))


def test_smollm2_interventions_equal_transformers(geoattn_bin, tmp_path):
    smollm2 = real_model("smollm2-135m", "scripts/get-model.sh smollm2")
    check_model(geoattn_bin, tmp_path, smollm2, os.path.join(smollm2, "openwebtext-60docs.bin"), 64, 2,
                [([(7, 3), (7, 4)], "sink-recent:8"), ([(12, 0)], "zero"), ([(12, 0), (20, 4)], "mean")])


def test_gemma3_windowed_layer_interventions_equal_transformers(geoattn_bin, tmp_path):
    gemma3 = real_model("gemma3-270m", "scripts/get-model.sh gemma3")
    config = json.load(open(os.path.join(gemma3, "config.json")))
    layer_types = config.get("layer_types") or config.get("text_config", {}).get("layer_types") or []
    windowed = next(l for l, t in enumerate(layer_types) if t == "sliding_attention")
    # T = 600 > the sliding window (512): the window cuts the rows of that layer.
    check_model(geoattn_bin, tmp_path, gemma3, os.path.join(gemma3, "openwebtext-60docs.bin"), 600, 1,
                [([(windowed, 0), (windowed, 2)], "top-n:4"), ([(windowed, 1)], "zero")])
