#!/usr/bin/env node
// `llm-nrm fit` of a JSONL file (parsing, checks, fit and standard errors included: the wall time
// of the built CLI, default engine and stopping rule) beside the paper's recipe in PyTorch (Adam,
// lr 0.05, 2,500 steps; bench/torch_recipe.py) on the same file and machine, runs interleaved so
// that a change in the machine's load hits both. The recipe runs `--torch-steps` steps (after 5
// warm-up steps) and its per-step median is scaled to 2,500 steps; the ratio is what to report.
//
//   node packages/engine-wasm/bench/vs-torch.js [--file f.jsonl] [--runs 3] [--torch-steps 200] [--threads 2]
//   LLM_NRM_TORCH_PYTHON=/tmp/torchvenv/bin/python ...   (the interpreter with torch; default python3)
//
// Without --file, simulates 189 x 2,000 (seed 7) into a temp folder. Where torch is missing the
// recipe is skipped with a message (CI does not install it) and only our times are printed.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { log, median, opt } from './options.js';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '../../cli/dist/bin.js');
const runs = Number(opt('runs', 3));
const torchSteps = Number(opt('torch-steps', 200));
const threads = Number(opt('threads', 2));
const python = process.env.LLM_NRM_TORCH_PYTHON ?? 'python3';

const tmp = mkdtempSync(join(tmpdir(), 'llm-nrm-vs-torch-'));
try {
  let file = opt('file', null);
  if (file === null) {
    file = join(tmp, 'fleet.jsonl');
    execFileSync(process.execPath, [bin, 'simulate', '-o', file, '--seed', '7', '-q']);
    log(`simulated 189 x 2,000 (seed 7) into ${file}`);
  }
  const probe = spawnSync(python, ['-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8' });
  const torchOk = probe.status === 0;
  if (!torchOk) {
    log(`PyTorch not available to ${python} (${(probe.stderr || probe.error?.message || '').trim().split('\n').pop()}): skipping the recipe;`);
    log('install it (e.g. python3 -m venv /tmp/torchvenv && /tmp/torchvenv/bin/pip install torch numpy) and set LLM_NRM_TORCH_PYTHON to compare.');
  }
  const ours = [];
  const torch = [];
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    const out = execFileSync(process.execPath, [bin, 'fit', file, '-o', join(tmp, 'b.json'), '--json', '-q'], { encoding: 'utf8', maxBuffer: 1 << 28 });
    const wall = (performance.now() - t0) / 1000;
    const fit = JSON.parse(out).fit;
    ours.push({ wall, fitSeconds: fit.seconds, passes: fit.passes, loss: fit.loss, reason: fit.reason });
    log(`llm-nrm fit: ${wall.toFixed(2)} s wall (fit ${fit.seconds.toFixed(2)} s, ${fit.passes} passes, ${fit.reason}, loss ${fit.loss.toFixed(2)})`);
    if (torchOk) {
      const res = spawnSync(python, [join(here, 'torch_recipe.py'), file, '--steps', String(torchSteps), '--threads', String(threads)], {
        encoding: 'utf8',
        maxBuffer: 1 << 24,
      });
      if (res.status !== 0) throw new Error(`torch_recipe.py failed: ${res.stderr}`);
      const t = JSON.parse(res.stdout.trim().split('\n').pop());
      torch.push(t);
      log(
        `torch recipe: ${(t.step_s * 1000).toFixed(1)} ms per Adam step (median of ${t.steps}, ${t.threads} threads, torch ${t.torch}), 2,500 steps ~ ${(t.step_s * 2500).toFixed(1)} s (+ ${t.setup_s.toFixed(1)} s setup); loss after ${t.steps + 5} steps ${t.loss.toFixed(1)}`,
      );
    }
  }
  const ourMed = median(ours.map((o) => o.wall));
  const summary = {
    runs,
    file,
    ours: { wallMedian: ourMed, walls: ours.map((o) => o.wall), fitSecondsMedian: median(ours.map((o) => o.fitSeconds)), passes: ours.map((o) => o.passes) },
  };
  if (torchOk) {
    const step = median(torch.map((t) => t.step_s));
    const recipe = step * 2500;
    Object.assign(summary, { torch: { stepSecondsMedian: step, recipeSeconds2500: recipe, threads, version: torch[0].torch }, ratio: recipe / ourMed });
    log(`ratio (recipe 2,500 steps / our fit from JSONL, medians): ${(recipe / ourMed).toFixed(1)}x`);
  }
  console.log(JSON.stringify(summary, null, 1));
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
