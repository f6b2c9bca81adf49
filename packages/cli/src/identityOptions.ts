import type { ItemVersionPolicy } from '@llm-nrm/core';
import type { ReplicatePolicy } from '@llm-nrm/adapters';
import type { Argv } from 'yargs';

/** `--item-versions` and `--replicates`: how every command that reads responses treats one id with several contents, and repeated runs. */
export function identityOptions<T>(y: Argv<T>): Argv<T & { 'item-versions': ItemVersionPolicy; replicates: ReplicatePolicy }> {
  return y
    .option('item-versions', {
      describe:
        'An item id whose content (option texts, count, key) differs between records: split gives each version its own id <id>#<hash>; majority keeps the version most LLMs answered',
      choices: ['split', 'majority'] as ItemVersionPolicy[],
      default: 'split' as ItemVersionPolicy,
    })
    .option('replicates', {
      describe: 'Several timestamped lm-eval runs of one model and task: keep the latest, or keep every run as replicates',
      choices: ['latest', 'keep'] as ReplicatePolicy[],
      default: 'latest' as ReplicatePolicy,
    }) as Argv<T & { 'item-versions': ItemVersionPolicy; replicates: ReplicatePolicy }>;
}
