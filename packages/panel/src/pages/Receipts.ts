/**
 * A completed charge's or payout's receipt (comprovante) and a transaction's small JSON status,
 * which a pending charge's page polls to turn to paid by itself.
 */
import { Errors } from "@pixgate/core"
import { Effect } from "effect"
import { type Handler, respond, type Signed } from "../Ctx.js"
import { page, securityHeaders } from "../Layout.js"
import * as LiveStatus from "../LiveStatus.js"
import * as Receipt from "../Receipt.js"
import { ownTransaction } from "./Parts.js"

/** The receipt page of the merchant's transaction `id`; not found unless it is a completed charge or payout. */
export const receipt = (s: Signed, id: string): Handler =>
  Effect.gen(function* () {
    const tx = yield* ownTransaction(s, id)
    if (!Receipt.has(tx)) return yield* Effect.fail(Errors.notFound("Receipt"))
    return respond(s, page(s.view, Receipt.title(s.view, tx), Receipt.body(s.view, tx, s.merchant)))
  })

/** The merchant's transaction `id`'s status as JSON (id, status, paid, times). */
export const status = (s: Signed, id: string): Handler =>
  Effect.map(ownTransaction(s, id), (tx) => {
    const response = LiveStatus.response(tx, securityHeaders)
    for (const c of s.setCookies) response.headers.append("set-cookie", c)
    return response
  })
