import { recRouteNames } from "./rec/RouteNames.js"

/** The simulator's routes, by name: what a fault targets. */
export const routeNames = [
  "token",
  "cob.put",
  "cob.get",
  "cob.patch",
  "cobv.put",
  "cobv.get",
  "cobv.patch",
  "pix.list",
  "pix.get",
  "devolucao.put",
  "devolucao.get",
  "webhook.put",
  "webhook.get",
  "webhook.delete",
  "send.put",
  "send.get",
  "infracoes.get",
  "infracoes.defesa",
  ...recRouteNames
] as const

/** A route's name. */
export type RouteName = (typeof routeNames)[number]

/**
 * What goes wrong:
 * - `latency`: the answer waits `ms` first (the request still succeeds);
 * - `status`: the PSP answers `status` (500 by default) with an RFC 7807 problem, with a
 *   `Retry-After: <retryAfter>` header (seconds) when `retryAfter` is given (e.g. a 429);
 * - `expireToken`: the caller's token expires now and the call answers 401;
 * - `reset`: the connection is destroyed without an answer;
 * - `timeout`: the request is never answered (the connection stays open until the caller gives up).
 */
export type FaultKind =
  | { readonly kind: "latency"; readonly ms: number }
  | { readonly kind: "status"; readonly status?: number; readonly retryAfter?: number }
  | { readonly kind: "expireToken" }
  | { readonly kind: "reset" }
  | { readonly kind: "timeout" }

/** A fault and where and how often it strikes (`R`: the route names of a simulator's profile). */
export type Fault<R extends string = RouteName> = FaultKind & {
  /** The route it applies to, or `"*"` for every route. */
  readonly route: R | "*"
  /** How many matching requests it strikes before it is gone; unlimited when absent. */
  readonly times?: number
  /**
   * When true the request is carried out first and the fault replaces its answer: the PSP did
   * the work (created the cob, accepted the send) but the caller cannot know. Default false.
   */
  readonly after?: boolean
}

interface Armed<R extends string> {
  readonly fault: Fault<R>
  remaining: number
}

/** The faults in force, consumed as they strike. */
export class Faults<R extends string = RouteName> {
  private armed: Array<Armed<R>> = []

  /** Adds a fault. */
  add(fault: Fault<R>) {
    this.armed.push({ fault, remaining: fault.times ?? Number.POSITIVE_INFINITY })
  }

  /** Removes every fault. */
  clear() {
    this.armed = []
  }

  /** The faults still in force. */
  list(): ReadonlyArray<Fault<R>> {
    return this.armed.map(({ fault, remaining }) =>
      Number.isFinite(remaining) ? { ...fault, times: remaining } : fault
    )
  }

  /** Takes the faults striking this request at this phase (consuming one use of each). */
  take(route: R, after: boolean): ReadonlyArray<FaultKind> {
    const struck: Array<FaultKind> = []
    for (const entry of this.armed) {
      const matches = entry.fault.route === "*" || entry.fault.route === route
      if (!matches || (entry.fault.after ?? false) !== after || entry.remaining <= 0) continue
      entry.remaining -= 1
      struck.push(entry.fault)
    }
    this.armed = this.armed.filter((entry) => entry.remaining > 0)
    return struck
  }
}
