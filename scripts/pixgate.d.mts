/** Bundles packages/http/src/bin.ts into node_modules/.cache/pixgate/pixgate.mjs; answers that path. */
export declare const bundle: () => Promise<string>
