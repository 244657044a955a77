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
 */
import { Context, Effect, Exit, FiberRef, FiberRefs, Option, Runtime, Tracer } from "effect"

/** Submits operations to be run in batches. */
export interface Coalescer<I, O, E> {
  /**
   * Queues `item` and waits for its outcome. Interrupting the wait before its batch starts
   * withdraws the item; once its batch has started, the item runs to its end regardless.
   */
  readonly submit: (item: I) => Effect.Effect<O, E>
}

/** How batches are formed and run. */
export interface CoalescerOptions<I, O, E> {
  /** Runs one batch and answers one exit per item, in order; it must not fail as a whole. */
  readonly run: (items: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<Exit.Exit<O, E>>>
  /** Most items in one batch. */
  readonly maxBatch: number
  /** Batches running at once (1 for a single connection). */
  readonly concurrency: number
  /** What the batches do, for their span (`pixgate.store.batch`'s `pixgate.store.batch_kind`). */
  readonly kind: string
}

interface Waiting<I, O, E> {
  readonly item: I
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

/** A coalescer whose batches run as daemon fibers on the current runtime. */
export const make = <I, O, E>(options: CoalescerOptions<I, O, E>): Effect.Effect<Coalescer<I, O, E>> =>
  Effect.map(Effect.runtime<never>(), (runtime) => {
    const runFork = Runtime.runFork(runtime)
    // Read once: without a tracer a call costs nothing more than it did.
    const tracing = FiberRefs.getOrDefault(runtime.fiberRefs, FiberRef.currentTracerEnabled)
    const maxBatch = Math.max(1, options.maxBatch)
    const concurrency = Math.max(1, options.concurrency)
    const queue: Array<Waiting<I, O, E>> = []
    let running = 0
    let scheduled = false

    const start = (batch: ReadonlyArray<Waiting<I, O, E>>) => {
      running++
      const run = options.run(batch.map((w) => w.item))
      const fiber = runFork(tracing ? traced(run, batch, options.kind) : run)
      fiber.addObserver((exit) => {
        running--
        batch.forEach((w, i) => {
          w.resume(Exit.isSuccess(exit) ? exit.value[i] : Exit.failCause(exit.cause))
        })
        schedule()
      })
    }

    const drain = () => {
      scheduled = false
      while (running < concurrency && queue.length > 0) start(queue.splice(0, maxBatch))
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
        const waiting: Waiting<I, O, E> = { item, resume, span }
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
        : (item) => enqueue(item, undefined)
    }
  })
