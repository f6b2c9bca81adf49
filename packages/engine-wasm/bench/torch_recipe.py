#!/usr/bin/env python3
"""The paper's fitting recipe in PyTorch (paper.md, "Fitting": Adam, lr 0.05, 2,500 steps, every
parameter jointly, autograd), timed per step, for bench/vs-torch.js to set beside `llm-nrm fit`.

    python3 bench/torch_recipe.py responses.jsonl --steps 300 --threads 2

Reads a tidy JSONL file (model, item, key, probs; options in displayed order), builds dense padded
tensors (LLMs x items x K_max, masked), and runs `--steps` Adam steps of the LLM-NRM MAP objective:
soft cross-entropy of p_jik = softmax_k[(1 - G_ji) s_j (a_ik theta_j + c_ik + delta_jk) + G_ji rho_jk],
G_ji = sigmoid(w0 - softplus(kbar) (theta_j - b_i)), b_i the guarded one-step difficulty, with
sum-to-zero a, c (per item), delta, rho (per LLM) by centring, theta ~ N(0, 1) and our weak priors.
Prints one JSON line: setup and per-step seconds (median over the timed steps, after 5 warm-up
steps), the loss after the last step, threads and torch version. CPU only.
"""
import argparse
import json
import statistics
import sys
import time


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--lr", type=float, default=0.05)
    args = ap.parse_args()
    import torch  # imported here so that a missing torch fails with one clear line (see vs-torch.js)

    torch.set_num_threads(args.threads)
    t0 = time.perf_counter()
    models: dict[str, int] = {}
    items: dict[str, int] = {}
    rows = []
    with open(args.file, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            j = models.setdefault(r["model"], len(models))
            i = items.setdefault(r["item"], len(items))
            rows.append((j, i, int(r["key"]), r["probs"]))
    J, I = len(models), len(items)
    K = [0] * I
    key = [0] * I
    for j, i, g, p in rows:
        K[i] = len(p)
        key[i] = g
    kmax = max(K)
    import numpy as np

    qn = np.zeros((J, I, kmax), dtype=np.float32)
    on = np.zeros((J, I), dtype=np.float32)
    for j, i, g, p in rows:
        qn[j, i, : len(p)] = p
        on[j, i] = 1.0
    q = torch.from_numpy(qn)
    observed = torch.from_numpy(on)
    q = q / q.sum(-1, keepdim=True).clamp_min(1e-30) * observed[..., None]
    valid = torch.zeros(I, kmax, dtype=torch.bool)
    for i in range(I):
        valid[i, : K[i]] = True
    keyv = torch.tensor(key)
    is_key = torch.nn.functional.one_hot(keyv, kmax).bool()
    neg = torch.tensor(-1e30)
    item_sd, llm_sd, sharp_sd, eps, bound = 10.0, 2.0, 0.5, 0.5, 6.0

    a = torch.zeros(I, kmax, requires_grad=True)
    c = torch.zeros(I, kmax, requires_grad=True)
    theta = torch.zeros(J, requires_grad=True)
    sbar = torch.full((J,), 0.5413, requires_grad=True)  # softplus^-1(1)
    delta = torch.zeros(J, kmax, requires_grad=True)
    rho = torch.zeros(J, kmax, requires_grad=True)
    w0 = torch.tensor(-2.0, requires_grad=True)
    kbar = torch.tensor(0.5413, requires_grad=True)
    params = [a, c, theta, sbar, delta, rho, w0, kbar]
    vf = valid.float()
    nk = vf.sum(-1, keepdim=True)

    def centre(x: "torch.Tensor") -> "torch.Tensor":
        return (x - (x * vf).sum(-1, keepdim=True) / nk) * vf

    def loss_fn() -> "torch.Tensor":
        ac, cc = centre(a), centre(c)
        d = delta - delta.mean(-1, keepdim=True)
        r_ = rho - rho.mean(-1, keepdim=True)
        # b_i: one Newton step on the correct-vs-incorrect log-odds from theta = 0, guarded.
        cd = torch.where(valid & ~is_key, cc, neg)
        lse = torch.logsumexp(cd, -1)
        w = torch.softmax(cd, -1)
        N = lse - cc.gather(1, keyv[:, None])[:, 0]
        D = ac.gather(1, keyv[:, None])[:, 0] - (w * ac).sum(-1)
        b = bound * torch.tanh(N * D / (D * D + eps * eps) / bound)
        s = torch.nn.functional.softplus(sbar)
        kappa = torch.nn.functional.softplus(kbar)
        G = torch.sigmoid(w0 - kappa * (theta[:, None] - b[None, :]))  # J x I
        u = s[:, None, None] * (ac[None] * theta[:, None, None] + cc[None] + d[:, None, :])
        v = (1 - G)[..., None] * u + G[..., None] * r_[:, None, :]
        v = torch.where(valid[None], v, neg)
        logp = torch.log_softmax(v, -1)
        nll = -(q * torch.where(valid[None], logp, torch.zeros(()))).sum()
        prior = 0.5 * (theta**2).sum() + 0.5 * ((ac**2).sum() + (cc**2).sum()) / item_sd**2
        prior = prior + 0.5 * ((d**2).sum() + (r_**2).sum()) / llm_sd**2 + 0.5 * (torch.log(s) ** 2).sum() / sharp_sd**2
        return nll + prior

    opt = torch.optim.Adam(params, lr=args.lr)
    setup = time.perf_counter() - t0
    times = []
    loss = float("nan")
    for step in range(args.steps + 5):
        t = time.perf_counter()
        opt.zero_grad()
        L = loss_fn()
        L.backward()
        opt.step()
        if step >= 5:
            times.append(time.perf_counter() - t)
        loss = float(L.detach())
    print(json.dumps({
        "models": J, "items": I, "kmax": kmax, "setup_s": setup, "steps": args.steps,
        "step_s": statistics.median(times), "mean_step_s": sum(times) / len(times), "loss": loss,
        "threads": torch.get_num_threads(), "torch": torch.__version__,
    }))


if __name__ == "__main__":
    try:
        main()
    except ImportError as e:
        print(f"torch_recipe.py: {e}", file=sys.stderr)
        sys.exit(3)
