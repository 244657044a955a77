/**
 * How many attempts one webhook endpoint may have in flight, adapted to how it answers (AIMD, as
 * TCP adapts its window): every endpoint starts at its share of the lane
 * (`webhookEndpointConcurrency`); each window of successes as long as its limit (one "round" of
 * attempts) raises the limit by `increaseStep`, up to `webhookEndpointMaxConcurrency`; a failed
 * or timed-out attempt halves it, never below the share. Failures of attempts that were already
 * in flight when the limit was last cut belong to the same congestion and cut nothing more, so a
 * burst of 16 time-outs halves the limit once, not 16 times.
 *
 * A receiver that answers in milliseconds therefore drains a backlog with many attempts at once,
 * while one that hangs, fails or times out stays at its share (and the store gives an endpoint
 * marked failing `webhookFailingEndpointConcurrency`, whatever this says). The state is this
 * instance's memory only, and holds only endpoints above their share: merchants are unbounded.
 */
import { Clock, Effect } from "effect"

/** The controller's bounds. */
export interface Bounds {
  /** The limit of an endpoint without state, and the floor of a cut (its share of the lane). */
  readonly base: number
  /** The highest limit. */
  readonly ceiling: number
  /** What a window of successes adds. */
  readonly step: number
}

/**
 * What a window of successes adds to the limit: from a share of 16 to 48 in 8 windows (about
 * 250 successful attempts; a quarter of a second of a fast receiver), slow enough that one lucky
 * window does not open the whole ceiling to a receiver that is about to slow down.
 */
export const increaseStep = 4

interface State {
  /** Attempts allowed in flight. */
  limit: number
  /** Successes since the last change. */
  successes: number
  /** When the limit was last cut: failures of attempts started before it cut nothing more. */
  cutAt: number
}

/** One instance's limits per endpoint (fairness key). */
export interface Controller {
  /** The endpoint's limit now. */
  readonly limitOf: (endpoint: string) => number
  /** Counts an attempt's outcome: a success (a 200) may raise the limit, anything else cuts it. */
  readonly record: (endpoint: string, ok: boolean, startedAt: number) => Effect.Effect<void>
  /** Endpoints with a limit above their share (for tests and metrics). */
  readonly size: () => number
}

/** A controller with these bounds (the ceiling at least the base, the step at least 1). */
export const make = (bounds: Bounds): Controller => {
  const base = Math.max(1, Math.floor(bounds.base))
  const ceiling = Math.max(base, Math.floor(bounds.ceiling))
  const step = Math.max(1, Math.floor(bounds.step))
  const states = new Map<string, State>()

  const succeeded = (endpoint: string) => {
    if (ceiling === base) return
    const state = states.get(endpoint) ?? { limit: base, successes: 0, cutAt: Number.NEGATIVE_INFINITY }
    state.successes++
    if (state.successes >= state.limit && state.limit < ceiling) {
      state.limit = Math.min(ceiling, state.limit + step)
      state.successes = 0
    }
    states.set(endpoint, state)
  }

  const failed = (endpoint: string, startedAt: number, now: number) => {
    const state = states.get(endpoint)
    if (state === undefined || startedAt < state.cutAt) return
    state.limit = Math.max(base, Math.floor(state.limit / 2))
    state.successes = 0
    state.cutAt = now
    // Back at its share, an endpoint needs no state (a later cut finds none and cuts nothing).
    if (state.limit === base) states.delete(endpoint)
  }

  return {
    limitOf: (endpoint) => states.get(endpoint)?.limit ?? base,
    record: (endpoint, ok, startedAt) =>
      ok
        ? Effect.sync(() => succeeded(endpoint))
        : Effect.flatMap(Clock.currentTimeMillis, (now) =>
            Effect.sync(() => failed(endpoint, startedAt, now))
          ),
    size: () => states.size
  }
}
