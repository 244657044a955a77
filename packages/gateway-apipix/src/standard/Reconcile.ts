/**
 * Reconciliation (`apipix.reconcile`, one row for every instance, rescheduling itself): pages
 * `GET /pix?inicio&fim` over a sliding window and hands every PIX to the engine, which knows each
 * one once, so a PIX no callback reported is credited (or returned) all the same.
 */
import type { BankGateway, Store } from "@pixgate/core"
import { Clock, Effect, Option } from "effect"
import { credit } from "./Pix.js"
import * as Problem from "./Problem.js"
import { jobKinds, reconcileJobId, type Setup } from "./Setup.js"
import { describe, receivedPix, record } from "./Wire.js"

/** Findings of one reconciliation run. */
export type Findings = {
  readonly pixSeen: number
  readonly credited: number
  readonly returned: number
  readonly pages: number
}

/** One page of received PIX; None when it could not be read (logged; the next run tries again). */
const page = (setup: Setup, inicio: string, fim: string, n: number) =>
  Effect.gen(function* () {
    const res = yield* Effect.either(
      setup.psp.call({
        method: "GET",
        path: `${setup.pix}/pix`,
        query: { inicio, fim, "paginacao.paginaAtual": String(n), "paginacao.itensPorPagina": "100" }
      })
    )
    if (res._tag === "Right" && res.right.status === 200) return Option.some(record(res.right.body))
    yield* Effect.logWarning("Reconciliation could not read received PIX; it tries again next run").pipe(
      Effect.annotateLogs(
        res._tag === "Left"
          ? { reason: res.left.message }
          : { reason: describe(res.right), ...Problem.fields(res.right.status, res.right.body) }
      )
    )
    return Option.none()
  })

/** Reads every PIX received in the window and hands each to the engine. */
export const run = (setup: Setup) => (j: Store.ClaimedJob, ctx: BankGateway.GatewayContext) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const inicio = new Date(now - setup.window).toISOString()
    const fim = new Date(now).toISOString()
    let n = 0
    let pages = 1
    let pixSeen = 0
    let credited = 0
    let returned = 0
    while (n < pages) {
      const body = yield* page(setup, inicio, fim, n)
      if (Option.isNone(body)) break
      const total = record(record(body.value.parametros).paginacao).quantidadeDePaginas
      pages = typeof total === "number" ? Math.min(total, 1000) : 1
      for (const item of Array.isArray(body.value.pix) ? body.value.pix : []) {
        const p = receivedPix(item)
        if (Option.isNone(p)) continue
        pixSeen++
        const outcome = yield* credit(ctx, p.value)
        if (outcome === "completed") credited++
        else if (outcome === "returned") returned++
      }
      n++
    }
    const findings: Findings = { pixSeen, credited, returned, pages: n }
    if (credited > 0 || returned > 0)
      yield* Effect.logWarning("Reconciliation found PIX no callback had reported").pipe(
        Effect.annotateLogs(findings)
      )
    else yield* Effect.logInfo("Reconciliation run").pipe(Effect.annotateLogs(findings))
    yield* ctx.retryJob(j.id, now + setup.interval)
  })

/** Seeds the reconciliation job when the worker starts: one row for every instance. */
export const start = (ctx: BankGateway.GatewayContext) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    // A second insert of the same id fails, and is ignored.
    yield* ctx
      .scheduleJob({ id: reconcileJobId, kind: jobKinds.reconcile, ref: "apipix", runAt: now })
      .pipe(Effect.ignore)
  })
