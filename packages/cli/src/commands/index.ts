import type { CommandModule } from 'yargs';
import { convertCommand } from './convert.js';
import { evaluateCommand } from './evaluate.js';
import { reportCommand } from './report.js';
import { publishCommand } from './publish.js';
import { selectCommand } from './select.js';
import { fitCommand } from './fit.js';
import { scoreCommand } from './score.js';
import { simulateCommand } from './simulate.js';
import { demoCommand } from './demo.js';
import { leaderboardCommand } from './leaderboard.js';

/**
 * Every CLI command, one module per file in this folder. Add a command by adding its file and one
 * line here.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each command has its own argv type
export const commands: CommandModule<object, any>[] = [
  convertCommand,
  evaluateCommand,
  selectCommand,
  publishCommand,
  reportCommand,
  fitCommand,
  scoreCommand,
  simulateCommand,
  demoCommand,
  leaderboardCommand,
];
