/**
 * The standard's callback registration: `PUT /webhook/{chave}` with `{ webhookUrl }` for the
 * settlement key; the PSP then posts every PIX received to `<webhookUrl>/pix`. A refusal carries
 * the PSP's reason (problem type, detail, violations) in the message the command prints.
 */
import { BankGateway } from "@pixgate/core"
import { Effect } from "effect"
import type { PspClient } from "./Client.js"
import * as Problem from "./Problem.js"

/** Registers `webhookUrl` for `pixKey` under the API Pix path `pix`; answers the key registered. */
export const register = (
  psp: PspClient,
  pix: string,
  pixKey: string,
  webhookUrl: string
): Effect.Effect<Readonly<Record<string, string>>, BankGateway.GatewayFailure> =>
  Effect.gen(function* () {
    const res = yield* Effect.mapError(
      psp.call({ method: "PUT", path: `${pix}/webhook/${encodeURIComponent(pixKey)}`, body: { webhookUrl } }),
      (e) => new BankGateway.GatewayFailure({ message: e.message, cause: e })
    )
    if (res.status >= 300)
      return yield* Effect.fail(
        new BankGateway.GatewayFailure({
          message: `The PSP refused the webhook: ${Problem.describe(res.status, res.body)}`
        })
      )
    return { chave: pixKey }
  })
