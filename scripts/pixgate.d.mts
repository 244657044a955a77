/** A hash of the sources the bundle is built from (the cached bundle's file name). */
export declare const sourceHash: () => string
/** Bundles packages/http/src/bin.ts into node_modules/.cache/pixgate/<hash>.mjs unless it exists; answers that path. */
export declare const bundle: () => string
