import { LlmNrmError } from '@llm-nrm/core';
import type * as TfCore from '@tensorflow/tfjs-core';

/** The tfjs namespace this engine uses (tfjs-core's API; tfjs-node and tfjs re-export it whole). */
export type Tf = typeof TfCore;

/** Which tfjs build `loadTfjs` found. */
export type TfjsBackendName = 'tfjs-node-gpu' | 'tfjs-node' | 'tfjs-cpu';

export interface LoadedTfjs {
  tf: Tf;
  backend: TfjsBackendName;
  /** One line: what was loaded (package, version, tfjs backend) and why each earlier choice failed. */
  detail: string;
}

export interface LoadTfjsOptions {
  /** Candidates in the order tried. Default `['tfjs-node-gpu', 'tfjs-node', 'tfjs-cpu']`. */
  prefer?: readonly TfjsBackendName[];
}

const DEFAULT_ORDER: readonly TfjsBackendName[] = ['tfjs-node-gpu', 'tfjs-node', 'tfjs-cpu'];

// Specifiers live in variables so that TypeScript and bundlers leave the optional packages alone.
const NODE_GPU = '@tensorflow/tfjs-node-gpu';
const NODE = '@tensorflow/tfjs-node';
const CORE = '@tensorflow/tfjs-core';
const CPU = '@tensorflow/tfjs-backend-cpu';
// tfjs-core's Node bundle registers no gradient functions (they ship only as ES modules that Node
// cannot load from that package); the union package's Node bundle registers all of them.
const UNION = '@tensorflow/tfjs';

/** A CommonJS package imported from ESM: its exports sit on the namespace or under `default`. */
function namespaceOf(mod: unknown): Tf {
  const m = mod as { default?: unknown; tensor?: unknown };
  if (typeof m.tensor === 'function') return m as unknown as Tf;
  const d = m.default as { tensor?: unknown } | undefined;
  if (d !== undefined && typeof d.tensor === 'function') return d as unknown as Tf;
  throw new Error('module does not look like tfjs (no tensor function)');
}

function reason(e: unknown): string {
  const err = e as { code?: unknown; message?: unknown };
  if (err && (err.code === 'ERR_MODULE_NOT_FOUND' || err.code === 'MODULE_NOT_FOUND')) return 'not installed';
  const msg = String(err?.message ?? e).split('\n')[0]!;
  return msg.length > 160 ? `${msg.slice(0, 157)}...` : msg;
}

async function tryNode(name: string, expected: string): Promise<{ tf: Tf; detail: string }> {
  const tf = namespaceOf(await import(name));
  await tf.ready();
  const active = tf.getBackend();
  if (active !== expected && !(await tf.setBackend(expected))) {
    throw new Error(`backend ${JSON.stringify(expected)} did not start (active: ${JSON.stringify(active)})`);
  }
  const version = tf.version_core;
  return { tf, detail: `${name} (tfjs-core ${version}, backend ${tf.getBackend()})` };
}

async function tryCpu(): Promise<{ tf: Tf; detail: string }> {
  const tf = namespaceOf(await import(CORE));
  await import(CPU);
  let gradients = `gradients from ${UNION}`;
  try {
    await import(UNION);
  } catch (e) {
    // Forward passes still work; autograd throws "gradient function not found" on first use.
    gradients = `no gradients: ${UNION} ${reason(e)}`;
  }
  if (!(await tf.setBackend('cpu'))) throw new Error('the cpu backend did not start');
  await tf.ready();
  return { tf, detail: `${CORE} ${tf.version_core} + ${CPU} (backend cpu, float32; ${gradients})` };
}

const cache = new Map<string, Promise<LoadedTfjs>>();

/**
 * Load the fastest tfjs available: `@tensorflow/tfjs-node-gpu` (CUDA), then `@tensorflow/tfjs-node`
 * (libtensorflow on the CPU), then `@tensorflow/tfjs-core` with `@tensorflow/tfjs-backend-cpu` (pure
 * JavaScript). Each is imported dynamically; a failure moves on to the next and is named in `detail`.
 * The result is cached per candidate order. Throws when no candidate loads.
 *
 * @example
 *   const { tf, backend, detail } = await loadTfjs();
 *   console.log(backend, detail); // 'tfjs-cpu' '... (tfjs-node-gpu: not installed; tfjs-node: not installed)'
 */
export function loadTfjs(options: LoadTfjsOptions = {}): Promise<LoadedTfjs> {
  const order = options.prefer ?? DEFAULT_ORDER;
  for (const b of order) {
    if (!DEFAULT_ORDER.includes(b))
      return Promise.reject(new LlmNrmError('INVALID_OPTION', `unknown tfjs backend: ${JSON.stringify(b)} (one of ${DEFAULT_ORDER.join(', ')})`));
  }
  const key = order.join(',');
  let p = cache.get(key);
  if (p === undefined) {
    p = loadUncached(order);
    cache.set(key, p);
    p.catch(() => cache.delete(key));
  }
  return p;
}

async function loadUncached(order: readonly TfjsBackendName[]): Promise<LoadedTfjs> {
  const failures: string[] = [];
  for (const backend of order) {
    try {
      const got =
        backend === 'tfjs-node-gpu' ? await tryNode(NODE_GPU, 'tensorflow') : backend === 'tfjs-node' ? await tryNode(NODE, 'tensorflow') : await tryCpu();
      const why = failures.length > 0 ? ` (${failures.join('; ')})` : '';
      return { tf: got.tf, backend, detail: `${got.detail}${why}` };
    } catch (e) {
      failures.push(`${backend}: ${reason(e)}`);
    }
  }
  throw new LlmNrmError('INVALID_OPTION', `no tfjs could be loaded (${failures.join('; ')}); install @tensorflow/tfjs`);
}
