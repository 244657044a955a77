/**
 * The handlers of `SubscriptionsApi`: one engine call each (`engine.subscriptions`), for the
 * merchant and mode of the API key. Amounts arrive as the standard writes them (`"99.90"`) and
 * go to the engine in cents; a cycle is reached through its subscription (404 when the `txid` is
 * not one of its cycles).
 */
import {
  Engine,
  Errors,
  Idempotency,
  Recurrence as R,
  Store,
  type Subscriptions,
  SubscriptionViews
} from "@pixgate/core"
import { Effect, Option } from "effect"
import type { GroupHandlers } from "./EndpointHandlers.js"
import { CurrentCaller, type SubscriptionsGroup } from "./PixgateApi.js"
import type { CreateSubscription } from "./SubscriptionsApi.js"

const withCaller = <A, E>(
  f: (subs: Subscriptions.SubscriptionsShape, caller: typeof CurrentCaller.Service) => Effect.Effect<A, E>
) =>
  Effect.flatMap(Engine.Engine, (engine) =>
    Effect.flatMap(CurrentCaller, (caller) => f(engine.subscriptions, caller))
  )

/** Cents of an amount the schema checked (`"99.90"`). */
const cents = (text: string | undefined): number | undefined =>
  text === undefined ? undefined : SubscriptionViews.parseValor(text)

/** The engine's request from the API's body. */
export const request = (body: typeof CreateSubscription.Type): Subscriptions.CreateSubscription => ({
  jornada: body.jornada,
  vinculo: {
    contrato: body.vinculo.contrato,
    devedor: {
      nome: body.vinculo.devedor.nome,
      ...(body.vinculo.devedor.cpf === undefined ? {} : { cpf: body.vinculo.devedor.cpf }),
      ...(body.vinculo.devedor.cnpj === undefined ? {} : { cnpj: body.vinculo.devedor.cnpj })
    },
    objeto: body.vinculo.objeto
  },
  calendario: body.calendario,
  valor: {
    valorRec: cents(body.valor.valorRec),
    valorMinimoRecebedor: cents(body.valor.valorMinimoRecebedor)
  },
  valorCiclo: cents(body.valorCiclo),
  politicaRetentativa: body.politicaRetentativa,
  pagador: body.pagador,
  dataExpiracaoSolicitacao: body.dataExpiracaoSolicitacao,
  cobranca:
    body.cobranca === undefined
      ? undefined
      : { valor: cents(body.cobranca.valor) ?? 0, dueDate: body.cobranca.dueDate }
})

const badQuery = (path: string, message: string) =>
  Effect.fail(Errors.validation("invalid_query", path, message))

const isStatus = (s: string): s is R.RecStatus => (R.recStatuses as ReadonlyArray<string>).includes(s)

/**
 * Under an Idempotency-Key, the 201 answer is stored on the key once the subscription exists, so
 * a repeat replays it. Not in the creation's own unit (the engine's `create` does not take the
 * key): a crash between the two leaves the key locked until its lock lapses (docs/decisions.md).
 */
const keepAnswer = <A>(value: A) =>
  Effect.gen(function* () {
    const scope = yield* Effect.serviceOption(Idempotency.StartedKey)
    const store = yield* Effect.serviceOption(Store.Store)
    if (Option.isSome(scope) && Option.isSome(store))
      yield* store.value
        .finishIdempotent(scope.value, "answered", JSON.stringify(value))
        .pipe(Effect.catchAll((e) => Effect.fail(Errors.unavailable(e))))
    return value
  })

/** By endpoint name. */
export const handlers: GroupHandlers<typeof SubscriptionsGroup> = {
  create: ({ payload }) =>
    withCaller((subs, caller) => Effect.flatMap(subs.create(caller, request(payload)), keepAnswer)),
  list: ({ urlParams }) => {
    const limit = urlParams.limit === undefined ? 20 : Number(urlParams.limit)
    if (!/^\d+$/.test(urlParams.limit ?? "20") || limit < 1)
      return badQuery("limit", "limit must be a positive integer")
    const status = urlParams.status
    if (status !== undefined && !isStatus(status))
      return badQuery("status", `status must be one of: ${R.recStatuses.join(", ")}`)
    const clamped = Math.min(limit, 100)
    return withCaller((subs, caller) =>
      Effect.map(subs.list(caller, { status, before: urlParams.before, limit: clamped }), (data) => ({
        data,
        limit: clamped,
        nextBefore: data.length === clamped ? (data[data.length - 1]?.id ?? null) : null
      }))
    )
  },
  get: ({ path }) => withCaller((subs, caller) => subs.get(caller, path.id)),
  cycles: ({ path }) =>
    withCaller((subs, caller) => Effect.map(subs.cycles(caller, path.id), (data) => ({ data }))),
  cancel: ({ path }) => withCaller((subs, caller) => subs.cancel(caller, path.id)),
  retry: ({ path, payload }) =>
    withCaller((subs, caller) =>
      Effect.flatMap(subs.cycles(caller, path.id), (cycles) =>
        cycles.some((c) => c.txid === path.txid)
          ? subs.retry(caller, path.txid, payload.data)
          : Effect.fail(Errors.notFound("Cycle"))
      )
    )
}
