/**
 * The live gateway as layers: `layer` over any `HttpClient` (a platform brings its own), and
 * `layerNode`, which builds Node's client with the mTLS client certificate and CA on a
 * keep-alive agent for the layer's life. Either provides `BankGateway.LiveGateway`, which
 * `Engine.layer` picks up for live keys, and fails with a `SettingsError` naming the setting when
 * the settings cannot work (`Check.check`: base URL, certificate, key, PKCS#12, CA, PIX key).
 */
import type { HttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { BankGateway } from "@pixgate/core"
import { Effect, Layer, Redacted } from "effect"
import * as Agent from "./Agent.js"
import * as Check from "./Check.js"
import * as Client from "./Client.js"
import * as Gateway from "./Gateway.js"
import * as Problem from "./Problem.js"
import { type ApiPixSettings, apiPixPath, defaults } from "./Settings.js"

/** The gateway over the HttpClient in context. */
export const layer = (
  settings: ApiPixSettings
): Layer.Layer<BankGateway.LiveGateway, Check.SettingsError, HttpClient.HttpClient> =>
  Layer.effect(
    BankGateway.LiveGateway,
    Effect.flatMap(Check.checked(settings), (valid) =>
      Effect.map(Client.make(valid), (psp) => Gateway.make(valid, psp))
    )
  )

/** Node's TLS options of the settings: the client certificate on every call, the CA if given. */
export const tlsOptions = (settings: ApiPixSettings) => ({
  keepAlive: true,
  ...(settings.certificate._tag === "Pem"
    ? { cert: settings.certificate.cert, key: Redacted.value(settings.certificate.key) }
    : { pfx: settings.certificate.pfx, passphrase: Redacted.value(settings.certificate.passphrase) }),
  ca: settings.ca
})

/** Node's HttpClient presenting the settings' client certificate (mTLS). */
export const httpClientNode = (settings: ApiPixSettings): Layer.Layer<HttpClient.HttpClient> =>
  NodeHttpClient.layerWithoutAgent.pipe(
    Layer.provide(Agent.layer(tlsOptions(settings), settings.connectTimeoutMs ?? defaults.connectTimeoutMs))
  )

/** The gateway on Node, with mTLS. */
export const layerNode = (
  settings: ApiPixSettings
): Layer.Layer<BankGateway.LiveGateway, Check.SettingsError> =>
  layer(settings).pipe(Layer.provide(httpClientNode(settings)))

/**
 * Registers the engine's callback URL for the settlement key (`PUT /webhook/{chave}`): the PSP
 * then posts every PIX received to `<url>/pix`.
 */
export const registerWebhook = (
  settings: ApiPixSettings,
  webhookUrl: string
): Effect.Effect<void, BankGateway.GatewayFailure, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const psp = yield* Client.make(settings)
    const res = yield* Effect.mapError(
      psp.call({
        method: "PUT",
        path: `${apiPixPath(settings)}/webhook/${encodeURIComponent(settings.pixKey)}`,
        body: { webhookUrl }
      }),
      (e) => new BankGateway.GatewayFailure({ message: e.message, cause: e })
    )
    if (res.status >= 300)
      return yield* Effect.fail(
        // The PSP's reason (problem type, detail, violations) in the message the command prints.
        new BankGateway.GatewayFailure({
          message: `The PSP refused the webhook: ${Problem.describe(res.status, res.body)}`
        })
      )
  })
