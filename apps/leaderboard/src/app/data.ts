// Lazy, cached fetches of the data shards (same origin only: the CSP allows nothing else).
import type { BenchmarkShard, ItemRow, ItemShard, LeaderboardShard, Manifest, ModelShard } from '@llm-nrm/site/types';

const cache = new Map<string, Promise<unknown>>();

export function getJson<T>(path: string): Promise<T> {
  let p = cache.get(path);
  if (p === undefined) {
    p = fetch(new URL(`data/${path}`, document.baseURI)).then(async (r) => {
      if (!r.ok) throw new Error(`data/${path}: HTTP ${r.status}`);
      return r.json();
    });
    p.catch(() => cache.delete(path));
    cache.set(path, p);
  }
  return p as Promise<T>;
}

export const manifest = () => getJson<Manifest>('manifest.json');
export const leaderboard = () => getJson<LeaderboardShard>('leaderboard.json');
export const modelShard = (index: number) => getJson<ModelShard>(`models/${index}.json`);
export const itemShard = (b: number, s: number) => getJson<ItemShard>(`items/${b}/${s}.json`);
export const itemIndex = (b: number) => getJson<{ benchmark: string; items: ItemRow[] }>(`items/${b}/index.json`);
export const benchmarkShard = (id: string) => getJson<BenchmarkShard>(`benchmarks/${id}.json`);
