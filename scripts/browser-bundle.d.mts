/** Types of scripts/browser-bundle.mjs, for the tests that import it. */
export interface BrowserBundle {
  readonly bytes: number
  readonly included: ReadonlyArray<string>
  readonly problems: ReadonlyArray<string>
}
export declare const browserBundle: (
  esbuild: typeof import("esbuild"),
  options: {
    readonly resolveDir: string
    readonly source?: string
    readonly conditions?: ReadonlyArray<string>
  }
) => Promise<BrowserBundle>
