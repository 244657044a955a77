/** Types of scripts/release-pack.mjs, for the tests that import it. */
export interface Manifest {
  readonly name: string
  readonly version: string
  readonly private?: boolean
  readonly dependencies?: Readonly<Record<string, string>>
  readonly peerDependencies?: Readonly<Record<string, string>>
  readonly [field: string]: unknown
}
export interface WorkspacePackage {
  readonly dir: string
  readonly manifest: Manifest
}
export interface ReleaseIndex {
  readonly description: string
  readonly packages: ReadonlyArray<{
    readonly name: string
    readonly version: string
    readonly description: string
    readonly file: string
    readonly size: number
    readonly integrity: string
    readonly needs: ReadonlyArray<string>
  }>
  readonly install: Readonly<
    Record<
      string,
      {
        readonly packages: ReadonlyArray<string>
        readonly npm: string
        readonly pnpm: ReadonlyArray<string>
        readonly registry: string
      }
    >
  >
}
export declare const root: string
export declare const workspacePackages: () => ReadonlyArray<WorkspacePackage>
export declare const publicPackages: () => ReadonlyArray<WorkspacePackage>
export declare const tarballName: (manifest: Manifest) => string
export declare const closure: (
  names: ReadonlyArray<string>,
  packages?: ReadonlyArray<WorkspacePackage>
) => ReadonlyArray<Manifest>
export declare const peersOf: (manifests: ReadonlyArray<Manifest>) => Readonly<Record<string, string>>
export declare const builds: (manifests: ReadonlyArray<Manifest>) => {
  readonly only: ReadonlyArray<string>
  readonly ignored: ReadonlyArray<string>
}
export declare const installLine: (
  manager: "npm" | "pnpm",
  names: ReadonlyArray<string>,
  packages?: ReadonlyArray<WorkspacePackage>
) => string
export declare const registryLine: (
  manager: "npm" | "pnpm",
  names: ReadonlyArray<string>,
  packages?: ReadonlyArray<WorkspacePackage>
) => string
export declare const setups: {
  readonly sqlite: ReadonlyArray<string>
  readonly postgres: ReadonlyArray<string>
}
export declare const readmeSetup: (name: string) => ReadonlyArray<string>
export declare const markers: { readonly begin: string; readonly end: string }
export declare const installBlock: (
  setupsByTitle: Readonly<Record<string, ReadonlyArray<string>>>,
  packages?: ReadonlyArray<WorkspacePackage>
) => string
export declare const readmes: (
  packages?: ReadonlyArray<WorkspacePackage>
) => ReadonlyArray<{ readonly path: string; readonly block: string }>
export declare const writeReadmes: (packages?: ReadonlyArray<WorkspacePackage>) => ReadonlyArray<string>
export declare const releasePack: (options?: {
  readonly out?: string
  readonly build?: boolean
  readonly log?: (line: string) => void
  readonly allowMissingDist?: boolean
}) => ReleaseIndex
