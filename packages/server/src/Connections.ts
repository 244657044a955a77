/**
 * The standalone server's connections: the limits it applies to them (keep-alive, header and
 * request time-outs, a cap on their number) and the drain at shutdown, which resets no request
 * a client sent. docs/operations.md ("Connections", "Shutdown") explains every number here.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { Socket } from "node:net"

/** Connection limits of the standalone server (the CLI reads them from `PIXGATE_*`). */
export interface ConnectionOptions {
  /**
   * How long an idle keep-alive connection stays open after its last answer (65 s,
   * `PIXGATE_KEEP_ALIVE_TIMEOUT_MS`). Above the idle time-outs of load balancers (60 s for most),
   * so that the balancer, not the server, closes an idle connection: a server closing it races
   * the balancer's next request on it, which then fails with a reset.
   */
  readonly keepAliveTimeoutMs?: number
  /**
   * Longest time from a connection's accept, or from the first byte of a request on a
   * keep-alive connection, to the end of its headers (10 s, `PIXGATE_HEADERS_TIMEOUT_MS`); then
   * 408 and the connection closes. Bounds what a client trickling headers (slowloris) or
   * connecting and sending nothing holds. At most `requestTimeoutMs`.
   */
  readonly headersTimeoutMs?: number
  /**
   * Longest time to receive a whole request, headers and body (30 s,
   * `PIXGATE_REQUEST_TIMEOUT_MS`); then 408. Not a bound on the time to answer it.
   */
  readonly requestTimeoutMs?: number
  /**
   * Most connections open at once (1000, `PIXGATE_MAX_CONNECTIONS`). A connection beyond it is
   * closed as soon as it is accepted, before anything of it is read; open connections go on.
   */
  readonly maxConnections?: number
  /**
   * Connections kept for health probes above `maxConnections` (16, `PIXGATE_PROBE_CONNECTIONS`;
   * 0: none). At the cap, a load balancer's or kubelet's probe still gets its answer, so a busy
   * instance is not declared dead: on such a connection `/api/health`, `/api/health/live` and
   * `/api/health/ready` are answered as usual, and any other request gets 503
   * `service_unavailable` with `Retry-After` and `Connection: close`. Beyond the reserve too, a
   * connection is closed unread.
   */
  readonly probeConnections?: number
}

/** The defaults of `ConnectionOptions`. */
export const defaults = {
  keepAliveTimeoutMs: 65_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  maxConnections: 1_000,
  probeConnections: 16
} as const

/** How often Node checks the header and request time-outs (its own default is 30 s). */
const checkingIntervalMs = 1_000

/** `ConnectionOptions` with their defaults, checked; throws a TypeError naming a bad value. */
export const resolve = (options: ConnectionOptions): Required<ConnectionOptions> => {
  const resolved = {
    keepAliveTimeoutMs: options.keepAliveTimeoutMs ?? defaults.keepAliveTimeoutMs,
    headersTimeoutMs: options.headersTimeoutMs ?? defaults.headersTimeoutMs,
    requestTimeoutMs: options.requestTimeoutMs ?? defaults.requestTimeoutMs,
    maxConnections: options.maxConnections ?? defaults.maxConnections,
    probeConnections: options.probeConnections ?? defaults.probeConnections
  }
  for (const [name, value] of Object.entries(resolved))
    if (!Number.isSafeInteger(value) || value < (name === "probeConnections" ? 0 : 1))
      throw new TypeError(
        `Pixgate: ${name} must be ${name === "probeConnections" ? "a whole number" : "a positive integer"}`
      )
  // Node refuses a server whose header time-out exceeds its request time-out.
  if (resolved.headersTimeoutMs > resolved.requestTimeoutMs)
    throw new TypeError("Pixgate: headersTimeoutMs must not exceed requestTimeoutMs")
  return resolved
}

/** `http.createServer` options for `options`. */
export const serverOptions = (options: Required<ConnectionOptions>) => ({
  keepAliveTimeout: options.keepAliveTimeoutMs,
  headersTimeout: options.headersTimeoutMs,
  requestTimeout: options.requestTimeoutMs,
  connectionsCheckingInterval: checkingIntervalMs
})

/**
 * How long, during a drain, a connection must have been idle (nothing read since its last answer,
 * or since it was accepted; counted from the start of the drain at the earliest) before the
 * drain closes it. A client still using it sends its next request sooner and gets its answer with
 * `Connection: close`; a client whose connection is closed as it sends sees a reset on a request
 * it cannot know the outcome of.
 */
const idleGraceMs = 2_000

/** Longest the drain keeps accepting while connections keep arriving, before it stops. */
const acceptQuietMs = 1_000

/** One open connection: requests on it not yet answered, and since when it has none. */
interface Connection {
  readonly socket: Socket
  /** Accepted at the cap, into the probes' reserve: it serves health probes only. */
  readonly reserved: boolean
  active: number
  idleSince: number
  /** `socket.bytesRead` when it became idle: more read since then is a request arriving. */
  readAtIdle: number
}

/** A response and what the tracker keeps of it until it closes. */
type Tracked = ServerResponse & {
  [trackedBy]?: Tracker | undefined
  [onConnection]?: Connection | undefined
}

interface Tracker {
  readonly pending: Set<ServerResponse>
}

const trackedBy = Symbol("pixgate.connections.tracker")
const onConnection = Symbol("pixgate.connections.connection")

/**
 * What a response's close does, as one function shared by every response (`this` is the
 * response): one listener per request and no closure built for it.
 */
function responseClosed(this: Tracked): void {
  this[trackedBy]?.pending.delete(this)
  const connection = this[onConnection]
  if (connection === undefined) return
  connection.active--
  connection.idleSince = Date.now()
  connection.readAtIdle = connection.socket.bytesRead
}

/** Closes the connections idle for the grace as of `asOf` (idle since `since` at the latest), with nothing read since. */
const closeIdleOf = (connections: ReadonlyMap<Socket, Connection>, since: number, asOf: number) => {
  for (const [socket, c] of connections) {
    if (
      c.active === 0 &&
      socket.bytesRead === c.readAtIdle &&
      asOf - Math.max(c.idleSince, since) >= idleGraceMs
    )
      socket.destroy()
  }
}

/** `then`, once a turn that began after this call accepted no new connection (`accepted` counts them). */
const afterAcceptQueueOf = (accepted: () => number, then: () => void) => {
  const deadline = Date.now() + acceptQuietMs
  let seen = accepted()
  const turn = () =>
    setImmediate(() =>
      setImmediate(() => {
        if (accepted() === seen || Date.now() >= deadline) return then()
        seen = accepted()
        turn()
      })
    )
  turn()
}

/**
 * Stops accepting, `done` once every connection has closed. `http.Server#close` would also close
 * idle connections at once: the race `closeIdle` avoids. That part is skipped for this one call;
 * `closeIdle` does it after the grace.
 */
const closeListener = (server: Server, done: () => void) => {
  const closeIdleNow = server.closeIdleConnections
  server.closeIdleConnections = () => {}
  try {
    server.close(done)
  } finally {
    server.closeIdleConnections = closeIdleNow
  }
}

/**
 * The server's connections and requests, for a drain that resets none of them. `drain` first
 * lets the event loop take every connection the kernel has completed (closing the listener
 * resets those still queued), then stops accepting; from then on every response not yet started
 * (and every request still arriving on an open connection) is answered with `Connection: close`
 * (Node ends its connection after it), connections idle for `idleGraceMs` are closed, and
 * whatever is still open after `timeoutMs` is cut.
 */
export const tracker = (server: Server, maxConnections: number = Number.POSITIVE_INFINITY) => {
  const connections = new Map<Socket, Connection>()
  const pending = new Set<ServerResponse>()
  const self: Tracker = { pending }
  let drainingSince: number | undefined
  let accepted = 0
  let cut = 0
  server.on("connection", (socket: Socket) => {
    accepted++
    const reserved = connections.size >= maxConnections
    connections.set(socket, { socket, reserved, active: 0, idleSince: Date.now(), readAtIdle: 0 })
    socket.once("close", () => connections.delete(socket))
  })
  /** Whether `req` came on a connection of the probes' reserve. */
  const reserved = (req: IncomingMessage): boolean => connections.get(req.socket as Socket)?.reserved === true
  /** Call first for every request. */
  const track = (req: IncomingMessage, res: ServerResponse) => {
    const tracked = res as Tracked
    if (drainingSince !== undefined) {
      res.shouldKeepAlive = false
      tracked[trackedBy] = undefined
    } else {
      pending.add(res)
      tracked[trackedBy] = self
    }
    const connection = connections.get(req.socket as Socket)
    tracked[onConnection] = connection
    if (connection !== undefined) connection.active++
    // A response closes once: `on` spares the wrapper `once` would build.
    res.on("close", responseClosed)
  }
  /**
   * Closes the connections idle for the grace as of `asOf`, with nothing read since. It runs in
   * the check phase of a turn whose poll phase began after `asOf`, so every byte that had
   * arrived by `asOf` has been read by then: a request arriving, even in part, has raised
   * `bytesRead` (or is being answered). A byte arriving after `asOf` comes from a client idle for
   * the whole grace before it, the race no HTTP/1.1 server can close.
   */
  const closeIdle = (asOf: number) => closeIdleOf(connections, drainingSince ?? asOf, asOf)
  /** `closeIdle` as of now, in the check phase of the turn after this one (see above). */
  const closeIdleSoon = () =>
    setImmediate(() => {
      const asOf = Date.now()
      setImmediate(() => closeIdle(asOf))
    })
  /**
   * Calls `then` once an event loop turn that began after this call has accepted no new
   * connection (at most `acceptQuietMs` later): each turn's poll phase accepts every connection
   * the kernel has completed, and closing the listener before that would reset them, requests
   * sent and all. An immediate set from a check phase runs in the next turn's, after its poll.
   */
  const afterAcceptQueue = (then: () => void) => afterAcceptQueueOf(() => accepted, then)
  const drain = (timeoutMs: number) =>
    new Promise<void>((resolve) => {
      afterAcceptQueue(() => {
        drainingSince = Date.now()
        for (const res of pending) if (!res.headersSent) res.shouldKeepAlive = false
        const idle = setInterval(closeIdleSoon, 100)
        const force = setTimeout(() => {
          cut = connections.size
          server.closeAllConnections()
        }, timeoutMs)
        closeListener(server, () => {
          clearInterval(idle)
          clearTimeout(force)
          resolve()
        })
      })
    })
  return {
    track,
    drain,
    reserved,
    inFlight: () => pending.size,
    /** Connections the drain had to cut at its time-out (0 until then). */
    cut: () => cut
  }
}
