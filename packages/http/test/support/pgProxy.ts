/**
 * A loopback TCP proxy in front of Postgres that can cut a connection at a chosen point, for
 * fault-injection tests. It reads the frontend half of the wire protocol (the startup packet,
 * then typed messages) to see each statement a client sends (`Q` simple queries, `P` parses)
 * and can, once armed, cut the connection of a transaction whose statements match:
 *
 * - `afterCommit`: COMMIT reaches the server (which commits), its answer never reaches the
 *   client, then both sides are closed: the outcome the client cannot know.
 * - `beforeCommit`: COMMIT is never forwarded and both sides close: the server rolls back.
 * - `midStatement`: half of a matching statement's message is forwarded, then both sides close.
 */
import { connect, createServer, type Server, type Socket } from "node:net"

/** Where to cut, and which transaction's connection (a statement of it matches `match`). */
export interface Fault {
  readonly kind: "afterCommit" | "beforeCommit" | "midStatement"
  readonly match: RegExp
}

/** A running proxy. */
export interface PgProxy {
  /** `postgres://...` through the proxy to `database`. */
  readonly url: (database: string) => string
  /** Arms one cut; resolves when it fired (the statement text that triggered it). */
  readonly arm: (fault: Fault) => Promise<string>
  /** Cuts that fired so far. */
  readonly fired: () => number
  readonly close: () => Promise<void>
}

const sslRequest = 80877103
const gssRequest = 80877104

interface Armed {
  readonly fault: Fault
  readonly resolve: (statement: string) => void
}

/** The SQL text of a `Q` or `P` message body, if it is one. */
const statementOf = (type: number, body: Buffer): string | undefined => {
  if (type === 0x51) {
    const end = body.indexOf(0)
    return body.toString("utf8", 0, end < 0 ? body.length : end)
  }
  if (type === 0x50) {
    const nameEnd = body.indexOf(0)
    if (nameEnd < 0) return undefined
    const end = body.indexOf(0, nameEnd + 1)
    return body.toString("utf8", nameEnd + 1, end < 0 ? body.length : end)
  }
  return undefined
}

/** Starts a proxy to `target` (host and port of the Postgres server). */
export const start = async (target: { host: string; port: number }): Promise<PgProxy> => {
  let armed: Armed | undefined
  let fired = 0
  const sockets = new Set<Socket>()

  const take = (statement: string) => {
    const a = armed
    armed = undefined
    fired++
    a?.resolve(statement)
  }

  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host)
    sockets.add(client)
    sockets.add(upstream)
    let pending: Buffer = Buffer.alloc(0)
    let startup = true
    let statements: Array<string> = []
    // After a forwarded COMMIT that was cut: the server's answer is dropped and both sides close.
    let swallow = false
    const cut = () => {
      client.destroy()
      upstream.destroy()
    }
    client.on("close", () => {
      sockets.delete(client)
      upstream.destroy()
    })
    upstream.on("close", () => {
      sockets.delete(upstream)
      client.destroy()
    })
    client.on("error", () => upstream.destroy())
    upstream.on("error", () => client.destroy())
    upstream.on("data", (chunk: Buffer) => {
      if (swallow) return cut()
      client.write(chunk)
    })
    client.on("data", (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
      for (;;) {
        if (client.destroyed) return
        if (startup) {
          if (pending.length < 8) return
          const length = pending.readInt32BE(0)
          if (pending.length < length) return
          const code = pending.readInt32BE(4)
          upstream.write(pending.subarray(0, length))
          pending = pending.subarray(length)
          if (code !== sslRequest && code !== gssRequest) startup = false
          continue
        }
        if (pending.length < 5) return
        const type = pending[0]
        const length = pending.readInt32BE(1) + 1
        if (pending.length < length) return
        const message = pending.subarray(0, length)
        pending = pending.subarray(length)
        const statement = statementOf(type, message.subarray(5))
        if (statement !== undefined) {
          const text = statement.trim().toUpperCase()
          if (text.startsWith("BEGIN") || text.startsWith("START TRANSACTION")) statements = []
          else if (text.startsWith("COMMIT") && armed !== undefined && armed.fault.kind !== "midStatement") {
            const { fault } = armed
            const hit = statements.find((s) => fault.match.test(s))
            if (hit !== undefined) {
              take(hit)
              if (fault.kind === "beforeCommit") return cut()
              swallow = true
              upstream.write(message)
              continue
            }
          } else if (armed?.fault.kind === "midStatement" && armed.fault.match.test(statement)) {
            take(statement)
            upstream.write(message.subarray(0, Math.max(6, Math.floor(message.length / 2))), () => cut())
            return
          }
          statements.push(statement)
        }
        upstream.write(message)
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return {
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    arm: (fault) =>
      new Promise<string>((resolve) => {
        armed = { fault, resolve }
      }),
    fired: () => fired,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  }
}
