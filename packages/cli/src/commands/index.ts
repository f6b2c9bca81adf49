import type { CommandModule } from 'yargs';
import { convertCommand } from './convert.js';
import { evaluateCommand } from './evaluate.js';

/**
 * Every CLI command, one module per file in this folder. Add a command by adding its file and one
 * line here.
 */
export const commands: CommandModule<object, any>[] = [
  convertCommand,
  evaluateCommand,
];
