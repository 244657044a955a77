/** A hash of the sources the bundle is built from (the name of its cache directory). */
export declare const sourceHash: () => string
/**
 * Bundles packages/server/src/bin.ts into node_modules/.cache/pixgate/<hash>/ unless it exists;
 * answers the entry file's path. `say` gets a line for each step of a build (none when cached).
 */
export declare const bundle: (say?: (line: string) => void) => Promise<string>
