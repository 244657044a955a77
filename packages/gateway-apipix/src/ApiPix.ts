/**
 * The live gateway as layers: `layer` over any `HttpClient` (a platform brings its own), and
 * `layerNode`, which builds Node's client with the mTLS client certificate and CA on a
 * keep-alive agent for the layer's life. Either provides `BankGateway.LiveGateway`, which
 * `Engine.layer` picks up for live keys, and fails with a `SettingsError` naming the setting when
 * the settings cannot work (`Check.check`: base URL, certificate, key, PKCS#12, CA, PIX key).
 * Each takes the PSP's profile (Efí's by default).
 */
import type { HttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { BankGateway } from "@pixgate/core"
import { Effect, Layer, Redacted } from "effect"
import * as Check from "./Check.js"
import * as Efi from "./efi/Efi.js"
import * as Gateway from "./Gateway.js"
import type { PspProfile } from "./Profile.js"
import { type ApiPixSettings, defaults } from "./Settings.js"
import * as Agent from "./standard/Agent.js"
import * as Client from "./standard/Client.js"
import * as Recurring from "./standard/Recurring.js"
import * as Setup from "./standard/Setup.js"
import * as Webhook from "./standard/Webhook.js"

/** The gateway over the HttpClient in context. */
export const layer = (
  settings: ApiPixSettings,
  profile: PspProfile = Efi.profile
): Layer.Layer<BankGateway.LiveGateway, Check.SettingsError, HttpClient.HttpClient> =>
  Layer.effect(
    BankGateway.LiveGateway,
    Effect.flatMap(Check.checked(settings), (valid) =>
      Effect.map(Client.make(valid, profile), (psp) => Gateway.make(valid, psp, profile))
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
  settings: ApiPixSettings,
  profile: PspProfile = Efi.profile
): Layer.Layer<BankGateway.LiveGateway, Check.SettingsError> =>
  layer(settings, profile).pipe(Layer.provide(httpClientNode(settings)))

/**
 * Registers the engine's callback URL with the PSP the profile's way (the standard's
 * `PUT /webhook/{chave}` unless the profile has its own): the PSP then posts every PIX received
 * to `<url>/pix`. With Pix Automático turned on (`recebedor`), also `PUT /webhookrec` and
 * `PUT /webhookcobr` (the bank posts to `<url>/rec` and `<url>/cobr`). Answers what was registered
 * (`{ chave }`, and `webhookrec`, `webhookcobr`).
 */
export const registerWebhook = (
  settings: ApiPixSettings,
  webhookUrl: string,
  profile: PspProfile = Efi.profile
): Effect.Effect<Readonly<Record<string, string>>, BankGateway.GatewayFailure, HttpClient.HttpClient> =>
  Effect.flatMap(Client.make(settings, profile), (psp) => {
    const setup = Setup.make(settings, psp, profile.apiPixPath)
    const pix =
      profile.registerCallback === undefined
        ? Webhook.register(psp, setup.pix, settings.pixKey, webhookUrl)
        : profile.registerCallback(setup, webhookUrl)
    // Pix Automático turned on (a receiver account): `/webhookrec` and `/webhookcobr` too.
    const recurring = Recurring.make(setup).registerWebhooks
    return settings.recebedor === undefined || recurring === undefined
      ? pix
      : Effect.flatMap(pix, (registered) =>
          Effect.as(recurring(webhookUrl), {
            ...registered,
            webhookrec: "registered",
            webhookcobr: "registered"
          })
        )
  })
