/**
 * The live bank gateway over the Central Bank's API Pix standard (receiving) and an Efí-style
 * "Envio de Pix" API (sending). Every rule of the engine holds: an outcome the gateway cannot
 * know (time-out, reset, 5xx, refused token) is never taken for a failure of a send; a charge
 * whose creation had such an outcome answers 502 and is found out (`charge.unknown`).
 *
 * - Charges: `PUT /cob/{txid}` with the engine's txid (a retry, with the same txid, cannot
 *   create two); the BR Code is the PSP's `pixCopiaECola`; a cob not `ATIVA` is not served.
 *   A creation with an unknown outcome leaves an `apipix.cob.unknown` job: once the retry
 *   window passed, a cob no charge adopted is withdrawn (`PATCH /cob/{txid}`).
 * - Sends: `PUT /v3/gn/pix/{idEnvio}`, `idEnvio` derived from the payout id; status by
 *   `GET /v2/gn/pix/enviados/id-envio/{idEnvio}` (asked before any send but a first attempt,
 *   see `PixSender`; a `REALIZADO` answer to the `PUT` settles with no further call).
 * - Callbacks (`{ "pix": [...] }`) carry no signature: each PIX is confirmed with
 *   `GET /pix/{e2eid}` (each send with its status) before anything is done.
 * - Jobs: `apipix.cob.check` per live charge (`GET /cob/{txid}` while it is pending),
 *   `apipix.reconcile` (pages `GET /pix?inicio&fim` over a sliding window, reschedules itself),
 *   `apipix.pix.return` (a PIX the engine did not credit goes back: `PUT /pix/{e2eid}/devolucao/{id}`).
 */
import {
  BankGateway,
  Domain,
  Ids,
  Jobs,
  type Money,
  Money as MoneyModule,
  Refunds,
  type Store
} from "@pixgate/core"
import { Clock, Effect, Option } from "effect"
import type { PspClient, PspError, PspResponse } from "./Client.js"
import * as CobV from "./CobV.js"
import * as Problem from "./Problem.js"
import { type ApiPixSettings, apiPixPath, defaults } from "./Settings.js"
import * as UnknownCharges from "./UnknownCharges.js"

/** Job kinds this gateway registers. */
export const jobKinds = {
  cobCheck: "apipix.cob.check",
  reconcile: "apipix.reconcile",
  pixReturn: "apipix.pix.return",
  cobUnknown: "apipix.cob.unknown",
  cobvUnknown: "apipix.cobv.unknown"
} as const

/** The one reconciliation job's id: every instance seeds the same row, so there is one. */
export const reconcileJobId: Domain.JobId = Domain.JobId.make("job_apipix_reconcile")

/** The `idEnvio` of a payout: its id's 26 characters after `tx_` (Efí: `^[a-zA-Z0-9]{1,35}$`). */
export const idEnvio = (payoutId: string): string => payoutId.replace(/^tx_/, "").replace(/[^a-zA-Z0-9]/g, "")

/** The payout id of an `idEnvio` (`idEnvio` inverted), to decode as a `Domain.TransactionId`. */
export const payoutIdOf = (id: string): string => `tx_${id}`

/** The devolução id of a returned PIX: derived from its charge, so a retry asks for the same one. */
export const devolucaoId = (chargeId: string): string => `D${idEnvio(chargeId)}`

/** `"12.34"` as centavos; None unless a positive amount with two decimals. */
export const cents = (valor: unknown): Option.Option<Money.Cents> => {
  if (typeof valor !== "string" || !/^\d{1,10}\.\d{2}$/.test(valor)) return Option.none()
  const n = Number(valor.replace(".", ""))
  return n > 0 ? Option.some(n as Money.Cents) : Option.none()
}

const record = (body: unknown): Record<string, unknown> =>
  typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {}

const str = (v: unknown): string | undefined => (typeof v === "string" && v.length > 0 ? v : undefined)

/** A PIX as `GET /pix` and the callbacks list it. */
interface ReceivedPix {
  readonly endToEndId: string
  readonly txid?: string
  readonly amount: Money.Cents
  readonly paidAt?: number
}

const receivedPix = (item: unknown): Option.Option<ReceivedPix> => {
  const r = record(item)
  const endToEndId = str(r.endToEndId)
  const amount = cents(r.valor)
  if (endToEndId === undefined || Option.isNone(amount)) return Option.none()
  const at = str(r.horario) === undefined ? Number.NaN : Date.parse(r.horario as string)
  const txid = str(r.txid)
  return Option.some({
    endToEndId,
    amount: amount.value,
    ...(txid === undefined ? {} : { txid }),
    ...(Number.isFinite(at) ? { paidAt: at } : {})
  })
}

const job = (kind: string, ref: string, runAt: number): Domain.Job => ({
  id: Ids.jobId(runAt),
  kind,
  ref,
  runAt
})

// The PSP's answer goes into the message (type, title, detail, violations), never as an object.
const failureOf = (what: string, e: PspError | PspResponse, outcome?: "unknown") =>
  new BankGateway.GatewayFailure({
    message: "status" in e ? `${what}: ${Problem.describe(e.status, e.body)}` : `${what}: ${e.message}`,
    ...("status" in e ? {} : { cause: e }),
    ...(outcome === undefined ? {} : { outcome })
  })

const failure = (what: string) => (e: PspError | PspResponse) => failureOf(what, e)

/** A failure whose outcome is unknown: the request may have been carried out. */
const unknownFailure = (what: string) => (e: PspError | PspResponse) => failureOf(what, e, "unknown")

const describe = (res: PspResponse): string => {
  const b = record(res.body)
  return str(b.detail) ?? str(b.title) ?? str(b.mensagem) ?? str(b.nome) ?? `HTTP ${res.status}`
}

/** The PSP's error code of a refused request (Efí `nome`, a problem's `type` tail), or its HTTP status. */
const codeOf = (res: PspResponse): string => {
  const b = record(res.body)
  return str(b.nome) ?? str(b.type)?.split("/").pop() ?? `HTTP ${res.status}`
}

/** Maps an Efí send or its status to the engine's outcome. */
const sendStatus = (body: unknown): BankGateway.SendStatus => {
  const b = record(body)
  const e2e = str(b.e2eId) ?? str(b.endToEndId)
  const withE2e = e2e === undefined ? {} : { endToEndId: e2e }
  switch (b.status) {
    case "REALIZADO":
      return { _tag: "Settled", ...withE2e }
    case "NAO_REALIZADO": {
      const erro = { ...record(b.erro), ...record(record(b.gnExtras).erro) }
      const code = str(erro.codigo)
      return {
        _tag: "Rejected",
        reason: str(erro.motivo) ?? "NAO_REALIZADO",
        ...(code === undefined ? {} : { code })
      }
    }
    case "EM_PROCESSAMENTO":
      return { _tag: "Processing", ...withE2e }
    default:
      return { _tag: "Unknown", reason: `unexpected send status ${String(b.status)}` }
  }
}

/** Maps an API Pix devolução (`PUT`/`GET /pix/{e2eid}/devolucao/{id}`) to the engine's outcome. */
const devolucaoStatus = (body: unknown): BankGateway.SendStatus => {
  const b = record(body)
  const rtr = str(b.rtrId)
  const withRtr = rtr === undefined ? {} : { endToEndId: rtr }
  switch (b.status) {
    case "DEVOLVIDO":
      return { _tag: "Settled", ...withRtr }
    case "NAO_REALIZADO":
      return { _tag: "Rejected", reason: str(b.motivo) ?? "NAO_REALIZADO" }
    case "EM_PROCESSAMENTO":
      return { _tag: "Processing", ...withRtr }
    default:
      return { _tag: "Unknown", reason: `unexpected devolução status ${String(b.status)}` }
  }
}

/** Findings of one reconciliation run. */
export type Findings = {
  readonly pixSeen: number
  readonly credited: number
  readonly returned: number
  readonly pages: number
}

/** The gateway over one PSP client. */
export const make = (settings: ApiPixSettings, psp: PspClient): BankGateway.BankGatewayShape => {
  const pollDelay = settings.pollDelayMs ?? defaults.pollDelayMs
  const interval = settings.reconcileIntervalMs ?? defaults.reconcileIntervalMs
  const window = settings.reconcileWindowMs ?? defaults.reconcileWindowMs
  const unknownWindow = settings.unknownChargeWindowMs ?? defaults.unknownChargeWindowMs
  const pix = apiPixPath(settings)
  const unknown = (e: PspError): BankGateway.SendStatus => ({
    _tag: "Unknown",
    reason: `${e.reason}: ${e.message}`
  })

  const createCharge = (charge: Domain.Transaction) =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const expiresAt = charge.expiresAt ?? now + 3_600_000
      // A due-date charge is a cobv: its calendar is the due date and the days after it, and
      // its value carries the terms the payer's bank applies on the day of payment.
      const body: Record<string, unknown> =
        charge.dueTerms === null
          ? {
              calendario: { expiracao: Math.max(1, Math.ceil((expiresAt - charge.createdAt) / 1000)) },
              valor: { original: MoneyModule.formatReais(charge.amount) },
              chave: settings.pixKey
            }
          : {
              calendario: {
                dataDeVencimento: charge.dueTerms.dueDate,
                validadeAposVencimento: charge.dueTerms.daysAfterDue
              },
              valor: CobV.valor(charge.amount, charge.dueTerms),
              chave: settings.pixKey
            }
      if (charge.clientName !== null && charge.clientDocument !== null) {
        const digits = charge.clientDocument.replace(/\D/g, "")
        body.devedor =
          digits.length === 14
            ? { cnpj: digits, nome: charge.clientName }
            : { cpf: digits, nome: charge.clientName }
      }
      if (charge.description !== null) body.solicitacaoPagador = charge.description
      const res = yield* psp
        .call({ method: "PUT", path: `${pix}/${CobV.kind(charge)}/${charge.txid}`, body })
        .pipe(
          Effect.tapError((e) =>
            Effect.logWarning("The PSP did not answer the creation of a charge").pipe(
              Effect.annotateLogs({ txid: charge.txid, reason: e.reason, error: e.message })
            )
          ),
          // A refused token sent nothing; a time-out or a lost connection may have created the cob.
          Effect.mapError((e) =>
            e.reason === "token"
              ? failure("Creating the charge")(e)
              : unknownFailure("Creating the charge")(e)
          )
        )
      const b = record(res.body)
      const location = str(record(b.loc).location) ?? str(b.location)
      const brCode = str(b.pixCopiaECola)
      const status = str(b.status) ?? "ATIVA"
      if ((res.status === 200 || res.status === 201) && location !== undefined && status === "ATIVA") {
        return brCode === undefined ? { location } : { location, brCode }
      }
      yield* Effect.logWarning("The PSP refused the creation of a charge").pipe(
        Effect.annotateLogs({
          txid: charge.txid,
          ...(res.status < 300 ? { cobStatus: status } : {}),
          ...Problem.fields(res.status, res.body)
        })
      )
      if (res.status === 200 || res.status === 201) {
        // The bank holds this txid: withdrawn, paid or removed it can never be served (definite);
        // active but without a location, it is not usable yet, and is found out as unknown.
        const why = `Creating the charge: the bank's cob is ${status}${location === undefined ? " without a location" : ""}`
        return yield* Effect.fail(
          new BankGateway.GatewayFailure({
            message: why,
            ...(status === "ATIVA" ? { outcome: "unknown" as const } : {})
          })
        )
      }
      // A 5xx may have been answered after the cob was made; a 4xx (429 included) made nothing.
      return yield* Effect.fail(
        res.status >= 500 ? unknownFailure("Creating the charge")(res) : failure("Creating the charge")(res)
      )
    })

  const sender: BankGateway.PixSender = {
    pollDelay,
    inlineBudget: settings.sendBudgetMs ?? defaults.sendBudgetMs,
    status: (payout) =>
      psp.call({ method: "GET", path: `/v2/gn/pix/enviados/id-envio/${idEnvio(payout.id)}` }).pipe(
        Effect.map((res) =>
          res.status === 404
            ? ({ _tag: "NotFound" } as const)
            : res.status === 200
              ? sendStatus(res.body)
              : ({ _tag: "Unknown", reason: describe(res) } as const)
        ),
        Effect.catchAll((e) => Effect.succeed(unknown(e)))
      ),
    send: (payout) =>
      psp
        .call({
          method: "PUT",
          path: `/v3/gn/pix/${idEnvio(payout.id)}`,
          body: {
            valor: MoneyModule.formatReais(payout.amount),
            pagador: { chave: settings.pixKey, infoPagador: payout.description ?? undefined },
            favorecido: { chave: payout.pixKey }
          }
        })
        .pipe(
          Effect.map((res): BankGateway.SendStatus => {
            if (res.status === 200 || res.status === 201) return sendStatus(res.body)
            // A definite refusal of the request itself (bad key, no funds, bad amount). A 409
            // (idEnvio already used) means an earlier send got through: ask its status.
            if (res.status === 400 || res.status === 403 || res.status === 422)
              return { _tag: "Rejected", reason: describe(res), code: codeOf(res) }
            return { _tag: "Unknown", reason: describe(res) }
          }),
          Effect.catchAll((e) => Effect.succeed(unknown(e)))
        )
  }

  /**
   * Merchants' refunds (devoluções) of received PIX: `PUT /pix/{e2eid}/devolucao/{id}` with the
   * refund's bank id (fixed before the first send, so a retry repeats it), and its `GET`. A
   * refund of a charge the bank has no PIX for, or that its rules refuse (a 4xx problem), is
   * rejected; no answer, a 5xx or a 429 is unknown, and asked about again.
   */
  const refunder: BankGateway.PixRefunder = {
    pollDelay,
    status: (refund, charge) =>
      charge.endToEndId === null
        ? Effect.succeed({ _tag: "Rejected", reason: "The charge has no end-to-end id" } as const)
        : psp
            .call({
              method: "GET",
              path: `${pix}/pix/${encodeURIComponent(charge.endToEndId)}/devolucao/${Refunds.bankRefundId(refund.id)}`
            })
            .pipe(
              Effect.map((res) =>
                res.status === 404
                  ? ({ _tag: "NotFound" } as const)
                  : res.status === 200
                    ? devolucaoStatus(res.body)
                    : ({ _tag: "Unknown", reason: describe(res) } as const)
              ),
              Effect.catchAll((e) => Effect.succeed(unknown(e)))
            ),
    send: (refund, charge) =>
      psp
        .call({
          method: "PUT",
          path: `${pix}/pix/${encodeURIComponent(charge.endToEndId ?? "")}/devolucao/${Refunds.bankRefundId(refund.id)}`,
          body: {
            valor: MoneyModule.formatReais(refund.amount),
            natureza: "ORIGINAL",
            ...(refund.description === null ? {} : { descricao: refund.description.slice(0, 140) })
          }
        })
        .pipe(
          Effect.map((res): BankGateway.SendStatus => {
            if (res.status === 200 || res.status === 201) return devolucaoStatus(res.body)
            if (res.status === 400 || res.status === 403 || res.status === 404 || res.status === 422)
              return { _tag: "Rejected", reason: describe(res), code: codeOf(res) }
            return { _tag: "Unknown", reason: describe(res) }
          }),
          Effect.catchAll((e) => Effect.succeed(unknown(e)))
        )
  }

  /** Confirms a PIX with the PSP (`GET /pix/{e2eid}`): None when the PSP does not know it. */
  const confirmPix = (endToEndId: string) =>
    Effect.flatMap(
      psp.call({ method: "GET", path: `${pix}/pix/${encodeURIComponent(endToEndId)}` }),
      (res) =>
        res.status === 404
          ? Effect.succeed(Option.none<ReceivedPix>())
          : res.status === 200
            ? Effect.succeed(receivedPix(res.body))
            : Effect.fail(failure("Confirming a PIX")(res))
    )

  const credit = (ctx: BankGateway.GatewayContext, pix: ReceivedPix) =>
    pix.txid === undefined
      ? Effect.succeed("ignored" as const)
      : ctx.paymentReceived({
          txid: pix.txid,
          endToEndId: pix.endToEndId,
          amount: pix.amount,
          ...(pix.paidAt === undefined ? {} : { paidAt: pix.paidAt })
        })

  const callback = (cb: BankGateway.BankCallback, ctx: BankGateway.GatewayContext) =>
    Effect.gen(function* () {
      const items = record(cb.body).pix
      if (!Array.isArray(items)) return
      for (const item of items) {
        const r = record(item)
        const envio = str(record(r.gnExtras).idEnvio) ?? str(r.idEnvio)
        if (envio !== undefined) {
          // A send's callback: its status, asked of the PSP, decides.
          const payout = yield* Domain.findById(Domain.TransactionId, payoutIdOf(envio), ctx.getTransaction)
          if (Option.isNone(payout) || payout.value.status !== "pending") continue
          const status = yield* sender.status(payout.value)
          if (status._tag === "Settled") yield* ctx.payoutSettled(payout.value.id, status.endToEndId)
          else if (status._tag === "Rejected") {
            yield* Effect.logWarning("The bank rejected a payout; its money returns").pipe(
              Effect.annotateLogs({
                transactionId: payout.value.id,
                bankReason: status.reason,
                bankCode: status.code
              })
            )
            yield* ctx.payoutFailed(payout.value.id, "bank_rejected")
          }
          continue
        }
        const e2e = str(r.endToEndId)
        if (e2e === undefined) continue
        const confirmed = yield* Effect.mapError(confirmPix(e2e), (e) =>
          e._tag === "PspError" ? failure("Confirming a PIX")(e) : e
        )
        if (Option.isNone(confirmed)) {
          yield* Effect.logWarning("A callback named a PIX the PSP does not know; ignored").pipe(
            Effect.annotateLogs({ endToEndId: e2e })
          )
          continue
        }
        yield* credit(ctx, confirmed.value)
      }
    })

  /** One charge still pending: asks `GET /cob/{txid}` and credits what it lists. */
  const cobCheck = (j: Store.ClaimedJob, ctx: BankGateway.GatewayContext) =>
    Effect.gen(function* () {
      const found = yield* Domain.findById(Domain.TransactionId, j.ref, ctx.getTransaction)
      const now = yield* Clock.currentTimeMillis
      if (Option.isNone(found) || found.value.status !== "pending" || found.value.txid === null) {
        return yield* ctx.finishJob(j.id)
      }
      const charge = found.value
      const txid = found.value.txid
      const res = yield* Effect.either(
        psp.call({ method: "GET", path: `${pix}/${CobV.kind(charge)}/${charge.txid}` })
      )
      if (res._tag === "Right" && res.right.status === 200) {
        const pix = record(res.right.body).pix
        for (const item of Array.isArray(pix) ? pix : []) {
          const p = receivedPix(item)
          if (Option.isSome(p)) yield* credit(ctx, { txid, ...p.value })
        }
      }
      // Ask again while the charge can still be paid (and once after its expiry).
      const expiresAt = charge.expiresAt ?? now
      return yield* now > expiresAt + interval
        ? ctx.finishJob(j.id)
        : ctx.retryJob(j.id, Math.min(now + interval, Math.max(now + 1000, expiresAt + 1000)))
    })

  /** Reads every PIX received in the window and hands each to the engine (which knows them once). */
  const reconcile = (j: Store.ClaimedJob, ctx: BankGateway.GatewayContext) =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const inicio = new Date(now - window).toISOString()
      const fim = new Date(now).toISOString()
      let page = 0
      let pages = 1
      let pixSeen = 0
      let credited = 0
      let returned = 0
      while (page < pages) {
        const res = yield* Effect.either(
          psp.call({
            method: "GET",
            path: `${pix}/pix`,
            query: { inicio, fim, "paginacao.paginaAtual": String(page), "paginacao.itensPorPagina": "100" }
          })
        )
        if (res._tag === "Left" || res.right.status !== 200) {
          yield* Effect.logWarning(
            "Reconciliation could not read received PIX; it tries again next run"
          ).pipe(
            Effect.annotateLogs(
              res._tag === "Left"
                ? { reason: res.left.message }
                : { reason: describe(res.right), ...Problem.fields(res.right.status, res.right.body) }
            )
          )
          break
        }
        const body = record(res.right.body)
        const total = record(record(body.parametros).paginacao).quantidadeDePaginas
        pages = typeof total === "number" ? Math.min(total, 1000) : 1
        for (const item of Array.isArray(body.pix) ? body.pix : []) {
          const p = receivedPix(item)
          if (Option.isNone(p)) continue
          pixSeen++
          const outcome = yield* credit(ctx, p.value)
          if (outcome === "completed") credited++
          else if (outcome === "returned") returned++
        }
        page++
      }
      const findings: Findings = { pixSeen, credited, returned, pages: page }
      if (credited > 0 || returned > 0)
        yield* Effect.logWarning("Reconciliation found PIX no callback had reported").pipe(
          Effect.annotateLogs(findings)
        )
      else yield* Effect.logInfo("Reconciliation run").pipe(Effect.annotateLogs(findings))
      yield* ctx.retryJob(j.id, now + interval)
    })

  /** Returns a PIX the engine recorded but did not credit (devolução), asking first if it was asked. */
  const pixReturn = (j: Store.ClaimedJob, ctx: BankGateway.GatewayContext) =>
    Effect.gen(function* () {
      const found = yield* Domain.findById(Domain.TransactionId, j.ref, ctx.getTransaction)
      const now = yield* Clock.currentTimeMillis
      if (
        Option.isNone(found) ||
        found.value.status !== "failed" ||
        found.value.endToEndId === null ||
        found.value.receivedAmount === null
      ) {
        return yield* ctx.finishJob(j.id)
      }
      const charge = found.value
      const { endToEndId, receivedAmount } = found.value
      const path = `${pix}/pix/${encodeURIComponent(endToEndId)}/devolucao/${devolucaoId(charge.id)}`
      const asked = yield* Effect.either(psp.call({ method: "GET", path }))
      let res = asked
      if (asked._tag === "Right" && asked.right.status === 404) {
        res = yield* Effect.either(
          psp.call({
            method: "PUT",
            path,
            body: { valor: MoneyModule.formatReais(receivedAmount) }
          })
        )
      }
      const status =
        res._tag === "Right" && res.right.status < 300 ? record(res.right.body).status : undefined
      if (status === "DEVOLVIDO") {
        yield* Effect.logInfo("A PIX not credited went back to its payer").pipe(
          Effect.annotateLogs({ transactionId: charge.id, endToEndId: charge.endToEndId })
        )
        // As the current job: the charge's change completes this job in its unit.
        const applied = yield* Effect.provideService(ctx.paymentReturned(charge.id), Jobs.CurrentJob, j.id)
        return applied ? undefined : yield* ctx.finishJob(j.id)
      }
      if (status === "NAO_REALIZADO") {
        const b = res._tag === "Right" ? record(res.right.body) : {}
        const motivo = str(b.motivo) ?? str(record(b.erro).motivo)
        const codigo = str(record(b.erro).codigo)
        yield* Effect.logError("The PSP refused to return a PIX; the merchant must act").pipe(
          Effect.annotateLogs({
            transactionId: charge.id,
            endToEndId: charge.endToEndId,
            bankReason: motivo,
            bankCode: codigo
          })
        )
        return yield* ctx.finishJob(j.id)
      }
      if (
        res._tag === "Right" &&
        res.right.status >= 400 &&
        res.right.status < 500 &&
        res.right.status !== 404
      ) {
        // A refusal of the request (problem+json): asked again, with the bank's words in the log.
        yield* Effect.logError("The PSP refused a PIX's return; asking again").pipe(
          Effect.annotateLogs({
            transactionId: charge.id,
            endToEndId: charge.endToEndId,
            bankCode: codeOf(res.right),
            bankReason: describe(res.right)
          })
        )
      } else if (res._tag === "Left" || res.right.status >= 500) {
        yield* Effect.logWarning("A PIX's return has no answer yet; asking again").pipe(
          Effect.annotateLogs({
            transactionId: charge.id,
            reason: res._tag === "Left" ? res.left.message : describe(res.right)
          })
        )
      }
      return yield* ctx.retryJob(j.id, now + pollDelay)
    })

  return {
    createCharge,
    sender,
    refunder,
    timers: (moment, subject, ref, now) => {
      switch (moment) {
        case "charge.created":
          return [
            job(
              jobKinds.cobCheck,
              ref,
              now + Math.min(interval, Math.max(1000, (subject.expiresAt ?? now) - now))
            )
          ]
        case "payment.returned":
          return [job(jobKinds.pixReturn, ref, now)]
        case "charge.unknown":
          return subject.txid === null
            ? []
            : [
                job(
                  subject.dueTerms === null ? jobKinds.cobUnknown : jobKinds.cobvUnknown,
                  subject.txid,
                  now + unknownWindow
                )
              ]
        default:
          return []
      }
    },
    jobs: {
      [jobKinds.cobCheck]: cobCheck,
      [jobKinds.reconcile]: reconcile,
      [jobKinds.pixReturn]: pixReturn,
      [jobKinds.cobUnknown]: UnknownCharges.runner(settings, psp),
      [jobKinds.cobvUnknown]: UnknownCharges.runner(settings, psp, "cobv")
    },
    start: (ctx) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        // One row for every instance: a second insert of the same id fails, and is ignored.
        yield* ctx
          .scheduleJob({ id: reconcileJobId, kind: jobKinds.reconcile, ref: "apipix", runAt: now })
          .pipe(Effect.ignore)
      }),
    callback
  }
}
