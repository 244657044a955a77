/**
 * The live gateway plugins the server can load, and how: a built-in by name, or a module
 * outside the workspace by path (`./`, `../`, `/` or a `file:` URL, from the working directory)
 * or by package name. Each is loaded only when chosen, so the server imports no gateway
 * package: a built-in is a literal module specifier in the table below, typed as unknown (its
 * package is an optional peer, absent in some installs) but seen by the bundler, which carries it.
 * A module's plugin is its export named `plugin`, else its default export.
 */
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { GatewayPlugin } from "@pixgate/core"
import { Effect, Layer } from "effect"

/** A built-in gateway: the package it comes in, and its module's loader. */
interface BuiltIn {
  readonly packageName: string
  readonly load: () => Promise<unknown>
}

const builtIn: Readonly<Record<string, BuiltIn>> = {
  efi: {
    packageName: "@pixgate/gateway-apipix",
    load: () => import("@pixgate/gateway-apipix/efi" as string)
  },
  asaas: {
    packageName: "@pixgate/gateway-asaas",
    load: () => import("@pixgate/gateway-asaas/plugin" as string)
  }
}

/** The gateway `PIXGATE_LIVE_GATEWAY` names when it is unset (and `PIXGATE_LIVE_BASE_URL` is set). */
export const defaultGateway = "efi"

/** The built-in gateways' names. */
export const builtInNames: ReadonlyArray<string> = Object.keys(builtIn)

const isPath = (gateway: string) => /^(\.{1,2}\/|\/|file:)/.test(gateway)

const oneLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split("\n")[0]

/** The plugin a module exports: its `plugin`, else its default export. */
const pluginOf = (module: unknown): GatewayPlugin.GatewayPlugin<unknown> | undefined => {
  if (typeof module !== "object" || module === null) return undefined
  const exports = module as Record<string, unknown>
  if (GatewayPlugin.isPlugin(exports.plugin)) return exports.plugin
  if (GatewayPlugin.isPlugin(exports.default)) return exports.default
  return undefined
}

/** The module `gateway` names: a built-in's, or one loaded by path or package name. */
const moduleOf = async (gateway: string, cwd: string): Promise<unknown> => {
  const known = Object.hasOwn(builtIn, gateway) ? builtIn[gateway] : undefined
  if (known !== undefined)
    return known.load().catch((error: unknown) => {
      throw new Error(
        `the ${gateway} gateway needs ${known.packageName} installed beside @pixgate/server (${oneLine(error)})`
      )
    })
  const specifier = gateway.startsWith("file:")
    ? gateway
    : isPath(gateway)
      ? pathToFileURL(resolve(cwd, gateway)).href
      : gateway
  return import(specifier).catch((error: unknown) => {
    throw new Error(
      isPath(gateway)
        ? `cannot load ${gateway} (${oneLine(error)})`
        : `no gateway "${gateway}": not a built-in (${builtInNames.join(", ")}) nor a module to load (${oneLine(error)})`
    )
  })
}

/**
 * Loads the plugin `gateway` names: a built-in's name, a path (from `cwd`) or a package name;
 * rejects with one line saying what is wrong.
 */
export const load = async (gateway: string, cwd: string): Promise<GatewayPlugin.GatewayPlugin<unknown>> => {
  const plugin = pluginOf(await moduleOf(gateway, cwd))
  if (plugin === undefined)
    throw new Error(
      `${gateway} exports no gateway plugin (an export named "plugin", or the default export, made with GatewayPlugin.make)`
    )
  return plugin
}

/** The settings' files, read from `cwd` (a relative path in a variable is the working directory's). */
export const files = (cwd: string): Layer.Layer<GatewayPlugin.SettingsFiles> =>
  Layer.succeed(
    GatewayPlugin.SettingsFiles,
    GatewayPlugin.SettingsFiles.of({
      read: (path) =>
        Effect.try({
          try: () => readFileSync(resolve(cwd, path)),
          catch: (error) => {
            const code = (error as NodeJS.ErrnoException).code
            return new GatewayPlugin.FileUnreadable({ path, ...(code === undefined ? {} : { code }) })
          }
        })
    })
  )

/** Where a gateway beside the default reads its settings: `PIXGATE_<NAME>_` (`asaas`: `PIXGATE_ASAAS_`). */
export const prefixOf = (name: string): string => `PIXGATE_${name.toUpperCase().replace(/-/g, "_")}_`

/**
 * A gateway of `PIXGATE_GATEWAYS` (beside the default one): the plugin `gateway` names, over its
 * settings under `prefixOf(plugin.name)`, checked; fails with one line naming what is wrong.
 */
export const named = (
  gateway: string,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string
): Effect.Effect<GatewayPlugin.Configured, { readonly message: string }> =>
  Effect.gen(function* () {
    const plugin = yield* Effect.tryPromise({
      try: () => load(gateway, cwd),
      catch: (error) => ({ message: `PIXGATE_GATEWAYS: ${oneLine(error)}` })
    })
    const prefix = prefixOf(plugin.name)
    const settings = yield* Effect.provide(GatewayPlugin.read(plugin, env, prefix), files(cwd))
    const configured = GatewayPlugin.configure(plugin, settings, prefix)
    yield* configured.check
    return configured
  })

/**
 * The plugin `gateway` names, over its settings read from the variables under `prefix` (files
 * from `cwd`) and checked as the gateway will use them; fails with one line naming what is wrong:
 * the gateway (`<prefix>GATEWAY: ...`) or the setting.
 */
export const fromEnvironment = (
  gateway: string,
  env: Readonly<Record<string, string | undefined>>,
  prefix: string,
  cwd: string
): Effect.Effect<GatewayPlugin.Configured, { readonly message: string }> =>
  Effect.gen(function* () {
    const plugin = yield* Effect.tryPromise({
      try: () => load(gateway, cwd),
      catch: (error) => ({ message: `${prefix}GATEWAY: ${oneLine(error)}` })
    })
    const settings = yield* Effect.provide(GatewayPlugin.read(plugin, env, prefix), files(cwd))
    const configured = GatewayPlugin.configure(plugin, settings, prefix)
    yield* configured.check
    return configured
  })
