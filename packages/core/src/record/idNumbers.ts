/**
 * Numbers for string ids (items, models) in first-seen order, for per-record bookkeeping over
 * millions of records. A map lookup per record is a cache miss into a table of tens of thousands of
 * ids: at paper scale (6M records, 31,554 items) each item map of the read cost its thread 1.2-1.4 s
 * (packages/cli/BENCHMARKS.md, "Paper scale through the CLI"). Records usually repeat one LLM's item
 * sequence, or one item's run of LLMs, so the id that followed the previous id the last time is
 * tried before the map.
 */
export class IdNumbers {
  /** The ids by number. */
  readonly ids: string[] = [];
  private readonly index = new Map<string, number>();
  private readonly next: number[] = [];
  private prev = -1;

  /** The id's number, a new one (`size` before the call) for an id not seen before. */
  number(id: string): number {
    const guess = this.prev >= 0 ? this.next[this.prev] : undefined;
    let n = guess !== undefined && this.ids[guess] === id ? guess : this.index.get(id);
    if (n === undefined) {
      n = this.ids.length;
      this.ids.push(id);
      this.index.set(id, n);
    }
    if (this.prev >= 0) this.next[this.prev] = n;
    this.prev = n;
    return n;
  }

  get size(): number {
    return this.ids.length;
  }
}
