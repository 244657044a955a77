/**
 * Group commit. Operations submitted in the same event-loop turn, or while earlier batches are
 * still running, are run together as one batch: N concurrent units cost one database
 * transaction and one statement per table instead of N of each. There is no timer: an idle
 * store runs a lone operation at the end of the current turn, and a busy one gathers whatever
 * arrived while it worked (natural batching), so batches grow with load and latency does not.
 *
 * When the runtime traces, a batch runs where its callers' spans are: in a `pixgate.store.batch`
 * span under the first traced caller's span, linked to the others', so a request's statements
 * sit in its own trace rather than in traces of their own; a batch no traced caller asked for
 * (the job worker's polls) makes no span at all.
 *
 * With `concurrency` > 1 and `keysOf`, batches running at once never share a key: an item whose
 * key is held by a running batch (or by an earlier item still waiting) waits for a later batch,
 * so items of one key run in submission order, one batch at a time, and overlapping batches
 * touch disjoint rows.
 */
import { Context, Effect, Exit, FiberRef, FiberRefs, Option, Runtime, Tracer } from "effect"

/** Submits operations to be run in batches. */
export interface Coalescer<I, O, E> {
  /**
   * Queues `item` and waits for its outcome. Interrupting the wait before its batch starts
   * withdraws the item; once its batch has started, the item runs to its end regardless.
   */
  readonly submit: (item: I) => Effect.Effect<O, E>
  /**
   * Queues `items` together, each its own item (its own outcome, and its own unit of whatever
   * batch takes it), and waits for all their outcomes, in order: one wait for many, as one
   * caller with many units has them. Items that do not fit in one batch go to the next ones.
   */
  readonly submitAll: (items: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<Exit.Exit<O, E>>>
}

/** How batches are formed and run. */
export interface CoalescerOptions<I, O, E> {
  /** Runs one batch and answers one exit per item, in order; it must not fail as a whole. */
  readonly run: (items: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<Exit.Exit<O, E>>>
  /** Most items in one batch. */
  readonly maxBatch: number
  /** Batches running at once (1 for a single connection). */
  readonly concurrency: number
  /**
   * What an item must not share with an item of another running batch (its rows' owners). An
   * item with no keys joins any batch. Without `keysOf`, batches are taken in queue order.
   */
  readonly keysOf?: (item: I) => ReadonlyArray<string>
  /** What the batches do, for their span (`pixgate.store.batch`'s `pixgate.store.batch_kind`). */
  readonly kind: string
}

interface Waiting<I, O, E> {
  readonly item: I
  /** The item's keys (`keysOf`), read once when it is queued. */
  readonly keys: ReadonlyArray<string>
  readonly resume: (exit: Exit.Exit<O, E>) => void
  /** The caller's span, when it traces. */
  readonly span: Tracer.AnySpan | undefined
}

/** The span of the fiber when it traces. */
const spanOf = (fiber: { getFiberRef<A>(ref: FiberRef.FiberRef<A>): A }): Tracer.AnySpan | undefined =>
  fiber.getFiberRef(FiberRef.currentTracerEnabled)
    ? Option.getOrUndefined(Context.getOption(fiber.getFiberRef(FiberRef.currentContext), Tracer.ParentSpan))
    : undefined

/** `run` under its callers' spans, or untraced when none of them traces. */
const traced = <A>(
  run: Effect.Effect<A>,
  batch: ReadonlyArray<{ readonly span: Tracer.AnySpan | undefined }>,
  kind: string
): Effect.Effect<A> => {
  const spans = batch.flatMap((w) => (w.span === undefined ? [] : [w.span]))
  const [parent, ...others] = spans
  if (parent === undefined) return Effect.withTracerEnabled(run, false)
  return run.pipe(
    Effect.withSpan("pixgate.store.batch", {
      parent,
      links: others.map((span) => ({ _tag: "SpanLink", span, attributes: {} })),
      attributes: { "pixgate.store.batch_kind": kind, "pixgate.store.batch_size": batch.length }
    }),
    Effect.withTracerEnabled(true)
  )
}

/**
 * Takes the next batch out of `queue`: up to `maxBatch` items, in order, leaving (in place) every
 * item that shares a key with a running batch or with an item left before it.
 */
const take = <W extends { readonly keys: ReadonlyArray<string> }>(
  queue: Array<W>,
  maxBatch: number,
  busy: ReadonlySet<string>
): Array<W> => {
  const batch: Array<W> = []
  const left: Array<W> = []
  const held = new Set<string>()
  for (const [at, w] of queue.entries()) {
    if (batch.length === maxBatch) {
      left.push(...queue.slice(at))
      break
    }
    if (w.keys.some((k) => busy.has(k) || held.has(k))) {
      for (const k of w.keys) held.add(k)
      left.push(w)
    } else batch.push(w)
  }
  if (batch.length > 0) {
    queue.length = 0
    for (const w of left) queue.push(w)
  }
  return batch
}

/**
 * Queues `items` each as its own item and resumes once all have their outcomes, in order
 * (`Coalescer.submitAll`); interrupted, it withdraws those not yet taken into a batch.
 */
const enqueueAll = <I, O, E>(
  queue: Array<Waiting<I, O, E>>,
  keysOf: ((item: I) => ReadonlyArray<string>) | undefined,
  schedule: () => void,
  items: ReadonlyArray<I>,
  span: Tracer.AnySpan | undefined
) =>
  Effect.async<ReadonlyArray<Exit.Exit<O, E>>>((resume) => {
    const exits = new Array<Exit.Exit<O, E>>(items.length)
    let left = items.length
    const all = items.map(
      (item, i): Waiting<I, O, E> => ({
        item,
        keys: keysOf === undefined ? [] : keysOf(item),
        resume: (exit) => {
          exits[i] = exit
          if (--left === 0) resume(Effect.succeed(exits))
        },
        span
      })
    )
    if (left === 0) return resume(Effect.succeed(exits))
    queue.push(...all)
    schedule()
    return Effect.sync(() => {
      for (const waiting of all) {
        const at = queue.indexOf(waiting)
        if (at !== -1) queue.splice(at, 1)
      }
    })
  })

/** A coalescer whose batches run as daemon fibers on the current runtime. */
export const make = <I, O, E>(options: CoalescerOptions<I, O, E>): Effect.Effect<Coalescer<I, O, E>> =>
  Effect.map(Effect.runtime<never>(), (runtime) => {
    const runFork = Runtime.runFork(runtime)
    // Read once: without a tracer a call costs nothing more than it did.
    const tracing = FiberRefs.getOrDefault(runtime.fiberRefs, FiberRef.currentTracerEnabled)
    const maxBatch = Math.max(1, options.maxBatch)
    const concurrency = Math.max(1, options.concurrency)
    const keysOf = options.keysOf
    const queue: Array<Waiting<I, O, E>> = []
    /** The keys of the running batches (disjoint: no key is in two of them). */
    const busy = new Set<string>()
    let running = 0
    let scheduled = false

    const start = (batch: ReadonlyArray<Waiting<I, O, E>>) => {
      running++
      const keys = new Set(batch.flatMap((w) => w.keys))
      for (const k of keys) busy.add(k)
      const run = options.run(batch.map((w) => w.item))
      const fiber = runFork(tracing ? traced(run, batch, options.kind) : run)
      fiber.addObserver((exit) => {
        running--
        for (const k of keys) busy.delete(k)
        batch.forEach((w, i) => {
          w.resume(Exit.isSuccess(exit) ? exit.value[i] : Exit.failCause(exit.cause))
        })
        schedule()
      })
    }

    const drain = () => {
      scheduled = false
      while (running < concurrency && queue.length > 0) {
        const batch = keysOf === undefined ? queue.splice(0, maxBatch) : take(queue, maxBatch, busy)
        // Every waiting item shares a key with a running batch: the next one to end drains again.
        if (batch.length === 0) return
        start(batch)
      }
    }

    // setImmediate runs after the I/O callbacks of this turn: every request parsed in the same
    // turn joins the batch.
    const schedule = () => {
      if (scheduled || queue.length === 0 || running >= concurrency) return
      scheduled = true
      setImmediate(drain)
    }

    const enqueue = (item: I, span: Tracer.AnySpan | undefined) =>
      Effect.async<O, E>((resume) => {
        const waiting: Waiting<I, O, E> = {
          item,
          keys: keysOf === undefined ? [] : keysOf(item),
          resume,
          span
        }
        queue.push(waiting)
        schedule()
        return Effect.sync(() => {
          const at = queue.indexOf(waiting)
          if (at !== -1) queue.splice(at, 1)
        })
      })

    return {
      submit: tracing
        ? (item) => Effect.withFiberRuntime((fiber) => enqueue(item, spanOf(fiber)))
        : (item) => enqueue(item, undefined),
      submitAll: tracing
        ? (items) =>
            Effect.withFiberRuntime((fiber) => enqueueAll(queue, keysOf, schedule, items, spanOf(fiber)))
        : (items) => enqueueAll(queue, keysOf, schedule, items, undefined)
    }
  })
