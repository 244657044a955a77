/**
 * Efí's MED infractions, outside the BCB standard: read on a schedule (`apipix.infractions`, one
 * row for every instance, rescheduling itself at the reconciliation's pace) from
 * `GET /v2/gn/infracoes?inicio&fim` over the last 30 days of openings, and the merchant's answer
 * forwarded as `POST /v2/gn/infracoes/{idInfracao}/defesa` (`{ analise: "aceito" | "rejeitado",
 * justificativa }`).
 *
 * Each infraction the bank lists is reported to the engine (`GatewayContext.infractions`), which
 * keeps it once by its `idInfracao`: a repeat changes nothing.
 * - `ABERTA`, `EM_DEFESA`: opened (its charge found by the PIX's txid, read with
 *   `GET /pix/{e2eid}`), with its deadline (`prazo`) and the bank's precautionary block
 *   (`bloqueioCautelar.valor`) when there is one.
 * - `REJEITADA`: concluded for the merchant (the block released); `CANCELADA` (or Efí's
 *   `CANCELADA_EFI`): withdrawn (released).
 * - `ACEITA`: upheld; the bank's devolução (natureza `MED_FRAUDE` / `MED_OPERACIONAL`) is read
 *   from the PIX (`GET /pix/{e2eid}`) and booked once, whether this read, a `/pix` callback or
 *   reconciliation reports it first; what stays blocked is released with it (also when the
 *   devolução was booked before the infraction was known). Until the bank's devolução shows, the
 *   block stays.
 * An infraction first seen already concluded is opened without a block.
 *
 * The answer: within the call deadline; a 2xx is `Sent`. Anything else is found out by reading
 * the infraction back: the bank holding the same answer is `Sent` (a time-out, a reset or a 5xx
 * after the bank took it), its deadline passed is `deadline_passed`, concluded or answered
 * otherwise is `not_answerable`; a read that cannot tell is `Unknown` (nothing recorded).
 */
import { type BankGateway, Domain, type MedInfractions, type Money, type Store } from "@pixgate/core"
import { Clock, Effect, Option } from "effect"
import type { ProfileInfractions } from "../Profile.js"
import { confirm, credit } from "../standard/Pix.js"
import * as Problem from "../standard/Problem.js"
import { jobKinds, type Setup } from "../standard/Setup.js"
import { cents, describe, record, str } from "../standard/Wire.js"

/** The one infractions job's id: every instance seeds the same row. */
export const infractionsJobId: Domain.JobId = Domain.JobId.make("job_apipix_infractions")

/** How far back the schedule reads infractions by their opening (ms): 30 days. */
export const windowMs = 30 * 24 * 60 * 60 * 1000

/** An infraction as Efí lists it. */
export interface BankInfraction {
  readonly id: string
  readonly endToEndId: string
  readonly status: string
  readonly type: MedInfractions.InfractionType
  readonly reason: string
  readonly amount: Money.Cents
  readonly blocked: Money.Cents | undefined
  readonly openedAt: number | undefined
  readonly deadline: number | undefined
  readonly defence: { readonly analise: string; readonly justificativa: string } | undefined
}

const time = (v: unknown): number | undefined => {
  const s = str(v)
  if (s === undefined) return undefined
  const t = Date.parse(s)
  return Number.isFinite(t) ? t : undefined
}

/** One item of `infracoes`; None without an id, an end-to-end id or an amount. */
export const bankInfraction = (item: unknown): Option.Option<BankInfraction> => {
  const r = record(item)
  const id = str(r.idInfracao)
  const e2e = str(r.endToEndId)
  const amount = cents(r.valor)
  if (id === undefined || e2e === undefined || Option.isNone(amount)) return Option.none()
  const block = record(r.bloqueioCautelar)
  const defesa = record(r.defesa)
  const analise = str(defesa.analise)
  const justificativa = str(defesa.justificativa)
  const tipo = str(r.tipo)?.toLowerCase()
  return Option.some({
    id,
    endToEndId: e2e,
    status: str(r.status) ?? str(r.situacao) ?? "ABERTA",
    type:
      tipo !== undefined && (tipo.includes("operac") || tipo.includes("falha"))
        ? "operational_failure"
        : "fraud",
    reason: (str(r.motivo) ?? str(r.tipoSituacao) ?? "MED").slice(0, 500),
    amount: amount.value,
    blocked: Option.getOrUndefined(cents(block.valor)),
    openedAt: time(r.criacao),
    deadline: time(r.prazo),
    defence: analise === undefined || justificativa === undefined ? undefined : { analise, justificativa }
  })
}

const concluded = (status: string) =>
  status === "ACEITA" || status === "REJEITADA" || status.startsWith("CANCELADA")

/** One page of infractions; None when it could not be read (logged). */
const page = (setup: Setup, inicio: string, fim: string, n: number) =>
  Effect.gen(function* () {
    const res = yield* Effect.either(
      setup.psp.call({
        method: "GET",
        path: "/v2/gn/infracoes",
        query: { inicio, fim, "paginacao.paginaAtual": String(n), "paginacao.itensPorPagina": "100" }
      })
    )
    if (res._tag === "Right" && res.right.status === 200) return Option.some(record(res.right.body))
    yield* Effect.logWarning("Infractions could not be read; the next run tries again").pipe(
      Effect.annotateLogs(
        res._tag === "Left"
          ? { reason: res.left.message }
          : { reason: describe(res.right), ...Problem.fields(res.right.status, res.right.body) }
      )
    )
    return Option.none()
  })

/** Every infraction opened between `from` and `to`; None when a page could not be read. */
const listAll = (setup: Setup, from: number, to: number) =>
  Effect.gen(function* () {
    const inicio = new Date(from).toISOString()
    const fim = new Date(to).toISOString()
    const out: Array<BankInfraction> = []
    let pages = 1
    for (let n = 0; n < pages; n++) {
      const body = yield* page(setup, inicio, fim, n)
      if (Option.isNone(body)) return Option.none<ReadonlyArray<BankInfraction>>()
      const total = record(record(body.value.parametros).paginacao).quantidadeDePaginas
      pages = typeof total === "number" ? Math.min(total, 1000) : 1
      for (const item of Array.isArray(body.value.infracoes) ? body.value.infracoes : []) {
        const inf = bankInfraction(item)
        if (Option.isSome(inf)) out.push(inf.value)
      }
    }
    return Option.some<ReadonlyArray<BankInfraction>>(out)
  })

/** Reads the PIX of an infraction (None when it could not be read or the PSP does not know it). */
const pixOf = (setup: Setup, inf: BankInfraction) =>
  Effect.map(Effect.either(confirm(setup, inf.endToEndId)), (r) =>
    r._tag === "Right" ? r.right : Option.none()
  )

/** Reports one infraction to the engine: opened, concluded, or its devolução booked. */
export const apply = (
  setup: Setup,
  ctx: BankGateway.GatewayContext,
  inf: BankInfraction
): Effect.Effect<void, Store.StoreError> =>
  Effect.gen(function* () {
    const med = ctx.infractions
    if (med === undefined) return
    const log = Effect.annotateLogs({ bankInfractionId: inf.id, endToEndId: inf.endToEndId })
    let known = yield* med.find("live", inf.id)
    if (Option.isNone(known)) {
      const pix = yield* pixOf(setup, inf)
      const charge =
        Option.isSome(pix) && pix.value.txid !== undefined
          ? yield* ctx.findByTxid(pix.value.txid)
          : Option.none()
      if (Option.isNone(charge)) {
        yield* Effect.logWarning("An infraction names a PIX that is no charge's; ignored").pipe(log)
        return
      }
      const over = concluded(inf.status)
      known = yield* med.opened({
        transactionId: charge.value.id,
        bankId: inf.id,
        type: inf.type,
        reason: inf.reason,
        amountClaimed: inf.amount,
        block: !over && inf.blocked !== undefined,
        ...(inf.blocked === undefined ? {} : { blockAmount: inf.blocked }),
        ...(inf.openedAt === undefined ? {} : { openedAt: inf.openedAt }),
        ...(inf.deadline === undefined ? {} : { deadline: inf.deadline })
      })
      if (Option.isNone(known)) {
        yield* Effect.logWarning("An infraction could not be opened (its charge is not a paid one?)").pipe(
          log
        )
        return
      }
    }
    const local = known.value
    const pending = local.status === "open" || local.status === "defended"
    if (inf.status === "REJEITADA") {
      if (pending || local.status === "accepted") yield* med.concluded("live", inf.id, "rejected")
    } else if (inf.status.startsWith("CANCELADA")) {
      if (pending || local.status === "accepted") yield* med.concluded("live", inf.id, "cancelled")
    } else if (inf.status === "ACEITA" && (pending || local.blockedAmount > 0)) {
      // Upheld: the bank's devolução, read from the PIX, books the return and releases the rest.
      const pix = yield* pixOf(setup, inf)
      if (Option.isNone(pix) || pix.value.medReturns.length === 0) return
      yield* credit(ctx, pix.value)
      // Its devolução was booked before the infraction was known (a callback first): the money is
      // back already, so the infraction is concluded upheld and what it still blocks released.
      const after = yield* med.find("live", inf.id)
      if (Option.isSome(after) && (after.value.status === "open" || after.value.status === "defended"))
        yield* med.concluded("live", inf.id, "accepted")
    }
  })

/** The schedule's run: every infraction opened in the window, reported. */
export const run = (setup: Setup) => (j: Store.ClaimedJob, ctx: BankGateway.GatewayContext) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const all = yield* listAll(setup, now - windowMs, now)
    if (Option.isSome(all)) {
      for (const inf of all.value) yield* apply(setup, ctx, inf)
      yield* Effect.logDebug("Infractions read").pipe(Effect.annotateLogs({ infractions: all.value.length }))
    }
    yield* ctx.retryJob(j.id, now + setup.interval)
  })

/** Seeds the infractions job when the worker starts: one row for every instance. */
export const start = (ctx: BankGateway.GatewayContext) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    yield* ctx
      .scheduleJob({ id: infractionsJobId, kind: jobKinds.infractions, ref: "apipix", runAt: now })
      .pipe(Effect.ignore)
  })

/** Efí's `analise` of an answer. */
export const analise = (answer: MedInfractions.Answer): "aceito" | "rejeitado" =>
  answer.analysis === "accepted" ? "aceito" : "rejeitado"

/** The infraction as the bank holds it now, read back (None when the read could not tell). */
const readBack = (setup: Setup, infraction: MedInfractions.Infraction) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const all = yield* listAll(setup, infraction.openedAt - 24 * 60 * 60 * 1000, now)
    return Option.flatMap(all, (list) => Option.fromNullable(list.find((i) => i.id === infraction.bankId)))
  })

/** What the bank's copy of the infraction says of our answer, read back. */
const decide = (
  setup: Setup,
  infraction: MedInfractions.Infraction,
  answer: MedInfractions.Answer,
  why: string
): Effect.Effect<BankGateway.DefenceOutcome> =>
  Effect.gen(function* () {
    const found = yield* readBack(setup, infraction)
    if (Option.isNone(found))
      return { _tag: "Unknown", reason: `${why}; the infraction could not be read back` }
    const held = found.value
    if (held.defence !== undefined) {
      return held.defence.analise === analise(answer) && held.defence.justificativa === answer.justification
        ? { _tag: "Sent" }
        : { _tag: "Refused", reason: "not_answerable", message: `${why}: the bank holds another answer` }
    }
    if (held.status !== "ABERTA")
      return { _tag: "Refused", reason: "not_answerable", message: `${why}: the bank has it ${held.status}` }
    const now = yield* Clock.currentTimeMillis
    if (held.deadline !== undefined && now > held.deadline)
      return { _tag: "Refused", reason: "deadline_passed", message: why }
    return { _tag: "Unknown", reason: `${why}; the bank does not hold the answer (it may be sent again)` }
  })

/** Forwards an answer to the bank (`POST /v2/gn/infracoes/{idInfracao}/defesa`). */
export const defence = (setup: Setup): BankGateway.InfractionDefence => ({
  send: (infraction, answer) =>
    Effect.gen(function* () {
      const res = yield* Effect.either(
        setup.psp.call({
          method: "POST",
          path: `/v2/gn/infracoes/${encodeURIComponent(infraction.bankId)}/defesa`,
          body: { analise: analise(answer), justificativa: answer.justification }
        })
      )
      if (res._tag === "Left")
        return yield* decide(setup, infraction, answer, `${res.left.reason}: ${res.left.message}`)
      const { status } = res.right
      if (status >= 200 && status < 300) return { _tag: "Sent" } as const
      const why = Problem.describe(status, res.right.body)
      // A refusal of the request's content is final; anything else is found out by reading back.
      if (status === 400) return { _tag: "Refused", reason: "invalid", message: why } as const
      return yield* decide(setup, infraction, answer, why)
    })
})

/** Efí's infractions over the gateway's setup. */
export const make = (setup: Setup): ProfileInfractions => ({
  defence: defence(setup),
  jobs: { [jobKinds.infractions]: run(setup) },
  start
})
