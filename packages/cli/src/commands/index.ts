import type { CommandModule } from 'yargs';

/**
 * Every CLI command, one module per file in this folder. Add a command by adding its file and one
 * line here.
 */
export const commands: CommandModule<object, any>[] = [];
