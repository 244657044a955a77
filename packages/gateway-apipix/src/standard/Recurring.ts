/**
 * Pix Automático over the API Pix (`RecurringGateway` of `@pixgate/core`): `/locrec`, `/rec`,
 * `/solicrec`, `/cobr` and `/cobr/{txid}/retentativa/{data}`, every call bounded by the client's
 * deadline. A refused token sent nothing (a definite failure); a time-out, a lost connection or a
 * 5xx may have done it: the gateway then asks the bank what it holds, and answers what it finds.
 * It never repeats a create or a retry to find out:
 *
 * - `POST /rec`: the location's `idRec` (`GET /locrec/{id}`) when one was given, else the
 *   debtor's recurrences created since the call (`GET /rec?inicio&fim&cpf|cnpj`) that match the
 *   request, when exactly one does;
 * - `POST /solicrec`: the recurrence's `solicitacao` created since the call;
 * - `PUT /cobr/{txid}`: `GET /cobr/{txid}` (also when the bank says the txid is in use: the
 *   PUT is idempotent on the engine's txid);
 * - `POST .../retentativa/{data}`: an attempt on that date in `GET /cobr/{txid}`;
 * - the cancellations (`PATCH ... CANCELADA`): the read's status.
 *
 * When the read finds nothing (or fails) the failure keeps `outcome: "unknown"`: the engine reads
 * again later. Reads answer None on a 404.
 */
import { BankGateway, type RecurringGateway as R } from "@pixgate/core"
import { Clock, Effect, Option } from "effect"
import type { PspCall, PspError, PspResponse } from "./Call.js"
import * as W from "./RecurringWire.js"
import type { Setup } from "./Setup.js"
import { failure, record, str, unknownFailure } from "./Wire.js"

type Failure = BankGateway.GatewayFailure
type Parse<A> = (body: unknown) => Option.Option<A>

/** A call's answer, or the failure it is: definite (4xx, refused token) or unknown (5xx, no answer). */
const send = (setup: Setup, what: string, call: PspCall) =>
  setup.psp
    .call(call)
    .pipe(
      Effect.mapError(
        (e: PspError): Failure => (e.reason === "token" ? failure(what)(e) : unknownFailure(what)(e))
      )
    )

const unknownOf = (what: string, res: PspResponse): Failure =>
  res.status >= 500 ? unknownFailure(what)(res) : failure(what)(res)

const unparsable = (what: string) =>
  new BankGateway.GatewayFailure({
    message: `${what}: the bank's answer lacks the standard's fields`,
    outcome: "unknown"
  })

/** A read: the parsed answer, None on a 404. */
const read = <A>(setup: Setup, what: string, path: string, parse: Parse<A>, query?: Record<string, string>) =>
  Effect.flatMap(
    send(setup, what, { method: "GET", path, ...(query === undefined ? {} : { query }) }),
    (res): Effect.Effect<Option.Option<A>, Failure> => {
      if (res.status === 404) return Effect.succeed(Option.none())
      if (res.status !== 200) return Effect.fail(failure(what)(res))
      const parsed = parse(res.body)
      return Option.isSome(parsed) ? Effect.succeed(parsed) : Effect.fail(unparsable(what))
    }
  )

/**
 * A write: its answer when `ok`, else the failure; an unknown outcome is resolved with `resolve`
 * (a read): found, it is the answer; not found or not readable, the failure stays unknown.
 */
const write = <A>(
  setup: Setup,
  what: string,
  call: PspCall,
  parse: Parse<A>,
  ok: (status: number) => boolean,
  resolve: (since: number, res: PspResponse | undefined) => Effect.Effect<Option.Option<A>, Failure>
) =>
  Effect.gen(function* () {
    const since = yield* Clock.currentTimeMillis
    const res = yield* Effect.either(send(setup, what, call))
    if (res._tag === "Right" && ok(res.right.status)) {
      const parsed = parse(res.right.body)
      if (Option.isSome(parsed)) return parsed.value
    }
    const answered = res._tag === "Right" ? res.right : undefined
    const first: Failure =
      res._tag === "Left"
        ? res.left
        : answered && ok(answered.status)
          ? unparsable(what)
          : unknownOf(what, res.right)
    // A definite refusal is the answer unless `resolve` knows better (a txid already in use).
    const found = yield* Effect.either(resolve(since, answered))
    if (found._tag === "Right" && Option.isSome(found.right)) {
      yield* Effect.logInfo(`${what}: the bank's outcome was found by a read`).pipe(
        Effect.annotateLogs({ path: call.path })
      )
      return found.right.value
    }
    return yield* Effect.fail(first)
  })

const none = <A>() => Effect.succeed(Option.none<A>())
const unknownOnly = (res: PspResponse | undefined) => res === undefined || res.status >= 500
const iso = (ms: number) => new Date(ms).toISOString()

/** A recurrence, read. */
const readRecOf = (setup: Setup, idRec: string, options?: { readonly txid?: string }) =>
  read(
    setup,
    "Reading a recurrence",
    `${setup.pix}/rec/${encodeURIComponent(idRec)}`,
    W.recurrence,
    options?.txid === undefined ? undefined : { txid: options.txid }
  )
/** A cycle charge, read. */
const readCobrOf = (setup: Setup, txid: string) =>
  read(setup, "Reading a cycle charge", `${setup.pix}/cobr/${encodeURIComponent(txid)}`, W.cycleCharge)

/** The recurrences a query finds, page by page (100 pages at most). */
const findRecurrences = (setup: Setup, q: R.RecurrenceQuery) =>
  Effect.gen(function* () {
    const out: Array<R.RecurrenceSnapshot> = []
    for (let page = 0, pages = 1; page < pages && page < 100; page++) {
      const res = yield* send(setup, "Listing recurrences", {
        method: "GET",
        path: `${setup.pix}/rec`,
        query: {
          inicio: q.inicio,
          fim: q.fim,
          ...(q.cpf === undefined ? {} : { cpf: q.cpf }),
          ...(q.cnpj === undefined ? {} : { cnpj: q.cnpj }),
          ...(q.status === undefined ? {} : { status: q.status }),
          "paginacao.paginaAtual": String(page),
          "paginacao.itensPorPagina": "100"
        }
      })
      if (res.status !== 200) return yield* Effect.fail(failure("Listing recurrences")(res))
      const b = record(res.body)
      const total = record(record(b.parametros).paginacao).quantidadeDePaginas
      pages = typeof total === "number" ? total : 1
      for (const item of Array.isArray(b.recs) ? b.recs : []) out.push(...Option.toArray(W.recurrence(item)))
    }
    return out as ReadonlyArray<R.RecurrenceSnapshot>
  })

/** The recurrence an unknown `POST /rec` made, if the bank shows exactly one. */
const createdRec = (setup: Setup, r: R.RecurrenceRequest, since: number) =>
  Effect.gen(function* () {
    if (r.loc !== undefined) {
      const loc = yield* read(
        setup,
        "Reading a location",
        `${setup.pix}/locrec/${encodeURIComponent(r.loc)}`,
        W.location
      )
      const idRec = Option.isSome(loc) ? loc.value.idRec : undefined
      return idRec === undefined ? Option.none<R.RecurrenceSnapshot>() : yield* readRecOf(setup, idRec)
    }
    const now = yield* Clock.currentTimeMillis
    const d = r.vinculo.devedor
    const found = yield* findRecurrences(setup, {
      inicio: iso(since - 60_000),
      fim: iso(now + 60_000),
      ...(d.cpf === undefined ? {} : { cpf: d.cpf }),
      ...(d.cnpj === undefined ? {} : { cnpj: d.cnpj })
    })
    const matching = found.filter(
      (s) =>
        s.vinculo?.contrato === r.vinculo.contrato &&
        s.calendario?.dataInicial === r.calendario.dataInicial &&
        s.calendario?.periodicidade === r.calendario.periodicidade &&
        s.politicaRetentativa === r.politicaRetentativa &&
        Date.parse(s.atualizacao[0]?.data ?? "") >= since - 1000
    )
    return matching.length === 1 ? Option.some(matching[0] as R.RecurrenceSnapshot) : Option.none()
  })

/** What an unknown cancellation did: the object re-read, if it is cancelled. */
const cancelled =
  <A extends { readonly status: string }>(reread: () => Effect.Effect<Option.Option<A>, Failure>) =>
  (_since: number, _res: PspResponse | undefined) =>
    Effect.map(
      reread(),
      Option.filter((s) => s.status === "CANCELADA")
    )

/** What the recurring operations share: the PSP client's setup, its Pix API's path, the reads. */
const recurringContext = (setup: Setup) => {
  const p = setup.pix
  const readRec = (idRec: string, options?: { readonly txid?: string }) => readRecOf(setup, idRec, options)
  const readCobr = (txid: string) => readCobrOf(setup, txid)
  return { setup, p, readRec, readCobr }
}

type RecurringContext = ReturnType<typeof recurringContext>

/** Locations and recurrences created, read, found and cancelled, and the payer's authorisation requested. */
const recurrenceOps = ({ setup, p, readRec }: RecurringContext) =>
  ({
    pollDelay: setup.pollDelay,
    createLocation: () =>
      write(
        setup,
        "Creating a location",
        { method: "POST", path: `${p}/locrec`, body: { tipo: "rec" } },
        W.location,
        (s) => s === 201 || s === 200,
        () => none<R.RecLocation>()
      ),
    createRecurrence: (r) =>
      write(
        setup,
        "Creating a recurrence",
        { method: "POST", path: `${p}/rec`, body: W.recBody(r) },
        W.recurrence,
        (s) => s === 201 || s === 200,
        (since, res) => (unknownOnly(res) ? createdRec(setup, r, since) : none<R.RecurrenceSnapshot>())
      ),
    readRecurrence: readRec,
    findRecurrences: (q) => findRecurrences(setup, q),
    cancelRecurrence: (idRec) =>
      write(
        setup,
        "Cancelling a recurrence",
        { method: "PATCH", path: `${p}/rec/${encodeURIComponent(idRec)}`, body: { status: "CANCELADA" } },
        W.recurrence,
        (s) => s === 200,
        cancelled(() => readRec(idRec))
      ),
    requestAuthorization: (s) =>
      write(
        setup,
        "Requesting the payer's authorisation",
        { method: "POST", path: `${p}/solicrec`, body: W.solicRecBody(s) },
        W.solicitation,
        (st) => st === 201 || st === 200,
        (since, res) =>
          unknownOnly(res)
            ? Effect.map(readRec(s.idRec), (rec) =>
                Option.fromNullable(
                  Option.getOrUndefined(rec)?.solicitacao?.find(
                    (x) => Date.parse(x.atualizacao[0]?.data ?? "") >= since - 1000
                  )
                )
              )
            : none<R.SolicitationSnapshot>()
      ),
    readSolicitation: (id) =>
      read(
        setup,
        "Reading an authorisation request",
        `${p}/solicrec/${encodeURIComponent(id)}`,
        W.solicitation
      )
  }) satisfies Partial<R.RecurringGateway>

/** Authorisation requests cancelled, cycle charges created and read, retries requested. */
const cycleChargeOps = ({ setup, p, readCobr }: RecurringContext) =>
  ({
    cancelSolicitation: (id) =>
      write(
        setup,
        "Cancelling an authorisation request",
        { method: "PATCH", path: `${p}/solicrec/${encodeURIComponent(id)}`, body: { status: "CANCELADA" } },
        W.solicitation,
        (s) => s === 201 || s === 200,
        cancelled(() =>
          read(
            setup,
            "Reading an authorisation request",
            `${p}/solicrec/${encodeURIComponent(id)}`,
            W.solicitation
          )
        )
      ),
    createCycleCharge: (txid, c) => {
      const recebedor = setup.settings.recebedor
      if (recebedor === undefined)
        return Effect.fail(
          new BankGateway.GatewayFailure({
            message: "Creating a cycle charge: the gateway's settings name no receiver account (recebedor)"
          })
        )
      return write(
        setup,
        "Creating a cycle charge",
        { method: "PUT", path: `${p}/cobr/${encodeURIComponent(txid)}`, body: W.cobrBody(c, recebedor) },
        W.cycleCharge,
        (s) => s === 201 || s === 200,
        // Unknown, or refused because the txid is in use: the charge the bank holds, if it is this one.
        (_since, res) =>
          unknownOnly(res) || str(record(res?.body).type)?.endsWith("CobROperacaoInvalida")
            ? Effect.map(
                readCobr(txid),
                Option.filter(
                  (s) => s.idRec === c.idRec && s.calendario.dataDeVencimento === c.dataDeVencimento
                )
              )
            : none<R.CycleChargeSnapshot>()
      )
    },
    readCycleCharge: readCobr,
    requestRetry: (txid, data) =>
      write(
        setup,
        "Requesting a retry",
        {
          method: "POST",
          path: `${p}/cobr/${encodeURIComponent(txid)}/retentativa/${encodeURIComponent(data)}`
        },
        W.cycleCharge,
        (s) => s === 201 || s === 200,
        // Unknown, or refused as already asked for that date: the attempt the bank holds on it.
        () =>
          Effect.map(
            readCobr(txid),
            Option.filter((s) =>
              (s.tentativas ?? []).some((t) => t.tipo === "NTAG" && t.dataLiquidacao === data)
            )
          )
      )
  }) satisfies Partial<R.RecurringGateway>

/** Cycle charges cancelled, and the webhooks registered. */
const cycleEndOps = ({ setup, p, readCobr }: RecurringContext) =>
  ({
    cancelCycleCharge: (txid) =>
      write(
        setup,
        "Cancelling a cycle charge",
        { method: "PATCH", path: `${p}/cobr/${encodeURIComponent(txid)}`, body: { status: "CANCELADA" } },
        W.cycleCharge,
        (s) => s === 200,
        cancelled(() => readCobr(txid))
      ),
    registerWebhooks: (webhookUrl) =>
      Effect.forEach(["webhookrec", "webhookcobr"], (name) =>
        Effect.flatMap(
          send(setup, `Registering /${name}`, { method: "PUT", path: `${p}/${name}`, body: { webhookUrl } }),
          (res) => (res.status < 300 ? Effect.void : Effect.fail(failure(`Registering /${name}`)(res)))
        )
      ).pipe(Effect.asVoid)
  }) satisfies Partial<R.RecurringGateway>

/** The gateway's recurring operations over `setup`'s PSP client. */
export const make = (setup: Setup): R.RecurringGateway => {
  const c = recurringContext(setup)
  return {
    ...recurrenceOps(c),
    ...cycleChargeOps(c),
    ...cycleEndOps(c)
  }
}
