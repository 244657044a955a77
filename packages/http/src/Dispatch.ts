/**
 * The transport-neutral core both handlers share. It matches a request against a Router,
 * answers the table's refusals (404, 405, 410) and plain routes (the health check) at once,
 * runs any other route as one fiber on the runtime, turns failures into their error bodies (a
 * 5xx logged once at warn with its cause) and defects into a logged 500 (never a crash), and
 * writes one access line per request (an error answer's with its `code`; secret path segments
 * redacted, see Redact). A transport (Node, web) supplies the exchange: the request, and how to
 * send its answer.
 */
import { Errors, Redaction } from "@pixgate/core"
import { Cause, Effect, type Exit, FiberId, Option, Runtime, Stream, type Tracer } from "effect"
import * as HttpMetrics from "./HttpMetrics.js"
import type { Incoming } from "./Incoming.js"
import * as Log from "./Log.js"
import * as Redact from "./Redact.js"
import * as Respond from "./Respond.js"
import * as Router from "./Router.js"
import { statusOf } from "./Status.js"

/** An answer's body being written as it is made. */
export interface Channel {
  readonly write: (text: string) => void
  /** Ends the answer (nothing is written after). */
  readonly end: () => void
  /** Calls `f` once the client went away or the answer ended. */
  readonly onClose: (f: () => void) => void
}

/** A request and the way back to its client. */
export interface Exchange extends Incoming {
  /** Writes the answer, which carries `requestId` as `x-request-id`. */
  readonly send: (answer: Respond.Answer, requestId: string) => void
  /** Writes the answer's status and headers (with `x-request-id`) and opens its body for writing. */
  readonly open: (answer: Respond.Answer, requestId: string) => Channel
  /** The client's address per the trusted proxies, for the access line, when the host knows it. */
  readonly client?: () => string | undefined
}

/**
 * Handles one exchange. `pass` (a host's `next`) takes the requests the table does not know,
 * instead of a 404. Returns how to interrupt the route when the client goes away, if it still runs.
 */
export type Dispatch = (exchange: Exchange, pass?: () => void) => (() => void) | undefined

/**
 * The incoming `x-request-id` when it is sane and shaped like no Pixgate secret (a client that
 * sends its API key there must not see it logged), else a new one.
 */
const requestId = (incoming: string | undefined): string =>
  incoming !== undefined && /^[A-Za-z0-9._:-]{1,128}$/.test(incoming) && !Redaction.looksSecret(incoming)
    ? incoming
    : globalThis.crypto.randomUUID()

const notFound = Respond.failure(Respond.notFound())
const internal = Respond.failure(Respond.internal())
// What an interrupted request settles with: its client is gone, the status is for the log.
const abandoned = new Respond.Answer(499, {}, "")

/** What the dispatcher's steps share: the runtime's fork and the log, with the levels it writes. */
interface Dispatcher {
  readonly fork: ReturnType<typeof Runtime.runFork<never>>
  readonly log: Log.Writer
  readonly logRequests: boolean
  readonly logErrors: boolean
  readonly logWarnings: boolean
}

const defect = (d: Dispatcher, id: string, cause: Cause.Cause<unknown>) => {
  if (d.logErrors) d.log.write(Log.defectLine(Date.now(), Cause.pretty(cause), id))
}
// A streamed answer's body runs on the runtime until it ends or the client goes away.
const stream = (d: Dispatcher, exchange: Exchange, id: string, reply: Respond.Streamed) => {
  const channel = exchange.open(reply, id)
  const fiber = d.fork(Stream.runForEach(reply.chunks, (text) => Effect.sync(() => channel.write(text))))
  channel.onClose(() => fiber.unsafeInterruptAsFork(FiberId.none))
  fiber.addObserver((exit) => {
    if (exit._tag === "Failure" && !Cause.isInterruptedOnly(exit.cause)) defect(d, id, exit.cause)
    channel.end()
  })
}
const answer = (
  d: Dispatcher,
  exchange: Exchange,
  id: string,
  start: number,
  reply: Respond.Answer,
  route: string,
  span?: Tracer.Span
) => {
  const end = Date.now()
  HttpMetrics.record(exchange.method, route, reply.status, end - start, span)
  if (d.logRequests) {
    const path = Redact.path(Router.pathOf(exchange.url))
    const code = reply.status >= 400 && typeof reply.body === "string" ? Log.codeOf(reply.body) : undefined
    const client = exchange.client?.()
    d.log.write(Log.requestLine(end, exchange.method, path, reply.status, end - start, id, code, client))
  }
  try {
    if (reply instanceof Respond.Streamed) stream(d, exchange, id, reply)
    else exchange.send(reply, id)
  } catch (error) {
    defect(d, id, Cause.die(error))
  }
}
const settle = (
  d: Dispatcher,
  exchange: Exchange,
  id: string,
  start: number,
  route: string,
  exit: Exit.Exit<Respond.Answer, Respond.Failure>,
  span: Tracer.Span | undefined
) => {
  if (exit._tag === "Success") return answer(d, exchange, id, start, exit.value, route, span)
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure)) {
    const error = failure.value._tag === "Refusal" ? failure.value.error : failure.value
    const status = statusOf(error)
    if (status >= 500 && !Errors.isReplayed(error) && d.logWarnings) {
      const underneath = "cause" in error ? error.cause : undefined
      const cause = underneath === undefined ? error.message : Log.causeChain(underneath)
      const outcome = error._tag === "StorageUnavailable" ? error.outcome : undefined
      d.log.write(Log.failureLine(Date.now(), status, error.code, cause, id, outcome))
    }
    return answer(d, exchange, id, start, Respond.failure(failure.value), route, span)
  }
  if (Cause.isInterruptedOnly(exit.cause)) return answer(d, exchange, id, start, abandoned, route, span)
  defect(d, id, exit.cause)
  answer(d, exchange, id, start, internal, route, span)
}

/** The dispatcher of `router`, running its routes on `runtime`, logging to `log`. */
export const make = <R>(runtime: Runtime.Runtime<R>, router: Router.Router<R>, log: Log.Writer): Dispatch => {
  const fork = Runtime.runFork(runtime)
  const d: Dispatcher = {
    fork,
    log,
    logRequests: Log.enabled(log, "info"),
    logErrors: Log.enabled(log, "error"),
    logWarnings: Log.enabled(log, "warning")
  }
  const traced = HttpMetrics.tracing(runtime)

  return (exchange, pass) => {
    const start = Date.now()
    const id = requestId(exchange.header("x-request-id"))
    let served: Respond.Answer | Effect.Effect<Respond.Answer, Respond.Failure, R> | undefined
    let route = HttpMetrics.unmatched
    try {
      const match = router.find(exchange.method, exchange.url)
      if (match._tag === "Route") route = match.route.path
      served =
        match._tag === "Route"
          ? match.route.serve(exchange, match.params)
          : match._tag === "Refused"
            ? match.answer
            : pass === undefined
              ? notFound
              : undefined
    } catch (error) {
      defect(d, id, Cause.die(error))
      served = internal
    }
    if (served === undefined) {
      pass?.()
      return undefined
    }
    if (served instanceof Respond.Answer) {
      answer(d, exchange, id, start, served, route)
      return undefined
    }
    let span: Tracer.Span | undefined
    const fiber = fork(
      traced
        ? HttpMetrics.span(served, exchange.method, route, exchange.header("traceparent"), (made) => {
            span = made
          })
        : served
    )
    fiber.addObserver((exit) => settle(d, exchange, id, start, route, exit, span))
    return fiber.unsafePoll() === null ? () => fiber.unsafeInterruptAsFork(FiberId.none) : undefined
  }
}
