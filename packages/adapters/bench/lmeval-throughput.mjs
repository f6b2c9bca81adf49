// Throughput of readLmEvalHarness against a bare "read lines + JSON.parse" loop on a synthetic
// lm-eval v0.4.3+ samples file (string leaves, 4-10 options, few-shot context in every request).
// Not a test. Needs the built dist: `npx tsc -p tsconfig.json` first.
//   node bench/lmeval-throughput.mjs [--size-mb 1000] [--runs 3]
// Each measurement runs in its own child process so peak RSS (maxRSS) is per method.
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : def;
};

async function child(method, file) {
  const t0 = process.hrtime.bigint();
  let n = 0;
  if (method === 'bare') {
    const rl = createInterface({ input: createReadStream(file, { highWaterMark: 1 << 20 }), crlfDelay: Infinity });
    for await (const line of rl) {
      if (line.length === 0) continue;
      JSON.parse(line);
      n++;
    }
  } else {
    const { readLmEvalHarness, newReport } = await import(new URL('../dist/index.js', import.meta.url).href);
    const report = newReport();
    for await (const r of readLmEvalHarness(file, { report, score: 'chars' })) if (r) n++;
    if (report.skipped.length) throw new Error(`skipped: ${JSON.stringify(report.skipped[0])}`);
  }
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  process.stdout.write(JSON.stringify({ n, seconds: s, maxRssMb: process.resourceUsage().maxRSS / 1024 }));
}

async function generate(file, sizeMb) {
  // Deterministic pseudo-random (LCG): no Math.random.
  let seed = 12345;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const fewshot =
    'The following are multiple choice questions (with answers) about economics.\n\n'.repeat(1) +
    Array.from({ length: 5 }, (_, i) => `Question ${i}: what is the effect of a ${i}% tax on widgets?\nA. up\nB. down\nC. same\nD. none\nAnswer: B\n\n`).join(
      '',
    );
  const out = createWriteStream(file);
  const target = sizeMb * 1024 * 1024;
  let bytes = 0;
  for (let id = 0; bytes < target; id++) {
    const k = rnd() < 0.3 ? 10 : 4;
    const letters = 'ABCDEFGHIJ'.slice(0, k).split('');
    const q = `Question: item ${id} asks about quantity ${Math.floor(rnd() * 1e6)}?\n${letters.map((l) => `${l}. option ${l} of ${id}`).join('\n')}\nAnswer:`;
    const args = {};
    letters.forEach((l, i) => (args[`gen_args_${i}`] = { arg_0: fewshot + q, arg_1: ` ${l}` }));
    const pairs = letters.map(() => [String(-rnd() * 10), 'False']);
    const line =
      JSON.stringify({
        doc_id: id,
        doc: { question: q, choices: letters.map((l) => `option ${l} of ${id}`), answer: id % k },
        target: String(id % k),
        arguments: args,
        resps: pairs.map((p) => [p]),
        filtered_resps: pairs,
        filter: 'none',
        metrics: ['acc'],
        doc_hash: 'f'.repeat(64),
        prompt_hash: 'e'.repeat(64),
        target_hash: 'd'.repeat(64),
        acc: 0.0,
      }) + '\n';
    bytes += Buffer.byteLength(line);
    if (!out.write(line)) await new Promise((r) => out.once('drain', r));
  }
  await new Promise((r) => out.end(r));
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

if (args[0] === '--child') {
  await child(args[1], args[2]);
} else {
  const sizeMb = Number(opt('size-mb', '1000'));
  const runs = Number(opt('runs', '3'));
  const dir = mkdtempSync(join(tmpdir(), 'llm-nrm-bench-'));
  try {
    const file = join(dir, 'm', 'samples_bench_mmlu_2024-12-23T14-36-36.300029.jsonl');
    (await import('node:fs')).mkdirSync(join(dir, 'm'));
    process.stderr.write(`generating ${sizeMb} MB ...\n`);
    await generate(file, sizeMb);
    const mb = statSync(file).size / 1024 / 1024;
    const self = fileURLToPath(import.meta.url);
    const res = { bare: [], reader: [] };
    for (let r = 0; r < runs; r++) {
      for (const m of ['bare', 'reader']) {
        const p = spawnSync(process.execPath, [self, '--child', m, file], { encoding: 'utf8', maxBuffer: 1 << 20 });
        if (p.status !== 0) throw new Error(`${m} failed: ${p.stderr}`);
        res[m].push(JSON.parse(p.stdout));
        process.stderr.write(`run ${r + 1} ${m}: ${p.stdout}\n`);
      }
    }
    const row = (m) => {
      const s = median(res[m].map((x) => x.seconds));
      return { s, mbps: mb / s, rss: Math.max(...res[m].map((x) => x.maxRssMb)), n: res[m][0].n };
    };
    const b = row('bare');
    const rd = row('reader');
    console.log(`machine: ${cpus()[0]?.model ?? '?'} x${cpus().length}, node ${process.version}`);
    console.log(`file: ${mb.toFixed(0)} MB, ${b.n} samples; median of ${runs} runs`);
    console.log('| method | seconds | MB/s | peak RSS MB |');
    console.log('|---|---|---|---|');
    console.log(`| bare readline + JSON.parse | ${b.s.toFixed(2)} | ${b.mbps.toFixed(0)} | ${b.rss.toFixed(0)} |`);
    console.log(`| readLmEvalHarness (chars) | ${rd.s.toFixed(2)} | ${rd.mbps.toFixed(0)} | ${rd.rss.toFixed(0)} |`);
    console.log(`reader / bare speed: ${(rd.mbps / b.mbps).toFixed(2)} (target >= 0.5); reader peak RSS ${rd.rss.toFixed(0)} MB (target < 300)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
