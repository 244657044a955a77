/**
 * A bound on how long a pooled connection in use may stay silent. The server's own
 * `statement_timeout` ends a slow statement, but it cannot help when the network between the
 * engine and the server stops carrying packets without closing anything (a silent partition, a
 * firewall that drops a connection's state, a proxy that stops forwarding): the client then
 * waits for TCP to give up, which takes many minutes with data in flight. So while a
 * connection is checked out of the pool, its socket may be quiet for at most the statement
 * time-out plus a grace; past that it is destroyed. The statement in flight fails with a
 * connection error, `@effect/sql-pg` gives the client back with that error and the pool drops
 * it, so a request sees a bounded 503 (an unknown outcome when the silence came at COMMIT,
 * which the store reports as such) and the next request opens a fresh connection.
 *
 * A statement the server runs for longer than the statement time-out is cancelled by the
 * server first, which answers: only a connection with no answer at all is cut. Migrations run
 * before the guard is armed, since a migration may wait on another instance's.
 */
import { Socket } from "node:net"
import type * as Pg from "pg"

/** The guard of one pool: armed once the store has migrated. */
export interface Silence {
  /** Longest quiet time of a checked-out connection (ms); 0 when there is no bound. */
  readonly limitMs: number
  armed: boolean
}

/** The grace past the statement time-out: the server's own cancel and its answer come first. */
export const graceMs = (statementTimeoutMs: number): number => Math.min(5_000, statementTimeoutMs)

/** A guard for a pool whose statements time out after `statementTimeoutMs` (0: none). */
export const make = (statementTimeoutMs: number): Silence => ({
  limitMs: statementTimeoutMs > 0 ? statementTimeoutMs + graceMs(statementTimeoutMs) : 0,
  armed: false
})

const watched = new WeakSet<Socket>()

/** The socket under a pooled client (the TLS socket when TLS is on), if it is one. */
const socketOf = (client: Pg.PoolClient): Socket | undefined => {
  const stream = client.connection.stream
  return stream instanceof Socket ? stream : undefined
}

function onSilence(this: Socket): void {
  this.destroy(new Error("No answer from the database within the statement time-out (connection dropped)"))
}

/** Arms the socket of every client the pool hands out while the guard is armed; disarms it on release. */
export const watch = (pool: Pg.Pool, silence: Silence): void => {
  if (silence.limitMs === 0) return
  pool.on("acquire", (client) => {
    const socket = socketOf(client)
    if (socket === undefined || !silence.armed) return
    if (!watched.has(socket)) {
      watched.add(socket)
      socket.on("timeout", onSilence)
    }
    socket.setTimeout(silence.limitMs)
  })
  pool.on("release", (_error, client) => {
    socketOf(client)?.setTimeout(0)
  })
}
