/** Where the bundle of the `pixgate` command lives. */
export declare const bundlePath: string
/** Bundles packages/http/src/bin.ts into `bundlePath`; answers that path. */
export declare const bundle: () => Promise<string>
