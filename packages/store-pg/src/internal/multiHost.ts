/**
 * libpq's multi-host connection strings on node-postgres, which reads only one host:
 * `postgres://user@h1:5432,h2:5433/db?target_session_attrs=read-write` (what pg_auto_failover,
 * Patroni or a managed service hands out). Every new pooled connection looks for a host whose
 * session has the wanted attributes (the one that suited last time first, then the others in
 * the order given) and connects there, so after a failover new connections land on the promoted
 * server. A connection whose server turns out read-only later (a demoted primary: SQLSTATE
 * 25006) is ended, so the pool never hands it out again; the statement's own error reaches the
 * engine, which answers "storage unavailable".
 */
import pg from "pg"
import { parseIntoClientConfig } from "pg-connection-string"

/** libpq's `target_session_attrs` values. */
export const sessionAttrs = [
  "any",
  "read-write",
  "read-only",
  "primary",
  "standby",
  "prefer-standby"
] as const

/** What a session must be to be kept (libpq's `target_session_attrs`). */
export type SessionAttrs = (typeof sessionAttrs)[number]

/** One host of the list. */
export interface Host {
  readonly host: string
  readonly port: number
}

/** A connection string with several hosts or a `target_session_attrs`. */
export interface MultiHostUrl {
  readonly hosts: ReadonlyArray<Host>
  readonly attrs: SessionAttrs
  /** Everything else the URL sets (user, password, database, TLS, options), for every host. */
  readonly config: pg.ClientConfig
}

const hostPattern = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/

const parseHost = (text: string): Host => {
  const match = hostPattern.exec(text)
  const port = match?.[3] === undefined ? 5432 : Number(match[3])
  if (match === null || port < 1 || port > 65535)
    throw new Error(`Invalid host "${text}" in the Postgres URL (expected host or host:port)`)
  return { host: decodeURIComponent(match[1] ?? match[2] ?? ""), port }
}

/**
 * Reads a `postgres://` URL. `undefined` for a plain URL (one host, no `target_session_attrs`
 * or `any`): node-postgres reads those as they are. Throws an Error that names what is wrong,
 * never the password.
 */
export const parse = (url: string): MultiHostUrl | undefined => {
  const match = /^(postgres(?:ql)?:\/\/)([^/?#]*)([^?#]*)(?:\?([^#]*))?/i.exec(url.trim())
  if (match === null) throw new Error("The Postgres URL must start with postgres:// or postgresql://")
  const [, scheme = "", authority = "", path = "", query = ""] = match
  const at = authority.lastIndexOf("@")
  const userinfo = at >= 0 ? authority.slice(0, at + 1) : ""
  const hostList = authority.slice(at + 1)
  const params = new URLSearchParams(query)
  const attrs = params.get("target_session_attrs") ?? "any"
  if (!sessionAttrs.some((value) => value === attrs))
    throw new Error(
      `Invalid target_session_attrs "${attrs}" in the Postgres URL (expected one of ${sessionAttrs.join(", ")})`
    )
  const hosts = hostList.split(",").map(parseHost)
  if (hosts.length === 1 && attrs === "any") return undefined
  params.delete("target_session_attrs")
  const rest = params.toString()
  const [first] = hostList.split(",")
  const config = parseIntoClientConfig(`${scheme}${userinfo}${first}${path}${rest === "" ? "" : `?${rest}`}`)
  return { hosts, attrs: attrs as SessionAttrs, config }
}

/** The URL's hosts for logs: `h1:5432,h2:5433`. */
export const describeHosts = (hosts: ReadonlyArray<Host>): string =>
  hosts.map(({ host, port }) => `${host.includes(":") ? `[${host}]` : host}:${port}`).join(",")

/** Whether a connected session has the attributes (libpq's checks, in one round trip). */
const suits = async (client: pg.Client, attrs: SessionAttrs): Promise<boolean> => {
  if (attrs === "any") return true
  const { rows } = await client.query<{ recovery: boolean; read_only: string }>(
    "SELECT pg_is_in_recovery() AS recovery, current_setting('transaction_read_only') AS read_only"
  )
  const row = rows[0]
  if (row === undefined) return false
  switch (attrs) {
    case "read-write":
      return row.read_only === "off"
    case "read-only":
      return row.read_only === "on"
    case "primary":
      return !row.recovery
    case "standby":
    case "prefer-standby":
      return row.recovery
  }
}

/** SQLSTATE of "cannot execute ... in a read-only transaction". */
const readOnlyTransaction = "25006"

/** Connections whose server refused a write as read-only: ended when given back to the pool. */
const turnedReadOnly = new WeakSet<pg.Client>()

/** Why `host` does not suit (`undefined` if it does), from a short probe connection. */
const probe = async (
  host: Host,
  attrs: SessionAttrs,
  config: pg.ClientConfig,
  probeTimeoutMillis: number
) => {
  const client = new pg.Client({
    ...config,
    host: host.host,
    port: host.port,
    connectionTimeoutMillis: probeTimeoutMillis
  })
  client.on("error", () => {})
  try {
    await client.connect()
    return (await suits(client, attrs)) ? undefined : `not ${attrs}`
  } catch (error) {
    return error instanceof Error ? error.message || error.name : String(error)
  } finally {
    await client.end().catch(() => {})
  }
}

/**
 * A node-postgres `Client` class for a pool: its `connect` first finds a host that suits (short
 * probe connections, each bounded by `probeTimeoutMillis`), then connects there and checks once
 * more on its own session (the roles may have changed in between). It fails, naming every
 * host's reason, when none suits.
 */
const clientClass = (url: MultiHostUrl, probeTimeoutMillis: number): typeof pg.Client => {
  // The host that suited last: tried first, so a steady formation costs one probe.
  let preferred: Host | undefined

  const order = (): ReadonlyArray<Host> =>
    preferred === undefined
      ? url.hosts
      : [preferred, ...url.hosts.filter((h) => h.host !== preferred?.host || h.port !== preferred.port)]

  const find = async (config: pg.ClientConfig): Promise<Host> => {
    const passes: ReadonlyArray<SessionAttrs> =
      url.attrs === "prefer-standby" ? ["prefer-standby", "any"] : [url.attrs]
    const reasons: Array<string> = []
    for (const attrs of passes) {
      for (const host of order()) {
        const reason = await probe(host, attrs, config, probeTimeoutMillis)
        if (reason === undefined) return host
        reasons.push(`${describeHosts([host])}: ${reason}`)
      }
    }
    preferred = undefined
    throw new Error(
      `No ${url.attrs} Postgres server among ${describeHosts(url.hosts)} (${reasons.join("; ")})`
    )
  }

  return class MultiHostClient extends pg.Client {
    private readonly options: pg.ClientConfig

    constructor(options: pg.ClientConfig) {
      super(options)
      this.options = options
    }

    override connect(): Promise<pg.Client>
    override connect(callback: (err: Error | null, client?: pg.Client) => void): void
    override connect(
      callback?: (err: Error | null, client?: pg.Client) => void
    ): Promise<pg.Client> | undefined {
      const connected = this.connectToSuitable()
      if (callback === undefined) return connected
      connected.then(
        (client) => callback(null, client),
        (error: Error) => callback(error)
      )
    }

    private async connectToSuitable(): Promise<pg.Client> {
      const host = await find(this.options)
      // The pool may have given up waiting (its timeout destroys the unused socket).
      if (this.connection.stream.destroyed) throw new Error("Connection terminated due to connection timeout")
      this.host = host.host
      this.port = host.port
      await super.connect()
      const attrs = url.attrs === "prefer-standby" ? "any" : url.attrs
      if (!(await suits(this, attrs).catch(() => false))) {
        preferred = undefined
        await this.end().catch(() => {})
        throw new Error(`${describeHosts([host])} is no longer ${url.attrs}`)
      }
      preferred = host
      // Before the client's own listener, which hands the error to the query (and so the
      // connection back to the pool) at once.
      this.connection.prependListener("errorMessage", (message: { code?: string }) => {
        if (message.code === readOnlyTransaction) {
          preferred = undefined
          turnedReadOnly.add(this)
        }
      })
      return this
    }
  }
}

/**
 * A node-postgres pool over a multi-host URL: its connections come from `clientClass`, and one
 * whose server turned read-only is ended as it is given back (ending it at once would replace
 * the statement's error by "Client was closed" on the transaction's ROLLBACK).
 */
export const makePool = (url: MultiHostUrl, probeTimeoutMillis: number, config: pg.PoolConfig): pg.Pool => {
  const pool = new pg.Pool({ ...url.config, ...config, Client: clientClass(url, probeTimeoutMillis) })
  // "release" comes before the pool looks whether the client is ending: then it drops it.
  pool.on("release", (_error: Error | undefined, client: pg.PoolClient) => {
    if (turnedReadOnly.has(client)) void client.end().catch(() => {})
  })
  return pool
}
