/**
 * MED infractions in the admin API: `GET /merchants/{merchantId}/infractions?mode=&status=` (a
 * merchant's infractions, newest first, with their deadline, blocked and returned amounts) and
 * `POST /merchants/{merchantId}/infractions/{infractionId}/answer` (accept or contest with a
 * justification, before the deadline: 409 `infraction_deadline_passed` after it,
 * `infraction_not_answerable` once answered or concluded). The group carries no security here:
 * `PixgateApi` adds the admin token.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Engine, Errors, Infractions, InfractionViews, MedInfractions, Store } from "@pixgate/core"
import { Effect, Option, Schema } from "effect"
import * as ApiErrors from "./ApiErrors.js"

const describe = (identifier: string, summary: string, description?: string) =>
  OpenApi.annotations({ identifier, summary, description })

const MerchantPath = Schema.Struct({ merchantId: Schema.String })
const AnswerPath = Schema.Struct({ merchantId: Schema.String, infractionId: Schema.String })

/** The admin API's MED infractions (behind the admin token, added by `PixgateApi`). */
export const AdminInfractionsGroup = HttpApiGroup.make("adminInfractions")
  .add(
    HttpApiEndpoint.get("listInfractions", "/merchants/:merchantId/infractions")
      .setPath(MerchantPath)
      .setUrlParams(InfractionViews.ListQuery)
      .addSuccess(InfractionViews.InfractionList)
      .annotateContext(
        describe(
          "listInfractions",
          "A merchant's MED infractions, newest first (up to 100)",
          "Each with its deadline, the amount blocked (held apart: payouts cannot spend it) and the amount returned to the payer. `status` filters."
        )
      )
  )
  .add(
    HttpApiEndpoint.post("answerInfraction", "/merchants/:merchantId/infractions/:infractionId/answer")
      .setPath(AnswerPath)
      .setPayload(InfractionViews.Answer)
      .addSuccess(InfractionViews.Infraction)
      .annotateContext(
        describe(
          "answerInfraction",
          "Answer an open MED infraction: accept it or contest it with a justification",
          "Only before its deadline (409 `infraction_deadline_passed` after it) and only once " +
            "(409 `infraction_not_answerable`). A live answer goes to the bank first (Efí: its `defesa`); " +
            "409 `infraction_bank_refused` when the bank refuses it, 409 `infraction_answer_unknown` when its " +
            "outcome stays unknown (nothing recorded: the same answer may be sent again), 422 " +
            "`capability_unavailable` when the merchant's bank reads no infractions. `contested` makes it `defended` (the bank decides); `accepted` " +
            "makes it `accepted` (the bank returns the money, which Pixgate books when the bank reports the devolução)."
        )
      )
  )
  .addError(
    Schema.Union(
      ApiErrors.InvalidJson,
      ApiErrors.NotFound,
      ApiErrors.Refused,
      ApiErrors.PayloadTooLarge,
      ApiErrors.AdminValidationError,
      ApiErrors.StorageUnavailable
    )
  )
  .annotateContext(
    OpenApi.annotations({
      title: "Admin infractions",
      description: "MED infractions the bank reported against the merchants' received PIX, and their answers"
    })
  )

const merchantOf = (engine: Engine.EngineShape, id: string) =>
  Effect.map(engine.admin.getMerchant(id), (m) => m.id)

const stored = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchIf(
    effect,
    (e): e is Extract<E, Store.StoreError> => e instanceof Store.StoreError,
    (e) => Effect.fail(Errors.unavailable(e))
  )

/** The handlers of `AdminInfractionsGroup`. */
export const handlers = {
  listInfractions: ({
    path,
    urlParams
  }: {
    readonly path: typeof MerchantPath.Type
    readonly urlParams: typeof InfractionViews.ListQuery.Type
  }) =>
    Effect.flatMap(Engine.Engine, (engine) =>
      Effect.gen(function* () {
        const merchantId = yield* merchantOf(engine, path.merchantId)
        const list = yield* stored(
          engine.infractions.list({
            merchantId,
            mode: urlParams.mode,
            ...(urlParams.status === undefined ? {} : { statuses: [urlParams.status] })
          })
        )
        return { data: list.map(InfractionViews.infractionJson) }
      })
    ),
  answerInfraction: ({
    path,
    payload
  }: {
    readonly path: typeof AnswerPath.Type
    readonly payload: typeof InfractionViews.Answer.Type
  }) =>
    Effect.flatMap(Engine.Engine, (engine) =>
      Effect.gen(function* () {
        const merchantId = yield* merchantOf(engine, path.merchantId)
        const found = MedInfractions.isInfractionId(path.infractionId)
          ? yield* stored(engine.infractions.get(path.infractionId))
          : Option.none()
        if (Option.isNone(found) || found.value.merchantId !== merchantId)
          return yield* Effect.fail(Errors.notFound("Infraction"))
        const r = yield* stored(
          engine.infractions.answer({ merchantId, mode: found.value.mode }, found.value.id, {
            analysis: payload.analysis,
            justification: payload.justification.trim()
          })
        )
        if (r.ok) return InfractionViews.infractionJson(r.value)
        return yield* Effect.fail(Infractions.answerError(r, found.value))
      })
    )
}
