/** The project's commands (commands.js): the TypeScript file each runs and its node options. */
export declare const commands: Record<string, { script: string; node: string[] }>;
/** The arguments of node that run `command` with `args`. */
export declare function nodeArgs(command: string, args?: string[]): string[];
/** How a TypeScript file runs unless its command says otherwise: ts-node, transpiling only. */
export declare const TS_NODE: string[];
